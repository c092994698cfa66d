//! Encoded inputs (MP4, MKV, WebM, IVF, MPEG-TS, ...; H.264, HEVC, AV1, VP9,
//! MPEG-2, any codec the system FFmpeg decodes), decoded in process by
//! FFmpeg's libraries (feature `ffmpeg`): [`FfmpegReader`].
//!
//! Every frame the decoder outputs is delivered, in presentation order, none
//! duplicated or dropped: the frames that `ffmpeg -i X -fps_mode passthrough
//! -f rawvideo` writes, byte for byte (the codec's cropping applied, no
//! pixel format conversion, no rotation, no scaling unless
//! [`DecodeOptions::resize`] asks for it). The geometry, bit depth
//! and subsampling are the first decoded frame's; a frame of another size or
//! format later is an error (the `pixfmt` module lists the formats read).
//!
//! [`AnnexB`] gives an H.264 stream's packets from any container as Annex B,
//! for a decoder that takes that (Vulkan Video).
//!
//! Decoding ahead: a regular file's frames are decoded on a thread of their
//! own (`vkssim-decode-<file name>`), started when the first frame is read,
//! into a bounded queue ahead of the reader, so that FFmpeg's frame-threaded
//! decoder runs continuously rather than only while the reader asks for a
//! frame; standard input and other pipes are decoded inline. The frames and
//! the errors (in their places, with the same frame numbers) are the same
//! either way; dropping the reader stops and joins the thread.
//!
//! One job per module: `demux` (container, stream choice, packets),
//! `decode` (decoder, threads, damage flags), `decoded` (the decoding
//! state: packets in, checked frames out), `ahead` (that state run inline
//! or on its own thread, feeding a bounded queue), `copy` (a plane of a
//! decoded frame into vkssim's packed layout), `scale` (resizing with
//! libswscale, [`crate::io::Resize`]), `log` (FFmpeg's messages, caught
//! for the errors that need them), `avio` (reading an open file or a pipe:
//! standard input), `annexb` (H.264 from a container as Annex B) and `avcc`
//! (the conversion from MP4/MKV's form).
//!
//! Errors: a container libavformat cannot read, or a read that fails, is
//! [`Error::Demux`]; no video stream [`Error::NoVideoStream`]; a codec this
//! FFmpeg has no decoder for [`Error::UnsupportedCodec`]; a packet the
//! decoder refuses, or a frame it reports as damaged (corrupt, concealed),
//! [`Error::Decode`] naming the file, the frame and the decoder's message,
//! unless [`DecodeErrors::Conceal`](crate::io::DecodeErrors::Conceal) is chosen;
//! a file cut short (its container ends before its data does) gives its
//! frames up to the cut and then [`Error::CutShort`], whatever the options.

mod ahead;
mod annexb;
mod avcc;
mod avio;
mod copy;
mod decode;
mod decoded;
mod demux;
mod log;
mod pixfmt;
mod scale;

use std::path::{Path, PathBuf};

use ffmpeg_next::{format::Pixel, frame};

use self::ahead::Frames;
pub use self::annexb::AnnexB;
pub(crate) use self::avio::{probe, Source, PROBE_BYTES};
use self::decode::Decoder;
use self::decoded::Decoded;
use self::demux::Demuxer;
use self::scale::Scaler;
use crate::io::range::check_plane;
use crate::io::{Check, DeclaredRange, DecodeOptions, LumaReader, Planes, VideoFormat};
use crate::{Component, Error, Result};

/// The FFmpeg libraries' version, as `FFmpeg 5.1.6 (libavcodec 59.37.100)`.
pub fn version() -> String {
    // SAFETY: av_version_info returns a static NUL-terminated string;
    // avcodec_version has no precondition.
    let (info, lavc) = unsafe {
        (
            std::ffi::CStr::from_ptr(ffmpeg_next::ffi::av_version_info()),
            ffmpeg_next::ffi::avcodec_version(),
        )
    };
    format!(
        "FFmpeg {} (libavcodec {}.{}.{})",
        info.to_string_lossy(),
        lavc >> 16,
        (lavc >> 8) & 0xff,
        lavc & 0xff
    )
}

/// `e` in words, with the error messages FFmpeg logged for context `id`
/// (the decoder's or demuxer's own explanation) when there are some.
fn message(id: usize, e: &ffmpeg_next::Error) -> String {
    match log::take(id) {
        Some(logged) => format!("{logged} ({e})"),
        None => e.to_string(),
    }
}

/// A decoded video stream's frames, read through FFmpeg (see the module
/// documentation).
pub struct FfmpegReader {
    path: PathBuf,
    /// The frames delivered (after resizing).
    format: VideoFormat,
    /// The decoded frames' (before resizing).
    stored: VideoFormat,
    scaler: Option<Scaler>,
    /// The codec's name.
    codec: String,
    /// The decoded frames, inline or ahead.
    frames: Frames,
    /// The current frame.
    frame: frame::Video,
    /// `frame` holds the first frame, decoded when the input was opened.
    pending: bool,
    /// Frames consumed (read or skipped).
    frames_read: u64,
    estimate: Option<u64>,
    /// The range the first frame declares.
    range: Option<DeclaredRange>,
}

impl FfmpegReader {
    /// Opens `path`, picks its video stream and decodes its first frame (for
    /// the format). Errors as the module documentation says. A regular
    /// file's later frames are decoded ahead, on a thread of their own.
    pub fn open(path: &Path, options: &DecodeOptions) -> Result<Self> {
        Self::open_checked(path, options, false)
    }

