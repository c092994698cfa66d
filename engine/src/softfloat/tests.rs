//! Tests of the software float against the CPU's native IEEE-754 arithmetic
//! (x86-64 SSE2 / aarch64: round to nearest even, subnormals kept), bit for bit.
//! Random cases come from a fixed-seed generator (millions of them, reproducible)
//! and from proptest; the cases are drawn to hit what can go wrong: ties, carries
//! into the next binade, cancellation, subnormal and overflowing results, and the
//! values float_ssim computes.

use super::*;
use proptest::prelude::*;

/// SplitMix64: a small, fixed-seed generator so every run sees the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

/// The float_ssim Gaussian taps (docs/exactness.md, section 4).
const TAPS: [f32; 11] = [
    0.001028, 0.007599, 0.036001, 0.109361, 0.213006, 0.266012, 0.213006, 0.109361, 0.036001,
    0.007599, 0.001028,
];

/// Equal bits, or both NaN (NaN payloads are documented as canonical).
fn same64(got: u64, want: f64) -> bool {
    got == want.to_bits() || (f64::from_bits(got).is_nan() && want.is_nan())
}

fn same32(got: f32, want: f32) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

fn check_add(a: u64, b: u64) {
    let want = f64::from_bits(a) + f64::from_bits(b);
    let got = f64_add(a, b);
    assert!(
        same64(got, want),
        "add {a:#018x} + {b:#018x}: got {got:#018x}, want {:#018x}",
        want.to_bits()
    );
    let want = f64::from_bits(a) - f64::from_bits(b);
    let got = f64_sub(a, b);
    assert!(
        same64(got, want),
        "sub {a:#018x} - {b:#018x}: got {got:#018x}, want {:#018x}",
        want.to_bits()
    );
}

fn check_mul(a: u64, b: u64) {
    let want = f64::from_bits(a) * f64::from_bits(b);
    let got = f64_mul(a, b);
    assert!(
        same64(got, want),
        "mul {a:#018x} * {b:#018x}: got {got:#018x}, want {:#018x}",
        want.to_bits()
    );
}

fn check_div(a: u64, b: u64) {
    let want = f64::from_bits(a) / f64::from_bits(b);
    let got = f64_div(a, b);
    assert!(
        same64(got, want),
        "div {a:#018x} / {b:#018x}: got {got:#018x}, want {:#018x}",
        want.to_bits()
    );
}

fn check_all64(a: u64, b: u64) {
    check_add(a, b);
    check_mul(a, b);
    check_div(a, b);
    check_narrow(a);
}

fn check_narrow(a: u64) {
    let want = f64::from_bits(a) as f32;
    let got = f32_from_f64(a);
    assert!(
        same32(got, want),
        "f32_from_f64 {a:#018x}: got {:#010x}, want {:#010x}",
        got.to_bits(),
        want.to_bits()
    );
}

fn check_widen(x: u32) {
    let want = f64::from(f32::from_bits(x));
    let got = f64_from_f32(f32::from_bits(x));
    assert!(
        same64(got, want),
        "f64_from_f32 {x:#010x}: got {got:#018x}, want {:#018x}",
        want.to_bits()
    );
}

fn check_f32_div(x: u32, y: u32) {
    let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
    let want = fx / fy;
    let got = f32_div(fx, fy);
    assert!(
        same32(got, want),
        "f32_div {x:#010x} / {y:#010x}: got {:#010x}, want {:#010x}",
        got.to_bits(),
        want.to_bits()
    );
}

fn check_f32_arith(x: u32, y: u32) {
    let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
    for (name, got, want) in [
        ("f32_add", f32_add(fx, fy), fx + fy),
        ("f32_sub", f32_sub(fx, fy), fx - fy),
        ("f32_mul", f32_mul(fx, fy), fx * fy),
    ] {
        assert!(
            same32(got, want),
            "{name} {x:#010x}, {y:#010x}: got {:#010x}, want {:#010x}",
            got.to_bits(),
            want.to_bits()
        );
    }
}

