//! Raw samples into a slot's upload memory: [`UploadSlot`] (a slot handed to
//! the caller to fill from any thread), the copy of a [`LumaFrame`] pair
//! (spread over threads for large frames) and the checks of its geometry.

use ash::vk;

use super::{not_mapped, VkScorer};
use crate::frame::PlaneGeometry;
use crate::{Error, LumaFrame, Result};

/// A ring slot handed to the caller to fill with one pair's raw samples before
/// [`VkScorer::submit_slot`] (see [`VkScorer::acquire_slot`]). It can be sent to
/// another thread, so that several readers fill several slots at once.
#[derive(Debug)]
pub struct UploadSlot {
    pub(super) scorer: u64,
    pub(super) slot: usize,
    pub(super) planes: [*mut u8; 2],
    pub(super) len: usize,
    /// Bytes of one stored chroma plane, after the luma plane of each
    /// picture (0: chroma is not uploaded).
    pub(super) chroma_len: usize,
}

// SAFETY: the pointers address the scorer's mapped upload memory for this slot
// only; nothing else writes it while the slot is handed out (the scorer neither
// reuses nor frees it before `submit_slot`), so one thread at a time may write it.
unsafe impl Send for UploadSlot {}

impl UploadSlot {
    /// Bytes of each plane (a packed luma plane, as in [`LumaFrame`]).
    pub fn plane_len(&self) -> usize {
        self.len
    }

    /// The reference and distorted planes' upload memory, to be filled with the
    /// raw little-endian samples (`plane_len` bytes each). The memory is mapped
    /// device or staging memory: write it once, in order, and do not read it
    /// (it may be write-combined).
    ///
    /// # Safety
    /// The [`VkScorer`] that handed out this slot must still be alive, and the
    /// slot must not have been given back to it yet.
    pub unsafe fn planes_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        // SAFETY: per the contract the scorer keeps both mappings alive and
        // untouched while the slot is out; they do not overlap, and `&mut self`
        // makes these the only references.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.planes[0], self.len),
                std::slice::from_raw_parts_mut(self.planes[1], self.len),
            )
        }
    }
}

impl UploadSlot {
    /// The Cb and Cr planes' upload memory of the reference and of the
    /// distorted picture (`[[ref Cb, ref Cr], [dist Cb, dist Cr]]`, each a
    /// stored plane, sides rounded up, packed rows), when the scorer uploads
    /// chroma (its psnr reads it); written like [`UploadSlot::planes_mut`].
    ///
    /// # Safety
    /// As [`UploadSlot::planes_mut`].
    #[allow(clippy::type_complexity)] // Two pictures of two planes.
    pub unsafe fn chroma_mut(&mut self) -> Option<[[&mut [u8]; 2]; 2]> {
        if self.chroma_len == 0 {
            return None;
        }
        let (l, c) = (self.len, self.chroma_len);
        // SAFETY: per the contract the mappings are alive and untouched while
        // the slot is out; each picture's memory holds the luma plane and two
        // chroma planes of these lengths, the four ranges do not overlap, and
        // `&mut self` makes these the only references.
        Some(self.planes.map(|p| unsafe {
            [
                std::slice::from_raw_parts_mut(p.add(l), c),
                std::slice::from_raw_parts_mut(p.add(l + c), c),
            ]
        }))
    }

    /// Bytes of each whole picture: the luma plane, then the Cb and Cr
    /// planes when the scorer uploads chroma.
    pub fn frame_len(&self) -> usize {
        self.len + 2 * self.chroma_len
    }

    /// The reference and distorted pictures' upload memory, whole
    /// ([`UploadSlot::frame_len`] bytes each: the luma plane, then with
    /// chroma the Cb and Cr planes, packed, as a raw YUV file stores a
    /// frame), written like [`UploadSlot::planes_mut`].
    ///
    /// # Safety
    /// As [`UploadSlot::planes_mut`].
    pub unsafe fn frames_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        let n = self.frame_len();
        // SAFETY: per the contract the scorer keeps both mappings alive and
        // untouched while the slot is out; each picture's memory holds the
        // luma plane and the two chroma planes (`PictureLayout::bytes`), the
        // two pictures do not overlap, and `&mut self` makes these the only
        // references.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.planes[0], n),
                std::slice::from_raw_parts_mut(self.planes[1], n),
            )
        }
    }

    /// Plane `k` (0 reference, 1 distorted) for reading back (slow on
    /// write-combined memory).
    ///
    /// # Safety
    /// As [`UploadSlot::planes_mut`]; no `&mut` from it may be alive.
    pub(crate) unsafe fn plane(&self, k: usize) -> &[u8] {
        // SAFETY: per the contract the mapping is alive and not written
        // while this shared borrow lives.
        unsafe { std::slice::from_raw_parts(self.planes[k], self.len) }
    }
}

