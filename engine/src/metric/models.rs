//! [`Models`]: the VMAF models of a run, from `vmaf`'s `--model` syntax
//! (`version=vmaf_v0.6.1`, `path=FILE:name=...`): which extractors they need
//! (with the options the model sets), the names they write, and each frame's
//! prediction from a row of the collector, once every feature of that frame
//! is in (motion's `integer_motion2` needs the next frame).

use super::config::MetricConfig;
use crate::feature::motion::MotionVersion;
use crate::model::{
    check_unique_names, predict_run, run_output_names, Model, ModelSpec, OptionValue,
};
use crate::Result;

/// The models of a run (none: no prediction).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Models {
    models: Vec<Model>,
}

impl Models {
    /// The models `specs` name, in `vmaf`'s `--model` syntax; a built-in
    /// version or a libvmaf JSON file. Errors name the spec, the key or the
    /// file and what is wrong (an unknown key or version, two models with
    /// one name, a malformed file, a feature vkssim does not compute).
    pub fn parse<S: AsRef<str>>(specs: &[S]) -> Result<Self> {
        let specs = specs
            .iter()
            .map(|s| ModelSpec::parse(s.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        check_unique_names(&specs)?;
        let models = specs.iter().map(Model::load).collect::<Result<_>>()?;
        Ok(Self { models })
    }

    /// libvmaf's default model, `vmaf_v0.6.1`.
    pub fn default_model() -> Result<Self> {
        Ok(Self {
            models: vec![Model::load(&ModelSpec::default_model())?],
        })
    }

    /// Whether there is no model.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// The extractors the models read, each with the options its model sets,
    /// in the order the models list them (each configuration once).
    pub fn metrics(&self) -> Result<Vec<MetricConfig>> {
        self.metrics_with_motion(MotionVersion::default())
    }

    /// [`Models::metrics`] with `motion`'s version of the motion extractor
    /// (the models read its `integer_motion2`).
    pub fn metrics_with_motion(&self, motion: MotionVersion) -> Result<Vec<MetricConfig>> {
        let mut out: Vec<MetricConfig> = Vec::new();
        for input in self.models.iter().flat_map(Model::inputs) {
            let mut m =
                MetricConfig::by_name_with_motion(input.extractor, motion).ok_or_else(|| {
                    crate::Error::Internal(format!("no extractor named {}", input.extractor))
                })?;
            for (key, value) in &input.options {
                let text = match value {
                    OptionValue::Bool(b) => b.to_string(),
                    OptionValue::Int(i) => i.to_string(),
                    OptionValue::Double(d) => d.to_string(),
                };
                m.set(key, &text)?;
            }
            if !out.contains(&m) {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// The metrics a run of these models and of `metrics` computes, in
    /// output order, as `vmaf` lists them: the extractors the models read
    /// ([`Models::metrics`]), then each of `metrics` that is not among them.
    /// Errors: a metric of `metrics` that a model runs with other options
    /// (an output name in both: [`crate::Error::InvalidOption`]).
    pub fn with_metrics(&self, metrics: &[MetricConfig]) -> Result<Vec<MetricConfig>> {
        self.with_metrics_and_motion(metrics, MotionVersion::default())
    }

    /// [`Models::with_metrics`], the models' motion libvmaf `motion`'s
    /// ([`Models::metrics_with_motion`]).
    pub fn with_metrics_and_motion(
        &self,
        metrics: &[MetricConfig],
        motion: MotionVersion,
    ) -> Result<Vec<MetricConfig>> {
        let mut out = self.metrics_with_motion(motion)?;
        for metric in metrics {
            match out.iter().find(|m| m.shares_outputs(metric)) {
                Some(m) if m != metric => {
                    return Err(crate::Error::InvalidOption(format!(
                        "{} is already run by a model with other options; give it once",
                        metric.feature()
                    )))
                }
                Some(_) => {}
                None => out.push(*metric),
            }
        }
        Ok(out)
    }

    /// The names the models write per frame, in `vmaf`'s order (every
    /// model's score, then each bootstrap model's other outputs).
    pub fn output_names(&self) -> Vec<String> {
        run_output_names(&self.models)
    }

    /// One frame's model outputs ([`Models::output_names`]' order) from its
    /// named feature values.
    pub(crate) fn predict(&self, row: &[(String, f64)]) -> Result<Vec<f64>> {
        predict_run(&self.models, row)
    }
}
