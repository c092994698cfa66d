// soft_f64.glsl: IEEE-754 binary64 arithmetic in software, on uint64_t bits, for
// devices without shaderFloat64. Owns the SOFT_F64 variant of arith.glsl's F64
// interface; engine/src/softfloat.rs is its line-for-line Rust twin (keep in sync:
// same helpers, same integer operations, same order; its tests test this file).
//
// Only int32/int64 integer operations and floatBitsToUint/uintBitsToFloat are used:
// no float arithmetic at all, so neither the device's fp32 division and sqrt (not
// IEEE on some drivers) nor denormal flushing can change a result.
//
// Semantics: round to nearest, ties to even, for every finite result, including
// subnormal results and inputs, signed zeros (x + -x = +0, -0 + -0 = -0) and
// overflow to infinity. Infinities follow IEEE (inf - inf, 0 * inf, 0 / 0 and
// inf / inf are NaN; x / 0 is a signed infinity). NaN is handled minimally: any NaN
// result is the canonical quiet NaN (0x7FF8000000000000, or 0x7FC00000 in fp32);
// payloads and NaN signs are not propagated. No exception flags.
//
// The includer must enable GL_EXT_shader_explicit_arithmetic_types_int64 first:
//   #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
//
// Interface (shared with the native variant in arith.glsl):
//   F64      f64_from_f32(float)      exact widening
//   float    f32_from_f64(F64)        one round to nearest even
//   F64      f64_add(F64, F64)        F64 f64_sub(F64, F64)    F64 f64_neg(F64)
//   F64      f64_mul(F64, F64)        F64 f64_div(F64, F64)
//   float    f32_div(float, float)    correctly rounded fp32 division
//   float    f32_add(float, float)    float f32_sub(float, float)   float f32_mul(float, float)
//                                     fp32 add/sub/mul that keep subnormals (for
//                                     devices that may flush them; optional)
//   float    f32_sqrt(float)          correctly rounded fp32 square root
//   uint64_t f64_to_bits(F64)         F64 f64_from_bits(uint64_t)
//   F64      f64_from_u32(uint)       exact
//   float    f32_from_u64_scaled(uint64_t v, int e2)   f32(v * 2^e2), one rounding
//
// Internal form: a value is (sign, e, m) with m a uint64_t whose leading bit is at
// bit 62 (fp64) or a uint whose leading bit is at bit 30 (fp32), i.e. 10 (fp64) or
// 7 (fp32) bits below the last kept bit, and e the biased exponent the result has
// when normal. Bits shifted out on the right are "jammed" into bit 0 (sticky), which
// keeps every rounding decision right because at least two bits sit between bit 0
// and the rounding position.

#ifndef SOFT_F64_GLSL
#define SOFT_F64_GLSL

#define F64 uint64_t

const uint64_t SF64_SIGN = 0x8000000000000000ul;
const uint64_t SF64_INF = 0x7FF0000000000000ul;
const uint64_t SF64_QNAN = 0x7FF8000000000000ul;
const uint64_t SF64_FRAC = 0x000FFFFFFFFFFFFFul;
const uint64_t SF64_HIDDEN = 0x0010000000000000ul;
const uint SF32_SIGN = 0x80000000u;
const uint SF32_INF = 0x7F800000u;
const uint SF32_QNAN = 0x7FC00000u;
const uint SF32_FRAC = 0x007FFFFFu;
const uint SF32_HIDDEN = 0x00800000u;

// Leading zero count of a 64-bit value (64 for 0).
int sf_clz64(uint64_t x) {
    uvec2 v = unpackUint2x32(x);
    if (v.y != 0u) {
        return 31 - findMSB(v.y);
    }
    return 63 - findMSB(v.x);
}

// x >> n, with every bit shifted out ORed into bit 0 (n >= 0).
uint64_t sf_shr_jam64(uint64_t x, int n) {
    if (n == 0) {
        return x;
    }
    if (n < 64) {
        return (x >> n) | (((x << (64 - n)) != 0ul) ? 1ul : 0ul);
    }
    return (x != 0ul) ? 1ul : 0ul;
}

