//! Video readers: raw planar YUV ([`yuv`]) and Y4M ([`y4m`]), from files or standard
//! input, behind one trait ([`LumaReader`]). Luma is read, and the chroma planes
//! only when asked ([`LumaReader::read_planes`], for metrics that read them);
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

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use color_range::{ranges_differ, ColorRange, DeclaredRange};
pub use decode_options::{DecodeErrors, DecodeOptions, Resize, ScaleAlgorithm};
pub use format::{Chroma, VideoFormat, MAX_DIMENSION, PIXEL_FORMATS};
pub use index::FrameIndex;
use index::SharedFile;
pub use y4m::{Y4mHeader, Y4mReader};
pub use yuv::YuvReader;

use crate::{Error, LumaFrame, Result};

/// A source of luma planes, one per frame, in order.
pub trait LumaReader: Send {
    /// The layout of every frame.
    fn format(&self) -> VideoFormat;

    /// The input's name for messages (`-` for standard input).
    fn path(&self) -> &Path;

    /// Reads the next frame's luma into the first [`VideoFormat::luma_bytes`] bytes
    /// of `dst` (packed rows, raw little-endian samples as in [`LumaFrame`]) and
    /// skips its other planes. Returns false, leaving `dst` unspecified, at a clean
    /// end of input. `dst` shorter than a luma plane is [`Error::BufferSize`].
    fn read_luma(&mut self, dst: &mut [u8]) -> Result<bool>;

    /// [`LumaReader::read_luma`] without the sample range check where the
    /// reader can leave it out (`dst` is then not read back: for memory that
    /// is slow to read, such as write-combined device memory, when the scorer
    /// checks the range itself, as the Vulkan scorer's decimate pass does).
    /// By default the checked read.
    fn read_luma_unchecked(&mut self, dst: &mut [u8]) -> Result<bool> {
        self.read_luma(dst)
    }

    /// Reads the next frame's luma, Cb and Cr planes into the first
    /// [`VideoFormat::planes_bytes`] bytes of `dst`, packed as a raw YUV file
    /// stores them (an alpha plane is skipped), with the checks of
    /// [`LumaReader::read_luma`] on every plane. Returns false at a clean end
    /// of input. For metrics that read chroma (`psnr`).
    ///
    /// By default the luma read for a luma-only input, and
    /// [`Error::Unsupported`] otherwise (the YUV and Y4M readers read chroma).
    fn read_planes(&mut self, dst: &mut [u8]) -> Result<bool> {
        if self.format().chroma == Chroma::Mono {
            return self.read_luma(dst);
        }
        Err(Error::Unsupported(format!(
            "{}: this reader reads the luma plane only, not chroma",
            self.path().display()
        )))
    }

    /// [`LumaReader::read_planes`] without the sample range check where the
    /// reader can leave it out (`dst` is then not read back: for
    /// write-combined device memory, when the scorer checks every plane's
    /// range itself, as the Vulkan scorer's psnr pass does for the planes it
    /// uploads). By default the checked read.
    fn read_planes_unchecked(&mut self, dst: &mut [u8]) -> Result<bool> {
        self.read_planes(dst)
    }

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
        Ok(self.read_luma(&mut frame.bytes)?.then_some(frame))
    }
}

impl<T: LumaReader + ?Sized> LumaReader for Box<T> {
    fn format(&self) -> VideoFormat {
        (**self).format()
    }
    fn path(&self) -> &Path {
        (**self).path()
    }
    fn read_luma(&mut self, dst: &mut [u8]) -> Result<bool> {
        (**self).read_luma(dst)
    }
    fn read_luma_unchecked(&mut self, dst: &mut [u8]) -> Result<bool> {
        (**self).read_luma_unchecked(dst)
    }
    fn read_planes(&mut self, dst: &mut [u8]) -> Result<bool> {
        (**self).read_planes(dst)
    }
    fn read_planes_unchecked(&mut self, dst: &mut [u8]) -> Result<bool> {
        (**self).read_planes_unchecked(dst)
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

/// The layout of a raw YUV input, as the `vmaf` CLI's `--width`, `--height`,
/// `--pixel_format` and `--bitdepth` give it. Every field is needed for a raw
/// input; a Y4M input's header wins, and a field given here that disagrees with it
/// is an error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawFormat {
    /// Luma samples per row.
    pub width: Option<u32>,
    /// Luma rows.
    pub height: Option<u32>,
    /// Chroma subsampling (the pixel format).
    pub chroma: Option<Chroma>,
    /// 8, 10, 12 or 16.
    pub bit_depth: Option<u32>,
}

impl RawFormat {
    /// Every field given.
    pub fn new(width: u32, height: u32, chroma: Chroma, bit_depth: u32) -> Self {
        Self {
            width: Some(width),
            height: Some(height),
            chroma: Some(chroma),
            bit_depth: Some(bit_depth),
        }
    }

