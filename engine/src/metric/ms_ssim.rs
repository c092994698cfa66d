//! libvmaf's `float_ms_ssim` as a metric: its options ([`MsSsimOptions`]),
//! constants (the 9 x 9 low-pass table, the per-scale exponents), the size
//! check ([`check_size`]: at least 176 x 176), the output names in libvmaf's
//! order and the per-frame finish from the five scales' fp32 l, c, s means
//! ([`frame_outputs`]). The pyramid and the per-scale SSIM stage run in the
//! engines ([`crate::cpu::ms_ssim`] on the CPU).
//!
//! Written from `docs/metrics.md`. Each scale's SSIM stage is exactly
//! `float_ssim`'s ([`super::ssim`]), on that scale's plane.

use super::outputs::MetricOutputs;
use crate::cpu::{db, FrameMeans};
use crate::metric::scale::WINDOW;
use crate::{Error, Result};

/// libvmaf's name of the metric.
pub const FEATURE: &str = "float_ms_ssim";

/// Scales of the pyramid (scale 0 is the full-size plane).
pub(crate) const SCALES: usize = 5;

/// The smallest luma side: 11 at the last scale, doubled four times.
pub(crate) const MIN_SIDE: u32 = WINDOW << (SCALES - 1);

/// Side of the low-pass decimation kernel.
pub(crate) const LOWPASS_LEN: usize = 9;

/// The 2-D low-pass table libvmaf decimates with (fp32 literals, rows outer).
/// It is not the outer product of libvmaf's 1-D vectors, which it never uses.
#[rustfmt::skip]
pub(crate) const LOWPASS: [[f32; LOWPASS_LEN]; LOWPASS_LEN] = [
    [ 0.000714, -0.000450, -0.002090,  0.007132,  0.016114,  0.007132, -0.002090, -0.000450,  0.000714],
    [-0.000450,  0.000283,  0.001316, -0.004490, -0.010146, -0.004490,  0.001316,  0.000283, -0.000450],
    [-0.002090,  0.001316,  0.006115, -0.020867, -0.047149, -0.020867,  0.006115,  0.001316, -0.002090],
    [ 0.007132, -0.004490, -0.020867,  0.071207,  0.160885,  0.071207, -0.020867, -0.004490,  0.007132],
    [ 0.016114, -0.010146, -0.047149,  0.160885,  0.363505,  0.160885, -0.047149, -0.010146,  0.016114],
    [ 0.007132, -0.004490, -0.020867,  0.071207,  0.160885,  0.071207, -0.020867, -0.004490,  0.007132],
    [-0.002090,  0.001316,  0.006115, -0.020867, -0.047149, -0.020867,  0.006115,  0.001316, -0.002090],
    [-0.000450,  0.000283,  0.001316, -0.004490, -0.010146, -0.004490,  0.001316,  0.000283, -0.000450],
    [ 0.000714, -0.000450, -0.002090,  0.007132,  0.016114,  0.007132, -0.002090, -0.000450,  0.000714],
];

/// Luminance exponent per scale (fp32, widened to fp64 for `pow`).
pub(crate) const ALPHAS: [f32; SCALES] = [0.0, 0.0, 0.0, 0.0, 0.1333];
/// Contrast exponent per scale.
pub(crate) const BETAS: [f32; SCALES] = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333];
/// Structure exponent per scale.
pub(crate) const GAMMAS: [f32; SCALES] = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333];

/// The `enable_lcs` outputs: l of scales 0..4, then c, then s.
pub(crate) const LCS_NAMES: [&str; 3 * SCALES] = [
    "float_ms_ssim_l_scale0",
    "float_ms_ssim_l_scale1",
    "float_ms_ssim_l_scale2",
    "float_ms_ssim_l_scale3",
    "float_ms_ssim_l_scale4",
    "float_ms_ssim_c_scale0",
    "float_ms_ssim_c_scale1",
    "float_ms_ssim_c_scale2",
    "float_ms_ssim_c_scale3",
    "float_ms_ssim_c_scale4",
    "float_ms_ssim_s_scale0",
    "float_ms_ssim_s_scale1",
    "float_ms_ssim_s_scale2",
    "float_ms_ssim_s_scale3",
    "float_ms_ssim_s_scale4",
];

/// Options of libvmaf's `float_ms_ssim` feature (all off by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MsSsimOptions {
    /// Also report each scale's l, c and s means (`float_ms_ssim_l_scale0` to
    /// `float_ms_ssim_s_scale4`).
    pub enable_lcs: bool,
    /// Report `float_ms_ssim` in dB: `-10 * log10(1 - score)`.
    pub enable_db: bool,
    /// With `enable_db`, cap the dB figure at the one half a code value of
    /// error over the whole frame would give.
    pub clip_db: bool,
}

