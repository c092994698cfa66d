//! The frames a [`super::Scorer`] takes: luma planes in host memory
//! ([`HostPlane`], 8-bit bytes or 16-bit words with a row stride) or in the
//! host's own Vulkan buffers ([`DevicePlane`]), and the host semaphores a
//! device-resident pair waits on or signals ([`SemaphoreRef`]); and a host
//! plane uploaded as a shared reference ([`SharedPlanes::upload`]).

use ash::vk;

use crate::frame::LumaFrame;
use crate::vk::shared_plane::{SharedPlane, SharedPlanes};
use crate::{Component, Error, PlaneRole, Result, SampleAt};

/// The samples of a host plane.
///
/// ```no_run
/// use vkssim::api::{HostPlane, HostSamples};
/// let words = vec![512u16; 64 * 64];
/// let plane = HostPlane { samples: HostSamples::U16(&words), row_stride: 64 };
/// # let _ = plane;
/// ```
#[derive(Debug, Clone, Copy)]
pub enum HostSamples<'a> {
    /// One byte per sample (8-bit video).
    U8(&'a [u8]),
    /// One 16-bit word per sample (10, 12 or 16-bit video; the value as is, not
    /// shifted).
    U16(&'a [u16]),
}

/// A luma plane in host memory: rows of the scorer's width, `row_stride`
/// samples (not bytes) apart. The scorer copies it into its upload memory
/// during [`Scorer::submit`](crate::api::ScoreQueue::submit); the slice can be reused right after.
///
/// ```no_run
/// use vkssim::api::HostPlane;
/// let padded = vec![0u16; 2048 * 1080];
/// let plane = HostPlane::u16(&padded, 2048); // 1920 wide, rows 2048 apart
/// # let _ = plane;
/// ```
#[derive(Debug, Clone, Copy)]
pub struct HostPlane<'a> {
    /// The samples.
    pub samples: HostSamples<'a>,
    /// Samples from the start of one row to the start of the next.
    pub row_stride: usize,
}

impl<'a> HostPlane<'a> {
    /// An 8-bit plane with rows `row_stride` bytes apart.
    ///
    /// ```no_run
    /// # let bytes = vec![0u8; 64 * 64];
    /// let plane = vkssim::api::HostPlane::u8(&bytes, 64);
    /// # let _ = plane;
    /// ```
    pub fn u8(samples: &'a [u8], row_stride: usize) -> Self {
        Self {
            samples: HostSamples::U8(samples),
            row_stride,
        }
    }

    /// A 10, 12 or 16-bit plane with rows `row_stride` samples apart.
    ///
    /// ```no_run
    /// # let words = vec![0u16; 64 * 64];
    /// let plane = vkssim::api::HostPlane::u16(&words, 64);
    /// # let _ = plane;
    /// ```
    pub fn u16(samples: &'a [u16], row_stride: usize) -> Self {
        Self {
            samples: HostSamples::U16(samples),
            row_stride,
        }
    }

