//! The metrics a [`VkScorer`] computes on the device, one module each
//! (`float_ssim`, `psnr`, `ms_ssim`, `motion`, `vif`, `adm`), every one a [`GpuMetric`]: it declares
//! the buffers each slot holds for it and records its dispatches through the
//! recorder ([`super::recorder`]), which allocates, binds, places the barriers
//! and times the stages it names; after a frame it reads its buffers into
//! the frame's outputs. Shared code asks a metric, never matches on which
//! metric it is: each metric's options make its plan ([`GpuPlan`],
//! implemented in the metric's own module), and [`gpu_metrics`] asks every
//! metric of the list in the registry's order (`crate::metric::config`'s
//! lines, one per metric).
//!
//! A scorer made with [`VkScorer::with_metrics`] queues one [`MetricOutputs`]
//! per frame scored without error, in the order the frames' [`FrameScore`]s
//! come out ([`VkScorer::take_metric_outputs`]).

/// Implements [`GpuPlan`] for a metric's options type `$options`: its plan
/// is `$plan::new(gpu, pipelines, ctx, options)` (the metric's checks first);
/// with `, slot_bytes = $f`, `$f(options, width, height)` gives the device
/// bytes of its per-slot buffers that grow with the frame.
macro_rules! gpu_plan {
    ($options:ty => $plan:ty, slot_bytes = $f:expr) => {
        gpu_plan!(@impl $options => $plan,
            fn slot_bytes(&self, width: u32, height: u32) -> u64 {
                $f(self, width, height)
            }
        );
    };
    ($options:ty => $plan:ty) => {
        gpu_plan!(@impl $options => $plan,);
    };
    (@impl $options:ty => $plan:ty, $($extra:item)*) => {
        impl $crate::vk::scorer::metric::GpuPlan for $options {
            fn gpu_metric(
                &self,
                gpu: &std::sync::Arc<$crate::vk::context::Gpu>,
                pipelines: &$crate::vk::pipeline::Pipelines,
                ctx: &$crate::vk::scorer::metric::MetricContext,
            ) -> $crate::Result<Option<Box<dyn $crate::vk::scorer::metric::GpuMetric>>> {
                Ok(Some(Box::new(<$plan>::new(gpu, pipelines, ctx, self)?)))
            }
            $($extra)*
        }
    };
}

mod adm;
pub(super) mod float_ssim;
mod kept;
pub(super) mod motion;
pub(super) mod ms_ssim;
pub(super) mod psnr;
mod rows;
pub(super) mod vif;

use std::collections::VecDeque;

use super::recorder::{BufferDecl, Recorder};
use super::VkScorer;
use crate::cpu::Plane;
use crate::frame::bytes_per_sample;
use crate::io::Chroma;
use crate::metric::{MetricConfig, MetricOutputs, SideValues};
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::Pipelines;
use crate::{Error, FrameScore, Result};

/// How a metric's options make its plan on the device: implemented by each
/// metric's options type in the metric's own module (the default: no
/// Vulkan passes yet, `Ok(None)`).
pub(super) trait GpuPlan {
    /// The metric's plan for frames of `ctx` (its size and option checks
    /// first), or `None` when it has no Vulkan passes.
    fn gpu_metric(
        &self,
        _gpu: &std::sync::Arc<Gpu>,
        _pipelines: &Pipelines,
        _ctx: &MetricContext,
    ) -> Result<Option<Box<dyn GpuMetric>>> {
        Ok(None)
    }

    /// Device bytes of its per-slot buffers that grow with the frame, for
    /// `width` x `height` frames (0: a few rows or words).
    fn slot_bytes(&self, _width: u32, _height: u32) -> u64 {
        0
    }
}

