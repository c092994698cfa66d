//! The metrics a [`VkScorer`] computes beside float_ssim, in the same slot,
//! upload and command buffer: libvmaf's `psnr` and `float_ms_ssim`
//! (docs/metrics.md).
//!
//! - `psnr`: `glsl/psnr.comp` sums each row's squared errors of luma and (when
//!   psnr reads chroma) the Cb and Cr planes, which then travel in the slot's
//!   upload buffers after the luma plane ([`PictureLayout`]); the host adds the
//!   rows in uint64 and finishes with [`crate::metric::psnr::frame_outputs`].
//! - `float_ms_ssim`: scale 0 is float_ssim's decimate pass specialized to
//!   scale 1 (the samples converted, no decimation); scales 1 to 4 are
//!   `glsl/lowpass.comp`, each from the one before; on every scale float_ssim's
//!   own hfilter and terms passes run (with `enable_lcs`), pointed at that
//!   scale's planes by a descriptor set of their own and its sizes in the push
//!   constants. Each scale's l, c and s means come from the terms pass's
//!   fixed-point partial sums where they settle them ([`crate::vk::reduce`]),
//!   else from that scale's terms copied back and summed on the host in raster
//!   order; [`crate::metric::ms_ssim::frame_outputs`] combines them.
//!
//! A scorer made with [`VkScorer::with_metrics`] queues one [`MetricOutputs`]
//! per frame scored without error, in the order the frames' [`FrameScore`]s
//! come out ([`VkScorer::take_metric_outputs`]).

use std::collections::VecDeque;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::host_sum::{fixed_sums, plane_sum};
use super::slots::Slot;
use super::{not_mapped, VkScorer};
use crate::cpu::{FrameMeans, Plane, TermSums};
use crate::frame::bytes_per_sample;
use crate::io::Chroma;
use crate::metric::ms_ssim::{self, MsSsimOptions, SCALES};
use crate::metric::psnr::{self, PsnrGeometry, PsnrOptions};
use crate::metric::{ssim, MetricConfig, MetricOutputs};
use crate::vk::commands;
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{self, FrameExtents, FramePass, LowpassParams, Params, PsnrParams};
use crate::vk::pipeline::{Pipelines, Spec, BINDINGS, PASSES};
use crate::vk::reduce;
use crate::vk::shaders::ShaderName;
use crate::{Error, FrameScore, Result};

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

/// `psnr` on the device.
struct PsnrPlan {
    opts: PsnrOptions,
    geometry: PsnrGeometry,
    params: PsnrParams,
    pipeline: vk::Pipeline,
}

/// `float_ms_ssim` on the device.
struct MsPlan {
    opts: MsSsimOptions,
    /// Each scale's plane size.
    sizes: [(u32, u32); SCALES],
    /// float_ssim's passes specialized to scale 1 with `enable_lcs`, in
    /// [`FramePass::ALL`] order.
    passes: Vec<vk::Pipeline>,
    lowpass: vk::Pipeline,
    /// Each scale's push constants for those passes.
    params: [Params; SCALES],
}

impl MsPlan {
    fn extents(&self, k: usize) -> FrameExtents {
        let (w, h) = self.sizes[k];
        FrameExtents {
            sw: w,
            sh: h,
            hw: w - 10,
            hh: h - 10,
        }
    }

    fn valid_len(&self, k: usize) -> u64 {
        let e = self.extents(k);
        e.hw as u64 * e.hh as u64
    }

    fn groups(&self, k: usize) -> u64 {
        let [x, y, z] = FramePass::Terms.groups(&self.extents(k));
        x as u64 * y as u64 * z as u64
    }
}

/// The metric list of a scorer and what the device needs for it.
pub(super) struct MetricPlan {
    /// The metrics asked for, in order (float_ssim's outputs come from the
    /// scorer's own passes).
    pub(super) list: Vec<MetricConfig>,
    psnr: Option<PsnrPlan>,
    ms: Option<MsPlan>,
    /// Outputs of frames scored and not yet taken, oldest first.
    pub(super) done: VecDeque<MetricOutputs>,
}

