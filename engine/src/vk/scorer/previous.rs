//! A pair that carries its previous frame's reference ([`Previous`]): how a
//! temporal metric's passes (motion's) stay right when the previous frame
//! went to another scorer (another device of a `crate::api::MultiScorer`).
//!
//! A temporal metric keeps what it needs of a frame for the next in buffers
//! of its plan ([`super::metric::GpuMetric::kept_buffers`]: motion's blurred
//! reference), which only holds the previous frame when this scorer scored
//! it. A pair that carries the previous reference luma instead has it copied
//! into its slot's previous-reference buffer (host-visible, made on the
//! slot's first such pair), and the slot's frame is submitted behind a
//! second command buffer, recorded once per slot: the metrics' passes of
//! [`super::metric::GpuMetric::record_previous`] on that plane (motion's
//! blur, writing the kept plane as the previous frame's own passes would
//! have), then a barrier. The frame's own command buffer is the same as
//! ever, so a scorer that is never given a previous reference (one device)
//! records and submits exactly what it did before.
//!
//! It also says, per slot, whether the frame in it has a previous frame:
//! not a stream's first frame ([`VkScorer::end_stream`] starts a new stream),
//! or a pair that carried its previous reference.
//!
//! And it keeps what the metrics that read the previous frame (motion)
//! gave of the reference of a pair the device refused for its distorted
//! picture alone ([`VkScorer::take_refused`]): the reference was valid and
//! blurred, so the frames around it read those values as libvmaf does
//! (`crate::api`'s stream).

use ash::vk;
use gpu_allocator::MemoryLocation;

use std::collections::VecDeque;

use super::metric::FrameFinish;
use super::recorder::{Buf, Program};
use super::VkScorer;
use crate::metric::MetricOutputs;
use crate::vk::commands;
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::{Error, PlaneRole, Result};

/// Refused pairs' kept values at most (the oldest go first: a caller takes
/// each as its result comes out, so only results dropped untaken leave any).
const REFUSED_KEPT: usize = 64;

/// One slot's previous-reference buffer and what reads it.
struct PrimeSlot {
    /// The previous reference luma, packed (host-visible).
    buffer: Buffer,
    /// The command buffer of the previous program, recorded for this slot.
    cmd: vk::CommandBuffer,
}

/// The previous references of a scorer's slots (see the module docs).
pub(super) struct Previous {
    /// What runs on a previous reference (`None`: no metric keeps anything
    /// from frame to frame).
    program: Option<Program>,
    /// The descriptor sets' pool, made on the first previous reference.
    pool: vk::DescriptorPool,
    /// Per slot: its buffer and command buffer, once made.
    slots: Vec<Option<PrimeSlot>>,
    /// Per slot: whether its next submission runs the previous program.
    primed: Vec<bool>,
    /// Per slot queued in a batch of device-resident pairs: the command
    /// buffer to run before it.
    queued: Vec<Option<vk::CommandBuffer>>,
    /// Per slot: whether the frame it holds has a previous frame.
    has_previous: Vec<bool>,
    /// Whether a frame of the current stream was submitted.
    started: bool,
    /// Per frame refused for its distorted picture alone, oldest first: its
    /// number and the outputs of its reference of the metrics that read the
    /// previous frame.
    refused: VecDeque<(u64, MetricOutputs)>,
    gpu: std::sync::Arc<Gpu>,
}

impl Previous {
    /// For a scorer whose metrics carry what `program` writes (`None`:
    /// nothing) on `gpu`.
    pub(super) fn new(gpu: &std::sync::Arc<Gpu>, program: Option<Program>) -> Self {
        Self {
            program,
            pool: vk::DescriptorPool::null(),
            slots: Vec::new(),
            primed: Vec::new(),
            queued: Vec::new(),
            has_previous: Vec::new(),
            started: false,
            refused: VecDeque::new(),
            gpu: std::sync::Arc::clone(gpu),
        }
    }

    /// Whether a metric of the scorer reads the previous frame.
    pub(super) fn is_temporal(&self) -> bool {
        self.program.is_some()
    }

    /// Whether slot `i`'s frame has a previous frame in its stream.
    pub(super) fn has_previous(&self, i: usize) -> bool {
        self.has_previous.get(i).copied().unwrap_or(false)
    }

