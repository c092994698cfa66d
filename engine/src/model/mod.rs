//! libvmaf's VMAF models and per-frame prediction, bit for bit as libvmaf
//! 2.3.1's reference C path: the JSON model files ([`json`]), the built-in
//! models ([`builtin`]), the `--model` spec ([`spec`]), the features a model
//! reads ([`features`]), the ν-SVR ([`svm`]), one model's score
//! ([`predict`]), a bootstrap collection's outputs ([`bootstrap`]) and the
//! pooled values ([`pool`]).
//!
//! A [`Model`] says which features it needs ([`Model::inputs`]: extractor,
//! options, output name) and turns one frame's feature values into its
//! outputs ([`Model::predict`], named by [`Model::output_names`]).

pub(crate) mod bootstrap;
pub(crate) mod builtin;
pub(crate) mod features;
pub(crate) mod json;
pub(crate) mod pool;
pub(crate) mod predict;
pub(crate) mod spec;
pub(crate) mod svm;

use std::path::Path;

pub use features::{FeatureInput, OptionValue};
pub use predict::ModelFlags;
pub use spec::{check_unique_names, ModelSpec};

use json::{parse_model_file, ModelFile};
use predict::SvmModel;

use crate::{Error, Result};

/// A loaded model as one run uses it: its SVM model (or a bootstrap
/// collection), output name and flags.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The output name (`vmaf`, or the spec's `name=`).
    name: String,
    /// `enable_transform`, `disable_clip`.
    flags: ModelFlags,
    /// Every feature any of its SVMs reads, each once, in first-use order.
    inputs: Vec<FeatureInput>,
    /// The model (a collection's entry 0) and its columns into `inputs`.
    first: (SvmModel, Vec<usize>),
    /// A collection's other entries (1, 2, ...) and their columns.
    members: Vec<(SvmModel, Vec<usize>)>,
}

/// Each model's features as indices into `inputs`, adding new ones.
fn columns(model: &SvmModel, inputs: &mut Vec<FeatureInput>) -> Vec<usize> {
    model
        .features
        .iter()
        .map(|f| {
            inputs.iter().position(|g| g == f).unwrap_or_else(|| {
                inputs.push(f.clone());
                inputs.len() - 1
            })
        })
        .collect()
}

impl Model {
    /// Loads the model `spec` names: its built-in `version`, else its `path`.
    pub fn load(spec: &ModelSpec) -> Result<Model> {
        if let Some(version) = &spec.version {
            let text = builtin::built_in(version).ok_or_else(|| {
                let known: Vec<_> = builtin::BUILT_IN.iter().map(|b| b.0).collect();
                Error::InvalidOption(format!(
                    "version={version}: no such built-in model (built in: {})",
                    known.join(", ")
                ))
            })?;
            return Self::from_json(text, &format!("built-in {version}"), spec);
        }
        let path = spec.path.as_deref().ok_or_else(|| {
            Error::InvalidOption("the model spec names no model (version=... or path=...)".into())
        })?;
        Self::from_path(path, spec)
    }

    /// Loads the JSON model file at `path` with `spec`'s name, flags and
    /// options.
    pub fn from_path(path: &Path, spec: &ModelSpec) -> Result<Model> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        Self::from_json(&text, &format!("file {}", path.display()), spec)
    }

    /// Loads a model from its JSON text; errors name `source`.
    pub fn from_json(text: &str, source: &str, spec: &ModelSpec) -> Result<Model> {
        let (first, members) = match parse_model_file(text, source, &spec.overrides)? {
            ModelFile::Single(m) => (m, Vec::new()),
            ModelFile::Collection(mut all) => {
                let first = all.remove(0);
                (first, all)
            }
        };
        let mut inputs = Vec::new();
        let first_columns = columns(&first, &mut inputs);
        let members = members
            .into_iter()
            .map(|m| {
                let c = columns(&m, &mut inputs);
                (m, c)
            })
            .collect();
        Ok(Model {
            name: spec.output_name().to_string(),
            flags: spec.flags,
            inputs,
            first: (first, first_columns),
            members,
        })
    }

    /// The output name of the model's score.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The features the model reads: [`Model::predict`] takes one value per
    /// entry, in this order.
    pub fn inputs(&self) -> &[FeatureInput] {
        &self.inputs
    }

    /// Whether it is a bootstrap collection.
    pub fn is_collection(&self) -> bool {
        !self.members.is_empty()
    }

    /// The names of [`Model::predict`]'s outputs: the score; for a
    /// collection then `<name>_0001`, ... (one per member), `<name>_bagging`,
    /// `<name>_stddev`, `<name>_ci_p95_lo`, `<name>_ci_p95_hi`.
    pub fn output_names(&self) -> Vec<String> {
        let mut out = vec![self.name.clone()];
        out.extend(self.collection_names());
        out
    }

    /// A collection's outputs after the score (none for one model).
    fn collection_names(&self) -> Vec<String> {
        if self.members.is_empty() {
            return Vec::new();
        }
        let own = (1..=self.members.len()).map(|i| format!("{}_{i:04}", self.name));
        let summary = bootstrap::SUMMARY
            .iter()
            .map(|s| format!("{}_{s}", self.name));
        own.chain(summary).collect()
    }

    /// One frame's outputs (named by [`Model::output_names`]) from its
    /// feature values, one per [`Model::inputs`] entry.
    pub fn predict(&self, values: &[f64]) -> Result<Vec<f64>> {
        if values.len() != self.inputs.len() {
            return Err(Error::Internal(format!(
                "model {}: {} feature values for {} features",
                self.name,
                values.len(),
                self.inputs.len()
            )));
        }
        let pick = |cols: &[usize]| cols.iter().map(|&c| values[c]).collect::<Vec<f64>>();
        let mut out = vec![self.first.0.score(&pick(&self.first.1), self.flags)];
        if !self.members.is_empty() {
            let members = self.members.iter().map(|(m, cols)| (m, pick(cols)));
            out.extend(bootstrap::collection_scores(
                &self.first.0,
                members,
                self.flags,
            ));
        }
        Ok(out)
    }

    /// [`Model::predict`] from a frame's named feature values; a feature
    /// the row lacks is an error naming it.
    pub fn predict_row(&self, row: &[(String, f64)]) -> Result<Vec<f64>> {
        let values = self
            .inputs
            .iter()
            .map(|f| {
                row.iter()
                    .find(|(n, _)| *n == f.output)
                    .map(|&(_, v)| v)
                    .ok_or_else(|| {
                        Error::Internal(format!(
                            "model {}: no value for its feature {}",
                            self.name, f.output
                        ))
                    })
            })
            .collect::<Result<Vec<f64>>>()?;
        self.predict(&values)
    }
}

/// The output names of a run with `models`, in the order vmaf writes them:
/// every model's score, then every collection's other outputs.
pub fn run_output_names(models: &[Model]) -> Vec<String> {
    let scores = models.iter().map(|m| m.name.clone());
    let rest = models.iter().flat_map(Model::collection_names);
    scores.chain(rest).collect()
}

/// One frame's outputs of a run with `models`, in [`run_output_names`]'
/// order, from its named feature values.
pub fn predict_run(models: &[Model], row: &[(String, f64)]) -> Result<Vec<f64>> {
    let per: Vec<Vec<f64>> = models
        .iter()
        .map(|m| m.predict_row(row))
        .collect::<Result<_>>()?;
    let scores = per.iter().map(|o| o[0]);
    let rest = per.iter().flat_map(|o| o[1..].iter().copied());
    Ok(scores.chain(rest).collect())
}
