//! float_ssim on the device: the decimate, hfilter and terms passes
//! (`glsl/{decimate,hfilter,terms}.comp`, [`FramePass`]) over the slot's raw
//! pictures, with the buffers they need: the decimated planes, the
//! horizontal and vertical Gaussian planes, the per-pixel terms (device
//! memory) and the terms pass's partial sums (host-visible). A frame's means
//! come from the partial sums where they settle them ([`crate::vk::reduce`],
//! decided on a worker thread: [`GpuMetric::reduce`]), else from the terms
//! copied back and summed on the host in raster order (docs/exactness.md
//! §5); the dB from the CPU twin's functions. Its passes may run interleaved
//! across a batch of device-resident pairs ([`GpuMetric::batches`]).
//!
//! Also the scorer of float_ssim alone ([`VkScorer::new`]) and the
//! pass-by-pass read-back for tests ([`VkScorer::debug_frame`],
//! [`DebugFrame`]).

use super::super::host_sum::{fixed_sums, plane_sum};
use super::super::recorder::{build_program, Buf, BufferDecl, Recorder};
use super::super::{check_metric_list, stats, VkScorer};
use super::{FrameFinish, GpuMetric, MetricContext};
use crate::cpu::{self, FrameMeans, TermSums};
use crate::io::Chroma;
use crate::metric::ssim::{self, FrameGeometry, SsimConstants};
use crate::metric::MetricConfig;
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{
    decimate_invocations, FrameExtents, FramePass, Kernel, Params, Pipelines, Spec, PASSES,
};
use crate::vk::reduce;
use crate::vk::shaders::binding;
use crate::vk::VkOptions;
use crate::{Error, FrameScore, LumaFrame, Result, SsimOptions};

/// Largest decimation factor the GPU accepts (the int64 argument of the seed
/// note stops holding above it).
pub(in crate::vk::scorer) const MAX_SCALE: u32 = 128;

/// The push constants of the SSIM stage's passes (float_ssim's, which
/// float_ms_ssim runs on each of its scales) for `(width, height, bit_depth)`
/// frames decimated by `scale` to `(sw, sh)`.
pub(super) fn stage_params(
    (width, height, bit_depth): (u32, u32, u32),
    scale: u32,
    (sw, sh): (u32, u32),
    enable_lcs: bool,
) -> Params {
    let k = SsimConstants::libvmaf();
    Params {
        width,
        height,
        bit_depth,
        scale,
        sw,
        sh,
        tap_bits: cpu::decimate::decimation_tap(scale).to_bits(),
        c1_bits: k.c1.to_bits(),
        c2_bits: k.c2.to_bits(),
        c3_bits: k.c3.to_bits(),
        enable_lcs: enable_lcs as u32,
        debug_writes: 0,
        term_writes: 1,
    }
}

/// The sizes float_ssim's geometry gives.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    geometry: FrameGeometry,
    /// Valid width and height of the SSIM stage.
    hw: u32,
    hh: u32,
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
    /// What the frame's passes are dispatched over.
    fn extents(&self) -> FrameExtents {
        FrameExtents {
            sw: self.geometry.scaled_width,
            sh: self.geometry.scaled_height,
            hw: self.hw,
            hh: self.hh,
        }
    }
    /// Workgroups of the terms pass, one partial-sum record each.
    fn term_groups(&self) -> u64 {
        let [x, y, z] = FramePass::Terms.groups(&self.extents());
        x as u64 * y as u64 * z as u64
    }
}

/// float_ssim's plan (see the module docs).
pub(in crate::vk::scorer) struct FloatSsimGpu {
    opts: SsimOptions,
    sizes: Sizes,
    /// The passes, in [`FramePass::ALL`] order.
    kernels: [Kernel; 3],
    params: Params,
    /// Bytes of each buffer, in declaration order.
    bytes: [u64; 5],
}

/// Its buffers, in declaration order: the decimated reference and
/// distorted planes (fp32); the five horizontal Gaussian planes; the five
/// vertical Gaussian planes (written only by debug frames); the per-pixel
/// terms (ssim, then l, c, s with `enable_lcs`); the terms pass's
/// per-workgroup partial sums, host-visible.
const DEC: usize = 0;
const HFILT: usize = 1;
const VFILT: usize = 2;
const TERMS: usize = 3;
const PARTIALS: usize = 4;

gpu_plan!(SsimOptions => FloatSsimGpu);

