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
//! One job per module: `demux` (container, stream choice, packets),
//! `decode` (decoder, threads, damage flags), `copy` (a plane of a
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
//! unless [`DecodeErrors::Conceal`] is chosen.

mod annexb;
mod avcc;
mod avio;
mod copy;
mod decode;
mod demux;
mod log;
mod pixfmt;
mod scale;

use std::path::{Path, PathBuf};

use ffmpeg_next::{format::Pixel, frame, Packet};

pub use self::annexb::AnnexB;
pub(crate) use self::avio::{probe, Source, PROBE_BYTES};
use self::decode::Decoder;
use self::demux::Demuxer;
use self::scale::Scaler;
use crate::io::range::check_plane;
use crate::io::{DecodeErrors, DecodeOptions, LumaReader, VideoFormat};
use crate::{Error, Result};

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
    /// The frames decoded.
    source: VideoFormat,
    pixel: Pixel,
    scaler: Option<Scaler>,
    demuxer: Demuxer,
    decoder: Decoder,
    packet: Packet,
    frame: frame::Video,
    /// `frame` holds the next frame, decoded ahead.
    pending: bool,
    /// The decoder was told the stream ended.
    draining: bool,
    /// The decoder has given its last frame.
    ended: bool,
    /// Frames consumed (read or skipped).
    frames_read: u64,
    /// Frames the decoder has output.
    decoded: u64,
    estimate: Option<u64>,
    errors: DecodeErrors,
}