// x >> n, with every bit shifted out ORed into bit 0 (n >= 0).
uint sf_shr_jam32(uint x, int n) {
    if (n == 0) {
        return x;
    }
    if (n < 32) {
        return (x >> n) | (((x << (32 - n)) != 0u) ? 1u : 0u);
    }
    return (x != 0u) ? 1u : 0u;
}

// Full 128-bit product of two 64-bit values, from four 32x32 -> 64 products.
void sf_mul64x64(uint64_t a, uint64_t b, out uint64_t hi, out uint64_t lo) {
    uvec2 av = unpackUint2x32(a);
    uvec2 bv = unpackUint2x32(b);
    uint h00, l00, h01, l01, h10, l10, h11, l11;
    umulExtended(av.x, bv.x, h00, l00);
    umulExtended(av.x, bv.y, h01, l01);
    umulExtended(av.y, bv.x, h10, l10);
    umulExtended(av.y, bv.y, h11, l11);
    // Column 1 (bits 32..63): at most three 32-bit terms, so it fits in 64 bits.
    uint64_t mid = uint64_t(h00) + uint64_t(l01) + uint64_t(l10);
    lo = (mid << 32) | uint64_t(l00);
    hi = packUint2x32(uvec2(l11, h11)) + uint64_t(h01) + uint64_t(h10) + (mid >> 32);
}

// Rounds (sign, e, m) to binary64, m's leading bit at 62 (or lower when the value
// is below the normal range), and packs it. Overflow gives a signed infinity.
uint64_t sf_round_pack64(uint64_t sign, int e, uint64_t m) {
    if (e <= 0) {
        // Subnormal (or zero) result: align to the minimum exponent.
        m = sf_shr_jam64(m, 1 - e);
        e = 1;
    } else if (e >= 0x7FF) {
        return sign | SF64_INF;
    }
    uint64_t r = m & 0x3FFul;
    m >>= 10;
    if (r > 0x200ul || (r == 0x200ul && (m & 1ul) != 0ul)) {
        m += 1ul;
    }
    // m holds the hidden bit at 52 when normal; adding it to the exponent field
    // (e - 1) gives the right field, and a rounding carry moves up to the next
    // binade (or from subnormal to normal, or to infinity) by itself.
    return sign | ((uint64_t(e - 1) << 52) + m);
}

// Rounds (sign, e, m) to binary32, m's leading bit at 30 (or lower when the value
// is below the normal range), and packs it. Overflow gives a signed infinity.
uint sf_round_pack32(uint sign, int e, uint m) {
    if (e <= 0) {
        m = sf_shr_jam32(m, 1 - e);
        e = 1;
    } else if (e >= 0xFF) {
        return sign | SF32_INF;
    }
    uint r = m & 0x7Fu;
    m >>= 7;
    if (r > 0x40u || (r == 0x40u && (m & 1u) != 0u)) {
        m += 1u;
    }
    return sign | ((uint(e - 1) << 23) + m);
}

uint64_t f64_to_bits(F64 a) {
    return a;
}

F64 f64_from_bits(uint64_t a) {
    return a;
}

F64 f64_neg(F64 a) {
    return a ^ SF64_SIGN;
}

F64 f64_from_u32(uint v) {
    if (v == 0u) {
        return 0ul;
    }
    int p = findMSB(v);
    // v = (v << (52 - p)) * 2^(p - 52): the leading bit lands on the hidden bit.
    return (uint64_t(p + 1023) << 52) + ((uint64_t(v) << (52 - p)) & SF64_FRAC);
}

