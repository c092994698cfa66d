//! [`VkScorer`]: the GPU implementation of [`FrameScorer`] for one geometry and
//! one set of options.
//!
//! Everything is allocated once, at creation: a ring of `frames_in_flight`
//! slots, each with its upload buffers, the intermediate planes, the per-pixel
//! term buffer, a descriptor set, a pre-recorded command buffer (the four passes
//! and their barriers), a fence and timestamp queries. A frame is: copy the raw
//! samples into the slot (mapped device memory on the direct path, the staging
//! buffer otherwise), submit, and later wait on the fence, take the fp32 means
//! from the device's fixed-point partial sums where they provably settle them
//! ([`super::reduce`]), else sum the per-pixel terms on the host in raster
//! order (exactness.md §5), and form the dB with the CPU twin's functions.
//!
//! Every slot is submitted on the device's one compute queue.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::commands;
use super::context::Gpu;
use super::device::MemoryModel;
use super::errors::vk_error;
use super::pipeline::{self, groups, Params, Pipelines, PASSES};
use super::pipeline_cache::ContextCounts;
use super::reduce;
use super::shaders::{soft_f64_available, ArithVariant};
use super::workers::Workers;
use super::{UploadPath, VkOptions};
use crate::cpu::{self, FrameGeometry, FrameMeans, TermSums};
use crate::frame::bytes_per_sample;
use crate::{Error, FrameScore, FrameScorer, LumaFrame, Result, SsimOptions};

mod external;
pub(crate) use external::{ExternalPlane, ExternalRing, ExternalSemaphore};

/// Frames in flight when [`VkOptions::frames_in_flight`] is 0: enough for
/// reading, upload, compute and the host sums of several frames to overlap.
pub const DEFAULT_FRAMES_IN_FLIGHT: usize = 8;
/// Host threads summing frames' terms at once (at most; fewer on small hosts);
/// [`VkOptions::sum_threads`] overrides it (the sums limit 1080p throughput on
/// the H200, see BENCHMARKS.md).
const REDUCE_THREADS: usize = 4;

/// Summing threads: `asked` if positive, else the cores up to
/// [`REDUCE_THREADS`].
fn sum_threads(asked: usize) -> usize {
    if asked > 0 {
        return asked;
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(REDUCE_THREADS)
}
/// Source of [`VkScorer`] identities (for [`UploadSlot`] checks).
static NEXT_SCORER_ID: AtomicU64 = AtomicU64::new(1);
/// Largest decimation factor the GPU accepts (the int64 argument of the seed
/// note stops holding above it).
pub const MAX_SCALE: u32 = 128;
const TIMESTAMPS: u32 = PASSES.len() as u32 + 1;

/// What every pass reads and writes for one frame, copied back for tests
/// ([`VkScorer::debug_frame`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DebugFrame {
    /// Decimated (or converted, at scale 1) reference plane, `sw x sh`.
    pub decimated_ref: Vec<f32>,
    /// Decimated distorted plane.
    pub decimated_dist: Vec<f32>,
    /// Horizontal Gaussian of r, c, r*r, c*c, r*c, each `(sw - 10) x sh`.
    pub hfilter: [Vec<f32>; 5],
    /// mu_r, mu_c, s_rr, s_cc, s_rc, each `(sw - 10) x (sh - 10)`.
    pub vfilter: [Vec<f32>; 5],
    /// Per-pixel ssim terms, raster order.
    pub ssim_terms: Vec<f64>,
    /// Per-pixel l, c and s terms (with `enable_lcs`).
    pub lcs_terms: Option<[Vec<f64>; 3]>,
    /// The frame's score.
    pub score: FrameScore,
}

/// Sizes derived from the geometry.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    geometry: FrameGeometry,
    /// Valid width and height of the SSIM stage.
    hw: u32,
    hh: u32,
    /// Bytes of one raw plane.
    raw_bytes: u64,
}

impl Sizes {
    fn dec_len(&self) -> u64 {
        self.geometry.scaled_width as u64 * self.geometry.scaled_height as u64
    }
    fn hfilt_len(&self) -> u64 {
        self.hw as u64 * self.geometry.scaled_height as u64
    }
    fn valid_len(&self) -> u64 {
        self.hw as u64 * self.hh as u64
    }
    /// Workgroups of the terms pass (16 x 16), one partial-sum record each.
    fn term_groups(&self) -> u64 {
        groups(self.hw, 16) as u64 * groups(self.hh, 16) as u64
    }
}

/// The resources of one frame in flight.
struct Slot {
    raw: [super::memory::Buffer; 2],
    staging: Option<super::memory::Buffer>,
    dec: super::memory::Buffer,
    hfilt: super::memory::Buffer,
    vfilt: super::memory::Buffer,
    terms: super::memory::Buffer,
    set: vk::DescriptorSet,
    cmd: vk::CommandBuffer,
    transfer_cmd: Option<vk::CommandBuffer>,
    fence: vk::Fence,
    semaphore: Option<vk::Semaphore>,
    queries: Option<vk::QueryPool>,
    /// Index of the frame it holds, and when it was submitted.
    frame: u64,
    submitted: Option<Instant>,
    /// The score being formed on a worker thread, once the fence signalled; the
    /// slot is reused only after it was received.
    /// With it, whether the host had to sum the terms (see [`super::reduce`]).
    reduction: Option<Receiver<Result<(FrameScore, bool)>>>,
}

/// Where time went, for `vkssim bench`: the submitting thread's blocking waits
/// and submissions, and the GPU's busy time and span from the timestamps.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostStats {
    /// Time spent waiting on frame fences (in `finish_oldest`), ns.
    pub fence_wait_ns: u64,
    /// Time spent waiting for the worker threads' sums, ns.
    pub sum_wait_ns: u64,
    /// Time spent submitting (fence reset and queue submissions), ns.
    pub submit_ns: u64,
    /// Sum over frames of first-to-last timestamp, ns.
    pub gpu_busy_ns: f64,
    /// Frames with timestamps.
    pub gpu_frames: u64,
    /// Earliest first and latest last timestamp, in ticks.
    pub gpu_first_tick: Option<u64>,
    /// See `gpu_first_tick`.
    pub gpu_last_tick: Option<u64>,
    /// Nanoseconds per tick.
    pub tick_ns: f64,
    /// Frames whose means the device's fixed-point sums did not settle, so the
    /// host summed their terms in raster order (every frame under
    /// [`VkOptions::force_host_sum`]); see [`super::reduce`].
    pub host_sum_fallbacks: u64,
}

