//! The ring of frames in flight: slots handed out to be filled
//! (`acquire_slot`), submitted (`submit_slot`), waited on, their sums handed
//! to the worker threads and their scores taken back in submission order; and
//! [`FrameScorer`] on top of it.

use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use std::time::Instant;

use ash::vk;

use super::host_sum::SendConst;
use super::slots::{clear_range, Decided};
use super::upload::UploadSlot;
use super::{not_mapped, VkScorer};
use crate::vk::errors::vk_error;
use crate::vk::pipeline::RangeRecord;
use crate::vk::shared_plane::SharedPlane;
use crate::{Component, Error, FrameScore, FrameScorer, LumaFrame, PlaneRole, Result, SampleAt};

impl FrameScorer for VkScorer {
    fn submit(&mut self, reference: LumaFrame, distorted: LumaFrame) -> Result<()> {
        self.submit_carrying(reference, distorted, None)
    }

    fn poll_next(&mut self) -> Option<Result<FrameScore>> {
        if let Some(r) = self.done.pop_front() {
            return Some(r);
        }
        // Queued pairs go when nothing submitted is left before them or the
        // device is about to run out of work (else they wait for their batch
        // to fill).
        if !self.batch.is_empty()
            && (self.state.oldest().is_some_and(|i| self.slots[i].queued) || !self.device_busy())
        {
            if let Err(e) = self.flush_batch() {
                self.fail_batch(e);
            }
        }
        self.dispatch_ready();
        let i = self.state.oldest()?;
        let ready = match &self.slots[i].reduction {
            Some(rx) => match rx.try_recv() {
                Ok(r) => Some(r),
                Err(std::sync::mpsc::TryRecvError::Empty) => return None,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
            },
            None => match self.is_ready(i) {
                Ok(false) => return None,
                Ok(true) => None,
                Err(e) => {
                    self.state.finish_oldest();
                    return Some(Err(e));
                }
            },
        };
        match ready {
            Some(r) => {
                self.slots[i].reduction = None;
                let r = self.settle(i, Ok(r));
                self.state.finish_oldest();
                Some(r)
            }
            None => {
                self.finish_oldest();
                self.done.pop_front()
            }
        }
    }

    fn wait_next(&mut self) -> Option<Result<FrameScore>> {
        if self.done.is_empty() {
            self.finish_oldest();
        }
        self.done.pop_front()
    }

    fn in_flight(&self) -> usize {
        self.state.pending() + self.done.len()
    }

    fn queue_depth(&self) -> usize {
        self.capacity
    }
}

impl VkScorer {
    /// [`FrameScorer::submit`], the pair carrying its previous frame's
    /// reference luma `previous` when given (see [`super::previous`]).
    pub(crate) fn submit_carrying(
        &mut self,
        reference: LumaFrame,
        distorted: LumaFrame,
        previous: Option<&[u8]>,
    ) -> Result<()> {
        self.check_frame(&reference, "reference")?;
        self.check_frame(&distorted, "distorted")?;
        let slot = self.acquire_slot()?;
        if let Err(e) = self.copy_in(slot.slot, &reference, &distorted) {
            self.abandon_slot(slot);
            return Err(e);
        }
        self.submit_slot_sharing(slot, None, previous)
    }

    /// Copies the pair into slot `i` and submits its commands.
    pub(super) fn start(
        &mut self,
        i: usize,
        reference: &LumaFrame,
        distorted: &LumaFrame,
    ) -> Result<()> {
        self.copy_in(i, reference, distorted)?;
        self.launch(i)
    }

    /// Submits slot `i`, whose upload memory holds the next pair.
    pub(super) fn launch(&mut self, i: usize) -> Result<()> {
        let t = Instant::now();
        let r = self.launch_inner(i);
        self.stats.submit_ns += t.elapsed().as_nanos() as u64;
        r
    }

