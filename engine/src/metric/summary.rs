//! [`Summary`]: a run's collector. It keeps every frame's values by name, in
//! frame order; fills the values that need later frames (motion's
//! `integer_motion2`) through each metric's [`super::Extractor::finish_run`]; runs
//! the run's VMAF models on each completed row ([`Models`]); pools each
//! output as libvmaf pools it (`min`, `max`, `mean`, `harmonic_mean` in frame
//! order: `crate::pool`); and gives the run's aggregate values from what each
//! metric kept of every frame ([`super::Extractor::aggregate`]: `psnr`'s
//! `apsnr_*` with `enable_apsnr`).

use super::extractor::{Columns, OutputName};
use super::models::Models;
use super::outputs::MetricOutputs;
use super::set::MetricSet;
use super::side::SideValues;
use crate::pool::{pool, Pooled};
use crate::{FrameScore, Result};

/// Collects the frames of a run, in frame order, for their finished,
/// predicted, pooled and aggregate values.
///
/// ```
/// use vkssim::metric::{MetricSet, Summary};
/// let set = MetricSet::float_ssim(Default::default(), 64, 48, 8).unwrap();
/// let summary = Summary::new(&set);
/// assert!(summary.pooled().unwrap().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Summary {
    set: MetricSet,
    models: Models,
    /// Every value kept per frame, by name (the outputs and what the
    /// metrics' finishes read).
    columns: Columns,
    /// What the metrics kept of each frame, in frame order, when a metric
    /// reports aggregate values (`keeps_side`).
    side: Vec<SideValues>,
    keeps_side: bool,
}

impl Summary {
    /// No frame yet, for the metrics of `set` (no model).
    pub fn new(set: &MetricSet) -> Self {
        Self::with_models(set, &Models::default())
    }

    /// No frame yet, for the metrics of `set` and the `models` read from
    /// them (`set` holds every extractor the models need:
    /// [`Models::metrics`]).
    pub fn with_models(set: &MetricSet, models: &Models) -> Self {
        let mut names: Vec<OutputName> = Vec::new();
        for c in set.configs() {
            for n in c.extractor().collected_names(set.chroma()) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        Self {
            set: set.clone(),
            models: models.clone(),
            columns: Columns::new(names),
            side: Vec::new(),
            keeps_side: !set.aggregate_names().is_empty(),
        }
    }

    /// Adds the next frame's score (a value the score lacks counts as NaN).
    pub fn add(&mut self, score: &FrameScore) {
        self.columns.push_row(|name| score.value(name));
        if self.keeps_side {
            self.side.push(score.side.clone());
        }
    }

    /// Frames added.
    pub fn frames(&self) -> usize {
        self.columns.rows()
    }

    /// The run's per-frame outputs, each a column in frame order, in the
    /// `vmaf` command line's order (the metrics' outputs, then the models'):
    /// the values that need later frames filled, the models run on every
    /// row. Errors: a model's (a feature it reads is missing).
    pub fn columns(&self) -> Result<Vec<(OutputName, Vec<f64>)>> {
        let mut columns = self.columns.clone();
        for c in self.set.configs() {
            c.extractor().finish_run(&mut columns);
        }
        let mut out: Vec<(OutputName, Vec<f64>)> = self
            .set
            .output_names()
            .into_iter()
            .map(|n| {
                let values = columns.get(&n).map(<[f64]>::to_vec).unwrap_or_default();
                (n, values)
            })
            .collect();
        if !self.models.is_empty() {
            let names = self.models.output_names();
            let mut predicted = vec![Vec::with_capacity(columns.rows()); names.len()];
            for row in 0..columns.rows() {
                let values: Vec<(String, f64)> = columns
                    .names()
                    .iter()
                    .filter_map(|n| Some((n.to_string(), columns.get(n)?[row])))
                    .collect();
                for (column, v) in predicted.iter_mut().zip(self.models.predict(&values)?) {
                    column.push(v);
                }
            }
            out.extend(names.into_iter().map(OutputName::from).zip(predicted));
        }
        Ok(out)
    }

    /// Each output's pooled values, in output order; empty before any frame.
    pub fn pooled(&self) -> Result<Vec<(OutputName, Pooled)>> {
        Ok(self
            .columns()?
            .into_iter()
            .filter_map(|(name, values)| Some((name, pool(&values)?)))
            .collect())
    }

    /// The aggregate values (`apsnr_y`, `apsnr_cb`, `apsnr_cr` with
    /// `psnr=enable_apsnr=true`), in the `vmaf` command line's order.
    /// Errors: a metric's (a frame without what it kept).
    pub fn aggregate(&self) -> Result<MetricOutputs> {
        let (width, height, bit_depth) = self.set.geometry();
        let mut out = MetricOutputs::new();
        for c in self.set.configs() {
            let values =
                c.extractor()
                    .aggregate(width, height, bit_depth, self.set.chroma(), &self.side)?;
            out.extend(&values);
        }
        Ok(out)
    }
}