impl HostStats {
    /// Wall time from the first frame's first timestamp to the last frame's
    /// last, ns.
    pub fn gpu_span_ns(&self) -> Option<f64> {
        Some(self.gpu_last_tick?.wrapping_sub(self.gpu_first_tick?) as f64 * self.tick_ns)
    }
}

/// A ring slot handed to the caller to fill with one pair's raw samples before
/// [`VkScorer::submit_slot`] (see [`VkScorer::acquire_slot`]). It can be sent to
/// another thread, so that several readers fill several slots at once.
#[derive(Debug)]
pub struct UploadSlot {
    scorer: u64,
    slot: usize,
    planes: [*mut u8; 2],
    len: usize,
}

// SAFETY: the pointers address the scorer's mapped upload memory for this slot
// only; nothing else writes it while the slot is handed out (the scorer neither
// reuses nor frees it before `submit_slot`), so one thread at a time may write it.
unsafe impl Send for UploadSlot {}

impl UploadSlot {
    /// Bytes of each plane (a packed luma plane, as in [`LumaFrame`]).
    pub fn plane_len(&self) -> usize {
        self.len
    }

    /// The reference and distorted planes' upload memory, to be filled with the
    /// raw little-endian samples (`plane_len` bytes each). The memory is mapped
    /// device or staging memory: write it once, in order, and do not read it
    /// (it may be write-combined).
    ///
    /// # Safety
    /// The [`VkScorer`] that handed out this slot must still be alive, and the
    /// slot must not have been given back to it yet.
    pub unsafe fn planes_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        // SAFETY: per the contract the scorer keeps both mappings alive and
        // untouched while the slot is out; they do not overlap, and `&mut self`
        // makes these the only references.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.planes[0], self.len),
                std::slice::from_raw_parts_mut(self.planes[1], self.len),
            )
        }
    }
}

/// The GPU float_ssim scorer (see the module documentation).
pub struct VkScorer {
    slots: Vec<Slot>,
    /// Slots submitted and not yet scored, oldest first (on the GPU, or with
    /// their sum on a worker thread).
    pending: VecDeque<usize>,
    /// Slots handed out by [`VkScorer::acquire_slot`], oldest first.
    filling: VecDeque<usize>,
    /// Threads summing terms (see [`super::workers`]).
    workers: Workers,
    /// This scorer's identity, for [`UploadSlot`] checks.
    id: u64,
    /// Scored results not yet taken, oldest first.
    done: VecDeque<Result<FrameScore>>,
    next_slot: usize,
    next_frame: u64,
    sizes: Sizes,
    opts: SsimOptions,
    upload: UploadPath,
    params: Params,
    descriptor_pool: vk::DescriptorPool,
    compute_pool: vk::CommandPool,
    transfer_pool: Option<vk::CommandPool>,
    /// Shared with every scorer on the device (see [`super::pipeline_cache`]).
    pipelines: Arc<Pipelines>,
    last_pass_ns: Option<[f64; PASSES.len()]>,
    /// Where the submitting thread's time went, and the GPU's (see
    /// [`HostStats`]).
    stats: HostStats,
    /// Copy a frame's terms out of mapped memory in one block before summing
    /// (wide loads; for memory that is not host-cached, where the sum's 8-byte
    /// loads would each cross the bus). [`VkOptions::copy_terms`] forces it.
    copy_terms: bool,
    /// Always sum the terms on the host ([`VkOptions::force_host_sum`]), never
    /// from the device's fixed-point sums.
    force_host_sum: bool,
    // Dropped last (after `Drop::drop` destroyed everything above).
    gpu: Arc<Gpu>,
}

impl VkScorer {
    /// A scorer for `width` x `height` luma planes of `bit_depth` bits under
    /// `opts`, on the device and paths `vk` asks for.
    ///
    /// Opens the device (shared by the process), takes the pipelines of the
    /// arithmetic path (native fp64 or the software fp64 path; built and
    /// self-tested by the device's first scorer only) and allocates every buffer.
    ///
    /// Errors: [`Error::NoVulkan`], [`Error::NoDevice`], [`Error::MissingFeature`],
    /// [`Error::SelfTestFailed`], [`Error::PlaneTooSmall`], [`Error::Unsupported`]
    /// (scale above 128, `no_fp64` before the software path exists, a bad bit
    /// depth), [`Error::OutOfDeviceMemory`], [`Error::Vulkan`].
    pub fn new(
        width: u32,
        height: u32,
        bit_depth: u32,
        opts: &SsimOptions,
        vk_opts: &VkOptions,
    ) -> Result<Self> {
        cpu::check_geometry(width, height, bit_depth, opts)?;
        let gpu = Gpu::shared(vk_opts.device_index, vk_opts.validation)?;
        Self::with_gpu(gpu, width, height, bit_depth, opts, vk_opts)
    }

