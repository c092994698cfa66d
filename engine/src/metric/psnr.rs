//! libvmaf's `psnr` as a metric: its options ([`PsnrOptions`]), what a frame
//! format leads to ([`PsnrGeometry`]: planes, peak, ceilings), the output names
//! in libvmaf's order, the per-frame finish from the exact per-plane sums of
//! squared errors ([`frame_outputs`]) and the end-of-run `apsnr` ([`Apsnr`]).
//!
//! Everything here is fp64 on the host, from integer sums that any engine
//! computes exactly ([`crate::cpu::psnr`] on the CPU). Written from
//! `docs/metrics.md`: the arithmetic is libvmaf 3.x's (its sums are right at
//! 16 bits, where 2.3.1 overflows), the rest is the same in both.

use crate::io::Chroma;
use crate::metric::outputs::MetricOutputs;
use crate::metric::SideValues;
use crate::{Error, FrameScore, Result};

/// libvmaf's name of the metric.
pub const FEATURE: &str = "psnr";

/// The per-frame PSNR outputs, luma then the two chroma planes.
pub(crate) const PSNR_NAMES: [&str; 3] = ["psnr_y", "psnr_cb", "psnr_cr"];
/// The per-frame MSE outputs (`enable_mse`).
pub(crate) const MSE_NAMES: [&str; 3] = ["mse_y", "mse_cb", "mse_cr"];
/// The end-of-run outputs (`enable_apsnr`).
pub(crate) const APSNR_NAMES: [&str; 3] = ["apsnr_y", "apsnr_cb", "apsnr_cr"];

/// The largest `min_sse` the `vmaf` command line can pass: its option
/// dictionary keeps a number as a float (`FLT_MAX`) written with 6
/// significant digits.
pub(crate) const MAX_MIN_SSE: f64 = 3.40282e38;

/// Options of libvmaf's `psnr` feature, with its names and defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PsnrOptions {
    /// Also score the two chroma planes (`psnr_cb`, `psnr_cr`); default true.
    /// A luma-only (4:0:0) input turns it off.
    pub enable_chroma: bool,
    /// Also report the mean squared error of each plane (`mse_y`, ...).
    pub enable_mse: bool,
    /// Report the PSNR of the whole run's summed errors (`apsnr_y`, ...) at
    /// the end, as aggregate values.
    pub enable_apsnr: bool,
    /// Above 8 bits, take `255 << (bpc - 8)` as the peak instead of
    /// `2^bpc - 1`.
    pub reduced_hbd_peak: bool,
    /// A floor for the sum of squared errors of a plane, which sets each
    /// plane's PSNR ceiling; 0 (the default) uses `6 * bpc + 12` instead.
    /// From 0 to 3.40282e38 (`FLT_MAX` to 6 digits), not -0.
    pub min_sse: f64,
}

impl Default for PsnrOptions {
    fn default() -> Self {
        Self {
            enable_chroma: true,
            enable_mse: false,
            enable_apsnr: false,
            reduced_hbd_peak: false,
            min_sse: 0.0,
        }
    }
}

impl PsnrOptions {
    /// Every option name, in libvmaf's order.
    pub const KEYS: [&'static str; 5] = [
        "enable_chroma",
        "enable_mse",
        "enable_apsnr",
        "reduced_hbd_peak",
        "min_sse",
    ];