    /// The format, if every field is given (else the names of those missing).
    pub fn complete(&self) -> std::result::Result<VideoFormat, Vec<&'static str>> {
        match (self.width, self.height, self.chroma, self.bit_depth) {
            (Some(width), Some(height), Some(chroma), Some(bit_depth)) => Ok(VideoFormat {
                width,
                height,
                bit_depth,
                chroma,
            }),
            _ => Err([
                ("width", self.width.is_none()),
                ("height", self.height.is_none()),
                ("pixel format", self.chroma.is_none()),
                ("bit depth", self.bit_depth.is_none()),
            ]
            .into_iter()
            .filter_map(|(name, missing)| missing.then_some(name))
            .collect()),
        }
    }

    /// Fields given here that `format` contradicts, as a message.
    fn conflicts(&self, format: &VideoFormat) -> Option<String> {
        let mut diffs = Vec::new();
        if self.width.is_some_and(|w| w != format.width) {
            diffs.push(format!("width {}", self.width.unwrap_or(0)));
        }
        if self.height.is_some_and(|h| h != format.height) {
            diffs.push(format!("height {}", self.height.unwrap_or(0)));
        }
        if let Some(c) = self.chroma.filter(|&c| c != format.chroma) {
            diffs.push(format!("pixel format {c}"));
        }
        if self.bit_depth.is_some_and(|b| b != format.bit_depth) {
            diffs.push(format!("bit depth {}", self.bit_depth.unwrap_or(0)));
        }
        (!diffs.is_empty()).then(|| diffs.join(", "))
    }
}

impl From<VideoFormat> for RawFormat {
    fn from(f: VideoFormat) -> Self {
        Self::new(f.width, f.height, f.chroma, f.bit_depth)
    }
}

/// Bytes that mark a Y4M input.
const Y4M_MAGIC: &[u8] = b"YUV4MPEG";

/// Opens `path` (`-` for standard input) and returns the reader for its format:
/// Y4M when it starts with `YUV4MPEG`, raw YUV of `raw`'s layout otherwise (and,
/// with the `ffmpeg` feature, an encoded input: see the module documentation).
/// [`open_input_with`] with the default [`DecodeOptions`].
///
/// A regular file is read with seeks (and checked for a partial last frame now); a
/// pipe, FIFO or terminal is read front to back.
pub fn open_input(path: &Path, raw: Option<RawFormat>) -> Result<Box<dyn LumaReader>> {
    open_input_with(path, raw, &DecodeOptions::default())
}

/// [`open_input`], with `decode` saying how an encoded input is decoded. A
/// [`DecodeOptions::stream`] other than the first on an input that has one
/// stream (Y4M, raw YUV) is [`Error::NoSuchStream`].
pub fn open_input_with(
    path: &Path,
    raw: Option<RawFormat>,
    decode: &DecodeOptions,
) -> Result<Box<dyn LumaReader>> {
    let raw = raw.unwrap_or_default();
    let name = path.to_path_buf();
    let (file, is_file) = if path == Path::new("-") {
        stdin_file(&name)?
    } else {
        let file = File::open(path).map_err(|e| Error::io(&name, e))?;
        let is_file = file.metadata().map_err(|e| Error::io(&name, e))?.is_file();
        (file, is_file)
    };
    #[cfg(feature = "ffmpeg")]
    if is_file && path != Path::new("-") && encoded_candidate(&file, path, &name, &raw)? {
        let opened = ffmpeg::FfmpegReader::open_checked(path, decode, raw.complete().is_ok());
        return encoded_or_error(opened, &name, &raw, true);
    }
    let plain = if is_file {
        Plain::File(file)
    } else {
        Plain::Stream(Box::new(file))
    };
    // Standard input, and a named pipe or FIFO whose name does not say raw
    // YUV, is looked at once and may be encoded (see `stdin`).
    #[cfg(feature = "ffmpeg")]
    let plain = if path == Path::new("-") || (!is_file && !has_yuv_name(path)) {
        match stdin::open(plain, &name, &raw, decode)? {
            stdin::Stdin::Encoded(reader) => return Ok(reader),
            stdin::Stdin::Plain(plain) => plain,
        }
    } else {
        plain
    };
    if let Some(index) = decode.stream.filter(|&s| s > 0) {
        return Err(Error::NoSuchStream {
            path: name,
            index,
            count: 1,
        });
    }
    let reader = match plain {
        Plain::File(file) => {
            let file = Arc::new(file);
            open_seekable(SharedFile(file.clone()), name, raw, Some(file))?
        }
        Plain::Stream(stream) => open_stream(stream, name, raw)?,
    };
    let f = reader.format();
    match decode.resize {
        Some(r) if (r.width, r.height) != (f.width, f.height) => Err(Error::Unsupported(format!(
            "{}: resizing its {}x{} frames to {}x{}: vkssim resizes encoded inputs only \
             (decoded by FFmpeg), not Y4M or raw YUV",
            reader.path().display(),
            f.width,
            f.height,
            r.width,
            r.height
        ))),
        _ => Ok(reader),
    }
}