    /// [`VkScorer::new`] on an already open device (`vk_opts.device_index` and
    /// `vk_opts.validation` are not used): the library API's engines, own or
    /// imported, share their [`Gpu`] with every scorer they create.
    pub(crate) fn with_gpu(
        gpu: Arc<Gpu>,
        width: u32,
        height: u32,
        bit_depth: u32,
        opts: &SsimOptions,
        vk_opts: &VkOptions,
    ) -> Result<Self> {
        let geometry = cpu::check_geometry(width, height, bit_depth, opts)?;
        vk_opts.check()?;
        if geometry.scale > MAX_SCALE {
            return Err(Error::Unsupported(format!(
                "scale {} on the GPU: above {MAX_SCALE} libvmaf's decimation sum is no longer \
                 exact, so vkssim refuses it (the CPU backend scores it)",
                geometry.scale
            )));
        }
        if vk_opts.no_fp64 && !soft_f64_available() {
            return Err(Error::Unsupported(
                "the software fp64 path (no_fp64): its shaders are not built into this \
                 vkssim (glsl/include/soft_f64.glsl is missing); use a device with \
                 shaderFloat64 or the CPU backend"
                    .into(),
            ));
        }
        let pipelines = gpu.tested_pipelines(vk_opts.no_fp64)?;
        let upload = match vk_opts.upload {
            // Direct wherever device memory is host-visible in full: on the
            // H200 (resizable BAR) it measured faster than staging at 1080p
            // and 4K, 8 and 10-bit (BENCHMARKS.md).
            UploadPath::Auto => match gpu.device.info.memory_model() {
                MemoryModel::Unified | MemoryModel::ResizableBar => UploadPath::Direct,
                MemoryModel::Staging => UploadPath::Staging,
            },
            other => other,
        };
        let hw = geometry.scaled_width - 10;
        let hh = geometry.scaled_height - 10;
        let sizes = Sizes {
            geometry,
            hw,
            hh,
            raw_bytes: width as u64 * height as u64 * bytes_per_sample(bit_depth) as u64,
        };
        let k = cpu::lcs_map::SsimConstants::libvmaf();
        let params = Params {
            width,
            height,
            bit_depth,
            scale: geometry.scale,
            sw: geometry.scaled_width,
            sh: geometry.scaled_height,
            tap_bits: cpu::decimate::decimation_tap(geometry.scale).to_bits(),
            c1_bits: k.c1.to_bits(),
            c2_bits: k.c2.to_bits(),
            c3_bits: k.c3.to_bits(),
            enable_lcs: opts.enable_lcs as u32,
            reserved: 0,
        };
        let in_flight = if vk_opts.frames_in_flight == 0 {
            DEFAULT_FRAMES_IN_FLIGHT
        } else {
            vk_opts.frames_in_flight
        };
        let mut this = Self {
            slots: Vec::new(),
            pending: VecDeque::new(),
            filling: VecDeque::new(),
            workers: Workers::new(sum_threads(vk_opts.sum_threads), "sum")?,
            id: NEXT_SCORER_ID.fetch_add(1, Ordering::Relaxed),
            done: VecDeque::new(),
            next_slot: 0,
            next_frame: 0,
            sizes,
            opts: *opts,
            upload,
            params,
            descriptor_pool: vk::DescriptorPool::null(),
            compute_pool: vk::CommandPool::null(),
            transfer_pool: None,
            pipelines,
            last_pass_ns: None,
            stats: HostStats::default(),
            copy_terms: false,
            force_host_sum: vk_opts.force_host_sum,
            gpu,
        };
        // On failure `this` drops and destroys whatever was created.
        this.descriptor_pool =
            pipeline::create_descriptor_pool(&this.gpu, in_flight as u32, "vkssim frame sets")?;
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
        for i in 0..in_flight {
            let slot = this.create_slot(i)?;
            this.slots.push(slot);
            this.record(i)?;
        }
        this.copy_terms = vk_opts.copy_terms.unwrap_or_else(|| {
            !this.slots[0]
                .terms
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
            scale = geometry.scale,
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

    /// GPU time of each pass (`decimate`, `hfilter`, `vfilter`, `terms`) of the
    /// last frame scored, in nanoseconds, when the queue has timestamps.
    pub fn last_pass_ns(&self) -> Option<[f64; PASSES.len()]> {
        self.last_pass_ns
    }

    fn create_slot(&mut self, i: usize) -> Result<Slot> {
        let gpu = &self.gpu;
        let s = &self.sizes;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let staging = self.upload == UploadPath::Staging;
        let raw_usage = if staging {
            storage | vk::BufferUsageFlags::TRANSFER_DST
        } else {
            storage
        };
        let raw_location = if staging {
            MemoryLocation::GpuOnly
        } else {
            MemoryLocation::CpuToGpu
        };
        let work = storage | vk::BufferUsageFlags::TRANSFER_SRC;
        // Buffers are created one by one; on an error the ones made so far are
        // destroyed by `destroy_partial`.
        let mut made: Vec<super::memory::Buffer> = Vec::new();
        let mut make = |name: String, size: u64, usage, loc| -> Result<()> {
            made.push(gpu.create_buffer(&name, size, usage, loc)?);
            Ok(())
        };
        let result = (|| -> Result<()> {
            make(
                format!("vkssim slot {i} raw reference"),
                s.raw_bytes,
                raw_usage,
                raw_location,
            )?;
            make(
                format!("vkssim slot {i} raw distorted"),
                s.raw_bytes,
                raw_usage,
                raw_location,
            )?;
            make(
                format!("vkssim slot {i} decimated planes"),
                2 * s.dec_len() * 4,
                work,
                MemoryLocation::GpuOnly,
            )?;
            make(
                format!("vkssim slot {i} horizontal Gaussian"),
                5 * s.hfilt_len() * 4,
                work,
                MemoryLocation::GpuOnly,
            )?;
            make(
                format!("vkssim slot {i} vertical Gaussian"),
                5 * s.valid_len() * 4,
                work,
                MemoryLocation::GpuOnly,
            )?;
            let planes = if self.opts.enable_lcs { 4 } else { 1 };
            let partials = s.term_groups() * reduce::WORDS_PER_GROUP as u64;
            make(
                format!("vkssim slot {i} per-pixel terms"),
                (planes * s.valid_len() + partials) * 8,
                work,
                MemoryLocation::GpuToCpu,
            )?;
            if staging {
                // Host memory (cached where the device offers it): `CpuToGpu`
                // picks device-local BAR memory on resizable-BAR devices, which
                // would make the staging copy a second trip through the device.
                make(
                    format!("vkssim slot {i} staging"),
                    2 * s.raw_bytes.next_multiple_of(4),
                    vk::BufferUsageFlags::TRANSFER_SRC,
                    MemoryLocation::GpuToCpu,
                )?;
            }
            Ok(())
        })();
        if let Err(e) = result {
            for mut b in made {
                gpu.destroy_buffer(&mut b);
            }
            return Err(e);
        }
        let staging_buf = if staging { made.pop() } else { None };
        let mut it = made.into_iter();
        let (Some(r0), Some(r1), Some(dec), Some(hfilt), Some(vfilt), Some(terms)) = (
            it.next(),
            it.next(),
            it.next(),
            it.next(),
            it.next(),
            it.next(),
        ) else {
            return Err(Error::Vulkan {
                result: vk::Result::ERROR_UNKNOWN,
                context: "internal: slot buffers missing".into(),
            });
        };
        let mut slot = Slot {
            raw: [r0, r1],
            staging: staging_buf,
            dec,
            hfilt,
            vfilt,
            terms,
            set: vk::DescriptorSet::null(),
            cmd: vk::CommandBuffer::null(),
            transfer_cmd: None,
            fence: vk::Fence::null(),
            semaphore: None,
            queries: None,
            frame: 0,
            submitted: None,
            reduction: None,
        };
        let more = (|| -> Result<()> {
            slot.set = pipeline::allocate_set(
                gpu,
                self.descriptor_pool,
                self.pipelines.set_layout,
                [
                    slot.raw[0].raw,
                    slot.raw[1].raw,
                    slot.dec.raw,
                    slot.hfilt.raw,
                    slot.vfilt.raw,
                    slot.terms.raw,
                ],
                &format!("vkssim slot {i} set"),
            )?;
            slot.cmd = commands::allocate_command_buffer(
                gpu,
                self.compute_pool,
                &format!("vkssim slot {i} compute commands"),
            )?;
            if let Some(pool) = self.transfer_pool {
                slot.transfer_cmd = Some(commands::allocate_command_buffer(
                    gpu,
                    pool,
                    &format!("vkssim slot {i} transfer commands"),
                )?);
                slot.semaphore = Some(commands::create_semaphore(
                    gpu,
                    &format!("vkssim slot {i} upload done"),
                )?);
            }
            slot.fence = commands::create_fence(gpu, true, &format!("vkssim slot {i} done"))?;
            if gpu.device.has_timestamps() {
                slot.queries = Some(commands::create_timestamps(
                    gpu,
                    TIMESTAMPS,
                    &format!("vkssim slot {i} timestamps"),
                )?);
            }
            Ok(())
        })();
        if let Err(e) = more {
            destroy_slot(gpu, &mut slot);
            return Err(e);
        }
        Ok(slot)
    }

    /// Records slot `i`'s command buffers once; they are resubmitted per frame.
    fn record(&self, i: usize) -> Result<()> {
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let slot = &self.slots[i];
        let raw_bufs = [slot.raw[0].raw, slot.raw[1].raw];
        let copy = |cmd: vk::CommandBuffer| {
            if let Some(st) = &slot.staging {
                let half = self.sizes.raw_bytes.next_multiple_of(4);
                for (p, dst) in raw_bufs.iter().enumerate() {
                    let region = [vk::BufferCopy::default()
                        .src_offset(p as u64 * half)
                        .dst_offset(0)
                        .size(half.min(slot.raw[p].size))];
                    // SAFETY: `cmd` is recording; both buffers are valid and the
                    // regions lie inside them.
                    unsafe { d.cmd_copy_buffer(cmd, st.raw, *dst, &region) };
                }
            }
        };
        let cmd = slot.cmd;
        if let (Some(tcmd), Some((tfamily, _))) = (slot.transfer_cmd, gpu.device.transfer) {
            commands::begin(gpu, tcmd)?;
            copy(tcmd);
            commands::ownership_barrier(
                gpu,
                tcmd,
                &raw_bufs,
                (tfamily, gpu.device.compute_family),
                true,
            );
            commands::end(gpu, tcmd)?;
            commands::begin(gpu, cmd)?;
            commands::ownership_barrier(
                gpu,
                cmd,
                &raw_bufs,
                (tfamily, gpu.device.compute_family),
                false,
            );
        } else {
            commands::begin(gpu, cmd)?;
            if slot.staging.is_some() {
                copy(cmd);
                commands::transfer_to_compute(gpu, cmd);
            }
        }
        let p = &self.params;
        let s = &self.sizes;
        let dims = [
            (p.sw, p.sh, 2),
            (s.hw, p.sh, 1),
            (s.hw, s.hh, 1),
            (s.hw, s.hh, 1),
        ];
        // SAFETY: `cmd` is recording on the compute family; the pipelines, layout,
        // set and query pool are valid and outlive the command buffer; push
        // constants match the layout's range.
        unsafe {
            if let Some(q) = slot.queries {
                d.cmd_reset_query_pool(cmd, q, 0, TIMESTAMPS);
                d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, q, 0);
            }
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.pipelines.layout,
                0,
                &[slot.set],
                &[],
            );
            d.cmd_push_constants(
                cmd,
                self.pipelines.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                bytemuck::bytes_of(p),
            );
        }
        for (k, (name, (x, y, z))) in PASSES.iter().zip(dims).enumerate() {
            let pass = self.pipelines.pass(name)?;
            if k > 0 {
                commands::compute_to_compute(gpu, cmd);
            }
            // SAFETY: as above.
            unsafe {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pass.raw);
                d.cmd_dispatch(
                    cmd,
                    groups(x, pass.local_size[0]),
                    groups(y, pass.local_size[1]),
                    groups(z, pass.local_size[2]),
                );
                if let Some(q) = slot.queries {
                    d.cmd_write_timestamp(
                        cmd,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        q,
                        k as u32 + 1,
                    );
                }
            }
        }
        commands::compute_to_host(gpu, cmd);
        commands::end(gpu, cmd)
    }