    /// [`FfmpegReader::open`]; with `raw_given` (the input may be raw YUV),
    /// a format libavformat only guesses (no magic number, not the file's
    /// extension: a raw elementary stream's probe) is [`Error::Demux`].
    pub(crate) fn open_checked(
        path: &Path,
        options: &DecodeOptions,
        raw_given: bool,
    ) -> Result<Self> {
        let demuxer = Demuxer::open(path, options, raw_given)?;
        // Only a regular file is decoded ahead (see the `ahead` module).
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        Self::from_demuxer(path, demuxer, options, regular)
    }

    /// [`FfmpegReader::open_checked`] on what `source` reads (standard
    /// input), named `name` in messages; decoded inline.
    pub(crate) fn open_source(
        name: &Path,
        source: Source,
        options: &DecodeOptions,
        raw_given: bool,
    ) -> Result<Self> {
        let demuxer = Demuxer::open_source(name, source, options, raw_given)?;
        Self::from_demuxer(name, demuxer, options, false)
    }

    fn from_demuxer(
        path: &Path,
        demuxer: Demuxer,
        options: &DecodeOptions,
        ahead: bool,
    ) -> Result<Self> {
        let decoder = Decoder::open(&demuxer, options, path)?;
        let estimate = demuxer.frame_estimate();
        let codec = decoder.codec.clone();
        let unsupported =
            |reason: String| Error::Unsupported(format!("{}: {reason}", path.display()));
        let mut decoded = Decoded::new(path.to_path_buf(), demuxer, decoder, options.errors);
        let first = decoded.next_frame()?;
        let range = first.as_ref().and_then(pixfmt::declared_range);
        let (pixel, source) = match &first {
            Some(frame) => {
                let p = frame.format();
                let format =
                    pixfmt::video_format(p, frame.width(), frame.height()).map_err(unsupported)?;
                (p, format)
            }
            None => {
                // No frame at all: the decoder's idea of the format, for
                // messages (nothing is delivered).
                let v = decoded.decoder();
                let (p, w, h) = (v.format(), v.width().max(1), v.height().max(1));
                let format = match p {
                    Pixel::None => VideoFormat::new(w, h, 8, crate::io::Chroma::C420)?,
                    p => pixfmt::video_format(p, w, h).map_err(unsupported)?,
                };
                (p, format)
            }
        };
        let mut format = source;
        let mut scaler = None;
        if let Some(resize) = &options.resize {
            if let Some((s, f)) = Scaler::new(pixel, source, resize)? {
                scaler = Some(s);
                format = f;
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            format,
            stored: source,
            scaler,
            codec,
            frames: Frames::new(decoded, ahead, path),
            pending: first.is_some(),
            frame: first.unwrap_or_else(frame::Video::empty),
            frames_read: 0,
            estimate,
            range,
        })
    }

    /// The codec's name (`h264`).
    pub fn codec(&self) -> &str {
        &self.codec
    }

    /// Makes the next frame current in `self.frame`; false at the end. The
    /// first frame read starts decoding ahead (when the input allows it),
    /// while it is copied out.
    fn next(&mut self) -> Result<bool> {
        if self.pending {
            self.pending = false;
            self.frames.start();
            return Ok(true);
        }
        match self.frames.next_frame()? {
            Some(frame) => {
                self.frame = frame;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Copies the current frame's luma into `dst`, checking the sample range
    /// when `checked`.
    fn deliver(&mut self, dst: &mut [u8], checked: bool) -> Result<bool> {
        self.format.check_luma_dst(dst)?;
        if !self.next()? {
            return Ok(false);
        }
        let index = self.frames_read;
        let frame = match &mut self.scaler {
            Some(scaler) => scaler.run(&self.frame)?,
            None => &self.frame,
        };
        let n = copy::copy_plane(frame, &self.format, 0, dst)?;
        self.frames_read += 1;
        if checked {
            check_plane(&dst[..n], Component::Luma, &self.format, &self.path, index)?;
        }
        Ok(true)
    }

    /// The next frame's luma, Cb and Cr planes into `dst`, packed; each
    /// plane's sample range checked when `checked`.
    fn deliver_planes(&mut self, dst: &mut [u8], checked: bool) -> Result<bool> {
        let needed = self.format.check_planes_dst(dst)?;
        if !self.next()? {
            return Ok(false);
        }
        let index = self.frames_read;
        let frame = match &mut self.scaler {
            Some(scaler) => scaler.run(&self.frame)?,
            None => &self.frame,
        };
        let planes = if self.format.chroma == crate::io::Chroma::Mono {
            1
        } else {
            3
        };
        let mut at = 0;
        for plane in 0..planes {
            let n = copy::copy_plane(frame, &self.format, plane, &mut dst[at..needed])?;
            if checked {
                let component = Component::at(plane);
                check_plane(&dst[at..at + n], component, &self.format, &self.path, index)?;
            }
            at += n;
        }
        self.frames_read += 1;
        Ok(true)
    }
}

impl LumaReader for FfmpegReader {
    fn format(&self) -> VideoFormat {
        self.format
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn read(&mut self, dst: &mut [u8], planes: Planes, check: Check) -> Result<bool> {
        let checked = check == Check::Range;
        match planes {
            Planes::Luma => self.deliver(dst, checked),
            Planes::All => self.deliver_planes(dst, checked),
        }
    }

    fn color_range(&self) -> Option<DeclaredRange> {
        self.range.clone()
    }

    fn stored_format(&self) -> VideoFormat {
        self.stored
    }

    fn skip(&mut self, frames: u64) -> Result<u64> {
        let mut done = 0;
        while done < frames && self.next()? {
            done += 1;
            self.frames_read += 1;
        }
        Ok(done)
    }

    fn frames_read(&self) -> u64 {
        self.frames_read
    }

    fn frame_count_estimate(&self) -> Option<u64> {
        self.estimate
    }
}
