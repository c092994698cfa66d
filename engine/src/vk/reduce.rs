//! The device's fixed-point frame sums, and the decision whether they settle a
//! frame mean without the host's sequential sum (docs/exactness.md §5, last point).
//!
//! # What the device writes
//! The terms pass writes, besides the per-pixel terms, one record of
//! [`WORDS_PER_GROUP`] 64-bit words per workgroup (after the term planes): for
//! the metrics ssim, l, c, s in that order the sums of `t_i`, then the sums of
//! `|t_i|`, then the number of terms that could not be converted. Each term
//! `x_i` (binary64) becomes `t_i = trunc(x_i * 2^K)`, `K =` [`FRAC_BITS`], by
//! integer operations on its bits ([`fixed_from_bits`] is the host twin), for
//! `|x_i| < 2^T`, `T =` [`MAX_TERM_LOG2`]; any other term (larger, inf, NaN) is
//! counted as unconvertible and the frame falls back to the host sum. Nothing is
//! clamped. Integer addition is exact and associative, so the reduction order on
//! the device does not matter.
//!
//! # No overflow
//! `|t_i| < 2^(T+K) = 2^55`; a workgroup has at most 256 terms, so every partial
//! (and every `|t|` partial) is below `2^63` in magnitude: int64 holds it. The
//! host adds the partials in `i128`: with fewer than `2^32` workgroups the total
//! is below `2^95`.
//!
//! # The proof
//! Let `S = sum x_i` (exact, real), `S_fix = 2^-K sum t_i`, `n` the number of
//! terms. Truncation gives `|x_i 2^K - t_i| < 1`, so `|S - S_fix| < n 2^-K`, and
//! `sum |x_i| < 2^-K (sum |t_i| + n) =: A`. libvmaf's raster-order fp64 sum
//! `S_seq` (recursive summation from 0.0, no overflow since every `|x_i| < 2^7`)
//! satisfies `|S_seq - S| <= gamma_{n-1} sum |x_i|`, with
//! `gamma_m = m u / (1 - m u)`, `u = 2^-53` (Higham, Accuracy and Stability of
//! Numerical Algorithms, §4.2; subnormal additions are exact so underflow does
//! not break it). Hence `S_seq` lies in `[lo, hi] = [S_fix - n 2^-K - E,
//! S_fix + n 2^-K + E]`, `E = gamma_{n-1} A`. [`decide`] computes `lo` and `hi`
//! in fp64 and widens them by more than the few roundings made doing so
//! (`2^-50 (|bound| + E)`, then one more ulp outward), and `E` by a factor
//! `1 + 2^-40` (its own roundings are a few `u`, relative).
//!
//! libvmaf's mean is `f32(f64(S_seq / f64(n)))`: the fp64 division by a positive
//! number and the rounding to fp32 are both monotonic, so if `lo` and `hi` give
//! the same fp32 (compared by bits, so `-0.0` and `+0.0` differ) then so does
//! every value between them, `S_seq` included: that is the exact answer. If not
//! (the interval straddles an fp32 rounding boundary, or a sign change), the
//! caller sums the terms on the host in raster order.

pub use super::shader_consts::FRAC_BITS;
#[cfg(test)]
use super::shader_consts::MAX_TERM_LOG2;
/// 64-bit words per workgroup ([`super::shader_consts::WORDS_PER_GROUP`]).
pub const WORDS_PER_GROUP: usize = super::shader_consts::WORDS_PER_GROUP as usize;
/// Metrics in a workgroup record, in order.
pub const METRICS: usize = 4;

/// `trunc(x * 2^K)` of the binary64 `bits`, by integer operations (as the
/// shader does it, for tests); `None` unless `|x| < 2^MAX_TERM_LOG2`.
#[cfg(test)]
pub fn fixed_from_bits(bits: u64) -> Option<i64> {
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp >= 1023 + MAX_TERM_LOG2 as i32 {
        return None;
    }
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    // x = m 2^e, |x| < 2^T, so the shift is at most T + K - 53 = 2.
    let sh = e + FRAC_BITS as i32;
    let mag = if sh >= 0 {
        m << sh
    } else if sh > -64 {
        m >> -sh
    } else {
        0
    };
    let mag = mag as i64;
    Some(if bits >> 63 != 0 { -mag } else { mag })
}

/// One metric's fixed-point sums over a frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FixedSum {
    /// Sum of `t_i`.
    pub sum: i128,
    /// Sum of `|t_i|`.
    pub abs_sum: i128,
    /// Number of terms `n`.
    pub n: u64,
}

impl FixedSum {
    /// The sums of `terms` (host twin of the device's, for tests); `None` if a
    /// term cannot be converted.
    #[cfg(test)]
    pub fn of(terms: &[f64]) -> Option<Self> {
        let mut s = FixedSum {
            n: terms.len() as u64,
            ..Self::default()
        };
        for &x in terms {
            let t = fixed_from_bits(x.to_bits())? as i128;
            s.sum += t;
            s.abs_sum += t.abs();
        }
        Some(s)
    }
}

