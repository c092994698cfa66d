//! [`VkScorer`]: the GPU implementation of [`crate::FrameScorer`] for one
//! geometry and one set of options.
//!
//! The ring holds up to `frames_in_flight` slots, created as it first needs
//! them (one at creation; the first device-resident pair creates them all,
//! deepening the ring of a scorer whose metrics all batch
//! ([`GpuMetric::batches`]) to `device_resident_frames_in_flight`, whose
//! extra slots get upload buffers only when a host pair takes one), each
//! with its upload buffers, the range record, every metric's buffers, its
//! descriptor sets, a pre-recorded command buffer (the metrics' passes and
//! their barriers), a fence and timestamp queries. A frame is: copy the raw
//! samples into the slot (mapped device memory on the direct path, the
//! staging buffer otherwise), submit, and later wait on the fence, hand what
//! the metrics decide from their host-visible buffers to a worker thread
//! ([`GpuMetric::reduce`]), and take every metric's outputs in the list's
//! order ([`GpuMetric::finish`]).
//!
//! Every slot is submitted on the device's one compute queue.
//!
//! # Layout
//! One job per module: this one holds [`VkScorer`] itself (creation, the
//! accessors and teardown); `slots` the per-frame resources and their sizes;
//! `metric` each metric's buffers and dispatches (one module per metric);
//! `recorder` what turns them into a program, and a slot's sets and command
//! buffers; `record` a slot's command buffers (upload copy, then the program); `upload` the
//! host's samples into a slot ([`UploadSlot`], the copy threads); `ring` the
//! order of frames (hand out, submit, wait, score, in submission order);
//! `host_sum` the summing threads and the partial sums' words; `shared_ref`
//! slots that read a shared reference plane; `stats` the timestamps and
//! [`HostStats`]; `debug` the copy back of a device buffer; `external`
//! frames already on the device; `previous` pairs that carry their
//! previous frame's reference (a temporal metric's frame whose previous
//! frame another scorer took).

use std::collections::VecDeque;
use std::sync::Arc;

use ash::vk;

use super::commands;
use super::context::Gpu;
use super::device::MemoryModel;
use super::pipeline::{self, Pipelines};
use super::pipeline_cache::ContextCounts;
use super::shaders::{soft_f64_available, ArithVariant};
use super::workers::Workers;
use super::{UploadPath, VkOptions};
use crate::frame::{bytes_per_sample, PlaneGeometry};
use crate::io::Chroma;
use crate::metric::MetricConfig;
use crate::{Error, FrameScore, Result};

mod batch;
mod debug;
mod derived;
mod external;
mod host_sum;
mod metric;
mod picture;
mod previous;
mod record;
mod recorder;
mod ring;
mod ring_state;
mod sets;
mod shared_ref;
mod slots;
mod stats;
mod upload;

pub(crate) use external::{ExternalPlane, ExternalRing, ExternalSemaphore};
use host_sum::sum_threads;
pub use metric::float_ssim::DebugFrame;
pub(crate) use metric::slot_bytes as metric_slot_bytes;
pub use metric::MetricDebug;
use metric::{GpuMetric, MetricContext, MetricPlan, PictureLayout};
use recorder::Program;
use ring_state::RingState;
use slots::{Sizes, Slot};
pub use stats::HostStats;
pub use upload::UploadSlot;