/// [`GpuPlan`] of a metric, made from the registry's lines (one arm per
/// metric, written by the macro).
macro_rules! gpu_plan_of {
    ($($(#[$doc:meta])* $variant:ident($options:ty),)*) => {
        /// The metric's [`GpuPlan`] (its options).
        fn gpu_plan(m: &MetricConfig) -> &dyn GpuPlan {
            match m {
                $(MetricConfig::$variant(o) => o,)*
            }
        }
    };
}
crate::metric::config::registry_lines!(gpu_plan_of);

/// `&self` as [`std::any::Any`], for a metric's own module to find its plan
/// among a scorer's ([`GpuMetric`]'s supertrait).
pub(super) trait AsAny: std::any::Any {
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: std::any::Any> AsAny for T {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A metric on the device (see the module docs).
pub(super) trait GpuMetric: AsAny + Send + Sync {
    /// The feature it computes (its name in the metric registry).
    fn feature(&self) -> &'static str;

    /// The names of the stages it times, in recording order: each
    /// [`Recorder::end_stage`] ends the next. (The hook the metric
    /// registry's stage names will feed.)
    fn stage_names(&self) -> &'static [&'static str];

    /// The buffers each slot holds for it; the recorder names the `k`-th as
    /// [`Recorder::own`]`(k)`, and [`GpuMetric::finish`] gets them in this
    /// order.
    fn buffers(&self) -> Vec<BufferDecl>;

    /// The buffers it keeps for the whole scorer (made with the plan,
    /// destroyed when it drops, after the scorer's work is done), which its
    /// passes carry from frame to frame; the recorder names the `k`-th as
    /// [`Recorder::kept`]`(k)`.
    fn kept_buffers(&self) -> &[Buffer] {
        &[]
    }

    /// Records one frame's dispatches.
    fn record(&self, r: &mut Recorder);

    /// Whether its slots are small enough for the ring to deepen for
    /// device-resident pairs (whose batches then hold more pairs side by
    /// side: `super::batch`). A scorer deepens its ring when all its
    /// metrics do.
    fn batches(&self) -> bool {
        false
    }

    /// The buffer of its own (host-visible) that [`GpuMetric::reduce`]
    /// reads on a worker thread once the frame's fence signalled; `None`
    /// (the default): nothing is decided off the submitting thread.
    fn reduced_buffer(&self) -> Option<usize> {
        None
    }

    /// Decides the frame's values from that buffer's bytes, on a worker
    /// thread (so that the submitting thread goes on reading and
    /// submitting); `None` when [`GpuMetric::finish`] must compute them
    /// otherwise (always under `force_host`, the host sums then).
    fn reduce(&self, _bytes: &[u8], _force_host: bool) -> Option<FrameScore> {
        None
    }

    /// Whether its outputs of a frame compare against the previous frame
    /// (its values of a frame whose distorted picture was refused are then
    /// kept for the frames around it: `super::previous`).
    fn reads_previous_frame(&self) -> bool {
        false
    }

    /// Records the dispatches that leave in its kept buffers what its passes
    /// of the previous frame would have left there, from the previous
    /// frame's reference luma a pair carries ([`super::recorder::Buf::Previous`]):
    /// for a frame whose previous frame another scorer took (`super::previous`).
    /// Nothing for a metric that carries nothing from frame to frame.
    fn record_previous(&self, _r: &mut Recorder) {}

    /// Adds its outputs of a frame (the slot's fence signalled) to `out`,
    /// from `bufs` (its buffers) and what [`GpuMetric::reduce`] decided.
    fn finish(
        &self,
        s: &VkScorer,
        bufs: &[Buffer],
        decided: Option<FrameScore>,
        out: &mut FrameFinish,
    ) -> Result<()>;

    /// Where its read-back buffers live, in words, appended to
    /// [`VkScorer::memory_path`] (`copy_terms`: a fallback's terms are
    /// copied out before summing).
    fn memory_note(&self, _bufs: &[Buffer], _copy_terms: bool) -> Option<String> {
        None
    }

    /// The first sample above the bit depth its passes found in each
    /// picture (beyond luma, which the slot's range record covers).
    fn sample_range(&self, _bufs: &[Buffer], _bit_depth: u32) -> Result<[Option<PlaneRange>; 2]> {
        Ok([None; 2])
    }

    /// The chroma planes it reads: their stored and scored sizes.
    fn chroma(&self) -> Option<((u32, u32), (u32, u32))> {
        None
    }

    /// Copies back what its passes wrote, for the pass-by-pass tests.
    fn debug(&self, _s: &VkScorer, _bufs: &[Buffer], _out: &mut MetricDebug) -> Result<()> {
        Ok(())
    }
}

/// What the metrics give of one frame.
#[derive(Debug, Default)]
pub(super) struct FrameFinish {
    /// Whether the frame starts a stream, with no previous frame (a
    /// temporal metric's first: [`VkScorer::end_stream`]); a frame whose
    /// pair carried its previous reference does not (`super::previous`).
    pub(super) first_of_stream: bool,
    /// Every metric's outputs.
    pub(super) outputs: MetricOutputs,
    /// What the metrics keep of the frame (for the run's end-of-run values).
    pub(super) side: SideValues,
    /// Scales whose means the host summed.
    pub(super) host_sums: u64,
}

/// The device metrics of a scorer: every metric of `list`'s plan
/// ([`GpuPlan`]), in the registry's order (their recording order).
pub(super) fn gpu_metrics(
    gpu: &std::sync::Arc<Gpu>,
    pipelines: &Pipelines,
    ctx: &MetricContext,
    list: &[MetricConfig],
) -> Result<Vec<std::sync::Arc<dyn GpuMetric>>> {
    let no_passes = |m: &MetricConfig| {
        crate::Error::Unsupported(format!(
            "{} on Vulkan (it has no Vulkan passes yet: the CPU twin computes it)",
            m.feature()
        ))
    };
    if let Some(m) = list.iter().find(|m| !m.needs().vulkan) {
        return Err(no_passes(m));
    }
    let mut out: Vec<std::sync::Arc<dyn GpuMetric>> = Vec::new();
    for known in MetricConfig::all() {
        for m in list.iter().filter(|m| m.feature() == known.feature()) {
            let plan = gpu_plan(m).gpu_metric(gpu, pipelines, ctx)?;
            out.push(plan.ok_or_else(|| no_passes(m))?.into());
        }
    }
    Ok(out)
}

/// Device bytes of one slot's metric buffers that grow with the frame, for
/// the metrics of `list` on `width` x `height` frames (what a default
/// frames-in-flight count keeps within its budget: `crate::api::in_flight`).
/// Each metric says its own ([`GpuPlan::slot_bytes`]).
pub(crate) fn slot_bytes(list: &[MetricConfig], width: u32, height: u32) -> u64 {
    list.iter()
        .map(|m| gpu_plan(m).slot_bytes(width, height))
        .sum()
}

/// Device bytes of the buffers `decls` declares (host-visible ones left out:
/// rows of sums).
fn device_bytes(decls: &[BufferDecl]) -> u64 {
    decls.iter().filter(|d| !d.host).map(|d| d.bytes).sum()
}

/// What a metric's plan is made for.
pub(super) struct MetricContext {
    /// Luma width, height and bit depth.
    pub(super) format: (u32, u32, u32),
    pub(super) chroma: Chroma,
    /// Whether the passes built in a subgroup variant (`*_subgroup`,
    /// engine/build.rs) reduce with subgroup operations.
    pub(super) subgroups: bool,
}

/// Where the planes of one raw picture lie in a slot's upload memory (and
/// its raw buffers): the luma plane, then the Cb and Cr planes as stored
/// (sides rounded up, packed rows) when a metric reads chroma.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PictureLayout {
    /// Bytes of the luma plane.
    pub(super) luma_bytes: u64,
    /// The chroma planes' stored size, when they are uploaded.
    pub(super) chroma: Option<(u32, u32)>,
    /// Bytes per sample.
    pub(super) bps: u64,
}

impl PictureLayout {
    /// A picture of luma only, `width` x `height` at `bit_depth`.
    pub(super) fn luma(width: u32, height: u32, bit_depth: u32) -> Self {
        let bps = bytes_per_sample(bit_depth) as u64;
        Self {
            luma_bytes: width as u64 * height as u64 * bps,
            chroma: None,
            bps,
        }
    }

    /// Bytes of one stored chroma plane (0 without chroma).
    pub(super) fn chroma_bytes(&self) -> u64 {
        self.chroma
            .map_or(0, |(w, h)| w as u64 * h as u64 * self.bps)
    }

    /// Bytes of the whole picture.
    pub(super) fn bytes(&self) -> u64 {
        self.luma_bytes + 2 * self.chroma_bytes()
    }
}

/// The metric list of a scorer.
pub(super) struct MetricPlan {
    /// For each metric asked for, in order (their outputs come in this
    /// order), its device plan's position among the scorer's
    /// ([`plan_positions`]).
    pub(super) plans: Vec<usize>,
    /// Outputs of frames scored and not yet taken, oldest first (queued
    /// only by a scorer made with [`VkScorer::with_metrics`]: `keep`).
    pub(super) done: VecDeque<MetricOutputs>,
    /// Whether `done` is kept.
    pub(super) keep: bool,
}

/// For each metric of `list`, the position of its plan in `gpu_metrics`
/// (made from `list` by [`gpu_metrics`], which keeps the list's order within
/// a metric: the n-th config of one metric is the n-th of its plans).
pub(super) fn plan_positions(
    list: &[MetricConfig],
    gpu_metrics: &[std::sync::Arc<dyn GpuMetric>],
) -> Result<Vec<usize>> {
    list.iter()
        .enumerate()
        .map(|(c, config)| {
            let nth = list[..c]
                .iter()
                .filter(|o| o.feature() == config.feature())
                .count();
            gpu_metrics
                .iter()
                .enumerate()
                .filter(|(_, m)| m.feature() == config.feature())
                .nth(nth)
                .map(|(k, _)| k)
                .ok_or_else(|| {
                    Error::Internal(format!("{} without its device plan", config.feature()))
                })
        })
        .collect()
}

/// A sample above the bit depth that a metric's pass found (10 and 12-bit):
/// the picture (0 reference, 1 distorted), the column and row within its
/// plane (luma, Cb or Cr), and the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PlaneRange {
    pub(super) picture: usize,
    /// The plane of the picture: 0 luma, 1 Cb, 2 Cr.
    pub(super) plane: usize,
    pub(super) x: u32,
    pub(super) y: u32,
    pub(super) value: u32,
}

/// The metric passes' results of one frame, copied back for tests
/// ([`VkScorer::debug_metrics`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricDebug {
    /// psnr's sum of squared errors per plane (0 for planes not scored).
    pub psnr_sse: Option<[u64; 3]>,
    /// float_ms_ssim's pyramid: each scale's reference and distorted fp32
    /// planes, scale 0 first (empty without float_ms_ssim).
    pub pyramid: Vec<(Plane, Plane)>,
    /// motion's blurred reference luma of the frame, row by row (empty
    /// without motion's passes).
    pub motion_blurred: Vec<u16>,
    /// motion's sum of absolute differences against the previous frame's
    /// blurred plane (each row's sum modulo 2^32, added in uint64; the
    /// first frame's is not meaningful).
    pub motion_sad: Option<u64>,
    /// vif's exact sums per scale: num_log, den_log, num_non_log,
    /// den_non_log (`None` without vif).
    pub vif_sums: Option<[[i64; 4]; 4]>,
    /// vif's decimated planes: scale 1's reference and distorted, then
    /// scale 2's and scale 3's (empty without vif).
    pub vif_planes: Vec<Vec<u16>>,
    /// adm's integer intermediates per scale, scale 0 first (empty without
    /// adm).
    pub adm: Vec<crate::feature::adm::AdmScaleIntermediates>,
    /// The frame's outputs (see [`VkScorer::take_metric_outputs`]).
    pub outputs: MetricOutputs,
}

