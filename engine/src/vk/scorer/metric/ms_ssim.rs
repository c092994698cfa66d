//! libvmaf's `float_ms_ssim` on the device (docs/metrics.md): scale 0 is
//! float_ssim's decimate pass specialized to scale 1 (the samples converted,
//! no decimation); scales 1 to 4 are `glsl/lowpass.comp`, each from the one
//! before; on every scale float_ssim's own hfilter and terms passes run
//! (with `enable_lcs`) on that scale's planes, its sizes in the push
//! constants. Each scale's l, c and s means come from the terms pass's
//! fixed-point partial sums where they settle them ([`crate::vk::reduce`]),
//! else from the CPU twin's SSIM stage on that scale's two planes copied
//! back (the same terms, summed in raster order): the terms pass writes no
//! per-pixel terms for float_ms_ssim (`Params::term_writes` 0), 265 MB a 4K
//! frame at scale 0 that only such a frame would read.
//! [`crate::metric::ms_ssim::frame_outputs`] combines the means.

use super::super::host_sum::fixed_sums;
use super::super::recorder::{Buf, BufferDecl, Recorder};
use super::super::{not_mapped, VkScorer};
use super::{FrameFinish, GpuMetric, MetricContext, MetricDebug};
use crate::cpu::{stream::ssim_sums, FrameMeans, Plane};
use crate::metric::ms_ssim::{self, MsSsimOptions, SCALES};
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{
    decimate_invocations, FrameExtents, FramePass, Kernel, LowpassParams, Params, Pipelines, Spec,
};
use crate::vk::reduce;
use crate::vk::shaders::{binding, ShaderName};
use crate::{FrameScore, Result};

/// The stages float_ms_ssim times, one per pass: the scale-0 samples, the
/// four low-pass levels, then each scale's two SSIM passes.
pub(in crate::vk::scorer) const STAGES: [&str; 15] = [
    "ms_ssim samples",
    "ms_ssim lowpass 1",
    "ms_ssim lowpass 2",
    "ms_ssim lowpass 3",
    "ms_ssim lowpass 4",
    "ms_ssim hfilter 0",
    "ms_ssim terms 0",
    "ms_ssim hfilter 1",
    "ms_ssim terms 1",
    "ms_ssim hfilter 2",
    "ms_ssim terms 2",
    "ms_ssim hfilter 3",
    "ms_ssim terms 3",
    "ms_ssim hfilter 4",
    "ms_ssim terms 4",
];

/// float_ms_ssim's plan (see the module docs).
pub(in crate::vk::scorer) struct MsSsimGpu {
    opts: MsSsimOptions,
    /// Luma width, height and bit depth.
    format: (u32, u32, u32),
    /// Each scale's plane size.
    sizes: [(u32, u32); SCALES],
    /// float_ssim's passes specialized to scale 1 with `enable_lcs`, in
    /// [`FramePass::ALL`] order.
    passes: [Kernel; 3],
    lowpass: Kernel,
    /// Each scale's push constants for those passes.
    params: [Params; SCALES],
}

/// Its buffers, in declaration order: per scale its horizontal Gaussian
/// planes (one buffer per scale, not one shared in turn: a scale's SSIM
/// passes then wait only for its own low-pass level, so they run beside the
/// levels after it), per scale the terms pass's vertical Gaussian (written
/// only by debug frames, never by float_ms_ssim's: a word, one per scale so
/// that the scales' terms passes share no buffer they may write), then per
/// scale its two fp32 planes, the terms pass's per-pixel terms (never
/// written for float_ms_ssim: a word) and its partial sums (host-visible).
const fn hfilt(k: usize) -> usize {
    k
}
const fn vfilt(k: usize) -> usize {
    SCALES + k
}
const fn level(k: usize) -> usize {
    2 * SCALES + k
}
const fn terms(k: usize) -> usize {
    3 * SCALES + k
}
const fn partials(k: usize) -> usize {
    4 * SCALES + k
}

/// Device bytes of one scale's horizontal Gaussian planes for its plane of
/// `(w, h)` (five fp32 planes of its valid columns).
fn hfilt_bytes((w, h): (u32, u32)) -> u64 {
    5 * (w.saturating_sub(10) as u64) * h as u64 * 4
}