impl MetricPlan {
    /// Checks `list` for frames of this format (each metric once, each
    /// metric's own checks) and builds the pipelines it needs; also says
    /// where a picture's planes lie in the upload memory.
    #[allow(clippy::too_many_arguments)] // The frame format, the list and the device.
    pub(super) fn new(
        gpu: &Gpu,
        pipelines: &Pipelines,
        (width, height, bit_depth): (u32, u32, u32),
        chroma: Chroma,
        list: &[MetricConfig],
        subgroups: bool,
        ssim_params: &Params,
    ) -> Result<(Self, PictureLayout)> {
        let bps = bytes_per_sample(bit_depth) as u64;
        let mut layout = PictureLayout {
            luma_bytes: width as u64 * height as u64 * bps,
            chroma: None,
            bps,
        };
        let mut plan = MetricPlan {
            list: list.to_vec(),
            psnr: None,
            ms: None,
            done: VecDeque::new(),
        };
        for m in list {
            if !m.needs().vulkan {
                return Err(Error::Unsupported(format!(
                    "{} on Vulkan (it has no Vulkan passes yet: the CPU twin computes it)",
                    m.feature()
                )));
            }
            match m {
                MetricConfig::FloatSsim(_) => {}
                MetricConfig::Psnr(opts) => {
                    let g = psnr::check_geometry(width, height, bit_depth, chroma, opts)?;
                    let stored = chroma.plane_size(width, height);
                    let mut params = PsnrParams::default();
                    for p in 0..g.planes.min(2) {
                        let (w, h) = g.plane_sizes[p];
                        let (sw, sh) = if p == 0 { (width, height) } else { stored };
                        params.stride[p] = sw;
                        params.rows[p] = sh;
                        params.width[p] = w;
                        params.height[p] = h;
                    }
                    if g.planes > 1 {
                        layout.chroma = Some(stored);
                    }
                    let spec = Spec::new(bit_depth, 1, false);
                    plan.psnr = Some(PsnrPlan {
                        opts: *opts,
                        geometry: g,
                        params,
                        pipeline: pipelines.metric_pass(gpu, ShaderName::Psnr, Some(spec))?,
                    });
                }
                MetricConfig::FloatMsSsim(opts) => {
                    ms_ssim::check_size(width, height, bit_depth)?;
                    let sizes = ms_ssim::scale_sizes(width, height);
                    let params = std::array::from_fn(|k| Params {
                        scale: 1,
                        sw: sizes[k].0,
                        sh: sizes[k].1,
                        tap_bits: 1.0f32.to_bits(),
                        enable_lcs: 1,
                        debug_writes: 0,
                        ..*ssim_params
                    });
                    plan.ms = Some(MsPlan {
                        opts: *opts,
                        sizes,
                        passes: pipelines.frame_passes(
                            gpu,
                            Spec::new(bit_depth, 1, true),
                            subgroups,
                        )?,
                        lowpass: pipelines.metric_pass(gpu, ShaderName::Lowpass, None)?,
                        params,
                    });
                }
                // Refused above: no Vulkan passes.
                _ => {}
            }
        }
        Ok((plan, layout))
    }

    /// The chroma planes' scored size (libvmaf's truncated picture size),
    /// when psnr reads chroma.
    pub(super) fn scored_chroma(&self) -> Option<(u32, u32)> {
        let p = self.psnr.as_ref()?;
        (p.geometry.planes > 1).then_some(p.geometry.plane_sizes[1])
    }

    /// Descriptor sets each slot needs besides its own.
    pub(super) fn sets_per_slot(&self) -> u32 {
        self.psnr.is_some() as u32
            + if self.ms.is_some() {
                2 * SCALES as u32 - 1
            } else {
                0
            }
    }
}

/// A slot's buffers and descriptor sets for the metrics of its scorer's
/// [`MetricPlan`].
#[derive(Default)]
pub(super) struct MetricSlot {
    /// psnr: each row's sum of squared errors, `3 x height` uint64, then
    /// each row's range record, `2 x 3 x height` uint64, host-visible.
    psnr_rows: Option<Buffer>,
    psnr_set: vk::DescriptorSet,
    /// float_ms_ssim: each scale's two fp32 planes (reference, distorted).
    levels: Vec<Buffer>,
    /// The horizontal Gaussian planes, shared by the scales in turn.
    hfilt: Option<Buffer>,
    /// Each scale's per-pixel terms (ssim, l, c, s), device memory.
    terms: Vec<Buffer>,
    /// Each scale's partial sums, host-visible.
    partials: Vec<Buffer>,
    /// Each scale's set for float_ssim's passes.
    ssim_sets: Vec<vk::DescriptorSet>,
    /// The set of the low-pass level k -> k + 1 (binding 2 reads level k,
    /// binding 3 writes level k + 1).
    lowpass_sets: Vec<vk::DescriptorSet>,
}

