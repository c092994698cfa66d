//! float_ssim on the device: the decimate, hfilter and terms passes
//! (`glsl/{decimate,hfilter,terms}.comp`, [`FramePass`]) over the slot's raw
//! pictures, with the buffers they need: the decimated planes, the
//! horizontal and vertical Gaussian planes, the per-pixel terms (device
//! memory) and the terms pass's partial sums (host-visible). Its score comes
//! from the ring's reduction (`super::super::ring`, [`crate::vk::reduce`]),
//! which reads the partial sums and, where they do not settle a frame, the
//! terms ([`FloatSsimGpu::TERMS`], [`FloatSsimGpu::PARTIALS`]).

use super::super::recorder::{Buf, BufferDecl, Recorder};
use super::super::VkScorer;
use super::{FrameFinish, GpuMetric, MetricContext};
use crate::metric::ssim;
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{FrameExtents, FramePass, Kernel, Params, Pipelines, Spec, PASSES};
use crate::vk::reduce;
use crate::vk::shaders::binding;
use crate::{Error, FrameScore, Result, SsimOptions};

/// float_ssim's plan (see the module docs).
pub(in crate::vk::scorer) struct FloatSsimGpu {
    opts: SsimOptions,
    /// The passes, in [`FramePass::ALL`] order.
    kernels: [Kernel; 3],
    params: Params,
    extents: FrameExtents,
    /// Bytes of each buffer, in declaration order.
    bytes: [u64; 5],
}

impl FloatSsimGpu {
    /// The decimated reference and distorted planes (fp32).
    pub(in crate::vk::scorer) const DEC: usize = 0;
    /// The five horizontal Gaussian planes.
    pub(in crate::vk::scorer) const HFILT: usize = 1;
    /// The five vertical Gaussian planes (written only by debug frames).
    pub(in crate::vk::scorer) const VFILT: usize = 2;
    /// The per-pixel terms (ssim, then l, c, s with `enable_lcs`).
    pub(in crate::vk::scorer) const TERMS: usize = 3;
    /// The terms pass's per-workgroup partial sums, host-visible.
    pub(in crate::vk::scorer) const PARTIALS: usize = 4;

    /// The plan for the scorer's geometry and options.
    pub(super) fn new(
        gpu: &Gpu,
        pipelines: &Pipelines,
        ctx: &MetricContext,
        opts: &SsimOptions,
    ) -> Result<Self> {
        let s = &ctx.sizes;
        let spec = Spec::new(ctx.format.2, s.geometry.scale, opts.enable_lcs);
        let planes = if opts.enable_lcs { 4 } else { 1 };
        Ok(Self {
            opts: *opts,
            kernels: pipelines.frame_passes(gpu, spec, ctx.subgroups)?,
            params: ctx.params,
            extents: s.extents(),
            bytes: [
                2 * s.dec_len() * 4,
                5 * s.hfilt_len() * 4,
                5 * s.valid_len() * 4,
                planes * s.valid_len() * 8,
                s.term_groups() * reduce::WORDS_PER_GROUP as u64 * 8,
            ],
        })
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
            BufferDecl::device("decimated planes", b[Self::DEC]),
            BufferDecl::device("horizontal Gaussian", b[Self::HFILT]),
            BufferDecl::device("vertical Gaussian", b[Self::VFILT]),
            BufferDecl::device("per-pixel terms", b[Self::TERMS]),
            BufferDecl::host("partial sums", b[Self::PARTIALS]),
        ]
    }

    fn record(&self, r: &mut Recorder) {
        let p = Params {
            debug_writes: r.debug_writes() as u32,
            ..self.params
        };
        let push = bytemuck::bytes_of(&p);
        let [decimate, hfilter, terms] = self.kernels;
        let (raw_ref, raw_dist) = (Buf::Raw(0), Buf::Raw(1));
        let [dec, hfilt, vfilt, terms_buf, partials] = [
            Self::DEC,
            Self::HFILT,
            Self::VFILT,
            Self::TERMS,
            Self::PARTIALS,
        ]
        .map(|k| r.own(k));
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
                FramePass::Decimate.invocations(&self.extents),
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
                FramePass::HFilter.invocations(&self.extents),
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
            r.dispatch(
                terms,
                FramePass::Terms.invocations(&self.extents),
                &bufs,
                push,
            );
        }
        r.end_stage();
    }

    fn finish(
        &self,
        _s: &VkScorer,
        _bufs: &[Buffer],
        score: &FrameScore,
        out: &mut FrameFinish,
    ) -> Result<()> {
        for name in ssim::feature_names(&self.opts) {
            let v = score
                .value(name)
                .ok_or_else(|| Error::Internal(format!("float_ssim: {name} was not computed")))?;
            out.outputs.push(name, v);
        }
        out.side.extend(score.side());
        Ok(())
    }
}