    /// Copies the pair into slot `i` and submits its commands.
    fn start(&mut self, i: usize, reference: &LumaFrame, distorted: &LumaFrame) -> Result<()> {
        self.copy_in(i, reference, distorted)?;
        self.launch(i)
    }

    /// Copies the pair into slot `i`'s upload memory.
    fn copy_in(&mut self, i: usize, reference: &LumaFrame, distorted: &LumaFrame) -> Result<()> {
        let span = tracing::debug_span!("frame", index = self.next_frame);
        let _enter = span.enter();
        self.check_frame(reference, "reference")?;
        self.check_frame(distorted, "distorted")?;
        {
            let _upload = tracing::debug_span!("upload").entered();
            let n = self.sizes.raw_bytes as usize;
            let half = self.sizes.raw_bytes.next_multiple_of(4) as usize;
            let slot = &mut self.slots[i];
            if let Some(st) = slot.staging.as_mut() {
                let m = st.mapped_mut().ok_or_else(not_mapped)?;
                let (a, b) = m.split_at_mut(half);
                parallel_copy(vec![
                    (&mut a[..n], &reference.bytes[..n]),
                    (&mut b[..n], &distorted.bytes[..n]),
                ]);
            } else {
                let [r0, r1] = &mut slot.raw;
                let a = r0.mapped_mut().ok_or_else(not_mapped)?;
                let b = r1.mapped_mut().ok_or_else(not_mapped)?;
                parallel_copy(vec![
                    (&mut a[..n], &reference.bytes[..n]),
                    (&mut b[..n], &distorted.bytes[..n]),
                ]);
            }
        }
        Ok(())
    }

    /// Submits slot `i`, whose upload memory holds the next pair.
    fn launch(&mut self, i: usize) -> Result<()> {
        let t = Instant::now();
        let r = self.launch_inner(i);
        self.stats.submit_ns += t.elapsed().as_nanos() as u64;
        r
    }