impl VkScorer {
    /// The scorer's metric of plan type `T` (for that metric's own module):
    /// its position among the scorer's metrics (and so its slots' buffers)
    /// and its plan.
    pub(super) fn metric_plan<T: GpuMetric>(&self) -> Option<(usize, &T)> {
        self.gpu_metrics
            .iter()
            .enumerate()
            .find_map(|(k, m)| Some((k, (**m).as_any().downcast_ref::<T>()?)))
    }

    /// The chroma planes a metric reads: stored and scored sizes.
    pub(super) fn metric_chroma(&self) -> Option<((u32, u32), (u32, u32))> {
        self.gpu_metrics.iter().find_map(|m| m.chroma())
    }

    /// The metric outputs of slot `i`'s frame (its fence signalled), in the
    /// list's order, from what each metric's [`GpuMetric::reduce`] decided
    /// (`decided`, by position in the scorer's metrics; empty when none
    /// decides anything).
    pub(super) fn finish_metrics(
        &self,
        i: usize,
        mut decided: Vec<Option<FrameScore>>,
    ) -> Result<FrameFinish> {
        let mut out = FrameFinish {
            first_of_stream: !self.previous.has_previous(i),
            ..FrameFinish::default()
        };
        for &k in &self.metrics.plans {
            let d = decided.get_mut(k).and_then(Option::take);
            self.gpu_metrics[k].finish(self, &self.slots[i].bufs[k], d, &mut out)?;
        }
        Ok(out)
    }