impl MetricSlot {
    /// Every descriptor set (they all read the raw planes at bindings 0 and 1).
    pub(super) fn sets(&self) -> impl Iterator<Item = vk::DescriptorSet> + '_ {
        (self.psnr_rows.is_some().then_some(self.psnr_set))
            .into_iter()
            .chain(self.ssim_sets.iter().copied())
            .chain(self.lowpass_sets.iter().copied())
    }

    /// Destroys the buffers (the sets go with their pool).
    pub(super) fn destroy(&mut self, gpu: &Gpu) {
        let lists = [&mut self.levels, &mut self.terms, &mut self.partials];
        for list in lists {
            for mut b in list.drain(..) {
                gpu.destroy_buffer(&mut b);
            }
        }
        for b in [self.psnr_rows.take(), self.hfilt.take()]
            .into_iter()
            .flatten()
        {
            let mut b = b;
            gpu.destroy_buffer(&mut b);
        }
    }
}

impl VkScorer {
    /// The metric buffers and sets of slot `i` (whose own buffers and set
    /// exist).
    pub(super) fn create_metric_slot(&self, i: usize, slot: &Slot) -> Result<Option<MetricSlot>> {
        let Some(plan) = &self.metrics else {
            return Ok(None);
        };
        let mut m = MetricSlot::default();
        let made = self.fill_metric_slot(i, slot, plan, &mut m);
        if let Err(e) = made {
            m.destroy(&self.gpu);
            return Err(e);
        }
        Ok(Some(m))
    }

    fn fill_metric_slot(
        &self,
        i: usize,
        slot: &Slot,
        plan: &MetricPlan,
        m: &mut MetricSlot,
    ) -> Result<()> {
        let gpu = &self.gpu;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let work = storage | vk::BufferUsageFlags::TRANSFER_SRC;
        let set = |buffers: [vk::Buffer; BINDINGS as usize], name: String| {
            pipeline::allocate_set(
                gpu,
                self.descriptor_pool,
                self.pipelines.set_layout,
                buffers,
                &name,
            )
        };
        let raw = [slot.raw[0].raw, slot.raw[1].raw];
        if let Some(p) = &plan.psnr {
            // Each row's sum per plane, then each row's range record per
            // picture and plane (glsl/psnr.comp).
            let rows = 9 * p.geometry.height as u64 * 8;
            let b = gpu.create_buffer(
                &format!("vkssim slot {i} psnr row sums"),
                rows,
                storage,
                MemoryLocation::GpuToCpu,
            )?;
            let buffers = [
                raw[0],
                raw[1],
                b.raw,
                slot.hfilt.raw,
                slot.vfilt.raw,
                slot.terms.raw,
                slot.partials.raw,
                slot.range.raw,
            ];
            m.psnr_rows = Some(b);
            m.psnr_set = set(buffers, format!("vkssim slot {i} psnr set"))?;
        }
        if let Some(ms) = &plan.ms {
            let (w0, h0) = ms.sizes[0];
            m.hfilt = Some(gpu.create_buffer(
                &format!("vkssim slot {i} ms_ssim horizontal Gaussian"),
                5 * (w0 as u64 - 10) * h0 as u64 * 4,
                work,
                MemoryLocation::GpuOnly,
            )?);
            for k in 0..SCALES {
                let (w, h) = ms.sizes[k];
                m.levels.push(gpu.create_buffer(
                    &format!("vkssim slot {i} ms_ssim scale {k} planes"),
                    2 * w as u64 * h as u64 * 4,
                    work,
                    MemoryLocation::GpuOnly,
                )?);
                m.terms.push(gpu.create_buffer(
                    &format!("vkssim slot {i} ms_ssim scale {k} terms"),
                    4 * ms.valid_len(k) * 8,
                    work,
                    MemoryLocation::GpuOnly,
                )?);
                m.partials.push(gpu.create_buffer(
                    &format!("vkssim slot {i} ms_ssim scale {k} partial sums"),
                    ms.groups(k) * reduce::WORDS_PER_GROUP as u64 * 8,
                    storage,
                    MemoryLocation::GpuToCpu,
                )?);
            }
            let hfilt = m.hfilt.as_ref().map_or(vk::Buffer::null(), |b| b.raw);
            for k in 0..SCALES {
                let buffers = [
                    raw[0],
                    raw[1],
                    m.levels[k].raw,
                    hfilt,
                    slot.vfilt.raw,
                    m.terms[k].raw,
                    m.partials[k].raw,
                    slot.range.raw,
                ];
                let s = set(buffers, format!("vkssim slot {i} ms_ssim scale {k} set"))?;
                m.ssim_sets.push(s);
            }
            for k in 0..SCALES - 1 {
                let buffers = [
                    raw[0],
                    raw[1],
                    m.levels[k].raw,
                    m.levels[k + 1].raw,
                    slot.vfilt.raw,
                    m.terms[k].raw,
                    m.partials[k].raw,
                    slot.range.raw,
                ];
                let s = set(buffers, format!("vkssim slot {i} ms_ssim low-pass {k} set"))?;
                m.lowpass_sets.push(s);
            }
        }
        Ok(())
    }