impl MsSsimOptions {
    /// Every option name, in libvmaf's order.
    pub const KEYS: [&'static str; 3] = ["enable_lcs", "enable_db", "clip_db"];

    /// Sets option `key` from its text (`true` / `false`);
    /// [`Error::InvalidOption`] naming the feature and option otherwise.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        use super::config::parse_bool;
        let slot = match key {
            "enable_lcs" => &mut self.enable_lcs,
            "enable_db" => &mut self.enable_db,
            "clip_db" => &mut self.clip_db,
            _ => {
                return Err(Error::InvalidOption(format!(
                    "{FEATURE} has no option `{key}` (it has {})",
                    Self::KEYS.join(", ")
                )))
            }
        };
        *slot = parse_bool(FEATURE, key, value)?;
        Ok(())
    }

    /// The options that differ from the defaults, as `key=value`.
    pub fn non_default(&self) -> Vec<String> {
        [
            ("enable_lcs", self.enable_lcs),
            ("enable_db", self.enable_db),
            ("clip_db", self.clip_db),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(k, _)| format!("{k}=true"))
        .collect()
    }
}

/// The per-frame output names, in libvmaf's order.
pub fn output_names(opts: &MsSsimOptions) -> Vec<&'static str> {
    let mut names = vec![FEATURE];
    if opts.enable_lcs {
        names.extend(LCS_NAMES);
    }
    names
}

/// libvmaf's check before any work: for each of the five scales the plane
/// (sides halved with truncation from one scale to the next) must be at
/// least 11 x 11, so luma of at least 176 x 176. [`Error::FrameTooSmall`]
/// naming the feature and the size otherwise; also an unsupported bit depth.
pub fn check_size(width: u32, height: u32, bit_depth: u32) -> Result<()> {
    crate::cpu::samples::sample_divisor(bit_depth)?;
    let (mut w, mut h) = (width, height);
    for _ in 0..SCALES {
        if w < WINDOW || h < WINDOW {
            return Err(Error::FrameTooSmall {
                feature: FEATURE,
                width,
                height,
                min_width: MIN_SIDE,
                min_height: MIN_SIDE,
            });
        }
        w /= 2;
        h /= 2;
    }
    Ok(())
}

/// The plane size of every scale: scale 0 is `width x height`, each next
/// one `w / 2 + (w & 1)` x `h / 2 + (h & 1)`.
pub fn scale_sizes(width: u32, height: u32) -> [(u32, u32); SCALES] {
    let mut sizes = [(width, height); SCALES];
    for k in 1..SCALES {
        let (w, h) = sizes[k - 1];
        sizes[k] = (w / 2 + (w & 1), h / 2 + (h & 1));
    }
    sizes
}

/// The MS-SSIM product from the five scales' fp32 means, in fp64:
/// `ms *= (pow(l, a) * pow(c, b)) * pow(s, g)` from `ms = 1`, scale by scale,
/// with the C library's `pow` (Rust's `powf` calls it). A negative structure
/// mean gives NaN, as in libvmaf; an infinite product is
/// [`Error::MetricFailed`] (libvmaf fails the frame).
pub fn combine(means: &[FrameMeans; SCALES]) -> Result<f64> {
    let mut ms = 1.0f64;
    for (k, m) in means.iter().enumerate() {
        let l = (m.l as f64).powf(ALPHAS[k] as f64);
        let c = (m.c as f64).powf(BETAS[k] as f64);
        let s = (m.s as f64).powf(GAMMAS[k] as f64);
        ms *= l * c * s;
        if ms == f64::INFINITY {
            return Err(Error::MetricFailed {
                feature: FEATURE,
                reason: format!("the MS-SSIM product is infinite at scale {k}"),
            });
        }
    }
    Ok(ms)
}

/// The frame's outputs from the five scales' means, in libvmaf's order:
/// the score (in dB with `enable_db`), then with `enable_lcs` each scale's
/// l, then c, then s mean (fp32 values, widened).
pub fn frame_outputs(
    means: &[FrameMeans; SCALES],
    width: u32,
    height: u32,
    bit_depth: u32,
    opts: &MsSsimOptions,
) -> Result<MetricOutputs> {
    let mut score = combine(means)?;
    if opts.enable_db {
        score = db::to_db(score, db::max_db(width, height, bit_depth, opts.clip_db));
    }
    let mut out = MetricOutputs::new();
    out.push(FEATURE, score);
    if opts.enable_lcs {
        let per: [fn(&FrameMeans) -> f32; 3] = [|m| m.l, |m| m.c, |m| m.s];
        let values = per
            .iter()
            .flat_map(|f| means.iter().map(move |m| f(m) as f64));
        for (name, v) in LCS_NAMES.iter().zip(values) {
            out.push(*name, v);
        }
    }
    Ok(out)
}

/// `float_ms_ssim`'s value of a frame, when the scorer computes it.
impl crate::FrameScore {
    /// `float_ms_ssim` (in dB with its `enable_db`), with `float_ms_ssim`.
    pub fn float_ms_ssim(&self) -> Option<f64> {
        self.value(FEATURE)
    }
}