    /// Slot `i` is submitted now (its pair queued for the device): its frame
    /// has a previous one when the stream had a frame before or the pair
    /// carried its previous reference. Returns the command buffer to submit
    /// before the slot's own, when it carried one.
    pub(super) fn launch(&mut self, i: usize) -> Option<vk::CommandBuffer> {
        self.grow(i);
        let primed = std::mem::take(&mut self.primed[i]);
        self.has_previous[i] = primed || self.started;
        self.started = true;
        self.slots[i].as_ref().filter(|_| primed).map(|p| p.cmd)
    }

    /// [`Previous::launch`] for a pair queued in a batch: the command
    /// buffer to run before it waits for [`Previous::take_queued`].
    pub(super) fn queue(&mut self, i: usize) {
        let cmd = self.launch(i);
        self.queued[i] = cmd;
    }

    /// The command buffer to run before slot `i`'s pair in its batch, once
    /// (see [`Previous::queue`]).
    pub(super) fn take_queued(&mut self, i: usize) -> Option<vk::CommandBuffer> {
        self.queued.get_mut(i).and_then(Option::take)
    }

    /// Whether a pair queued in a batch carried its previous reference.
    pub(super) fn any_queued(&self, slots: &[usize]) -> bool {
        slots
            .iter()
            .any(|&i| self.queued.get(i).is_some_and(Option::is_some))
    }

    /// The next frame submitted is a stream's first (no previous frame).
    pub(super) fn end_stream(&mut self) {
        self.started = false;
    }

    fn grow(&mut self, i: usize) {
        if self.primed.len() <= i {
            self.primed.resize(i + 1, false);
            self.queued.resize(i + 1, None);
            self.has_previous.resize(i + 1, false);
        }
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
    }
}

impl Drop for Previous {
    fn drop(&mut self) {
        // The scorer waited for its work before its fields drop; the command
        // buffers went with its command pool.
        for p in self.slots.iter_mut().flatten() {
            self.gpu.destroy_buffer(&mut p.buffer);
        }
        if self.pool != vk::DescriptorPool::null() {
            // SAFETY: no pending work uses the pool's sets (see above); the
            // pool is destroyed once.
            unsafe { self.gpu.device.raw.destroy_descriptor_pool(self.pool, None) };
        }
    }
}

impl VkScorer {
    /// Makes slot `i`'s frame (about to be submitted) read `luma`, the
    /// previous frame's packed reference luma, as its previous frame: the
    /// next submission of the slot runs the previous program first (see the
    /// module docs). Nothing to do for a scorer without a temporal metric.
    ///
    /// Errors: `luma` of another size ([`Error::BufferSize`]); device memory.
    pub(super) fn carry_previous(&mut self, i: usize, luma: &[u8]) -> Result<()> {
        if !self.previous.is_temporal() {
            return Ok(());
        }
        let n = self.sizes.raw_bytes as usize;
        if luma.len() != n {
            return Err(Error::BufferSize {
                what: format!(
                    "frame {}: the previous frame's reference luma",
                    self.next_frame
                ),
                needed: n,
                actual: luma.len(),
            });
        }
        self.previous.grow(i);
        if self.previous.slots[i].is_none() {
            let made = self.make_prime_slot(i)?;
            self.previous.slots[i] = Some(made);
        }
        let Some(p) = self.previous.slots[i].as_mut() else {
            return Err(Error::Internal(
                "a previous-reference buffer missing".into(),
            ));
        };
        let bytes = p.buffer.mapped_mut().ok_or_else(super::not_mapped)?;
        bytes[..n].copy_from_slice(luma);
        self.previous.primed[i] = true;
        Ok(())
    }

    /// Ends a stream: the next frame submitted starts another, so a temporal
    /// metric (motion) scores it as a first frame, with no previous one, as
    /// a fresh scorer would (unless its pair carries its previous
    /// reference).
    pub fn end_stream(&mut self) {
        self.previous.end_stream();
    }