    /// Copies the plane, packed, into `out` (resized to `width x height` at
    /// `bit_depth`), checking its size and every sample's range. `which` names
    /// the plane in errors.
    pub(crate) fn pack_into(
        &self,
        out: &mut LumaFrame,
        (width, height, bit_depth): (u32, u32, u32),
        (which, component): (PlaneRole, Component),
        frame: u64,
    ) -> Result<()> {
        let (w, h) = (width as usize, height as usize);
        if self.row_stride < w {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: the {which} plane's row stride {} is shorter than a row of {w} samples",
                self.row_stride
            )));
        }
        let needed = if h == 0 {
            0
        } else {
            self.row_stride * (h - 1) + w
        };
        let (len, wide) = match self.samples {
            HostSamples::U8(s) => (s.len(), false),
            HostSamples::U16(s) => (s.len(), true),
        };
        if wide != (bit_depth > 8) {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: the {which} plane has {} samples but the scorer takes {bit_depth}-bit video ({})",
                if wide { "16-bit" } else { "8-bit" },
                if bit_depth > 8 { "use HostPlane::u16" } else { "use HostPlane::u8" }
            )));
        }
        if len < needed {
            return Err(Error::BufferSize {
                what: format!(
                    "frame {frame} {which} plane ({w}x{h}, row stride {} samples)",
                    self.row_stride
                ),
                needed,
                actual: len,
            });
        }
        out.width = width;
        out.height = height;
        out.bit_depth = bit_depth;
        out.bytes.clear();
        match self.samples {
            HostSamples::U8(s) => {
                out.bytes.reserve(w * h);
                for y in 0..h {
                    out.bytes
                        .extend_from_slice(&s[y * self.row_stride..y * self.row_stride + w]);
                }
            }
            HostSamples::U16(s) => {
                let max = (1u32 << bit_depth) - 1;
                out.bytes.reserve(2 * w * h);
                for y in 0..h {
                    let row = &s[y * self.row_stride..y * self.row_stride + w];
                    if let Some(x) = row.iter().position(|&v| v as u32 > max) {
                        let at = (x as u32, y as u32, row[x] as u32);
                        return Err(range_error((which, component), frame, at, bit_depth));
                    }
                    for v in row {
                        out.bytes.extend_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
        Ok(())
    }

    /// The range check a submission makes of the plane's `width` x `height`
    /// samples, alone: [`Error::SampleRange`] for the first sample (in
    /// raster order) above `bit_depth` bits, naming `which` picture's
    /// `component` plane of frame `frame`. Submitting such a pair is not an
    /// error (its result is: [`super::ScoreQueue`]'s "Refused pairs"); a
    /// host that would rather refuse it before it takes a frame number
    /// checks first. Samples the plane does not hold, and 8-bit planes,
    /// pass.
    pub fn check_range(
        &self,
        (width, height, bit_depth): (u32, u32, u32),
        (which, component): (PlaneRole, Component),
        frame: u64,
    ) -> Result<()> {
        let HostSamples::U16(s) = self.samples else {
            return Ok(());
        };
        if bit_depth >= 16 {
            return Ok(());
        }
        let max = (1u32 << bit_depth) - 1;
        let w = width as usize;
        for y in 0..height as usize {
            let Some(row) = s.get(y * self.row_stride..y * self.row_stride + w) else {
                return Ok(());
            };
            if let Some(x) = row.iter().position(|&v| v as u32 > max) {
                let at = (x as u32, y as u32, row[x] as u32);
                return Err(range_error((which, component), frame, at, bit_depth));
            }
        }
        Ok(())
    }
}

/// A host plane's [`Error::SampleRange`]: sample `(x, y, value)` of
/// `which` picture's `component` plane of frame `frame`, above `bit_depth`
/// bits.
fn range_error(
    (which, component): (PlaneRole, Component),
    frame: u64,
    (x, y, value): (u32, u32, u32),
    bit_depth: u32,
) -> Error {
    Error::SampleRange {
        plane: Some(which),
        component,
        at: SampleAt::HostPlane,
        frame,
        x,
        y,
        value,
        max: (1u32 << bit_depth) - 1,
        bit_depth,
    }
}

/// How samples are stored in a [`DevicePlane`].
///
/// ```no_run
/// use vkssim::api::SampleFormat;
/// let bit_depth = 10;
/// let format = if bit_depth > 8 { SampleFormat::U16 } else { SampleFormat::U8 };
/// # let _ = format;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleFormat {
    /// One byte per sample (8-bit video).
    U8,
    /// One little-endian 16-bit word per sample, the value not shifted (10, 12
    /// or 16-bit video, as the scorer's bit depth says).
    U16,
}

/// A luma plane in one of the host's own Vulkan buffers, on the engine's
/// device: `height` rows of `width` samples starting `offset` bytes into
/// `buffer`, rows `row_pitch` bytes apart.
///
/// Imported once with [`super::Engine::import_buffer`]. Luma only, as
/// [`super::ImagePlane`]: a scorer whose psnr reads chroma refuses it. Read in place
/// (zero-copy) when the rows are packed (`row_pitch` = width times bytes per
/// sample), `offset` is a multiple of the device's
/// `minStorageBufferOffsetAlignment` and the plane's size a multiple of 4;
/// otherwise copied on the device into the scorer's own buffer first. The
/// buffer needs `STORAGE_BUFFER` usage for the first and `TRANSFER_SRC` for the
/// second (give it both), and must not be written until the pair's result (or
/// signal semaphore) says the scorer is done with it.
///
/// A buffer in `VK_SHARING_MODE_CONCURRENT`, or owned by the engine's queue
/// family, needs no ownership transfer (`queue_family` left
/// `VK_QUEUE_FAMILY_IGNORED`). One created `EXCLUSIVE` and owned by another
/// family is named with [`DevicePlane::with_queue_family`]: vkssim then
/// acquires it (a buffer barrier from that family to the engine's over the
/// whole buffer: offset 0, `VK_WHOLE_SIZE`), copies the plane on the device
/// and releases it back; the host records the matching release before and
/// acquire after (as for [`super::ImagePlane`]). Such a plane is always
/// copied, never read in place.
/// Samples above the bit depth (10 and 12-bit) are found by the device's
/// decimate pass: the pair's result is then [`crate::Error::SampleRange`]
/// naming the plane (`reference plane` or `distorted plane`), the pair's index
/// and the first such sample.
///
/// ```no_run
/// use ash::vk;
/// use vkssim::api::{DevicePlane, SampleFormat};
/// # let buffer = vk::Buffer::null();
/// let luma = DevicePlane::new(buffer, 3840, SampleFormat::U8);
/// # let _ = luma;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DevicePlane {
    /// The host's buffer.
    pub buffer: vk::Buffer,
    /// Bytes from the start of the buffer to the first sample.
    pub offset: u64,
    /// Bytes from the start of one row to the start of the next.
    pub row_pitch: u64,
    /// Sample storage; must match the scorer's bit depth (8: `U8`, else `U16`).
    pub format: SampleFormat,
    /// The queue family that owns an `EXCLUSIVE` buffer, or
    /// `VK_QUEUE_FAMILY_IGNORED` when no ownership transfer is needed.
    pub queue_family: u32,
}

