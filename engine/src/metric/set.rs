//! [`MetricSet`]: the metrics one scorer computes, checked once against the
//! frames it takes, before any work: each metric at most once, every metric
//! able to score that size, bit depth and chroma layout, and the chroma
//! layout known when a metric reads chroma. It says what a frame needs read
//! (chroma or not) and what it reports (names, in the `vmaf` command line's
//! order).

use super::config::MetricConfig;
use super::extractor::OutputName;
use crate::io::Chroma;
use crate::{Error, Result, SsimOptions};

/// A checked list of metrics for frames of one format (see the module note).
///
/// ```
/// use vkssim::io::Chroma;
/// use vkssim::metric::{config::parse_list, MetricSet};
/// let configs = parse_list(&["float_ssim", "psnr=enable_mse=true"]).unwrap();
/// let set = MetricSet::new(&configs, 64, 48, 8, Some(Chroma::C420)).unwrap();
/// assert!(set.needs_chroma());
/// assert_eq!(set.output_names()[..3], ["float_ssim", "psnr_y", "mse_y"]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSet {
    configs: Vec<MetricConfig>,
    width: u32,
    height: u32,
    bit_depth: u32,
    chroma: Chroma,
}

impl MetricSet {
    /// Checks `configs` for `width` x `height` frames at `bit_depth` whose
    /// chroma layout is `chroma` (`None`: not known, as for luma-only
    /// planes; then a metric that reads chroma is refused).
    ///
    /// Errors: no metric, or one twice ([`Error::InvalidOption`] naming it);
    /// a metric that reads chroma without a chroma layout
    /// ([`Error::InvalidOption`]); what [`MetricConfig::check_frame`] refuses
    /// (a size a metric cannot take names the metric and the size).
    pub fn new(
        configs: &[MetricConfig],
        width: u32,
        height: u32,
        bit_depth: u32,
        chroma: Option<Chroma>,
    ) -> Result<Self> {
        if configs.is_empty() {
            return Err(Error::InvalidOption(
                "no metric to compute (give at least one)".into(),
            ));
        }
        for (i, c) in configs.iter().enumerate() {
            // The same metric twice is refused when their outputs would share
            // a name (libvmaf runs `vif` and `vif=vif_enhn_gain_limit=1.0`
            // side by side: their names differ).
            let names = c.output_names(Chroma::C444);
            if configs[..i].iter().any(|o| {
                o.feature() == c.feature()
                    && o.output_names(Chroma::C444)
                        .iter()
                        .any(|n| names.contains(n))
            }) {
                return Err(Error::InvalidOption(format!(
                    "{}: the metric is asked for more than once; ask once",
                    c.feature()
                )));
            }
            if c.needs_chroma() && chroma.is_none() {
                return Err(Error::InvalidOption(format!(
                    "{}: it reads the chroma planes (enable_chroma), but the frames' chroma \
                     layout is not given (give it, or turn enable_chroma off)",
                    c.feature()
                )));
            }
        }
        let chroma = chroma.unwrap_or(Chroma::Mono);
        for c in configs {
            c.check_frame(width, height, bit_depth, chroma)?;
        }
        Ok(Self {
            configs: configs.to_vec(),
            width,
            height,
            bit_depth,
            chroma,
        })
    }

    /// `float_ssim` alone with `opts` (what a scorer computes by default).
    pub fn float_ssim(opts: SsimOptions, width: u32, height: u32, bit_depth: u32) -> Result<Self> {
        Self::new(
            &[MetricConfig::FloatSsim(opts)],
            width,
            height,
            bit_depth,
            None,
        )
    }

    /// `float_ssim` alone with `opts` for frames of any size, unchecked (each
    /// frame is checked as it is scored): for the CPU scorer's tests.
    pub(crate) fn float_ssim_any_size(opts: SsimOptions) -> Self {
        Self {
            configs: vec![MetricConfig::FloatSsim(opts)],
            width: 0,
            height: 0,
            bit_depth: 8,
            chroma: Chroma::Mono,
        }
    }

    /// The metrics, in the order given.
    pub fn configs(&self) -> &[MetricConfig] {
        &self.configs
    }

    /// Luma width, height and bit depth.
    pub fn geometry(&self) -> (u32, u32, u32) {
        (self.width, self.height, self.bit_depth)
    }