    fn launch_inner(&mut self, i: usize) -> Result<()> {
        let frame = self.next_frame;
        let span = tracing::debug_span!("frame", index = frame);
        let _enter = span.enter();
        let _submit = tracing::debug_span!("submit").entered();
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let slot = &mut self.slots[i];
        // SAFETY: the fence is not in use (the slot's last submission was waited
        // on before it was handed out again).
        unsafe { d.reset_fences(&[slot.fence]) }
            .map_err(|r| vk_error(r, "resetting a frame fence"))?;
        let cmds = [slot.cmd];
        let submitted = if let (Some(tcmd), Some(sem), Some((_, tqueue))) =
            (slot.transfer_cmd, slot.semaphore, gpu.device.transfer)
        {
            let tcmds = [tcmd];
            let sems = [sem];
            let t_submit = [vk::SubmitInfo::default()
                .command_buffers(&tcmds)
                .signal_semaphores(&sems)];
            let stages = [vk::PipelineStageFlags::COMPUTE_SHADER];
            let c_submit = [vk::SubmitInfo::default()
                .wait_semaphores(&sems)
                .wait_dst_stage_mask(&stages)
                .command_buffers(&cmds)];
            // SAFETY: both command buffers are executable and not pending; the
            // semaphore is unsignalled (its last signal was waited on by the
            // compute submission whose fence we waited for).
            gpu.submit(tqueue, &t_submit, vk::Fence::null())
                .and_then(|_| gpu.submit(gpu.device.compute_queue, &c_submit, slot.fence))
        } else {
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            gpu.submit(gpu.device.compute_queue, &submit, slot.fence)
        };
        submitted.map_err(|r| vk_error(r, format!("submitting frame {frame}")))?;
        slot.frame = frame;
        slot.submitted = Some(Instant::now());
        self.next_frame += 1;
        Ok(())
    }

    fn check_frame(&self, f: &LumaFrame, which: &str) -> Result<()> {
        let g = &self.sizes.geometry;
        if (f.width, f.height, f.bit_depth) != (g.width, g.height, g.bit_depth) {
            return Err(Error::GeometryMismatch(format!(
                "frame {}: the {which} is {}x{} {}-bit but this scorer was built for {}x{} {}-bit",
                self.next_frame, f.width, f.height, f.bit_depth, g.width, g.height, g.bit_depth
            )));
        }
        if (f.bytes.len() as u64) < self.sizes.raw_bytes {
            return Err(Error::BufferSize {
                what: format!("frame {} {which} luma plane", self.next_frame),
                needed: self.sizes.raw_bytes as usize,
                actual: f.bytes.len(),
            });
        }
        Ok(())
    }

    /// Waits for slot `i`'s fence.
    fn wait(&self, i: usize) -> Result<()> {
        let slot = &self.slots[i];
        let _wait = tracing::debug_span!("wait", index = slot.frame).entered();
        // SAFETY: the fence belongs to this device.
        unsafe {
            self.gpu
                .device
                .raw
                .wait_for_fences(&[slot.fence], true, u64::MAX)
        }
        .map_err(|r| vk_error(r, format!("waiting for frame {}", slot.frame)))
    }

    /// Whether slot `i`'s work has finished.
    fn is_ready(&self, i: usize) -> Result<bool> {
        // SAFETY: the fence belongs to this device.
        unsafe { self.gpu.device.raw.get_fence_status(self.slots[i].fence) }
            .map_err(|r| vk_error(r, format!("polling frame {}", self.slots[i].frame)))
    }

    /// The score of slot `i`, whose fence has signalled: the raster-order fp64
    /// sums of its terms, then the CPU twin's means and dB.
    fn score(&mut self, i: usize) -> Result<FrameScore> {
        self.read_timestamps(i);
        let slot = &self.slots[i];
        let bytes = slot.terms.mapped().ok_or_else(not_mapped)?;
        if let Some(t) = slot.submitted {
            tracing::debug!(
                frame = slot.frame,
                latency_us = t.elapsed().as_micros() as u64,
                "frame scored"
            );
        }
        let (score, fell_back) =
            score_terms(bytes, &self.sizes, &self.opts, self.force_host_sum, false);
        self.stats.host_sum_fallbacks += fell_back as u64;
        Ok(score)
    }

    /// Slot `i`'s fence signalled: reads its timestamps and hands the sum of its
    /// terms to a worker thread; the result is received by `finish_oldest`.
    /// (Handing slots over before their fence signalled, with the worker
    /// waiting on it, measured slower on the H200: see BENCHMARKS.md.)
    fn dispatch(&mut self, i: usize) -> Result<()> {
        self.read_timestamps(i);
        let (sizes, opts, copy, force) =
            (self.sizes, self.opts, self.copy_terms, self.force_host_sum);
        let slot = &mut self.slots[i];
        let bytes = slot.terms.mapped().ok_or_else(not_mapped)?;
        let terms = SendConst(bytes.as_ptr(), bytes.len());
        let (tx, rx) = sync_channel(1);
        self.workers.run(move || {
            let terms = terms;
            // SAFETY: the slot's terms buffer stays mapped and unwritten until
            // this result is received: the slot is not resubmitted and not
            // destroyed before (`finish_oldest` and `Drop` receive it first),
            // and the GPU finished writing it (its fence signalled).
            let bytes = unsafe { std::slice::from_raw_parts(terms.0, terms.1) };
            let _ = tx.send(Ok(score_terms(bytes, &sizes, &opts, force, copy)));
        })?;
        slot.reduction = Some(rx);
        Ok(())
    }

    /// Hands every pending slot whose fence has signalled, oldest first, to the
    /// workers (without blocking), so sums run while the caller reads and
    /// submits.
    fn dispatch_ready(&mut self) {
        for k in 0..self.pending.len() {
            let i = self.pending[k];
            if self.slots[i].reduction.is_some() {
                continue;
            }
            if !matches!(self.is_ready(i), Ok(true)) || self.dispatch(i).is_err() {
                // Errors surface when `finish_oldest` reaches this slot.
                return;
            }
        }
    }

    fn read_timestamps(&mut self, i: usize) {
        let Some(q) = self.slots[i].queries else {
            return;
        };
        let mut ticks = [0u64; TIMESTAMPS as usize];
        // SAFETY: the slot's fence signalled, so every query was written.
        let ok = unsafe {
            self.gpu.device.raw.get_query_pool_results(
                q,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64,
            )
        }
        .is_ok();
        if !ok {
            return;
        }
        let period = self.gpu.device.timestamp_period() as f64;
        let mut ns = [0f64; PASSES.len()];
        for k in 0..PASSES.len() {
            ns[k] = ticks[k + 1].wrapping_sub(ticks[k]) as f64 * period;
        }
        self.last_pass_ns = Some(ns);
        let (first, last) = (ticks[0], ticks[PASSES.len()]);
        let st = &mut self.stats;
        st.gpu_busy_ns += last.wrapping_sub(first) as f64 * period;
        st.gpu_frames += 1;
        st.gpu_first_tick = Some(st.gpu_first_tick.map_or(first, |t| t.min(first)));
        st.gpu_last_tick = Some(st.gpu_last_tick.map_or(last, |t| t.max(last)));
        st.tick_ns = period;
        tracing::debug!(
            frame = self.slots[i].frame,
            decimate_us = ns[0] / 1e3,
            hfilter_us = ns[1] / 1e3,
            vfilter_us = ns[2] / 1e3,
            terms_us = ns[3] / 1e3,
            "GPU pass times"
        );
    }