    pub(super) fn launch_inner(&mut self, i: usize) -> Result<()> {
        // Whether the pair carried its previous reference (taken first: an
        // error below drops it with the pair).
        let previous = self.previous.launch(i);
        // Device-resident pairs queued before this one go first.
        self.flush_batch()?;
        self.slots[i].fence_of = i;
        self.slots[i].failed = None;
        self.slots[i].timed_pairs = 1;
        let frame = self.next_frame;
        let span = tracing::debug_span!("frame", index = frame);
        let _enter = span.enter();
        let _submit = tracing::debug_span!("submit").entered();
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let slot = &mut self.slots[i];
        // SAFETY: the fence is not in use (the slot's last submission was waited
        // on before it was handed out again).
        unsafe { d.reset_fences(&[slot.fence]) }
            .map_err(|r| vk_error(r, "resetting a frame fence"))?;
        // The previous reference's passes first, when the pair carried one
        // (`super::previous`).
        let both = previous.map(|p| [p, slot.cmd]);
        let one = [slot.cmd];
        let cmds: &[vk::CommandBuffer] = match &both {
            Some(b) => b,
            None => &one,
        };
        let submitted = if let (Some(tcmd), Some(sem), Some((_, tqueue))) =
            (slot.transfer_cmd, slot.semaphore, gpu.device.transfer)
        {
            let tcmds = [tcmd];
            let sems = [sem];
            let t_submit = [vk::SubmitInfo::default()
                .command_buffers(&tcmds)
                .signal_semaphores(&sems)];
            let stages = [vk::PipelineStageFlags::COMPUTE_SHADER];
            let c_submit = [vk::SubmitInfo::default()
                .wait_semaphores(&sems)
                .wait_dst_stage_mask(&stages)
                .command_buffers(cmds)];
            // SAFETY: the command buffers (the slot's, and its previous
            // reference's) are executable and not pending; the
            // semaphore is unsignalled (its last signal was waited on by the
            // compute submission whose fence we waited for).
            unsafe {
                gpu.submit(tqueue, &t_submit, vk::Fence::null())
                    .and_then(|_| gpu.submit(gpu.device.compute_queue, &c_submit, slot.fence))
            }
        } else {
            let submit = [vk::SubmitInfo::default().command_buffers(cmds)];
            // SAFETY: the slot's command buffers (its own, and its previous
            // reference's) are executable and not pending (its fence was
            // waited for before the slot was handed out), and the fence is
            // reset.
            unsafe { gpu.submit(gpu.device.compute_queue, &submit, slot.fence) }
        };
        submitted.map_err(|r| vk_error(r, format!("submitting frame {frame}")))?;
        slot.frame = frame;
        slot.submitted = Some(Instant::now());
        self.next_frame += 1;
        self.derived_submitted(&[i]);
        Ok(())
    }

    /// Waits for slot `i`'s fence.
    pub(super) fn wait(&self, i: usize) -> Result<()> {
        let slot = &self.slots[i];
        if let Some(e) = &slot.failed {
            return Err(e.clone());
        }
        if slot.queued {
            return Err(Error::Internal(format!(
                "frame {}: waited for before its batch was submitted",
                slot.frame
            )));
        }
        let fence = self.slots[slot.fence_of].fence;
        let _wait = tracing::debug_span!("wait", index = slot.frame).entered();
        // SAFETY: the fence belongs to this device.
        unsafe {
            self.gpu
                .device
                .raw
                .wait_for_fences(&[fence], true, u64::MAX)
        }
        .map_err(|r| vk_error(r, format!("waiting for frame {}", slot.frame)))
    }

    /// Waits for every slot's last submission, ignoring errors (on the way
    /// out). The device is shared: this waits for this scorer's own work only
    /// (every fence is signalled at creation, so unsubmitted slots pass at
    /// once).
    pub(super) fn wait_own_work(&self) {
        let fences: Vec<vk::Fence> = self
            .slots
            .iter()
            .map(|s| s.fence)
            .filter(|f| *f != vk::Fence::null())
            .collect();
        if !fences.is_empty() {
            // SAFETY: the fences belong to this device.
            let _ = unsafe { self.gpu.device.raw.wait_for_fences(&fences, true, u64::MAX) };
        }
    }

    /// Whether slot `i`'s work has finished.
    pub(super) fn is_ready(&self, i: usize) -> Result<bool> {
        let slot = &self.slots[i];
        if let Some(e) = &slot.failed {
            return Err(e.clone());
        }
        if slot.queued {
            return Ok(false);
        }
        // SAFETY: the fence belongs to this device.
        unsafe {
            self.gpu
                .device
                .raw
                .get_fence_status(self.slots[slot.fence_of].fence)
        }
        .map_err(|r| vk_error(r, format!("polling frame {}", self.slots[i].frame)))
    }