fn check_f32_sqrt(x: u32) {
    let fx = f32::from_bits(x);
    let want = fx.sqrt();
    let got = f32_sqrt(fx);
    assert!(
        same32(got, want),
        "f32_sqrt {x:#010x}: got {:#010x}, want {:#010x}",
        got.to_bits(),
        want.to_bits()
    );
}

/// A random binary64 (random sign and significand) with a biased exponent drawn
/// from `lo..=hi` (within 1..=2046).
fn with_exp(rng: &mut Rng, lo: i64, hi: i64) -> u64 {
    let e = rng.range(lo, hi);
    (rng.next() & (SF64_SIGN | SF64_FRAC)) | ((e as u64) << 52)
}

/// A random binary64 drawn from a mix of shapes: raw bits (NaN, inf, subnormals
/// included), normal values of any exponent, short significands (exact products),
/// extreme exponents and zeros.
fn any64(rng: &mut Rng) -> u64 {
    match rng.below(8) {
        0 | 1 => rng.next(),
        2 => with_exp(rng, 1, 2046),
        3 => {
            // Few significant bits: exact sums and products, frequent ties.
            let keep = rng.range(0, 52) as u32;
            with_exp(rng, 900, 1150) & !((1u64 << (52 - keep)) - 1)
        }
        4 => with_exp(rng, 1, 60),
        5 => with_exp(rng, 1990, 2046),
        6 => rng.next() & (SF64_SIGN | SF64_FRAC), // subnormal
        _ => [
            0,
            SF64_SIGN,
            SF64_INF,
            SF64_INF | SF64_SIGN,
            SF64_QNAN,
            0x7FF0_0000_0000_0001,
        ][rng.below(6) as usize],
    }
}

/// A pair of binary64 whose sum or difference is hard to round: exponents close
/// together (cancellation, 54/55-bit exact sums that tie) or exactly half an ulp
/// apart.
fn hard_add_pair(rng: &mut Rng) -> (u64, u64) {
    let ea = rng.range(1, 2046);
    let a = with_exp(rng, ea, ea);
    match rng.below(4) {
        0 => (a, {
            let eb = (ea - rng.range(0, 3)).max(1);
            with_exp(rng, eb, eb)
        }),
        1 => {
            // b = half an ulp of a, possibly nudged: a + b is a tie or next to one.
            let half = ea - 53;
            let b = if half >= 1 {
                (half as u64) << 52
            } else {
                1u64 << (half + 51).max(0)
            };
            let nudge = [0i64, 1, -1][rng.below(3) as usize];
            (a, (b as i64 + nudge) as u64 | (rng.next() & SF64_SIGN))
        }
        2 => (a, with_exp(rng, (ea - 60).max(1), (ea - 50).max(1))),
        _ => (a, a ^ (rng.next() & 0xFF) ^ SF64_SIGN), // near-total cancellation
    }
}

/// A pair of binary64 whose exact product has exactly 54 or 55 significant bits
/// (odd integers of k and 54 - k + {0, 1} bits): ties and near-ties.
fn hard_mul_pair(rng: &mut Rng) -> (u64, u64) {
    let k = rng.range(1, 53) as u32;
    let j = (54 - k + rng.below(2) as u32).clamp(1, 53);
    let odd = |rng: &mut Rng, bits: u32| -> f64 {
        let v = (rng.next() >> (64 - bits)) | (1u64 << (bits - 1)) | 1;
        v as f64
    };
    let a = odd(rng, k) * 2f64.powi(rng.range(-600, 600) as i32);
    let b = odd(rng, j) * 2f64.powi(rng.range(-600, 600) as i32);
    let sa = rng.next() & SF64_SIGN;
    (a.to_bits() | sa, b.to_bits())
}