    /// Finishes the oldest pending frame into `done` (waiting for its fence and
    /// for its sum).
    fn finish_oldest(&mut self) {
        let Some(i) = self.pending.pop_front() else {
            return;
        };
        if self.slots[i].reduction.is_none() {
            let t = Instant::now();
            let waited = self.wait(i);
            self.stats.fence_wait_ns += t.elapsed().as_nanos() as u64;
            if let Err(e) = waited.and_then(|_| self.dispatch(i)) {
                self.done.push_back(Err(e));
                return;
            }
        }
        let t = Instant::now();
        let received = self.slots[i].reduction.take().map(|rx| rx.recv());
        self.stats.sum_wait_ns += t.elapsed().as_nanos() as u64;
        let r = match received {
            Some(Ok(Ok((score, fell_back)))) => {
                self.stats.host_sum_fallbacks += fell_back as u64;
                Ok(score)
            }
            Some(Ok(Err(e))) => Err(e),
            _ => Err(Error::Internal(format!(
                "frame {}: the thread summing its terms stopped",
                self.slots[i].frame
            ))),
        };
        if let (Ok(_), Some(t)) = (&r, self.slots[i].submitted) {
            tracing::debug!(
                frame = self.slots[i].frame,
                latency_us = t.elapsed().as_micros() as u64,
                "frame scored"
            );
        }
        self.done.push_back(r);
    }

    /// Hands out the next ring slot for the caller to fill with one pair's raw
    /// samples (from any thread), without copying through a [`LumaFrame`]: e.g.
    /// a reader writes the files' luma straight into the mapped memory. Give it
    /// back with [`VkScorer::submit_slot`], in the order the slots were handed
    /// out. When every slot is busy this waits for the oldest submitted frame
    /// (its result is queued for `poll_next`/`wait_next`); when every slot is
    /// handed out it is an error.
    pub fn acquire_slot(&mut self) -> Result<UploadSlot> {
        if self.filling.len() == self.slots.len() {
            return Err(Error::InvalidOption(format!(
                "all {} upload slots are handed out; submit one before taking another",
                self.slots.len()
            )));
        }
        if self.pending.len() + self.filling.len() == self.slots.len() {
            self.finish_oldest();
        }
        let i = self.next_slot;
        let half = self.sizes.raw_bytes.next_multiple_of(4) as usize;
        let len = self.sizes.raw_bytes as usize;
        let slot = &mut self.slots[i];
        let planes = if let Some(st) = slot.staging.as_mut() {
            let m = st.mapped_mut().ok_or_else(not_mapped)?;
            let (a, b) = m.split_at_mut(half);
            [a.as_mut_ptr(), b.as_mut_ptr()]
        } else {
            let [r0, r1] = &mut slot.raw;
            let a = r0.mapped_mut().ok_or_else(not_mapped)?;
            let b = r1.mapped_mut().ok_or_else(not_mapped)?;
            [a.as_mut_ptr(), b.as_mut_ptr()]
        };
        self.next_slot = (self.next_slot + 1) % self.slots.len();
        self.filling.push_back(i);
        Ok(UploadSlot {
            scorer: self.id,
            slot: i,
            planes,
            len,
        })
    }

    /// Submits a slot filled by the caller (see [`VkScorer::acquire_slot`]); it
    /// is scored as the next frame. Slots must come back in the order they were
    /// handed out.
    pub fn submit_slot(&mut self, slot: UploadSlot) -> Result<()> {
        if slot.scorer != self.id || self.filling.front() != Some(&slot.slot) {
            return Err(Error::InvalidOption(format!(
                "upload slot {} given back out of order or to another scorer",
                slot.slot
            )));
        }
        self.filling.pop_front();
        let i = slot.slot;
        self.launch(i)?;
        self.pending.push_back(i);
        self.dispatch_ready();
        Ok(())
    }

    /// Gives back a slot without scoring it (e.g. its read failed): it and every
    /// slot handed out after it return to the ring unused.
    pub fn abandon_slot(&mut self, slot: UploadSlot) {
        if slot.scorer != self.id {
            return;
        }
        if let Some(k) = self.filling.iter().position(|&i| i == slot.slot) {
            let n = self.slots.len();
            let dropped = self.filling.len() - k;
            self.filling.truncate(k);
            self.next_slot = (self.next_slot + n - dropped % n) % n;
        }
    }

    /// Whether the memory [`UploadSlot::planes_mut`] hands out is host-cached
    /// (reading it back is then cheap; otherwise it is typically write-combined
    /// device memory behind the BAR, where every read crosses the bus).
    pub fn upload_is_host_cached(&self) -> bool {
        let slot = &self.slots[0];
        let buf = slot.staging.as_ref().unwrap_or(&slot.raw[0]);
        buf.memory_properties()
            .contains(vk::MemoryPropertyFlags::HOST_CACHED)
    }

    /// Host threads summing frames' terms.
    pub fn sum_threads(&self) -> usize {
        self.workers.len()
    }

    /// Bits per sample of the frames this scorer takes.
    pub fn bit_depth(&self) -> u32 {
        self.sizes.geometry.bit_depth
    }

    /// Where time went since the last [`VkScorer::reset_stats`].
    pub fn stats(&self) -> HostStats {
        self.stats
    }

    /// Always sum the terms on the host in raster order (`true`), or use the
    /// device's fixed-point sums where they settle a frame (`false`, the
    /// default unless [`VkOptions::force_host_sum`]). Applies to frames scored
    /// after the call.
    pub fn set_force_host_sum(&mut self, on: bool) {
        self.force_host_sum = on;
    }

    /// Starts the [`HostStats`] afresh.
    pub fn reset_stats(&mut self) {
        self.stats = HostStats::default();
    }

    /// The device's driver (name and version, as the driver reports them).
    pub fn driver(&self) -> &str {
        &self.gpu.device.info.driver
    }

    /// Slots a caller may hold at once (the ring's size).
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Bytes uploaded per frame pair (the raw samples of both planes).
    pub fn bytes_per_frame(&self) -> u64 {
        2 * self.sizes.raw_bytes
    }