    /// Records the metrics' passes into `cmd` (slot `i`'s compute commands,
    /// recording, after float_ssim's passes).
    pub(super) fn record_metrics(&self, cmd: vk::CommandBuffer, i: usize) {
        let (Some(plan), Some(m)) = (&self.metrics, &self.slots[i].metrics) else {
            return;
        };
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let layout = self.pipelines.layout;
        let dispatch = |pipeline: vk::Pipeline, set, constants: &[u8], groups: [u32; 3]| {
            // SAFETY: `cmd` is recording on the compute family; the
            // pipelines, layout and sets are valid and outlive the command
            // buffer; each push-constant block lies within the layout's range
            // (build.rs checks the blocks' sizes).
            unsafe {
                commands::bind_set_and_constants(gpu, cmd, layout, set, constants);
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
                d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
            }
        };
        let barrier = || {
            // SAFETY: `cmd` is recording on the compute family, whose stages
            // the barrier names.
            unsafe { commands::compute_to_compute(gpu, cmd) }
        };
        let queries = self.slots[i].queries;
        let stamp = |k: u32| {
            if let Some(q) = queries {
                let at = PASSES.len() as u32 + 1 + k;
                // SAFETY: `cmd` is recording; the query was reset at the
                // start of the command buffer and lies in the slot's pool
                // (`TIMESTAMPS`).
                unsafe {
                    d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::COMPUTE_SHADER, q, at)
                };
            }
        };
        // float_ssim's passes wrote the range record these passes update too.
        barrier();
        if let Some(p) = &plan.psnr {
            let planes = p.geometry.planes as u32;
            let groups = [1, p.geometry.height, planes];
            dispatch(
                p.pipeline,
                m.psnr_set,
                bytemuck::bytes_of(&p.params),
                groups,
            );
        }
        stamp(0);
        if let Some(ms) = &plan.ms {
            let [decimate, hfilter, terms] = [0, 1, 2].map(|k| ms.passes[k]);
            let groups = FramePass::Decimate.groups(&ms.extents(0));
            dispatch(
                decimate,
                m.ssim_sets[0],
                bytemuck::bytes_of(&ms.params[0]),
                groups,
            );
            for k in 1..SCALES {
                barrier();
                let (sw, sh) = ms.sizes[k - 1];
                let (dw, dh) = ms.sizes[k];
                let lp = LowpassParams { sw, sh, dw, dh };
                let groups = [pipeline::groups(dw, 16), pipeline::groups(dh, 16), 2];
                dispatch(
                    ms.lowpass,
                    m.lowpass_sets[k - 1],
                    bytemuck::bytes_of(&lp),
                    groups,
                );
            }
            stamp(1);
            for k in 0..SCALES {
                let e = ms.extents(k);
                let constants = bytemuck::bytes_of(&ms.params[k]);
                barrier();
                dispatch(
                    hfilter,
                    m.ssim_sets[k],
                    constants,
                    FramePass::HFilter.groups(&e),
                );
                barrier();
                dispatch(
                    terms,
                    m.ssim_sets[k],
                    constants,
                    FramePass::Terms.groups(&e),
                );
            }
        } else {
            stamp(1);
        }
        stamp(2);
    }

    /// The metric outputs of slot `i`'s frame (its fence signalled), in the
    /// list's order, float_ssim's from `score`; psnr's sums; and whether
    /// the host summed terms of some MS-SSIM scale.
    pub(super) fn finish_metrics(
        &self,
        i: usize,
        score: &FrameScore,
    ) -> Result<(MetricOutputs, Option<[u64; 3]>, bool)> {
        let (Some(plan), Some(m)) = (&self.metrics, &self.slots[i].metrics) else {
            return Err(Error::Internal("a metric frame without its metrics".into()));
        };
        let mut out = MetricOutputs::new();
        let mut sums = None;
        let mut host_sums = 0;
        for config in &plan.list {
            match config {
                MetricConfig::FloatSsim(o) => {
                    let values = [Some(score.float_ssim()), score.l, score.c, score.s];
                    for (name, v) in ssim::feature_names(o).into_iter().zip(values) {
                        let v = v.ok_or_else(|| {
                            Error::Internal(format!("float_ssim: {name} was not computed"))
                        })?;
                        out.push(name, v);
                    }
                }
                MetricConfig::Psnr(_) => {
                    let (Some(p), Some(rows)) = (&plan.psnr, &m.psnr_rows) else {
                        return Err(Error::Internal("psnr without its buffers".into()));
                    };
                    let sse = psnr_sse(rows, p)?;
                    out.extend(&psnr::frame_outputs(&sse, &p.geometry, &p.opts));
                    sums = Some(sse);
                }
                MetricConfig::FloatMsSsim(_) => {
                    let Some(ms) = &plan.ms else {
                        return Err(Error::Internal("float_ms_ssim without its plan".into()));
                    };
                    let (means, fallbacks) = self.ms_means(ms, m)?;
                    host_sums += fallbacks;
                    let g = &self.sizes.geometry;
                    out.extend(&ms_ssim::frame_outputs(
                        &means,
                        g.width,
                        g.height,
                        g.bit_depth,
                        &ms.opts,
                    )?);
                }
                other => {
                    return Err(Error::Internal(format!(
                        "{} has no Vulkan passes",
                        other.feature()
                    )))
                }
            }
        }
        Ok((out, sums, host_sums > 0))
    }

    /// Each scale's l, c and s means (`ssim` is not used by float_ms_ssim and
    /// left NaN): from the partial sums where they settle all three, else from
    /// the scale's terms summed on the host in raster order.
    ///
    /// Also says how many scales were summed on the host.
    fn ms_means(&self, ms: &MsPlan, m: &MetricSlot) -> Result<([FrameMeans; SCALES], u64)> {
        let mut fallbacks = 0;
        let mut means = [FrameMeans {
            ssim: f32::NAN,
            l: 0.0,
            c: 0.0,
            s: 0.0,
        }; SCALES];
        for (k, mean) in means.iter_mut().enumerate() {
            let bytes = m.partials[k].mapped().ok_or_else(not_mapped)?;
            let n = ms.valid_len(k);
            let decided = (!self.force_host_sum)
                .then(|| fixed_sums(bytes, ms.groups(k), n))
                .flatten()
                .and_then(|f| {
                    Some([
                        reduce::decide(&f[1])?,
                        reduce::decide(&f[2])?,
                        reduce::decide(&f[3])?,
                    ])
                });
            let [l, c, s] = match decided {
                Some(v) => v,
                None => {
                    fallbacks += 1;
                    let e = ms.extents(k);
                    let copy = self.copy_terms;
                    let sums = self.read_back_with(&m.terms[k], copy, |t| TermSums {
                        ssim: 0.0,
                        l: plane_sum(t, 1, n as usize),
                        c: plane_sum(t, 2, n as usize),
                        s: plane_sum(t, 3, n as usize),
                    })?;
                    let f = sums.means(e.hw, e.hh);
                    [f.l, f.c, f.s]
                }
            };
            (mean.l, mean.c, mean.s) = (l, c, s);
        }
        Ok((means, fallbacks))
    }

    /// The first sample above the bit depth that slot `i`'s psnr pass found
    /// in each picture (its fence signalled); none without psnr.
    pub(super) fn metric_range(&self, i: usize) -> Result<[Option<PlaneRange>; 2]> {
        match (&self.metrics, &self.slots[i].metrics) {
            (Some(plan), Some(m)) => match (&plan.psnr, &m.psnr_rows) {
                (Some(p), Some(rows)) => psnr_range(rows, p, self.sizes.geometry.bit_depth),
                _ => Ok([None; 2]),
            },
            _ => Ok([None; 2]),
        }
    }

    /// The oldest queued [`MetricOutputs`] of a scorer made with
    /// [`VkScorer::with_metrics`]: one per frame whose [`FrameScore`] came out
    /// without error, in the same order.
    pub fn take_metric_outputs(&mut self) -> Option<MetricOutputs> {
        self.metrics.as_mut()?.done.pop_front()
    }

    /// What the metric passes of slot `i` hold after its frame, for the
    /// pass-by-pass tests.
    pub(super) fn read_metric_debug(&self, i: usize) -> Result<MetricDebug> {
        let (Some(plan), Some(m)) = (&self.metrics, &self.slots[i].metrics) else {
            return Ok(MetricDebug::default());
        };
        let mut out = MetricDebug::default();
        if let (Some(p), Some(rows)) = (&plan.psnr, &m.psnr_rows) {
            out.psnr_sse = Some(psnr_sse(rows, p)?);
        }
        if let Some(ms) = &plan.ms {
            for (k, level) in m.levels.iter().enumerate() {
                let (w, h) = ms.sizes[k];
                let n = w as usize * h as usize;
                let floats = self.read_back_with(level, false, |b| {
                    b[..2 * n * 4]
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect::<Vec<f32>>()
                })?;
                let r = Plane::new(w, h, floats[..n].to_vec())?;
                let d = Plane::new(w, h, floats[n..].to_vec())?;
                out.pyramid.push((r, d));
            }
        }
        Ok(out)
    }
}

