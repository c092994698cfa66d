//! libvmaf 2.3.1's integer `motion` on the device: `glsl/motion_sad.comp`
//! blurs each frame's reference luma, both directions, in tiles of
//! [`MOTION_ROWS`] rows by 512 columns, sums each row's absolute
//! differences (per 512-column chunk) against the previous frame's blurred
//! plane and writes this frame's. Both planes live in the buffers the plan
//! keeps for the whole scorer ([`GpuMetric::kept_buffers`]): two blurred
//! planes, ping-pong, and a parity word with a count of workgroups done.
//! `motion_sad` reads plane q (the parity's low bit) and writes plane 1 -
//! q, and its last workgroup to finish flips the parity (see the shader:
//! no workgroup reads it after that). (A pass that read and wrote one kept
//! plane in place was 6 times slower on the H200; an earlier copy pass,
//! `motion_keep`, cost 21 us a 4K frame there; the vertical blur was a pass
//! of its own, writing a plane the sums pass read, until both were one;
//! the flip was a pass of its own, `motion_flip`, until issue 28's eighth
//! session, which made a batch's pairs run two levels apart instead of
//! one.) Frames run their passes in submission order on the one compute
//! queue, each frame behind a barrier (the recorder's, before a program
//! that binds a kept buffer), so frame n reads the plane frame n-1 left,
//! the parity flipped once between: the previous reference the CPU twin's
//! frame job carries. The parity lives on the device, so it follows
//! the queue's order with no host bookkeeping, whichever slot, ring or path
//! (uploads, device-resident pairs, imported frames) submitted the frame;
//! its first value does not matter. A pair whose previous frame another
//! scorer took carries that frame's reference luma instead
//! (`super::super::previous`): the sums pass runs on it first
//! ([`GpuMetric::record_previous`]), leaving its blurred plane in the half
//! the frame's own sums pass then reads and the parity flipped once, as
//! frame n-1 would have. The host adds the rows in uint64 and finishes as the CPU
//! twin (`feature::motion`); the first frame of a stream (the first
//! submitted, or the first after [`VkScorer::end_stream`]) scores 0: it
//! reads whatever half the stream before left, or nothing written yet, and
//! the parity needs no reset. With `motion_force_zero` nothing is blurred:
//! `motion_sad` only checks the samples' range (`MotionParams::blur` 0; the
//! kept buffers are bound, never read), on frames of any size.
//!
//! libvmaf 3.2.0's motion ([`MotionVersion::V3_2_0`]) blurs the difference
//! of two consecutive reference frames, so the kept buffer holds the
//! previous frame's reference luma itself (two 16-bit samples a word):
//! `glsl/motion_v32_blur.comp` blurs previous - current vertically into a
//! slot buffer of int32 samples, and `glsl/motion_v32_sad.comp` blurs
//! horizontally, sums the absolute values per chunk and writes this frame's
//! reference into the kept buffer (no copy pass: the kept buffer is read in
//! the first stage and written in the second). A pair that carries its
//! previous reference runs the sums pass on it first with
//! `MotionParams::blur` 0: it only keeps the samples. The host finishes as
//! the CPU twin (`feature::motion::v32`).

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::super::recorder::{Buf, BufferDecl, Recorder};
use super::super::VkScorer;
use super::kept::KeptBuffers;
use super::{rows, FrameFinish, GpuMetric, MetricContext, MetricDebug, PlaneRange};
use crate::feature::motion::extractor::outputs_from_sad;
use crate::feature::motion::{check_size, MotionOptions, MotionVersion};
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{Kernel, MotionParams, Pipelines, Spec};
use crate::vk::shaders::{binding, ShaderName};
use crate::{Error, FrameScore, Result};

/// Rows of one workgroup of 2.3.1's sums pass (`glsl/motion_sad.comp`'s
/// `ROWS`).
const MOTION_ROWS: u32 = 4;

/// The stage 2.3.1's motion times: the blur with the sums (and the
/// parity's flip).
const STAGES: [&str; 1] = ["motion sad"];

/// The stages 3.2.0's motion times: the vertical blur of the difference,
/// then the horizontal blur with the sums.
const STAGES_V32: [&str; 2] = ["motion blur", "motion sad"];

