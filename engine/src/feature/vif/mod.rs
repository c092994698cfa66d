//! libvmaf's `vif` feature extractor (`integer_vif`): visual information
//! fidelity at four scales, as an exact CPU twin of libvmaf 2.3.1's reference
//! C path (`vmaf --cpumask 255`; the same bits in 3.0.0 to 3.2.0 and master).
//!
//! Per frame and without state, so any worker can score any frame:
//! [`check_size`] refuses what the extractor cannot score before any work,
//! [`vif_scores`] gives the four `integer_vif_scaleN` values (and the per-scale
//! numerators and denominators libvmaf prints with `debug=true`).
//!
//! The pieces: `plane` (samples and the reflect-101 border), `filters`
//! (the four low-pass filters and the decimation between scales), `stats`
//! (local statistics, the per-pixel information terms and the per-scale
//! finish), `log2` (the fixed-point logarithm), `options` (the options
//! and output names). Everything is exact integer arithmetic but the gain and
//! residual of each pixel (binary64) and the per-scale finish (binary64, then
//! binary32), done in libvmaf's order.

pub(crate) mod filters;
mod info;
pub(crate) mod kernels;
pub(crate) mod log2;
pub(crate) mod options;
pub(crate) mod plane;
#[cfg(test)]
mod reference;
pub(crate) mod stats;

pub use options::{parse_enhn_gain_limit, VifOptions};

pub(crate) mod extractor;
use crate::cpu::samples::check_view;
use crate::feature::rows::rows_8;
use crate::frame::PlaneGeometry;
use crate::{Error, LumaView, Result};
use plane::Plane;
use stats::{scale_sums_16, scale_sums_8, Input, ScaleSums};

/// libvmaf's name of the extractor.
pub const FEATURE: &str = "vif";

/// The smallest width and height VIF scores. At scale 3 (1/8 size) the
/// 3-tap filter's reflect-101 border needs two samples, and the 17, 9 and 5-tap
/// filters of scales 0 to 2 need 9, 5 and 3; libvmaf 2.3.1 does not check and
/// reads outside its buffers below this (and crashes at 1x1).
pub const MIN_SIZE: u32 = 16;

/// One frame's VIF: per scale, the score and the numerator and denominator
/// it is the quotient of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VifScores {
    /// `integer_vif_scale0..3`: `num / den` in binary32, widened.
    pub scale: [f64; 4],
    /// `integer_vif_num_scale0..3` (a debug output): the numerator, a binary32
    /// value, widened.
    pub num: [f64; 4],
    /// `integer_vif_den_scale0..3` (a debug output), likewise.
    pub den: [f64; 4],
}

impl VifScores {
    /// `integer_vif_num` (a debug output): the four numerators summed in
    /// binary64, scale 0 first.
    pub fn num_total(&self) -> f64 {
        self.num.iter().sum()
    }

    /// `integer_vif_den` (a debug output), likewise.
    pub fn den_total(&self) -> f64 {
        self.den.iter().sum()
    }

    /// `integer_vif` (a debug output): [`Self::num_total`] over
    /// [`Self::den_total`], in binary64.
    pub fn combined(&self) -> f64 {
        self.num_total() / self.den_total()
    }

    /// Every output libvmaf writes for these options, named as it names them,
    /// in its order: the four scales, then with `debug` the combined score,
    /// its numerator and denominator, and each scale's numerator and
    /// denominator.
    pub fn outputs(&self, opts: &VifOptions) -> Vec<(String, f64)> {
        let names = opts.output_names();
        let mut values = self.scale.to_vec();
        if opts.debug {
            values.extend([self.combined(), self.num_total(), self.den_total()]);
            for s in 0..4 {
                values.extend([self.num[s], self.den[s]]);
            }
        }
        names.into_iter().zip(values).collect()
    }
}