impl FloatSsimGpu {
    /// The plan for the scorer's format and options (float_ssim's checks
    /// first).
    fn new(
        gpu: &Gpu,
        pipelines: &Pipelines,
        ctx: &MetricContext,
        opts: &SsimOptions,
    ) -> Result<Self> {
        let (width, height, bit_depth) = ctx.format;
        let geometry = ssim::check_geometry(width, height, bit_depth, opts)?;
        if geometry.scale > MAX_SCALE {
            return Err(Error::Unsupported(format!(
                "scale {} on the GPU: above {MAX_SCALE} libvmaf's decimation sum is no longer \
                 exact, so vkssim refuses it (the CPU backend scores it)",
                geometry.scale
            )));
        }
        let s = Sizes {
            geometry,
            hw: geometry.scaled_width - 10,
            hh: geometry.scaled_height - 10,
        };
        let spec = Spec::new(bit_depth, geometry.scale, opts.enable_lcs);
        let planes = if opts.enable_lcs { 4 } else { 1 };
        let sw = (geometry.scaled_width, geometry.scaled_height);
        Ok(Self {
            opts: *opts,
            sizes: s,
            kernels: pipelines.frame_passes(gpu, spec, ctx.subgroups)?,
            params: stage_params(ctx.format, geometry.scale, sw, opts.enable_lcs),
            bytes: [
                2 * s.dec_len() * 4,
                5 * s.hfilt_len() * 4,
                5 * s.valid_len() * 4,
                planes * s.valid_len() * 8,
                s.term_groups() * reduce::WORDS_PER_GROUP as u64 * 8,
            ],
        })
    }

    /// A frame's score from the terms pass's per-workgroup fixed-point
    /// partial sums (`partials`: [`reduce::WORDS_PER_GROUP`] little-endian
    /// words per workgroup) when they settle every mean ([`reduce::decide`]);
    /// `None` when the host must sum the per-pixel terms in raster order
    /// ([`FloatSsimGpu::score_terms`]).
    fn score_partials(&self, partials: &[u8]) -> Option<FrameScore> {
        let s = &self.sizes;
        let fixed = fixed_sums(partials, s.term_groups(), s.valid_len())?;
        let mut means = FrameMeans {
            ssim: reduce::decide(&fixed[0])?,
            l: 0.0,
            c: 0.0,
            s: 0.0,
        };
        if self.opts.enable_lcs {
            means.l = reduce::decide(&fixed[1])?;
            means.c = reduce::decide(&fixed[2])?;
            means.s = reduce::decide(&fixed[3])?;
        }
        Some(ssim::frame_score(&means, &s.geometry, &self.opts))
    }

    /// A frame's score from its per-pixel terms (`terms`: binary64,
    /// little-endian; the ssim plane, then l, c and s with `enable_lcs`),
    /// copied back from the device: libvmaf's raster-order fp64 sums
    /// (docs/exactness.md §5), then the CPU twin's means and dB.
    fn score_terms(&self, terms: &[u8]) -> FrameScore {
        let s = &self.sizes;
        let n = s.valid_len() as usize;
        let plane_sum = |k: usize| plane_sum(terms, k, n);
        let mut sums = TermSums {
            ssim: plane_sum(0),
            ..TermSums::default()
        };
        if self.opts.enable_lcs {
            sums.l = plane_sum(1);
            sums.c = plane_sum(2);
            sums.s = plane_sum(3);
        }
        let means = sums.means(s.hw, s.hh);
        ssim::frame_score(&means, &s.geometry, &self.opts)
    }
}