    /// Sets option `key` from its text `value` as libvmaf's option syntax
    /// spells it (`true` / `false`; `min_sse` a decimal number >= 0, read
    /// as the `vmaf` command line hands it to libvmaf: as a float, kept to 6
    /// significant digits, so `1997.5679` is 1997.57).
    /// [`Error::InvalidOption`] naming the feature, the option and the value
    /// otherwise.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        use super::config::parse_bool;
        match key {
            "enable_chroma" => self.enable_chroma = parse_bool(FEATURE, key, value)?,
            "enable_mse" => self.enable_mse = parse_bool(FEATURE, key, value)?,
            "enable_apsnr" => self.enable_apsnr = parse_bool(FEATURE, key, value)?,
            "reduced_hbd_peak" => self.reduced_hbd_peak = parse_bool(FEATURE, key, value)?,
            "min_sse" => {
                self.min_sse = super::config::parse_number(value).ok_or_else(|| {
                    Error::InvalidOption(format!(
                        "{FEATURE}: min_sse must be a number, not `{value}`"
                    ))
                })?;
                self.validate().map_err(|_| {
                    Error::InvalidOption(format!(
                        "{FEATURE}: min_sse must be a number from 0 to {MAX_MIN_SSE:e} \
                         (not negative, not -0), not `{value}`"
                    ))
                })?;
            }
            _ => {
                return Err(Error::InvalidOption(format!(
                    "{FEATURE} has no option `{key}` (it has {})",
                    Self::KEYS.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// [`Error::InvalidOption`] unless `min_sse` is from 0 to
    /// 3.40282e38, and not -0 (libvmaf's bounds, as its command line
    /// reads the option).
    pub fn validate(&self) -> Result<()> {
        let m = self.min_sse;
        if !(0.0..=MAX_MIN_SSE).contains(&m) || m.is_sign_negative() {
            return Err(Error::InvalidOption(format!(
                "{FEATURE}: min_sse must be a number from 0 to {MAX_MIN_SSE:e} \
                 (not negative, not -0), not {m}"
            )));
        }
        Ok(())
    }

    /// The options that differ from the defaults, as `key=value` in
    /// [`PsnrOptions::KEYS`] order (libvmaf's syntax).
    pub fn non_default(&self) -> Vec<String> {
        let d = Self::default();
        let mut out = Vec::new();
        for (key, on, default) in [
            ("enable_chroma", self.enable_chroma, d.enable_chroma),
            ("enable_mse", self.enable_mse, d.enable_mse),
            ("enable_apsnr", self.enable_apsnr, d.enable_apsnr),
            (
                "reduced_hbd_peak",
                self.reduced_hbd_peak,
                d.reduced_hbd_peak,
            ),
        ] {
            if on != default {
                out.push(format!("{key}={on}"));
            }
        }
        if self.min_sse != d.min_sse {
            out.push(format!("min_sse={}", self.min_sse));
        }
        out
    }
}

/// What a frame format leads to for `psnr`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PsnrGeometry {
    /// Luma width.
    pub width: u32,
    /// Luma height.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// The chroma subsampling of the pictures.
    pub chroma: Chroma,
    /// Planes scored: 3, or 1 (luma) without chroma.
    pub planes: usize,
    /// Each plane's scored size, libvmaf's picture sizes: a halved side is
    /// truncated (`w / 2`), so an odd frame's last chroma column or row (present
    /// in the file, whose chroma planes round up) is not scored.
    pub plane_sizes: [(u32, u32); 3],
    /// The peak value: `(1 << bpc) - 1`, or `255 << (bpc - 8)` with
    /// `reduced_hbd_peak`; 255 at 8 bits.
    pub peak: u32,
    /// Each plane's PSNR ceiling.
    pub psnr_max: [f64; 3],
}

impl PsnrGeometry {
    /// `peak * peak` as libvmaf's integers hold it (at most 65535², which a
    /// u32 holds).
    pub fn peak_squared(&self) -> u32 {
        self.peak.wrapping_mul(self.peak)
    }

    /// The per-frame output names, in libvmaf's order: per plane `psnr_*`,
    /// then `mse_*` with `enable_mse`.
    pub fn output_names(&self, opts: &PsnrOptions) -> Vec<&'static str> {
        let mut names = Vec::new();
        for p in 0..self.planes {
            names.push(PSNR_NAMES[p]);
            if opts.enable_mse {
                names.push(MSE_NAMES[p]);
            }
        }
        names
    }
}

/// The end-of-run output names (all three with `enable_apsnr`, even for one
/// plane, as libvmaf writes them; none without).
pub fn aggregate_names(opts: &PsnrOptions) -> Vec<&'static str> {
    if opts.enable_apsnr {
        APSNR_NAMES.to_vec()
    } else {
        Vec::new()
    }
}

/// Checks a frame format for `psnr` before any work and says what it leads
/// to: a bit depth of 8, 10, 12 or 16, a chroma layout libvmaf's pictures
/// have (4:2:0, 4:2:2, 4:4:4, or luma only, which turns chroma off), a
/// non-empty frame and valid options.
pub fn check_geometry(
    width: u32,
    height: u32,
    bit_depth: u32,
    chroma: Chroma,
    opts: &PsnrOptions,
) -> Result<PsnrGeometry> {
    opts.validate()?;
    if !matches!(bit_depth, 8 | 10 | 12 | 16) {
        return Err(Error::Unsupported(format!(
            "bit depth {bit_depth} ({FEATURE} reads 8, 10, 12 and 16-bit samples)"
        )));
    }
    if width == 0 || height == 0 {
        return Err(Error::FrameTooSmall {
            feature: FEATURE,
            width,
            height,
            min_width: 1,
            min_height: 1,
        });
    }
    let planes = if chroma == Chroma::Mono || !opts.enable_chroma {
        1
    } else {
        3
    };
    // Chroma subsampling, horizontal and vertical.
    let (ss_hor, ss_ver) = match chroma {
        Chroma::C420 => (true, true),
        Chroma::C422 => (true, false),
        _ if planes == 1 => (false, false),
        Chroma::C444 => (false, false),
        _ => {
            return Err(Error::Unsupported(format!(
                "{chroma} pictures for {FEATURE} (libvmaf's pictures are 4:2:0, 4:2:2, 4:4:4 or luma only; the vmaf command line's Y4M reader converts other layouts before scoring)"
            )))
        }
    };
    // libvmaf's pictures truncate the halved sides (`w >> 1`): of an odd
    // frame's chroma planes (stored rounded up) the last column or row is not
    // scored.
    let c = (
        if ss_hor { width / 2 } else { width },
        if ss_ver { height / 2 } else { height },
    );
    let plane_sizes = [(width, height), c, c];
    let peak = if bit_depth == 8 {
        255
    } else if opts.reduced_hbd_peak {
        255 << (bit_depth - 8)
    } else {
        (1u32 << bit_depth) - 1
    };
    let peak_sq = peak * peak;
    let mut psnr_max = [0.0f64; 3];
    for (i, max) in psnr_max.iter_mut().enumerate() {
        *max = if opts.min_sse != 0.0 {
            let (pw, ph) = plane_sizes[i];
            // An unsigned 32-bit product, as libvmaf's.
            let mse = opts.min_sse / pw.wrapping_mul(ph) as f64;
            (10.0 * (peak_sq as f64 / mse).log10()).ceil()
        } else {
            (6 * bit_depth + 12) as f64
        };
    }
    Ok(PsnrGeometry {
        width,
        height,
        bit_depth,
        chroma,
        planes,
        plane_sizes,
        peak,
        psnr_max,
    })
}

/// libvmaf's `MIN(a, b)`: `a < b ? a : b` (so a NaN `a` gives `b`).
#[inline]
fn c_min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// The mean squared error of a plane: `f64(sse) / (pw * ph)` (an unsigned
/// 32-bit product, as libvmaf's).
pub fn mse(sse: u64, plane: (u32, u32)) -> f64 {
    sse as f64 / plane.0.wrapping_mul(plane.1) as f64
}

/// The PSNR of plane `p` from its MSE:
/// `min(10 * log10(peak² / max(mse, 1e-16)), psnr_max[p])`.
pub fn psnr(mse: f64, g: &PsnrGeometry, p: usize) -> f64 {
    let floor = if mse > 1e-16 { mse } else { 1e-16 };
    c_min(
        10.0 * (g.peak_squared() as f64 / floor).log10(),
        g.psnr_max[p],
    )
}

/// The frame's outputs from the exact sums of squared errors of its planes
/// (`sse[p]` for `p < g.planes`), in libvmaf's order.
pub fn frame_outputs(sse: &[u64; 3], g: &PsnrGeometry, opts: &PsnrOptions) -> MetricOutputs {
    let mut out = MetricOutputs::new();
    for p in 0..g.planes {
        let m = mse(sse[p], g.plane_sizes[p]);
        out.push(PSNR_NAMES[p], psnr(m, g, p));
        if opts.enable_mse {
            out.push(MSE_NAMES[p], m);
        }
    }
    out
}

/// The run's `apsnr`: the sums of squared errors and the pixel counts of
/// every frame scored, per plane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Apsnr {
    /// Summed squared errors per plane (libvmaf's uint64, wrapping).
    pub sse: [u64; 3],
    /// Summed pixel counts per plane.
    pub n_pixels: [u64; 3],
}

impl Apsnr {
    /// Adds one frame's sums (planes `g.planes` and above stay untouched, as
    /// libvmaf's do).
    pub fn add(&mut self, sse: &[u64; 3], g: &PsnrGeometry) {
        let planes = self.sse.iter_mut().zip(&mut self.n_pixels).zip(sse);
        for (((total, n), &frame), &(w, h)) in planes.zip(&g.plane_sizes).take(g.planes) {
            *total = total.wrapping_add(frame);
            *n = n.wrapping_add(h.wrapping_mul(w) as u64);
        }
    }

