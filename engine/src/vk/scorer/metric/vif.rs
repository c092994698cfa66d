//! libvmaf's integer `vif` on the device, per scale: `glsl/vif_decimate.comp`
//! low-passes and decimates the scale before (scales 1 to 3; scale 1 from the
//! raw pictures), `glsl/vif_vertical.comp` forms the five vertically filtered
//! statistics per sample, `glsl/vif_stats.comp` their horizontal pass, each
//! pixel's information terms (the binary64 gain and residual through
//! `arith.glsl`, native or software) and each row's four exact int64 sums,
//! into one host-visible buffer per slot. The host adds the rows and finishes
//! each scale as the CPU twin (`feature::vif`). libvmaf's log2 table,
//! uploaded once from the CPU twin's, is a buffer the plan keeps for the
//! whole scorer. The scale-0 stats pass also records the first luma sample
//! above the bit depth per row (10 and 12-bit). Where the scorer reduces with
//! subgroup operations (`MetricContext::subgroups`) the stats pass is the
//! `vif_stats_subgroup` build, which adds each row's sums with subgroupAdd
//! instead of a shared-memory tree: the same sums, bit for bit.

use std::sync::Arc;

use super::super::recorder::{Buf, BufferDecl, Recorder};
use super::super::VkScorer;
use super::kept::KeptBuffers;
use super::{rows, FrameFinish, GpuMetric, MetricContext, MetricDebug, PlaneRange};
use crate::feature::vif::stats::ScaleSums;
use crate::feature::vif::{check_size, log2, VifOptions, VifScores};
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{Kernel, Pipelines, Spec, VifParams};
use crate::vk::shaders::{binding, ShaderName};
use crate::{Error, FrameScore, Result};

/// The stages vif times: each pass of each scale (scale 0 has no
/// decimation).
const STAGES: [&str; 11] = [
    "vif 0 vertical",
    "vif 0 stats",
    "vif 1 decimate",
    "vif 1 vertical",
    "vif 1 stats",
    "vif 2 decimate",
    "vif 2 vertical",
    "vif 2 stats",
    "vif 3 decimate",
    "vif 3 vertical",
    "vif 3 stats",
];

/// The outputs (columns, rows) a workgroup of `glsl/vif_decimate.comp` makes
/// (its TW and TH).
const DECIMATE_TILE: (u32, u32) = (124, 8);

/// The slot buffers: each decimated scale's reference and distorted planes
/// (scales 1 to 3, in that order), each scale's vertical statistics
/// (`VERT + scale`), each scale's row sums (`SUMS + scale`; scale 0's after
/// the range records). One buffer per scale, not one for all: a scale's
/// passes then share no buffer with another's, so they run side by side
/// (`super::super::recorder`).
const VERT: usize = 6;
const SUMS: usize = 10;

/// vif's plan (see the module docs).
pub(in crate::vk::scorer) struct VifGpu {
    opts: VifOptions,
    /// Each scale's push constants (its plane's size, where its sums go).
    params: [VifParams; 4],
    /// Each scale's passes, specialized to it.
    kernels: [ScaleKernels; 4],
    /// libvmaf's log2 table, 16-bit entries, two to a word.
    kept: KeptBuffers,
}

impl VifGpu {
    /// The plan for frames of `ctx`'s format (vif's checks first).
    pub(super) fn new(
        gpu: &Arc<Gpu>,
        pipelines: &Pipelines,
        ctx: &MetricContext,
        opts: &VifOptions,
    ) -> Result<Self> {
        let (width, height, bit_depth) = ctx.format;
        check_size(width, height, bit_depth)?;
        opts.validate()?;
        let params = scale_params(width, height, opts);
        let stats = ShaderName::VifStats.reducing_with_subgroups(ctx.subgroups);
        let scale_kernels = |scale: u32| -> Result<ScaleKernels> {
            // Constant id 1 is the scale (glsl/include/vif.glsl).
            let spec = Some(Spec {
                bit_depth,
                scale,
                enable_lcs: 0,
                int_sum: 0,
            });
            let decimate = match scale {
                0 => None,
                _ => Some(pipelines.kernel(gpu, ShaderName::VifDecimate, spec)?),
            };
            Ok(ScaleKernels {
                decimate,
                vertical: pipelines.kernel(gpu, ShaderName::VifVertical, spec)?,
                stats: pipelines.kernel(gpu, stats, spec)?,
            })
        };
        let kernels = [
            scale_kernels(0)?,
            scale_kernels(1)?,
            scale_kernels(2)?,
            scale_kernels(3)?,
        ];
        let mut this = Self {
            opts: *opts,
            params,
            kernels,
            kept: KeptBuffers::new(gpu),
        };
        // libvmaf's log2 table, 16-bit little-endian entries.
        let table: Vec<u8> = log2::table().iter().flat_map(|v| v.to_le_bytes()).collect();
        this.kept.push_written("vkssim vif log2 table", &table)?;
        Ok(this)
    }

