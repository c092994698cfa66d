//! [`MetricConfig`]: one metric to compute and its options, parsed from the
//! `vmaf` command line's `--feature` syntax, `name[=key=value[:key=value...]]`
//! (`psnr=enable_mse=true:min_sse=0.5`), and what it asks of a frame (its
//! output names, whether it reads chroma, whether it keeps state from frame to
//! frame, the sizes it takes).
//!
//! The metrics themselves are listed once, in the registry below: a new
//! metric is its options type implementing [`Extractor`] in its own module
//! and one line here.

use std::fmt;
use std::str::FromStr;

use super::extractor::{Extractor, Needs, OutputName};
use super::ms_ssim::MsSsimOptions;
use super::psnr::PsnrOptions;
use crate::feature::adm::AdmOptions;
use crate::feature::motion::{MotionOptions, MotionVersion};
use crate::feature::vif::VifOptions;
use crate::io::Chroma;
use crate::{Error, Result, SsimOptions};

/// The registry: every metric vkssim computes, one line each (its variant and
/// its options type, which implements [`Extractor`]). It makes
/// [`MetricConfig`], its list ([`MetricConfig::all`]) and the one place that turns a
/// configuration into its [`Extractor`].
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident($options:ty),)*) => {
        /// One metric to compute, with its options.
        ///
        /// ```
        /// use vkssim::metric::config::MetricConfig;
        /// let m: MetricConfig = "psnr=enable_mse=true:min_sse=0.5".parse().unwrap();
        /// assert_eq!(m.feature(), "psnr");
        /// assert_eq!(m.to_string(), "psnr=enable_mse=true:min_sse=0.5");
        /// assert!(m.needs_chroma());
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq)]
        #[non_exhaustive]
        pub enum MetricConfig {
            $($(#[$doc])* $variant($options),)*
        }

        impl MetricConfig {
            /// Every metric with its default options, in the registry's order.
            pub fn all() -> Vec<MetricConfig> {
                vec![$(MetricConfig::$variant(<$options>::default())),*]
            }

            /// The metric's [`Extractor`]: everything shared code learns
            /// about it.
            pub fn extractor(&self) -> &dyn Extractor {
                match self {
                    $(MetricConfig::$variant(o) => o,)*
                }
            }

            /// The metric's exact CPU twin.
            pub(crate) fn cpu_twin(&self) -> &dyn crate::cpu::metrics::CpuTwin {
                match self {
                    $(MetricConfig::$variant(o) => o,)*
                }
            }

            fn extractor_mut(&mut self) -> &mut dyn Extractor {
                match self {
                    $(MetricConfig::$variant(o) => o,)*
                }
            }
        }
    };
}

/// The registry's lines, handed to the macro `$then` (`registry` here; the
/// Vulkan scorer's table of device plans makes its own dispatch from the
/// same lines): a new metric is one line here.
macro_rules! registry_lines {
    ($then:ident) => {
        $then! {
            /// libvmaf's `float_ssim`.
            FloatSsim(SsimOptions),
            /// libvmaf's `psnr` (integer, luma and chroma).
            Psnr(PsnrOptions),
            /// libvmaf's `float_ms_ssim`.
            FloatMsSsim(MsSsimOptions),
            /// libvmaf's `vif` (integer VIF, VMAF's `integer_vif_scale0..3`).
            Vif(VifOptions),
            /// libvmaf's `adm` (integer ADM, VMAF's `integer_adm2`).
            Adm(AdmOptions),
            /// libvmaf's `motion` (integer motion, VMAF's `integer_motion2`).
            Motion(MotionOptions),
        }
    };
}
pub(crate) use registry_lines;

registry_lines!(registry);

impl Default for MetricConfig {
    /// The metric a scorer computes when none is named: the registry's
    /// first, `float_ssim`, with its defaults.
    ///
    /// ```
    /// use vkssim::metric::MetricConfig;
    /// assert_eq!(MetricConfig::default().to_string(), "float_ssim");
    /// ```
    fn default() -> Self {
        MetricConfig::all()[0]
    }
}

