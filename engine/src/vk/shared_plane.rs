//! Planes uploaded once and read by several scorers of one device: the
//! reference of an encoding ladder ([`SharedPlanes`], [`PlaneWriter`],
//! [`SharedPlane`]).
//!
//! A plane is a buffer in the memory the direct upload path writes (host-visible,
//! device-local where the device has such memory), of one raw luma plane, or
//! of a whole picture (the luma plane, then the Cb and Cr planes, packed as a
//! raw YUV file stores a frame) in a pool for scorers whose metrics read
//! chroma (psnr with `enable_chroma`). The host takes a free one from the
//! pool ([`SharedPlanes::take`]), writes it once ([`PlaneWriter::bytes_mut`],
//! or [`SharedPlanes::upload`] from host planes) and shares it ([`PlaneWriter::share`]); each
//! scorer that scores a pair against it keeps a clone until that pair's fence
//! signalled, and the buffer goes back to the pool when the last clone drops.
//! So the host never writes a plane the device may still read, and the buffers
//! outlive every submission that reads them (the pool frees them when it and
//! every plane are gone).
//!
//! A plane also holds the planes that the scorers' passes make from the
//! reference alone ([`DerivedUse`]; the scorer's side is
//! `crate::vk::scorer::derived`): the first scorer to score a pair against
//! the plane makes them into buffers the plane keeps, and scorers whose lists
//! make the same ones and submit after that submission read them instead of
//! making their own. They go back to the pool with the plane and serve its
//! next picture.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::context::Gpu;
use super::memory::{buffer_bytes, Buffer};
use crate::frame::bytes_per_sample;
use crate::{Error, Result};

/// One buffer of the pool, with its identity and its derived planes.
struct PooledBuffer {
    buffer: Buffer,
    id: u64,
    derived: Option<DerivedPlanes>,
}

/// The buffers of one plane's derived planes, and the key of what they
/// hold (one list of metrics' buffers made from the reference).
struct DerivedPlanes {
    key: String,
    buffers: Vec<Buffer>,
}

/// Where a plane's derived planes stand for its picture now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DerivedState {
    /// Nobody made them for this picture.
    Fresh,
    /// A scorer makes them in a pair not yet submitted.
    Claimed,
    /// The submission that makes them is on the device's queue: every
    /// submission after it reads them.
    Made,
}

/// How a scorer's pair reads a shared plane's derived planes
/// ([`SharedPlane::derived_use`]): the buffers are the plane's, in the
/// order of the layout given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DerivedUse {
    /// In its own buffers (the plane's are another list's, or being made
    /// by a pair not yet submitted).
    Own,
    /// It makes them, into these buffers; [`SharedPlane::derived_made`]
    /// once its submission is on the queue.
    Make(Vec<vk::Buffer>),
    /// An earlier submission made them, into these buffers.
    Read(Vec<vk::Buffer>),
}

/// The pool behind [`SharedPlanes`]: the device, the plane size and the free
/// buffers.
struct Pool {
    gpu: Arc<Gpu>,
    /// Width, height and bit depth of the planes.
    geometry: (u32, u32, u32),
    /// Each chroma plane's stored size, when the planes hold a whole picture.
    chroma: Option<(u32, u32)>,
    plane_bytes: u64,
    free: Mutex<Vec<PooledBuffer>>,
    made: AtomicUsize,
    /// The most planes the pool makes ([`SharedPlanes::with_max_planes`]).
    max: usize,
    /// Device bytes of the derived planes made so far (they live as long
    /// as the pool), and the most they may take
    /// ([`SharedPlanes::with_derived_budget`]).
    derived_bytes: AtomicU64,
    derived_budget: u64,
}

impl Pool {
    fn give_back(&self, buffer: PooledBuffer) {
        self.free
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(buffer);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Every plane holds the pool: when it drops, every buffer is back and no
        // submission reads it (planes are released after their fences).
        let free = std::mem::take(self.free.get_mut().unwrap_or_else(|p| p.into_inner()));
        for mut b in free {
            self.gpu.destroy_buffer(&mut b.buffer);
            for mut d in b.derived.into_iter().flat_map(|d| d.buffers) {
                self.gpu.destroy_buffer(&mut d);
            }
        }
    }
}

