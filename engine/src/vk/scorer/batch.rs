//! Batches of pairs: device-resident pairs (`super::external`) and pairs
//! uploaded on the direct path ([`VkScorer::launch_or_queue`]) are queued and
//! submitted together, several at a time, as
//! one command buffer that runs every pair's passes, level by level (the
//! levels of the scorer's program, `super::recorder`), the pairs' levels side
//! by side, so that one pass's dispatches of several pairs fill the device
//! together and the batch pays each barrier once, not once per pair. At 4K
//! the SSIM stage works on 480x270 planes, where a single pair's dispatches
//! are too small to fill a large GPU and the time between passes dominates.
//!
//! A program that writes a buffer kept from frame to frame (a temporal
//! metric's planes of the frame before) runs each pair that many levels
//! after the one before ([`super::recorder::Program::stagger`]): pair j's
//! levels until its last use of such a buffer are done, behind a barrier,
//! before pair j + 1's first, so the pairs meet the kept buffers in
//! submission order, as their own command buffers would; their other
//! levels run beside one another (the short last levels of one pair beside
//! the first, large ones of the next).
//!
//! Each pair still reads only its own slot's buffers (its descriptor set),
//! with the same pipelines and push constants as its own command buffer:
//! the same operations on the same data, so the same bits. The batch's
//! timestamps go into the last slot's query pool (the last pair's stages;
//! with pairs staggered, a stage's time holds the pairs' levels beside it),
//! and its time is shared equally among its pairs (`Slot::timed_pairs`).

use std::time::Instant;

use ash::vk;

use super::external::ExternalRing;
use super::VkScorer;
use crate::vk::commands;
use crate::vk::errors::vk_error;
use crate::{Error, Result};

/// The most uploaded pairs in one batch ([`VkScorer::launch_or_queue`]).
const UPLOAD_BATCH: usize = 4;

impl VkScorer {
    /// Whether a batch of these slots may be interleaved: two or more
    /// pairs, none carrying a previous reference (whose passes run in its
    /// own command buffer, before its pair's), and a program that does not
    /// time each pass alone.
    pub(super) fn interleaves(&self, slots: &[usize]) -> bool {
        slots.len() >= 2 && !self.previous.any_queued(slots) && !self.program.each_pass
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

    /// How many device-resident pairs without semaphores go to the device in
    /// one submission: half the ring, so one batch runs while the next fills.
    pub(super) fn batch_limit(&self) -> usize {
        (self.capacity / 2).max(1)
    }

    /// Submits the queued pairs (device-resident ones, see
    /// [`VkScorer::submit_external`], and uploaded ones, see
    /// [`VkScorer::launch_or_queue`]): one submission of every pair's prologue
    /// (a device-resident pair's) and passes, in order, with the last slot's
    /// fence, which every slot of the batch then waits on.
    pub(crate) fn flush_batch(&mut self) -> Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let ring = self.external.take();
        let r = self.flush_batch_with(ring.as_ref());
        self.external = ring;
        r
    }

    /// [`VkScorer::flush_batch`] with the device-resident ring taken out of
    /// the scorer (`None` when it has none).
    pub(super) fn flush_batch_with(&mut self, ring: Option<&ExternalRing>) -> Result<()> {
        let Some(&last) = self.batch.last() else {
            return Ok(());
        };
        let _submit = tracing::debug_span!("submit batch", pairs = self.batch.len()).entered();
        let t = Instant::now();
        let batch = std::mem::take(&mut self.batch);
        let interleaved = self.interleaves(&batch);
        // Each device-resident pair's prologue (an uploaded pair has none).
        let pres: Vec<Option<vk::CommandBuffer>> = batch
            .iter()
            .map(|&i| {
                let external = self.slots[i].reads_external;
                ring.filter(|_| external)
                    .and_then(|r| r.pre.get(i).copied())
            })
            .collect();
        let cmds: Vec<vk::CommandBuffer> = if interleaved {
            // Every prologue, then every pair's passes level by level.
            let recorded = self
                .batch_cmd(last)
                .and_then(|cmd| self.record_batch(cmd, &batch).map(|_| cmd));
            let cmd = match recorded {
                Ok(cmd) => cmd,
                Err(e) => {
                    self.batch = batch;
                    return Err(e);
                }
            };
            pres.iter().flatten().copied().chain([cmd]).collect()
        } else {
            let primers: Vec<Option<vk::CommandBuffer>> = batch
                .iter()
                .map(|&i| self.previous.take_queued(i))
                .collect();
            batch
                .iter()
                .zip(pres.iter().zip(primers))
                .flat_map(|(&i, (&pre, primer))| [pre, primer, Some(self.slots[i].cmd)])
                .flatten()
                .collect()
        };
        self.batch = batch;
        let gpu = &self.gpu;
        let fence = self.slots[last].fence;
        // SAFETY: the fence is not in use: the last slot's previous
        // submission was waited on before the slot was taken again, and no
        // other slot waits on it (those that did were finished first).
        unsafe { gpu.device.raw.reset_fences(&[fence]) }
            .map_err(|r| vk_error(r, "resetting a frame fence"))?;
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        // SAFETY: every slot's command buffers were recorded for their planes
        // and are not pending (each slot was free when taken); the host's
        // planes are valid while the pairs hold their imports.
        unsafe { gpu.submit(gpu.device.compute_queue, &[submit], fence) }.map_err(|r| {
            vk_error(
                r,
                format!("submitting a batch of {} frames", self.batch.len()),
            )
        })?;
        let n = self.batch.len() as u32;
        let batch = self.batch.clone();
        self.derived_submitted(&batch);
        for i in std::mem::take(&mut self.batch) {
            let slot = &mut self.slots[i];
            slot.fence_of = last;
            slot.queued = false;
            slot.timed_pairs = match (interleaved, i == last) {
                (false, _) => 1,
                (true, true) => n,
                (true, false) => 0,
            };
        }
        self.stats.submit_ns += t.elapsed().as_nanos() as u64;
        Ok(())
    }