/// The fp32 mean `f32(S_seq / n)` that libvmaf's raster-order fp64 sum gives,
/// when the fixed-point sums settle it; `None` when the host must sum.
pub fn decide(s: &FixedSum) -> Option<f32> {
    if s.n == 0 || s.n >= 1 << 52 {
        return None;
    }
    let scale = (-(FRAC_BITS as f64)).exp2();
    let n = s.n as f64;
    let u = f64::EPSILON / 2.0;
    let m = (s.n - 1) as f64 * u;
    let gamma = m / (1.0 - m);
    let a = (s.abs_sum + s.n as i128) as f64 * scale;
    let e = gamma * a * (1.0 + (-40f64).exp2());
    let lo0 = (s.sum - s.n as i128) as f64 * scale;
    let hi0 = (s.sum + s.n as i128) as f64 * scale;
    let slack = (lo0.abs().max(hi0.abs()) + e) * (-50f64).exp2();
    let lo = step_down(lo0 - e - slack);
    let hi = -step_down(-(hi0 + e + slack));
    let (mlo, mhi) = ((lo / n) as f32, (hi / n) as f32);
    (mlo.to_bits() == mhi.to_bits() && mlo.is_finite()).then_some(mlo)
}

/// The next fp64 below `x` (`f64::next_down`, which is newer than the MSRV).
fn step_down(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        x
    } else if x == 0.0 {
        -f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() - 1)
    } else {
        f64::from_bits(x.to_bits() + 1)
    }
}

/// The sequential fp64 mean the host computes (libvmaf's order), for tests.
#[cfg(test)]
pub fn sequential_mean(terms: &[f64]) -> f32 {
    let mut sum = 0.0f64;
    for &x in terms {
        sum += x;
    }
    (sum / terms.len() as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn step_down_is_next_down() {
        for x in [
            1.0,
            -1.0,
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::INFINITY,
            0.3,
        ] {
            assert_eq!(step_down(x).to_bits(), x.next_down().to_bits(), "{x}");
        }
    }

    #[test]
    fn conversion_truncates_toward_zero() {
        let k = (FRAC_BITS as f64).exp2();
        for x in [
            0.0, -0.0, 1.0, -1.0, 0.3, -0.3, 1e-300, 5e-324, 127.99, -127.99,
        ] {
            let t = fixed_from_bits(f64::to_bits(x)).unwrap();
            assert_eq!(t as f64, (x * k).trunc(), "{x}");
        }
        for x in [128.0, -128.0, f64::INFINITY, f64::NAN, 1e300] {
            assert_eq!(fixed_from_bits(x.to_bits()), None, "{x}");
        }
    }

    #[test]
    fn a_mean_on_an_fp32_midpoint_falls_back() {
        // Mean exactly halfway between two fp32 values: the bound straddles it.
        let one = 1.0f32;
        let mid = (one as f64 + one.next_up() as f64) / 2.0;
        let terms = vec![mid; 1000];
        let s = FixedSum::of(&terms).unwrap();
        assert_eq!(decide(&s), None);
        // A mean of exactly zero from mixed signs falls back too.
        let terms = vec![0.5, -0.5, 0.25, -0.25];
        assert_eq!(decide(&FixedSum::of(&terms).unwrap()), None);
        // Near the midpoint (inside the bound) also falls back.
        let near = vec![mid + 1e-15; 1000];
        assert_eq!(decide(&FixedSum::of(&near).unwrap()), None);
    }

    #[test]
    fn ordinary_frames_are_decided_and_agree() {
        let mut x = 0x9e3779b97f4a7c15u64;
        let mut decided = 0;
        for round in 0..50 {
            let terms: Vec<f64> = (0..10_000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 0.2 * round as f64 / 50.0
                })
                .collect();
            if let Some(m) = decide(&FixedSum::of(&terms).unwrap()) {
                decided += 1;
                assert_eq!(m.to_bits(), sequential_mean(&terms).to_bits());
            }
        }
        assert!(decided >= 45, "only {decided} of 50 decided");
    }

    proptest! {
        #[test]
        fn a_decision_equals_the_sequential_mean(
            terms in prop::collection::vec(-2.0f64..2.0, 1..2000),
            spike in prop::collection::vec((0usize..2000, -127.0f64..127.0), 0..4),
        ) {
            let mut terms = terms;
            for (i, v) in spike {
                let len = terms.len();
                terms[i % len] = v;
            }
            if let Some(m) = decide(&FixedSum::of(&terms).unwrap()) {
                prop_assert_eq!(m.to_bits(), sequential_mean(&terms).to_bits());
            }
        }

        #[test]
        fn midpoints_of_fp32_values_never_decide(bits in 0x3c00_0000u32..0x3f80_0000, len in 1usize..500) {
            let a = f32::from_bits(bits);
            let mid = (a as f64 + a.next_up() as f64) / 2.0;
            let terms = vec![mid; len];
            prop_assert_eq!(decide(&FixedSum::of(&terms).unwrap()), None);
        }
    }
}