impl super::extractor::Extractor for MsSsimOptions {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn keys(&self) -> &'static [&'static str] {
        &Self::KEYS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        MsSsimOptions::set(self, key, value)
    }

    fn non_default(&self) -> Vec<String> {
        MsSsimOptions::non_default(self)
    }

    fn output_names(&self, _chroma: crate::io::Chroma) -> Vec<super::extractor::OutputName> {
        output_names(self).into_iter().map(Into::into).collect()
    }

    fn check_frame(
        &self,
        width: u32,
        height: u32,
        bit_depth: u32,
        _chroma: crate::io::Chroma,
    ) -> Result<()> {
        check_size(width, height, bit_depth)
    }

    fn needs(&self) -> super::extractor::Needs {
        super::extractor::Needs {
            vulkan: true,
            host_heavy: true,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set with float_ms_ssim refuses a frame its five scales cannot take.
    #[test]
    fn a_set_checks_the_frame_size() {
        use crate::metric::config::parse_list;
        use crate::metric::MetricSet;
        let list = parse_list(&["float_ssim", "float_ms_ssim"]).unwrap();
        let e = MetricSet::new(&list, 175, 300, 8, None).unwrap_err();
        assert!(
            e.to_string()
                .contains("float_ms_ssim cannot score a 175x300 frame"),
            "{e}"
        );
    }

    fn ones() -> [FrameMeans; SCALES] {
        [FrameMeans {
            ssim: 1.0,
            l: 1.0,
            c: 1.0,
            s: 1.0,
        }; SCALES]
    }

    #[test]
    fn size_check_follows_the_truncating_halves() {
        assert_eq!(MIN_SIDE, 176);
        assert!(check_size(176, 176, 8).is_ok());
        assert!(check_size(1920, 1080, 10).is_ok());
        for (w, h) in [(175, 176), (176, 175), (10, 1000), (0, 0)] {
            let e = check_size(w, h, 8).unwrap_err();
            assert!(matches!(e, Error::FrameTooSmall { .. }), "{e}");
            let msg = e.to_string();
            assert!(
                msg.contains("float_ms_ssim") && msg.contains(&format!("{w}x{h}")),
                "{msg}"
            );
        }
        // 177 halves to 88, 44, 22, 11: fine; the decimated planes (89, 45, 23,
        // 12) are never smaller than the truncated halves.
        assert!(check_size(177, 353, 8).is_ok());
        assert!(matches!(
            check_size(200, 200, 9),
            Err(Error::Unsupported(_))
        ));
        assert_eq!(
            scale_sizes(177, 353),
            [(177, 353), (89, 177), (45, 89), (23, 45), (12, 23)]
        );
    }

    #[test]
    fn identical_means_give_one_and_the_db_ceiling() {
        let m = ones();
        let out = frame_outputs(&m, 176, 176, 8, &MsSsimOptions::default()).unwrap();
        assert_eq!(out.get(FEATURE), Some(1.0));
        assert_eq!(out.len(), 1);
        let o = MsSsimOptions {
            enable_lcs: true,
            enable_db: true,
            clip_db: true,
        };
        let out = frame_outputs(&m, 176, 176, 8, &o).unwrap();
        assert_eq!(out.get(FEATURE), Some(db::max_db(176, 176, 8, true)));
        assert_eq!(out.names().collect::<Vec<_>>(), output_names(&o));
        let o = MsSsimOptions {
            enable_db: true,
            ..Default::default()
        };
        let out = frame_outputs(&m, 176, 176, 8, &o).unwrap();
        assert_eq!(out.get(FEATURE), Some(f64::INFINITY));
    }

    #[test]
    fn negative_structure_is_nan_and_lcs_are_in_order() {
        let mut m = ones();
        for (k, x) in m.iter_mut().enumerate() {
            x.l = 0.5 + k as f32 / 100.0;
            x.c = 0.6 + k as f32 / 100.0;
            x.s = 0.7 + k as f32 / 100.0;
        }
        let o = MsSsimOptions {
            enable_lcs: true,
            ..Default::default()
        };
        let out = frame_outputs(&m, 200, 200, 8, &o).unwrap();
        assert_eq!(out.get("float_ms_ssim_l_scale3"), Some(m[3].l as f64));
        assert_eq!(out.get("float_ms_ssim_s_scale0"), Some(m[0].s as f64));
        assert_eq!(out.get("float_ms_ssim_c_scale4"), Some(m[4].c as f64));
        assert_ne!(m[3].l, m[4].l);
        m[2].s = -0.25;
        assert!(combine(&m).unwrap().is_nan());
    }

    #[test]
    fn options_parse() {
        let mut o = MsSsimOptions::default();
        o.set("enable_lcs", "true").unwrap();
        o.set("clip_db", "false").unwrap();
        assert_eq!(o.non_default(), ["enable_lcs=true"]);
        assert!(o.set("enable_db", "yes").is_err());
        let e = o.set("scale", "1").unwrap_err();
        assert!(
            e.to_string()
                .contains("float_ms_ssim has no option `scale`"),
            "{e}"
        );
    }
}