    /// The score of slot `i`, whose fence has signalled: from the device's
    /// partial sums, else from its terms copied back and summed on the host.
    pub(super) fn score(&mut self, i: usize) -> Result<FrameScore> {
        self.read_timestamps(i);
        let slot = &self.slots[i];
        if let Some(t) = slot.submitted {
            tracing::debug!(
                frame = slot.frame,
                latency_us = t.elapsed().as_micros() as u64,
                "frame scored"
            );
        }
        let mut decided = Decided::new();
        for (m, bufs) in self.gpu_metrics.iter().zip(&self.slots[i].bufs) {
            decided.push(match m.reduced_buffer() {
                Some(k) => {
                    let bytes = bufs[k].mapped().ok_or_else(not_mapped)?;
                    m.reduce(bytes, self.force_host_sum)
                }
                None => None,
            });
        }
        self.settle(i, Ok(decided))
    }

    /// The score of slot `i` from what its worker decided: every metric's
    /// outputs in the list's order ([`super::metric::GpuMetric::finish`]; a
    /// metric whose partial sums did not settle a frame copies its terms
    /// back and sums them here in raster order, the rare fallback counted
    /// in [`super::HostStats::host_sum_fallbacks`]). The slot must not have
    /// been reused since its fence signalled.
    pub(super) fn settle(&mut self, i: usize, decided: Result<Decided>) -> Result<FrameScore> {
        // The frame is done: a shared reference may go back to its pool.
        self.slots[i].holding = None;
        self.slots[i].imports = [None, None];
        if let Err(e) = self.check_range(i) {
            self.keep_refused(i, &e);
            return Err(e);
        }
        let decided = decided?;
        self.last_slot = Some(i);
        let finished = self.finish_metrics(i, decided)?;
        self.stats.host_sum_fallbacks += (finished.host_sums > 0) as u64;
        if self.metrics.keep {
            self.metrics.done.push_back(finished.outputs.clone());
        }
        // The frame's score as the CPU twin gives it: every output by name
        // in the list's order, what the metrics keep of it.
        let mut full = FrameScore::empty();
        (full.outputs, full.side) = (finished.outputs, finished.side);
        Ok(full)
    }