/// A pool of planes of one geometry on one device, each written once by the
/// host and read by any number of that device's scorers as their reference
/// (see the module documentation). Cheap to clone (the clones share the pool).
#[derive(Clone)]
pub struct SharedPlanes {
    pool: Arc<Pool>,
}

impl SharedPlanes {
    /// A pool of `width` x `height` planes of `bit_depth` bits on `gpu`;
    /// with `chroma` (each chroma plane's stored size, for scorers whose
    /// metrics read chroma) each holds a whole picture: the luma plane, then
    /// the Cb and Cr planes, packed as a raw YUV file stores a frame.
    pub(crate) fn new(
        gpu: Arc<Gpu>,
        (width, height, bit_depth): (u32, u32, u32),
        chroma: Option<(u32, u32)>,
    ) -> Result<Self> {
        // The plane's own geometry only (the bit depth, each side in
        // 1..=MAX_DIMENSION): each scorer that reads it checks its metrics'
        // limits (psnr scores a 1x1 frame, float_ssim needs 11x11 after its
        // decimation).
        crate::io::VideoFormat::new(width, height, bit_depth, crate::io::Chroma::Mono)?;
        let bps = bytes_per_sample(bit_depth) as u64;
        let chroma_bytes = chroma.map_or(0, |(w, h)| w as u64 * h as u64 * bps);
        let plane_bytes = width as u64 * height as u64 * bps + 2 * chroma_bytes;
        let gpu_heap_bytes = gpu.device.info.device_local_bytes();
        Ok(Self {
            pool: Arc::new(Pool {
                gpu,
                geometry: (width, height, bit_depth),
                chroma,
                plane_bytes,
                free: Mutex::new(Vec::new()),
                made: AtomicUsize::new(0),
                max: usize::MAX,
                derived_bytes: AtomicU64::new(0),
                derived_budget: crate::api::in_flight::slot_memory_budget(gpu_heap_bytes),
            }),
        })
    }

    /// The same pool, making at most `max` planes (at least 1): it then
    /// holds at most `max` planes of device memory, and [`SharedPlanes::take`]
    /// refuses while they are all in use. Only before the pool's first plane
    /// (a pool whose clones exist already is left as it is).
    pub fn with_max_planes(mut self, max: usize) -> Self {
        if let Some(pool) = Arc::get_mut(&mut self.pool) {
            pool.max = max.max(1);
        }
        self
    }

    /// The same pool, its planes' derived planes (the buffers the scorers'
    /// passes make from a reference alone and share, see the module docs)
    /// taking at most `bytes` of device memory together; past it, a pair
    /// makes its own, as without a shared plane. By default the frames in
    /// flight's budget: a sixteenth of the device's largest device-local
    /// heap, 2 to 8 GiB (`crate::api::in_flight`). Only before the pool's
    /// first plane (a pool whose clones exist already is left as it is).
    pub fn with_derived_budget(mut self, bytes: u64) -> Self {
        if let Some(pool) = Arc::get_mut(&mut self.pool) {
            pool.derived_budget = bytes;
        }
        self
    }