impl FfmpegReader {
    /// Opens `path`, picks its video stream and decodes its first frame (for
    /// the format). Errors as the module documentation says.
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
        Self::from_demuxer(path, demuxer, options)
    }

    /// [`FfmpegReader::open_checked`] on what `source` reads (standard
    /// input), named `name` in messages.
    pub(crate) fn open_source(
        name: &Path,
        source: Source,
        options: &DecodeOptions,
        raw_given: bool,
    ) -> Result<Self> {
        let demuxer = Demuxer::open_source(name, source, options, raw_given)?;
        Self::from_demuxer(name, demuxer, options)
    }

    fn from_demuxer(path: &Path, demuxer: Demuxer, options: &DecodeOptions) -> Result<Self> {
        let decoder = Decoder::open(&demuxer, options, path)?;
        let estimate = demuxer.frame_estimate();
        let mut reader = Self {
            path: path.to_path_buf(),
            format: VideoFormat {
                width: 1,
                height: 1,
                bit_depth: 8,
                chroma: crate::io::Chroma::C420,
            },
            source: VideoFormat {
                width: 1,
                height: 1,
                bit_depth: 8,
                chroma: crate::io::Chroma::C420,
            },
            pixel: Pixel::None,
            scaler: None,
            demuxer,
            decoder,
            packet: Packet::empty(),
            frame: frame::Video::empty(),
            pending: false,
            draining: false,
            ended: false,
            frames_read: 0,
            decoded: 0,
            estimate,
            errors: options.errors,
        };
        if reader.decode_next()? {
            reader.pending = true;
            reader.pixel = reader.frame.format();
            let (w, h) = (reader.frame.width(), reader.frame.height());
            reader.format = pixfmt::video_format(reader.pixel, w, h)
                .map_err(|reason| reader.unsupported(reason))?;
        } else {
            // No frame at all: the decoder's idea of the format, for messages
            // (nothing is delivered).
            let v = &reader.decoder;
            let (p, w, h) = (v.format(), v.width().max(1), v.height().max(1));
            reader.pixel = p;
            reader.format = match p {
                Pixel::None => VideoFormat::new(w, h, 8, crate::io::Chroma::C420)?,
                p => pixfmt::video_format(p, w, h).map_err(|reason| reader.unsupported(reason))?,
            };
        }
        reader.source = reader.format;
        if let Some(resize) = &options.resize {
            if let Some((scaler, format)) = Scaler::new(reader.pixel, reader.source, resize)? {
                reader.scaler = Some(scaler);
                reader.format = format;
            }
        }
        Ok(reader)
    }

    /// The codec's name (`h264`).
    pub fn codec(&self) -> &str {
        &self.decoder.codec
    }

    fn unsupported(&self, reason: String) -> Error {
        Error::Unsupported(format!("{}: {reason}", self.path.display()))
    }

    fn decode_error(&self, reason: String) -> Error {
        Error::Decode {
            path: self.path.clone(),
            frame: self.decoded,
            codec: self.decoder.codec.clone(),
            reason,
        }
    }

    /// A failure of the decoder: an error, or with [`DecodeErrors::Conceal`]
    /// a warning (the packet is dropped, as `ffmpeg` does).
    fn decoder_failed(&mut self, e: ffmpeg_next::Error) -> Result<()> {
        let error = self.decode_error(message(self.decoder.id, &e));
        match self.errors {
            DecodeErrors::Error => Err(error),
            DecodeErrors::Conceal => {
                tracing::warn!("{error} (concealed)");
                Ok(())
            }
        }
    }

    /// Decodes the next frame into `self.frame`; false at the end.
    fn decode_next(&mut self) -> Result<bool> {
        use ffmpeg_next::Error as E;
        const EAGAIN: i32 = ffmpeg_next::util::error::EAGAIN;
        while !self.ended {
            match self.decoder.receive(&mut self.frame) {
                Ok(()) => {
                    self.check_frame()?;
                    self.decoded += 1;
                    return Ok(true);
                }
                Err(E::Other { errno: EAGAIN }) if !self.draining => self.feed()?,
                Err(E::Other { errno: EAGAIN }) | Err(E::Eof) => {
                    self.ended = true;
                    // Errors logged after the last frame (while draining).
                    let logged = log::take(self.decoder.id);
                    self.damaged(None, logged)?;
                }
                Err(e) => self.decoder_failed(e)?,
            }
        }
        Ok(false)
    }

    /// Hands the decoder the stream's next packet, or the end of the stream.
    fn feed(&mut self) -> Result<()> {
        if self.demuxer.read(&mut self.packet, &self.path)? {
            if let Err(e) = self.decoder.send(&self.packet) {
                self.decoder_failed(e)?;
            }
        } else {
            self.draining = true;
            if let Err(e) = self.decoder.send_eof() {
                self.decoder_failed(e)?;
            }
        }
        Ok(())
    }

    /// Refuses a damaged frame (unless concealment is accepted) and a frame
    /// whose size or pixel format is not the stream's first.
    fn check_frame(&mut self) -> Result<()> {
        // The frame's own flags, and the errors the decoder logged since the
        // last frame: with frame threads the flags can be copied to the
        // output frame before its decoding has set them, but the messages of
        // every frame decoded from earlier packets are logged by now, so a
        // damaged frame is caught at it or at a frame before it.
        let damage = decode::damage(&self.frame);
        let logged = log::take(self.decoder.id);
        self.damaged(damage, logged)?;
        if self.pixel != Pixel::None {
            let (p, w, h) = (self.frame.format(), self.frame.width(), self.frame.height());
            if (p, w, h) != (self.pixel, self.source.width, self.source.height) {
                return Err(self.decode_error(format!(
                    "this frame is {w}x{h} {}, but the stream started as {}x{} {}; \
                     vkssim scores frames of one size and format",
                    pixfmt::name(p),
                    self.source.width,
                    self.source.height,
                    pixfmt::name(self.pixel)
                )));
            }
        }
        Ok(())
    }

    /// Refuses (or, concealing, warns about) damage that the frame's flags
    /// or the decoder's log report.
    fn damaged(&mut self, damage: Option<String>, logged: Option<String>) -> Result<()> {
        let reason = match (logged, damage) {
            (None, None) => return Ok(()),
            (Some(l), Some(d)) => format!("{l} ({d})"),
            // Logged while frames are decoded ahead (threads, reordering):
            // the damaged frame is this one or one after it.
            (Some(l), None) => format!(
                "{l} (reported before this frame was output: the damaged frame is this \
                 one or a later one)"
            ),
            (None, Some(d)) => d,
        };
        let error = self.decode_error(reason);
        match self.errors {
            DecodeErrors::Error => Err(error),
            DecodeErrors::Conceal => {
                tracing::warn!("{error} (concealed frame kept)");
                Ok(())
            }
        }
    }

    /// Makes the next frame current in `self.frame`; false at the end.
    fn next(&mut self) -> Result<bool> {
        if self.pending {
            self.pending = false;
            return Ok(true);
        }
        self.decode_next()
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
            check_plane(&dst[..n], &self.format, &self.path, index)?;
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
                check_plane(&dst[at..at + n], &self.format, &self.path, index)?;
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

    fn read_luma(&mut self, dst: &mut [u8]) -> Result<bool> {
        self.deliver(dst, true)
    }

    fn read_luma_unchecked(&mut self, dst: &mut [u8]) -> Result<bool> {
        self.deliver(dst, false)
    }

    fn read_planes(&mut self, dst: &mut [u8]) -> Result<bool> {
        self.deliver_planes(dst, true)
    }

    fn read_planes_unchecked(&mut self, dst: &mut [u8]) -> Result<bool> {
        self.deliver_planes(dst, false)
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
