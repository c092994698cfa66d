//! [`Summary`]: a run's frames pooled per output, as libvmaf pools them
//! (`min`, `max`, `mean`, `harmonic_mean` in frame order: `crate::pool`),
//! and its aggregate values (`psnr`'s `apsnr_*` with `enable_apsnr`).

use super::config::MetricConfig;
use super::outputs::MetricOutputs;
use super::psnr::Apsnr;
use super::set::MetricSet;
use crate::pool::{pool, Pooled};
use crate::FrameScore;

/// Collects the frames of a run, in frame order, for their pooled and
/// aggregate values.
///
/// ```
/// use vkssim::metric::{MetricSet, Summary};
/// let set = MetricSet::float_ssim(Default::default(), 64, 48, 8).unwrap();
/// let mut summary = Summary::new(&set);
/// assert!(summary.pooled().is_empty());
/// # let _ = &mut summary;
/// ```
#[derive(Debug, Clone)]
pub struct Summary {
    set: MetricSet,
    names: Vec<&'static str>,
    /// One column of values per output name, in frame order.
    columns: Vec<Vec<f64>>,
    apsnr: Apsnr,
}

impl Summary {
    /// No frame yet, for the metrics of `set`.
    pub fn new(set: &MetricSet) -> Self {
        let names = set.output_names();
        Self {
            set: set.clone(),
            columns: vec![Vec::new(); names.len()],
            names,
            apsnr: Apsnr::default(),
        }
    }

    /// Adds the next frame's score (an output the score lacks counts as NaN).
    pub fn add(&mut self, score: &FrameScore) {
        for (name, column) in self.names.iter().zip(&mut self.columns) {
            column.push(score.value(name).unwrap_or(f64::NAN));
        }
        if let (Some(sse), Some(g)) = (score.psnr_sse, self.set.psnr_geometry()) {
            self.apsnr.add(&sse, g);
        }
    }

    /// Frames added.
    pub fn frames(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// Each output's pooled values, in output order; empty before any frame.
    pub fn pooled(&self) -> Vec<(&'static str, Pooled)> {
        self.names
            .iter()
            .zip(&self.columns)
            .filter_map(|(name, values)| Some((*name, pool(values)?)))
            .collect()
    }

    /// The aggregate values (`apsnr_y`, `apsnr_cb`, `apsnr_cr` with
    /// `psnr=enable_apsnr=true`), in the `vmaf` command line's order.
    pub fn aggregate(&self) -> MetricOutputs {
        let mut out = MetricOutputs::new();
        for c in self.set.configs() {
            if let (MetricConfig::Psnr(o), Some(g)) = (c, self.set.psnr_geometry()) {
                out.extend(&self.apsnr.outputs(g, o));
            }
        }
        out
    }
}