impl GpuMetric for FloatSsimGpu {
    fn feature(&self) -> &'static str {
        ssim::FEATURE
    }

    fn stage_names(&self) -> &'static [&'static str] {
        &PASSES
    }

    fn buffers(&self) -> Vec<BufferDecl> {
        let b = self.bytes;
        vec![
            BufferDecl::device("decimated planes", b[DEC]),
            BufferDecl::device("horizontal Gaussian", b[HFILT]),
            BufferDecl::device("vertical Gaussian", b[VFILT]),
            BufferDecl::device("per-pixel terms", b[TERMS]),
            BufferDecl::host("partial sums", b[PARTIALS]),
        ]
    }

    fn batches(&self) -> bool {
        true
    }

    fn record(&self, r: &mut Recorder) {
        let p = Params {
            debug_writes: r.debug_writes() as u32,
            ..self.params
        };
        let push = bytemuck::bytes_of(&p);
        let extents = self.sizes.extents();
        let [decimate, hfilter, terms] = self.kernels;
        let (raw_ref, raw_dist) = (Buf::Raw(0), Buf::Raw(1));
        let [dec, hfilt, vfilt, terms_buf, partials] =
            [DEC, HFILT, VFILT, TERMS, PARTIALS].map(|k| r.own(k));
        {
            use binding::decimate as b;
            let bufs = [
                (b::RAW_REF, raw_ref),
                (b::RAW_DIST, raw_dist),
                (b::DEC, dec),
                (b::RANGE, Buf::Range),
            ];
            r.dispatch(
                decimate,
                decimate_invocations(&extents, p.scale, p.bit_depth),
                &bufs,
                push,
            );
        }
        r.end_stage();
        {
            use binding::hfilter as b;
            let bufs = [
                (b::RAW_REF, raw_ref),
                (b::RAW_DIST, raw_dist),
                (b::DEC, dec),
                (b::HFILT, hfilt),
                (b::RANGE, Buf::Range),
            ];
            r.dispatch(
                hfilter,
                FramePass::HFilter.invocations(&extents),
                &bufs,
                push,
            );
        }
        r.end_stage();
        {
            use binding::terms as b;
            let bufs = [
                (b::HFILT, hfilt),
                (b::VFILT, vfilt),
                (b::TERMS, terms_buf),
                (b::PARTIALS, partials),
            ];
            r.dispatch(terms, FramePass::Terms.invocations(&extents), &bufs, push);
        }
        r.end_stage();
    }

    fn reduced_buffer(&self) -> Option<usize> {
        Some(PARTIALS)
    }

    fn reduce(&self, bytes: &[u8], force_host: bool) -> Option<FrameScore> {
        (!force_host).then(|| self.score_partials(bytes)).flatten()
    }

    fn finish(
        &self,
        s: &VkScorer,
        bufs: &[Buffer],
        decided: Option<FrameScore>,
        out: &mut FrameFinish,
    ) -> Result<()> {
        let score = match decided {
            Some(score) => score,
            None => {
                out.host_sums += 1;
                s.read_back_with(&bufs[TERMS], s.copy_terms, |t| self.score_terms(t))?
            }
        };
        out.side.extend(score.side());
        if out.outputs.is_empty() {
            // The list's first metric (float_ssim alone, the fast path): its
            // outputs are the frame's so far, moved, not copied.
            out.outputs = score.outputs;
        } else {
            out.outputs.extend(&score.outputs);
        }
        Ok(())
    }

    fn memory_note(&self, bufs: &[Buffer], copy_terms: bool) -> Option<String> {
        Some(format!(
            "; terms stay in {} memory, partial sums read back from {} memory (terms copied \
             back only for a frame they do not settle{})",
            stats::describe(bufs[TERMS].memory_properties()),
            stats::describe(bufs[PARTIALS].memory_properties()),
            if copy_terms {
                ", then copied out before summing"
            } else {
                ""
            }
        ))
    }
}

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

impl VkScorer {
    /// A scorer of `float_ssim` alone under `opts` for `width` x `height`
    /// luma planes of `bit_depth` bits, on the device and paths `vk` asks
    /// for ([`VkScorer::with_metrics`] of that one metric, without queueing
    /// its outputs: a frame's [`crate::FrameScore`] holds them).
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
        let list = [MetricConfig::FloatSsim(*opts)];
        let format = (width, height, bit_depth);
        check_metric_list(&list, format, Chroma::Mono)?;
        let gpu = Gpu::shared(
            vk_opts.device.index,
            vk_opts.device.validation,
            vk_opts.debug.pipeline_statistics,
        )?;
        Self::with_gpu_and_metrics(gpu, format, Chroma::Mono, &list, vk_opts)
    }

    /// Scores one pair synchronously and copies back every float_ssim pass's
    /// output, for pass-by-pass comparison with the CPU twin. Frames already
    /// submitted are finished first (their results stay queued).
    pub fn debug_frame(
        &mut self,
        reference: &LumaFrame,
        distorted: &LumaFrame,
    ) -> Result<DebugFrame> {
        if self.state.filling() > 0 {
            return Err(Error::InvalidOption(
                "debug_frame while upload slots are handed out".into(),
            ));
        }
        while self.state.pending() > 0 {
            self.finish_oldest();
        }
        if self.metric_plan::<FloatSsimGpu>().is_none() {
            return Err(Error::InvalidOption(
                "debug_frame on a scorer without float_ssim".into(),
            ));
        }
        let i = self.free_host_slot()?;
        // The slot's commands with the debug planes written, for this frame
        // only.
        let debug = build_program(&self.gpu_metrics, true, false)?;
        self.record_with(i, &debug)?;
        let run = self
            .start(i, reference, distorted)
            .and_then(|_| self.wait(i))
            .and_then(|_| self.score(i));
        let restored = self.record(i);
        let score = run?;
        restored?;
        let Some((k, m)) = self.metric_plan::<FloatSsimGpu>() else {
            return Err(Error::Internal("float_ssim's plan is gone".into()));
        };
        let s = m.sizes;
        let bufs = &self.slots[i].bufs[k];
        let read = |k: usize| self.read_back_with(&bufs[k], false, <[u8]>::to_vec);
        let dec = read(DEC)?;
        let hf = read(HFILT)?;
        let vf = read(VFILT)?;
        let terms = read(TERMS)?;
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
            lcs_terms: m.opts.enable_lcs.then(|| [f64s(1), f64s(2), f64s(3)]),
            score,
        })
    }
}