    /// [`Error::SampleRange`] when slot `i`'s passes found a sample above the
    /// bit depth (the reference picture's first, else the distorted
    /// picture's; within a picture, luma before Cb before Cr), naming the
    /// frame and the sample's position within its plane: the decimate pass
    /// checks luma, psnr's pass every plane it uploads. The decimate pass's
    /// record is then reset for the slot's next frame (psnr's is rewritten
    /// every frame).
    fn check_range(&mut self, i: usize) -> Result<()> {
        let g = self.sizes.geometry;
        let metric = self.metric_range(i)?;
        let slot = &mut self.slots[i];
        let bytes = slot.range.mapped().ok_or_else(not_mapped)?;
        let rec: RangeRecord =
            bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<RangeRecord>()]);
        if rec != RangeRecord::CLEAR {
            clear_range(&mut slot.range)?;
        }
        let found = (0..2).find_map(|p| {
            if rec.first[p] != RangeRecord::NONE {
                let at = rec.first[p];
                let luma = Component::Luma;
                return Some((p, luma, at % g.width, at / g.width, rec.value[p]));
            }
            metric[p].map(|r| (r.picture, Component::at(r.plane), r.x, r.y, r.value))
        });
        let Some((p, component, x, y, value)) = found else {
            return Ok(());
        };
        Err(Error::SampleRange {
            plane: Some([PlaneRole::Reference, PlaneRole::Distorted][p]),
            component,
            at: SampleAt::Device,
            frame: slot.frame,
            x,
            y,
            value,
            max: (1 << g.bit_depth) - 1,
            bit_depth: g.bit_depth,
        })
    }

    /// Slot `i`'s fence signalled: reads its timestamps and hands what the
    /// metrics decide from their host-visible buffers
    /// ([`super::metric::GpuMetric::reduce`]) to a worker thread; the result
    /// is received by `finish_oldest` or `poll_next`. (Handing slots over before their fence
    /// signalled, with the worker waiting on it, measured slower on the H200:
    /// see BENCHMARKS.md.)
    pub(super) fn dispatch(&mut self, i: usize) -> Result<()> {
        self.read_timestamps(i);
        let force = self.force_host_sum;
        let (tx, rx) = sync_channel(1);
        // Each metric that decides on a worker, by position, with the bytes
        // of the buffer it reads.
        let mut jobs = Vec::new();
        for (k, (m, bufs)) in self.gpu_metrics.iter().zip(&self.slots[i].bufs).enumerate() {
            if let Some(b) = m.reduced_buffer() {
                let bytes = bufs[b].mapped().ok_or_else(not_mapped)?;
                jobs.push((k, Arc::clone(m), SendConst(bytes.as_ptr(), bytes.len())));
            }
        }
        let n = self.gpu_metrics.len();
        if jobs.is_empty() {
            // Nothing to decide: the metrics' outputs are taken when the
            // result is received.
            let _ = tx.send(vec![None; n]);
            self.slots[i].reduction = Some(rx);
            return Ok(());
        }
        let slot = &mut self.slots[i];
        self.workers.run(move || {
            let mut decided: Decided = vec![None; n];
            for (k, m, buf) in jobs {
                // SAFETY: the slot's buffer stays mapped and unwritten until
                // this result is received: the slot is not resubmitted and
                // not destroyed before (`finish_oldest`, `poll_next` and
                // `Drop` receive it first), and the GPU finished writing it
                // (its fence signalled).
                let bytes = unsafe { std::slice::from_raw_parts(buf.0, buf.1) };
                decided[k] = m.reduce(bytes, force);
            }
            let _ = tx.send(decided);
        })?;
        slot.reduction = Some(rx);
        Ok(())
    }

    /// Hands every pending slot whose fence has signalled, oldest first, to the
    /// workers (without blocking), so sums run while the caller reads and
    /// submits.
    pub(super) fn dispatch_ready(&mut self) {
        for k in 0..self.state.pending() {
            let Some(i) = self.state.pending_at(k) else {
                return;
            };
            if self.slots[i].reduction.is_some() {
                continue;
            }
            if !matches!(self.is_ready(i), Ok(true)) || self.dispatch(i).is_err() {
                // Errors surface when `finish_oldest` reaches this slot.
                return;
            }
        }
    }

    /// Finishes the oldest pending frame into `done` (waiting for its fence and
    /// for its sum).
    pub(super) fn finish_oldest(&mut self) {
        if let Err(e) = self.flush_batch() {
            // Nothing of the batch reached the device: its pairs fail.
            self.fail_batch(e);
        }
        let Some(i) = self.state.finish_oldest() else {
            return;
        };
        if self.slots[i].reduction.is_none() {
            let t = Instant::now();
            let waited = self.wait(i);
            self.stats.fence_wait_ns += t.elapsed().as_nanos() as u64;
            if let Err(e) = waited.and_then(|_| self.dispatch(i)) {
                self.done.push_back(Err(e));
                return;
            }
        }
        let t = Instant::now();
        let received = self.slots[i].reduction.take().map(|rx| rx.recv());
        self.stats.sum_wait_ns += t.elapsed().as_nanos() as u64;
        let r = match received {
            Some(Ok(decided)) => self.settle(i, Ok(decided)),
            _ => Err(Error::Internal(format!(
                "frame {}: the thread summing its terms stopped",
                self.slots[i].frame
            ))),
        };
        if let (Ok(_), Some(t)) = (&r, self.slots[i].submitted) {
            tracing::debug!(
                frame = self.slots[i].frame,
                latency_us = t.elapsed().as_micros() as u64,
                "frame scored"
            );
        }
        self.done.push_back(r);
    }

    /// A slot free for the next frame: neither submitted and unscored nor
    /// handed out. When every slot is busy this finishes the oldest submitted
    /// frame (its result is queued for `poll_next`/`wait_next`). Slots are
    /// taken round-robin from the last one taken, so that a ring nobody gives
    /// slots back to out of order is used in order.
    /// A free slot with upload buffers (a slot the device-resident ring
    /// added gets them now: [`VkScorer::make_upload_buffers`]).
    pub(super) fn free_host_slot(&mut self) -> Result<usize> {
        let i = self.free_slot()?;
        // On an error the slot stays free (a slot taken free is free until
        // it is handed out or submitted).
        self.make_upload_buffers(i)?;
        Ok(i)
    }

    pub(super) fn free_slot(&mut self) -> Result<usize> {
        if self.state.all_busy(self.slots.len()) {
            if let Some(i) = self.grow()? {
                // A new slot: the next search starts after it.
                self.state.take_free(self.slots.len());
                return Ok(i);
            }
        }
        let n = self.slots.len();
        if self.state.all_busy(n) && self.state.pending() > 0 {
            self.finish_oldest();
        }
        self.state.take_free(n).ok_or_else(|| {
            Error::InvalidOption(format!(
                "all {n} upload slots are handed out; submit one before taking another"
            ))
        })
    }

    /// Hands out a free ring slot for the caller to fill with one pair's raw
    /// samples (from any thread), without copying through a [`LumaFrame`]: e.g.
    /// a reader writes the files' luma straight into the mapped memory. Give it
    /// back with [`VkScorer::submit_slot`] (scored as the next frame: results
    /// come in the order slots are submitted, whatever order they were handed
    /// out in) or [`VkScorer::abandon_slot`]. When every slot is busy this
    /// waits for the oldest submitted frame (its result is queued for
    /// `poll_next`/`wait_next`); when every slot is handed out it is an error.
    pub fn acquire_slot(&mut self) -> Result<UploadSlot> {
        let i = self.free_host_slot()?;
        let half = self.sizes.picture.bytes().next_multiple_of(4) as usize;
        let len = self.sizes.raw_bytes as usize;
        let chroma_len = self.sizes.picture.chroma_bytes() as usize;
        let slot = &mut self.slots[i];
        let planes = if let Some(st) = slot.staging.as_mut() {
            let m = st.mapped_mut().ok_or_else(not_mapped)?;
            let (a, b) = m.split_at_mut(half);
            [a.as_mut_ptr(), b.as_mut_ptr()]
        } else {
            let [r0, r1] = &mut slot.raw;
            let a = r0.mapped_mut().ok_or_else(not_mapped)?;
            let b = r1.mapped_mut().ok_or_else(not_mapped)?;
            [a.as_mut_ptr(), b.as_mut_ptr()]
        };
        self.state.hand_out(i);
        Ok(UploadSlot {
            scorer: self.id,
            slot: i,
            planes,
            len,
            chroma_len,
        })
    }

    /// Submits a slot filled by the caller (see [`VkScorer::acquire_slot`]); it
    /// is scored as the next frame.
    pub fn submit_slot(&mut self, slot: UploadSlot) -> Result<()> {
        self.submit_slot_sharing(slot, None, None)
    }

    /// [`VkScorer::submit_slot`], the slot's reference being `reference`
    /// when given (see [`super::shared_ref`]), and its previous frame's
    /// reference luma `previous` when given (packed: the pair's frame then
    /// reads it as its previous frame, whatever this scorer scored before;
    /// see [`super::previous`]).
    ///
    /// Errors: as [`VkScorer::submit_slot`]; a plane of another device, or a
    /// scorer of device frames, a previous reference of another size (the
    /// slot then returns to the ring unused).
    pub(crate) fn submit_slot_sharing(
        &mut self,
        slot: UploadSlot,
        reference: Option<&SharedPlane>,
        previous: Option<&[u8]>,
    ) -> Result<()> {
        // Back from the caller: free again unless it is launched (an error
        // before that returns it to the ring unused).
        if slot.scorer != self.id || !self.state.take_back(slot.slot) {
            return Err(Error::InvalidOption(format!(
                "upload slot {} given back to another scorer (or twice)",
                slot.slot
            )));
        }
        let i = slot.slot;
        self.read_own_planes(i)?;
        self.read_reference_from(i, reference)?;
        if let Some(luma) = previous {
            self.carry_previous(i, luma)?;
        }
        self.launch_or_queue(i)?;
        self.state.submit_taken(i);
        self.dispatch_ready();
        Ok(())
    }

    /// Gives back a slot without scoring it (e.g. its read failed): it returns
    /// to the ring unused; slots handed out after it are not affected.
    pub fn abandon_slot(&mut self, slot: UploadSlot) {
        if slot.scorer != self.id {
            return;
        }
        self.state.take_back(slot.slot);
    }

    /// Returns every slot handed out to the ring unused: the caller proved
    /// that none of them is written any more (see `api::FrameSlots`).
    pub(crate) fn reclaim_slots(&mut self) {
        self.state.reclaim_all();
    }
}