/// The GPU scorer (see the module documentation).
pub struct VkScorer {
    slots: Vec<Slot>,
    /// Slots the ring may hold (`frames_in_flight`); [`VkScorer::grow`]
    /// creates them up to this as they are first needed.
    capacity: usize,
    /// Slots created with upload buffers (the host frames' ring,
    /// `frames_in_flight`); the slots past it, made when device-resident
    /// pairs deepen the ring (`external`), get theirs when a host pair first
    /// takes them ([`VkScorer::free_host_slot`]).
    host_capacity: usize,
    /// What the ring deepens to on the first device-resident pair of a
    /// scorer whose metrics batch (`EngineOptions::device_resident_frames_in_flight`).
    device_capacity: usize,
    /// Which slots are free, handed out by [`VkScorer::acquire_slot`], or
    /// submitted and not yet scored (on the GPU, or with their sum on a
    /// worker thread).
    state: RingState,
    /// Threads summing terms (see [`super::workers`]).
    workers: Workers,
    /// This scorer's identity, for [`UploadSlot`] checks.
    id: u64,
    /// Scored results not yet taken, oldest first.
    done: VecDeque<Result<FrameScore>>,
    next_frame: u64,
    sizes: Sizes,
    upload: UploadPath,
    descriptor_pool: vk::DescriptorPool,
    compute_pool: vk::CommandPool,
    transfer_pool: Option<vk::CommandPool>,
    /// Shared with every scorer on the device (see [`super::pipeline_cache`]).
    pipelines: Arc<Pipelines>,
    /// The metrics computed on the device, in recording order (see
    /// `metric`).
    gpu_metrics: Vec<Arc<dyn GpuMetric>>,
    /// What each frame records (see `recorder`).
    program: Program,
    /// The buffers its metrics make from the reference alone, which pairs
    /// of a shared reference read from the plane (see `derived`).
    derived: Option<derived::DerivedLayout>,
    /// Whether the passes built in a subgroup variant reduce with subgroup
    /// operations.
    subgroup_reduce: bool,
    /// GPU time per pass (see [`stats::PassClock`]).
    pass_clock: stats::PassClock,
    /// Where the submitting thread's time went, and the GPU's (see
    /// [`HostStats`]).
    stats: HostStats,
    /// Copy a fallback frame's terms, once copied back from device memory,
    /// out of their mapped read-back buffer in one block before summing (wide
    /// loads; for memory that is not host-cached, where the sum's 8-byte loads
    /// would each cross the bus). `VkOptions::debug.copy_terms` forces it.
    copy_terms: bool,
    /// Always sum the terms on the host (`VkOptions::debug.force_host_sum`), never
    /// from the device's fixed-point sums.
    force_host_sum: bool,
    /// The device-resident pairs' ring, made on the first such pair.
    external: Option<ExternalRing>,
    /// Pairs recorded and not yet submitted, oldest first (see `batch`).
    batch: Vec<usize>,
    /// Per slot: the command buffer of a batch whose last slot it is (made
    /// on first use; see `batch`).
    batch_cmds: Vec<vk::CommandBuffer>,
    /// The metric list.
    metrics: MetricPlan,
    /// The slot of the frame scored last.
    last_slot: Option<usize>,
    /// Pairs that carry their previous frame's reference (see `previous`).
    previous: previous::Previous,
    // Dropped last (after `Drop::drop` destroyed everything above).
    gpu: Arc<Gpu>,
}

fn not_mapped() -> Error {
    Error::NotMapped("a host-visible buffer of the scorer".into())
}

impl VkScorer {
    /// The device this scorer runs on.
    pub(crate) fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// A scorer for pictures of `width` x `height` luma, `bit_depth` bits and
    /// `chroma` subsampling that computes every metric of `metrics` (each at
    /// most once, in any order) on the device `vk_opts` asks for: its
    /// [`crate::FrameScore`]s hold every metric's outputs, in the list's
    /// order, and so does [`VkScorer::take_metric_outputs`] for each frame.
    /// Chroma is uploaded only when psnr reads it; submit such pictures whole
    /// (luma, Cb, Cr) through [`crate::FrameScorer::submit`] or an upload
    /// slot, or as planes with [`VkScorer::submit_picture`].
    ///
    /// Errors: each metric's size and option checks (before any work), a
    /// metric asked twice or none ([`Error::InvalidOption`]), and those of
    /// [`VkScorer::new`].
    pub fn with_metrics(
        (width, height, bit_depth): (u32, u32, u32),
        chroma: Chroma,
        metrics: &[MetricConfig],
        vk_opts: &VkOptions,
    ) -> Result<Self> {
        check_metric_list(metrics, (width, height, bit_depth), chroma)?;
        let gpu = Gpu::shared(
            vk_opts.device.index,
            vk_opts.device.validation,
            vk_opts.debug.pipeline_statistics,
        )?;
        let mut this =
            Self::with_gpu_and_metrics(gpu, (width, height, bit_depth), chroma, metrics, vk_opts)?;
        this.metrics.keep = true;
        Ok(this)
    }