/// A pair whose quotient is near or below the subnormal range, or near overflow.
fn hard_div_pair(rng: &mut Rng) -> (u64, u64) {
    match rng.below(3) {
        0 => (with_exp(rng, 1, 60), with_exp(rng, 1000, 1100)),
        1 => (with_exp(rng, 1990, 2046), with_exp(rng, 950, 1030)),
        _ => {
            // Quotient of a short significand by a short one: may be exact.
            let a = hard_mul_pair(rng);
            (f64_mul(a.0, a.1), a.1)
        }
    }
}

/// A float_ssim sample: a multiple of 2^-8 in [0, 256).
fn sample(rng: &mut Rng) -> f32 {
    rng.below(65536) as f32 / 256.0
}

/// A tap: one of the Gaussian taps, a box tap 1/(s*s), or any fp32 in [1e-3, 0.27].
fn tap(rng: &mut Rng) -> f32 {
    match rng.below(3) {
        0 => TAPS[rng.below(11) as usize],
        1 => 1.0f32 / ((rng.range(1, 128) * rng.range(1, 128)) as f32),
        _ => 0.001 + (rng.below(1 << 24) as f32 / (1 << 24) as f32) * 0.269,
    }
}

/// The values float_ssim runs through fp64: 11-term sums of f32 products of samples
/// (or of squares of samples, or of the horizontal pass's full-precision outputs)
/// and taps, exactly as the filters form them.
fn filter_sum(rng: &mut Rng) -> (f32, Vec<u64>) {
    let kind = rng.below(4);
    let mut acc = f64_from_f32(0.0);
    let mut partial = Vec::with_capacity(22);
    for &g in &TAPS {
        let (r, c) = (sample(rng), sample(rng));
        let v = match kind {
            0 => r,
            1 => r * r,
            2 => r * c,
            // A horizontal output: any 24-bit significand in [0, 65536).
            _ => (rng.next() >> 40) as f32 / (1u32 << rng.range(8, 24)) as f32,
        };
        let t = if rng.below(2) == 0 { g } else { tap(rng) };
        let term = f64_from_f32(v * t);
        acc = f64_add(acc, term);
        partial.push(acc);
        partial.push(term);
    }
    (f32_from_f64(acc), partial)
}

#[test]
fn interface_is_bit_exact_on_plain_values() {
    let one = f64_from_f32(1.0);
    let three = f64_from_u32(3);
    assert_eq!(f64_to_bits(f64_div(one, three)), (1.0f64 / 3.0).to_bits());
    assert_eq!(f64_to_bits(f64_add(one, f64_neg(one))), 0);
    assert_eq!(f64_to_bits(f64_add(f64_neg(0), f64_neg(0))), SF64_SIGN);
    assert_eq!(f64_from_bits(0x3FF0_0000_0000_0000), one);
    assert_eq!(f32_from_f64(f64_mul(three, three)), 9.0);
    assert_eq!(f32_sqrt(58.5225), 58.5225f32.sqrt());
    assert_eq!(f32_div(6.5025, 3.0), 6.5025f32 / 3.0);
}

#[test]
fn f64_from_u32_is_exact_for_every_bit_length() {
    let mut rng = Rng(1);
    for _ in 0..200_000 {
        let v = (rng.next() as u32) >> rng.below(32);
        assert_eq!(f64_from_u32(v), f64::from(v).to_bits(), "{v}");
    }
    assert_eq!(f64_from_u32(u32::MAX), f64::from(u32::MAX).to_bits());
}

#[test]
fn add_sub_match_native_on_random_and_hard_pairs() {
    let mut rng = Rng(2);
    for _ in 0..1_000_000 {
        check_add(any64(&mut rng), any64(&mut rng));
        let (a, b) = hard_add_pair(&mut rng);
        check_add(a, b);
        check_add(b, a);
    }
}

#[test]
fn mul_matches_native_on_random_and_hard_pairs() {
    let mut rng = Rng(3);
    for _ in 0..1_000_000 {
        check_mul(any64(&mut rng), any64(&mut rng));
        let (a, b) = hard_mul_pair(&mut rng);
        check_mul(a, b);
        // The same product pushed into the subnormal range and towards overflow.
        let shift = (rng.range(-1200, 1200) as u64) << 52;
        check_mul(a.wrapping_add(shift) & !SF64_SIGN | (a & SF64_SIGN), b);
    }
}