/// The pass beside the sums pass.
#[derive(Clone, Copy)]
enum Blur {
    /// libvmaf 2.3.1's: `motion_sad` blurs the reference itself (and
    /// flips the parity).
    Reference,
    /// libvmaf 3.2.0's: the vertical blur of the frame difference
    /// (`motion_v32_blur`), before `motion_v32_sad`.
    Difference(Kernel),
    /// `motion_force_zero`: none (`motion_sad` only checks the range).
    None,
}

/// motion's plan (see the module docs).
pub(in crate::vk::scorer) struct MotionGpu {
    opts: MotionOptions,
    params: MotionParams,
    /// The frames' bit depth.
    bit_depth: u32,
    /// The passes before the sums pass.
    blur: Blur,
    /// The sums pass.
    sad: Kernel,
    /// What is carried from frame to frame (planes of two 16-bit samples a
    /// word, [`MotionGpu::words`]): 2.3.1's two blurred planes, then the
    /// parity word (see the module docs); 3.2.0's reference.
    kept: KeptBuffers,
}

impl MotionGpu {
    /// The plan for frames of `ctx`'s format (motion's size check first).
    pub(super) fn new(
        gpu: &Arc<Gpu>,
        pipelines: &Pipelines,
        ctx: &MetricContext,
        opts: &MotionOptions,
    ) -> Result<Self> {
        let (width, height, bit_depth) = ctx.format;
        check_size(width, height, bit_depth, opts)?;
        let spec = Some(Spec::new(bit_depth, 1, false));
        let kernel = |name| pipelines.kernel(gpu, name, spec);
        // Each chunk's sum through subgroup operations where the scorer
        // reduces with them (the same wrapping sum), in either version.
        let sums = ShaderName::MotionSad.reducing_with_subgroups(ctx.subgroups);
        let (blur, sad) = match (opts.force_zero, opts.version) {
            (true, _) => (Blur::None, kernel(sums)?),
            (false, MotionVersion::V2_3_1) => (Blur::Reference, kernel(sums)?),
            (false, MotionVersion::V3_2_0) => (
                Blur::Difference(kernel(ShaderName::MotionV32Blur)?),
                kernel(ShaderName::MotionV32Sad.reducing_with_subgroups(ctx.subgroups))?,
            ),
        };
        let mut this = Self {
            opts: *opts,
            params: MotionParams {
                width,
                height,
                blur: !matches!(blur, Blur::None) as u32,
            },
            bit_depth,
            blur,
            sad,
            kept: KeptBuffers::new(gpu),
        };
        // 3.2.0's reference; 2.3.1's two blurred planes (under
        // `motion_force_zero` bound only: a word).
        let plane = this.plane_bytes();
        let kept: &[(&str, u64)] = match blur {
            Blur::Difference(_) => &[("previous reference", plane)],
            Blur::Reference => &[("blurred planes", 2 * plane)],
            Blur::None => &[("blurred planes", 4)],
        };
        for (name, bytes) in kept {
            this.kept.push(gpu.create_buffer(
                &format!("vkssim motion {name}"),
                *bytes,
                vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
                MemoryLocation::GpuOnly,
            )?);
        }
        if !matches!(blur, Blur::Difference(_)) {
            // 2.3.1's parity and its count of workgroups done, which must
            // start at 0 (`glsl/motion_sad.comp`).
            this.kept.push_written("vkssim motion parity", &[0; 8])?;
        }
        Ok(this)
    }

    /// Words per row of the blurred planes: two 16-bit samples a word
    /// (`glsl/motion_sad.comp`), the last half-word of an odd row unused.
    fn words(&self) -> u32 {
        self.params.width.div_ceil(2)
    }

    /// Bytes of one blurred plane.
    fn plane_bytes(&self) -> u64 {
        plane_bytes(self.params.width, self.params.height)
    }

    /// Workgroups per row of the sums passes (`glsl/motion_sad.comp`,
    /// `motion_v32_sad.comp`): one per 512-column chunk (256 words).
    fn chunks(&self) -> usize {
        self.words().div_ceil(256) as usize
    }

    /// Whether the sums pass records samples above the bit depth (10 and
    /// 12 bits).
    fn records_range(&self) -> bool {
        matches!(self.bit_depth, 10 | 12)
    }