impl DevicePlane {
    /// A plane at the start of `buffer`, rows `row_pitch` bytes apart.
    ///
    /// ```no_run
    /// use vkssim::api::{DevicePlane, SampleFormat};
    /// # let buffer = ash::vk::Buffer::null();
    /// let plane = DevicePlane::new(buffer, 2 * 1920, SampleFormat::U16).with_offset(4096);
    /// # let _ = plane;
    /// ```
    pub fn new(buffer: vk::Buffer, row_pitch: u64, format: SampleFormat) -> Self {
        Self {
            buffer,
            offset: 0,
            row_pitch,
            format,
            queue_family: vk::QUEUE_FAMILY_IGNORED,
        }
    }

    /// The same plane in an `EXCLUSIVE` buffer owned by `family` (acquired
    /// from it and released back; see [`DevicePlane`]).
    ///
    /// ```no_run
    /// use vkssim::api::{DevicePlane, SampleFormat};
    /// # let buffer = ash::vk::Buffer::null();
    /// let plane = DevicePlane::new(buffer, 1920, SampleFormat::U8).with_queue_family(1);
    /// # let _ = plane;
    /// ```
    pub fn with_queue_family(mut self, family: u32) -> Self {
        self.queue_family = family;
        self
    }

    /// The same plane starting `offset` bytes into its buffer.
    pub fn with_offset(mut self, offset: u64) -> Self {
        self.offset = offset;
        self
    }
}

/// A host semaphore a device-resident pair waits on before its work starts, or
/// signals when its results are written: binary (`value: None`) or timeline
/// (`value: Some(v)`: wait until it reaches `v`, or set it to `v`; only where
/// [`super::Engine::supports_timeline_semaphores`] says so).
///
/// ```no_run
/// use ash::vk;
/// use vkssim::api::SemaphoreRef;
/// # let decoded = vk::Semaphore::null();
/// let wait = SemaphoreRef::timeline(decoded, 42);
/// # let _ = wait;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SemaphoreRef {
    /// The semaphore (created on the engine's device).
    pub semaphore: vk::Semaphore,
    /// Timeline value, or `None` for a binary semaphore.
    pub value: Option<u64>,
}