#[test]
fn div_matches_native_on_random_and_hard_pairs() {
    let mut rng = Rng(4);
    for _ in 0..600_000 {
        check_div(any64(&mut rng), any64(&mut rng));
        let (a, b) = hard_div_pair(&mut rng);
        check_div(a, b);
    }
}

#[test]
fn narrowing_matches_native_including_ties_and_fp32_subnormals() {
    let mut rng = Rng(5);
    for _ in 0..1_000_000 {
        check_narrow(any64(&mut rng));
        // Exponents around the fp32 range, low bits at, next to, or away from a tie.
        let a = with_exp(&mut rng, 1023 - 160, 1023 + 130);
        let low = [
            0x1000_0000u64,
            0x0FFF_FFFF,
            0x1000_0001,
            0,
            rng.next() & 0x1FFF_FFFF,
        ][rng.below(5) as usize];
        check_narrow((a & !0x1FFF_FFFF) | low);
        // Ties of fp32 subnormals (fewer kept bits, tie bit further up).
        let sub = with_exp(&mut rng, 1023 - 150, 1023 - 126);
        check_narrow(sub & !((1u64 << rng.range(29, 52)) - 1) | (1u64 << rng.range(28, 51)));
    }
}

#[test]
fn widening_matches_native_on_every_fp32_subnormal_and_random_values() {
    for f in 0..=SF32_FRAC {
        check_widen(f);
        check_widen(f | SF32_SIGN);
    }
    let mut rng = Rng(6);
    for _ in 0..2_000_000 {
        check_widen(rng.next() as u32);
    }
    check_widen(SF32_INF);
    check_widen(SF32_INF | SF32_SIGN);
    check_widen(SF32_QNAN);
}

#[test]
fn f32_div_matches_native() {
    let mut rng = Rng(7);
    for _ in 0..1_500_000 {
        check_f32_div(rng.next() as u32, rng.next() as u32);
        // Normal operands whose quotient lands anywhere, subnormal results included.
        let x = (rng.next() as u32 & !0x7F80_0000) | ((rng.range(1, 254) as u32) << 23);
        let y = (rng.next() as u32 & !0x7F80_0000) | ((rng.range(1, 254) as u32) << 23);
        check_f32_div(x, y);
        // Short significands: exact quotients and subnormal ties.
        let short = |rng: &mut Rng, v: u32| v & !((1u32 << rng.range(0, 23)) - 1);
        check_f32_div(short(&mut rng, x), short(&mut rng, y));
    }
    for special in [
        0u32,
        SF32_SIGN,
        SF32_INF,
        SF32_INF | SF32_SIGN,
        SF32_QNAN,
        1,
        0x3F80_0000,
    ] {
        for other in [
            0u32,
            SF32_SIGN,
            SF32_INF,
            SF32_QNAN,
            1,
            0x3F80_0000,
            0x7F7F_FFFF,
        ] {
            check_f32_div(special, other);
            check_f32_div(other, special);
        }
    }
}

#[test]
fn f32_add_sub_mul_match_native() {
    let mut rng = Rng(11);
    let with_exp32 = |rng: &mut Rng, lo: i64, hi: i64| {
        let e = rng.range(lo, hi) as u32;
        (rng.next() as u32 & (SF32_SIGN | SF32_FRAC)) | (e << 23)
    };
    for _ in 0..1_000_000 {
        check_f32_arith(rng.next() as u32, rng.next() as u32);
        // Any normal exponents: products underflow into subnormals or overflow.
        let x = with_exp32(&mut rng, 1, 254);
        check_f32_arith(x, with_exp32(&mut rng, 1, 254));
        // Close exponents: cancellation, and 25/26-bit exact sums that tie.
        let ex = ((x >> 23) & 0xFF) as i64;
        let y = with_exp32(&mut rng, (ex - 3).max(1), ex);
        check_f32_arith(x, y);
        // Short significands: exact products and product ties.
        let short = |rng: &mut Rng, v: u32| v & !((1u32 << rng.range(0, 23)) - 1);
        check_f32_arith(short(&mut rng, x), short(&mut rng, y));
        // Subnormal operands and results near the bottom of the range.
        let sub = rng.next() as u32 & (SF32_SIGN | SF32_FRAC);
        check_f32_arith(sub, with_exp32(&mut rng, 1, 160));
        check_f32_arith(sub, rng.next() as u32 & (SF32_SIGN | SF32_FRAC));
    }
}