    /// The row sums (and at scale 0 the records) scale `scale`'s stats
    /// pass wrote.
    fn records(bufs: &[Buffer], scale: usize) -> Result<Vec<u64>> {
        rows::words(
            bufs.get(SUMS + scale)
                .ok_or_else(|| Error::Internal("vif without its buffers".into()))?,
        )
    }

    /// Each scale's exact sums, from the device's row sums.
    fn sums(&self, bufs: &[Buffer]) -> Result<[ScaleSums; 4]> {
        let mut out = [ScaleSums::default(); 4];
        for (s, (p, sums)) in self.params.iter().zip(&mut out).enumerate() {
            let records = Self::records(bufs, s)?;
            let at = p.sums_at as usize;
            for row in records[at..at + 4 * p.height as usize].chunks_exact(4) {
                // Two's complement: the int64 sums as written.
                sums.num_log += row[0] as i64;
                sums.den_log += row[1] as i64;
                sums.num_non_log += row[2] as i64;
                sums.den_non_log += row[3] as i64;
            }
        }
        Ok(out)
    }
}

gpu_plan!(VifOptions => VifGpu, slot_bytes = slot_bytes);

/// One scale's pipelines (the decimation is absent at scale 0).
#[derive(Clone, Copy)]
struct ScaleKernels {
    decimate: Option<Kernel>,
    vertical: Kernel,
    stats: Kernel,
}

/// Output rows per invocation of `glsl/vif_vertical.comp` (its `ROWS`).
const VERTICAL_ROWS: u32 = 4;

/// Each scale's push constants for `width` x `height` frames (its plane's
/// size, where its sums go in its buffer: after the range records, 2 per
/// row, at scale 0).
fn scale_params(width: u32, height: u32, opts: &VifOptions) -> [VifParams; 4] {
    let bits = opts.enhn_gain_limit.to_bits();
    let mut params = [VifParams::default(); 4];
    let (mut w, mut h) = (width, height);
    for (s, p) in params.iter_mut().enumerate() {
        let (sw, sh) = (w, h);
        if s > 0 {
            (w, h) = (w / 2, h / 2);
        }
        *p = VifParams {
            width: w,
            height: h,
            src_width: sw,
            src_height: sh,
            scale: s as u32,
            sums_at: if s == 0 { 2 * height } else { 0 },
            gain_lo: bits as u32,
            gain_hi: (bits >> 32) as u32,
        };
    }
    params
}

/// The buffers each slot holds for frames of `params` (see [`SUMS`]).
fn slot_buffers(params: &[VifParams; 4]) -> Vec<BufferDecl> {
    let mut out = Vec::new();
    // The reference's decimated planes are the slot's own, also for a
    // shared reference (`super::super::derived`): decimating the distorted
    // picture alone measured slower on the H200 than both pictures together
    // (vif_decimate at 4K scale 1: 59.9 us against 43.0; BENCHMARKS.md,
    // issue 28's ninth session).
    for p in &params[1..] {
        let bytes = p.width as u64 * p.height as u64 * 4;
        for which in ["reference", "distorted"] {
            let name = format!("vif scale {} {which}", p.scale);
            out.push(BufferDecl::device(name, bytes));
        }
    }
    for p in params {
        let samples = p.width as u64 * p.height as u64;
        let name = format!("vif scale {} vertical statistics", p.scale);
        out.push(BufferDecl::device(name, 4 * samples * 4));
    }
    for p in params {
        let records = p.sums_at as u64 + 4 * p.height as u64;
        let name = format!("vif scale {} row sums", p.scale);
        out.push(BufferDecl::host(name, records * 8));
    }
    out
}

/// Device bytes of a slot's buffers for `width` x `height` frames.
fn slot_bytes(opts: &VifOptions, width: u32, height: u32) -> u64 {
    super::device_bytes(&slot_buffers(&scale_params(width, height, opts)))
}

