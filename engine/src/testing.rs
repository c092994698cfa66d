//! Hooks for vkssim's own tests, benchmarks and examples, kept out of the
//! documented API (no stability promise): the scorers behind
//! [`crate::api::Scorer`] driven directly, so that the pass-by-pass and
//! parity tests can reach each pass, and the constants they check against.
//! Applications use [`crate::api`].

pub use crate::cpu::pool::CpuScorer;
pub use crate::pool::{pool, pool_indexed, Pooled};
pub use crate::reorder::Reorder;

/// The CPU twin's stages, each pass on its own, for the pass-by-pass tests,
/// the parity tests and the stage benchmarks (crate-private otherwise).
pub mod cpu {
    pub use crate::cpu::*;
}

/// The software binary64 and binary32 arithmetic the soft-f64 shaders model,
/// for the test that runs them on the device against it.
pub mod softfloat {
    pub use crate::softfloat::{
        f32_add, f32_div, f32_from_f64, f32_from_u64_scaled, f32_mul, f32_sqrt, f32_sub, f64_add,
        f64_div, f64_from_f32, f64_from_u32, f64_mul, f64_neg, f64_sub, F64,
    };
}
pub use crate::feature::vif;

/// Each scale's exact VIF sums: num_log, den_log, num_non_log, den_non_log.
pub type VifSums = [[i64; 4]; 4];

/// The CPU twin's VIF intermediates of one pair, for the pass-by-pass tests
/// of its Vulkan passes: the decimated planes (scale 1's reference and
/// distorted, then scale 2's and scale 3's) and each scale's exact sums
/// (num_log, den_log, num_non_log, den_non_log), as `vif::vif_scores`
/// forms them (its checks first).
pub fn vif_intermediates(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &vif::VifOptions,
) -> Result<(Vec<Vec<u16>>, VifSums)> {
    vif::vif_scores(reference, distorted, opts)?;
    let mut decimated = Vec::new();
    let sums = crate::feature::vif::scales(reference, distorted, opts, |r, d| {
        decimated.extend([r.samples.clone(), d.samples.clone()]);
    });
    let sums = sums.map(|s| [s.num_log, s.den_log, s.num_non_log, s.den_non_log]);
    Ok((decimated, sums))
}
pub use crate::scorer::FrameScorer;
pub use crate::vk::pipeline::PASSES;
pub use crate::vk::scorer::MetricDebug;
pub use crate::vk::scorer::{DebugFrame, UploadSlot, VkScorer};
pub use crate::vk::shaders::soft_f64_available;

use crate::io::Chroma;
use crate::metric::{MetricConfig, MetricOutputs};
use crate::vk::VkOptions;
use crate::{LumaView, Result};

/// Scores one pair of pictures with the metric list `metrics` on the Vulkan
/// engine `vk` asks for ([`VkScorer::with_metrics`], then
/// [`VkScorer::score_picture`]): every metric's outputs, in the list's order.
/// `reference` and `distorted` hold the luma plane, then the Cb and Cr planes
/// when a metric reads chroma.
pub fn vk_metric_outputs(
    reference: &[LumaView<'_>],
    distorted: &[LumaView<'_>],
    chroma: Chroma,
    metrics: &[MetricConfig],
    vk: &VkOptions,
) -> Result<MetricOutputs> {
    let luma = reference
        .first()
        .ok_or_else(|| crate::Error::InvalidOption("the reference's planes: none given".into()))?;
    let format = (luma.width, luma.height, luma.bit_depth);
    VkScorer::with_metrics(format, chroma, metrics, vk)?.score_picture(reference, distorted)
}
pub use crate::feature::adm::{
    adm_intermediates, adm_scores, check_size as adm_check_size, AdmOptions, AdmScaleIntermediates,
    AdmScores, ADM_MIN_SIDE, ADM_MIN_VIEW_PRODUCT,
};
pub use crate::feature::motion;
pub use crate::model::builtin::{built_in, BUILT_IN, DEFAULT_VERSION};
pub use crate::model::pool::pool_outputs;
pub use crate::model::{
    check_unique_names, predict_run, run_output_names, FeatureInput, Model, ModelFlags, ModelSpec,
    OptionValue,
};