F64 f64_from_f32(float x) {
    uint u = floatBitsToUint(x);
    uint64_t s = uint64_t(u >> 31) << 63;
    int e = int((u >> 23) & 0xFFu);
    uint f = u & SF32_FRAC;
    if (e == 0xFF) {
        return (f != 0u) ? SF64_QNAN : (s | SF64_INF);
    }
    if (e == 0) {
        if (f == 0u) {
            return s;
        }
        // fp32 subnormal: normalise it, every fp32 is a normal fp64.
        int sh = 23 - findMSB(f);
        f = (f << sh) & SF32_FRAC;
        e = 1 - sh;
    }
    return s | (uint64_t(e + 896) << 52) | (uint64_t(f) << 29);
}

float f32_from_f64(F64 a) {
    uint s = uint(a >> 63) << 31;
    int e = int((a >> 52) & 0x7FFul);
    uint64_t f = a & SF64_FRAC;
    if (e == 0x7FF) {
        return uintBitsToFloat((f != 0ul) ? SF32_QNAN : (s | SF32_INF));
    }
    if (e == 0 && f == 0ul) {
        return uintBitsToFloat(s);
    }
    uint64_t m64 = f;
    if (e == 0) {
        e = 1;
    } else {
        m64 = f | SF64_HIDDEN;
    }
    // 53 significant bits down to 31 (leading bit at 30), keeping a sticky bit.
    uint m = uint(sf_shr_jam64(m64, 22));
    return uintBitsToFloat(sf_round_pack32(s, e - 896, m));
}

F64 f64_add(F64 a, F64 b) {
    uint64_t sa = a & SF64_SIGN;
    uint64_t sb = b & SF64_SIGN;
    int ea = int((a >> 52) & 0x7FFul);
    int eb = int((b >> 52) & 0x7FFul);
    uint64_t fa = a & SF64_FRAC;
    uint64_t fb = b & SF64_FRAC;
    if (ea == 0x7FF || eb == 0x7FF) {
        if ((ea == 0x7FF && fa != 0ul) || (eb == 0x7FF && fb != 0ul)) {
            return SF64_QNAN;
        }
        if (ea == 0x7FF && eb == 0x7FF) {
            return (sa == sb) ? a : SF64_QNAN;
        }
        return (ea == 0x7FF) ? a : b;
    }
    // Significands with 10 extra bits; zeros and subnormals have exponent 1 and no
    // hidden bit, so alignment by exponent difference is the same for all.
    uint64_t ma = fa << 10;
    if (ea == 0) {
        ea = 1;
    } else {
        ma |= SF64_HIDDEN << 10;
    }
    uint64_t mb = fb << 10;
    if (eb == 0) {
        eb = 1;
    } else {
        mb |= SF64_HIDDEN << 10;
    }
    // Make a the operand of larger magnitude.
    if (eb > ea || (eb == ea && mb > ma)) {
        uint64_t ts = sa;
        sa = sb;
        sb = ts;
        int te = ea;
        ea = eb;
        eb = te;
        uint64_t tm = ma;
        ma = mb;
        mb = tm;
    }
    mb = sf_shr_jam64(mb, ea - eb);
    int e = ea;
    uint64_t m;
    if (sa == sb) {
        // Same signs (the filters' hot path): the leading bit is at 62 already, or
        // at 63 after a carry. When a is subnormal or zero (e == 1, no hidden bit)
        // the unnormalised sum packs as that subnormal, or as the smallest normal
        // when it reaches 2^62, and two zeros give a zero of their sign.
        m = ma + mb;
        if (m >= SF64_SIGN) {
            m = sf_shr_jam64(m, 1);
            e += 1;
        }
        return sf_round_pack64(sa, e, m);
    }
    m = ma - mb;
    if (m == 0ul) {
        // Exact cancellation: +0 when rounding to nearest.
        return 0ul;
    }
    // Bring the leading bit to 62 (a cancellation can leave it anywhere below).
    int sh = sf_clz64(m) - 1;
    m <<= sh;
    e -= sh;
    return sf_round_pack64(sa, e, m);
}