    /// The first sample above the bit depth that slot `i`'s metric passes
    /// found in each picture (its fence signalled).
    pub(super) fn metric_range(&self, i: usize) -> Result<[Option<PlaneRange>; 2]> {
        let mut found = [None; 2];
        let depth = self.sizes.geometry.bit_depth;
        for (m, bufs) in self.gpu_metrics.iter().zip(&self.slots[i].bufs) {
            let r = m.sample_range(bufs, depth)?;
            for (f, r) in found.iter_mut().zip(r) {
                *f = f.or(r);
            }
        }
        Ok(found)
    }

    /// The oldest queued [`MetricOutputs`] of a scorer made with
    /// [`VkScorer::with_metrics`]: one per frame whose [`FrameScore`] came out
    /// without error, in the same order.
    pub fn take_metric_outputs(&mut self) -> Option<MetricOutputs> {
        self.metrics.done.pop_front()
    }

    /// What the metric passes of slot `i` hold after its frame, for the
    /// pass-by-pass tests.
    pub(super) fn read_metric_debug(&self, i: usize) -> Result<MetricDebug> {
        let mut out = MetricDebug::default();
        for (m, bufs) in self.gpu_metrics.iter().zip(&self.slots[i].bufs) {
            m.debug(self, bufs, &mut out)?;
        }
        Ok(out)
    }
}