    /// The records the sums pass wrote (`glsl/motion_sad.comp`): each
    /// chunk's sum, then the range records; the slot's last buffer.
    fn records(bufs: &[Buffer]) -> Result<Vec<u64>> {
        rows::words(
            bufs.last()
                .ok_or_else(|| Error::Internal("motion without its buffers".into()))?,
        )
    }

    /// The frame's sum of absolute differences (each row's modulo 2^32, from
    /// its chunks' sums, added here in uint64); `None` under
    /// `motion_force_zero`.
    fn sad(&self, bufs: &[Buffer]) -> Result<Option<u64>> {
        if matches!(self.blur, Blur::None) {
            return Ok(None);
        }
        let records = Self::records(bufs)?;
        let sums = &records[..self.params.height as usize * self.chunks()];
        Ok(Some(
            sums.chunks_exact(self.chunks())
                .map(|row| row.iter().fold(0u32, |acc, &c| acc.wrapping_add(c as u32)) as u64)
                .sum(),
        ))
    }

    /// The sums pass on pictures `reference` and `distorted` with `params`:
    /// 2.3.1's (and `motion_force_zero`'s) writes this frame's blurred plane
    /// into one kept plane and sums against the other (the parity's);
    /// 3.2.0's sums the blurred difference and keeps the reference.
    fn record_sums(&self, r: &mut Recorder, reference: Buf, distorted: Buf, params: &MotionParams) {
        let push = bytemuck::bytes_of(params);
        // One invocation per word (a workgroup per 512-column chunk).
        let (w, h) = (self.words(), self.params.height);
        if let Blur::Difference(_) = self.blur {
            use binding::motion_v32_sad as b;
            let bufs = [
                (b::RAW_REF, reference),
                (b::RAW_DIST, distorted),
                (b::VERT, r.own(0)),
                (b::KEPT, r.kept(0)),
                (b::ROW_SAD, r.own(1)),
            ];
            r.dispatch(self.sad, [w, h, 1], &bufs, push);
            return;
        }
        use binding::motion_sad as b;
        let bufs = [
            (b::RAW_REF, reference),
            (b::RAW_DIST, distorted),
            (b::BLURRED, r.kept(0)),
            (b::ROW_SAD, r.own(0)),
            (b::PREVIOUS, r.kept(0)),
            (b::PARITY, r.kept(1)),
        ];
        // A workgroup per 512 columns (256 words) of MOTION_ROWS rows.
        r.dispatch(self.sad, [w, h.div_ceil(MOTION_ROWS), 1], &bufs, push);
    }
}

/// Bytes of one plane of `width` x `height` 16-bit samples, two a word,
/// each row starting a word.
fn plane_bytes(width: u32, height: u32) -> u64 {
    width.div_ceil(2) as u64 * height as u64 * 4
}

/// Bytes of 3.2.0's vertical blur of the frame difference: an int32 a
/// sample.
fn difference_bytes(width: u32, height: u32) -> u64 {
    width as u64 * height as u64 * 4
}

/// Whether `opts` runs 3.2.0's blur of the frame difference.
fn blurs_the_difference(opts: &MotionOptions) -> bool {
    !opts.force_zero && opts.version == MotionVersion::V3_2_0
}

/// Device bytes of a slot's buffers for `width` x `height` frames: 3.2.0's
/// vertical blur of the difference (2.3.1 has none: its sums pass blurs
/// both ways).
fn slot_bytes(opts: &MotionOptions, width: u32, height: u32) -> u64 {
    match blurs_the_difference(opts) {
        true => difference_bytes(width, height),
        false => 0,
    }
}

gpu_plan!(MotionOptions => MotionGpu, slot_bytes = slot_bytes);

