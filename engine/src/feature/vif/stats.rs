//! One scale of VIF: the local means, variances and covariance of the two
//! planes (integer filters with libvmaf's exact shifts and rounding), the
//! per-pixel information terms (the one binary64 step: the gain and the
//! residual variance), their exact 64-bit sums, and the per-scale binary32
//! numerator and denominator.

use super::filters::{radius, TAPS};
use super::log2::{log2_32, log2_64, LOG2_NSQ};
use super::plane::{reflect_101, Plane};

/// The noise variance σ_nsq: 2.0 in Q16 (16-bit samples squared, over 2^15).
const SIGMA_NSQ: i32 = 131072;

/// What the gain's denominator adds to σ1² (1e-10 in the Q16 scale).
const GAIN_EPS: f64 = 6.5536e-6;

/// How the vertical pass scales its sums, which depends on where the samples
/// come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    /// Scale 0 of an 8-bit picture: means `(Σ + 128) >> 8`, second moments
    /// unshifted.
    Bits8,
    /// Scale 0 of a 10, 12 or 16-bit picture: means `(Σ + 2^(b-1)) >> b`,
    /// second moments `(Σ + 2^(s-1)) >> s` with `s = 2(b - 8)`.
    Deep(u32),
    /// A decimated scale (16-bit samples): both `(Σ + 32768) >> 16`.
    Decimated,
}

impl Input {
    /// (round, shift) of the means.
    fn mean_rounding(self) -> (u64, u32) {
        match self {
            Input::Bits8 => (128, 8),
            Input::Deep(depth) => (1 << (depth - 1), depth),
            Input::Decimated => (32768, 16),
        }
    }

    /// (round, shift) of the second moments.
    fn moment_rounding(self) -> (u64, u32) {
        match self {
            Input::Bits8 => (0, 0),
            Input::Deep(depth) => {
                let shift = 2 * (depth - 8);
                (1 << (shift - 1), shift)
            }
            Input::Decimated => (32768, 16),
        }
    }
}

/// The exact integer sums of one scale.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScaleSums {
    /// Σ (log2(g²σ1² + sv² + σ_nsq) - log2(sv² + σ_nsq)) in Q11, over the
    /// pixels with σ1² ≥ σ_nsq, σ12 > 0 and σ2² > 0.
    pub num_log: i64,
    /// Σ (log2(σ1² + σ_nsq) - log2(σ_nsq)) in Q11, over the pixels with
    /// σ1² ≥ σ_nsq.
    pub den_log: i64,
    /// Σ σ2² over the pixels with σ1² < σ_nsq.
    pub num_non_log: i64,
    /// How many pixels have σ1² < σ_nsq.
    pub den_non_log: i64,
}

impl ScaleSums {
    /// The scale's numerator as libvmaf stores it: evaluated in binary64,
    /// then rounded to binary32.
    pub fn num(&self) -> f32 {
        let non_log = self.den_non_log as f64 - (self.num_non_log as f64 / 16384.0) / 65025.0;
        (self.num_log as f64 / 2048.0 + non_log) as f32
    }

    /// The scale's denominator, likewise.
    pub fn den(&self) -> f32 {
        (self.den_log as f64 / 2048.0 + self.den_non_log as f64) as f32
    }

    /// integer_vif_scaleN: the binary32 quotient, widened.
    pub fn score(&self) -> f64 {
        f64::from(self.num() / self.den())
    }

    /// Adds one pixel's statistics (σ1², σ2² clamped at 0, σ12).
    fn add_pixel(&mut self, sigma1_sq: i32, sigma2_sq: i32, sigma12: i32, gain_limit: f64) {
        if sigma1_sq < SIGMA_NSQ {
            self.num_non_log += i64::from(sigma2_sq);
            self.den_non_log += 1;
            return;
        }
        self.den_log += log2_32((sigma1_sq + SIGMA_NSQ) as u32) - LOG2_NSQ;
        if sigma12 > 0 && sigma2_sq > 0 {
            let gain = f64::from(sigma12) / (f64::from(sigma1_sq) + GAIN_EPS);
            // Truncation toward zero, as C's conversion to int32.
            let sv_sq = ((f64::from(sigma2_sq) - gain * f64::from(sigma12)) as i32).max(0);
            let gain = gain.min(gain_limit);
            let numer1 = sv_sq as u32 + SIGMA_NSQ as u32;
            let total = ((gain * gain) * f64::from(sigma1_sq)) as i64 + i64::from(numer1);
            self.num_log += log2_64(total as u64) - log2_64(u64::from(numer1));
        }
    }
}

