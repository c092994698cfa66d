//! Input probing: which reader an input needs ([`open_input`],
//! [`open_input_with`]), from its name, its first bytes and the raw layout
//! the caller gives ([`RawFormat`]): standard input, Y4M by its magic bytes,
//! raw YUV, or (with the `ffmpeg` feature) an encoded file.

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::index::SharedFile;
use super::*;
use crate::{Error, Result};

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
pub(super) const Y4M_MAGIC: &[u8] = b"YUV4MPEG";

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
pub(super) enum Plain {
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
pub(super) fn encoded_or_error(
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
pub(super) fn content_says_encoded(file: &File, path: &Path, name: &Path) -> Result<bool> {
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
pub(super) fn open_seekable<R: Read + Seek + Send + 'static>(
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
pub(super) fn open_stream<R: Read + Send + 'static>(
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
pub(super) fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
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
