//! One scale of VIF: the local means, variances and covariance of the two
//! planes (integer filters with libvmaf's exact shifts and rounding), the
//! per-pixel information terms (the one binary64 step: the gain and the
//! residual variance), their exact 64-bit sums, and the per-scale binary32
//! numerator and denominator.

use super::filters::{radius, TAPS};
use super::info::RowTerms;
use super::kernels::{self, ColumnStats, Moment, Rows, Sample, Sigmas, VerticalRounding};

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
    pub(super) fn mean_rounding(self) -> (u64, u32) {
        match self {
            Input::Bits8 => (128, 8),
            Input::Deep(depth) => (1 << (depth - 1), depth),
            Input::Decimated => (32768, 16),
        }
    }

    /// (round, shift) of the second moments.
    pub(super) fn moment_rounding(self) -> (u64, u32) {
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
}

/// The integer sums of one scale: `reference` and `distorted` (the same
/// size) filtered with `TAPS[scale]`, the samples scaled as `input` says;
/// `M` holds the second moments down a column (`u32` only for 8-bit samples).
#[inline(always)]
fn scale_sums_generic<S: Sample, M: Moment>(
    reference: &Rows<'_, S>,
    distorted: &Rows<'_, S>,
    scale: usize,
    input: Input,
    gain_limit: f64,
    sums: &mut ScaleSums,
) {
    let rounding = VerticalRounding {
        mean: input.mean_rounding(),
        moment: input.moment_rounding(),
    };
    let taps = TAPS[scale];
    let mut columns = ColumnStats::new(reference.width, radius(scale));
    let mut sigmas = Sigmas::new(reference.width);
    let mut info = RowTerms::new(reference.width);
    let args = (reference, distorted, rounding);
    for y in 0..reference.height {
        match taps.len() {
            17 => filter_row::<S, M, 17>(taps, args, y, &mut columns, &mut sigmas),
            9 => filter_row::<S, M, 9>(taps, args, y, &mut columns, &mut sigmas),
            5 => filter_row::<S, M, 5>(taps, args, y, &mut columns, &mut sigmas),
            _ => filter_row::<S, M, 3>(taps, args, y, &mut columns, &mut sigmas),
        }
        info.add_row(&sigmas, gain_limit, sums);
    }
}

/// Output row `y`'s statistics: the vertical pass with `taps` (`N` of
/// them), then the horizontal pass.
#[inline(always)]
fn filter_row<S: Sample, M: Moment, const N: usize>(
    taps: &[u32],
    (reference, distorted, rounding): (&Rows<'_, S>, &Rows<'_, S>, VerticalRounding),
    y: usize,
    columns: &mut ColumnStats,
    sigmas: &mut Sigmas,
) {
    let taps: &[u32; N] = taps.try_into().expect("a scale's taps");
    kernels::vertical_row::<S, M, N>(taps, reference, distorted, y, rounding, columns);
    kernels::horizontal_row::<N>(taps, columns, sigmas);
}

/// [`scale_sums_generic`] for scale 0 of an 8-bit picture, into `sums`.
#[inline(always)]
fn scale_sums_8_portable(
    reference: &Rows<'_, u8>,
    distorted: &Rows<'_, u8>,
    gain_limit: f64,
    sums: &mut ScaleSums,
) {
    scale_sums_generic::<u8, u32>(reference, distorted, 0, Input::Bits8, gain_limit, sums);
}

/// [`scale_sums_generic`] for 16-bit samples (deeper scale-0 luma, or a
/// decimated scale), into `sums`.
#[inline(always)]
fn scale_sums_16_portable(
    reference: &Rows<'_, u16>,
    distorted: &Rows<'_, u16>,
    scale: usize,
    input: Input,
    gain_limit: f64,
    sums: &mut ScaleSums,
) {
    scale_sums_generic::<u16, u64>(reference, distorted, scale, input, gain_limit, sums);
}

crate::cpu::simd::dispatch_avx2! {
    /// The integer sums of scale 0 of an 8-bit picture, on the widest
    /// vectors the CPU has.
    pub(crate) fn scale_sums_8 / scale_sums_8_avx2 => scale_sums_8_portable(
        reference: &Rows<'_, u8>,
        distorted: &Rows<'_, u8>,
        gain_limit: f64,
        sums: &mut ScaleSums,
    )
}

crate::cpu::simd::dispatch_avx2! {
    /// The integer sums of a scale of 16-bit samples, on the widest vectors
    /// the CPU has.
    pub(crate) fn scale_sums_16 / scale_sums_16_avx2 => scale_sums_16_portable(
        reference: &Rows<'_, u16>,
        distorted: &Rows<'_, u16>,
        scale: usize,
        input: Input,
        gain_limit: f64,
        sums: &mut ScaleSums,
    )
}