    /// Where the raw samples are written, in words: the memory type the host
    /// writes (device-local through the BAR, host memory) and the copy after it.
    pub fn memory_path(&self) -> String {
        let slot = &self.slots[0];
        let describe = |f: vk::MemoryPropertyFlags| {
            let mut parts = Vec::new();
            if f.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL) {
                parts.push("device-local");
            }
            if f.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) {
                parts.push("host-visible");
            }
            if f.contains(vk::MemoryPropertyFlags::HOST_CACHED) {
                parts.push("host-cached");
            }
            parts.join(" ")
        };
        let terms = format!(
            "; terms read back from {} memory{}",
            describe(slot.terms.memory_properties()),
            if self.copy_terms {
                " (copied out before summing)"
            } else {
                ""
            }
        );
        let path = match &slot.staging {
            Some(st) => format!(
                "staging: host writes {} memory, then a copy to device-local memory on the {} queue",
                describe(st.memory_properties()),
                if slot.transfer_cmd.is_some() {
                    "transfer-only"
                } else {
                    "compute"
                }
            ),
            None => format!(
                "direct: host writes {} memory read by the shaders",
                describe(slot.raw[0].memory_properties())
            ),
        };
        path + &terms
    }

    /// Scores one pair synchronously and copies back every pass's output, for
    /// pass-by-pass comparison with the CPU twin. Frames already submitted are
    /// finished first (their results stay queued).
    pub fn debug_frame(
        &mut self,
        reference: &LumaFrame,
        distorted: &LumaFrame,
    ) -> Result<DebugFrame> {
        if !self.filling.is_empty() {
            return Err(Error::InvalidOption(
                "debug_frame while upload slots are handed out".into(),
            ));
        }
        while !self.pending.is_empty() {
            self.finish_oldest();
        }
        let i = self.next_slot;
        self.next_slot = (self.next_slot + 1) % self.slots.len();
        self.start(i, reference, distorted)?;
        self.wait(i)?;
        let score = self.score(i)?;
        let s = self.sizes;
        let slot = &self.slots[i];
        let dec = self.read_back(&slot.dec)?;
        let hf = self.read_back(&slot.hfilt)?;
        let vf = self.read_back(&slot.vfilt)?;
        let terms = self.read_back(&slot.terms)?;
        let f32s = |b: &[u8], k: usize, len: u64| -> Vec<f32> {
            let len = len as usize;
            b[k * len * 4..(k + 1) * len * 4]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let f64s = |k: usize| -> Vec<f64> {
            let len = s.valid_len() as usize;
            terms[k * len * 8..(k + 1) * len * 8]
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect()
        };
        Ok(DebugFrame {
            decimated_ref: f32s(&dec, 0, s.dec_len()),
            decimated_dist: f32s(&dec, 1, s.dec_len()),
            hfilter: std::array::from_fn(|k| f32s(&hf, k, s.hfilt_len())),
            vfilter: std::array::from_fn(|k| f32s(&vf, k, s.valid_len())),
            ssim_terms: f64s(0),
            lcs_terms: self.opts.enable_lcs.then(|| [f64s(1), f64s(2), f64s(3)]),
            score,
        })
    }

    /// Copies a slot's device buffer into host memory (waits for the copy), on
    /// the compute queue, after the slot's work.
    fn read_back(&self, src: &super::memory::Buffer) -> Result<Vec<u8>> {
        let gpu = &self.gpu;
        let mut dst = gpu.create_buffer(
            &format!("{} read-back", src.name),
            src.size,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let result = (|| -> Result<Vec<u8>> {
            let cmd =
                commands::allocate_command_buffer(gpu, self.compute_pool, "vkssim read-back")?;
            let run = (|| -> Result<()> {
                commands::begin(gpu, cmd)?;
                commands::barrier(
                    gpu,
                    cmd,
                    (
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::AccessFlags::SHADER_WRITE,
                    ),
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_READ,
                    ),
                );
                let region = [vk::BufferCopy::default().size(src.size)];
                // SAFETY: `cmd` is recording; both buffers hold `src.size` bytes.
                unsafe {
                    gpu.device
                        .raw
                        .cmd_copy_buffer(cmd, src.raw, dst.raw, &region)
                };
                commands::barrier(
                    gpu,
                    cmd,
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_WRITE,
                    ),
                    (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
                );
                commands::end(gpu, cmd)?;
                commands::submit_and_wait(
                    gpu,
                    gpu.device.compute_queue,
                    cmd,
                    "reading back a buffer",
                )
            })();
            // SAFETY: the command buffer finished (or never ran).
            unsafe {
                gpu.device
                    .raw
                    .free_command_buffers(self.compute_pool, &[cmd])
            };
            run?;
            Ok(dst.mapped().ok_or_else(not_mapped)?.to_vec())
        })();
        gpu.destroy_buffer(&mut dst);
        result
    }
}

/// Bytes one copy thread takes at least.
const COPY_CHUNK: usize = 1 << 20;

/// Copies each source into its destination (same lengths), spread over up to 8
/// threads from 8 MiB on: one thread copies only about 9 GB/s (hardware.md),
/// and a 4K 8-bit pair is 16.6 MB (on the H200 this took a 4K frame from 2.7 to
/// 1.9 ms in `vkssim bench`).
fn parallel_copy(pairs: Vec<(&mut [u8], &[u8])>) {
    let total: usize = pairs.iter().map(|(_, s)| s.len()).sum();
    // Below 8 MiB (a 1080p 8-bit pair is 4 MB) thread start-up costs more than
    // it saves (measured on the H200).
    let threads = if total < 8 * COPY_CHUNK {
        1
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(8)
            .min(total / (2 * COPY_CHUNK))
            .max(1)
    };
    if threads == 1 {
        for (d, s) in pairs {
            d.copy_from_slice(s);
        }
        return;
    }
    let per_thread = total.div_ceil(threads).next_multiple_of(4096);
    let mut chunks: Vec<(&mut [u8], &[u8])> = Vec::new();
    for (d, s) in pairs {
        chunks.extend(d.chunks_mut(per_thread).zip(s.chunks(per_thread)));
    }
    std::thread::scope(|scope| {
        for (d, s) in chunks {
            scope.spawn(move || d.copy_from_slice(s));
        }
    });
}

/// A read-only pointer and length that may cross threads (see
/// [`VkScorer::dispatch`] for why the memory stays valid).
struct SendConst(*const u8, usize);

// SAFETY: only used for a mapped buffer that nothing writes or frees while the
// receiving thread reads it (see `VkScorer::dispatch`).
unsafe impl Send for SendConst {}