/// An input for the Y4M and raw YUV readers.
enum Plain {
    /// A regular file (read by position).
    File(File),
    /// A pipe, FIFO or terminal (read front to back), with any bytes already
    /// read put back in front.
    Stream(Box<dyn Read + Send>),
}

/// An encoded input opened through FFmpeg (`opened`), or the error; where
/// no raw layout was given, one that libavformat cannot read says what
/// raw YUV would need (for a `named` file, also the name that says raw
/// YUV). An input that may be raw YUV (its layout given) comes here only
/// when its content says it is encoded ([`content_says_encoded`]): a broken
/// container is never read as raw YUV (it would score noise).
#[cfg(feature = "ffmpeg")]
fn encoded_or_error(
    opened: Result<ffmpeg::FfmpegReader>,
    name: &Path,
    raw: &RawFormat,
    named: bool,
) -> Result<Box<dyn LumaReader>> {
    match opened {
        Ok(reader) => Ok(Box::new(reader)),
        Err(Error::Demux { path, reason }) if path == name && raw.complete().is_err() => {
            let by_name = if named { ", or a name ending .yuv" } else { "" };
            Err(Error::Demux {
                path,
                reason: format!(
                    "{reason}; as raw YUV it would need its width, height, pixel format \
                     and bit depth{by_name}"
                ),
            })
        }
        Err(e) => Err(e),
    }
}

/// Whether the regular file `file` (named `name` in messages, `path` on the
/// command line), which may be raw YUV (its layout is given), is encoded by
/// its first bytes ([`ffmpeg::Probe::says_encoded`]: a container's magic
/// number, or an elementary stream under its own extension), whatever its
/// name otherwise says. Reads them through a duplicate handle and leaves its
/// position at the start.
#[cfg(feature = "ffmpeg")]
fn content_says_encoded(file: &File, path: &Path, name: &Path) -> Result<bool> {
    let io = |e| Error::io(name, e);
    let mut f = file;
    let mut prefix = vec![0u8; ffmpeg::PROBE_BYTES];
    let n = read_up_to(&mut f, &mut prefix).map_err(io)?;
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    prefix.truncate(n);
    Ok(ffmpeg::probe(&prefix).is_some_and(|p| p.says_encoded(path)))
}

/// Whether `path`'s name ends `.yuv` (raw YUV, never given to libavformat).
#[cfg(feature = "ffmpeg")]
fn has_yuv_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yuv"))
}

/// Whether the regular file `file` (named `path`) goes to libavformat: it is
/// not empty, does not start with the Y4M magic, its name does not end
/// `.yuv`, and, where the raw layout is given, its content says it is
/// encoded ([`content_says_encoded`]; otherwise it is raw YUV, whatever its
/// name). Reads its first bytes through a duplicate handle and leaves its
/// position at the start.
#[cfg(feature = "ffmpeg")]
fn encoded_candidate(file: &File, path: &Path, name: &Path, raw: &RawFormat) -> Result<bool> {
    if has_yuv_name(path) {
        return Ok(false);
    }
    let io = |e| Error::io(name, e);
    let mut f = file;
    let mut magic = [0u8; Y4M_MAGIC.len()];
    let n = read_up_to(&mut f, &mut magic).map_err(io)?;
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    if n == 0 || &magic[..n] == Y4M_MAGIC {
        return Ok(false);
    }
    Ok(raw.complete().is_err() || content_says_encoded(file, path, name)?)
}

/// Standard input as a `File` of its own (a duplicate of descriptor 0, so that a
/// redirected regular file can be seeked), and whether it is a regular file.
#[cfg(unix)]
fn stdin_file(name: &Path) -> Result<(File, bool)> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| Error::io(name, e))?;
    let file = File::from(fd);
    let is_file = file.metadata().map_err(|e| Error::io(name, e))?.is_file();
    Ok((file, is_file))
}

#[cfg(windows)]
fn stdin_file(name: &Path) -> Result<(File, bool)> {
    use std::os::windows::io::AsHandle;
    let handle = std::io::stdin()
        .as_handle()
        .try_clone_to_owned()
        .map_err(|e| Error::io(name, e))?;
    Ok((File::from(handle), false))
}

