//! libvmaf's integer `adm` on the device, per scale: `glsl/adm_dwt0.comp`
//! (scale 0, from the raw pictures) or `glsl/adm_dwt.comp` (scales 1 to 3,
//! from the scale before's approximation band) makes both pictures' four
//! wavelet bands, `glsl/adm_decouple.comp` decouples the distorted detail
//! bands and weighs the impairment (the binary64 angle test and enhancement
//! gain through `arith.glsl`, native or software), `glsl/adm_rows.comp`
//! masks, cubes and sums each row of the active window, numerator and
//! denominator, into one host-visible buffer per slot. The host rounds the
//! rows off and finishes each scale with the CPU twin's functions
//! (`feature::adm::device`). Every step before the host's is integer
//! arithmetic or one binary64 rounding per operation, so the bits are the
//! CPU twin's. The scale-0 wavelet pass also records the first luma sample
//! above the bit depth per row (10 and 12-bit). Where the scorer reduces with
//! subgroup operations (`MetricContext::subgroups`) the rows pass is the
//! `adm_rows_subgroup` build (each row's sums added with subgroupAdd instead
//! of a shared-memory tree: the same sums, bit for bit).

use std::sync::Arc;

use super::super::recorder::{Buf, BufferDecl, Recorder};
use super::super::VkScorer;
use super::{rows, FrameFinish, GpuMetric, MetricContext, MetricDebug, PlaneRange};
use crate::feature::adm::device::{scale_plans, scores_from_rows, ScalePlan, ScaleRows};
use crate::feature::adm::{check_size, AdmOptions, AdmScaleIntermediates};
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{AdmParams, Kernel, Pipelines, Spec};
use crate::vk::shaders::{binding, ShaderName};
use crate::{Error, FrameScore, Result};

/// The stages adm times: each pass of each scale.
const STAGES: [&str; 12] = [
    "adm 0 dwt",
    "adm 0 decouple",
    "adm 0 rows",
    "adm 1 dwt",
    "adm 1 decouple",
    "adm 1 rows",
    "adm 2 dwt",
    "adm 2 decouple",
    "adm 2 rows",
    "adm 3 dwt",
    "adm 3 decouple",
    "adm 3 rows",
];

/// The slot buffers: each scale's bands of the reference and the distorted
/// picture (scale 0's first: `2 * scale + picture`), each scale's decoupled
/// planes (`DECOUPLED + scale`), the row sums.
const DECOUPLED: usize = 8;
const ROWS: usize = 12;

/// Planes in the decoupled buffer: restored h, v, d, the flat sums, the own
/// terms' sums.
const DECOUPLED_PLANES: u64 = 5;

/// adm's plan (see the module docs).
pub(in crate::vk::scorer) struct AdmGpu {
    opts: AdmOptions,
    /// The luma plane's size.
    size: (u32, u32),
    plans: [ScalePlan; 4],
    /// Each scale's push constants.
    params: [AdmParams; 4],
    /// dwt0, dwt, decouple, rows.
    kernels: [Kernel; 4],
}

impl AdmGpu {
    /// The plan for frames of `ctx`'s format (adm's checks first).
    pub(super) fn new(
        gpu: &Arc<Gpu>,
        pipelines: &Pipelines,
        ctx: &MetricContext,
        opts: &AdmOptions,
    ) -> Result<Self> {
        let (width, height, bit_depth) = ctx.format;
        check_size(width, height, bit_depth)?;
        opts.validate()?;
        let plans = scale_plans(width, height, opts);
        let params = scale_params(&plans, opts, height);
        let spec = Some(Spec::new(bit_depth, 1, false));
        let rows_shader = ShaderName::AdmRows.reducing_with_subgroups(ctx.subgroups);
        let kernels = [
            pipelines.kernel(gpu, ShaderName::AdmDwt0, spec)?,
            pipelines.kernel(gpu, ShaderName::AdmDwt, spec)?,
            pipelines.kernel(gpu, ShaderName::AdmDecouple, spec)?,
            pipelines.kernel(gpu, rows_shader, spec)?,
        ];
        Ok(Self {
            opts: *opts,
            size: (width, height),
            plans,
            params,
            kernels,
        })
    }