    /// The aggregate values (`apsnr_y`, `apsnr_cb`, `apsnr_cr`, always all
    /// three) with `enable_apsnr`, nothing without:
    /// `min(10 * (log10(peak²) + log10(n) - log10(sse)), ceil(10 * log10(peak² * n * 2)))`.
    /// A plane never scored (chroma off) has `n = sse = 0`, which gives `-inf`
    /// as in libvmaf.
    pub fn outputs(&self, g: &PsnrGeometry, opts: &PsnrOptions) -> MetricOutputs {
        let mut out = MetricOutputs::new();
        if !opts.enable_apsnr {
            return out;
        }
        let peak_sq = g.peak_squared();
        for ((&n, &sse), name) in self.n_pixels.iter().zip(&self.sse).zip(APSNR_NAMES) {
            let apsnr =
                10.0 * ((peak_sq as f64).log10() + (n as f64).log10() - (sse as f64).log10());
            // An unsigned 64-bit product, as libvmaf's.
            let cap_product = (peak_sq as u64).wrapping_mul(n).wrapping_mul(2);
            let cap = (10.0 * (cap_product as f64).log10()).ceil();
            out.push(name, c_min(apsnr, cap));
        }
        out
    }
}

/// The side values that keep a frame's sums of squared errors, per plane.
const SSE_NAMES: [&str; 3] = ["psnr_sse_y", "psnr_sse_cb", "psnr_sse_cr"];

/// Keeps a frame's exact sums of squared errors (`sse[p]` for
/// `p < g.planes`) for the run's `apsnr`.
pub(crate) fn keep_sse(sse: &[u64; 3], g: &PsnrGeometry, side: &mut SideValues) {
    for (name, &v) in SSE_NAMES.iter().zip(sse).take(g.planes) {
        side.push_count(name, v);
    }
}

/// `psnr`'s values of a frame, when the scorer computes `psnr`.
impl FrameScore {
    /// `psnr_y`, with `psnr`.
    pub fn psnr_y(&self) -> Option<f64> {
        self.value(PSNR_NAMES[0])
    }