    /// Keeps the outputs of slot `i`'s frame (its fence signalled) of the
    /// metrics that read the previous frame, when `e`, the frame's error,
    /// refuses its distorted picture alone: its reference is valid and the
    /// device blurred it, as libvmaf would.
    pub(super) fn keep_refused(&mut self, i: usize, e: &Error) {
        let Error::SampleRange {
            plane: Some(PlaneRole::Distorted),
            frame,
            ..
        } = e
        else {
            return;
        };
        if !self.previous.is_temporal() {
            return;
        }
        let mut out = FrameFinish {
            first_of_stream: !self.previous.has_previous(i),
            ..FrameFinish::default()
        };
        for (m, bufs) in self.gpu_metrics.iter().zip(&self.slots[i].bufs) {
            if !m.reads_previous_frame() {
                continue;
            }
            if m.finish(self, bufs, None, &mut out).is_err() {
                // Nothing kept: the stream then ends at the frame.
                return;
            }
        }
        let refused = &mut self.previous.refused;
        if refused.len() == REFUSED_KEPT {
            refused.pop_front();
        }
        refused.push_back((*frame, out.outputs));
    }

    /// The outputs of frame `frame`'s reference of the metrics that read the
    /// previous frame, when its pair was refused for its distorted picture
    /// alone (its result [`Error::SampleRange`] naming the distorted
    /// picture; `None` without a temporal metric). Those of earlier frames
    /// are dropped.
    pub fn take_refused(&mut self, frame: u64) -> Option<MetricOutputs> {
        let refused = &mut self.previous.refused;
        while refused.front().is_some_and(|(f, _)| *f < frame) {
            refused.pop_front();
        }
        match refused.front() {
            Some((f, _)) if *f == frame => refused.pop_front().map(|(_, o)| o),
            _ => None,
        }
    }

    /// Slot `i`'s previous-reference buffer, its descriptor sets and its
    /// recorded command buffer.
    fn make_prime_slot(&mut self, i: usize) -> Result<PrimeSlot> {
        let Some(program) = self.previous.program.as_ref() else {
            return Err(Error::Internal("no previous program to record".into()));
        };
        if program
            .sets
            .iter()
            .flat_map(|k| &k.bindings)
            .any(|&(_, b)| matches!(b, Buf::Raw(_) | Buf::Range))
        {
            // Those follow the slot's pair (rebound per pair); the previous
            // program reads only its own plane and the metrics' buffers.
            return Err(Error::Internal(
                "a previous program that reads the pair's own planes".into(),
            ));
        }
        let gpu = &self.gpu;
        if self.previous.pool == vk::DescriptorPool::null() {
            let slots = self.device_capacity.max(self.capacity) as u32;
            self.previous.pool = crate::vk::pipeline::create_descriptor_pool(
                gpu,
                slots * program.sets.len() as u32,
                slots * program.descriptors(),
                "vkssim previous-reference sets",
            )?;
        }
        let mut buffer = gpu.create_buffer(
            &format!("vkssim slot {i} previous reference"),
            self.sizes.raw_bytes.next_multiple_of(4),
            vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::CpuToGpu,
        )?;
        let made = (|| -> Result<vk::CommandBuffer> {
            let slot = &self.slots[i];
            let mut sets = Vec::new();
            for (k, key) in program.sets.iter().enumerate() {
                let buffers: Vec<(u32, vk::Buffer, u64, u64)> = key
                    .bindings
                    .iter()
                    .map(|&(binding, b)| {
                        let (buffer, offset, range) = self.resolve(slot, b, buffer.raw);
                        (binding, buffer, offset, range)
                    })
                    .collect();
                let layout = self.pipelines.layout(key.shader).set_layout;
                sets.push(crate::vk::pipeline::allocate_set(
                    gpu,
                    self.previous.pool,
                    (key.shader, layout),
                    &buffers,
                    &format!("vkssim slot {i} previous {} set {k}", key.shader.as_str()),
                )?);
            }
            let cmd = commands::allocate_command_buffer(
                gpu,
                self.compute_pool,
                &format!("vkssim slot {i} previous reference commands"),
            )?;
            commands::begin(gpu, cmd)?;
            // SAFETY: `cmd` is recording on the compute family (begun
            // above); the sets were made for this program's sets from this
            // scorer's buffers and the slot's, which outlive the command
            // buffer (the pool goes with the scorer).
            unsafe { self.emit_sets(cmd, program, &[&sets], None) };
            // What it wrote (the kept buffers, the metrics' slot buffers)
            // before the frame's own passes read or write them.
            // SAFETY: as above.
            unsafe { commands::compute_to_compute(gpu, cmd) };
            commands::end(gpu, cmd)?;
            Ok(cmd)
        })();
        match made {
            Ok(cmd) => Ok(PrimeSlot { buffer, cmd }),
            Err(e) => {
                gpu.destroy_buffer(&mut buffer);
                Err(e)
            }
        }
    }
}