    /// A free plane to write, made when none is free (the pool grows to as
    /// many planes as are in use at once, up to its limit).
    ///
    /// Errors: [`Error::OutOfDeviceMemory`] (also when the pool's limit of
    /// planes is in use), [`Error::Vulkan`].
    pub fn take(&self) -> Result<PlaneWriter> {
        let reused = self
            .pool
            .free
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop();
        let buffer = match reused {
            Some(b) => b,
            None => {
                let n = self.pool.made.fetch_add(1, Ordering::Relaxed);
                if n >= self.pool.max {
                    self.pool.made.fetch_sub(1, Ordering::Relaxed);
                    return Err(Error::OutOfDeviceMemory(format!(
                        "all {} planes of a shared plane pool are in use",
                        self.pool.max
                    )));
                }
                let buffer = self.pool.gpu.create_buffer(
                    &format!("vkssim shared plane {n}"),
                    self.pool.plane_bytes,
                    vk::BufferUsageFlags::STORAGE_BUFFER,
                    MemoryLocation::CpuToGpu,
                );
                match buffer {
                    Ok(buffer) => PooledBuffer {
                        buffer,
                        id: crate::identity::next(),
                        derived: None,
                    },
                    Err(e) => {
                        self.pool.made.fetch_sub(1, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
        };
        if buffer.buffer.mapped().is_none() {
            self.pool.give_back(buffer);
            return Err(Error::NotMapped("a shared plane's memory".into()));
        }
        Ok(PlaneWriter {
            buffer: Some(buffer),
            pool: Arc::clone(&self.pool),
        })
    }

    /// Bytes of one plane (a packed luma plane, as in [`crate::LumaFrame`],
    /// followed by the Cb and Cr planes in a pool for metrics that read
    /// chroma).
    pub fn plane_len(&self) -> usize {
        self.pool.plane_bytes as usize
    }

    /// Width, height and bit depth of the planes.
    pub fn geometry(&self) -> (u32, u32, u32) {
        self.pool.geometry
    }

    /// Each chroma plane's stored size (width, height) when the planes hold
    /// a whole picture (luma, Cb, Cr: a pool for a scorer whose metrics read
    /// chroma); `None` when they hold the luma plane only.
    pub fn chroma_plane_size(&self) -> Option<(u32, u32)> {
        self.pool.chroma
    }

    /// Planes the pool has made so far (in use or free).
    pub fn planes_made(&self) -> usize {
        self.pool.made.load(Ordering::Relaxed)
    }
}

impl std::fmt::Debug for SharedPlanes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedPlanes")
            .field("device", &self.pool.gpu.device_name())
            .field("plane_len", &self.plane_len())
            .field("chroma_plane_size", &self.chroma_plane_size())
            .field("planes_made", &self.planes_made())
            .finish()
    }
}

/// A plane taken from [`SharedPlanes`] to be written, then shared. Dropped
/// unshared, it goes back to the pool.
pub struct PlaneWriter {
    buffer: Option<PooledBuffer>,
    pool: Arc<Pool>,
}

impl PlaneWriter {
    /// The plane's memory, to be written with the raw little-endian samples
    /// ([`SharedPlanes::plane_len`] bytes). It is mapped device memory where
    /// the device has it: write it once, in order, and do not read it (it may
    /// be write-combined).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.pool.plane_bytes as usize;
        match self.buffer.as_mut().and_then(|b| b.buffer.mapped_mut()) {
            Some(bytes) => &mut bytes[..len],
            // `take` checked the mapping; the buffer leaves only in `share`.
            None => &mut [],
        }
    }

    /// The plane, written, to be read by scorers (see [`SharedPlane`]).
    pub fn share(mut self) -> SharedPlane {
        let mut buffer = self.buffer.take();
        let planes = buffer.as_mut().and_then(|b| b.derived.take());
        SharedPlane {
            inner: Arc::new(Shared {
                buffer,
                derived: Mutex::new((DerivedState::Fresh, planes)),
                pool: Arc::clone(&self.pool),
            }),
        }
    }
}

impl Drop for PlaneWriter {
    fn drop(&mut self) {
        if let Some(b) = self.buffer.take() {
            self.pool.give_back(b);
        }
    }
}

impl std::fmt::Debug for PlaneWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlaneWriter")
            .field("plane_len", &self.pool.plane_bytes)
            .finish()
    }
}

struct Shared {
    buffer: Option<PooledBuffer>,
    /// The derived planes' state for this picture, and their buffers (back
    /// in the pooled buffer when the plane returns to the pool).
    derived: Mutex<(DerivedState, Option<DerivedPlanes>)>,
    pool: Arc<Pool>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(mut b) = self.buffer.take() {
            let derived = self.derived.get_mut().unwrap_or_else(|p| p.into_inner());
            b.derived = derived.1.take();
            self.pool.give_back(b);
        }
    }
}

/// A written plane on the device, read by scorers as the reference of the
/// pairs given it (`crate::api::FrameSlot::share_reference`). Clones are
/// cheap and share the plane; it returns to its pool when the last clone
/// drops, and every scorer that reads it holds a clone until its pair is done.
#[derive(Clone)]
pub struct SharedPlane {
    inner: Arc<Shared>,
}

impl SharedPlane {
    /// The plane's buffer and identity, and the pool's device.
    pub(crate) fn binding(&self) -> Option<(vk::Buffer, u64, &Arc<Gpu>)> {
        let b = self.inner.buffer.as_ref()?;
        Some((b.buffer.raw, b.id, &self.inner.pool.gpu))
    }