    /// A scorer of `list` (see [`VkScorer::with_metrics`]; its outputs not
    /// queued) on an already open device (`vk_opts.device_index` and
    /// `vk_opts.validation` are not used): the library API's engines, own or
    /// imported, share their [`Gpu`] with every scorer they create.
    pub(crate) fn with_gpu_and_metrics(
        gpu: Arc<Gpu>,
        (width, height, bit_depth): (u32, u32, u32),
        chroma: Chroma,
        list: &[MetricConfig],
        vk_opts: &VkOptions,
    ) -> Result<Self> {
        check_metric_list(list, (width, height, bit_depth), chroma)?;
        vk_opts.check()?;
        if vk_opts.engine.no_fp64 && !soft_f64_available() {
            return Err(Error::Unsupported(
                "the software fp64 path (no_fp64): its shaders are not built into this \
                 vkssim (glsl/include/soft_f64.glsl is missing); use a device with \
                 shaderFloat64 or the CPU backend"
                    .into(),
            ));
        }
        let pipelines = gpu.tested_pipelines(vk_opts.engine.no_fp64)?;
        let upload = match vk_opts.engine.upload {
            // Direct wherever device memory is host-visible in full: on the
            // H200 (resizable BAR) it measured faster than staging at 1080p
            // and 4K, 8 and 10-bit (BENCHMARKS.md).
            UploadPath::Auto => match gpu.device.info.memory_model() {
                MemoryModel::Unified | MemoryModel::ResizableBar => UploadPath::Direct,
                MemoryModel::Staging => UploadPath::Staging,
            },
            other => other,
        };
        let mut sizes = Sizes {
            geometry: PlaneGeometry::new(width, height, bit_depth),
            raw_bytes: width as u64 * height as u64 * bytes_per_sample(bit_depth) as u64,
            picture: PictureLayout::luma(width, height, bit_depth),
        };
        let subgroup_reduce = gpu.device.info.subgroup_reduce && !vk_opts.debug.no_subgroups;
        let ctx = MetricContext {
            format: (width, height, bit_depth),
            chroma,
            subgroups: subgroup_reduce,
        };
        let gpu_metrics = metric::gpu_metrics(&gpu, &pipelines, &ctx, list)?;
        if let Some((stored, _)) = gpu_metrics.iter().find_map(|m| m.chroma()) {
            sizes.picture.chroma = Some(stored);
        }
        let program = recorder::build_program(&gpu_metrics, false, vk_opts.debug.time_each_pass)?;
        let previous =
            previous::Previous::new(&gpu, recorder::build_previous_program(&gpu_metrics)?);
        let metrics = MetricPlan {
            plans: metric::plan_positions(list, &gpu_metrics)?,
            done: VecDeque::new(),
            keep: false,
        };
        let in_flight = if vk_opts.engine.frames_in_flight == 0 {
            crate::api::DEFAULT_FRAMES_IN_FLIGHT
        } else {
            vk_opts.engine.frames_in_flight
        };
        // Only a scorer whose metrics all batch deepens its ring for
        // device-resident pairs (a metric slot can hold hundreds of MB at 4K).
        let device_capacity = if gpu_metrics.iter().all(|m| m.batches()) {
            vk_opts
                .engine
                .device_resident_frames_in_flight
                .max(in_flight)
        } else {
            in_flight
        };
        let mut this = Self {
            slots: Vec::new(),
            capacity: in_flight,
            host_capacity: in_flight,
            device_capacity,
            state: RingState::default(),
            workers: Workers::new(sum_threads(vk_opts.engine.sum_threads), "sum")?,
            id: crate::identity::next(),
            done: VecDeque::new(),
            next_frame: 0,
            sizes,
            upload,
            descriptor_pool: vk::DescriptorPool::null(),
            compute_pool: vk::CommandPool::null(),
            transfer_pool: None,
            derived: derived::DerivedLayout::of(&gpu_metrics),
            gpu_metrics,
            program,
            subgroup_reduce,
            pipelines,
            pass_clock: stats::PassClock::default(),
            stats: HostStats::default(),
            copy_terms: false,
            force_host_sum: vk_opts.debug.force_host_sum,
            external: None,
            batch: Vec::new(),
            batch_cmds: Vec::new(),
            metrics,
            last_slot: None,
            previous,
            gpu,
        };
        // On failure `this` drops and destroys whatever was created.
        let slots = device_capacity as u32;
        this.descriptor_pool = pipeline::create_descriptor_pool(
            &this.gpu,
            slots * this.program.sets.len() as u32,
            slots * this.program.descriptors(),
            "vkssim frame sets",
        )?;
        this.compute_pool = commands::create_pool(
            &this.gpu,
            this.gpu.device.compute_family,
            "vkssim compute commands",
        )?;
        if upload == UploadPath::Staging {
            if let Some((family, _)) = this.gpu.device.transfer {
                this.transfer_pool = Some(commands::create_pool(
                    &this.gpu,
                    family,
                    "vkssim transfer commands",
                )?);
            }
        }
        {
            // One slot now (the first frame needs it); the others as the ring
            // first fills (creating 28 full-size slots up front cost 0.3 s
            // at scale 1 on the H200, BENCHMARKS.md).
            let _span = tracing::debug_span!("start: frame slots", in_flight).entered();
            this.grow()?;
        }
        // Read-back memory is the partial sums' kind (host-visible, as the
        // range record).
        this.copy_terms = vk_opts.debug.copy_terms.unwrap_or_else(|| {
            !this.slots[0]
                .range
                .memory_properties()
                .contains(vk::MemoryPropertyFlags::HOST_CACHED)
        });
        tracing::info!(
            device = this.gpu.device_name(),
            arithmetic = this.pipelines.variant.name(),
            upload = ?upload,
            frames_in_flight = in_flight,
            width,
            height,
            bit_depth,
            metrics = ?list.iter().map(MetricConfig::feature).collect::<Vec<_>>(),
            "Vulkan scorer ready"
        );
        Ok(this)
    }