/// A frame's score from its per-pixel terms (binary64, little-endian; the ssim
/// plane, then l, c and s with `enable_lcs`, then the workgroups' fixed-point
/// partial sums): the means of libvmaf's raster-order fp64 sums (exactness.md
/// §5), from the partial sums where they settle them ([`reduce::decide`]),
/// else (or always with `force_host`) from the host's own sum; then the CPU
/// twin's dB. Also whether the host had to sum. With `copy` the host copies the
/// term planes out of mapped memory in one block before summing them.
fn score_terms(
    bytes: &[u8],
    sizes: &Sizes,
    opts: &SsimOptions,
    force_host: bool,
    copy: bool,
) -> (FrameScore, bool) {
    let n = sizes.valid_len() as usize;
    let word = |at: usize| -> u64 {
        let c = &bytes[at * 8..at * 8 + 8];
        u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
    };
    let plane_sum = |bytes: &[u8], k: usize| -> f64 {
        let mut sum = 0.0f64;
        for c in bytes[k * n * 8..(k + 1) * n * 8].chunks_exact(8) {
            sum += f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        }
        sum
    };
    let planes = if opts.enable_lcs { 4 } else { 1 };
    let fast = (!force_host)
        .then(|| {
            let base = planes * n;
            let mut fixed = [reduce::FixedSum {
                n: n as u64,
                ..Default::default()
            }; reduce::METRICS];
            let mut bad = 0u64;
            for g in 0..sizes.term_groups() as usize {
                let at = base + g * reduce::WORDS_PER_GROUP;
                for (k, f) in fixed.iter_mut().enumerate() {
                    f.sum += word(at + k) as i64 as i128;
                    f.abs_sum += word(at + reduce::METRICS + k) as i64 as i128;
                }
                bad += word(at + 2 * reduce::METRICS);
            }
            if bad != 0 {
                return None;
            }
            let mut means = FrameMeans {
                ssim: reduce::decide(&fixed[0])?,
                l: 0.0,
                c: 0.0,
                s: 0.0,
            };
            if opts.enable_lcs {
                means.l = reduce::decide(&fixed[1])?;
                means.c = reduce::decide(&fixed[2])?;
                means.s = reduce::decide(&fixed[3])?;
            }
            Some(means)
        })
        .flatten();
    let fell_back = fast.is_none();
    let means = fast.unwrap_or_else(|| {
        let local;
        let bytes = if copy {
            local = bytes[..planes * n * 8].to_vec();
            &local[..]
        } else {
            bytes
        };
        let mut sums = TermSums {
            ssim: plane_sum(bytes, 0),
            ..TermSums::default()
        };
        if opts.enable_lcs {
            sums.l = plane_sum(bytes, 1);
            sums.c = plane_sum(bytes, 2);
            sums.s = plane_sum(bytes, 3);
        }
        sums.means(sizes.hw, sizes.hh)
    });
    (cpu::frame_score(&means, &sizes.geometry, opts), fell_back)
}

fn not_mapped() -> Error {
    Error::Vulkan {
        result: vk::Result::ERROR_MEMORY_MAP_FAILED,
        context: "a host-visible buffer has no mapping".into(),
    }
}

fn destroy_slot(gpu: &Gpu, slot: &mut Slot) {
    let d = &gpu.device.raw;
    // SAFETY: the device is idle (the caller waited) and every handle is
    // destroyed once; command buffers and sets go with their pools.
    unsafe {
        if let Some(q) = slot.queries.take() {
            d.destroy_query_pool(q, None);
        }
        if slot.fence != vk::Fence::null() {
            d.destroy_fence(slot.fence, None);
            slot.fence = vk::Fence::null();
        }
        if let Some(s) = slot.semaphore.take() {
            d.destroy_semaphore(s, None);
        }
    }
    if let Some(mut b) = slot.staging.take() {
        gpu.destroy_buffer(&mut b);
    }
    for b in [
        &mut slot.terms,
        &mut slot.vfilt,
        &mut slot.hfilt,
        &mut slot.dec,
    ] {
        gpu.destroy_buffer(b);
    }
    for b in slot.raw.iter_mut().rev() {
        gpu.destroy_buffer(b);
    }
}

impl Drop for VkScorer {
    fn drop(&mut self) {
        // Sums in progress read the terms buffers: let them finish first.
        for slot in &mut self.slots {
            if let Some(rx) = slot.reduction.take() {
                let _ = rx.recv();
            }
        }
        // The device is shared: wait for this scorer's own work only (every
        // fence is signalled at creation, so unsubmitted slots pass at once).
        let fences: Vec<vk::Fence> = self
            .slots
            .iter()
            .map(|s| s.fence)
            .filter(|f| *f != vk::Fence::null())
            .collect();
        if !fences.is_empty() {
            // SAFETY: the fences belong to this device.
            let _ = unsafe { self.gpu.device.raw.wait_for_fences(&fences, true, u64::MAX) };
        }
        let gpu = &self.gpu;
        for slot in self.slots.iter_mut().rev() {
            destroy_slot(gpu, slot);
        }
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

impl FrameScorer for VkScorer {
    fn submit(&mut self, reference: LumaFrame, distorted: LumaFrame) -> Result<()> {
        self.check_frame(&reference, "reference")?;
        self.check_frame(&distorted, "distorted")?;
        let slot = self.acquire_slot()?;
        if let Err(e) = self.copy_in(slot.slot, &reference, &distorted) {
            self.abandon_slot(slot);
            return Err(e);
        }
        self.submit_slot(slot)
    }

    fn poll_next(&mut self) -> Option<Result<FrameScore>> {
        if let Some(r) = self.done.pop_front() {
            return Some(r);
        }
        self.dispatch_ready();
        let &i = self.pending.front()?;
        let ready = match &self.slots[i].reduction {
            Some(rx) => match rx.try_recv() {
                Ok(r) => Some(r),
                Err(std::sync::mpsc::TryRecvError::Empty) => return None,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
            },
            None => match self.is_ready(i) {
                Ok(false) => return None,
                Ok(true) => None,
                Err(e) => {
                    self.pending.pop_front();
                    return Some(Err(e));
                }
            },
        };
        match ready {
            Some(r) => {
                self.slots[i].reduction = None;
                self.pending.pop_front();
                Some(r.map(|(score, fell_back)| {
                    self.stats.host_sum_fallbacks += fell_back as u64;
                    score
                }))
            }
            None => {
                self.finish_oldest();
                self.done.pop_front()
            }
        }
    }

    fn wait_next(&mut self) -> Option<Result<FrameScore>> {
        if self.done.is_empty() {
            self.finish_oldest();
        }
        self.done.pop_front()
    }

    fn in_flight(&self) -> usize {
        self.pending.len() + self.done.len()
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn queue_depth(&self) -> usize {
        self.slots.len()
    }
}
