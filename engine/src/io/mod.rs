//! Video readers: raw planar YUV ([`yuv`]) and Y4M ([`y4m`]), from files or standard
//! input, behind one trait ([`LumaReader`]). Luma is read, and the chroma planes
//! only when asked ([`LumaReader::read`] with [`Planes::All`], for metrics that read them);
//! planes not read are skipped without being copied (a seek in a regular file,
//! one reused buffer in a pipe).
//!
//! [`open_input`] picks the reader by content: `-` is standard input; an input that
//! starts with `YUV4MPEG` is Y4M (whatever its name); a name ending `.yuv` is raw
//! YUV and needs the whole [`RawFormat`]. Any other regular file is, with the
//! `ffmpeg` feature, opened by FFmpeg's libavformat and decoded by libavcodec
//! (`ffmpeg::FfmpegReader`: MP4, MKV, WebM, IVF, MPEG-TS, ...), except that
//! with a whole [`RawFormat`] given it is raw YUV, whatever its name, unless
//! its content says it is encoded (a container's magic number, or an
//! elementary stream such as H.264 under its own extension); without the
//! feature it is raw YUV. [`open_input_with`] also takes
//! [`DecodeOptions`] (which stream, what a damaged frame does).
//!
//! Errors name the file and frame: a missing or unreadable file is [`Error::Io`]; a
//! size that is not a whole number of frames is [`Error::TruncatedFrame`], found when
//! a regular file is opened and when a stream ends; a bad Y4M header or FRAME line is
//! [`Error::Y4mHeader`] / [`Error::Y4mFrame`]; a format vkssim does not read is
//! [`Error::Unsupported`]; a 10 or 12-bit sample above its bit depth is
//! [`Error::SampleRange`] (see [`range`]).
//!
//! Readers go front to back; for a regular file, [`LumaReader::frame_index`] also
//! gives a [`FrameIndex`] that reads any frame by offset, from several threads at
//! once.
//!
//! An input with no frame is not an error here: its reader yields none (and a
//! regular file's [`LumaReader::frame_count`] is `Some(0)`). The layer that scores
//! reports [`Error::NoFrames`]. An input of no byte at all is
//! [`Error::EmptyInput`] when it is standard input (empty or closed) or has no
//! complete raw format; an empty raw file of a known format has no frame.

mod color_range;
mod decode_options;
#[cfg(feature = "ffmpeg")]
pub mod ffmpeg;
mod format;
mod frames;
mod index;
mod probe;
pub mod range;
mod source;
#[cfg(feature = "ffmpeg")]
mod stdin;
#[cfg(test)]
mod testutil;
pub mod y4m;
pub mod yuv;

#[cfg(test)]
mod proptests;

use std::path::Path;

pub use color_range::{ranges_differ, ColorRange, DeclaredRange};
pub use decode_options::{DecodeErrors, DecodeOptions, Resize, ScaleAlgorithm};
pub use format::{Chroma, VideoFormat, MAX_DIMENSION, PIXEL_FORMATS};
pub use index::FrameIndex;
pub use probe::{open_input, open_input_with, RawFormat};
pub use y4m::{Y4mHeader, Y4mReader};
pub use yuv::YuvReader;

#[cfg(doc)]
use crate::Error;
use crate::{LumaFrame, Result};

/// Which planes of a frame [`LumaReader::read`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planes {
    /// The luma plane alone (the chroma planes are skipped).
    Luma,
    /// The luma, Cb and Cr planes (an alpha plane is skipped).
    All,
}

/// Whether [`LumaReader::read`] checks the samples' range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// A 10 or 12-bit sample above the bit depth is [`Error::SampleRange`].
    Range,
    /// No range check where the reader can leave it out (the scorer checks).
    Skip,
}

/// A source of luma planes (and chroma planes when asked), one frame per
/// read, in order.
pub trait LumaReader: Send {
    /// The layout of every frame.
    fn format(&self) -> VideoFormat;

    /// The input's name for messages (`-` for standard input).
    fn path(&self) -> &Path;

