//! Frames already on the device: [`VkScorer`] reading a host application's own
//! imported `vk::Buffer`s and images instead of its upload buffers, with the
//! host's semaphores to wait on and to signal (the library API's
//! device-resident path: `crate::api::Engine::import_buffer` and
//! `crate::api::Scorer::submit`).
//!
//! A pair whose planes are tightly packed (row pitch = row bytes), whose offset
//! meets the device's `minStorageBufferOffsetAlignment` and whose plane size is
//! a multiple of 4 bytes is read in place: the slot's descriptor set points at
//! the host's buffers (zero-copy). Any other pair is first copied on the device,
//! row by row, into packed buffers of the slot (no host round trip). Each
//! submission is `[pre, slot command buffer]`: `pre` holds a barrier that makes
//! earlier writes on the queue visible to the copy and the passes, and the row
//! copies when needed. Updating a set invalidates the command buffers it is
//! bound in, so the slot's command buffer is re-recorded whenever the buffers it
//! reads change (not when the same buffers come back).
//!
//! Planes in host images, and buffers owned by another queue family, are
//! always copied (with their barriers and ownership transfers, and the shift
//! of MSB-aligned samples: `crate::vk::image_input`).
//!
//! The ring of `pre` command buffers and packed buffers ([`ExternalRing`]) is
//! made on the scorer's first device-resident pair and lives in the scorer.
//! A slot's binding is keyed by the imports' identities (never reused), so a
//! host that destroys a buffer and gets the same handle value back for a new
//! one is still rebound; each pair holds its imports
//! ([`crate::vk::import_hold`]) until its fence signalled.

use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use std::sync::Arc;

use super::slots::ReferenceSource;
use super::{commands, VkScorer};
use crate::frame::bytes_per_sample;
use crate::vk::errors::vk_error;
use crate::vk::image_input::{self, ExternalSource, PlaneSize};
use crate::vk::import_hold::ImportHold;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{self, Kernel};
use crate::vk::shaders::ShaderName;
use crate::{Error, Result};

/// One luma plane in a host buffer: `height` rows of `width` samples, rows
/// `row_pitch` bytes apart, starting `offset` bytes into `buffer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExternalPlane {
    pub(crate) buffer: vk::Buffer,
    pub(crate) offset: u64,
    pub(crate) row_pitch: u64,
}

/// A semaphore to wait on (before any of the pair's work) or to signal (after
/// it); `value` is the timeline value, `None` for a binary semaphore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExternalSemaphore {
    pub(crate) semaphore: vk::Semaphore,
    pub(crate) value: Option<u64>,
}

/// What a slot's descriptor set reads its raw planes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    /// The slot's own upload buffers (host frames).
    Own,
    /// Host buffers or images (key: the two imports' identities).
    External([u64; 2]),
    /// Unknown (the host may have destroyed what it pointed at): rebind.
    Stale,
}

/// Per-slot resources of the device-resident path (see the module docs).
pub(crate) struct ExternalRing {
    /// Per slot: its prologue (see the module docs).
    pub(super) pre: Vec<vk::CommandBuffer>,
    packed: Vec<Option<[Buffer; 2]>>,
    bound: Vec<Bound>,
    /// The `msb_shift` pipeline, taken on first use (owned by the
    /// scorer's pipelines).
    shift: Option<Kernel>,
    /// The shift's descriptor sets (one per slot, made with its packed
    /// buffers, which they bind) and their pool.
    shift_pool: vk::DescriptorPool,
    shift_sets: Vec<vk::DescriptorSet>,
}