    /// The int64 words the passes wrote: range records, then row sums.
    fn records(bufs: &[Buffer]) -> Result<Vec<u64>> {
        rows::words(
            bufs.get(ROWS)
                .ok_or_else(|| Error::Internal("adm without its buffers".into()))?,
        )
    }

    /// Each scale's row sums: numerator h, v, d and denominator h, v, d.
    fn row_sums(&self, records: &[u64]) -> [ScaleRows; 4] {
        std::array::from_fn(|s| {
            let p = &self.params[s];
            let at = p.rows_at as usize;
            let n = self.plans[s].window_rows() as usize;
            records[at..at + 6 * n]
                .chunks_exact(6)
                // Two's complement: the int64 numerator sums as written.
                .map(|w| ([w[0] as i64, w[1] as i64, w[2] as i64], [w[3], w[4], w[5]]))
                .unzip()
        })
    }
}

/// Each scale's push constants for `height`-row frames of `plans`.
fn scale_params(plans: &[ScalePlan; 4], opts: &AdmOptions, height: u32) -> [AdmParams; 4] {
    let egl = opts.enhn_gain_limit.to_bits();
    // The range records (2 per picture row), then each scale's rows.
    let mut rows_at = 2 * height;
    std::array::from_fn(|s| {
        let p = &plans[s];
        let [win_top, win_bottom, win_left, win_right] = p.window;
        let params = AdmParams {
            width: p.size.0,
            height: p.size.1,
            src_width: p.source.0,
            src_height: p.source.1,
            scale: s as u32,
            rows_at,
            egl_lo: egl as u32,
            egl_hi: (egl >> 32) as u32,
            fixed_hv: p.factors.fixed[0],
            fixed_d: p.factors.fixed[2],
            win_top,
            win_bottom,
            win_left,
            win_right,
            num_shift_hv: p.numerator_shifts[0],
            num_shift_d: p.numerator_shifts[2],
            den_square_shift: p.denominator_shifts.0,
            den_cube_shift: p.denominator_shifts.1,
        };
        rows_at += 6 * p.window_rows();
        params
    })
}

/// The buffers each slot holds for `plans`' frames (see [`ROWS`]).
fn slot_buffers(params: &[AdmParams; 4], plans: &[ScalePlan; 4]) -> Vec<BufferDecl> {
    let mut out = Vec::new();
    for (s, p) in params.iter().enumerate() {
        let bytes = 4 * p.width as u64 * p.height as u64 * 4;
        // The reference's bands of scale s follow from the wavelet's scales
        // to it (`super::super::derived`).
        let key = format!("{:?}", &params[..=s]);
        let name = |which: &str| format!("adm scale {} {which} bands", p.scale);
        out.push(BufferDecl::of_reference(name("reference"), bytes, key));
        out.push(BufferDecl::device(name("distorted"), bytes));
    }
    for p in params {
        out.push(BufferDecl::device(
            format!("adm scale {} decoupled planes", p.scale),
            DECOUPLED_PLANES * p.width as u64 * p.height as u64 * 4,
        ));
    }
    let words = params[3].rows_at as u64 + 6 * u64::from(plans[3].window_rows());
    out.push(BufferDecl::host("adm row sums", words * 8));
    out
}

/// Device bytes of a slot's buffers for `width` x `height` frames.
fn slot_bytes(opts: &AdmOptions, width: u32, height: u32) -> u64 {
    let plans = scale_plans(width, height, opts);
    super::device_bytes(&slot_buffers(&scale_params(&plans, opts, height), &plans))
}

gpu_plan!(AdmOptions => AdmGpu, slot_bytes = slot_bytes);