F64 f64_sub(F64 a, F64 b) {
    return f64_add(a, b ^ SF64_SIGN);
}

F64 f64_mul(F64 a, F64 b) {
    uint64_t s = (a ^ b) & SF64_SIGN;
    int ea = int((a >> 52) & 0x7FFul);
    int eb = int((b >> 52) & 0x7FFul);
    uint64_t fa = a & SF64_FRAC;
    uint64_t fb = b & SF64_FRAC;
    bool za = ea == 0 && fa == 0ul;
    bool zb = eb == 0 && fb == 0ul;
    if (ea == 0x7FF || eb == 0x7FF) {
        if ((ea == 0x7FF && fa != 0ul) || (eb == 0x7FF && fb != 0ul)) {
            return SF64_QNAN;
        }
        if (za || zb) {
            return SF64_QNAN;
        }
        return s | SF64_INF;
    }
    if (za || zb) {
        return s;
    }
    // Significands with the leading bit at 52 (subnormals normalised).
    if (ea == 0) {
        int sh = sf_clz64(fa) - 11;
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF64_HIDDEN;
    }
    if (eb == 0) {
        int sh = sf_clz64(fb) - 11;
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF64_HIDDEN;
    }
    // (fa << 10) * (fb << 11) lies in [2^125, 2^127): hi in [2^61, 2^63).
    uint64_t hi;
    uint64_t lo;
    sf_mul64x64(fa << 10, fb << 11, hi, lo);
    int e = ea + eb - 1022;
    if (hi < (1ul << 62)) {
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
        e -= 1;
    }
    hi |= (lo != 0ul) ? 1ul : 0ul;
    return sf_round_pack64(s, e, hi);
}

F64 f64_div(F64 a, F64 b) {
    uint64_t s = (a ^ b) & SF64_SIGN;
    int ea = int((a >> 52) & 0x7FFul);
    int eb = int((b >> 52) & 0x7FFul);
    uint64_t fa = a & SF64_FRAC;
    uint64_t fb = b & SF64_FRAC;
    bool za = ea == 0 && fa == 0ul;
    bool zb = eb == 0 && fb == 0ul;
    if ((ea == 0x7FF && fa != 0ul) || (eb == 0x7FF && fb != 0ul)) {
        return SF64_QNAN;
    }
    if (ea == 0x7FF) {
        return (eb == 0x7FF) ? SF64_QNAN : (s | SF64_INF);
    }
    if (eb == 0x7FF) {
        return s;
    }
    if (zb) {
        return za ? SF64_QNAN : (s | SF64_INF);
    }
    if (za) {
        return s;
    }
    if (ea == 0) {
        int sh = sf_clz64(fa) - 11;
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF64_HIDDEN;
    }
    if (eb == 0) {
        int sh = sf_clz64(fb) - 11;
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF64_HIDDEN;
    }
    int e = ea - eb + 1023;
    if (fa < fb) {
        fa <<= 1;
        e -= 1;
    }
    // Restoring division, fa / fb in [1, 2): 54 quotient bits (53 and a rounding
    // bit); the remainder says whether anything lies below them.
    uint64_t q = 0ul;
    uint64_t r = fa;
    for (int i = 0; i < 54; i++) {
        q <<= 1;
        if (r >= fb) {
            r -= fb;
            q |= 1ul;
        }
        r <<= 1;
    }
    uint64_t m = (q << 9) | ((r != 0ul) ? 1ul : 0ul);
    return sf_round_pack64(s, e, m);
}

