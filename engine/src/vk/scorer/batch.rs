//! The recorder of a batch of device-resident pairs (`super::external`):
//! one command buffer that runs each pass (of metrics that batch: the SSIM
//! stage's) for every pair of the
//! batch before the next pass, so that a pass's dispatches of several pairs
//! fill the device together and the batch pays each pass's barrier once, not
//! once per pair. At 4K the SSIM stage works on 480x270 planes, where a
//! single pair's dispatches are too small to fill a large GPU and the time
//! between passes dominates.
//!
//! Each pair still reads only its own slot's buffers (its descriptor set),
//! with the same pipelines and push constants as its own command buffer:
//! the same operations on the same data, so the same bits. The batch's
//! timestamps go into the last slot's query pool, and its time is shared
//! equally among its pairs (`Slot::timed_pairs`).

use ash::vk;

use super::VkScorer;
use crate::vk::commands;
use crate::Result;

impl VkScorer {
    /// Whether a batch of these slots may be interleaved: two or more
    /// pairs, and only metrics that batch ([`super::metric::GpuMetric::batches`];
    /// the others' passes stay in each slot's own command buffer), none
    /// carrying a previous reference.
    pub(super) fn interleaves(&self, slots: &[usize]) -> bool {
        slots.len() >= 2
            && self.gpu_metrics.iter().all(|m| m.batches())
            && !self.previous.any_queued(slots)
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