impl VkScorer {
    /// Makes the per-slot resources of [`VkScorer::submit_external`] on the
    /// first device-resident pair (every slot of the ring at once).
    fn ensure_external_ring(&mut self) -> Result<()> {
        if self.external.is_some() {
            return Ok(());
        }
        // Device-resident pairs go in batches of half the ring: a deeper
        // ring for them (`crate::api::in_flight`).
        self.capacity = self.capacity.max(self.device_capacity);
        while self.grow()?.is_some() {}
        let mut ring = ExternalRing {
            pre: Vec::new(),
            packed: Vec::new(),
            bound: Vec::new(),
            shift: None,
            shift_pool: vk::DescriptorPool::null(),
            shift_sets: Vec::new(),
        };
        let slots = self.slots.len() as u32;
        match pipeline::create_descriptor_pool(
            &self.gpu,
            slots,
            slots * ShaderName::MsbShift.bindings().len() as u32,
            "vkssim msb_shift sets",
        ) {
            Ok(pool) => ring.shift_pool = pool,
            Err(e) => {
                self.destroy_ring(ring);
                return Err(e);
            }
        }
        for i in 0..self.slots.len() {
            match commands::allocate_command_buffer(
                &self.gpu,
                self.compute_pool,
                &format!("vkssim slot {i} device-resident prologue"),
            ) {
                Ok(cmd) => ring.pre.push(cmd),
                Err(e) => {
                    self.destroy_ring(ring);
                    return Err(e);
                }
            }
            ring.packed.push(None);
            ring.shift_sets.push(vk::DescriptorSet::null());
            ring.bound.push(Bound::Own);
        }
        self.external = Some(ring);
        Ok(())
    }

    /// Frees the device-resident ring's command buffers, shift pass and
    /// packed buffers; the scorer's work must be done (its `Drop` waits).
    pub(super) fn destroy_external_ring(&mut self) {
        if let Some(ring) = self.external.take() {
            self.destroy_ring(ring);
        }
    }

    fn destroy_ring(&self, mut ring: ExternalRing) {
        let d = &self.gpu.device.raw;
        if !ring.pre.is_empty() {
            // SAFETY: the buffers came from this pool and are not pending (the
            // fences of every submission that used them signalled).
            unsafe { d.free_command_buffers(self.compute_pool, &ring.pre) };
        }
        if ring.shift_pool != vk::DescriptorPool::null() {
            // SAFETY: no submission using its sets is pending (fences waited
            // on); the sets go with it.
            unsafe { d.destroy_descriptor_pool(ring.shift_pool, None) };
        }
        for bufs in ring.packed.iter_mut().flatten() {
            for b in bufs.iter_mut() {
                self.gpu.destroy_buffer(b);
            }
        }
    }

    /// Bytes of one tightly packed raw plane.
    fn plane_bytes(&self) -> u64 {
        self.sizes.raw_bytes
    }

    /// Bytes of one row of raw samples.
    fn row_bytes(&self) -> u64 {
        let g = &self.sizes.geometry;
        g.width as u64 * bytes_per_sample(g.bit_depth) as u64
    }

    /// Whether `source` can be read in place.
    fn zero_copy(&self, source: &ExternalSource) -> bool {
        let Some(p) = source.in_place() else {
            return false;
        };
        let align = self
            .gpu
            .device
            .info
            .properties
            .limits
            .min_storage_buffer_offset_alignment
            .max(4);
        p.row_pitch == self.row_bytes() && p.offset % align == 0 && self.plane_bytes() % 4 == 0
    }

    /// Points slot `i`'s raw bindings at `sources` (buffer, offset, range).
    fn bind_raw(&mut self, i: usize, [r, d]: [(vk::Buffer, u64, u64); 2]) {
        self.bind_planes(i, &[(0, r), (1, d)]);
    }

    /// Points slot `i` (not in flight) back at its own upload buffers when a
    /// device-resident pair left it bound to the host's, re-recording it.
    pub(super) fn read_own_planes(&mut self, i: usize) -> Result<()> {
        if !self
            .external
            .as_ref()
            .is_some_and(|r| r.bound[i] != Bound::Own)
        {
            return Ok(());
        }
        self.rebind_own_planes(i)
    }

    /// Points slot `i` (not in flight) at its own upload buffers and
    /// re-records it, whatever it read before.
    pub(super) fn rebind_own_planes(&mut self, i: usize) -> Result<()> {
        let whole = vk::WHOLE_SIZE;
        let raw = [
            (self.slots[i].raw[0].raw, 0, whole),
            (self.slots[i].raw[1].raw, 0, whole),
        ];
        self.bind_raw(i, raw);
        self.slots[i].reference = ReferenceSource::Own;
        self.slots[i].reads_external = false;
        self.set_bound(i, Bound::Own);
        let recorded = self.use_derived(i, None).and_then(|_| self.record(i));
        if let Err(e) = recorded {
            self.set_bound(i, Bound::Stale);
            return Err(e);
        }
        Ok(())
    }