impl SemaphoreRef {
    /// `semaphore` with timeline value `value`, or binary for `None`.
    ///
    /// ```no_run
    /// # let s = ash::vk::Semaphore::null();
    /// let r = vkssim::api::SemaphoreRef::new(s, None);
    /// # let _ = r;
    /// ```
    pub fn new(semaphore: vk::Semaphore, value: Option<u64>) -> Self {
        Self { semaphore, value }
    }

    /// A binary semaphore.
    ///
    /// ```no_run
    /// # let s = ash::vk::Semaphore::null();
    /// let r = vkssim::api::SemaphoreRef::binary(s);
    /// assert_eq!(r.value, None);
    /// ```
    pub fn binary(semaphore: vk::Semaphore) -> Self {
        Self::new(semaphore, None)
    }

    /// A timeline semaphore at `value`.
    ///
    /// ```no_run
    /// # let s = ash::vk::Semaphore::null();
    /// let r = vkssim::api::SemaphoreRef::timeline(s, 7);
    /// assert_eq!(r.value, Some(7));
    /// ```
    pub fn timeline(semaphore: vk::Semaphore, value: u64) -> Self {
        Self::new(semaphore, Some(value))
    }
}

impl SharedPlanes {
    /// A plane of this pool holding `plane` (packed, range-checked): a
    /// reference uploaded once for every scorer that takes it
    /// (`Pair::new(&shared, host_plane)` with [`Scorer::submit`](crate::api::ScoreQueue::submit)).
    /// For a pool of luma planes; a pool whose planes hold a whole picture
    /// (its scorer's psnr reads chroma) takes [`SharedPlanes::upload_picture`].
    ///
    /// Errors: a plane of the wrong sample type or too short, a stride
    /// shorter than a row ([`Error::InvalidOption`], [`Error::BufferSize`]),
    /// a sample above the bit depth ([`Error::SampleRange`]); a pool whose
    /// planes hold a whole picture ([`Error::InvalidOption`]); device memory.
    pub fn upload(&self, plane: HostPlane<'_>) -> Result<SharedPlane> {
        if let Some((cw, ch)) = self.chroma_plane_size() {
            return Err(Error::InvalidOption(format!(
                "this pool's planes hold a whole picture (luma, then {cw}x{ch} Cb and Cr \
                 planes: its scorer's metrics read chroma), not a luma plane alone: upload \
                 the reference's three planes with SharedPlanes::upload_picture (in C, \
                 vkssim_shared_planes_upload_picture)"
            )));
        }
        self.upload_planes(plane, None)
    }