/// libvmaf's boolean option values: exactly `true` or `false`.
pub(crate) fn parse_bool(feature: &str, key: &str, value: &str) -> Result<bool> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(Error::InvalidOption(format!(
            "{feature}: {key} must be `true` or `false`, not `{value}`"
        ))),
    }
}

/// A number option's value as the `vmaf` command line hands it to libvmaf:
/// its option dictionary reads the text as a float (`strtof`) and keeps it
/// written with 6 significant digits (`%g`), which the feature then reads as
/// a double. So `1997.5679` arrives as 1997.57, `1e-50` as 0, `-1e-50` as
/// -0, and a value beyond a float's range as infinity. `None` for text that
/// is not a decimal number.
pub(crate) fn parse_number(value: &str) -> Option<f64> {
    let float: f32 = value.trim().parse().ok()?;
    if float == 0.0 || !float.is_finite() {
        return Some(float as f64);
    }
    // Six significant digits, rounded half to even as printf rounds.
    format!("{:.5e}", float as f64).parse().ok()
}

impl MetricConfig {
    /// The metric names [`MetricConfig::parse`] takes, as libvmaf spells
    /// them, in the registry's order.
    pub fn names() -> Vec<&'static str> {
        MetricConfig::all().iter().map(|m| m.feature()).collect()
    }

    /// The metric named `name` with its default options, as libvmaf spells
    /// the name.
    pub fn by_name(name: &str) -> Option<MetricConfig> {
        MetricConfig::all()
            .into_iter()
            .find(|m| m.feature() == name)
    }

    /// [`MetricConfig::by_name`], `motion` being `motion`'s version.
    pub fn by_name_with_motion(name: &str, motion: MotionVersion) -> Option<MetricConfig> {
        match MetricConfig::by_name(name)? {
            MetricConfig::Motion(_) => {
                Some(MetricConfig::Motion(MotionOptions::for_version(motion)))
            }
            other => Some(other),
        }
    }

    /// Parses `name[=key=value[:key=value...]]`. An empty field (`psnr=`, a
    /// trailing `:`) is skipped; an option without a value, an unknown
    /// metric or option, a value libvmaf would refuse, or one option given
    /// twice is [`Error::InvalidOption`] naming the metric and the option.
    pub fn parse(spec: &str) -> Result<Self> {
        Self::parse_with_motion(spec, MotionVersion::default())
    }

    /// [`MetricConfig::parse`] for a run that computes `motion`'s
    /// `version`: `motion` starts from that version's defaults and takes its
    /// options; the other metrics are the same in every version.
    ///
    /// ```
    /// use vkssim::io::Chroma;
    /// use vkssim::metric::{MetricConfig, MotionVersion};
    /// let m = MetricConfig::parse_with_motion("motion=motion_fps_weight=2", MotionVersion::V3_2_0)?;
    /// assert_eq!(
    ///     m.output_names(Chroma::C420),
    ///     ["VMAF_integer_feature_motion_sad_score_mfw_2", "integer_motion2_mfw_2", "integer_motion3_mfw_2"]
    /// );
    /// assert!(MetricConfig::parse("motion=motion_fps_weight=2").is_err());
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn parse_with_motion(spec: &str, motion: MotionVersion) -> Result<Self> {
        let (name, rest) = match spec.split_once('=') {
            Some((name, rest)) => (name, Some(rest)),
            None => (spec, None),
        };
        let Some(mut config) = MetricConfig::by_name_with_motion(name, motion) else {
            return Err(Error::Unsupported(format!(
                "the metric `{name}` (vkssim computes {})",
                MetricConfig::names().join(", ")
            )));
        };
        let mut seen: Vec<&str> = Vec::new();
        for key_val in rest.into_iter().flat_map(|r| r.split(':')) {
            if key_val.is_empty() {
                continue;
            }
            let Some((key, value)) = key_val.split_once('=') else {
                return Err(Error::InvalidOption(format!(
                    "{name}: option `{key_val}` has no value (write {key_val}=...)"
                )));
            };
            if seen.contains(&key) {
                return Err(Error::InvalidOption(format!(
                    "{name}: option `{key}` is given more than once"
                )));
            }
            seen.push(key);
            config.set(key, value)?;
        }
        Ok(config)
    }

    /// Sets one option from its text.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        self.extractor_mut().set(key, value)
    }

    /// libvmaf's name of the metric.
    pub fn feature(&self) -> &'static str {
        self.extractor().name()
    }

    /// What the metric needs of the pipeline.
    pub fn needs(&self) -> Needs {
        self.extractor().needs()
    }

    /// Whether the metric reads the chroma planes (`psnr` with
    /// `enable_chroma`, on pictures that have them).
    pub fn needs_chroma(&self) -> bool {
        self.needs().chroma
    }

    /// Whether a frame's values depend on the previous frame (`motion`).
    pub fn is_temporal(&self) -> bool {
        self.needs().previous_reference
    }

    /// The per-frame output names for pictures of `chroma`, in libvmaf's order.
    pub fn output_names(&self, chroma: Chroma) -> Vec<OutputName> {
        self.extractor().output_names(chroma)
    }

    /// Whether `other` is the same metric writing at least one of this one's
    /// outputs: the two count once when they are equal, and conflict when
    /// their options differ (`vmaf` takes a feature once per run).
    pub fn shares_outputs(&self, other: &MetricConfig) -> bool {
        self.feature() == other.feature() && {
            let names = other.output_names(Chroma::C444);
            self.output_names(Chroma::C444)
                .iter()
                .any(|n| names.contains(n))
        }
    }

    /// The names of the values reported once, at the end of a run
    /// (`apsnr_*` with `psnr=enable_apsnr=true`).
    pub fn aggregate_names(&self) -> Vec<&'static str> {
        self.extractor().aggregate_names()
    }

    /// Checks, before any work, that this metric can score frames of this
    /// format: [`Error::PlaneTooSmall`] (`float_ssim`) or
    /// [`Error::FrameTooSmall`] naming the metric and the size,
    /// [`Error::Unsupported`] for a bit depth or chroma layout it does not
    /// take, [`Error::InvalidOption`] for options out of range.
    pub fn check_frame(
        &self,
        width: u32,
        height: u32,
        bit_depth: u32,
        chroma: Chroma,
    ) -> Result<()> {
        self.extractor()
            .check_frame(width, height, bit_depth, chroma)
    }

    /// The options that differ from the defaults, as `key=value`.
    fn non_default(&self) -> Vec<String> {
        self.extractor().non_default()
    }
}