/// [`Error::FrameTooSmall`] for a frame under [`MIN_SIZE`] on either side,
/// [`Error::Unsupported`] for a bit depth other than 8, 10, 12 or 16.
pub fn check_size(width: u32, height: u32, bit_depth: u32) -> Result<()> {
    if !matches!(bit_depth, 8 | 10 | 12 | 16) {
        return Err(Error::Unsupported(format!(
            "{bit_depth}-bit samples for {FEATURE} (it reads 8, 10, 12 and 16-bit samples)"
        )));
    }
    if width < MIN_SIZE || height < MIN_SIZE {
        return Err(Error::FrameTooSmall {
            feature: FEATURE,
            width,
            height,
            min_width: MIN_SIZE,
            min_height: MIN_SIZE,
        });
    }
    Ok(())
}

/// One frame's VIF between `reference` and `distorted` luma planes of the
/// same size and bit depth.
///
/// Errors: [`Error::GeometryMismatch`] when the planes differ, what
/// [`check_size`] and [`VifOptions::validate`] refuse, [`Error::BufferSize`]
/// or [`Error::InvalidOption`] for a view whose bytes or stride cannot hold
/// its rows.
pub fn vif_scores(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &VifOptions,
) -> Result<VifScores> {
    let geometry = PlaneGeometry::new(reference.width, reference.height, reference.bit_depth);
    geometry.expect_same(
        "the reference",
        PlaneGeometry::new(distorted.width, distorted.height, distorted.bit_depth),
        "the distorted",
    )?;
    check_size(reference.width, reference.height, reference.bit_depth)?;
    check_view(reference)?;
    check_view(distorted)?;
    opts.validate()?;
    let sums = scales(reference, distorted, opts, |_, _| {});
    Ok(VifScores {
        scale: sums.map(|s| s.score()),
        num: sums.map(|s| f64::from(s.num())),
        den: sums.map(|s| f64::from(s.den())),
    })
}

/// Each scale's exact sums of a checked pair, calling `decimated` with each
/// decimated scale's reference and distorted planes (scales 1 to 3, in
/// order) as the walk reaches them.
pub(crate) fn scales(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &VifOptions,
    mut decimated: impl FnMut(&Plane, &Plane),
) -> [ScaleSums; 4] {
    let bit_depth = reference.bit_depth;
    let gain_limit = opts.enhn_gain_limit;
    let mut sums = [ScaleSums::default(); 4];
    let mut planes = [
        Plane::empty(),
        Plane::empty(),
        Plane::empty(),
        Plane::empty(),
    ];
    if bit_depth == 8 {
        let (r, d) = (rows_8(reference), rows_8(distorted));
        scale_sums_8(&r, &d, gain_limit, &mut sums[0]);
        filters::decimate_8(&r, 1, bit_depth, &mut planes[0]);
        filters::decimate_8(&d, 1, bit_depth, &mut planes[1]);
    } else {
        let (r, d) = (Plane::from_view(reference), Plane::from_view(distorted));
        let input = Input::Deep(bit_depth);
        scale_sums_16(&r.rows(), &d.rows(), 0, input, gain_limit, &mut sums[0]);
        filters::decimate_16(&r.rows(), 1, bit_depth, &mut planes[0]);
        filters::decimate_16(&d.rows(), 1, bit_depth, &mut planes[1]);
    }
    for (scale, sum) in sums.iter_mut().enumerate().skip(1) {
        // planes[0..2] hold this scale; the next one goes to planes[2..4].
        let (this, next) = planes.split_at_mut(2);
        decimated(&this[0], &this[1]);
        let (r, d) = (this[0].rows(), this[1].rows());
        scale_sums_16(&r, &d, scale, Input::Decimated, gain_limit, sum);
        if scale < 3 {
            filters::decimate_16(&r, scale + 1, bit_depth, &mut next[0]);
            filters::decimate_16(&d, scale + 1, bit_depth, &mut next[1]);
            planes.swap(0, 2);
            planes.swap(1, 3);
        }
    }
    sums
}