/// Device bytes of one scale's two fp32 planes.
fn planes_bytes((w, h): (u32, u32)) -> u64 {
    2 * w as u64 * h as u64 * 4
}

/// Device bytes of one slot's planes and terms for `width` x `height`
/// frames: the buffers that grow with the frame (each scale's horizontal
/// Gaussian and planes; [`MsSsimGpu`]'s `buffers` declares them).
pub(super) fn slot_bytes(width: u32, height: u32) -> u64 {
    let sizes = ms_ssim::scale_sizes(width, height);
    sizes
        .iter()
        .map(|&s| hfilt_bytes(s) + planes_bytes(s))
        .sum()
}

impl MsSsimGpu {
    /// The plan for frames of `ctx`'s format (float_ms_ssim's checks first).
    pub(super) fn new(
        gpu: &Gpu,
        pipelines: &Pipelines,
        ctx: &MetricContext,
        opts: &MsSsimOptions,
    ) -> Result<Self> {
        let (width, height, bit_depth) = ctx.format;
        ms_ssim::check_size(width, height, bit_depth)?;
        let sizes = ms_ssim::scale_sizes(width, height);
        let params = std::array::from_fn(|k| Params {
            tap_bits: 1.0f32.to_bits(),
            term_writes: 0,
            ..super::float_ssim::stage_params(ctx.format, 1, sizes[k], true)
        });
        let spec = Spec::new(bit_depth, 1, true);
        Ok(Self {
            opts: *opts,
            format: ctx.format,
            sizes,
            passes: pipelines.frame_passes(gpu, spec, ctx.subgroups)?,
            lowpass: pipelines.kernel(gpu, ShaderName::Lowpass, None)?,
            params,
        })
    }

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

    /// Each scale's l, c and s means (`ssim` is not used by float_ms_ssim and
    /// left NaN): from the partial sums where they settle all three, else from
    /// the CPU twin's SSIM stage on the scale's planes (its terms summed in
    /// raster order).
    ///
    /// Also says how many scales were summed on the host.
    fn means(&self, s: &VkScorer, bufs: &[Buffer]) -> Result<([FrameMeans; SCALES], u64)> {
        let mut fallbacks = 0;
        let mut means = [FrameMeans {
            ssim: f32::NAN,
            l: 0.0,
            c: 0.0,
            s: 0.0,
        }; SCALES];
        for (k, mean) in means.iter_mut().enumerate() {
            let bytes = bufs[partials(k)].mapped().ok_or_else(not_mapped)?;
            let n = self.valid_len(k);
            let decided = (!s.force_host_sum)
                .then(|| fixed_sums(bytes, self.groups(k), n))
                .flatten()
                .and_then(|f| {
                    Some([
                        reduce::decide(&f[1])?,
                        reduce::decide(&f[2])?,
                        reduce::decide(&f[3])?,
                    ])
                });
            let [l, c, sv] = match decided {
                Some(v) => v,
                None => {
                    fallbacks += 1;
                    let e = self.extents(k);
                    let (r, d) = self.planes(s, bufs, k)?;
                    let f = ssim_sums(&r, &d)?.means(e.hw, e.hh);
                    [f.l, f.c, f.s]
                }
            };
            (mean.l, mean.c, mean.s) = (l, c, sv);
        }
        Ok((means, fallbacks))
    }

    /// Scale `k`'s reference and distorted planes, copied back.
    fn planes(&self, s: &VkScorer, bufs: &[Buffer], k: usize) -> Result<(Plane, Plane)> {
        let (w, h) = self.sizes[k];
        let n = w as usize * h as usize;
        let mut reference = s.read_back_with(&bufs[level(k)], false, |b| {
            b[..2 * n * 4]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<f32>>()
        })?;
        let distorted = reference.split_off(n);
        Ok((Plane::new(w, h, reference)?, Plane::new(w, h, distorted)?))
    }
}

gpu_plan!(MsSsimOptions => MsSsimGpu, slot_bytes = |_: &MsSsimOptions, w, h| slot_bytes(w, h));