impl GpuMetric for MotionGpu {
    fn feature(&self) -> &'static str {
        crate::feature::motion::FEATURE
    }

    fn stage_names(&self) -> &'static [&'static str] {
        match self.blur {
            Blur::Reference | Blur::None => &STAGES,
            Blur::Difference(_) => &STAGES_V32,
        }
    }

    fn buffers(&self) -> Vec<BufferDecl> {
        // Each chunk's sum, then at 10 and 12 bits each chunk's range
        // record per picture (glsl/motion_sad.comp).
        let records = if self.records_range() { 3 } else { 1 };
        let chunks = (self.params.height as usize * self.chunks()) as u64;
        if let Blur::Difference(_) = self.blur {
            // The vertical blur of the difference (an int32 a sample); the
            // records as above.
            let (w, h) = (self.params.width, self.params.height);
            return vec![
                BufferDecl::device("motion difference vertical blur", difference_bytes(w, h)),
                BufferDecl::host("motion chunk sums", records * chunks * 8),
            ];
        }
        vec![BufferDecl::host("motion chunk sums", records * chunks * 8)]
    }

    fn kept_buffers(&self) -> &[Buffer] {
        self.kept.all()
    }

    fn record(&self, r: &mut Recorder) {
        // 3.2.0's vertical blur of the difference before the sums pass.
        if let Blur::Difference(blur) = self.blur {
            use binding::motion_v32_blur as b;
            let push = bytemuck::bytes_of(&self.params);
            // One invocation per word of the blurred planes.
            let (w, h) = (self.words(), self.params.height);
            let bufs = [
                (b::RAW_REF, Buf::Raw(0)),
                (b::VERT, r.own(0)),
                (b::KEPT, r.kept(0)),
            ];
            r.dispatch(blur, [w, h, 1], &bufs, push);
            r.end_stage();
        }
        self.record_sums(r, Buf::Raw(0), Buf::Raw(1), &self.params);
        r.end_stage();
    }

    /// The pass on the previous reference a pair carries, leaving in the
    /// kept buffers what that frame's own would have: 2.3.1's blurred plane
    /// in the half the frame then reads, the parity flipped once (its sums
    /// are overwritten by the frame's), 3.2.0's reference (the sums pass
    /// keeping only).
    fn reads_previous_frame(&self) -> bool {
        true
    }

    fn record_previous(&self, r: &mut Recorder) {
        match self.blur {
            Blur::Reference => {
                self.record_sums(r, Buf::Previous, Buf::Previous, &self.params);
            }
            Blur::Difference(_) => {
                let keep_only = MotionParams {
                    blur: 0,
                    ..self.params
                };
                self.record_sums(r, Buf::Previous, Buf::Previous, &keep_only);
            }
            Blur::None => {}
        }
    }

    fn finish(
        &self,
        _s: &VkScorer,
        bufs: &[Buffer],
        _decided: Option<FrameScore>,
        out: &mut FrameFinish,
    ) -> Result<()> {
        // A stream's first frame has no previous one.
        let sad = self.sad(bufs)?.filter(|_| !out.first_of_stream);
        let size = (self.params.width, self.params.height);
        out.outputs.extend(&outputs_from_sad(sad, size, &self.opts));
        Ok(())
    }

    /// The first luma sample above the bit depth of each picture, in raster
    /// order, from the row records (none at 8 and 16 bits).
    fn sample_range(&self, bufs: &[Buffer], bit_depth: u32) -> Result<[Option<PlaneRange>; 2]> {
        let rows = self.params.height as usize;
        let chunks = self.chunks();
        let records = || Self::records(bufs);
        rows::luma_ranges(records, rows * chunks, rows, chunks, bit_depth)
    }

    fn debug(&self, s: &VkScorer, bufs: &[Buffer], out: &mut MetricDebug) -> Result<()> {
        out.motion_sad = self.sad(bufs)?;
        // 2.3.1's kept planes are the blurred reference (3.2.0's, the
        // reference): this frame's is the parity's half.
        if let (Blur::Reference, [planes, parity]) = (self.blur, self.kept.all()) {
            let half = s.read_back_with(parity, false, |b| (b[0] & 1) as usize)?;
            let both = rows::packed_samples(s, planes, self.params.width)?;
            let n = both.len() / 2;
            out.motion_blurred = both[half * n..(half + 1) * n].to_vec();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// The rows a workgroup of `glsl/motion_sad.comp` makes are the rows the
    /// plan dispatches a workgroup for. A shader making more would only
    /// overlap the bands and waste work, which no score would show (fewer
    /// would leave rows out, which the pass-by-pass tests catch).
    #[test]
    fn the_sums_pass_makes_the_rows_the_plan_dispatches() {
        let src = include_str!("../../../../../glsl/motion_sad.comp");
        let want = format!("const uint ROWS = {}u;", super::MOTION_ROWS);
        assert_eq!(src.matches(&want).count(), 1, "{want}");
    }
}