    /// Reads the next frame into the first bytes of `dst`: with
    /// [`Planes::Luma`] its luma plane ([`VideoFormat::luma_bytes`] bytes,
    /// packed rows, raw little-endian samples as in [`LumaFrame`]), its other
    /// planes skipped; with [`Planes::All`] its luma, Cb and Cr planes
    /// ([`VideoFormat::planes_bytes`] bytes, packed as a raw YUV file stores
    /// them, an alpha plane skipped), for metrics that read chroma (`psnr`).
    /// Returns false, leaving `dst` unspecified, at a clean end of input.
    ///
    /// With [`Check::Range`] a 10 or 12-bit sample above the bit depth is
    /// [`Error::SampleRange`]; [`Check::Skip`] leaves that check out where
    /// the reader can (`dst` is then not read back: for memory that is slow
    /// to read, such as write-combined device memory, when the scorer checks
    /// the range itself, as the Vulkan scorer's passes do for the planes it
    /// uploads).
    ///
    /// Errors: `dst` shorter than what is read ([`Error::BufferSize`]); a
    /// reader of luma only asked for the planes of an input with chroma
    /// ([`Error::Unsupported`]; the YUV, Y4M and FFmpeg readers read
    /// chroma); the input's own errors (see the module documentation).
    fn read(&mut self, dst: &mut [u8], planes: Planes, check: Check) -> Result<bool>;

    /// Whether the input is a Y4M stream (the `vmaf` command line converts
    /// some Y4M chroma layouts before scoring, which matters to metrics that
    /// read chroma). False by default.
    fn is_y4m(&self) -> bool {
        false
    }

    /// The layout of the input's frames as stored, before any resizing
    /// ([`DecodeOptions::resize`]); by default [`LumaReader::format`].
    fn stored_format(&self) -> VideoFormat {
        self.format()
    }

    /// The colour range the input declares, if it declares one (a Y4M
    /// header's `XCOLORRANGE`, an encoded stream's range); `None` by default
    /// (raw YUV declares none). Frames are read as stored whatever it is.
    fn color_range(&self) -> Option<DeclaredRange> {
        None
    }

    /// Skips up to `frames` frames; returns how many were skipped (fewer only at
    /// the end of the input).
    fn skip(&mut self, frames: u64) -> Result<u64>;

    /// Frames consumed so far, read or skipped: the index of the next frame.
    fn frames_read(&self) -> u64;

    /// Frames in the whole input (from its start, skipped ones included) when known
    /// without reading it: regular files yes, pipes no.
    fn frame_count(&self) -> Option<u64> {
        None
    }

    /// Frames in the whole input as far as its container says, when
    /// [`LumaReader::frame_count`] cannot know them exactly (an encoded
    /// input: the container's frame count, or its duration times its frame
    /// rate). An estimate, for progress displays: never for length checks.
    /// By default [`LumaReader::frame_count`].
    fn frame_count_estimate(&self) -> Option<u64> {
        self.frame_count()
    }

    /// Positional access to every frame, so that several threads can read
    /// different frames at once: `Some` for a regular file opened by
    /// [`open_input`] (standard input redirected from a file included), `None` for
    /// pipes. Reading through it does not move this reader.
    fn frame_index(&self) -> Option<FrameIndex> {
        None
    }

    /// Reads the next frame's luma into a new [`LumaFrame`]; `None` at the end.
    /// The Y4M and YUV readers grow a stream's plane as its bytes arrive until the
    /// stream has delivered one whole frame, so that a header claiming a huge
    /// frame costs memory only for the bytes that come.
    fn read_frame(&mut self) -> Result<Option<LumaFrame>> {
        let f = self.format();
        let mut frame = LumaFrame::zeroed(f.width, f.height, f.bit_depth);
        Ok(self
            .read(&mut frame.bytes, Planes::Luma, Check::Range)?
            .then_some(frame))
    }
}

impl<T: LumaReader + ?Sized> LumaReader for Box<T> {
    fn format(&self) -> VideoFormat {
        (**self).format()
    }
    fn path(&self) -> &Path {
        (**self).path()
    }
    fn read(&mut self, dst: &mut [u8], planes: Planes, check: Check) -> Result<bool> {
        (**self).read(dst, planes, check)
    }
    fn is_y4m(&self) -> bool {
        (**self).is_y4m()
    }
    fn color_range(&self) -> Option<DeclaredRange> {
        (**self).color_range()
    }
    fn stored_format(&self) -> VideoFormat {
        (**self).stored_format()
    }
    fn skip(&mut self, frames: u64) -> Result<u64> {
        (**self).skip(frames)
    }
    fn frames_read(&self) -> u64 {
        (**self).frames_read()
    }
    fn frame_count(&self) -> Option<u64> {
        (**self).frame_count()
    }
    fn frame_count_estimate(&self) -> Option<u64> {
        (**self).frame_count_estimate()
    }
    fn frame_index(&self) -> Option<FrameIndex> {
        (**self).frame_index()
    }
    fn read_frame(&mut self) -> Result<Option<LumaFrame>> {
        (**self).read_frame()
    }
}

#[cfg(test)]
mod tests;
