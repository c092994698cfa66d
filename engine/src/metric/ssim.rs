//! libvmaf's `float_ssim` as a metric: its parameters (the SSIM constants,
//! the Gaussian taps, the window, the decimation factor in [`super::scale`]),
//! what a frame size leads to ([`FrameGeometry`], [`check_geometry`],
//! [`check_pair`]), the per-frame finish from the fp32 means
//! ([`frame_score`]) and the feature names a run reports ([`feature_names`]).
//! Both engines use it: the CPU twin (crate-private) and the Vulkan engine
//! ([`crate::vk`]) run the passes, this module says what they compute and
//! turns their sums into a [`FrameScore`]; pooling over frames is
//! `crate::pool`.

use super::scale;
use crate::cpu::{db, samples, FrameMeans};
use crate::{Error, FrameScore, LumaView, Result, SsimOptions};

/// libvmaf's name of the metric.
pub const FEATURE: &str = "float_ssim";

/// The `enable_lcs` outputs, after `float_ssim`.
pub(crate) const LCS_NAMES: [&str; 3] = ["float_ssim_l", "float_ssim_c", "float_ssim_s"];

/// The feature names a run with `opts` reports, in libvmaf's output order.
///
/// ```
/// let mut opts = vkssim::SsimOptions::default();
/// assert_eq!(vkssim::metric::ssim::feature_names(&opts), ["float_ssim"]);
/// opts.enable_lcs = true;
/// assert_eq!(vkssim::metric::ssim::feature_names(&opts).len(), 4);
/// ```
pub fn feature_names(opts: &SsimOptions) -> Vec<&'static str> {
    if opts.enable_lcs {
        let mut names = vec![FEATURE];
        names.extend(LCS_NAMES);
        names
    } else {
        vec![FEATURE]
    }
}

/// The Gaussian taps (fp32, libvmaf's literals), used in both directions.
pub(crate) const GAUSSIAN_TAPS: [f32; 11] = [
    0.001028, 0.007599, 0.036001, 0.109361, 0.213006, 0.266012, 0.213006, 0.109361, 0.036001,
    0.007599, 0.001028,
];

/// The SSIM constants, fp32 as libvmaf computes them from `K1 = 0.01f`,
/// `K2 = 0.03f` and `L = 255`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SsimConstants {
    /// `f32(f32(0.01f * 255)^2)`.
    pub c1: f32,
    /// `f32(f32(0.03f * 255)^2)`.
    pub c2: f32,
    /// `f32(c2 / 2)`.
    pub c3: f32,
}

impl SsimConstants {
    /// The constants of libvmaf's default SSIM.
    #[inline]
    pub fn libvmaf() -> Self {
        let l = 255.0f32;
        let k1l = 0.01f32 * l;
        let k2l = 0.03f32 * l;
        let c2 = k2l * k2l;
        Self {
            c1: k1l * k1l,
            c2,
            c3: c2 / 2.0f32,
        }
    }
}

/// What a frame size leads to under a set of options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameGeometry {
    /// Luma width.
    pub width: u32,
    /// Luma height.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// The decimation factor (1: none).
    pub scale: u32,
    /// Width after decimation.
    pub scaled_width: u32,
    /// Height after decimation.
    pub scaled_height: u32,
}

/// Checks that frames of this size and depth can be scored under `opts`, before
/// any work: a bit depth libvmaf reads and a decimated plane of at least 11 x 11
/// ([`Error::PlaneTooSmall`] otherwise).
pub fn check_geometry(
    width: u32,
    height: u32,
    bit_depth: u32,
    opts: &SsimOptions,
) -> Result<FrameGeometry> {
    samples::sample_divisor(bit_depth)?;
    let scale = scale::resolve_scale(opts, width, height);
    let (scaled_width, scaled_height) = scale::checked_scaled_size(width, height, scale)?;
    Ok(FrameGeometry {
        width,
        height,
        bit_depth,
        scale,
        scaled_width,
        scaled_height,
    })
}

/// Checks a reference / distorted pair: same width, height and bit depth
/// ([`Error::GeometryMismatch`] naming the difference), then [`check_geometry`].
pub fn check_pair(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &SsimOptions,
) -> Result<FrameGeometry> {
    if (reference.width, reference.height) != (distorted.width, distorted.height) {
        return Err(Error::GeometryMismatch(format!(
            "reference is {}x{}, distorted is {}x{}",
            reference.width, reference.height, distorted.width, distorted.height
        )));
    }
    if reference.bit_depth != distorted.bit_depth {
        return Err(Error::GeometryMismatch(format!(
            "reference is {}-bit, distorted is {}-bit",
            reference.bit_depth, distorted.bit_depth
        )));
    }
    samples::check_view(reference)?;
    samples::check_view(distorted)?;
    check_geometry(reference.width, reference.height, reference.bit_depth, opts)
}

