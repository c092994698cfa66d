//! libvmaf's `adm` feature extractor (`integer_adm`, libvmaf 2.3.1's C path,
//! `vmaf --cpumask 255`), as an exact CPU twin: `integer_adm2` and
//! `integer_adm_scale0..3`, bit for bit.
//!
//! Per frame and stateless (any worker can score any frame): a four-level
//! integer wavelet of both pictures ([`dwt`]); at each scale the distorted
//! detail bands are decoupled into a restored and an additive part
//! ([`decouple`]), the additive part is weighted by the contrast sensitivity
//! function ([`csf`]), the restored part is masked by it and cubed
//! ([`masking`], the numerator) and the reference is cubed ([`denominator`]),
//! each summed over the band's active window ([`window`]). Every step is
//! integer arithmetic except the angle test in the decoupling and the
//! per-scale binary32/binary64 finishes, which follow libvmaf's types.

mod csf;
mod decouple;
mod denominator;
pub(crate) mod device;
mod dwt;
pub(crate) mod extractor;
mod factors;
mod intermediates;
mod masking;
mod pool;
#[cfg(test)]
mod reference;
mod window;

pub use intermediates::AdmScaleIntermediates;

use crate::{Error, LumaView, Result};

/// The smallest width and height the twin scores. libvmaf 2.3.1 crashes
/// below 17 samples (its scale-3 band is then one sample across); from 17 to
/// 32 (a scale-3 band two samples across) it runs, but its scale 3 reads
/// outside the band (a flat reference gets nonzero scale-3 energy), so its
/// `integer_adm_scale3` and `integer_adm2` there are not its stated
/// arithmetic and are not reproduced: such frames are refused.
pub const ADM_MIN_SIDE: u32 = 33;

/// The smallest `adm_norm_view_dist · adm_ref_display_height` libvmaf takes
/// (3 heights at 1080 lines): 2.3.1 fails its first frame below it.
pub const ADM_MIN_VIEW_PRODUCT: f64 = 3240.0;

/// The `adm` extractor's options, with libvmaf 2.3.1's names and defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmOptions {
    /// `adm_enhn_gain_limit`: the enhancement gain allowed where the distorted
    /// detail points the reference's way, 1.0 (none) to 100.0 (default 100.0).
    pub enhn_gain_limit: f64,
    /// `adm_norm_view_dist`: the viewing distance in display heights, 0.75 to
    /// 24.0 (default 3.0).
    pub norm_view_dist: f64,
    /// `adm_ref_display_height`: the display's height in lines, 1 to 4320
    /// (default 1080).
    pub ref_display_height: i32,
    /// `debug`: also report `integer_adm`, `integer_adm_num`,
    /// `integer_adm_den` and the per-scale numerators and denominators.
    pub debug: bool,
}

impl Default for AdmOptions {
    fn default() -> Self {
        Self {
            enhn_gain_limit: 100.0,
            norm_view_dist: 3.0,
            ref_display_height: 1080,
            debug: false,
        }
    }
}

impl AdmOptions {
    /// Checks the options against libvmaf's bounds, and the viewing distance
    /// times the display height against [`ADM_MIN_VIEW_PRODUCT`].
    pub fn validate(&self) -> Result<()> {
        let bad = |what: String| Err(Error::InvalidOption(format!("adm: {what}")));
        if !(1.0..=100.0).contains(&self.enhn_gain_limit) {
            return bad(format!(
                "adm_enhn_gain_limit {} is outside 1.0 to 100.0",
                self.enhn_gain_limit
            ));
        }
        if !(0.75..=24.0).contains(&self.norm_view_dist) {
            return bad(format!(
                "adm_norm_view_dist {} is outside 0.75 to 24.0",
                self.norm_view_dist
            ));
        }
        if !(1..=4320).contains(&self.ref_display_height) {
            return bad(format!(
                "adm_ref_display_height {} is outside 1 to 4320",
                self.ref_display_height
            ));
        }
        let product = self.norm_view_dist * f64::from(self.ref_display_height);
        if product < ADM_MIN_VIEW_PRODUCT {
            return bad(format!(
                "adm_norm_view_dist {} times adm_ref_display_height {} is {product}, below \
                 {ADM_MIN_VIEW_PRODUCT} (3.0 x 1080), which libvmaf does not score",
                self.norm_view_dist, self.ref_display_height
            ));
        }
        Ok(())
    }