/// Bytes one copy thread takes at least.
pub(super) const COPY_CHUNK: usize = 1 << 20;

/// Copies each source into its destination (same lengths), spread over up to 8
/// threads from 8 MiB on: one thread copies only about 9 GB/s (docs/hardware.md),
/// and a 4K 8-bit pair is 16.6 MB (on the H200 this took a 4K frame from 2.7 to
/// 1.9 ms in `vkssim bench`).
pub(super) fn parallel_copy(pairs: Vec<(&mut [u8], &[u8])>) {
    let total: usize = pairs.iter().map(|(_, s)| s.len()).sum();
    // Below 8 MiB (a 1080p 8-bit pair is 4 MB) thread start-up costs more than
    // it saves (measured on the H200).
    let threads = if total < 8 * COPY_CHUNK {
        1
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(8)
            .min(total / (2 * COPY_CHUNK))
            .max(1)
    };
    if threads == 1 {
        for (d, s) in pairs {
            d.copy_from_slice(s);
        }
        return;
    }
    let per_thread = total.div_ceil(threads).next_multiple_of(4096);
    let mut chunks: Vec<(&mut [u8], &[u8])> = Vec::new();
    for (d, s) in pairs {
        chunks.extend(d.chunks_mut(per_thread).zip(s.chunks(per_thread)));
    }
    std::thread::scope(|scope| {
        for (d, s) in chunks {
            scope.spawn(move || d.copy_from_slice(s));
        }
    });
}

impl VkScorer {
    /// Copies the pair into slot `i`'s upload memory.
    pub(super) fn copy_in(
        &mut self,
        i: usize,
        reference: &LumaFrame,
        distorted: &LumaFrame,
    ) -> Result<()> {
        let span = tracing::debug_span!("frame", index = self.next_frame);
        let _enter = span.enter();
        self.check_frame(reference, "reference")?;
        self.check_frame(distorted, "distorted")?;
        {
            let _upload = tracing::debug_span!("upload").entered();
            // The whole pictures: the luma plane, then the Cb and Cr planes
            // when a metric reads chroma (`check_frame` checked the length).
            let n = self.sizes.picture.bytes() as usize;
            let half = self.sizes.picture.bytes().next_multiple_of(4) as usize;
            let slot = &mut self.slots[i];
            if let Some(st) = slot.staging.as_mut() {
                let m = st.mapped_mut().ok_or_else(not_mapped)?;
                let (a, b) = m.split_at_mut(half);
                parallel_copy(vec![
                    (&mut a[..n], &reference.bytes[..n]),
                    (&mut b[..n], &distorted.bytes[..n]),
                ]);
            } else {
                let [r0, r1] = &mut slot.raw;
                let a = r0.mapped_mut().ok_or_else(not_mapped)?;
                let b = r1.mapped_mut().ok_or_else(not_mapped)?;
                parallel_copy(vec![
                    (&mut a[..n], &reference.bytes[..n]),
                    (&mut b[..n], &distorted.bytes[..n]),
                ]);
            }
        }
        Ok(())
    }

    pub(super) fn check_frame(&self, f: &LumaFrame, which: &str) -> Result<()> {
        let g = &self.sizes.geometry;
        PlaneGeometry::new(f.width, f.height, f.bit_depth).expect_same(
            &format!("frame {}: the {which}", self.next_frame),
            PlaneGeometry::new(g.width, g.height, g.bit_depth),
            "this scorer's frames",
        )?;
        let needed = self.sizes.picture.bytes();
        if (f.bytes.len() as u64) < needed {
            let planes = if self.sizes.picture.chroma.is_some() {
                "luma, Cb and Cr planes"
            } else {
                "luma plane"
            };
            return Err(Error::BufferSize {
                what: format!("frame {} {which} {planes}", self.next_frame),
                needed: needed as usize,
                actual: f.bytes.len(),
            });
        }
        Ok(())
    }

    /// Whether the memory [`UploadSlot::planes_mut`] hands out is host-cached
    /// (reading it back is then cheap; otherwise it is typically write-combined
    /// device memory behind the BAR, where every read crosses the bus).
    pub fn upload_is_host_cached(&self) -> bool {
        let slot = &self.slots[0];
        let buf = slot.staging.as_ref().unwrap_or(&slot.raw[0]);
        buf.memory_properties()
            .contains(vk::MemoryPropertyFlags::HOST_CACHED)
    }
}