    /// A plane of this pool holding a whole reference picture: `luma`, then
    /// `chroma` (`[cb, cr]`, each of [`SharedPlanes::chroma_plane_size`]),
    /// packed and range-checked, for scorers whose psnr reads chroma
    /// (`Pair::new(&shared, luma).with_distorted_chroma([cb, cr])` with
    /// [`Scorer::submit`](crate::api::ScoreQueue::submit)).
    ///
    /// ```no_run
    /// use vkssim::api::{Engine, HostPlane, Pair, ScoreQueue, ScorerDesc};
    /// use vkssim::io::Chroma;
    /// use vkssim::metric::config::parse_list;
    /// # fn main() -> vkssim::Result<()> {
    /// let engine = Engine::new(&vkssim::vk::VkOptions::default())?;
    /// let desc = ScorerDesc::new(64, 64, 8)
    ///     .with_metrics(parse_list(&["psnr"])?)
    ///     .with_chroma(Chroma::C420);
    /// let planes = engine.shared_planes(&desc)?;
    /// let (y, c) = (vec![16u8; 64 * 64], vec![128u8; 32 * 32]);
    /// let (luma, cb) = (HostPlane::u8(&y, 64), HostPlane::u8(&c, 32));
    /// let reference = planes.upload_picture(luma, [cb, cb])?;
    /// let mut scorer = engine.scorer(&desc)?;
    /// scorer.submit(Pair::new(&reference, luma).with_distorted_chroma([cb, cb]))?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Errors: as [`SharedPlanes::upload`] for each plane (a chroma plane
    /// is checked against the chroma size); a pool of luma planes (its
    /// scorer reads no chroma: [`Error::InvalidOption`]).
    pub fn upload_picture(
        &self,
        luma: HostPlane<'_>,
        chroma: [HostPlane<'_>; 2],
    ) -> Result<SharedPlane> {
        if self.chroma_plane_size().is_none() {
            return Err(Error::InvalidOption(
                "this pool's planes hold a luma plane only (its scorer's metrics read no \
                 chroma): upload the reference's luma plane with SharedPlanes::upload (in \
                 C, vkssim_shared_planes_upload)"
                    .into(),
            ));
        }
        self.upload_planes(luma, Some(chroma))
    }

    /// Packs `luma` (and `chroma`, after it) into a plane of the pool.
    fn upload_planes(
        &self,
        luma: HostPlane<'_>,
        chroma: Option<[HostPlane<'_>; 2]>,
    ) -> Result<SharedPlane> {
        let (width, height, bit_depth) = self.geometry();
        let mut packed = LumaFrame::zeroed(0, 0, bit_depth);
        let reference = |k| (PlaneRole::Reference, Component::at(k));
        luma.pack_into(&mut packed, self.geometry(), reference(0), 0)?;
        if let (Some(planes), Some((cw, ch))) = (chroma, self.chroma_plane_size()) {
            let mut plane = LumaFrame::zeroed(0, 0, bit_depth);
            for (k, c) in planes.into_iter().enumerate() {
                c.pack_into(&mut plane, (cw, ch, bit_depth), reference(1 + k), 0)?;
                packed.bytes.extend_from_slice(&plane.bytes);
            }
        }
        if packed.bytes.len() != self.plane_len() {
            return Err(Error::Internal(format!(
                "{} {width}x{height} shared reference packed into {} bytes for planes of {}",
                crate::words::article(width.into()),
                packed.bytes.len(),
                self.plane_len()
            )));
        }
        let mut writer = self.take()?;
        writer.bytes_mut().copy_from_slice(&packed.bytes);
        Ok(writer.share())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10-bit 8x6 plane (row stride 9) of 1023s with `value` at (3, 4).
    fn plane_with(value: u16) -> Vec<u16> {
        let mut s = vec![1023u16; 9 * 6];
        s[4 * 9 + 3] = value;
        s
    }

    #[test]
    fn check_range_finds_what_packing_refuses() {
        let role = (PlaneRole::Distorted, Component::Cb);
        let high = plane_with(1024);
        let plane = HostPlane::u16(&high, 9);
        let checked = plane.check_range((8, 6, 10), role, 7).unwrap_err();
        let mut out = LumaFrame::zeroed(0, 0, 10);
        let packed = plane.pack_into(&mut out, (8, 6, 10), role, 7).unwrap_err();
        assert_eq!(checked.to_string(), packed.to_string());
        assert!(matches!(
            checked,
            Error::SampleRange {
                plane: Some(PlaneRole::Distorted),
                component: Component::Cb,
                frame: 7,
                x: 3,
                y: 4,
                value: 1024,
                max: 1023,
                bit_depth: 10,
                ..
            }
        ));
        // At 12 bits the same samples fit; so do the column and row the
        // region leaves out.
        assert!(plane.check_range((8, 6, 12), role, 7).is_ok());
        assert!(plane.check_range((3, 6, 10), role, 7).is_ok());
        assert!(plane.check_range((8, 4, 10), role, 7).is_ok());
        let fine = plane_with(1023);
        assert!(HostPlane::u16(&fine, 9)
            .check_range((8, 6, 10), role, 7)
            .is_ok());
    }
}