    /// The suffix libvmaf appends to the output names for the options that
    /// differ from their defaults, in its order: `_egl_1`, `_nvd_4`,
    /// `_rdh_2160` (values as C's `%g`), e.g. `integer_adm2_egl_1`.
    pub fn name_suffix(&self) -> String {
        let d = Self::default();
        let mut s = String::new();
        if self.enhn_gain_limit != d.enhn_gain_limit {
            s += &format!("_egl_{}", format_g(self.enhn_gain_limit));
        }
        if self.norm_view_dist != d.norm_view_dist {
            s += &format!("_nvd_{}", format_g(self.norm_view_dist));
        }
        if self.ref_display_height != d.ref_display_height {
            s += &format!("_rdh_{}", self.ref_display_height);
        }
        s
    }
}

/// C's `%g` for the option values (6 significant digits, no trailing zeros;
/// the options' ranges never need an exponent).
fn format_g(v: f64) -> String {
    let digits = 5 - v.abs().log10().floor().clamp(-4.0, 5.0) as i32;
    let text = format!("{:.*}", digits.max(0) as usize, v);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// One frame's scores, with the debug outputs libvmaf prints under
/// `adm=debug=true`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmScores {
    /// `integer_adm2` (also the debug output `integer_adm`): `num / den`, or
    /// 1.0 when `den` is 0.
    pub adm2: f64,
    /// `integer_adm_scale0..3`: `num_scale[k] / den_scale[k]`.
    pub scale: [f64; 4],
    /// `integer_adm_num`: the scales' numerators summed (0 below the noise floor).
    pub num: f64,
    /// `integer_adm_den`: the scales' denominators summed (0 below the noise floor).
    pub den: f64,
    /// `integer_adm_num_scale0..3` (binary32 values).
    pub num_scale: [f64; 4],
    /// `integer_adm_den_scale0..3` (binary32 values).
    pub den_scale: [f64; 4],
}

/// Checks that libvmaf's `adm` scores frames of this size and depth: at
/// least [`ADM_MIN_SIDE`] samples each way, 8, 10, 12 or 16 bits.
pub fn check_size(width: u32, height: u32, bit_depth: u32) -> Result<()> {
    if !matches!(bit_depth, 8 | 10 | 12 | 16) {
        return Err(Error::Unsupported(format!(
            "adm: bit depth {bit_depth} (libvmaf scores 8, 10, 12 and 16-bit samples)"
        )));
    }
    if width < ADM_MIN_SIDE || height < ADM_MIN_SIDE {
        return Err(Error::FrameTooSmall {
            feature: "adm",
            width,
            height,
            min_width: ADM_MIN_SIDE,
            min_height: ADM_MIN_SIDE,
        });
    }
    Ok(())
}

/// Scores one frame pair: libvmaf's `integer_adm2`, `integer_adm_scale0..3`
/// and its debug outputs. The two pictures must have the same geometry.
pub fn adm_scores(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &AdmOptions,
) -> Result<AdmScores> {
    let geometry = |v: &LumaView<'_>| (v.width, v.height, v.bit_depth);
    if geometry(reference) != geometry(distorted) {
        return Err(Error::GeometryMismatch(format!(
            "adm: the reference is {}x{} {}-bit but the distorted is {}x{} {}-bit",
            reference.width,
            reference.height,
            reference.bit_depth,
            distorted.width,
            distorted.height,
            distorted.bit_depth
        )));
    }
    check_size(reference.width, reference.height, reference.bit_depth)?;
    opts.validate()?;
    let factors = factors::scale_factors(opts.norm_view_dist, opts.ref_display_height);
    let mut num_scale = [0f32; 4];
    let mut den_scale = [0f32; 4];
    scales(
        reference,
        distorted,
        opts.enhn_gain_limit,
        &factors,
        |scale, stages| {
            let size = stages.size;
            num_scale[scale] = masking::numerator_from_rows(&stages.numerator_rows, size, scale);
            den_scale[scale] = denominator::denominator_from_rows(
                &stages.denominator_rows,
                size,
                &factors[scale],
                scale,
            );
        },
    );
    Ok(finish(
        num_scale,
        den_scale,
        reference.width,
        reference.height,
    ))
}

/// What one scale's integer stages give (borrowed from [`scales`]' buffers).
struct ScaleStages<'a> {
    /// The bands' width and height.
    pub size: (usize, usize),
    /// The reference's and the distorted picture's bands.
    pub bands: [&'a dwt::Bands; 2],
    /// The decoupled bands and the weighted impairment.
    pub restored: &'a [Vec<i32>; 3],
    pub weighted: &'a csf::Weighted,
    /// Each active-window row's integer sums of the numerator's and the
    /// denominator's h, v and d cubes.
    pub numerator_rows: Vec<[i64; 3]>,
    pub denominator_rows: Vec<[u64; 3]>,
}

