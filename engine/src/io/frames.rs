//! What the YUV and Y4M readers share: the byte source, the format, the frame
//! counter, and reading one frame's planes (luma into the caller's buffer, the rest
//! skipped) with the errors that name the file and frame.

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use super::index::{FrameIndex, Offsets};
use super::range::check_plane;
use super::source::ByteSource;
use super::VideoFormat;
use crate::{Error, Result};

/// A reader's state, whatever the container.
pub(crate) struct Frames {
    /// Where the bytes come from.
    pub(crate) src: Box<dyn ByteSource>,
    /// Every frame's layout.
    pub(crate) format: VideoFormat,
    /// The name errors use (`-` for standard input).
    pub(crate) path: PathBuf,
    /// Frames consumed so far, read or skipped: the index of the next frame.
    pub(crate) next: u64,
    /// Frames in the whole input, when known up front.
    pub(crate) total: Option<u64>,
    /// The file, when the input is one opened by path: for [`FrameIndex`].
    pub(crate) file: Option<Arc<File>>,
}

impl Frames {
    /// Wraps an I/O error with the path.
    pub(crate) fn io(&self, e: io::Error) -> Error {
        Error::io(self.path.clone(), e)
    }

    /// The error for a frame that ends early: `present` of its `frame_bytes` bytes
    /// were there.
    pub(crate) fn truncated(&self, present: u64, frame_bytes: u64) -> Error {
        Error::TruncatedFrame {
            path: self.path.clone(),
            frame: self.next,
            leftover: present,
            frame_bytes,
        }
    }

    /// Checks that `dst` can hold a luma plane.
    pub(crate) fn check_dst(&self, dst: &[u8]) -> Result<()> {
        let needed = self.format.luma_bytes();
        if dst.len() < needed {
            return Err(Error::BufferSize {
                what: format!("a {} luma plane", self.format),
                needed,
                actual: dst.len(),
            });
        }
        Ok(())
    }

    /// Reads one frame's planes, after `prefix` bytes of it (a Y4M FRAME line) were
    /// consumed: luma into `dst` when given (else skipped), the other planes skipped.
    /// Returns false when the input ended before the frame's first byte (and
    /// `prefix` is 0). Does not advance [`Frames::next`].
    pub(crate) fn read_planes(&mut self, dst: Option<&mut [u8]>, prefix: u64) -> Result<bool> {
        let payload = self.format.frame_bytes();
        let mut present = 0u64;
        let mut luma_read = None;
        if let Some(dst) = dst {
            let dst = &mut dst[..self.format.luma_bytes()];
            let n = self.src.fill(dst).map_err(|e| self.io(e))?;
            present = n as u64;
            luma_read = Some(dst);
        }
        // Skip the rest only after a whole luma plane: a short read means the end.
        if luma_read
            .as_ref()
            .map_or(true, |d| present == d.len() as u64)
        {
            present += self
                .src
                .skip_bytes(payload - present)
                .map_err(|e| self.io(e))?;
        }
        if present == payload {
            if let Some(dst) = luma_read {
                check_plane(dst, &self.format, &self.path, self.next)?;
            }
            return Ok(true);
        }
        if present == 0 && prefix == 0 {
            return Ok(false);
        }
        Err(self.truncated(prefix + present, prefix + payload))
    }

    /// A [`FrameIndex`] over `offsets`, when the input is a file opened by path.
    pub(crate) fn index(&self, offsets: Offsets) -> Option<FrameIndex> {
        let file = self.file.clone()?;
        Some(FrameIndex::new(
            file,
            self.path.clone(),
            self.format,
            offsets,
        ))
    }
}
