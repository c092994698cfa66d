//! Software IEEE-754 binary64 (and the few binary32 operations SSIM needs) on
//! integer bits: the line-for-line Rust twin of `glsl/include/soft_f64.glsl`, the
//! shader arithmetic for devices without `shaderFloat64`.
//!
//! Every function here has a GLSL function of the same name, with the same helpers,
//! the same integer operations in the same order; keep the two in sync. The GLSL
//! intrinsics it uses (`umulExtended`, `findMSB`, `packUint2x32`, `unpackUint2x32`,
//! `floatBitsToUint`, `uintBitsToFloat`) have small twins at the top of this file.
//! Because the algorithm is the same, the tests below (against the CPU's native IEEE
//! arithmetic) test the shader too, and `engine/tests/soft_f64_gpu.rs` checks that the
//! shader and this twin agree bit for bit on a real device.
//!
//! Semantics: round to nearest, ties to even, for every finite result, including
//! subnormal inputs and results, signed zeros and overflow to infinity. Infinities
//! follow IEEE. Any NaN result is the canonical quiet NaN (`0x7FF8_0000_0000_0000`,
//! or `0x7FC0_0000` in binary32): payloads and NaN signs are not propagated. No
//! exception flags.
//!
//! Internal form: `(sign, e, m)` with `m`'s leading bit at bit 62 (binary64) or 30
//! (binary32), i.e. 10 or 7 bits below the last kept bit, and `e` the biased exponent
//! of the result when it is normal. Bits shifted out to the right are ORed ("jammed")
//! into bit 0, which keeps rounding right as at least two bits separate bit 0 from
//! the rounding position.

/// A binary64 value as its IEEE-754 bits (the shader's `F64` in the `SOFT_F64`
/// variant: `#define F64 uint64_t`).
pub type F64 = u64;

const SF64_SIGN: u64 = 0x8000_0000_0000_0000;
const SF64_INF: u64 = 0x7FF0_0000_0000_0000;
const SF64_QNAN: u64 = 0x7FF8_0000_0000_0000;
const SF64_FRAC: u64 = 0x000F_FFFF_FFFF_FFFF;
const SF64_HIDDEN: u64 = 0x0010_0000_0000_0000;
const SF32_SIGN: u32 = 0x8000_0000;
const SF32_INF: u32 = 0x7F80_0000;
const SF32_QNAN: u32 = 0x7FC0_0000;
const SF32_FRAC: u32 = 0x007F_FFFF;
const SF32_HIDDEN: u32 = 0x0080_0000;

// ---- Twins of the GLSL built-ins used by the shader. ----

/// GLSL `findMSB(uint)`: index of the highest set bit, -1 for 0.
fn find_msb(v: u32) -> i32 {
    31 - v.leading_zeros() as i32
}