    /// The arithmetic path in use (after the self-test).
    pub fn arithmetic(&self) -> ArithVariant {
        self.pipelines.variant
    }

    /// How often this scorer's device built the pipelines of its arithmetic
    /// variant and ran that variant's self-test: 1 each, however many scorers
    /// the device has made (see [`super::pipeline_cache`]).
    pub fn context_counts(&self) -> ContextCounts {
        self.gpu.context_counts(self.pipelines.variant)
    }

    /// Whether the passes built in a subgroup variant (`*_subgroup`,
    /// engine/build.rs) reduce their sums with subgroup operations (where the
    /// device has subgroup arithmetic, unless `VkOptions::debug.no_subgroups`);
    /// else with a shared-memory tree. The sums are the same either way.
    pub fn subgroup_reduction(&self) -> bool {
        self.subgroup_reduce
    }

    /// The upload path in use (never `Auto`).
    pub fn upload_path(&self) -> UploadPath {
        self.upload
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        self.gpu.device_name()
    }

    /// Validation messages so far (warnings and errors; empty without
    /// validation). The device is shared by every scorer of the process with the
    /// same device and validation setting, and so is this log.
    pub fn validation_messages(&self) -> Vec<String> {
        self.gpu.validation_messages()
    }

    /// Host threads summing frames' terms.
    pub fn sum_threads(&self) -> usize {
        self.workers.len()
    }

    /// Bits per sample of the frames this scorer takes.
    pub fn bit_depth(&self) -> u32 {
        self.sizes.geometry.bit_depth
    }

    /// The device's driver (name and version, as the driver reports them).
    pub fn driver(&self) -> &str {
        &self.gpu.device.info.driver
    }

    /// Slots a caller may hold at once (the ring's size).
    pub fn slots(&self) -> usize {
        self.capacity
    }

    /// Creates the next slot when the ring holds fewer than its capacity;
    /// its index, or `None` when the ring is full.
    pub(super) fn grow(&mut self) -> Result<Option<usize>> {
        let i = self.slots.len();
        if i >= self.capacity {
            return Ok(None);
        }
        let slot = self.create_slot(i, i < self.host_capacity)?;
        self.slots.push(slot);
        self.record(i)?;
        Ok(Some(i))
    }

    /// Bytes uploaded per frame pair (the raw samples of both pictures: the
    /// luma planes, and the chroma planes when a metric reads them).
    pub fn bytes_per_frame(&self) -> u64 {
        2 * self.sizes.picture.bytes()
    }
}

/// Checks a metric list for frames of this format: not empty, no two
/// metrics writing one output (one metric may come twice with options whose
/// outputs are named apart, as VMAF's models ask), and each metric's own
/// checks.
pub(super) fn check_metric_list(
    list: &[MetricConfig],
    (width, height, bit_depth): (u32, u32, u32),
    chroma: Chroma,
) -> Result<()> {
    if list.is_empty() {
        return Err(Error::InvalidOption("no metric to compute".into()));
    }
    for (k, m) in list.iter().enumerate() {
        if list[..k].iter().any(|o| o.shares_outputs(m)) {
            return Err(Error::InvalidOption(format!(
                "{}: the metric is asked for more than once",
                m.feature()
            )));
        }
        m.check_frame(width, height, bit_depth, chroma)?;
    }
    Ok(())
}

impl Drop for VkScorer {
    fn drop(&mut self) {
        let _span = tracing::debug_span!("end: scorer").entered();
        // Sums in progress read the terms buffers: let them finish first.
        for slot in &mut self.slots {
            if let Some(rx) = slot.reduction.take() {
                let _ = rx.recv();
            }
        }
        if let Err(e) = self.flush_batch() {
            self.fail_batch(e);
        }
        self.wait_own_work();
        self.destroy_external_ring();
        // Each slot destroys its own resources when it drops, newest first.
        while let Some(slot) = self.slots.pop() {
            drop(slot);
        }
        let gpu = &self.gpu;
        // SAFETY: the device is idle; pools are destroyed once, with their
        // command buffers and sets.
        unsafe {
            if let Some(p) = self.transfer_pool.take() {
                gpu.device.raw.destroy_command_pool(p, None);
            }
            if self.compute_pool != vk::CommandPool::null() {
                gpu.device.raw.destroy_command_pool(self.compute_pool, None);
            }
            if self.descriptor_pool != vk::DescriptorPool::null() {
                gpu.device
                    .raw
                    .destroy_descriptor_pool(self.descriptor_pool, None);
            }
        }
    }
}