    fn set_bound(&mut self, i: usize, bound: Bound) {
        if let Some(ring) = self.external.as_mut() {
            ring.bound[i] = bound;
        }
    }

    /// Submits a pair that is already on the device (see the module docs).
    /// `waits` are waited on before any of the pair's work (at every stage);
    /// `signals` are signalled when its results are written. The slot holds
    /// both imports until the pair's fence signalled. `previous`: the
    /// previous frame's reference luma the pair carries, packed (see
    /// [`super::previous`]).
    ///
    /// # Safety
    /// The planes' buffers and images, and the semaphores, must be valid
    /// objects of this scorer's device, alive while the imports are held,
    /// with the waits' signals submitted (or to be) and the signals
    /// unsignalled, as `vkQueueSubmit` requires ([`crate::api::Scorer`]'s
    /// device submissions state this to their callers).
    pub(crate) unsafe fn submit_external(
        &mut self,
        planes: [&Arc<ImportHold>; 2],
        waits: &[ExternalSemaphore],
        signals: &[ExternalSemaphore],
        previous: Option<&[u8]>,
    ) -> Result<()> {
        if self.sizes.picture.chroma.is_some() {
            return Err(Error::Unsupported(
                "a device-resident pair for a scorer whose metrics read chroma (device-resident \
                 planes are luma only)"
                    .into(),
            ));
        }
        self.ensure_external_ring()?;
        self.make_room()?;
        let i = self.free_slot()?;
        let Some(mut ring) = self.external.take() else {
            return Err(Error::Internal("device-resident ring missing".into()));
        };
        // SAFETY: forwarded from this function's contract.
        let r =
            unsafe { self.submit_external_in(&mut ring, i, planes, (waits, signals), previous) };
        // On an error the slot stays free (taken free slots are free until
        // submitted), its binding marked stale when it was being changed.
        self.external = Some(ring);
        r
    }