/// Runs the four scales' integer stages of one pair (checked by the caller)
/// with the contrast sensitivity `factors`, handing each scale's to `each`
/// (scale 0 first).
fn scales(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    enhn_gain_limit: f64,
    factors: &[factors::ScaleFactors; 4],
    mut each: impl FnMut(usize, &ScaleStages<'_>),
) {
    let mut bands_ref = dwt::scale0(reference);
    let mut bands_dis = dwt::scale0(distorted);
    for (scale, factors) in factors.iter().enumerate() {
        if scale > 0 {
            let next_ref = dwt::scale123(&bands_ref, scale);
            let next_dis = dwt::scale123(&bands_dis, scale);
            std::mem::replace(&mut bands_ref, next_ref).recycle();
            std::mem::replace(&mut bands_dis, next_dis).recycle();
        }
        let scale0 = scale == 0;
        let parts = decouple::decouple(&bands_ref, &bands_dis, scale0, enhn_gain_limit);
        let weighted = csf::weigh(&parts.additive, factors, scale0);
        let size = (bands_ref.width, bands_ref.height);
        let stages = ScaleStages {
            size,
            bands: [&bands_ref, &bands_dis],
            restored: &parts.restored,
            weighted: &weighted,
            numerator_rows: masking::numerator_rows(
                &parts.restored,
                &weighted,
                factors,
                size,
                scale,
            ),
            denominator_rows: denominator::denominator_rows(&bands_ref, scale),
        };
        each(scale, &stages);
        pool::give(parts.restored.into_iter().chain(parts.additive));
        pool::give(weighted.csf.into_iter().chain(weighted.flat));
    }
    bands_ref.recycle();
    bands_dis.recycle();
}

/// The CPU twin's integer intermediates of each scale of one pair (its
/// checks first), for the pass-by-pass tests of the device passes.
pub fn adm_intermediates(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &AdmOptions,
) -> Result<Vec<AdmScaleIntermediates>> {
    adm_scores(reference, distorted, opts)?;
    let factors = factors::scale_factors(opts.norm_view_dist, opts.ref_display_height);
    let mut out = Vec::new();
    scales(
        reference,
        distorted,
        opts.enhn_gain_limit,
        &factors,
        |scale, stages| {
            out.push(stages.intermediates(scale));
        },
    );
    Ok(out)
}

/// The per-frame finish: double sums of the binary32 scale values, zeroed
/// below `1e-10 · w·h / (1920·1080)`, and the ratios.
fn finish(num_scale: [f32; 4], den_scale: [f32; 4], width: u32, height: u32) -> AdmScores {
    let floor = 1e-10 * (f64::from(width) * f64::from(height)) / (1920.0 * 1080.0);
    let sum = |v: &[f32; 4]| {
        let s: f64 = v.iter().map(|&x| f64::from(x)).sum();
        if s < floor {
            0.0
        } else {
            s
        }
    };
    let (num, den) = (sum(&num_scale), sum(&den_scale));
    let adm2 = if den == 0.0 { 1.0 } else { num / den };
    AdmScores {
        adm2,
        scale: std::array::from_fn(|k| f64::from(num_scale[k]) / f64::from(den_scale[k])),
        num,
        den,
        num_scale: num_scale.map(f64::from),
        den_scale: den_scale.map(f64::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_names_the_options_that_differ() {
        assert_eq!(AdmOptions::default().name_suffix(), "");
        let o = AdmOptions {
            enhn_gain_limit: 1.0,
            norm_view_dist: 4.25,
            ref_display_height: 2160,
            debug: false,
        };
        assert_eq!(o.name_suffix(), "_egl_1_nvd_4.25_rdh_2160");
        let o = AdmOptions {
            enhn_gain_limit: 1.123456789,
            ..AdmOptions::default()
        };
        assert_eq!(o.name_suffix(), "_egl_1.12346");
    }

    #[test]
    fn too_small_frames_are_refused() {
        assert!(check_size(33, 33, 8).is_ok());
        let e = check_size(32, 40, 10).unwrap_err();
        assert!(e.to_string().contains("at least 33x33"), "{e}");
        assert!(check_size(40, 32, 8).is_err());
        assert!(check_size(40, 40, 9).is_err());
    }

    #[test]
    fn views_below_3_heights_at_1080_are_refused() {
        let o = AdmOptions {
            ref_display_height: 1079,
            ..AdmOptions::default()
        };
        assert!(o.validate().is_err());
        let o = AdmOptions {
            norm_view_dist: 4.0,
            ref_display_height: 810,
            ..AdmOptions::default()
        };
        assert!(o.validate().is_ok());
    }
}