impl GpuMetric for VifGpu {
    fn feature(&self) -> &'static str {
        crate::feature::vif::FEATURE
    }

    fn stage_names(&self) -> &'static [&'static str] {
        &STAGES
    }

    fn buffers(&self) -> Vec<BufferDecl> {
        slot_buffers(&self.params)
    }

    fn kept_buffers(&self) -> &[Buffer] {
        self.kept.all()
    }

    fn record(&self, r: &mut Recorder) {
        let planes = |s: usize| -> [Buf; 2] {
            match s {
                0 => [Buf::Raw(0), Buf::Raw(1)],
                _ => [r.own(2 * (s - 1)), r.own(2 * (s - 1) + 1)],
            }
        };
        let all: [[Buf; 2]; 4] = std::array::from_fn(planes);
        let table = r.kept(0);
        for (s, (p, k)) in self.params.iter().zip(&self.kernels).enumerate() {
            let push = bytemuck::bytes_of(p);
            let (w, h) = (p.width, p.height);
            let (vert, sums) = (r.own(VERT + s), r.own(SUMS + s));
            if let Some(decimate) = k.decimate {
                use binding::vif_decimate as b;
                let bufs = [
                    (b::SRC_REF, all[s - 1][0]),
                    (b::SRC_DIST, all[s - 1][1]),
                    (b::DST_REF, all[s][0]),
                    (b::DST_DIST, all[s][1]),
                ];
                // One workgroup (256 invocations) per tile of both pictures.
                let (tw, th) = DECIMATE_TILE;
                r.dispatch(
                    decimate,
                    [w.div_ceil(tw) * 256, h.div_ceil(th), 1],
                    &bufs,
                    push,
                );
                r.end_stage();
            }
            {
                use binding::vif_vertical as b;
                let bufs = [
                    (b::SRC_REF, all[s][0]),
                    (b::SRC_DIST, all[s][1]),
                    (b::VERT, vert),
                ];
                r.dispatch(k.vertical, [w, h.div_ceil(VERTICAL_ROWS), 1], &bufs, push);
                r.end_stage();
            }
            use binding::vif_stats as b;
            let bufs = [
                (b::RAW_REF, Buf::Raw(0)),
                (b::RAW_DIST, Buf::Raw(1)),
                (b::VERT, vert),
                (b::LOG2, table),
                (b::ROW_SUMS, sums),
            ];
            // One workgroup per row (its invocations stride along the row).
            r.dispatch(k.stats, [1, h, 1], &bufs, push);
            r.end_stage();
        }
    }

    fn finish(
        &self,
        _s: &VkScorer,
        bufs: &[Buffer],
        _decided: Option<FrameScore>,
        out: &mut FrameFinish,
    ) -> Result<()> {
        let sums = self.sums(bufs)?;
        let scores = VifScores {
            scale: sums.map(|s| s.score()),
            num: sums.map(|s| f64::from(s.num())),
            den: sums.map(|s| f64::from(s.den())),
        };
        for (name, value) in scores.outputs(&self.opts) {
            out.outputs.push(name, value);
        }
        Ok(())
    }

    /// The first luma sample above the bit depth of each picture, in raster
    /// order, from the scale-0 row records (none at 8 and 16 bits).
    fn sample_range(&self, bufs: &[Buffer], bit_depth: u32) -> Result<[Option<PlaneRange>; 2]> {
        let h = self.params[0].height as usize;
        rows::luma_ranges(|| Self::records(bufs, 0), 0, h, 1, bit_depth)
    }

    fn debug(&self, s: &VkScorer, bufs: &[Buffer], out: &mut MetricDebug) -> Result<()> {
        let sums = self.sums(bufs)?;
        out.vif_sums = Some(sums.map(|s| [s.num_log, s.den_log, s.num_non_log, s.den_non_log]));
        out.vif_planes = bufs[..VERT]
            .iter()
            .map(|b| rows::samples(s, b))
            .collect::<Result<_>>()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// The tile a workgroup of `glsl/vif_decimate.comp` makes is the tile the
    /// plan dispatches a workgroup for. A shader tile larger than
    /// DECIMATE_TILE would only overlap neighbouring tiles and waste work,
    /// which no score would show (a smaller one leaves outputs out, which
    /// the pass-by-pass tests catch).
    #[test]
    fn the_decimation_makes_the_tile_the_plan_dispatches() {
        let src = include_str!("../../../../../glsl/vif_decimate.comp");
        let (tw, th) = super::DECIMATE_TILE;
        for want in [
            format!("const int TW = {tw};"),
            format!("const int TH = {th};"),
        ] {
            assert_eq!(src.matches(&want).count(), 1, "{want}");
        }
    }
}
