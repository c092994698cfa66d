//! Recording a slot's command buffers once, at creation (and again when a
//! device-resident frame rebinds it): the staging copy and its ownership
//! transfer when there is one, then the scorer's program (every metric's
//! passes with their barriers and timestamps, `super::recorder`).

use ash::vk;

use super::recorder::Program;
use super::slots::ReferenceSource;
use super::VkScorer;
use crate::vk::commands;
use crate::{Error, Result};

impl VkScorer {
    /// Records slot `i`'s command buffers once; they are resubmitted per frame.
    pub(super) fn record(&self, i: usize) -> Result<()> {
        self.record_with(i, &self.program)
    }

    /// Records slot `i`'s command buffers with `program` (the scorer's own,
    /// or a debug frame's: the same sets, float_ssim's
    /// [`crate::vk::pipeline::Params::debug_writes`] on).
    pub(super) fn record_with(&self, i: usize, program: &Program) -> Result<()> {
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let slot = &self.slots[i];
        let raw_bufs = [slot.raw[0].raw, slot.raw[1].raw];
        // A slot bound to the host's planes reads them where they are (or
        // the packed copies its prologue made): no staging copy, and its own
        // buffers are not moved between queue families.
        let staging = slot.staging.as_ref().filter(|_| !slot.reads_external);
        let transfer = slot.transfer_cmd.filter(|_| !slot.reads_external);
        let copy = |cmd: vk::CommandBuffer| {
            if let Some(st) = staging {
                let half = self.sizes.picture.bytes().next_multiple_of(4);
                // A shared reference is read where it is: only the
                // distorted plane is copied.
                let first = (slot.reference != ReferenceSource::Own) as usize;
                for (p, dst) in raw_bufs.iter().enumerate().skip(first) {
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
        if let (Some(tcmd), Some((tfamily, _))) = (transfer, gpu.device.transfer) {
            commands::begin(gpu, tcmd)?;
            copy(tcmd);
            // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
            unsafe {
                commands::ownership_barrier(
                    gpu,
                    tcmd,
                    &raw_bufs,
                    (tfamily, gpu.device.compute_family),
                    true,
                )
            };
            commands::end(gpu, tcmd)?;
            commands::begin(gpu, cmd)?;
            // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
            unsafe {
                commands::ownership_barrier(
                    gpu,
                    cmd,
                    &raw_bufs,
                    (tfamily, gpu.device.compute_family),
                    false,
                )
            };
        } else {
            commands::begin(gpu, cmd)?;
            if staging.is_some() {
                copy(cmd);
                // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
                unsafe { commands::transfer_to_compute(gpu, cmd) };
            }
        }
        if program.sets != self.program.sets {
            return Err(Error::Internal(
                "a program whose sets are not the slots'".into(),
            ));
        }
        // SAFETY: `cmd` is recording on the compute family (begun above); the
        // slot's sets were made for this program's sets (checked above) and
        // its query pool for its timestamps.
        unsafe { self.emit(cmd, program, &[i], slot.queries) };
        // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
        unsafe { commands::compute_to_host(gpu, cmd) };
        commands::end(gpu, cmd)
    }
}
