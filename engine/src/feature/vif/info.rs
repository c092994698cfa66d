//! The per-pixel information terms of one row of VIF, in two passes that
//! each suit the machine: first, on vectors and without branches, every
//! pixel's class and the integer arguments of its logarithms (the gain and
//! the residual variance in binary64, libvmaf's operations in its order);
//! then the table lookups and the exact 64-bit sums. A pixel whose term is
//! absent gets arguments whose logarithms cancel (2^17, the noise variance),
//! so the sums are those of the per-pixel branches.

use super::kernels::{Sigmas, LANES};
use super::log2::{log2_in, table, LOG2_NSQ};
use super::stats::ScaleSums;

/// The noise variance σ_nsq: 2.0 in Q16 (16-bit samples squared, over 2^15).
pub(super) const SIGMA_NSQ: i32 = 131072;

/// What the gain's denominator adds to σ1² (1e-10 in the Q16 scale).
pub(super) const GAIN_EPS: f64 = 6.5536e-6;

/// One row's logarithm arguments, reused from row to row.
pub(super) struct RowTerms {
    /// `σ1² + σ_nsq` where σ1² ≥ σ_nsq, else σ_nsq.
    den: Vec<u32>,
    /// `sv² + σ_nsq` where the numerator term is present, else σ_nsq.
    numer: Vec<u32>,
    /// `g²σ1² + sv² + σ_nsq` where it is present, else σ_nsq.
    total: Vec<u64>,
}

impl RowTerms {
    /// Buffers for rows of `width` pixels.
    pub fn new(width: usize) -> Self {
        Self {
            den: vec![0; width],
            numer: vec![0; width],
            total: vec![0; width],
        }
    }

    /// Adds one row's pixels (σ1², σ2² clamped at 0, σ12) to `sums`:
    /// where σ1² < σ_nsq, σ2² to the non-log numerator and one to the
    /// non-log count; elsewhere `log2(σ1² + σ_nsq) - log2(σ_nsq)` to the
    /// log denominator and, where σ12 > 0 and σ2² > 0,
    /// `log2(g²σ1² + sv² + σ_nsq) - log2(sv² + σ_nsq)` to the log numerator,
    /// with `g = σ12 / (σ1² + ε)` (binary64), `sv² = max(0, trunc(σ2² -
    /// g·σ12))` and then `g = min(g, gain_limit)`.
    #[inline(always)]
    pub fn add_row(&mut self, sigmas: &Sigmas, gain_limit: f64, sums: &mut ScaleSums) {
        let width = sigmas.sigma1_sq.len();
        let body = width - width % LANES;
        let mut non_log = [[0i64; LANES]; 2];
        for x in (0..body).step_by(LANES) {
            self.lanes::<LANES>(sigmas, x, gain_limit, &mut non_log);
        }
        let mut tail = [[0i64; 1]; 2];
        for x in body..width {
            self.lanes::<1>(sigmas, x, gain_limit, &mut tail);
        }
        sums.num_non_log += non_log[0].iter().sum::<i64>() + tail[0][0];
        sums.den_non_log += non_log[1].iter().sum::<i64>() + tail[1][0];
        let t = table();
        let log2 = |x: u64| log2_in(t, x);
        let den: i64 = self.den.iter().map(|&d| log2(u64::from(d))).sum();
        sums.den_log += den - LOG2_NSQ * width as i64;
        let terms = self.total.iter().zip(&self.numer);
        sums.num_log += terms
            .map(|(&total, &numer)| log2(total) - log2(u64::from(numer)))
            .sum::<i64>();
    }

    /// The first pass over `L` pixels from `x`: the non-log sums (σ2² and
    /// the count, per lane) and the logarithms' arguments.
    #[inline(always)]
    fn lanes<const L: usize>(
        &mut self,
        sigmas: &Sigmas,
        x: usize,
        gain_limit: f64,
        non_log: &mut [[i64; L]; 2],
    ) {
        let s1: &[i32; L] = sigmas.sigma1_sq[x..x + L].try_into().unwrap();
        let s2: &[i32; L] = sigmas.sigma2_sq[x..x + L].try_into().unwrap();
        let s12: &[i32; L] = sigmas.sigma12[x..x + L].try_into().unwrap();
        let den: &mut [u32; L] = (&mut self.den[x..x + L]).try_into().unwrap();
        let numer: &mut [u32; L] = (&mut self.numer[x..x + L]).try_into().unwrap();
        let total: &mut [u64; L] = (&mut self.total[x..x + L]).try_into().unwrap();
        let nsq = SIGMA_NSQ as u32;
        for l in 0..L {
            let log = s1[l] >= SIGMA_NSQ;
            non_log[0][l] += if log { 0 } else { i64::from(s2[l]) };
            non_log[1][l] += i64::from(!log);
            den[l] = if log {
                (s1[l] as u32).wrapping_add(nsq)
            } else {
                nsq
            };
            let present = log && s12[l] > 0 && s2[l] > 0;
            let gain = f64::from(s12[l]) / (f64::from(s1[l]) + GAIN_EPS);
            // C truncates toward zero to int32, then clamps at 0; the value
            // is below 2^31 where the term is present.
            let sv_sq = truncate(f64::from(s2[l]) - gain * f64::from(s12[l])) as u32;
            let gain = gain.min(gain_limit);
            let n = sv_sq.wrapping_add(nsq);
            // g ≤ 100 and σ1² < 2^31: the product is below 2^45.
            let t = truncate((gain * gain) * f64::from(s1[l])).wrapping_add(u64::from(n));
            numer[l] = if present { n } else { nsq };
            total[l] = if present { t } else { u64::from(nsq) };
        }
    }
}

/// `2^52`, where binary64's spacing is 1, and its bits.
const TWO_52: f64 = 4503599627370496.0;

/// `max(v, 0)` truncated toward zero, for `v < 2^52`: C's conversion of
/// such a value to an integer, then its clamp at 0. Adding `2^52` to the
/// truncated value is exact and leaves it in the low bits, which vectorises
/// where a conversion to 64-bit integers would not. (Values from `2^52` up
/// give garbage: callers discard them.)
#[inline(always)]
fn truncate(v: f64) -> u64 {
    (v.max(0.0).trunc() + TWO_52)
        .to_bits()
        .wrapping_sub(TWO_52.to_bits())
}