/// Parses several `--feature`-style specifications, in order; a metric named
/// twice is [`Error::InvalidOption`] (libvmaf would report its outputs twice).
pub fn parse_list<S: AsRef<str>>(specs: &[S]) -> Result<Vec<MetricConfig>> {
    let mut out: Vec<MetricConfig> = Vec::new();
    for spec in specs {
        let m = MetricConfig::parse(spec.as_ref())?;
        if out.iter().any(|o| o.feature() == m.feature()) {
            return Err(Error::InvalidOption(format!(
                "{}: the metric is asked for more than once; ask once",
                m.feature()
            )));
        }
        out.push(m);
    }
    Ok(out)
}

impl FromStr for MetricConfig {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        MetricConfig::parse(s)
    }
}

impl fmt::Display for MetricConfig {
    /// The metric in libvmaf's syntax, with only the options that differ
    /// from the defaults (parsing it gives the same configuration; for
    /// `motion`, [`MetricConfig::parse_with_motion`] with its version).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.feature())?;
        let opts = self.non_default();
        if !opts.is_empty() {
            write!(f, "={}", opts.join(":"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_metric_and_round_trips() {
        for spec in [
            "float_ssim",
            "float_ssim=enable_lcs=true:scale=3",
            "psnr",
            "psnr=enable_chroma=false:enable_mse=true:enable_apsnr=true:reduced_hbd_peak=true:min_sse=0.5",
            "float_ms_ssim=enable_lcs=true:enable_db=true:clip_db=true",
        ] {
            let m = MetricConfig::parse(spec).unwrap();
            assert_eq!(m.to_string(), spec);
            assert_eq!(m.to_string().parse::<MetricConfig>().unwrap(), m);
        }
        let m = MetricConfig::parse("psnr=enable_mse=false:").unwrap();
        assert_eq!(m, MetricConfig::Psnr(PsnrOptions::default()));
        assert_eq!(
            MetricConfig::parse("psnr=min_sse=1e-3").unwrap(),
            MetricConfig::Psnr(PsnrOptions {
                min_sse: 0.001,
                ..Default::default()
            })
        );
    }

    #[test]
    fn bad_specs_name_the_metric_and_option() {
        for (spec, want) in [
            ("ciede", "`ciede`"),
            ("psnr=enable_mse", "`enable_mse` has no value"),
            ("psnr=enable_mse=1", "enable_mse must be `true` or `false`"),
            ("psnr=min_sse=-0.5", "psnr: min_sse"),
            ("psnr=enable_mse=true:enable_mse=false", "more than once"),
            (
                "float_ms_ssim=scale=2",
                "float_ms_ssim has no option `scale`",
            ),
            ("float_ssim=scale=x", "float_ssim: scale"),
            ("float_ssim=min_sse=1", "float_ssim has no option `min_sse`"),
        ] {
            let e = MetricConfig::parse(spec).unwrap_err().to_string();
            assert!(e.contains(want), "{spec}: {e}");
        }
        let e = parse_list(&["psnr", "float_ssim", "psnr=enable_mse=true"]).unwrap_err();
        assert!(e
            .to_string()
            .contains("psnr: the metric is asked for more than once"));
        assert_eq!(parse_list(&["psnr", "float_ms_ssim"]).unwrap().len(), 2);
    }

    #[test]
    fn output_names_follow_libvmaf() {
        let p = MetricConfig::parse("psnr=enable_mse=true:enable_apsnr=true").unwrap();
        assert_eq!(
            p.output_names(Chroma::C420),
            ["psnr_y", "mse_y", "psnr_cb", "mse_cb", "psnr_cr", "mse_cr"]
        );
        assert_eq!(p.output_names(Chroma::Mono), ["psnr_y", "mse_y"]);
        assert_eq!(p.aggregate_names(), ["apsnr_y", "apsnr_cb", "apsnr_cr"]);
        let m = MetricConfig::parse("float_ms_ssim=enable_lcs=true").unwrap();
        assert_eq!(m.output_names(Chroma::C420).len(), 16);
        assert!(!m.needs_chroma() && !m.is_temporal());
        assert!(m.aggregate_names().is_empty());
        let off = MetricConfig::parse("psnr=enable_chroma=false").unwrap();
        assert!(!off.needs_chroma());
    }

    #[test]
    fn sizes_are_checked_per_metric() {
        let ms = MetricConfig::parse("float_ms_ssim").unwrap();
        assert!(ms.check_frame(176, 176, 8, Chroma::C420).is_ok());
        let e = ms.check_frame(175, 480, 8, Chroma::C420).unwrap_err();
        assert!(
            e.to_string()
                .contains("float_ms_ssim cannot score a 175x480 frame"),
            "{e}"
        );
        let ssim = MetricConfig::parse("float_ssim").unwrap();
        assert!(matches!(
            ssim.check_frame(10, 10, 8, Chroma::C420),
            Err(Error::PlaneTooSmall { .. })
        ));
        let psnr = MetricConfig::parse("psnr").unwrap();
        assert!(psnr.check_frame(1, 1, 16, Chroma::C444).is_ok());
        assert!(psnr.check_frame(1, 1, 16, Chroma::C411).is_err());
        assert!(MetricConfig::parse("psnr=enable_chroma=false")
            .unwrap()
            .check_frame(1, 1, 16, Chroma::C444)
            .is_ok());
    }
}