#[test]
fn f32_sqrt_is_exact_on_every_significand_of_both_exponent_parities() {
    // sqrt's rounding depends only on the significand and the exponent's parity:
    // every significand at an even and at an odd exponent covers every normal case
    // (the exponent itself only shifts the result), and every subnormal is tried.
    for f in 0..=SF32_FRAC {
        check_f32_sqrt(0x3F80_0000 | f);
        check_f32_sqrt(0x4000_0000 | f);
        check_f32_sqrt(f);
    }
    let mut rng = Rng(8);
    for _ in 0..1_000_000 {
        check_f32_sqrt(rng.next() as u32);
    }
    for special in [
        0u32,
        SF32_SIGN,
        SF32_INF,
        SF32_INF | SF32_SIGN,
        SF32_QNAN,
        0x7F7F_FFFF,
    ] {
        check_f32_sqrt(special);
    }
}

#[test]
fn f32_from_u64_scaled_rounds_once() {
    let mut rng = Rng(9);
    for _ in 0..1_000_000 {
        let v = rng.next() >> rng.below(64);
        // Normal results: `v as f32` is one rounding, scaling by 2^e2 is exact.
        let e2 = rng.range(-120, 60) as i32;
        let want = (f64::from(v as f32) * 2f64.powi(e2)) as f32;
        if want.is_normal() || want == 0.0 {
            let got = f32_from_u64_scaled(v, e2);
            assert!(
                same32(got, want),
                "{v} * 2^{e2}: got {got:e}, want {want:e}"
            );
        }
        // Subnormal and overflowing results: v < 2^53 is exact in f64, so one rounding.
        let v = v >> 11;
        let e2 = [rng.range(-210, -126), rng.range(80, 140)][rng.below(2) as usize] as i32;
        let want = (v as f64 * 2f64.powi(e2)) as f32;
        let got = f32_from_u64_scaled(v, e2);
        assert!(
            same32(got, want),
            "{v} * 2^{e2}: got {got:e}, want {want:e}"
        );
    }
    // The decimation's use: integer sums in units of 2^-52.
    assert_eq!(f32_from_u64_scaled(255u64 << 52, -52), 255.0);
}

