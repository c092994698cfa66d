//! What the YUV and Y4M readers share: the byte source, the format, the frame
//! counter, and reading one frame's planes (luma, or luma and chroma, into the
//! caller's buffer or luma into a new one, the rest skipped) with the errors that name the file and frame.
//!
//! Memory follows the data: until a stream (a pipe) has delivered one whole frame,
//! a new frame's plane grows in chunks as its bytes arrive, so a header that
//! claims a huge frame followed by a few bytes costs those bytes, not the claim.
//! A regular file's size was checked against the format when it was opened.

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use super::index::{FrameIndex, Offsets};
use super::range::{check_plane, check_planes};
use super::source::ByteSource;
use super::{Check, Planes, VideoFormat};
use crate::{Component, Error, LumaFrame, Result};

/// The first chunk of a stream's first plane; each next chunk doubles.
const FIRST_CHUNK: usize = 64 * 1024;

/// Where [`Frames::read_planes`] puts a frame's luma.
pub(crate) enum LumaDst<'a> {
    /// Nowhere: the whole frame is skipped.
    Skip,
    /// The luma, Cb and Cr planes into the first bytes of the caller's
    /// buffer (at least [`VideoFormat::planes_bytes`] long), checked.
    Planes(&'a mut [u8]),
    /// As [`LumaDst::Planes`], without the sample range check (the buffer
    /// is not read back; the scorer checks the range itself).
    PlanesUnchecked(&'a mut [u8]),
    /// The first bytes of the caller's buffer (at least a luma plane long).
    Into(&'a mut [u8]),
    /// As [`LumaDst::Into`], without the sample range check (the buffer is
    /// not read back; the scorer checks the range itself).
    Unchecked(&'a mut [u8]),
    /// An empty vector, grown as the bytes arrive (it holds what came).
    Grow(&'a mut Vec<u8>),
}

impl<'a> LumaDst<'a> {
    /// Where [`super::LumaReader::read`] with `planes` and `check` puts the
    /// frame: the caller's buffer `dst`.
    pub(crate) fn of(dst: &'a mut [u8], planes: Planes, check: Check) -> Self {
        match (planes, check) {
            (Planes::Luma, Check::Range) => LumaDst::Into(dst),
            (Planes::Luma, Check::Skip) => LumaDst::Unchecked(dst),
            (Planes::All, Check::Range) => LumaDst::Planes(dst),
            (Planes::All, Check::Skip) => LumaDst::PlanesUnchecked(dst),
        }
    }
}

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
        self.format.check_luma_dst(dst).map(|_| ())
    }

    /// Checks that `dst` can hold a frame's luma, Cb and Cr planes.
    pub(crate) fn check_planes_dst(&self, dst: &[u8]) -> Result<()> {
        self.format.check_planes_dst(dst).map(|_| ())
    }

    /// Reads one frame's planes, after `prefix` bytes of it (a Y4M FRAME line) were
    /// consumed: luma into `dst` (or skipped), the other planes skipped. Returns
    /// false when the input ended before the frame's first byte (and `prefix` is
    /// 0). Does not advance [`Frames::next`].
    pub(crate) fn read_planes(&mut self, dst: LumaDst<'_>, prefix: u64) -> Result<bool> {
        let payload = self.format.frame_bytes();
        let planes = matches!(dst, LumaDst::Planes(_) | LumaDst::PlanesUnchecked(_));
        let luma_len = if planes {
            self.format.planes_bytes()
        } else {
            self.format.luma_bytes()
        };
        let check = !matches!(dst, LumaDst::Unchecked(_) | LumaDst::PlanesUnchecked(_));
        let (present, plane) = match dst {
            LumaDst::Skip => (0, None),
            LumaDst::Planes(dst) | LumaDst::PlanesUnchecked(dst) => {
                let dst = &mut dst[..luma_len];
                let n = self.src.fill(dst).map_err(|e| self.io(e))?;
                (n, Some(dst))
            }
            LumaDst::Into(dst) | LumaDst::Unchecked(dst) => {
                let dst = &mut dst[..luma_len];
                let n = self.src.fill(dst).map_err(|e| self.io(e))?;
                (n, Some(dst))
            }
            LumaDst::Grow(v) => {
                let n = grow_fill(&mut *self.src, v, luma_len).map_err(|e| self.io(e))?;
                (n, Some(&mut v[..]))
            }
        };
        let mut present = present as u64;
        // Skip the rest only after a whole luma plane: a short read means the end.
        if plane.is_none() || present == luma_len as u64 {
            present += self
                .src
                .skip_bytes(payload - present)
                .map_err(|e| self.io(e))?;
        }
        if present == payload {
            if let Some(plane) = plane.filter(|_| check) {
                if planes {
                    check_planes(plane, &self.format, &self.path, self.next)?;
                } else {
                    check_plane(plane, Component::Luma, &self.format, &self.path, self.next)?;
                }
            }
            return Ok(true);
        }
        if present == 0 && prefix == 0 {
            return Ok(false);
        }
        Err(self.truncated(prefix + present, prefix + payload))
    }

    /// Reads one frame, after `prefix` bytes of it were consumed, into a new
    /// [`LumaFrame`]; `None` when the input ended before the frame's first byte
    /// (and `prefix` is 0). Until a whole frame has come (a regular file's size
    /// was checked when it was opened), the plane grows as its bytes arrive. Does
    /// not advance [`Frames::next`].
    pub(crate) fn read_frame(&mut self, prefix: u64) -> Result<Option<LumaFrame>> {
        let f = self.format;
        // A frame came whole before, or a file's size says one is there.
        let proven = self.next > 0 || self.src.remaining().is_some_and(|left| left > 0);
        let mut frame = if proven {
            LumaFrame::zeroed(f.width, f.height, f.bit_depth)
        } else {
            LumaFrame {
                width: f.width,
                height: f.height,
                bit_depth: f.bit_depth,
                bytes: Vec::new(),
            }
        };
        let dst = if proven {
            LumaDst::Into(&mut frame.bytes)
        } else {
            LumaDst::Grow(&mut frame.bytes)
        };
        Ok(self.read_planes(dst, prefix)?.then_some(frame))
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

/// Reads up to `len` bytes into `v` (empty on entry), growing it a chunk at a
/// time (each twice the last) only as the previous chunk fills; returns the bytes
/// read, fewer than `len` only at the end of the input. `v` holds exactly those.
fn grow_fill(src: &mut dyn ByteSource, v: &mut Vec<u8>, len: usize) -> io::Result<usize> {
    let mut chunk = FIRST_CHUNK;
    while v.len() < len {
        let old = v.len();
        let want = chunk.min(len - old);
        v.reserve_exact(want);
        v.resize(old + want, 0);
        let n = src.fill(&mut v[old..])?;
        v.truncate(old + n);
        if n < want {
            break;
        }
        chunk = chunk.saturating_mul(2);
    }
    Ok(v.len())
}