/// A seekable input: sniff the magic, rewind, hand to the right reader.
/// `file`, when given, is the file `inner` reads, for [`LumaReader::frame_index`].
fn open_seekable<R: Read + Seek + Send + 'static>(
    mut inner: R,
    name: PathBuf,
    raw: RawFormat,
    file: Option<Arc<File>>,
) -> Result<Box<dyn LumaReader>> {
    let io = |e| Error::io(&name, e);
    let start = inner.stream_position().map_err(io)?;
    let mut magic = [0u8; Y4M_MAGIC.len()];
    let n = read_up_to(&mut inner, &mut magic).map_err(io)?;
    inner.seek(SeekFrom::Start(start)).map_err(io)?;
    check_not_empty(&name, n, &raw)?;
    if &magic[..n] == Y4M_MAGIC {
        let mut reader = Y4mReader::from_seekable(inner, name)?;
        check_raw(&reader, &raw)?;
        if let Some(file) = file {
            reader.set_file(file);
        }
        Ok(Box::new(reader))
    } else {
        let format = raw_format(&name, &magic[..n], &raw)?;
        let mut reader = YuvReader::from_seekable(inner, name, format)?;
        if let Some(file) = file {
            reader.set_file(file);
        }
        Ok(Box::new(reader))
    }
}

/// A stream: sniff the magic, put it back in front, hand to the right reader.
fn open_stream<R: Read + Send + 'static>(
    mut inner: R,
    name: PathBuf,
    raw: RawFormat,
) -> Result<Box<dyn LumaReader>> {
    let mut magic = [0u8; Y4M_MAGIC.len()];
    let n = read_up_to(&mut inner, &mut magic).map_err(|e| Error::io(&name, e))?;
    check_not_empty(&name, n, &raw)?;
    let chained = Cursor::new(magic[..n].to_vec()).chain(inner);
    if &magic[..n] == Y4M_MAGIC {
        let reader = Y4mReader::from_stream(chained, name)?;
        check_raw(&reader, &raw)?;
        Ok(Box::new(reader))
    } else {
        let format = raw_format(&name, &magic[..n], &raw)?;
        Ok(Box::new(YuvReader::from_stream(chained, name, format)?))
    }
}

/// Reads until `buf` is full or the input ends.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match r.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Refuses an input of `n` = 0 bytes when that cannot be an input with no frame:
/// standard input (empty or closed: almost always a broken pipeline upstream), or
/// a file read without a complete raw format (a Y4M file has a header even with no
/// frame). An empty raw file of a known format is an input with no frame.
fn check_not_empty(name: &Path, n: usize, raw: &RawFormat) -> Result<()> {
    let complete = raw.complete().ok();
    if n > 0 || (complete.is_some() && name != Path::new("-")) {
        return Ok(());
    }
    let expected = match complete {
        Some(f) => format!(
            "raw YUV frames of {f} ({} bytes each), or a Y4M stream",
            f.frame_bytes()
        ),
        None => "a Y4M stream (a header line such as `YUV4MPEG2 W1920 H1080 F25:1 C420`, \
                 then its frames), or raw YUV frames with the width, height, pixel format \
                 and bit depth given"
            .to_string(),
    };
    Err(Error::EmptyInput {
        path: name.to_path_buf(),
        expected,
    })
}

/// The raw layout for a non-Y4M input, or the error saying what is missing.
fn raw_format(name: &Path, start: &[u8], raw: &RawFormat) -> Result<VideoFormat> {
    let is_y4m_name = name
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("y4m"));
    if is_y4m_name {
        return Err(Error::Y4mHeader {
            path: name.to_path_buf(),
            reason: format!(
                "the file is named .y4m but does not start with YUV4MPEG2 (found {:?})",
                String::from_utf8_lossy(start)
            ),
        });
    }
    let format = raw.complete().map_err(|missing| {
        Error::InvalidOption(format!(
            "{} is not Y4M, so it is read as raw YUV, which needs its width, height, \
             pixel format and bit depth; missing: {}",
            name.display(),
            missing.join(", ")
        ))
    })?;
    format.validate()?;
    Ok(format)
}

/// Refuses raw-format fields that contradict a Y4M header.
fn check_raw(reader: &Y4mReader, raw: &RawFormat) -> Result<()> {
    match raw.conflicts(&reader.format()) {
        None => Ok(()),
        Some(diffs) => Err(Error::InvalidOption(format!(
            "{}: its Y4M header says {}, but the options say {diffs}",
            reader.path().display(),
            reader.format()
        ))),
    }
}

#[cfg(test)]
mod tests;