/// The float_ssim pipeline's own fp64 values: filter sums, then the per-pixel l, c
/// and s terms and the frame accumulation, each compared with native fp64.
#[test]
fn ssim_shaped_values_match_native() {
    let c1 = (0.01f32 * 255.0) * (0.01f32 * 255.0);
    let c2 = (0.03f32 * 255.0) * (0.03f32 * 255.0);
    let c3 = c2 / 2.0;
    let mut rng = Rng(10);
    let mut ssim_sum = 0.0f64;
    let mut soft_sum = f64_from_f32(0.0);
    for _ in 0..150_000 {
        // Filter sums: every partial sum and term, against native.
        let (mu_r, partial) = filter_sum(&mut rng);
        let mut native = 0.0f64;
        for pair in partial.chunks(2) {
            native += f64::from_bits(pair[1]);
            assert_eq!(pair[0], native.to_bits());
        }
        assert_eq!(mu_r.to_bits(), (native as f32).to_bits());
        let (mu_c, _) = filter_sum(&mut rng);
        let (s_rr, _) = filter_sum(&mut rng);
        let (s_cc, _) = filter_sum(&mut rng);
        let (s_rc, _) = filter_sum(&mut rng);
        let sr = (s_rr - mu_r * mu_r).max(0.0);
        let sc = (s_cc - mu_c * mu_c).max(0.0);
        let sb = s_rc - mu_r * mu_c;
        // srsc = f32(sqrt(f64(f32(sr * sc)))), as an fp32 sqrt.
        let srsc = f32_sqrt(sr * sc);
        assert_eq!(srsc.to_bits(), (f64::from(sr * sc).sqrt() as f32).to_bits());
        // l = (2 mu_r mu_c + C1) / f32(mu_r^2 + mu_c^2 + C1), in fp64.
        let num = f64_add(
            f64_mul(
                f64_mul(f64_from_f32(2.0), f64_from_f32(mu_r)),
                f64_from_f32(mu_c),
            ),
            f64_from_f32(c1),
        );
        let den = f64_from_f32(mu_r * mu_r + mu_c * mu_c + c1);
        let l = f64_div(num, den);
        let native_l = (2.0 * f64::from(mu_r) * f64::from(mu_c) + f64::from(c1))
            / f64::from(mu_r * mu_r + mu_c * mu_c + c1);
        assert_eq!(l, native_l.to_bits());
        // c = (2 srsc + C2) / f32(sr + sc + C2), in fp64.
        let num = f64_add(
            f64_mul(f64_from_f32(2.0), f64_from_f32(srsc)),
            f64_from_f32(c2),
        );
        let c = f64_div(num, f64_from_f32(sr + sc + c2));
        let native_c = (2.0 * f64::from(srsc) + f64::from(c2)) / f64::from(sr + sc + c2);
        assert_eq!(c, native_c.to_bits());
        // s = f32((sb' + C3) / (srsc + C3)), an fp32 division.
        let sbp = if sb < 0.0 && srsc <= 0.0 { 0.0 } else { sb };
        let s = f32_div(sbp + c3, srsc + c3);
        assert_eq!(s.to_bits(), ((sbp + c3) / (srsc + c3)).to_bits());
        // ssim_sum += l * c * s, in raster order.
        ssim_sum += native_l * native_c * f64::from(s);
        soft_sum = f64_add(soft_sum, f64_mul(f64_mul(l, c), f64_from_f32(s)));
        assert_eq!(soft_sum, ssim_sum.to_bits());
    }
    let n = f64_from_u32(150_000);
    assert_eq!(
        f32_from_f64(f64_div(soft_sum, n)).to_bits(),
        ((ssim_sum / 150_000.0) as f32).to_bits()
    );
}

fn ssim_value() -> impl Strategy<Value = f64> {
    // A filter sum's term, a mean, a variance, a constant: fp32 values in fp64.
    prop_oneof![
        (0u32..65536, 0usize..11).prop_map(|(k, u)| f64::from(k as f32 / 256.0 * TAPS[u])),
        (0u32..65536).prop_map(|k| f64::from(k as f32 / 256.0)),
        (0u32..65536).prop_map(|k| f64::from((k as f32 / 256.0) * (k as f32 / 256.0))),
        Just(6.5025f64),
        Just(58.5225f64),
        Just(29.26125f64),
        (0.0f32..65536.0).prop_map(f64::from),
        any::<f64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn prop_add_mul_div_any_bits(a in any::<u64>(), b in any::<u64>()) {
        check_all64(a, b);
    }

    #[test]
    fn prop_add_mul_div_ssim_values(a in ssim_value(), b in ssim_value(), neg in any::<bool>()) {
        let b = if neg { -b } else { b };
        check_all64(a.to_bits(), b.to_bits());
        // The sum of such values then another step, as in the filters.
        let s = f64_add(a.to_bits(), b.to_bits());
        check_all64(s, a.to_bits());
    }

    #[test]
    fn prop_f32_ops_any_bits(x in any::<u32>(), y in any::<u32>()) {
        check_f32_div(x, y);
        check_f32_arith(x, y);
        check_f32_sqrt(x);
        check_widen(x);
    }
}