/// The frame result from its fp32 means, adding the dB figure when asked.
pub fn frame_score(means: &FrameMeans, geometry: &FrameGeometry, opts: &SsimOptions) -> FrameScore {
    let ssim = means.ssim as f64;
    let db = opts.enable_db.then(|| {
        let max = db::max_db(
            geometry.width,
            geometry.height,
            geometry.bit_depth,
            opts.clip_db,
        );
        db::to_db(ssim, max)
    });
    let mut score = FrameScore::empty();
    score.outputs.push(FEATURE, db.unwrap_or(ssim));
    if opts.enable_lcs {
        for (name, v) in LCS_NAMES.into_iter().zip([means.l, means.c, means.s]) {
            score.outputs.push(name, v as f64);
        }
    }
    if db.is_some() {
        score.side.push_real(MEAN, ssim);
    }
    score
}

/// The side value that keeps the plain mean when `float_ssim` reports dB.
const MEAN: &str = "float_ssim_mean";

/// `float_ssim`'s values of a frame (NaN / `None` when the scorer does not
/// compute `float_ssim`). Each mean is libvmaf's fp32 value, held exactly in
/// an f64.
impl FrameScore {
    /// The SSIM mean (what libvmaf reports as `float_ssim` without
    /// `enable_db`); NaN without `float_ssim`.
    pub fn ssim(&self) -> f64 {
        self.side
            .real(MEAN)
            .or_else(|| self.value(FEATURE))
            .unwrap_or(f64::NAN)
    }

    /// The SSIM in dB when `enable_db` is set (what libvmaf then reports as
    /// `float_ssim`).
    pub fn db(&self) -> Option<f64> {
        self.side.real(MEAN).and(self.value(FEATURE))
    }

    /// The value libvmaf reports under the name `float_ssim`: the dB figure
    /// with `enable_db`, the plain mean otherwise (NaN without `float_ssim`).
    pub fn float_ssim(&self) -> f64 {
        self.value(FEATURE).unwrap_or(f64::NAN)
    }

    /// Mean luminance term (`float_ssim_l`): present exactly when
    /// [`SsimOptions::enable_lcs`] is set (what libvmaf reports; without it
    /// no backend reports one).
    pub fn l(&self) -> Option<f64> {
        self.value(LCS_NAMES[0])
    }

    /// Mean contrast term (`float_ssim_c`); like [`FrameScore::l`], only
    /// with `enable_lcs`.
    pub fn c(&self) -> Option<f64> {
        self.value(LCS_NAMES[1])
    }

    /// Mean structure term (`float_ssim_s`); like [`FrameScore::l`], only
    /// with `enable_lcs`.
    pub fn s(&self) -> Option<f64> {
        self.value(LCS_NAMES[2])
    }

    /// `[l, c, s]` when the scorer reported them (`enable_lcs`).
    pub fn lcs(&self) -> Option<[f64; 3]> {
        Some([self.l()?, self.c()?, self.s()?])
    }
}

/// The options `float_ssim` takes (`scale` is libvmaf 3.1's).
const KEYS: [&str; 4] = ["enable_lcs", "enable_db", "clip_db", "scale"];

impl super::extractor::Extractor for SsimOptions {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn keys(&self) -> &'static [&'static str] {
        &KEYS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        use super::config::parse_bool;
        match key {
            "enable_lcs" => self.enable_lcs = parse_bool(FEATURE, key, value)?,
            "enable_db" => self.enable_db = parse_bool(FEATURE, key, value)?,
            "clip_db" => self.clip_db = parse_bool(FEATURE, key, value)?,
            "scale" => {
                self.scale = value.parse().map_err(|_| {
                    crate::Error::InvalidOption(format!(
                        "{FEATURE}: scale must be a whole number (0 = automatic), not `{value}`"
                    ))
                })?
            }
            _ => {
                return Err(crate::Error::InvalidOption(format!(
                    "{FEATURE} has no option `{key}` (it has {})",
                    KEYS.join(", ")
                )))
            }
        }
        Ok(())
    }

    fn non_default(&self) -> Vec<String> {
        let mut v: Vec<String> = [
            ("enable_lcs", self.enable_lcs),
            ("enable_db", self.enable_db),
            ("clip_db", self.clip_db),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(k, _)| format!("{k}=true"))
        .collect();
        if self.scale != 0 {
            v.push(format!("scale={}", self.scale));
        }
        v
    }

    fn output_names(&self, _chroma: crate::io::Chroma) -> Vec<super::extractor::OutputName> {
        feature_names(self).into_iter().map(Into::into).collect()
    }

    fn check_frame(
        &self,
        width: u32,
        height: u32,
        bit_depth: u32,
        _chroma: crate::io::Chroma,
    ) -> Result<()> {
        check_geometry(width, height, bit_depth, self).map(drop)
    }

    fn frame_note(&self, width: u32, height: u32, bit_depth: u32) -> Option<String> {
        let g = check_geometry(width, height, bit_depth, self).ok()?;
        Some(format!(
            "{FEATURE} at scale {}, {}x{}",
            g.scale, g.scaled_width, g.scaled_height
        ))
    }

    fn needs(&self) -> super::extractor::Needs {
        super::extractor::Needs {
            vulkan: true,
            ..Default::default()
        }
    }
}