    /// [`VkScorer::submit_external`] on free slot `i`, the ring taken out of
    /// the scorer for the call.
    ///
    /// # Safety
    /// As [`VkScorer::submit_external`].
    unsafe fn submit_external_in(
        &mut self,
        ring: &mut ExternalRing,
        i: usize,
        holds: [&Arc<ImportHold>; 2],
        (waits, signals): (&[ExternalSemaphore], &[ExternalSemaphore]),
        previous: Option<&[u8]>,
    ) -> Result<()> {
        let planes = [holds[0].source, holds[1].source];
        let frame = self.next_frame;
        let span = tracing::debug_span!("frame", index = frame, device_resident = true);
        let _enter = span.enter();
        let n = self.plane_bytes();
        // A shifted plane is shifted in place by a pass that binds both
        // packed buffers: then neither plane is read in place.
        let shifted = planes.iter().any(|p| p.shift() != 0);
        let zero_copy = [
            !shifted && self.zero_copy(&planes[0]),
            !shifted && self.zero_copy(&planes[1]),
        ];
        if shifted && ring.shift.is_none() {
            let kernel = self
                .pipelines
                .kernel(&self.gpu, ShaderName::MsbShift, None)?;
            ring.shift = Some(kernel);
        }
        if zero_copy.contains(&false) && ring.packed[i].is_none() {
            let packed = self.packed_buffers(i, n.next_multiple_of(4))?;
            let set = image_input::shift_set(
                &self.gpu,
                &self.pipelines,
                ring.shift_pool,
                [packed[0].raw, packed[1].raw],
                &format!("vkssim slot {i} msb_shift set"),
            );
            match set {
                Ok(set) => ring.shift_sets[i] = set,
                Err(e) => {
                    for mut b in packed {
                        self.gpu.destroy_buffer(&mut b);
                    }
                    return Err(e);
                }
            }
            ring.packed[i] = Some(packed);
        }
        let key = Bound::External([holds[0].id, holds[1].id]);
        if ring.bound[i] != key {
            let range = n.next_multiple_of(4);
            let source = |k: usize| -> (vk::Buffer, u64, u64) {
                match planes[k].in_place().filter(|_| zero_copy[k]) {
                    Some(p) => (p.buffer, p.offset, range),
                    None => {
                        let packed = ring.packed[i].as_ref().map(|p| p[k].raw);
                        (packed.unwrap_or_default(), 0, vk::WHOLE_SIZE)
                    }
                }
            };
            self.bind_raw(i, [source(0), source(1)]);
            // Both bindings now read the host's planes (or the packed copies).
            self.slots[i].reference = ReferenceSource::Own;
            self.slots[i].reads_external = true;
            ring.bound[i] = Bound::Stale;
            self.use_derived(i, None)?;
            self.record(i)?;
            self.record_pre(ring, i, planes, zero_copy)?;
            ring.bound[i] = key;
        }

        if let Some(luma) = previous {
            self.carry_previous(i, luma)?;
        }
        self.slots[i].failed = None;
        if waits.is_empty() && signals.is_empty() {
            // Queued: submitted with the pairs after it, in one submission
            // (flushed when the batch is full, and before anything that needs
            // the device's progress or the queue's order).
            self.slots[i].imports = [Some(Arc::clone(holds[0])), Some(Arc::clone(holds[1]))];
            self.queue_in_batch(i);
            self.state.submit_taken(i);
            if self.batch.len() >= self.batch_limit() {
                if let Err(e) = self.flush_batch_with(Some(ring)) {
                    // Queued pairs report the failure as their results.
                    self.fail_batch(e);
                }
            }
            return Ok(());
        }
        // A pair with semaphores goes at once (the host may wait on its
        // signal), after the pairs queued before it.
        let primer = self.previous.launch(i);
        if let Err(e) = self.flush_batch_with(Some(ring)) {
            self.fail_batch(e.clone());
            return Err(e);
        }
        self.slots[i].fence_of = i;
        self.slots[i].timed_pairs = 1;
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let slot = &mut self.slots[i];
        // SAFETY: the fence is not in use (the slot's last submission was waited
        // on before it was handed out again).
        unsafe { d.reset_fences(&[slot.fence]) }
            .map_err(|r| vk_error(r, "resetting a frame fence"))?;
        // The previous reference's passes (when the pair carried one) after
        // the prologue's barrier, before the pair's own passes.
        let cmds: Vec<vk::CommandBuffer> = [Some(ring.pre[i]), primer, Some(slot.cmd)]
            .into_iter()
            .flatten()
            .collect();
        let wait_sems: Vec<vk::Semaphore> = waits.iter().map(|w| w.semaphore).collect();
        let wait_values: Vec<u64> = waits.iter().map(|w| w.value.unwrap_or(0)).collect();
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; waits.len()];
        let signal_sems: Vec<vk::Semaphore> = signals.iter().map(|s| s.semaphore).collect();
        let signal_values: Vec<u64> = signals.iter().map(|s| s.value.unwrap_or(0)).collect();
        let timeline = waits.iter().chain(signals).any(|s| s.value.is_some());
        let mut timeline_info = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&wait_values)
            .signal_semaphore_values(&signal_values);
        let mut submit = vk::SubmitInfo::default()
            .wait_semaphores(&wait_sems)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cmds)
            .signal_semaphores(&signal_sems);
        if timeline {
            submit = submit.push_next(&mut timeline_info);
        }
        // SAFETY: the slot's command buffers were recorded for these planes and
        // are not pending (its fence was waited for and reset above); the
        // host's planes and semaphores are valid (this function's contract).
        unsafe { gpu.submit(gpu.device.compute_queue, &[submit], slot.fence) }
            .map_err(|r| vk_error(r, format!("submitting device-resident frame {frame}")))?;
        slot.frame = frame;
        slot.submitted = Some(Instant::now());
        slot.imports = [Some(Arc::clone(holds[0])), Some(Arc::clone(holds[1]))];
        self.next_frame += 1;
        self.state.submit_taken(i);
        self.dispatch_ready();
        Ok(())
    }

    /// The two packed buffers of slot `i` (`bytes` each, device-local).
    fn packed_buffers(&self, i: usize, bytes: u64) -> Result<[Buffer; 2]> {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
        let a = self.gpu.create_buffer(
            &format!("vkssim slot {i} packed reference"),
            bytes,
            usage,
            MemoryLocation::GpuOnly,
        )?;
        match self.gpu.create_buffer(
            &format!("vkssim slot {i} packed distorted"),
            bytes,
            usage,
            MemoryLocation::GpuOnly,
        ) {
            Ok(b) => Ok([a, b]),
            Err(e) => {
                let mut a = a;
                self.gpu.destroy_buffer(&mut a);
                Err(e)
            }
        }
    }

    /// Makes a slot free: refuses while upload slots are handed out
    /// (`acquire_slot`), and finishes the oldest frame when every slot is busy
    /// (its result stays queued).
    fn make_room(&mut self) -> Result<()> {
        if self.state.filling() > 0 {
            return Err(Error::InvalidOption(format!(
                "{} upload slot(s) handed out by acquire_slot; submit them first",
                self.state.filling()
            )));
        }
        if self.state.pending() == self.slots.len() {
            self.finish_oldest();
        }
        Ok(())
    }

    /// Records slot `i`'s prologue: a barrier from every earlier write on the
    /// queue to the copies and the passes, then the row copies of the planes
    /// that are not read in place, then a barrier from those copies to the
    /// passes.
    fn record_pre(
        &self,
        ring: &ExternalRing,
        i: usize,
        planes: [ExternalSource; 2],
        zero_copy: [bool; 2],
    ) -> Result<()> {
        let gpu = &self.gpu;
        let cmd = ring.pre[i];
        commands::begin(gpu, cmd)?;
        // SAFETY: the ring's command buffer is recording (begun above) on the compute family.
        unsafe {
            commands::barrier(
                gpu,
                cmd,
                (
                    vk::PipelineStageFlags::ALL_COMMANDS,
                    vk::AccessFlags::MEMORY_WRITE,
                ),
                (
                    vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::AccessFlags::TRANSFER_READ
                        | vk::AccessFlags::TRANSFER_WRITE
                        | vk::AccessFlags::SHADER_READ,
                ),
            )
        };
        if zero_copy.contains(&false) {
            let size = PlaneSize {
                width: self.sizes.geometry.width,
                height: self.sizes.geometry.height,
                row_bytes: self.row_bytes(),
            };
            let Some(packed) = ring.packed[i].as_ref() else {
                return Err(Error::Internal("packed buffers missing".into()));
            };
            for k in (0..2).filter(|&k| !zero_copy[k]) {
                let family = gpu.device.compute_family;
                // SAFETY: the ring's command buffer is recording (begun above) on the compute family; the planes are the host's valid objects (the submission's contract).
                unsafe {
                    image_input::record_fetch(gpu, cmd, &planes[k], packed[k].raw, size, family)
                };
            }
            let shifts = [planes[0].shift(), planes[1].shift()];
            match ring.shift.as_ref().filter(|_| shifts != [0, 0]) {
                // SAFETY: the ring's command buffer is recording (begun above) on the compute family.
                None => unsafe { commands::transfer_to_compute(gpu, cmd) },
                Some(pass) => {
                    // The copies made visible to the shift's reads and writes.
                    // SAFETY: the ring's command buffer is recording (begun above) on the compute family.
                    unsafe {
                        commands::barrier(
                            gpu,
                            cmd,
                            (
                                vk::PipelineStageFlags::TRANSFER,
                                vk::AccessFlags::TRANSFER_WRITE,
                            ),
                            (
                                vk::PipelineStageFlags::COMPUTE_SHADER,
                                vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                            ),
                        )
                    };
                    let words = self.plane_bytes().div_ceil(4) as u32;
                    let set = ring.shift_sets[i];
                    image_input::record_shift(gpu, cmd, pass, set, words, shifts);
                    // SAFETY: the ring's command buffer is recording (begun above) on the compute family.
                    unsafe { commands::compute_to_compute(gpu, cmd) };
                }
            }
        }
        commands::end(gpu, cmd)
    }
}
