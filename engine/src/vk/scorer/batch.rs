//! The recorder of a batch of device-resident pairs (`super::external`):
//! one command buffer that runs every pair's passes, level by level (the
//! levels of the scorer's program, `super::recorder`), the pairs' levels side
//! by side, so that one pass's dispatches of several pairs fill the device
//! together and the batch pays each barrier once, not once per pair. At 4K
//! the SSIM stage works on 480x270 planes, where a single pair's dispatches
//! are too small to fill a large GPU and the time between passes dominates.
//!
//! A program that writes a buffer kept from frame to frame (motion's blurred
//! planes and parity) runs each pair that many levels after the one before
//! ([`super::recorder::Program::stagger`]): pair j's levels until its last
//! use of such a buffer are done, behind a barrier, before pair j + 1's
//! first, so the pairs meet the kept buffers in submission order, as their
//! own command buffers would; their other levels run beside one another
//! (the short last levels of one pair beside the first, large ones of the
//! next).
//!
//! Each pair still reads only its own slot's buffers (its descriptor set),
//! with the same pipelines and push constants as its own command buffer:
//! the same operations on the same data, so the same bits. The batch's
//! timestamps go into the last slot's query pool (the last pair's stages;
//! with pairs staggered, a stage's time holds the pairs' levels beside it),
//! and its time is shared equally among its pairs (`Slot::timed_pairs`).

use ash::vk;

use super::VkScorer;
use crate::vk::commands;
use crate::Result;

impl VkScorer {
    /// Whether a batch of these slots may be interleaved: two or more
    /// pairs, none carrying a previous reference (whose passes run in its
    /// own command buffer, before its pair's).
    pub(super) fn interleaves(&self, slots: &[usize]) -> bool {
        slots.len() >= 2 && !self.previous.any_queued(slots)
    }

    /// Records `cmd` with the scorer's program for
    /// every slot of `slots`, step by step (see the module docs); the slots'
    /// prologues run before it in the same submission.
    pub(super) fn record_batch(&self, cmd: vk::CommandBuffer, slots: &[usize]) -> Result<()> {
        let Some(&last) = slots.last() else {
            return Ok(());
        };
        let gpu = &self.gpu;
        commands::begin(gpu, cmd)?;
        // SAFETY: `cmd` is recording on the compute family (begun above); the
        // query pool belongs to the last slot, whose earlier work is done.
        unsafe { self.emit(cmd, &self.program, slots, self.slots[last].queries) };
        // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
        unsafe { commands::compute_to_host(gpu, cmd) };
        commands::end(gpu, cmd)
    }
}
