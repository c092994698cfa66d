//! The resources of one frame in flight ([`Slot`]: upload buffers, the range
//! record, every metric's buffers, descriptor sets, command buffers, fence,
//! semaphore and timestamp queries), the frames' sizes ([`Sizes`]), and
//! their creation and destruction.

use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::VkScorer;
use crate::frame::PlaneGeometry;
use crate::vk::commands;
use crate::vk::context::Gpu;
use crate::vk::import_hold::ImportHold;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::RangeRecord;
use crate::vk::shared_plane::SharedPlane;
use crate::vk::UploadPath;
use crate::{Error, FrameScore, Result};

/// What each metric of a scorer (by position) decided of a frame on a
/// worker thread ([`super::metric::GpuMetric::reduce`]).
pub(super) type Decided = Vec<Option<FrameScore>>;

/// The sizes of the frames a scorer takes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sizes {
    /// Luma width, height and bit depth.
    pub(super) geometry: PlaneGeometry,
    /// Bytes of one raw (luma) plane.
    pub(super) raw_bytes: u64,
    /// Where a picture's planes lie in the upload memory (the luma plane,
    /// then chroma when a metric reads it): `raw_bytes` or more.
    pub(super) picture: super::metric::PictureLayout,
}

/// The resources of one frame in flight.
pub(super) struct Slot {
    /// The device its resources belong to; they are destroyed when the slot
    /// drops (its owner waits for the slot's work first).
    gpu: Arc<Gpu>,
    pub(super) raw: [crate::vk::memory::Buffer; 2],
    /// Whether `raw` (and `staging`) are the upload buffers, not 4-byte
    /// placeholders (see [`VkScorer::make_upload_buffers`]).
    pub(super) uploads: bool,
    pub(super) staging: Option<crate::vk::memory::Buffer>,
    /// What the raw picture bindings read now (buffer, offset, range): the
    /// upload buffers, a shared reference plane or a host's planes.
    pub(super) raw_binding: [(vk::Buffer, u64, u64); 2],
    /// The decimate and hfilter passes' record of samples above the bit
    /// depth ([`crate::vk::pipeline::RangeRecord`]), host-visible.
    pub(super) range: crate::vk::memory::Buffer,
    /// The [`super::recorder::Buf::Ready`] word, host-visible.
    pub(super) ready: crate::vk::memory::Buffer,
    /// The shared plane's buffers its sets bind for those its metrics make
    /// from the reference (in the order of `super::derived`'s layout), or
    /// `None`: its own.
    pub(super) derived: Option<Vec<vk::Buffer>>,
    /// The shared plane whose derived planes the pair makes, until its
    /// submission (`super::derived`).
    pub(super) making: Option<SharedPlane>,
    /// Each metric's buffers (in the scorer's metric order, each in its
    /// declaration order: see `super::recorder`).
    pub(super) bufs: Vec<Vec<crate::vk::memory::Buffer>>,
    /// The descriptor sets of the scorer's program, in its order.
    pub(super) sets: Vec<vk::DescriptorSet>,
    pub(super) cmd: vk::CommandBuffer,
    pub(super) transfer_cmd: Option<vk::CommandBuffer>,
    pub(super) fence: vk::Fence,
    pub(super) semaphore: Option<vk::Semaphore>,
    pub(super) queries: Option<vk::QueryPool>,
    /// Index of the frame it holds, and when it was submitted.
    pub(super) frame: u64,
    pub(super) submitted: Option<Instant>,
    /// What the metrics decide on a worker thread once the fence signalled
    /// (see [`super::metric::GpuMetric::reduce`]); the slot is reused only
    /// after it was received.
    pub(super) reduction: Option<Receiver<Decided>>,
    /// Which plane binding 0 (the reference) reads.
    pub(super) reference: ReferenceSource,
    /// The shared reference of the frame in flight, held until its fence
    /// signalled (see [`crate::vk::shared_plane`]).
    pub(super) holding: Option<SharedPlane>,
    /// The imported planes of the device-resident pair in flight, held until
    /// its fence signalled (see [`crate::vk::import_hold`]).
    pub(super) imports: [Option<Arc<ImportHold>>; 2],
    /// Whether the command buffer was recorded to read the host's planes
    /// (device-resident pairs: no staging copy, no ownership transfer).
    pub(super) reads_external: bool,
    /// The slot whose fence signals when this slot's work is done: itself,
    /// or the last slot of the batch of device-resident pairs it was
    /// submitted in (see `super::external`).
    pub(super) fence_of: usize,
    /// Recorded for a batch of device-resident pairs and not yet submitted
    /// (never ready before the batch is flushed).
    pub(super) queued: bool,
    /// Why the pair it holds cannot be scored (its batch's submission
    /// failed): its result, instead of waiting for a fence.
    pub(super) failed: Option<Error>,
    /// How many pairs the timestamps in its query pool cover: 1 (its own
    /// command buffer), n (the last slot of an interleaved batch of n), or 0
    /// (a slot of such a batch whose pool was not written).
    pub(super) timed_pairs: u32,
}

