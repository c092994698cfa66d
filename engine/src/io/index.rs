//! Positional access to a regular file's frames ([`FrameIndex`]): where each frame's
//! luma starts, and a read of any frame that takes `&self`, so several threads can
//! read different frames of one file at once (one thread's copy out of the page
//! cache tops out well below what a GPU can take).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::range::check_plane;
use super::VideoFormat;
use crate::{Error, Result};

/// Where each frame's luma plane starts in the file.
#[derive(Debug, Clone)]
pub(crate) enum Offsets {
    /// Frame `i` at `first + i * stride` (raw YUV).
    Uniform {
        /// The first frame's luma.
        first: u64,
        /// Bytes from one frame to the next.
        stride: u64,
        /// Frames.
        count: u64,
    },
    /// Each frame's luma, found by visiting every FRAME line (Y4M).
    Listed(Arc<[u64]>),
}

/// Every frame of a regular file, readable in any order and from any thread.
/// Frame numbers count from the first frame of the input, whatever was read or
/// skipped through the [`super::LumaReader`] that made this index.
#[derive(Debug, Clone)]
pub struct FrameIndex {
    file: Arc<File>,
    path: PathBuf,
    format: VideoFormat,
    offsets: Offsets,
}

impl FrameIndex {
    pub(crate) fn new(
        file: Arc<File>,
        path: PathBuf,
        format: VideoFormat,
        offsets: Offsets,
    ) -> Self {
        Self {
            file,
            path,
            format,
            offsets,
        }
    }

    /// Frames in the file.
    pub fn len(&self) -> u64 {
        match &self.offsets {
            Offsets::Uniform { count, .. } => *count,
            Offsets::Listed(list) => list.len() as u64,
        }
    }

    /// Whether the file holds no frame.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The layout of every frame.
    pub fn format(&self) -> VideoFormat {
        self.format
    }

    /// The file's name for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Byte offset of frame `frame`'s luma plane, if the file has that frame.
    pub fn luma_offset(&self, frame: u64) -> Option<u64> {
        match &self.offsets {
            Offsets::Uniform {
                first,
                stride,
                count,
            } => (frame < *count).then(|| first + frame * stride),
            Offsets::Listed(list) => list.get(usize::try_from(frame).ok()?).copied(),
        }
    }

    /// Reads frame `frame`'s luma into the first [`VideoFormat::luma_bytes`] bytes
    /// of `dst`, with the checks of [`super::LumaReader::read`]. A frame past
    /// the end is [`Error::InvalidOption`]; a file that shrank since it was indexed
    /// is [`Error::TruncatedFrame`].
    pub fn read_luma_at(&self, frame: u64, dst: &mut [u8]) -> Result<()> {
        self.read_luma_at_unchecked(frame, dst)?;
        check_plane(
            &dst[..self.format.luma_bytes()],
            crate::Component::Luma,
            &self.format,
            &self.path,
            frame,
        )
    }

    /// [`FrameIndex::read_luma_at`] without the sample range check (no read of
    /// `dst` after writing it; for memory that is slow to read, such as
    /// write-combined device memory, when the scorer checks the range itself:
    /// the Vulkan scorer's decimate pass does: a frame with a sample above
    /// the bit depth is then [`Error::SampleRange`] from [`crate::vk::VkScorer`],
    /// naming the plane and the scorer's frame index).
    pub fn read_luma_at_unchecked(&self, frame: u64, dst: &mut [u8]) -> Result<()> {
        let luma = self.format.check_luma_dst(dst)?;
        self.read_frame_bytes(frame, &mut dst[..luma])
    }

    /// Reads the first `dst.len()` bytes of frame `frame` (its luma plane,
    /// then the planes after it): a frame past the end is
    /// [`Error::InvalidOption`], a file that ends first
    /// [`Error::TruncatedFrame`].
    fn read_frame_bytes(&self, frame: u64, dst: &mut [u8]) -> Result<()> {
        let offset = self.frame_offset(frame)?;
        let n = read_at(&self.file, dst, offset).map_err(|e| Error::io(&self.path, e))?;
        if n < dst.len() {
            return Err(self.truncated(frame, n));
        }
        Ok(())
    }

