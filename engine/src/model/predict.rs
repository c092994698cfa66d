//! One frame's score from one SVM model, as libvmaf's
//! `vmaf_predict_score_at_index`: normalise each feature
//! (`slope * f + intercept`, a multiply then an add, no fused multiply-add),
//! the ν-SVR sum, denormalise (`(s - intercept) / slope`), the score
//! transform when enabled, then the clip.

use super::features::FeatureInput;
use super::svm::Svm;

/// How features and score are rescaled (`norm_type`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Normalisation {
    /// `none`: features go into the SVM as they are.
    None,
    /// `linear_rescale`: index 0 is the score's, 1.. the features'.
    LinearRescale {
        /// `slopes`.
        slopes: Vec<f64>,
        /// `intercepts`.
        intercepts: Vec<f64>,
    },
}

/// `score_transform`: `p0 + p1·s + p2·s²`, then `max(that, s)` when
/// `out_gte_in`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct ScoreTransform {
    /// Whether the file turns it on (`"enabled": true`); the v0.6.x files do
    /// not, so it applies there only with `enable_transform`.
    pub(crate) enabled: bool,
    /// Constant term.
    pub(crate) p0: Option<f64>,
    /// Linear term.
    pub(crate) p1: Option<f64>,
    /// Quadratic term.
    pub(crate) p2: Option<f64>,
    /// Whether the result is at least the input.
    pub(crate) out_gte_in: bool,
}

impl ScoreTransform {
    /// The transformed score.
    pub(crate) fn apply(&self, s: f64) -> f64 {
        let mut value = 0.0f64;
        if let Some(p0) = self.p0 {
            value += p0;
        }
        if let Some(p1) = self.p1 {
            value += p1 * s;
        }
        if let Some(p2) = self.p2 {
            value += p2 * s * s;
        }
        if self.out_gte_in && value < s {
            value = s;
        }
        value
    }
}

/// How a model spec changes prediction (`enable_transform`, `disable_clip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModelFlags {
    /// Apply the score transform even where the file does not enable it.
    pub enable_transform: bool,
    /// Leave the score unclipped.
    pub disable_clip: bool,
}

/// One parsed SVM model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SvmModel {
    /// Its features, in `feature_names` order (the SVM's indices 1..).
    pub(crate) features: Vec<FeatureInput>,
    /// `norm_type` with its slopes and intercepts.
    pub(crate) norm: Normalisation,
    /// The ν-SVR.
    pub(crate) svm: Svm,
    /// `score_transform`, when the file has one.
    pub(crate) transform: Option<ScoreTransform>,
    /// `score_clip` (min, max), when the file has one.
    pub(crate) clip: Option<(f64, f64)>,
}

impl SvmModel {
    /// The raw score for `features` (in `self.features` order):
    /// normalised, the SVM, denormalised; no transform, no clip.
    pub(crate) fn raw(&self, features: &[f64]) -> f64 {
        debug_assert_eq!(features.len(), self.svm.width());
        match &self.norm {
            Normalisation::None => self.svm.predict(features),
            Normalisation::LinearRescale { slopes, intercepts } => {
                let x: Vec<f64> = features
                    .iter()
                    .zip(slopes[1..].iter().zip(&intercepts[1..]))
                    .map(|(f, (a, b))| a * f + b)
                    .collect();
                let s = self.svm.predict(&x);
                (s - intercepts[0]) / slopes[0]
            }
        }
    }

    /// The score transform and clip `flags` leave on, applied to `s`.
    pub(crate) fn finish(&self, s: f64, flags: ModelFlags) -> f64 {
        let mut s = s;
        if let Some(t) = &self.transform {
            if t.enabled || flags.enable_transform {
                s = t.apply(s);
            }
        }
        if let Some((lo, hi)) = self.clip {
            if !flags.disable_clip {
                if s < lo {
                    s = lo;
                }
                if s > hi {
                    s = hi;
                }
            }
        }
        s
    }

    /// The frame's score: [`Self::raw`] then [`Self::finish`].
    pub(crate) fn score(&self, features: &[f64], flags: ModelFlags) -> f64 {
        self.finish(self.raw(features), flags)
    }
}