    /// The frames' chroma layout ([`Chroma::Mono`] when not given).
    pub fn chroma(&self) -> Chroma {
        self.chroma
    }

    /// Whether a frame's chroma planes are read (a metric reads them and the
    /// frames have them).
    pub fn needs_chroma(&self) -> bool {
        self.chroma != Chroma::Mono && self.configs.iter().any(MetricConfig::needs_chroma)
    }

    /// The metrics that read chroma (on pictures that have it), for
    /// messages.
    pub fn chroma_readers(&self) -> Vec<&'static str> {
        self.configs
            .iter()
            .filter(|c| c.needs_chroma())
            .map(MetricConfig::feature)
            .collect()
    }

    /// The size in samples of each chroma plane read when
    /// [`MetricSet::needs_chroma`] (as stored: sides rounded up).
    pub fn chroma_plane_size(&self) -> (u32, u32) {
        self.chroma.plane_size(self.width, self.height)
    }

    /// `float_ssim`'s options, when it is one of the metrics.
    pub fn ssim(&self) -> Option<SsimOptions> {
        self.configs.iter().find_map(|c| match c {
            MetricConfig::FloatSsim(o) => Some(*o),
            _ => None,
        })
    }

    /// Each metric's note on how it scores the set's frames
    /// ([`super::Extractor::frame_note`]), in order.
    pub fn frame_notes(&self) -> Vec<String> {
        self.configs
            .iter()
            .filter_map(|c| {
                c.extractor()
                    .frame_note(self.width, self.height, self.bit_depth)
            })
            .collect()
    }

    /// Whether a frame job needs the previous frame's reference (a temporal
    /// metric such as `motion`).
    pub fn needs_previous_reference(&self) -> bool {
        self.configs.iter().any(MetricConfig::is_temporal)
    }

    /// The metrics that have no Vulkan passes (the CPU twin computes them).
    pub fn not_on_vulkan(&self) -> Vec<&'static str> {
        self.configs
            .iter()
            .filter(|c| !c.needs().vulkan)
            .map(MetricConfig::feature)
            .collect()
    }

    /// The per-frame output names, in the `vmaf` command line's order (the
    /// metrics' in order, then the names libvmaf writes when the stream
    /// ends: [`super::Extractor::flushed_names`]).
    pub fn output_names(&self) -> Vec<OutputName> {
        let flushed: Vec<OutputName> = self
            .configs
            .iter()
            .flat_map(|c| c.extractor().flushed_names(self.chroma))
            .collect();
        let mut names: Vec<OutputName> = self
            .configs
            .iter()
            .flat_map(|c| c.output_names(self.chroma))
            .filter(|n| !flushed.contains(n))
            .collect();
        names.extend(flushed);
        names
    }

    /// The names of the values reported once, at the end of a run
    /// (`aggregate_metrics`).
    pub fn aggregate_names(&self) -> Vec<&'static str> {
        self.configs
            .iter()
            .flat_map(|c| c.aggregate_names())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::config::parse_list;

    #[test]
    fn checks_before_any_work() {
        let l = |s: &[&str]| parse_list(s).unwrap();
        let e = MetricSet::new(&[], 64, 64, 8, None).unwrap_err();
        assert!(e.to_string().contains("no metric"), "{e}");
        let twice = [l(&["adm"])[0], l(&["adm=debug=true"])[0]];
        let e = MetricSet::new(&twice, 64, 64, 8, Some(Chroma::C420)).unwrap_err();
        assert!(e
            .to_string()
            .contains("adm: the metric is asked for more than once"));
    }

    #[test]
    fn motion_3_2_0_writes_motion2_and_motion3_last() {
        use crate::metric::MotionVersion;
        let v32 =
            |spec: &str| MetricConfig::parse_with_motion(spec, MotionVersion::V3_2_0).unwrap();
        let configs = [v32("motion=debug=true"), v32("float_ssim")];
        let set = MetricSet::new(&configs, 64, 48, 8, None).unwrap();
        assert_eq!(
            set.output_names(),
            [
                "VMAF_integer_feature_motion_sad_score",
                "integer_motion",
                "float_ssim",
                "integer_motion2",
                "integer_motion3"
            ]
        );
    }
}