impl GpuMetric for AdmGpu {
    fn feature(&self) -> &'static str {
        crate::feature::adm::extractor::FEATURE
    }

    fn stage_names(&self) -> &'static [&'static str] {
        &STAGES
    }

    fn buffers(&self) -> Vec<BufferDecl> {
        slot_buffers(&self.params, &self.plans)
    }

    fn record(&self, r: &mut Recorder) {
        let [dwt0, dwt, decouple, rows_kernel] = self.kernels;
        let all: Vec<Buf> = (0..ROWS).map(|k| r.own(k)).collect();
        let bands = |s: usize, picture: usize| all[2 * s + picture];
        let sums = r.own(ROWS);
        for (s, p) in self.params.iter().enumerate() {
            let decoupled = all[DECOUPLED + s];
            let push = bytemuck::bytes_of(p);
            // One workgroup per output row and picture (z).
            if s == 0 {
                use binding::adm_dwt0 as b;
                let bufs = [
                    (b::RAW_REF, Buf::Raw(0)),
                    (b::RAW_DIST, Buf::Raw(1)),
                    (b::BANDS_REF, bands(0, 0)),
                    (b::BANDS_DIST, bands(0, 1)),
                    (b::ROW_SUMS, sums),
                    (b::REFERENCE_READY, Buf::Ready),
                ];
                r.dispatch(dwt0, [1, p.height, 2], &bufs, push);
            } else {
                use binding::adm_dwt as b;
                let bufs = [
                    (b::PREV_REF, bands(s - 1, 0)),
                    (b::PREV_DIST, bands(s - 1, 1)),
                    (b::BANDS_REF, bands(s, 0)),
                    (b::BANDS_DIST, bands(s, 1)),
                    (b::REFERENCE_READY, Buf::Ready),
                ];
                r.dispatch(dwt, [1, p.height, 2], &bufs, push);
            }
            r.end_stage();
            {
                use binding::adm_decouple as b;
                let bufs = [
                    (b::BANDS_REF, bands(s, 0)),
                    (b::BANDS_DIST, bands(s, 1)),
                    (b::DECOUPLED, decoupled),
                ];
                r.dispatch(decouple, [p.width, p.height, 1], &bufs, push);
                r.end_stage();
            }
            use binding::adm_rows as b;
            let bufs = [
                (b::DECOUPLED, decoupled),
                (b::BANDS_REF, bands(s, 0)),
                (b::ROW_SUMS, sums),
            ];
            // One workgroup per row of the active window.
            r.dispatch(
                rows_kernel,
                [1, self.plans[s].window_rows(), 1],
                &bufs,
                push,
            );
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
        let rows = self.row_sums(&Self::records(bufs)?);
        let scores = scores_from_rows(&self.plans, &rows, self.size);
        out.outputs.extend(&scores.outputs(&self.opts));
        Ok(())
    }

    /// The first luma sample above the bit depth of each picture, in raster
    /// order, from the scale-0 wavelet pass's row records (none at 8 and 16
    /// bits).
    fn sample_range(&self, bufs: &[Buffer], bit_depth: u32) -> Result<[Option<PlaneRange>; 2]> {
        let h = self.size.1 as usize;
        rows::luma_ranges(|| Self::records(bufs), 0, h, 1, bit_depth)
    }

    fn debug(&self, s: &VkScorer, bufs: &[Buffer], out: &mut MetricDebug) -> Result<()> {
        let ints = |b: &Buffer| -> Result<Vec<i32>> {
            s.read_back_with(b, false, |bytes| {
                bytes
                    .chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            })
        };
        let rows = self.row_sums(&Self::records(bufs)?);
        for (scale, (plan, (num, den))) in self.plans.iter().zip(rows).enumerate() {
            let n = plan.size.0 as usize * plan.size.1 as usize;
            // The first `count` planes (an allocation may be larger).
            let planes = |b: &Buffer, count: usize| -> Result<Vec<Vec<i32>>> {
                Ok(ints(b)?
                    .chunks_exact(n)
                    .take(count)
                    .map(<[i32]>::to_vec)
                    .collect())
            };
            let mut bands = planes(&bufs[2 * scale], 4)?;
            bands.extend(planes(&bufs[2 * scale + 1], 4)?);
            let mut decoupled = planes(&bufs[DECOUPLED + scale], DECOUPLED_PLANES as usize)?;
            let centre_sum = decoupled.pop().unwrap_or_default();
            let flat_sum = decoupled.pop().unwrap_or_default();
            out.adm.push(AdmScaleIntermediates {
                size: plan.size,
                bands,
                restored: decoupled,
                flat_sum,
                centre_sum,
                numerator_rows: num,
                denominator_rows: den,
            });
        }
        Ok(())
    }
}