    /// The queued pairs' result when their submission failed: each pair's
    /// result is `e` (they never reached the device).
    pub(super) fn fail_batch(&mut self, e: Error) {
        for i in std::mem::take(&mut self.batch) {
            self.slots[i].queued = false;
            self.slots[i].failed = Some(e.clone());
        }
    }

    /// Slot `i`'s command buffer for a batch whose last slot it is (made on
    /// first use). Free whenever slot `i` is: the batch's fence is slot
    /// `i`'s, waited for before the slot is taken again.
    fn batch_cmd(&mut self, i: usize) -> Result<vk::CommandBuffer> {
        while self.batch_cmds.len() <= i {
            let k = self.batch_cmds.len();
            let cmd = commands::allocate_command_buffer(
                &self.gpu,
                self.compute_pool,
                &format!("vkssim slot {k} batch"),
            )?;
            self.batch_cmds.push(cmd);
        }
        Ok(self.batch_cmds[i])
    }

    /// How many uploaded pairs go to the device in one submission: an eighth
    /// of the ring, at most [`UPLOAD_BATCH`]. The frames' readers hold most
    /// of the ring (three quarters, in the CLI), and a pair waiting in a
    /// batch holds a slot that neither a reader nor the device uses: with a
    /// quarter of a 16-slot ring in a batch, some metric lists ran slower on
    /// the H200 than with no batches, at 1080p and at 4K with large slots
    /// (BENCHMARKS.md, "Issue 28, eighth session").
    fn upload_batch_limit(&self) -> usize {
        (self.capacity / 8).clamp(1, UPLOAD_BATCH)
    }

    /// Submits uploaded slot `i`, the next frame: queued in the batch when
    /// its pair reads its own upload memory where the host wrote it (the
    /// direct path; with a staging copy it is launched at once, after the
    /// batch) and the ring holds more than one batch of pairs; the batch is
    /// submitted when full, or at once unless the device holds two of this
    /// scorer's submissions ([`VkScorer::device_busy`]: the batch then never
    /// waits for frames while the device runs out of work). A batch that
    /// cannot be submitted fails its pairs (each reports the error as its
    /// result).
    pub(super) fn launch_or_queue(&mut self, i: usize) -> Result<()> {
        let slot = &self.slots[i];
        let direct = slot.staging.is_none() && slot.transfer_cmd.is_none() && !slot.reads_external;
        if !direct || self.upload_batch_limit() < 2 || self.program.each_pass {
            return self.launch(i);
        }
        let t = Instant::now();
        self.slots[i].failed = None;
        self.queue_in_batch(i);
        // (The batch's submission counts its own time.)
        self.stats.submit_ns += t.elapsed().as_nanos() as u64;
        // A pair that makes a shared reference's derived planes goes at
        // once: the other scorers read them once it is on the queue.
        let making = self.slots[i].making.is_some();
        if making || self.batch.len() >= self.upload_batch_limit() || !self.device_busy() {
            if let Err(e) = self.flush_batch() {
                self.fail_batch(e);
            }
        }
        Ok(())
    }

    /// Queues slot `i`'s pair in the batch as the next frame; its previous
    /// reference's passes, when it carried one, go with it.
    pub(super) fn queue_in_batch(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        slot.frame = self.next_frame;
        slot.submitted = Some(Instant::now());
        slot.queued = true;
        self.previous.queue(i);
        self.batch.push(i);
        self.next_frame += 1;
    }

    /// Whether the device holds two of this scorer's submissions not yet
    /// done: then the one it runs next is queued behind the one it runs now,
    /// and a batch may wait for more pairs without the device running out
    /// of work (submissions run in their order, so the one before the last
    /// is the one to ask).
    pub(super) fn device_busy(&self) -> bool {
        let mut submissions = (0..self.state.pending())
            .rev()
            .filter_map(|k| self.state.pending_at(k))
            .filter(|&i| !self.slots[i].queued)
            .map(|i| self.slots[i].fence_of);
        let Some(last) = submissions.next() else {
            return false;
        };
        submissions
            .find(|&f| f != last)
            .is_some_and(|f| matches!(self.is_ready(f), Ok(false)))
    }
}