float f32_add(float x, float y) {
    uint a = floatBitsToUint(x);
    uint b = floatBitsToUint(y);
    uint sa = a & SF32_SIGN;
    uint sb = b & SF32_SIGN;
    int ea = int((a >> 23) & 0xFFu);
    int eb = int((b >> 23) & 0xFFu);
    uint fa = a & SF32_FRAC;
    uint fb = b & SF32_FRAC;
    if (ea == 0xFF || eb == 0xFF) {
        if ((ea == 0xFF && fa != 0u) || (eb == 0xFF && fb != 0u)) {
            return uintBitsToFloat(SF32_QNAN);
        }
        if (ea == 0xFF && eb == 0xFF) {
            return uintBitsToFloat((sa == sb) ? a : SF32_QNAN);
        }
        return uintBitsToFloat((ea == 0xFF) ? a : b);
    }
    // Significands with 7 extra bits (leading bit at 30), as in f64_add.
    uint ma = fa << 7;
    if (ea == 0) {
        ea = 1;
    } else {
        ma |= SF32_HIDDEN << 7;
    }
    uint mb = fb << 7;
    if (eb == 0) {
        eb = 1;
    } else {
        mb |= SF32_HIDDEN << 7;
    }
    if (eb > ea || (eb == ea && mb > ma)) {
        uint ts = sa;
        sa = sb;
        sb = ts;
        int te = ea;
        ea = eb;
        eb = te;
        uint tm = ma;
        ma = mb;
        mb = tm;
    }
    mb = sf_shr_jam32(mb, ea - eb);
    int e = ea;
    uint m;
    if (sa == sb) {
        // Same signs: no normalisation needed (see f64_add).
        m = ma + mb;
        if (m >= SF32_SIGN) {
            m = sf_shr_jam32(m, 1);
            e += 1;
        }
        return uintBitsToFloat(sf_round_pack32(sa, e, m));
    }
    m = ma - mb;
    if (m == 0u) {
        return uintBitsToFloat(0u);
    }
    int sh = 30 - findMSB(m);
    m <<= sh;
    e -= sh;
    return uintBitsToFloat(sf_round_pack32(sa, e, m));
}

float f32_sub(float x, float y) {
    return f32_add(x, uintBitsToFloat(floatBitsToUint(y) ^ SF32_SIGN));
}

float f32_mul(float x, float y) {
    uint a = floatBitsToUint(x);
    uint b = floatBitsToUint(y);
    uint s = (a ^ b) & SF32_SIGN;
    int ea = int((a >> 23) & 0xFFu);
    int eb = int((b >> 23) & 0xFFu);
    uint fa = a & SF32_FRAC;
    uint fb = b & SF32_FRAC;
    bool za = ea == 0 && fa == 0u;
    bool zb = eb == 0 && fb == 0u;
    if (ea == 0xFF || eb == 0xFF) {
        if ((ea == 0xFF && fa != 0u) || (eb == 0xFF && fb != 0u)) {
            return uintBitsToFloat(SF32_QNAN);
        }
        if (za || zb) {
            return uintBitsToFloat(SF32_QNAN);
        }
        return uintBitsToFloat(s | SF32_INF);
    }
    if (za || zb) {
        return uintBitsToFloat(s);
    }
    if (ea == 0) {
        int sh = 23 - findMSB(fa);
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF32_HIDDEN;
    }
    if (eb == 0) {
        int sh = 23 - findMSB(fb);
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF32_HIDDEN;
    }
    // (fa << 8) * (fb << 8) lies in [2^62, 2^64): its high word in [2^30, 2^32).
    uint hi;
    uint lo;
    umulExtended(fa << 8, fb << 8, hi, lo);
    int e = ea + eb - 127;
    uint m = hi | ((lo != 0u) ? 1u : 0u);
    if (m >= SF32_SIGN) {
        m = sf_shr_jam32(m, 1);
        e += 1;
    }
    return uintBitsToFloat(sf_round_pack32(s, e, m));
}