    /// Where frame `frame` starts in the file; a frame past the end is
    /// [`Error::InvalidOption`].
    fn frame_offset(&self, frame: u64) -> Result<u64> {
        self.luma_offset(frame).ok_or_else(|| {
            Error::InvalidOption(format!(
                "{}: frame {frame} asked for, but the file has {}",
                self.path.display(),
                crate::words::count(self.len(), "frame")
            ))
        })
    }

    /// Frame `frame` ended after `read` bytes: the file shrank since it was
    /// indexed.
    fn truncated(&self, frame: u64, read: usize) -> Error {
        Error::TruncatedFrame {
            path: self.path.clone(),
            frame,
            leftover: read as u64,
            frame_bytes: self.format.frame_bytes(),
        }
    }
}

impl FrameIndex {
    /// Reads frame `frame`'s luma, Cb and Cr planes into the first
    /// [`VideoFormat::planes_bytes`] bytes of `dst` (packed, as a raw YUV file
    /// stores them; an alpha plane is not read), with the checks of
    /// [`FrameIndex::read_luma_at`] on every plane read.
    pub fn read_planes_at(&self, frame: u64, dst: &mut [u8]) -> Result<()> {
        let len = self.format.check_planes_dst(dst)?;
        let dst = &mut dst[..len];
        self.read_frame_bytes(frame, dst)?;
        super::range::check_planes(dst, &self.format, &self.path, frame)
    }

    /// [`FrameIndex::read_planes_at`] without the sample range check (no
    /// read of `dst` after writing it: for write-combined device memory,
    /// when the scorer checks every plane's range itself, as the Vulkan
    /// scorer's psnr pass does for the planes it uploads).
    pub fn read_planes_at_unchecked(&self, frame: u64, dst: &mut [u8]) -> Result<()> {
        let len = self.format.check_planes_dst(dst)?;
        self.read_frame_bytes(frame, &mut dst[..len])
    }
}

impl FrameIndex {
    /// Frame `frame`'s luma (with `planes`, its luma, Cb and Cr planes,
    /// packed) into `dst` without the sample range check, as
    /// [`FrameIndex::read_luma_at_unchecked`] and
    /// [`FrameIndex::read_planes_at_unchecked`], for write-combined device
    /// memory (a Vulkan device's memory mapped through the BAR): the file's
    /// bytes go through `bounce`, host memory of the caller's kept across
    /// calls, one `bounce.len()` chunk at a time, and are then copied on. The
    /// kernel's copy from the page cache straight into write-combined memory
    /// is slower than its copy into cached memory followed by a copy on the
    /// host (BENCHMARKS.md, "Reads through a bounce buffer"). An empty
    /// `bounce` reads straight into `dst`.
    pub fn read_at_through(
        &self,
        frame: u64,
        dst: &mut [u8],
        planes: bool,
        bounce: &mut [u8],
    ) -> Result<()> {
        let len = if planes {
            self.format.check_planes_dst(dst)?
        } else {
            self.format.check_luma_dst(dst)?
        };
        if bounce.is_empty() {
            return self.read_frame_bytes(frame, &mut dst[..len]);
        }
        let offset = self.frame_offset(frame)?;
        let mut done = 0;
        for chunk in dst[..len].chunks_mut(bounce.len()) {
            let staged = &mut bounce[..chunk.len()];
            let n = read_at(&self.file, staged, offset + done as u64)
                .map_err(|e| Error::io(&self.path, e))?;
            chunk[..n].copy_from_slice(&staged[..n]);
            done += n;
            if n < chunk.len() {
                return Err(self.truncated(frame, done));
            }
        }
        Ok(())
    }
}

/// Reads `buf.len()` bytes at `offset` unless the file ends first; returns the
/// bytes read. Does not move any file position shared with other readers.
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::os::windows::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match file.seek_read(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// A shared `File` read through the ordinary position (for the sequential reader),
/// while [`FrameIndex`] reads the same file by offset.
pub(crate) struct SharedFile(pub(crate) Arc<File>);

impl Read for SharedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self.0).read(buf)
    }
}

impl Seek for SharedFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        (&*self.0).seek(pos)
    }
}