/// The vertical pass of one output row: per column, the two means and the
/// three second moments (`[μ1, μ2, xx, yy, xy]`), filtered down the column
/// with reflect-101 rows, then padded left and right by the filter's radius
/// with reflect-101 columns (libvmaf's `PADDING_SQ_DATA`).
struct Columns {
    /// `width + 2 * radius` entries; column `x` is at `x + radius`.
    padded: Vec<[u64; 5]>,
    radius: usize,
}

impl Columns {
    fn new(width: usize, scale: usize) -> Self {
        let radius = radius(scale);
        Self {
            padded: vec![[0; 5]; width + 2 * radius],
            radius,
        }
    }

    /// Fills the columns for output row `y`.
    fn filter_rows(
        &mut self,
        reference: &Plane,
        distorted: &Plane,
        y: usize,
        scale: usize,
        input: Input,
    ) {
        let (r, width) = (self.radius, reference.width);
        let columns = &mut self.padded[r..r + width];
        columns.fill([0; 5]);
        for (k, &tap) in TAPS[scale].iter().enumerate() {
            let row_at = reflect_101(y as isize + k as isize - r as isize, reference.height);
            let tap = u64::from(tap);
            let rows = reference.row(row_at).iter().zip(distorted.row(row_at));
            for (c, (&p, &q)) in columns.iter_mut().zip(rows) {
                let (p, q) = (u64::from(p), u64::from(q));
                let (tp, tq) = (tap * p, tap * q);
                c[0] += tp;
                c[1] += tq;
                c[2] += tp * p;
                c[3] += tq * q;
                c[4] += tp * q;
            }
        }
        let (mean_round, mean_shift) = input.mean_rounding();
        let (moment_round, moment_shift) = input.moment_rounding();
        for c in columns.iter_mut() {
            c[0] = (c[0] + mean_round) >> mean_shift;
            c[1] = (c[1] + mean_round) >> mean_shift;
            for m in &mut c[2..] {
                *m = (*m + moment_round) >> moment_shift;
            }
        }
        for i in 1..=r {
            self.padded[r - i] = self.padded[r + i];
            self.padded[r + width - 1 + i] = self.padded[r + width - 1 - i];
        }
    }
}

/// The integer sums of one scale: `reference` and `distorted` (the same
/// size) filtered with `TAPS[scale]`, the samples scaled as `input` says.
pub(crate) fn scale_sums(
    reference: &Plane,
    distorted: &Plane,
    scale: usize,
    input: Input,
    gain_limit: f64,
) -> ScaleSums {
    let (width, height) = (reference.width, reference.height);
    let taps = TAPS[scale];
    let mut columns = Columns::new(width, scale);
    let mut sums = ScaleSums::default();
    for y in 0..height {
        columns.filter_rows(reference, distorted, y, scale, input);
        for window in columns.padded.windows(taps.len()) {
            let mut f = [0u64; 5];
            for (&tap, c) in taps.iter().zip(window) {
                let tap = u64::from(tap);
                for (acc, &v) in f.iter_mut().zip(c) {
                    *acc += tap * v;
                }
            }
            let [mu1, mu2, xx, yy, xy] = f;
            let mu1_sq = (mu1 * mu1 + (1 << 31)) >> 32;
            let mu2_sq = (mu2 * mu2 + (1 << 31)) >> 32;
            let mu1_mu2 = (mu1 * mu2 + (1 << 31)) >> 32;
            let xx = (xx + 32768) >> 16;
            let yy = (yy + 32768) >> 16;
            let xy = (xy + 32768) >> 16;
            // int32 differences, wrapping as libvmaf's do.
            let sigma1_sq = xx.wrapping_sub(mu1_sq) as i32;
            let sigma2_sq = (yy.wrapping_sub(mu2_sq) as i32).max(0);
            let sigma12 = xy.wrapping_sub(mu1_mu2) as i32;
            sums.add_pixel(sigma1_sq, sigma2_sq, sigma12, gain_limit);
        }
    }
    sums
}