float f32_div(float x, float y) {
    uint a = floatBitsToUint(x);
    uint b = floatBitsToUint(y);
    uint s = (a ^ b) & SF32_SIGN;
    int ea = int((a >> 23) & 0xFFu);
    int eb = int((b >> 23) & 0xFFu);
    uint fa = a & SF32_FRAC;
    uint fb = b & SF32_FRAC;
    bool za = ea == 0 && fa == 0u;
    bool zb = eb == 0 && fb == 0u;
    if ((ea == 0xFF && fa != 0u) || (eb == 0xFF && fb != 0u)) {
        return uintBitsToFloat(SF32_QNAN);
    }
    if (ea == 0xFF) {
        return uintBitsToFloat((eb == 0xFF) ? SF32_QNAN : (s | SF32_INF));
    }
    if (eb == 0xFF) {
        return uintBitsToFloat(s);
    }
    if (zb) {
        return uintBitsToFloat(za ? SF32_QNAN : (s | SF32_INF));
    }
    if (za) {
        return uintBitsToFloat(s);
    }
    if (ea == 0) {
        int sh = 23 - findMSB(fa);
        fa <<= sh;
        ea = 1 - sh;
    } else {
        fa |= SF32_HIDDEN;
    }
    if (eb == 0) {
        int sh = 23 - findMSB(fb);
        fb <<= sh;
        eb = 1 - sh;
    } else {
        fb |= SF32_HIDDEN;
    }
    int e = ea - eb + 127;
    if (fa < fb) {
        fa <<= 1;
        e -= 1;
    }
    // Restoring division, fa / fb in [1, 2): 25 quotient bits (24 and a rounding
    // bit); r < 2 * fb < 2^25 never overflows.
    uint q = 0u;
    uint r = fa;
    for (int i = 0; i < 25; i++) {
        q <<= 1;
        if (r >= fb) {
            r -= fb;
            q |= 1u;
        }
        r <<= 1;
    }
    uint m = (q << 6) | ((r != 0u) ? 1u : 0u);
    return uintBitsToFloat(sf_round_pack32(s, e, m));
}

float f32_sqrt(float x) {
    uint a = floatBitsToUint(x);
    uint s = a & SF32_SIGN;
    int e = int((a >> 23) & 0xFFu);
    uint f = a & SF32_FRAC;
    if (e == 0xFF) {
        if (f != 0u || s != 0u) {
            return uintBitsToFloat(SF32_QNAN);
        }
        return x;
    }
    if (e == 0 && f == 0u) {
        return x;
    }
    if (s != 0u) {
        return uintBitsToFloat(SF32_QNAN);
    }
    if (e == 0) {
        int sh = 23 - findMSB(f);
        f <<= sh;
        e = 1 - sh;
    } else {
        f |= SF32_HIDDEN;
    }
    // x = f * 2^(u - 23), f in [2^23, 2^24); make u even by doubling f if needed.
    int u = e - 127;
    uint64_t big = uint64_t(f) << 29;
    if ((u & 1) != 0) {
        big <<= 1;
        u -= 1;
    }
    // x = big * 2^(u - 52) with big in [2^52, 2^54): its integer square root has
    // 27 bits, sqrt(x) = sqrt(big) * 2^(u/2 - 26). Digit by digit, two bits a step.
    uint64_t rem = big;
    uint64_t res = 0ul;
    uint64_t bit = 1ul << 52;
    for (int i = 0; i < 27; i++) {
        if (rem >= res + bit) {
            rem -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    // res in [2^26, 2^27): leading bit to 30; a nonzero remainder is the sticky bit.
    uint m = (uint(res) << 4) | ((rem != 0ul) ? 1u : 0u);
    return uintBitsToFloat(sf_round_pack32(0u, u / 2 + 127, m));
}

float f32_from_u64_scaled(uint64_t v, int e2) {
    if (v == 0ul) {
        return uintBitsToFloat(0u);
    }
    int sh = sf_clz64(v);
    // v * 2^e2 = ((v << sh) / 2^63) * 2^(63 - sh + e2)
    uint m = uint(sf_shr_jam64(v << sh, 33));
    return uintBitsToFloat(sf_round_pack32(0u, 63 - sh + e2 + 127, m));
}

#endif // SOFT_F64_GLSL