    /// Bytes of the plane.
    pub fn plane_len(&self) -> usize {
        self.inner.pool.plane_bytes as usize
    }

    /// How a pair whose passes make `layout`'s buffers from the reference
    /// ((name, bytes) each; `key` names the list) reads them from this
    /// plane (see the module docs): the first pair asked makes them, into
    /// buffers the plane keeps (made on first use, device memory; when they
    /// cannot be made, the pair makes its own), and pairs asked after its
    /// submission is on the queue ([`SharedPlane::derived_made`]) read
    /// them, when their key is the same.
    pub(crate) fn derived_use(&self, key: &str, layout: &[(String, u64)]) -> DerivedUse {
        let mut guard = self.inner.derived.lock().unwrap_or_else(|p| p.into_inner());
        let (state, planes) = &mut *guard;
        if planes.as_ref().is_some_and(|p| p.key != key) {
            return DerivedUse::Own;
        }
        match *state {
            DerivedState::Claimed => DerivedUse::Own,
            DerivedState::Made => match planes {
                Some(p) => DerivedUse::Read(p.buffers.iter().map(|b| b.raw).collect()),
                None => DerivedUse::Own,
            },
            DerivedState::Fresh => {
                if planes.is_none() {
                    match self.make_derived(key, layout) {
                        Ok(made) => *planes = Some(made),
                        Err(e) => {
                            tracing::debug!("a shared plane's derived planes: {e}");
                            return DerivedUse::Own;
                        }
                    }
                }
                *state = DerivedState::Claimed;
                let raw = planes.iter().flat_map(|p| &p.buffers).map(|b| b.raw);
                DerivedUse::Make(raw.collect())
            }
        }
    }

    /// The submission of the pair that [`DerivedUse::Make`]s this plane's
    /// derived planes is on the queue.
    pub(crate) fn derived_made(&self) {
        let mut guard = self.inner.derived.lock().unwrap_or_else(|p| p.into_inner());
        if guard.0 == DerivedState::Claimed {
            guard.0 = DerivedState::Made;
        }
    }

    /// Device buffers for `layout`, within the pool's budget for them.
    fn make_derived(&self, key: &str, layout: &[(String, u64)]) -> Result<DerivedPlanes> {
        let pool = &self.inner.pool;
        let total: u64 = layout.iter().map(|(_, b)| buffer_bytes(*b)).sum();
        let taken = pool.derived_bytes.fetch_add(total, Ordering::Relaxed);
        if taken.saturating_add(total) > pool.derived_budget {
            pool.derived_bytes.fetch_sub(total, Ordering::Relaxed);
            return Err(Error::OutOfDeviceMemory(format!(
                "a shared plane pool's derived planes would take more than its {} bytes",
                pool.derived_budget
            )));
        }
        let made = self.make_derived_buffers(key, layout);
        if made.is_err() {
            pool.derived_bytes.fetch_sub(total, Ordering::Relaxed);
        }
        made
    }

    /// [`SharedPlane::make_derived`]'s buffers.
    fn make_derived_buffers(&self, key: &str, layout: &[(String, u64)]) -> Result<DerivedPlanes> {
        let id = self.inner.buffer.as_ref().map_or(0, |b| b.id);
        let buffers = self
            .inner
            .pool
            .gpu
            .create_buffers(layout.iter().map(|(name, bytes)| {
                (
                    format!("vkssim shared plane {id} {name}"),
                    *bytes,
                    vk::BufferUsageFlags::STORAGE_BUFFER,
                    MemoryLocation::GpuOnly,
                )
            }))?;
        Ok(DerivedPlanes {
            key: key.to_string(),
            buffers,
        })
    }

    /// Width, height and bit depth of the plane.
    pub fn geometry(&self) -> (u32, u32, u32) {
        self.inner.pool.geometry
    }

    /// Each chroma plane's stored size when the plane holds a whole picture
    /// (see [`SharedPlanes::chroma_plane_size`]).
    pub fn chroma_plane_size(&self) -> Option<(u32, u32)> {
        self.inner.pool.chroma
    }
}

impl std::fmt::Debug for SharedPlane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedPlane")
            .field("plane_len", &self.plane_len())
            .finish()
    }
}