/// What a slot's reference binding reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReferenceSource {
    /// The slot's own upload buffer.
    Own,
    /// A shared plane (by identity).
    Shared(u64),
}

/// Resets a slot's range record to "no sample found" (host write; the next
/// submission makes it visible to the device).
pub(super) fn clear_range(range: &mut crate::vk::memory::Buffer) -> Result<()> {
    let bytes = range.mapped_mut().ok_or_else(super::not_mapped)?;
    bytes[..std::mem::size_of::<RangeRecord>()]
        .copy_from_slice(bytemuck::bytes_of(&RangeRecord::CLEAR));
    Ok(())
}

/// Destroys a slot's resources (each once: handles are taken or nulled).
fn destroy_slot(gpu: &Gpu, slot: &mut Slot) {
    let d = &gpu.device.raw;
    // SAFETY: the device no longer uses the slot: `VkScorer::drop` waits for
    // the scorer's work before its slots drop, and a slot dropped while it is
    // created never ran. Every handle is destroyed once; command buffers and
    // sets go with their pools.
    unsafe {
        if let Some(q) = slot.queries.take() {
            d.destroy_query_pool(q, None);
        }
        if slot.fence != vk::Fence::null() {
            d.destroy_fence(slot.fence, None);
            slot.fence = vk::Fence::null();
        }
        if let Some(s) = slot.semaphore.take() {
            d.destroy_semaphore(s, None);
        }
    }
    if let Some(mut b) = slot.staging.take() {
        gpu.destroy_buffer(&mut b);
    }
    for mut b in slot.bufs.drain(..).flatten() {
        gpu.destroy_buffer(&mut b);
    }
    gpu.destroy_buffer(&mut slot.range);
    gpu.destroy_buffer(&mut slot.ready);
    for b in slot.raw.iter_mut().rev() {
        gpu.destroy_buffer(b);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let gpu = Arc::clone(&self.gpu);
        destroy_slot(&gpu, self);
    }
}

impl VkScorer {
    /// The upload buffers of slot `i`: the raw reference and distorted
    /// planes (device memory the host maps on the direct path, device-local
    /// behind a staging buffer otherwise) and the staging buffer; with
    /// `full` false, 4-byte placeholders that a descriptor set can bind and
    /// no staging (a slot only device-resident pairs have used).
    fn upload_buffers(&self, i: usize, full: bool) -> Result<([Buffer; 2], Option<Buffer>)> {
        let gpu = &self.gpu;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let staging = full && self.upload == UploadPath::Staging;
        let raw_usage = if staging {
            storage | vk::BufferUsageFlags::TRANSFER_DST
        } else {
            storage
        };
        let (raw_location, raw_bytes) = match (full, staging) {
            (false, _) => (MemoryLocation::GpuOnly, 4),
            (true, true) => (MemoryLocation::GpuOnly, self.sizes.picture.bytes()),
            (true, false) => (MemoryLocation::CpuToGpu, self.sizes.picture.bytes()),
        };
        let mut made: Vec<Buffer> = Vec::new();
        let result = (|| -> Result<()> {
            for role in ["reference", "distorted"] {
                let name = format!("vkssim slot {i} raw {role}");
                made.push(gpu.create_buffer(&name, raw_bytes, raw_usage, raw_location)?);
            }
            if staging {
                // Host memory (cached where the device offers it): `CpuToGpu`
                // picks device-local BAR memory on resizable-BAR devices, which
                // would make the staging copy a second trip through the device.
                made.push(gpu.create_buffer(
                    &format!("vkssim slot {i} staging"),
                    2 * self.sizes.picture.bytes().next_multiple_of(4),
                    vk::BufferUsageFlags::TRANSFER_SRC,
                    MemoryLocation::GpuToCpu,
                )?);
            }
            Ok(())
        })();
        if let Err(e) = result {
            for mut b in made {
                gpu.destroy_buffer(&mut b);
            }
            return Err(e);
        }
        let staging_buf = if staging { made.pop() } else { None };
        let Ok::<[Buffer; 2], _>(raw) = made.try_into() else {
            return Err(Error::Internal(
                "a frame slot's raw buffers are missing".into(),
            ));
        };
        Ok((raw, staging_buf))
    }