impl GpuMetric for MsSsimGpu {
    fn feature(&self) -> &'static str {
        ms_ssim::FEATURE
    }

    fn stage_names(&self) -> &'static [&'static str] {
        &STAGES
    }

    fn buffers(&self) -> Vec<BufferDecl> {
        // One buffer of each kind per scale, the kinds in the order of
        // `hfilt`, `vfilt`, `level`, `terms` and `partials`: (what, whether
        // the host reads it, its bytes at scale k).
        type BytesAt<'a> = &'a dyn Fn(usize) -> u64;
        let kinds: [(&str, bool, BytesAt); 5] = [
            ("horizontal Gaussian", false, &|k| {
                hfilt_bytes(self.sizes[k])
            }),
            ("vertical Gaussian (debug frames only)", false, &|_| 4),
            ("planes", false, &|k| planes_bytes(self.sizes[k])),
            ("terms (never written: a word)", false, &|_| 8),
            ("partial sums", true, &|k| {
                self.groups(k) * reduce::WORDS_PER_GROUP as u64 * 8
            }),
        ];
        kinds
            .iter()
            .flat_map(|&(what, host, bytes)| {
                (0..SCALES).map(move |k| {
                    let name = format!("ms_ssim scale {k} {what}");
                    match host {
                        true => BufferDecl::host(name, bytes(k)),
                        false => BufferDecl::device(name, bytes(k)),
                    }
                })
            })
            .collect()
    }

    fn record(&self, r: &mut Recorder) {
        let [decimate, hfilter, terms_pass] = self.passes;
        let (raw_ref, raw_dist) = (Buf::Raw(0), Buf::Raw(1));
        {
            use binding::decimate as b;
            let bufs = [
                (b::RAW_REF, raw_ref),
                (b::RAW_DIST, raw_dist),
                (b::DEC, r.own(level(0))),
                (b::RANGE, Buf::Range),
            ];
            let p = &self.params[0];
            let extent = decimate_invocations(&self.extents(0), p.scale, p.bit_depth);
            r.dispatch(decimate, extent, &bufs, bytemuck::bytes_of(p));
            r.end_stage();
        }
        for k in 1..SCALES {
            use binding::lowpass as b;
            let (sw, sh) = self.sizes[k - 1];
            let (dw, dh) = self.sizes[k];
            let lp = LowpassParams { sw, sh, dw, dh };
            let bufs = [(b::SRC, r.own(level(k - 1))), (b::DST, r.own(level(k)))];
            // z: the reference and the distorted plane.
            r.dispatch(self.lowpass, [dw, dh, 2], &bufs, bytemuck::bytes_of(&lp));
            r.end_stage();
        }
        for k in 0..SCALES {
            let e = self.extents(k);
            let push = bytemuck::bytes_of(&self.params[k]);
            let (hfilt, vfilt) = (r.own(hfilt(k)), r.own(vfilt(k)));
            {
                use binding::hfilter as b;
                let bufs = [
                    (b::RAW_REF, raw_ref),
                    (b::RAW_DIST, raw_dist),
                    (b::DEC, r.own(level(k))),
                    (b::HFILT, hfilt),
                    (b::RANGE, Buf::Range),
                ];
                r.dispatch(hfilter, FramePass::HFilter.invocations(&e), &bufs, push);
                r.end_stage();
            }
            {
                use binding::terms as b;
                let bufs = [
                    (b::HFILT, hfilt),
                    (b::VFILT, vfilt),
                    (b::TERMS, r.own(terms(k))),
                    (b::PARTIALS, r.own(partials(k))),
                ];
                r.dispatch(terms_pass, FramePass::Terms.invocations(&e), &bufs, push);
                r.end_stage();
            }
        }
    }

    fn finish(
        &self,
        s: &VkScorer,
        bufs: &[Buffer],
        _decided: Option<FrameScore>,
        out: &mut FrameFinish,
    ) -> Result<()> {
        let (means, fallbacks) = self.means(s, bufs)?;
        out.host_sums += fallbacks;
        let (w, h, depth) = self.format;
        out.outputs
            .extend(&ms_ssim::frame_outputs(&means, w, h, depth, &self.opts)?);
        Ok(())
    }

    fn debug(&self, s: &VkScorer, bufs: &[Buffer], out: &mut MetricDebug) -> Result<()> {
        for k in 0..SCALES {
            out.pyramid.push(self.planes(s, bufs, k)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// The low-pass table in glsl/lowpass.comp is the metric's, bit for bit.
    #[test]
    fn shader_lowpass_table_is_the_metrics() {
        let src = include_str!("../../../../../glsl/lowpass.comp");
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