/// GLSL `unpackUint2x32`: (low word, high word).
fn unpack_uint2x32(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

/// GLSL `packUint2x32(uvec2(x, y))`: `x` is the low word.
fn pack_uint2x32(x: u32, y: u32) -> u64 {
    (u64::from(y) << 32) | u64::from(x)
}

/// GLSL `umulExtended(x, y, msb, lsb)`: returns (msb, lsb).
fn umul_extended(x: u32, y: u32) -> (u32, u32) {
    let p = u64::from(x) * u64::from(y);
    ((p >> 32) as u32, p as u32)
}

// ---- The shader's helpers. ----

/// Leading zero count of a 64-bit value (64 for 0).
fn sf_clz64(x: u64) -> i32 {
    let v = unpack_uint2x32(x);
    if v.1 != 0 {
        return 31 - find_msb(v.1);
    }
    63 - find_msb(v.0)
}

/// `x >> n`, with every bit shifted out ORed into bit 0 (`n >= 0`).
fn sf_shr_jam64(x: u64, n: i32) -> u64 {
    if n == 0 {
        return x;
    }
    if n < 64 {
        return (x >> n) | if (x << (64 - n)) != 0 { 1 } else { 0 };
    }
    if x != 0 {
        1
    } else {
        0
    }
}

/// `x >> n`, with every bit shifted out ORed into bit 0 (`n >= 0`).
fn sf_shr_jam32(x: u32, n: i32) -> u32 {
    if n == 0 {
        return x;
    }
    if n < 32 {
        return (x >> n) | if (x << (32 - n)) != 0 { 1 } else { 0 };
    }
    if x != 0 {
        1
    } else {
        0
    }
}

/// Full 128-bit product of two 64-bit values, from four 32x32 -> 64 products:
/// returns (hi, lo).
fn sf_mul64x64(a: u64, b: u64) -> (u64, u64) {
    let av = unpack_uint2x32(a);
    let bv = unpack_uint2x32(b);
    let (h00, l00) = umul_extended(av.0, bv.0);
    let (h01, l01) = umul_extended(av.0, bv.1);
    let (h10, l10) = umul_extended(av.1, bv.0);
    let (h11, l11) = umul_extended(av.1, bv.1);
    // Column 1 (bits 32..63): at most three 32-bit terms, so it fits in 64 bits.
    let mid = u64::from(h00) + u64::from(l01) + u64::from(l10);
    let lo = (mid << 32) | u64::from(l00);
    let hi = pack_uint2x32(l11, h11) + u64::from(h01) + u64::from(h10) + (mid >> 32);
    (hi, lo)
}

/// Rounds (sign, e, m) to binary64, `m`'s leading bit at 62 (or lower when the
/// value is below the normal range), and packs it. Overflow gives a signed infinity.
fn sf_round_pack64(sign: u64, mut e: i32, mut m: u64) -> u64 {
    if e <= 0 {
        // Subnormal (or zero) result: align to the minimum exponent.
        m = sf_shr_jam64(m, 1 - e);
        e = 1;
    } else if e >= 0x7FF {
        return sign | SF64_INF;
    }
    let r = m & 0x3FF;
    m >>= 10;
    if r > 0x200 || (r == 0x200 && (m & 1) != 0) {
        m += 1;
    }
    // m holds the hidden bit at 52 when normal; adding it to the exponent field
    // (e - 1) gives the right field, and a rounding carry moves up to the next
    // binade (or from subnormal to normal, or to infinity) by itself.
    sign | ((((e - 1) as u64) << 52) + m)
}

/// Rounds (sign, e, m) to binary32, `m`'s leading bit at 30 (or lower when the
/// value is below the normal range), and packs it. Overflow gives a signed infinity.
fn sf_round_pack32(sign: u32, mut e: i32, mut m: u32) -> u32 {
    if e <= 0 {
        m = sf_shr_jam32(m, 1 - e);
        e = 1;
    } else if e >= 0xFF {
        return sign | SF32_INF;
    }
    let r = m & 0x7F;
    m >>= 7;
    if r > 0x40 || (r == 0x40 && (m & 1) != 0) {
        m += 1;
    }
    sign | ((((e - 1) as u32) << 23) + m)
}

// ---- The interface. ----

/// The IEEE-754 bits of `a` (identity in the soft variant).
#[cfg(test)]
pub fn f64_to_bits(a: F64) -> u64 {
    a
}

/// The value whose IEEE-754 bits are `a` (identity in the soft variant).
#[cfg(test)]
pub fn f64_from_bits(a: u64) -> F64 {
    a
}

/// `-a` (flips the sign bit, NaN included).
pub fn f64_neg(a: F64) -> F64 {
    a ^ SF64_SIGN
}

/// `v` as binary64 (always exact).
pub fn f64_from_u32(v: u32) -> F64 {
    if v == 0 {
        return 0;
    }
    let p = find_msb(v);
    // v = (v << (52 - p)) * 2^(p - 52): the leading bit lands on the hidden bit.
    (((p + 1023) as u64) << 52) + ((u64::from(v) << (52 - p)) & SF64_FRAC)
}

/// `x` widened to binary64 (always exact; NaN becomes the canonical NaN).
pub fn f64_from_f32(x: f32) -> F64 {
    let u = x.to_bits();
    let s = u64::from(u >> 31) << 63;
    let mut e = ((u >> 23) & 0xFF) as i32;
    let mut f = u & SF32_FRAC;
    if e == 0xFF {
        return if f != 0 { SF64_QNAN } else { s | SF64_INF };
    }
    if e == 0 {
        if f == 0 {
            return s;
        }
        // fp32 subnormal: normalise it, every fp32 is a normal fp64.
        let sh = 23 - find_msb(f);
        f = (f << sh) & SF32_FRAC;
        e = 1 - sh;
    }
    s | (((e + 896) as u64) << 52) | (u64::from(f) << 29)
}

/// `a` rounded once to binary32, to nearest, ties to even.
pub fn f32_from_f64(a: F64) -> f32 {
    let s = ((a >> 63) as u32) << 31;
    let mut e = ((a >> 52) & 0x7FF) as i32;
    let f = a & SF64_FRAC;
    if e == 0x7FF {
        return f32::from_bits(if f != 0 { SF32_QNAN } else { s | SF32_INF });
    }
    if e == 0 && f == 0 {
        return f32::from_bits(s);
    }
    let mut m64 = f;
    if e == 0 {
        e = 1;
    } else {
        m64 = f | SF64_HIDDEN;
    }
    // 53 significant bits down to 31 (leading bit at 30), keeping a sticky bit.
    let m = sf_shr_jam64(m64, 22) as u32;
    f32::from_bits(sf_round_pack32(s, e - 896, m))
}

/// `a + b`, correctly rounded.
pub fn f64_add(a: F64, b: F64) -> F64 {
    let mut sa = a & SF64_SIGN;
    let mut sb = b & SF64_SIGN;
    let mut ea = ((a >> 52) & 0x7FF) as i32;
    let mut eb = ((b >> 52) & 0x7FF) as i32;
    let fa = a & SF64_FRAC;
    let fb = b & SF64_FRAC;
    if ea == 0x7FF || eb == 0x7FF {
        if (ea == 0x7FF && fa != 0) || (eb == 0x7FF && fb != 0) {
            return SF64_QNAN;
        }
        if ea == 0x7FF && eb == 0x7FF {
            return if sa == sb { a } else { SF64_QNAN };
        }
        return if ea == 0x7FF { a } else { b };
    }
    // Significands with 10 extra bits; zeros and subnormals have exponent 1 and no
    // hidden bit, so alignment by exponent difference is the same for all.
    let mut ma = fa << 10;
    if ea == 0 {
        ea = 1;
    } else {
        ma |= SF64_HIDDEN << 10;
    }
    let mut mb = fb << 10;
    if eb == 0 {
        eb = 1;
    } else {
        mb |= SF64_HIDDEN << 10;
    }
    // Make a the operand of larger magnitude.
    if eb > ea || (eb == ea && mb > ma) {
        std::mem::swap(&mut sa, &mut sb);
        std::mem::swap(&mut ea, &mut eb);
        std::mem::swap(&mut ma, &mut mb);
    }
    mb = sf_shr_jam64(mb, ea - eb);
    let mut e = ea;
    let mut m;
    if sa == sb {
        // Same signs (the filters' hot path): the leading bit is at 62 already, or
        // at 63 after a carry. When a is subnormal or zero (e == 1, no hidden bit)
        // the unnormalised sum packs as that subnormal, or as the smallest normal
        // when it reaches 2^62, and two zeros give a zero of their sign.
        m = ma + mb;
        if m >= SF64_SIGN {
            m = sf_shr_jam64(m, 1);
            e += 1;
        }
        return sf_round_pack64(sa, e, m);
    }
    m = ma - mb;
    if m == 0 {
        // Exact cancellation: +0 when rounding to nearest.
        return 0;
    }
    // Bring the leading bit to 62 (a cancellation can leave it anywhere below).
    let sh = sf_clz64(m) - 1;
    m <<= sh;
    e -= sh;
    sf_round_pack64(sa, e, m)
}

/// `a - b`, correctly rounded.
pub fn f64_sub(a: F64, b: F64) -> F64 {
    f64_add(a, b ^ SF64_SIGN)
}

/// `a * b`, correctly rounded.
pub fn f64_mul(a: F64, b: F64) -> F64 {
    let s = (a ^ b) & SF64_SIGN;
    let mut ea = ((a >> 52) & 0x7FF) as i32;
    let mut eb = ((b >> 52) & 0x7FF) as i32;
    let mut fa = a & SF64_FRAC;
    let mut fb = b & SF64_FRAC;
    let za = ea == 0 && fa == 0;
    let zb = eb == 0 && fb == 0;
    if ea == 0x7FF || eb == 0x7FF {
        if (ea == 0x7FF && fa != 0) || (eb == 0x7FF && fb != 0) {
            return SF64_QNAN;
        }
        if za || zb {
            return SF64_QNAN;
        }
        return s | SF64_INF;
    }
    if za || zb {
        return s;
    }
    // Significands with the leading bit at 52 (subnormals normalised).
    if ea == 0 {
        let sh = sf_clz64(fa) - 11;
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF64_HIDDEN;
    }
    if eb == 0 {
        let sh = sf_clz64(fb) - 11;
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF64_HIDDEN;
    }
    // (fa << 10) * (fb << 11) lies in [2^125, 2^127): hi in [2^61, 2^63).
    let (mut hi, mut lo) = sf_mul64x64(fa << 10, fb << 11);
    let mut e = ea + eb - 1022;
    if hi < (1u64 << 62) {
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
        e -= 1;
    }
    hi |= if lo != 0 { 1 } else { 0 };
    sf_round_pack64(s, e, hi)
}

/// `a / b`, correctly rounded.
pub fn f64_div(a: F64, b: F64) -> F64 {
    let s = (a ^ b) & SF64_SIGN;
    let mut ea = ((a >> 52) & 0x7FF) as i32;
    let mut eb = ((b >> 52) & 0x7FF) as i32;
    let mut fa = a & SF64_FRAC;
    let mut fb = b & SF64_FRAC;
    let za = ea == 0 && fa == 0;
    let zb = eb == 0 && fb == 0;
    if (ea == 0x7FF && fa != 0) || (eb == 0x7FF && fb != 0) {
        return SF64_QNAN;
    }
    if ea == 0x7FF {
        return if eb == 0x7FF { SF64_QNAN } else { s | SF64_INF };
    }
    if eb == 0x7FF {
        return s;
    }
    if zb {
        return if za { SF64_QNAN } else { s | SF64_INF };
    }
    if za {
        return s;
    }
    if ea == 0 {
        let sh = sf_clz64(fa) - 11;
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF64_HIDDEN;
    }
    if eb == 0 {
        let sh = sf_clz64(fb) - 11;
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF64_HIDDEN;
    }
    let mut e = ea - eb + 1023;
    if fa < fb {
        fa <<= 1;
        e -= 1;
    }
    // Restoring division, fa / fb in [1, 2): 54 quotient bits (53 and a rounding
    // bit); the remainder says whether anything lies below them.
    let mut q: u64 = 0;
    let mut r = fa;
    for _ in 0..54 {
        q <<= 1;
        if r >= fb {
            r -= fb;
            q |= 1;
        }
        r <<= 1;
    }
    let m = (q << 9) | if r != 0 { 1 } else { 0 };
    sf_round_pack64(s, e, m)
}

/// `x + y` in binary32, correctly rounded, subnormals kept (integer only: for
/// devices whose native fp32 add may flush subnormals).
pub fn f32_add(x: f32, y: f32) -> f32 {
    let a = x.to_bits();
    let b = y.to_bits();
    let mut sa = a & SF32_SIGN;
    let mut sb = b & SF32_SIGN;
    let mut ea = ((a >> 23) & 0xFF) as i32;
    let mut eb = ((b >> 23) & 0xFF) as i32;
    let fa = a & SF32_FRAC;
    let fb = b & SF32_FRAC;
    if ea == 0xFF || eb == 0xFF {
        if (ea == 0xFF && fa != 0) || (eb == 0xFF && fb != 0) {
            return f32::from_bits(SF32_QNAN);
        }
        if ea == 0xFF && eb == 0xFF {
            return f32::from_bits(if sa == sb { a } else { SF32_QNAN });
        }
        return f32::from_bits(if ea == 0xFF { a } else { b });
    }
    // Significands with 7 extra bits (leading bit at 30), as in f64_add.
    let mut ma = fa << 7;
    if ea == 0 {
        ea = 1;
    } else {
        ma |= SF32_HIDDEN << 7;
    }
    let mut mb = fb << 7;
    if eb == 0 {
        eb = 1;
    } else {
        mb |= SF32_HIDDEN << 7;
    }
    if eb > ea || (eb == ea && mb > ma) {
        std::mem::swap(&mut sa, &mut sb);
        std::mem::swap(&mut ea, &mut eb);
        std::mem::swap(&mut ma, &mut mb);
    }
    mb = sf_shr_jam32(mb, ea - eb);
    let mut e = ea;
    let mut m;
    if sa == sb {
        // Same signs: no normalisation needed (see f64_add).
        m = ma + mb;
        if m >= SF32_SIGN {
            m = sf_shr_jam32(m, 1);
            e += 1;
        }
        return f32::from_bits(sf_round_pack32(sa, e, m));
    }
    m = ma - mb;
    if m == 0 {
        return f32::from_bits(0);
    }
    let sh = 30 - find_msb(m);
    m <<= sh;
    e -= sh;
    f32::from_bits(sf_round_pack32(sa, e, m))
}

/// `x - y` in binary32, correctly rounded, subnormals kept.
pub fn f32_sub(x: f32, y: f32) -> f32 {
    f32_add(x, f32::from_bits(y.to_bits() ^ SF32_SIGN))
}

/// `x * y` in binary32, correctly rounded, subnormals kept (integer only).
pub fn f32_mul(x: f32, y: f32) -> f32 {
    let a = x.to_bits();
    let b = y.to_bits();
    let s = (a ^ b) & SF32_SIGN;
    let mut ea = ((a >> 23) & 0xFF) as i32;
    let mut eb = ((b >> 23) & 0xFF) as i32;
    let mut fa = a & SF32_FRAC;
    let mut fb = b & SF32_FRAC;
    let za = ea == 0 && fa == 0;
    let zb = eb == 0 && fb == 0;
    if ea == 0xFF || eb == 0xFF {
        if (ea == 0xFF && fa != 0) || (eb == 0xFF && fb != 0) {
            return f32::from_bits(SF32_QNAN);
        }
        if za || zb {
            return f32::from_bits(SF32_QNAN);
        }
        return f32::from_bits(s | SF32_INF);
    }
    if za || zb {
        return f32::from_bits(s);
    }
    if ea == 0 {
        let sh = 23 - find_msb(fa);
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF32_HIDDEN;
    }
    if eb == 0 {
        let sh = 23 - find_msb(fb);
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF32_HIDDEN;
    }
    // (fa << 8) * (fb << 8) lies in [2^62, 2^64): its high word in [2^30, 2^32).
    let (hi, lo) = umul_extended(fa << 8, fb << 8);
    let mut e = ea + eb - 127;
    let mut m = hi | if lo != 0 { 1 } else { 0 };
    if m >= SF32_SIGN {
        m = sf_shr_jam32(m, 1);
        e += 1;
    }
    f32::from_bits(sf_round_pack32(s, e, m))
}

/// `x / y` in binary32, correctly rounded (integer long division, no float op).
pub fn f32_div(x: f32, y: f32) -> f32 {
    let a = x.to_bits();
    let b = y.to_bits();
    let s = (a ^ b) & SF32_SIGN;
    let mut ea = ((a >> 23) & 0xFF) as i32;
    let mut eb = ((b >> 23) & 0xFF) as i32;
    let mut fa = a & SF32_FRAC;
    let mut fb = b & SF32_FRAC;
    let za = ea == 0 && fa == 0;
    let zb = eb == 0 && fb == 0;
    if (ea == 0xFF && fa != 0) || (eb == 0xFF && fb != 0) {
        return f32::from_bits(SF32_QNAN);
    }
    if ea == 0xFF {
        return f32::from_bits(if eb == 0xFF { SF32_QNAN } else { s | SF32_INF });
    }
    if eb == 0xFF {
        return f32::from_bits(s);
    }
    if zb {
        return f32::from_bits(if za { SF32_QNAN } else { s | SF32_INF });
    }
    if za {
        return f32::from_bits(s);
    }
    if ea == 0 {
        let sh = 23 - find_msb(fa);
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF32_HIDDEN;
    }
    if eb == 0 {
        let sh = 23 - find_msb(fb);
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF32_HIDDEN;
    }
    let mut e = ea - eb + 127;
    if fa < fb {
        fa <<= 1;
        e -= 1;
    }
    // Restoring division, fa / fb in [1, 2): 25 quotient bits (24 and a rounding
    // bit); r < 2 * fb < 2^25 never overflows.
    let mut q: u32 = 0;
    let mut r = fa;
    for _ in 0..25 {
        q <<= 1;
        if r >= fb {
            r -= fb;
            q |= 1;
        }
        r <<= 1;
    }
    let m = (q << 6) | if r != 0 { 1 } else { 0 };
    f32::from_bits(sf_round_pack32(s, e, m))
}

/// `sqrt(x)` in binary32, correctly rounded (integer square root, no float op).
pub fn f32_sqrt(x: f32) -> f32 {
    let a = x.to_bits();
    let s = a & SF32_SIGN;
    let mut e = ((a >> 23) & 0xFF) as i32;
    let mut f = a & SF32_FRAC;
    if e == 0xFF {
        if f != 0 || s != 0 {
            return f32::from_bits(SF32_QNAN);
        }
        return x;
    }
    if e == 0 && f == 0 {
        return x;
    }
    if s != 0 {
        return f32::from_bits(SF32_QNAN);
    }
    if e == 0 {
        let sh = 23 - find_msb(f);
        f <<= sh;
        e = 1 - sh;
    } else {
        f |= SF32_HIDDEN;
    }
    // x = f * 2^(u - 23), f in [2^23, 2^24); make u even by doubling f if needed.
    let mut u = e - 127;
    let mut big = u64::from(f) << 29;
    if (u & 1) != 0 {
        big <<= 1;
        u -= 1;
    }
    // x = big * 2^(u - 52) with big in [2^52, 2^54): its integer square root has
    // 27 bits, sqrt(x) = sqrt(big) * 2^(u/2 - 26). Digit by digit, two bits a step.
    let mut rem = big;
    let mut res: u64 = 0;
    let mut bit: u64 = 1 << 52;
    for _ in 0..27 {
        if rem >= res + bit {
            rem -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    // res in [2^26, 2^27): leading bit to 30; a nonzero remainder is the sticky bit.
    let m = ((res as u32) << 4) | if rem != 0 { 1 } else { 0 };
    f32::from_bits(sf_round_pack32(0, u / 2 + 127, m))
}

/// `v * 2^e2` rounded once to binary32 (for int64 fixed-point sums, e.g. the
/// decimation's sums in units of 2^-52: `f32_from_u64_scaled(sum, -52)`).
pub fn f32_from_u64_scaled(v: u64, e2: i32) -> f32 {
    if v == 0 {
        return f32::from_bits(0);
    }
    let sh = sf_clz64(v);
    // v * 2^e2 = ((v << sh) / 2^63) * 2^(63 - sh + e2)
    let m = sf_shr_jam64(v << sh, 33) as u32;
    f32::from_bits(sf_round_pack32(0, 63 - sh + e2 + 127, m))
}

#[cfg(test)]
mod tests;