    /// Gives slot `i` (free, not in flight) its upload buffers when it was
    /// made without them ([`VkScorer::create_slot`] for the device-resident
    /// ring's extra slots), points its set at them and re-records it.
    pub(super) fn make_upload_buffers(&mut self, i: usize) -> Result<()> {
        if self.slots[i].uploads {
            return Ok(());
        }
        let (raw, staging) = self.upload_buffers(i, true)?;
        let gpu = Arc::clone(&self.gpu);
        let slot = &mut self.slots[i];
        let old_raw = std::mem::replace(&mut slot.raw, raw);
        let old_staging = std::mem::replace(&mut slot.staging, staging);
        slot.uploads = true;
        for mut b in old_raw.into_iter().chain(old_staging) {
            gpu.destroy_buffer(&mut b);
        }
        self.rebind_own_planes(i)
    }

    /// Creates slot `i`, with its upload buffers when `uploads` (else
    /// placeholders: [`VkScorer::make_upload_buffers`] makes them when a host
    /// pair first takes the slot).
    pub(super) fn create_slot(&mut self, i: usize, uploads: bool) -> Result<Slot> {
        let gpu = &self.gpu;
        let (raw, staging_buf) = self.upload_buffers(i, uploads)?;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let records = gpu.create_buffers([
            (
                format!("vkssim slot {i} sample range"),
                std::mem::size_of::<RangeRecord>() as u64,
                storage,
                MemoryLocation::GpuToCpu,
            ),
            (
                format!("vkssim slot {i} reference ready"),
                4,
                storage,
                MemoryLocation::CpuToGpu,
            ),
        ]);
        let records = records.and_then(|made| {
            <[Buffer; 2]>::try_from(made).map_err(|made| {
                for mut b in made {
                    gpu.destroy_buffer(&mut b);
                }
                Error::Internal("a slot's records: not two buffers".into())
            })
        });
        let [range, ready] = match records {
            Ok(records) => records,
            Err(e) => {
                for mut b in raw.into_iter().chain(staging_buf) {
                    gpu.destroy_buffer(&mut b);
                }
                return Err(e);
            }
        };
        let whole = vk::WHOLE_SIZE;
        let mut slot = Slot {
            gpu: Arc::clone(gpu),
            raw_binding: [(raw[0].raw, 0, whole), (raw[1].raw, 0, whole)],
            raw,
            uploads,
            staging: staging_buf,
            range,
            ready,
            derived: None,
            making: None,
            bufs: Vec::new(),
            sets: Vec::new(),
            cmd: vk::CommandBuffer::null(),
            transfer_cmd: None,
            fence: vk::Fence::null(),
            semaphore: None,
            queries: None,
            frame: 0,
            submitted: None,
            reduction: None,
            reference: ReferenceSource::Own,
            holding: None,
            imports: [None, None],
            reads_external: false,
            fence_of: i,
            queued: false,
            failed: None,
            timed_pairs: 1,
        };
        let more = (|| -> Result<()> {
            clear_range(&mut slot.range)?;
            let word = slot.ready.mapped_mut().ok_or_else(super::not_mapped)?;
            word[..4].copy_from_slice(&0u32.to_le_bytes());
            slot.bufs = self.create_metric_buffers(i)?;
            self.create_sets(i, &mut slot)?;
            slot.cmd = commands::allocate_command_buffer(
                gpu,
                self.compute_pool,
                &format!("vkssim slot {i} compute commands"),
            )?;
            if let Some(pool) = self.transfer_pool {
                slot.transfer_cmd = Some(commands::allocate_command_buffer(
                    gpu,
                    pool,
                    &format!("vkssim slot {i} transfer commands"),
                )?);
                slot.semaphore = Some(commands::create_semaphore(
                    gpu,
                    &format!("vkssim slot {i} upload done"),
                )?);
            }
            slot.fence = commands::create_fence(gpu, true, &format!("vkssim slot {i} done"))?;
            if gpu.device.has_timestamps() {
                slot.queries = Some(commands::create_timestamps(
                    gpu,
                    self.program.timestamps(),
                    &format!("vkssim slot {i} timestamps"),
                )?);
            }
            Ok(())
        })();
        // On an error the slot drops here, destroying what was made.
        more?;
        Ok(slot)
    }
}