/// The exact sums of squared errors of the planes psnr scores, from the
/// device's row sums.
fn psnr_sse(rows: &Buffer, p: &PsnrPlan) -> Result<[u64; 3]> {
    let bytes = rows.mapped().ok_or_else(not_mapped)?;
    let stride = p.geometry.height as usize;
    let mut sse = [0u64; 3];
    for (k, s) in sse.iter_mut().enumerate().take(p.geometry.planes) {
        for r in 0..p.params.height[PsnrParams::index(k)] as usize {
            let at = (k * stride + r) * 8;
            let c = &bytes[at..at + 8];
            *s += u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        }
    }
    Ok(sse)
}

/// A sample above the bit depth that psnr's pass found (10 and 12-bit):
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

/// The first sample above the bit depth of each picture, in raster order of
/// its luma, Cb and Cr planes, from psnr's row records (`None` at 8 and 16
/// bits, where nothing is recorded).
fn psnr_range(rows: &Buffer, p: &PsnrPlan, bit_depth: u32) -> Result<[Option<PlaneRange>; 2]> {
    let mut found = [None; 2];
    if bit_depth != 10 && bit_depth != 12 {
        return Ok(found);
    }
    let bytes = rows.mapped().ok_or_else(not_mapped)?;
    let stride = p.params.rows[0] as usize;
    for (picture, slot) in found.iter_mut().enumerate() {
        'planes: for plane in 0..p.geometry.planes {
            for row in 0..p.params.rows[PsnrParams::index(plane)] as usize {
                let at = (3 * stride + (picture * 3 + plane) * stride + row) * 8;
                let mut b = [0u8; 8];
                b.copy_from_slice(&bytes[at..at + 8]);
                let rec = u64::from_le_bytes(b);
                if rec != u64::MAX {
                    *slot = Some(PlaneRange {
                        picture,
                        plane,
                        x: rec as u32,
                        y: row as u32,
                        value: (rec >> 32) as u32,
                    });
                    break 'planes;
                }
            }
        }
    }
    Ok(found)
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
    /// The frame's outputs (see [`VkScorer::take_metric_outputs`]).
    pub outputs: MetricOutputs,
}

#[cfg(test)]
mod tests {
    /// The low-pass table in glsl/lowpass.comp is the metric's, bit for bit.
    #[test]
    fn shader_lowpass_table_is_the_metrics() {
        let src = include_str!("../../../../glsl/lowpass.comp");
        let start = src.find("LOWPASS_BITS[81] = uint[81](").expect("the table");
        let body = &src[start..];
        let body = &body[body.find('(').unwrap() + 1..body.find(");").unwrap()];
        let bits: Vec<u32> = body
            .split(',')
            .map(|t| t.trim().trim_end_matches('u'))
            .map(|t| u32::from_str_radix(t.trim_start_matches("0x"), 16).unwrap())
            .collect();
        let want: Vec<u32> = crate::metric::ms_ssim::LOWPASS
            .iter()
            .flatten()
            .map(|t| t.to_bits())
            .collect();
        assert_eq!(bits, want);
    }
}