    /// `psnr_cb`, with `psnr` on pictures with chroma (`enable_chroma`).
    pub fn psnr_cb(&self) -> Option<f64> {
        self.value(PSNR_NAMES[1])
    }

    /// `psnr_cr`, with `psnr` on pictures with chroma (`enable_chroma`).
    pub fn psnr_cr(&self) -> Option<f64> {
        self.value(PSNR_NAMES[2])
    }
}

impl super::extractor::Extractor for PsnrOptions {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn keys(&self) -> &'static [&'static str] {
        &Self::KEYS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        PsnrOptions::set(self, key, value)
    }

    fn non_default(&self) -> Vec<String> {
        PsnrOptions::non_default(self)
    }

    fn output_names(&self, chroma: Chroma) -> Vec<super::extractor::OutputName> {
        let planes = if chroma == Chroma::Mono || !self.enable_chroma {
            1
        } else {
            3
        };
        (0..planes)
            .flat_map(|p| {
                std::iter::once(PSNR_NAMES[p]).chain(self.enable_mse.then_some(MSE_NAMES[p]))
            })
            .map(Into::into)
            .collect()
    }

    fn aggregate_names(&self) -> Vec<&'static str> {
        aggregate_names(self)
    }

    fn check_frame(&self, width: u32, height: u32, bit_depth: u32, chroma: Chroma) -> Result<()> {
        check_geometry(width, height, bit_depth, chroma, self).map(drop)
    }

    fn aggregate(
        &self,
        width: u32,
        height: u32,
        bit_depth: u32,
        chroma: Chroma,
        frames: &[SideValues],
    ) -> Result<MetricOutputs> {
        if !self.enable_apsnr {
            return Ok(MetricOutputs::new());
        }
        let g = check_geometry(width, height, bit_depth, chroma, self)?;
        let mut apsnr = Apsnr::default();
        for (k, frame) in frames.iter().enumerate() {
            let mut sse = [0u64; 3];
            for (p, (v, name)) in sse.iter_mut().zip(SSE_NAMES).enumerate().take(g.planes) {
                *v = frame.count(name).ok_or_else(|| {
                    Error::Internal(format!(
                        "{FEATURE}: frame {k} has no sum of squared errors of plane {p}"
                    ))
                })?;
            }
            apsnr.add(&sse, &g);
        }
        Ok(apsnr.outputs(&g, self))
    }

    fn needs(&self) -> super::extractor::Needs {
        super::extractor::Needs {
            chroma: self.enable_chroma,
            vulkan: true,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// psnr in a [`crate::metric::MetricSet`]: the chroma layout it needs,
    /// its outputs after the metrics before it, its aggregates.
    #[test]
    fn in_a_set() {
        use crate::io::Chroma;
        use crate::metric::config::parse_list;
        use crate::metric::MetricSet;
        let l = |s: &[&str]| parse_list(s).unwrap();
        let e = MetricSet::new(&l(&["psnr"]), 64, 64, 8, None).unwrap_err();
        assert!(e.to_string().contains("chroma layout is not given"), "{e}");
        let off = MetricSet::new(&l(&["psnr=enable_chroma=false"]), 64, 64, 8, None).unwrap();
        assert!(!off.needs_chroma());
        assert_eq!(off.output_names(), ["psnr_y"]);
        let all = l(&[
            "float_ms_ssim=enable_lcs=true",
            "psnr=enable_mse=true:enable_apsnr=true",
            "float_ssim=enable_lcs=true",
        ]);
        let s = MetricSet::new(&all, 176, 176, 10, Some(Chroma::C422)).unwrap();
        assert_eq!(s.output_names().len(), 16 + 6 + 4);
        assert_eq!(s.output_names()[16], "psnr_y");
        assert_eq!(s.aggregate_names(), ["apsnr_y", "apsnr_cb", "apsnr_cr"]);
        assert_eq!(s.chroma_plane_size(), (88, 176));
        assert!(s.needs_chroma());
        let mono = MetricSet::new(&l(&["psnr"]), 64, 64, 8, Some(Chroma::Mono)).unwrap();
        assert!(!mono.needs_chroma());
        assert_eq!(mono.output_names(), ["psnr_y"]);
    }

    #[test]
    fn options_parse_with_libvmaf_spellings() {
        let mut o = PsnrOptions::default();
        assert!(o.enable_chroma && !o.enable_mse && o.min_sse == 0.0);
        o.set("enable_mse", "true").unwrap();
        o.set("enable_chroma", "false").unwrap();
        o.set("min_sse", "0.5").unwrap();
        o.set("reduced_hbd_peak", "true").unwrap();
        assert!(o.enable_mse && !o.enable_chroma && o.reduced_hbd_peak);
        assert_eq!(o.min_sse, 0.5);
        assert_eq!(
            o.non_default(),
            [
                "enable_chroma=false",
                "enable_mse=true",
                "reduced_hbd_peak=true",
                "min_sse=0.5"
            ]
        );
        for (k, v) in [
            ("enable_mse", "1"),
            ("enable_mse", "True"),
            ("min_sse", "-1"),
            ("min_sse", "nan"),
            ("min_sse", "inf"),
            ("min_sse", "-0"),
            ("min_sse", "-1e-50"),
            ("min_sse", "1e39"),
            ("min_sse", "x"),
            ("scale", "2"),
        ] {
            let e = PsnrOptions::default().set(k, v).unwrap_err();
            assert!(e.to_string().contains("psnr"), "{e}");
        }
    }

    #[test]
    fn peaks_and_ceilings() {
        let d = PsnrOptions::default();
        let g = check_geometry(64, 48, 8, Chroma::C420, &d).unwrap();
        assert_eq!((g.peak, g.psnr_max, g.planes), (255, [60.0; 3], 3));
        assert_eq!(g.plane_sizes, [(64, 48), (32, 24), (32, 24)]);
        let g = check_geometry(65, 49, 10, Chroma::C420, &d).unwrap();
        assert_eq!((g.peak, g.psnr_max[0]), (1023, 72.0));
        assert_eq!(g.plane_sizes[1], (32, 24));
        let r = PsnrOptions {
            reduced_hbd_peak: true,
            ..d
        };
        assert_eq!(
            check_geometry(8, 8, 16, Chroma::C444, &r).unwrap().peak,
            65280
        );
        assert_eq!(check_geometry(8, 8, 8, Chroma::C444, &r).unwrap().peak, 255);
        let m = PsnrOptions { min_sse: 0.5, ..d };
        let g = check_geometry(65, 49, 8, Chroma::C422, &m).unwrap();
        // Luma 65 x 49; chroma with truncated halves, 32 x 49.
        let want = |n: f64| (10.0 * (65025.0 / (0.5 / n)).log10()).ceil();
        assert_eq!(
            g.psnr_max,
            [want(65.0 * 49.0), want(32.0 * 49.0), want(32.0 * 49.0)]
        );
        let mono = check_geometry(8, 8, 8, Chroma::Mono, &d).unwrap();
        assert_eq!(mono.planes, 1);
        let off = PsnrOptions {
            enable_chroma: false,
            enable_mse: true,
            ..d
        };
        let g = check_geometry(8, 8, 8, Chroma::C420, &off).unwrap();
        assert_eq!(g.output_names(&off), ["psnr_y", "mse_y"]);
        let g = check_geometry(8, 8, 8, Chroma::C420, &m).unwrap();
        assert_eq!(g.output_names(&m), ["psnr_y", "psnr_cb", "psnr_cr"]);
    }

    #[test]
    fn bad_formats_are_refused_before_work() {
        let d = PsnrOptions::default();
        assert!(matches!(
            check_geometry(8, 8, 9, Chroma::C420, &d),
            Err(Error::Unsupported(_))
        ));
        assert!(matches!(
            check_geometry(8, 8, 8, Chroma::C411, &d),
            Err(Error::Unsupported(_))
        ));
        let e = check_geometry(0, 8, 8, Chroma::C420, &d).unwrap_err();
        assert!(
            e.to_string().contains("psnr cannot score a 0x8 frame"),
            "{e}"
        );
    }

    /// A run's collector gives the `apsnr` of every frame's kept sums (the
    /// 64-bit sums exactly), and refuses a frame that kept none.
    #[test]
    fn the_collector_aggregates_every_frames_kept_sums() {
        use crate::metric::{config::parse_list, MetricSet, Summary};
        let configs = parse_list(&["psnr=enable_apsnr=true"]).unwrap();
        let set = MetricSet::new(&configs, 10, 10, 8, Some(Chroma::C444)).unwrap();
        let opts = PsnrOptions {
            enable_apsnr: true,
            ..Default::default()
        };
        let g = check_geometry(10, 10, 8, Chroma::C444, &opts).unwrap();
        let mut summary = Summary::new(&set);
        let mut want = Apsnr::default();
        for sse in [[(1u64 << 60) + 1, 5, 0], [3, 7, 9]] {
            let mut score = FrameScore::empty();
            score.outputs.extend(&frame_outputs(&sse, &g, &opts));
            keep_sse(&sse, &g, &mut score.side);
            summary.add(&score);
            want.add(&sse, &g);
        }
        assert_eq!(want.sse[0], (1u64 << 60) + 4);
        assert_eq!(summary.aggregate().unwrap(), want.outputs(&g, &opts));
        summary.add(&FrameScore::empty());
        let e = summary.aggregate().unwrap_err().to_string();
        assert!(e.contains("psnr: frame 2 has no sum"), "{e}");
    }

    #[test]
    fn identical_planes_reach_the_ceiling_and_apsnr_caps() {
        let opts = PsnrOptions {
            enable_mse: true,
            enable_apsnr: true,
            ..Default::default()
        };
        let g = check_geometry(10, 10, 8, Chroma::C444, &opts).unwrap();
        let out = frame_outputs(&[0, 0, 0], &g, &opts);
        assert_eq!(out.get("psnr_y"), Some(60.0));
        assert_eq!(out.get("mse_cr"), Some(0.0));
        let mut a = Apsnr::default();
        a.add(&[0, 0, 0], &g);
        let agg = a.outputs(&g, &opts);
        let cap = (10.0 * (65025.0f64 * 100.0 * 2.0).log10()).ceil();
        assert_eq!(agg.get("apsnr_y"), Some(cap));
        // A plane never scored: -inf, as libvmaf's MIN(NaN, -inf) gives.
        let off = PsnrOptions {
            enable_chroma: false,
            ..opts
        };
        let g = check_geometry(10, 10, 8, Chroma::C444, &off).unwrap();
        let mut a = Apsnr::default();
        a.add(&[7, 0, 0], &g);
        let agg = a.outputs(&g, &off);
        assert_eq!(agg.get("apsnr_cb"), Some(f64::NEG_INFINITY));
        assert!(agg.get("apsnr_y").unwrap().is_finite());
        assert!(Apsnr::default()
            .outputs(&g, &PsnrOptions::default())
            .is_empty());
    }
}
