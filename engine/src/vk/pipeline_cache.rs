//! `PipelineCache`: the per-device memory of which arithmetic variants pass
//! the self-test, with their pipelines. A [`Gpu`] owns one; the first scorer
//! on the device builds a variant's pipelines and runs its self-test, every
//! later scorer on the same device (including each one-off scorer of
//! `api::Engine::score_pair`) takes the same pipelines without rebuilding or
//! re-testing them. A self-test that fails with a wrong result is remembered
//! too (it would fail again); other errors (out of memory, a lost device) are
//! not, so the next scorer tries again.
//!
//! The pipelines are destroyed with the [`Gpu`] (every scorer holds the `Gpu`,
//! so none is left then).

use std::sync::{Arc, Mutex};

use super::context::Gpu;
use super::pipeline::Pipelines;
use super::selftest;
use super::shaders::{soft_f64_available, ArithVariant};
use crate::{Error, Result};

/// How often a device built one variant's pipelines and ran its self-test
/// ([`crate::vk::VkScorer::context_counts`]); both stay at 1 however many
/// scorers use the variant after the first (unless building failed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextCounts {
    /// Times the variant's pipelines were created.
    pub pipeline_builds: u64,
    /// Times its arithmetic self-test ran.
    pub selftest_runs: u64,
}

/// What the device said about one variant.
enum Outcome {
    /// The self-test passed: these pipelines are shared by every scorer.
    Passed(Arc<Pipelines>),
    /// The self-test found a wrong result (the message of
    /// [`Error::SelfTestFailed`]).
    Failed(String),
}

/// One variant's entry.
#[derive(Default)]
struct Entry {
    outcome: Option<Outcome>,
    counts: ContextCounts,
}

/// The per-device cache (see the module documentation).
#[derive(Default)]
pub(crate) struct PipelineCache {
    /// Indexed by [`variant_index`]; the lock is held while a variant is built
    /// and tested, so that two scorers created at once build it once.
    entries: Mutex<[Entry; 2]>,
}

/// The slot of `variant` in [`PipelineCache::entries`].
fn variant_index(variant: ArithVariant) -> usize {
    match variant {
        ArithVariant::Fp64 => 0,
        ArithVariant::SoftF64 => 1,
    }
}

impl PipelineCache {
    /// The self-tested pipelines of the arithmetic path to use on `gpu`
    /// (whose cache this is): native fp64 when the device has it (unless
    /// `no_fp64`), else the software path; a failing native path falls back to
    /// the software one when it exists.
    pub(crate) fn choose(&self, gpu: &Gpu, no_fp64: bool) -> Result<Arc<Pipelines>> {
        let info = &gpu.device.info;
        if !no_fp64 && info.float64 {
            match self.tested(gpu, ArithVariant::Fp64) {
                Ok(p) => return Ok(p),
                Err(e) if soft_f64_available() => {
                    tracing::warn!("{e}; trying the software fp64 path");
                }
                Err(e) => return Err(e),
            }
        }
        if !soft_f64_available() {
            return Err(Error::MissingFeature {
                device: info.name.clone(),
                feature: "shaderFloat64 (the software fp64 path is not built yet)",
            });
        }
        self.tested(gpu, ArithVariant::SoftF64)
    }

    /// `variant`'s pipelines after its self-test, built and tested on first
    /// use only.
    fn tested(&self, gpu: &Gpu, variant: ArithVariant) -> Result<Arc<Pipelines>> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let entry = &mut entries[variant_index(variant)];
        match &entry.outcome {
            Some(Outcome::Passed(p)) => return Ok(Arc::clone(p)),
            Some(Outcome::Failed(message)) => return Err(Error::SelfTestFailed(message.clone())),
            None => {}
        }
        entry.counts.pipeline_builds += 1;
        let mut pipelines = {
            let _span = tracing::debug_span!("start: pipelines").entered();
            Pipelines::new(gpu, variant)?
        };
        entry.counts.selftest_runs += 1;
        let tested = {
            let _span = tracing::debug_span!("start: self-test").entered();
            selftest::run(gpu, &pipelines)
        };
        match tested {
            Ok(()) => {
                let shared = Arc::new(pipelines);
                entry.outcome = Some(Outcome::Passed(Arc::clone(&shared)));
                Ok(shared)
            }
            Err(e) => {
                pipelines.destroy(gpu);
                if let Error::SelfTestFailed(message) = &e {
                    entry.outcome = Some(Outcome::Failed(message.clone()));
                }
                Err(e)
            }
        }
    }

    /// The counters of `variant` on this device.
    pub(crate) fn counts(&self, variant: ArithVariant) -> ContextCounts {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries[variant_index(variant)].counts
    }

    /// Destroys every cached pipeline. Called by the [`Gpu`] as it drops, when
    /// no scorer is left; pipelines still shared elsewhere (which cannot
    /// happen: scorers hold the `Gpu`) are left alone.
    pub(crate) fn destroy(&self, gpu: &Gpu) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        for entry in entries.iter_mut() {
            if let Some(Outcome::Passed(mut p)) = entry.outcome.take() {
                match Arc::get_mut(&mut p) {
                    Some(p) => p.destroy(gpu),
                    None => tracing::warn!("pipelines still in use as their device closes"),
                }
            }
        }
    }
}
