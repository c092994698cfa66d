//! YUV4MPEG2 (Y4M): a one-line text header (`YUV4MPEG2 W.. H.. F.. I.. A.. C.. X..`)
//! then frames, each a `FRAME` line (optionally with parameters) followed by the raw
//! planes.
//!
//! Accepted `C` tags are those libvmaf's `vmaf` CLI accepts (`420jpeg`, `420mpeg2`,
//! `420paldv`, `420`, `411`, `422`, `444`, `444alpha`, `mono`, `420p10`, `422p10`,
//! `444p10`), plus the 12 and 16-bit ones FFmpeg writes (`420p12`, `420p16`,
//! `422p12`, `422p16`, `444p12`, `444p16`) and `mono10`, `mono12`, `mono16`. No `C`
//! tag means 4:2:0 8-bit. `W` and `H` are required; `F` and `A`, when present, must be
//! `n:d`; `I` must be `p` or `?` (interlaced video is refused, as libvmaf refuses it);
//! `X` and unknown tags are ignored. `W`, `H`, `C`, `F`, `I` and `A` may each appear
//! once (a second one is refused, whatever its value); `X` may repeat. From a regular file, every FRAME line is visited
//! when the reader is made, so the frame count is exact and a malformed FRAME line or
//! a truncated last frame is reported before any scoring. In
//! [`Error::TruncatedFrame`], a Y4M frame's bytes include its FRAME line.
//!
//! A difference from libvmaf's `vmaf` CLI (2.3.1): for 10 to 16-bit Y4M whose width
//! mod 16 is 1 to 12, that CLI's reader starts the luma plane `pic_x` samples late
//! (`pic_x = ((align16(w) - w) / 2) & !1`; its offset arithmetic mixes byte and
//! sample units), so it scores a plane shifted in raster order. vkssim reads the
//! plane as stored: its scores of such files equal the `vmaf` CLI's scores of the
//! same frames as raw YUV, not of the Y4M. (Checked: 100x64 444p10, Y4M and YUV
//! scores differ in that CLI; at widths 96 and 110 they agree.)

use std::fs::File;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::frames::{Frames, LumaDst};
use super::index::{FrameIndex, Offsets};
use super::source::{ByteSource, Seekable, Stream};
use super::{Check, Chroma, ColorRange, DeclaredRange, LumaReader, Planes, VideoFormat};
use crate::{Error, LumaFrame, Result};

/// The longest stream header read, `\n` included.
pub(crate) const MAX_HEADER_BYTES: usize = 64 * 1024;

/// The longest `FRAME` line read, `\n` included.
pub(crate) const MAX_FRAME_LINE_BYTES: usize = 4096;

/// A parsed stream header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Y4mHeader {
    /// The frame layout, from `W`, `H` and `C`.
    pub format: VideoFormat,
    /// `F`: frames per second as numerator and denominator, if given.
    pub frame_rate: Option<(u32, u32)>,
    /// `A`: pixel aspect ratio, if given.
    pub pixel_aspect: Option<(u32, u32)>,
    /// `I`: `b'p'` or `b'?'`, if given.
    pub interlace: Option<u8>,
    /// `XCOLORRANGE=FULL` or `XCOLORRANGE=LIMITED`, if given (the last one
    /// given counts; other values are ignored, as FFmpeg ignores them).
    pub color_range: Option<ColorRange>,
}

/// Chroma and bit depth of a Y4M `C` tag's value, if vkssim reads it.
pub fn colorspace(tag: &str) -> Option<(Chroma, u32)> {
    Some(match tag {
        "420jpeg" | "420mpeg2" | "420paldv" | "420" => (Chroma::C420, 8),
        "420p10" => (Chroma::C420, 10),
        "420p12" => (Chroma::C420, 12),
        "420p16" => (Chroma::C420, 16),
        "411" => (Chroma::C411, 8),
        "422" => (Chroma::C422, 8),
        "422p10" => (Chroma::C422, 10),
        "422p12" => (Chroma::C422, 12),
        "422p16" => (Chroma::C422, 16),
        "444" => (Chroma::C444, 8),
        "444p10" => (Chroma::C444, 10),
        "444p12" => (Chroma::C444, 12),
        "444p16" => (Chroma::C444, 16),
        "444alpha" => (Chroma::C444Alpha, 8),
        "mono" => (Chroma::Mono, 8),
        "mono10" => (Chroma::Mono, 10),
        "mono12" => (Chroma::Mono, 12),
        "mono16" => (Chroma::Mono, 16),
        _ => return None,
    })
}

/// Bytes shown in an error, escaped and cut to a readable length.
fn shown(bytes: &[u8]) -> String {
    const MAX: usize = 40;
    let cut = &bytes[..bytes.len().min(MAX)];
    let mut s = format!("{:?}", String::from_utf8_lossy(cut));
    if bytes.len() > MAX {
        s.push_str("...");
    }
    s
}

/// A decimal number of digits only.
fn number(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// `n:d` with two decimal numbers.
fn ratio(s: &[u8]) -> Option<(u32, u32)> {
    let colon = s.iter().position(|&b| b == b':')?;
    Some((number(&s[..colon])?, number(&s[colon + 1..])?))
}

/// Parses a stream header line (with or without its `\n`). `path` names the file in
/// errors: [`Error::Y4mHeader`] for a malformed header, [`Error::Unsupported`] for
/// a colour space, bit depth or interlacing vkssim does not read.
pub fn parse_header(line: &[u8], path: &Path) -> Result<Y4mHeader> {
    let bad = |reason: String| Error::Y4mHeader {
        path: path.to_path_buf(),
        reason,
    };
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let Some(rest) = line.strip_prefix(b"YUV4MPEG") else {
        return Err(bad(format!(
            "it does not start with YUV4MPEG2 (found {})",
            shown(line)
        )));
    };
    let Some(tags) = rest.strip_prefix(b"2") else {
        return Err(bad(format!(
            "version {} is not 2 (only YUV4MPEG2 is read)",
            shown(&rest[..rest.len().min(1)])
        )));
    };
    if !tags.is_empty() && tags[0] != b' ' {
        return Err(bad(format!(
            "YUV4MPEG2 must be followed by a space (found {})",
            shown(tags)
        )));
    }
    let (mut width, mut height) = (None, None);
    let mut chroma = (Chroma::C420, 8);
    let mut header = Y4mHeader {
        format: VideoFormat {
            width: 0,
            height: 0,
            bit_depth: 8,
            chroma: Chroma::C420,
        },
        frame_rate: None,
        pixel_aspect: None,
        interlace: None,
        color_range: None,
    };
    // W, H, C, F, I and A say one thing each: a second one is refused (X may repeat).
    let mut seen: Vec<&[u8]> = Vec::new();
    for tag in tags.split(|&b| b == b' ').filter(|t| !t.is_empty()) {
        let value = &tag[1..];
        let malformed = || bad(format!("malformed tag {}", shown(tag)));
        if b"WHCFIA".contains(&tag[0]) {
            if let Some(first) = seen.iter().find(|t| t[0] == tag[0]) {
                return Err(bad(format!(
                    "the {} tag is given twice ({} and {}); it must appear once",
                    tag[0] as char,
                    shown(first),
                    shown(tag)
                )));
            }
            seen.push(tag);
        }
        match tag[0] {
            b'W' => width = Some(number(value).ok_or_else(malformed)?),
            b'H' => height = Some(number(value).ok_or_else(malformed)?),
            b'F' => header.frame_rate = Some(ratio(value).ok_or_else(malformed)?),
            b'A' => header.pixel_aspect = Some(ratio(value).ok_or_else(malformed)?),
            b'I' => match value {
                b"p" | b"?" => header.interlace = Some(value[0]),
                b"t" | b"b" | b"m" => {
                    return Err(Error::Unsupported(format!(
                        "{}: interlaced Y4M (tag {}); like libvmaf, vkssim reads progressive video only",
                        path.display(),
                        shown(tag)
                    )))
                }
                _ => return Err(malformed()),
            },
            b'C' => {
                let name = std::str::from_utf8(value).unwrap_or("");
                chroma = colorspace(name).ok_or_else(|| {
                    Error::Unsupported(format!(
                        "{}: Y4M colour space {} (vkssim reads 420jpeg, 420mpeg2, 420paldv, 420, \
                         411, 422, 444, 444alpha, mono, and 420/422/444/mono with p10, p12, p16)",
                        path.display(),
                        shown(tag)
                    ))
                })?;
            }
            b'X' => match value {
                b"COLORRANGE=FULL" => header.color_range = Some(ColorRange::Full),
                b"COLORRANGE=LIMITED" => header.color_range = Some(ColorRange::Limited),
                _ => {}
            },
            _ => {}
        }
    }
    let width = width.ok_or_else(|| bad("no W (width) tag".into()))?;
    let height = height.ok_or_else(|| bad("no H (height) tag".into()))?;
    header.format = VideoFormat {
        width,
        height,
        bit_depth: chroma.1,
        chroma: chroma.0,
    };
    header.format.validate().map_err(|e| match e {
        Error::InvalidOption(reason) => bad(reason),
        Error::Unsupported(what) => Error::Unsupported(format!("{}: {what}", path.display())),
        e => e,
    })?;
    Ok(header)
}

/// Reads the luma of Y4M frames.
pub struct Y4mReader {
    frames: Frames,
    header: Y4mHeader,
    /// The current FRAME line, reused.
    line: Vec<u8>,
    /// Each frame's luma offset, found when a seekable input is opened.
    offsets: Option<Arc<[u64]>>,
}

impl Y4mReader {
    /// Reads the next frame's luma into `dst` (see [`LumaReader::read`]).
    fn read_into(&mut self, dst: LumaDst<'_>) -> Result<bool> {
        if let LumaDst::Into(d) | LumaDst::Unchecked(d) = &dst {
            self.frames.check_dst(d)?;
        }
        let Some(prefix) = self.frame_line()? else {
            return Ok(false);
        };
        self.frames.read_planes(dst, prefix)?;
        self.frames.next += 1;
        Ok(true)
    }

    /// A reader over a seekable input (a regular file) from its current position,
    /// where the stream header starts. Reads the header and counts the frames:
    /// fails if the last one is incomplete or a FRAME line is malformed.
    pub fn from_seekable<R: Read + Seek + Send + 'static>(
        inner: R,
        path: impl Into<PathBuf>,
    ) -> Result<Self> {
        let path = path.into();
        let src = Seekable::new(inner).map_err(|e| Error::io(path.clone(), e))?;
        let mut reader = Self::open(Box::new(src), path)?;
        reader.count_frames()?;
        Ok(reader)
    }

    /// A reader over a stream (a pipe, standard input) read front to back. Reads
    /// the header.
    pub fn from_stream<R: Read + Send + 'static>(
        inner: R,
        path: impl Into<PathBuf>,
    ) -> Result<Self> {
        Self::open(Box::new(Stream::new(inner)), path.into())
    }

    /// The stream header.
    pub fn header(&self) -> &Y4mHeader {
        &self.header
    }

    fn open(mut src: Box<dyn ByteSource>, path: PathBuf) -> Result<Self> {
        let mut line = Vec::new();
        let found = src
            .read_line(&mut line, MAX_HEADER_BYTES)
            .map_err(|e| Error::io(path.clone(), e))?;
        if !found {
            let reason = if line.is_empty() {
                "the input is empty".to_string()
            } else if line.len() >= MAX_HEADER_BYTES {
                format!("no end of line in its first {MAX_HEADER_BYTES} bytes")
            } else if !line.starts_with(b"YUV4MPEG") {
                format!("it does not start with YUV4MPEG2 (found {})", shown(&line))
            } else {
                "the input ends inside the header".to_string()
            };
            return Err(Error::Y4mHeader { path, reason });
        }
        let header = parse_header(&line, &path)?;
        line.clear();
        Ok(Self {
            frames: Frames {
                src,
                format: header.format,
                path,
                next: 0,
                total: None,
                file: None,
            },
            header,
            line,
            offsets: None,
        })
    }

    /// Reads the next FRAME line: its length, or `None` at a clean end of input.
    fn frame_line(&mut self) -> Result<Option<u64>> {
        let f = &mut self.frames;
        self.line.clear();
        let found = f
            .src
            .read_line(&mut self.line, MAX_FRAME_LINE_BYTES)
            .map_err(|e| f.io(e))?;
        let line = &self.line;
        if line.is_empty() {
            return Ok(None);
        }
        let bad = |reason: String| Error::Y4mFrame {
            path: f.path.clone(),
            frame: f.next,
            reason,
        };
        let n = line.len().min(5);
        if line[..n] != b"FRAME"[..n] {
            let hint = if f.next > 0 {
                format!(
                    " (was frame {} not {} bytes, as W, H and C say?)",
                    f.next - 1,
                    f.format.frame_bytes()
                )
            } else {
                String::new()
            };
            return Err(bad(format!(
                "expected a FRAME line, found {}{hint}",
                shown(line)
            )));
        }
        if line.len() > 5 && line[5] != b' ' && line[5] != b'\n' {
            return Err(bad(format!(
                "FRAME must be followed by a space or the end of the line, found {}",
                shown(line)
            )));
        }
        if !found {
            if line.len() >= MAX_FRAME_LINE_BYTES {
                return Err(bad(format!(
                    "no end of line in {MAX_FRAME_LINE_BYTES} bytes"
                )));
            }
            return Err(f.truncated(line.len() as u64, 6 + f.format.frame_bytes()));
        }
        Ok(Some(line.len() as u64))
    }

    /// Skips one frame; false at a clean end of input.
    fn skip_one(&mut self) -> Result<bool> {
        let Some(prefix) = self.frame_line()? else {
            return Ok(false);
        };
        self.frames.read_planes(LumaDst::Skip, prefix)?;
        self.frames.next += 1;
        Ok(true)
    }

    /// Counts the frames of a seekable input by visiting every FRAME line (a small
    /// read and a seek per frame; FRAME lines may differ in length, so the size
    /// alone cannot say). Finds a malformed FRAME line or a truncated last frame
    /// before any frame is scored.
    fn count_frames(&mut self) -> Result<()> {
        if self.frames.src.remaining().is_none() {
            return Ok(());
        }
        let start = self.frames.src.position();
        let mut offsets = Vec::new();
        while let Some(prefix) = self.frame_line()? {
            offsets.push(self.frames.src.position());
            self.frames.read_planes(LumaDst::Skip, prefix)?;
            self.frames.next += 1;
        }
        self.seek_to(start)?;
        self.frames.next = 0;
        self.frames.total = Some(offsets.len() as u64);
        self.offsets = Some(offsets.into());
        Ok(())
    }

    /// Lets [`LumaReader::frame_index`] read `file` by offset: the file this
    /// reader's seekable input reads.
    pub(crate) fn set_file(&mut self, file: Arc<File>) {
        self.frames.file = Some(file);
    }

    fn seek_to(&mut self, pos: u64) -> Result<()> {
        let f = &mut self.frames;
        f.src.seek_to(pos).map_err(|e| f.io(e))
    }
}

impl LumaReader for Y4mReader {
    fn format(&self) -> VideoFormat {
        self.frames.format
    }

    fn path(&self) -> &Path {
        &self.frames.path
    }

    fn read(&mut self, dst: &mut [u8], planes: Planes, check: Check) -> Result<bool> {
        if planes == Planes::All {
            self.frames.check_planes_dst(dst)?;
        }
        self.read_into(LumaDst::of(dst, planes, check))
    }

    fn is_y4m(&self) -> bool {
        true
    }

    fn color_range(&self) -> Option<DeclaredRange> {
        let range = self.header.color_range?;
        let word = match range {
            ColorRange::Full => "FULL",
            ColorRange::Limited => "LIMITED",
        };
        Some(DeclaredRange {
            range,
            declared_by: format!("XCOLORRANGE={word}"),
        })
    }

    fn read_frame(&mut self) -> Result<Option<LumaFrame>> {
        let Some(prefix) = self.frame_line()? else {
            return Ok(None);
        };
        let frame = self.frames.read_frame(prefix)?;
        self.frames.next += 1;
        Ok(frame)
    }

    fn skip(&mut self, frames: u64) -> Result<u64> {
        let mut n = 0;
        while n < frames && self.skip_one()? {
            n += 1;
        }
        Ok(n)
    }

    fn frames_read(&self) -> u64 {
        self.frames.next
    }

    fn frame_count(&self) -> Option<u64> {
        self.frames.total
    }

    fn frame_index(&self) -> Option<FrameIndex> {
        self.frames.index(Offsets::Listed(self.offsets.clone()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::testutil::{pattern_video, Trickle};
    use std::io::Cursor;

    fn header(line: &str) -> Result<Y4mHeader> {
        parse_header(line.as_bytes(), Path::new("clip.y4m"))
    }

    fn both(data: &[u8]) -> Vec<Result<Y4mReader>> {
        vec![
            Y4mReader::from_seekable(Cursor::new(data.to_vec()), "clip.y4m"),
            Y4mReader::from_stream(
                Trickle {
                    inner: Cursor::new(data.to_vec()),
                    chunk: 5,
                },
                "-",
            ),
        ]
    }

    /// A Y4M stream: `head` (without its `\n`), then `frames` frames of its format.
    fn clip(head: &str, frames: usize, frame_line: &[u8]) -> (Vec<u8>, Vec<Vec<u8>>) {
        let format = header(head).unwrap().format;
        let (body, lumas) = pattern_video(&format, frames, frame_line);
        let mut data = format!("{head}\n").into_bytes();
        data.extend_from_slice(&body);
        (data, lumas)
    }

    #[test]
    fn parses_an_ffmpeg_header() {
        let h = header("YUV4MPEG2 W352 H288 F30000:1001 Ip A1:1 C420p10 XYSCSS=420P10\n").unwrap();
        assert_eq!(
            h.format,
            VideoFormat::new(352, 288, 10, Chroma::C420).unwrap()
        );
        assert_eq!(h.frame_rate, Some((30000, 1001)));
        assert_eq!(h.pixel_aspect, Some((1, 1)));
        assert_eq!(h.interlace, Some(b'p'));
    }

    #[test]
    fn no_c_tag_is_420_8bit_and_extra_spaces_are_fine() {
        let h = header("YUV4MPEG2  W3   H1 Zunknown X=1 XCOLORRANGE=LIMITED X=1").unwrap();
        assert_eq!(h.format, VideoFormat::new(3, 1, 8, Chroma::C420).unwrap());
        assert_eq!(h.frame_rate, None);
        assert_eq!(h.interlace, None);
        assert_eq!(h.color_range, Some(ColorRange::Limited));
    }

    #[test]
    fn colour_range_is_read_from_its_x_tag() {
        let full = header("YUV4MPEG2 W4 H2 XCOLORRANGE=FULL").unwrap();
        assert_eq!(full.color_range, Some(ColorRange::Full));
        let other = header("YUV4MPEG2 W4 H2 XCOLORRANGE=pc").unwrap();
        assert_eq!(other.color_range, None);
    }

    #[test]
    fn every_colour_space_tag() {
        let tags = [
            ("420jpeg", Chroma::C420, 8),
            ("420mpeg2", Chroma::C420, 8),
            ("420paldv", Chroma::C420, 8),
            ("420", Chroma::C420, 8),
            ("411", Chroma::C411, 8),
            ("422", Chroma::C422, 8),
            ("444", Chroma::C444, 8),
            ("444alpha", Chroma::C444Alpha, 8),
            ("mono", Chroma::Mono, 8),
            ("420p10", Chroma::C420, 10),
            ("420p12", Chroma::C420, 12),
            ("420p16", Chroma::C420, 16),
            ("422p10", Chroma::C422, 10),
            ("422p12", Chroma::C422, 12),
            ("422p16", Chroma::C422, 16),
            ("444p10", Chroma::C444, 10),
            ("444p12", Chroma::C444, 12),
            ("444p16", Chroma::C444, 16),
            ("mono10", Chroma::Mono, 10),
            ("mono12", Chroma::Mono, 12),
            ("mono16", Chroma::Mono, 16),
        ];
        for (tag, chroma, bit_depth) in tags {
            let head = format!("YUV4MPEG2 W5 H3 F25:1 C{tag}");
            let h = header(&head).unwrap();
            assert_eq!((h.format.chroma, h.format.bit_depth), (chroma, bit_depth));
            // Read three frames back, from a file and from a pipe.
            let (data, lumas) = clip(&head, 3, b"FRAME\n");
            for reader in both(&data) {
                let mut r = reader.unwrap();
                for luma in &lumas {
                    assert_eq!(&r.read_frame().unwrap().unwrap().bytes, luma, "{tag}");
                }
                assert!(r.read_frame().unwrap().is_none());
                assert_eq!(r.frames_read(), 3);
            }
        }
    }

    #[test]
    fn bad_headers_say_what_is_wrong() {
        let cases = [
            ("YUV4MPEG2 H4 F25:1", "no W"),
            ("YUV4MPEG2 W4 F25:1", "no H"),
            ("YUV4MPEG2 W4x H4", "malformed tag \"W4x\""),
            ("YUV4MPEG2 W-4 H4", "malformed tag"),
            ("YUV4MPEG2 W H4", "malformed tag"),
            ("YUV4MPEG2 W0 H4", "width is 0"),
            ("YUV4MPEG2 W4 H4 F25", "malformed tag \"F25\""),
            ("YUV4MPEG2 W4 H4 A1:", "malformed tag"),
            ("YUV4MPEG2 W4 H4 Ix", "malformed tag"),
            ("YUV4MPEG2 W99999999999 H4", "malformed tag"),
            ("YUV4MPEG3 W4 H4", "version \"3\""),
            ("YUV4MPEG2W4 H4", "followed by a space"),
            ("RIFF", "does not start with YUV4MPEG2"),
            (
                "YUV4MPEG2 W200 W176 H4",
                "W tag is given twice (\"W200\" and \"W176\")",
            ),
            ("YUV4MPEG2 W4 H4 H4", "H tag is given twice"),
            ("YUV4MPEG2 W4 H4 C420 C420", "C tag is given twice"),
            ("YUV4MPEG2 W4 H4 F25:1 F30:1", "F tag is given twice"),
            ("YUV4MPEG2 W4 H4 Ip I?", "I tag is given twice"),
            ("YUV4MPEG2 W4 A1:1 H4 A1:1", "A tag is given twice"),
        ];
        for (line, expected) in cases {
            match header(line) {
                Err(Error::Y4mHeader { path, reason }) => {
                    assert_eq!(path, Path::new("clip.y4m"));
                    assert!(reason.contains(expected), "{line}: {reason}");
                }
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn unsupported_headers() {
        for line in [
            "YUV4MPEG2 W4 H4 C420p9",
            "YUV4MPEG2 W4 H4 C410",
            "YUV4MPEG2 W4 H4 C444p14",
            "YUV4MPEG2 W4 H4 It",
            "YUV4MPEG2 W4 H4 Im",
            "YUV4MPEG2 W70000 H4",
        ] {
            assert!(matches!(header(line), Err(Error::Unsupported(_))), "{line}");
        }
        assert!(header("YUV4MPEG2 W4 H4 I?").is_ok());
    }

    #[test]
    fn frame_lines_with_parameters() {
        let head = "YUV4MPEG2 W3 H3 C422p12";
        let format = header(head).unwrap().format;
        // Frames whose FRAME lines differ in length: counting visits each.
        let mut data = format!("{head}\n").into_bytes();
        let mut lumas = Vec::new();
        for (i, line) in [&b"FRAME Ip XA=1\n"[..], b"FRAME\n", b"FRAME Ixx\n"]
            .iter()
            .enumerate()
        {
            let (body, luma) = pattern_video(&format, i + 1, line);
            let skip = body.len() / (i + 1) * i;
            data.extend_from_slice(&body[skip..]);
            lumas.push(luma[i].clone());
        }
        for reader in both(&data) {
            let mut r = reader.unwrap();
            for luma in &lumas {
                assert_eq!(&r.read_frame().unwrap().unwrap().bytes, luma);
            }
            assert!(r.read_frame().unwrap().is_none());
        }
        assert_eq!(both(&data)[0].as_ref().unwrap().frame_count(), Some(3));
    }

    #[test]
    fn header_only_has_no_frames() {
        let data = b"YUV4MPEG2 W4 H2 F25:1\n";
        for reader in both(data) {
            let mut r = reader.unwrap();
            assert!(r.read_frame().unwrap().is_none());
        }
        assert_eq!(both(data)[0].as_ref().unwrap().frame_count(), Some(0));
    }

    #[test]
    fn header_without_end_of_line() {
        for data in [&b"YUV4MPEG2 W4 H2"[..], b""] {
            for reader in both(data) {
                assert!(matches!(reader, Err(Error::Y4mHeader { .. })));
            }
        }
        let mut long = b"YUV4MPEG2 W4 H2 X".to_vec();
        long.resize(MAX_HEADER_BYTES + 10, b'a');
        long.push(b'\n');
        for reader in both(&long) {
            match reader {
                Err(Error::Y4mHeader { reason, .. }) => assert!(reason.contains("no end of line")),
                other => panic!("{:?}", other.err()),
            }
        }
    }

    #[test]
    fn skip_frames() {
        let (data, lumas) = clip("YUV4MPEG2 W5 H1 C444", 4, b"FRAME\n");
        for reader in both(&data) {
            let mut r = reader.unwrap();
            assert_eq!(r.skip(3).unwrap(), 3);
            assert_eq!(r.frames_read(), 3);
            assert_eq!(r.read_frame().unwrap().unwrap().bytes, lumas[3]);
            assert_eq!(r.skip(3).unwrap(), 0);
        }
    }

    #[test]
    fn malformed_frame_lines_name_the_frame() {
        let (good, _) = clip("YUV4MPEG2 W4 H2 C420", 3, b"FRAME\n");
        let head = b"YUV4MPEG2 W4 H2 C420\n".len();
        let per = 6 + 12;
        let second = head + per;
        let cases: [(&[u8], &str); 3] = [
            (b"FRAMX\n", "expected a FRAME line"),
            (b"JUNK!\n", "expected a FRAME line"),
            (b"FRAMEX", "followed by a space"),
        ];
        for (bad, expected) in cases {
            let mut data = good.clone();
            data[second..second + 6].copy_from_slice(bad);
            // The file reader finds it when it opens, the pipe reader at frame 1.
            let mut readers = both(&data);
            let mut stream = readers.pop().unwrap().unwrap();
            assert!(stream.read_frame().unwrap().is_some());
            for err in [
                readers.pop().unwrap().err().unwrap(),
                stream.read_frame().unwrap_err(),
            ] {
                match err {
                    Error::Y4mFrame { frame, reason, .. } => {
                        assert_eq!(frame, 1);
                        assert!(reason.contains(expected), "{reason}");
                    }
                    e => panic!("{e}"),
                }
            }
        }
        // A FRAME line with no end.
        let mut data = b"YUV4MPEG2 W4 H2 C420\nFRAME ".to_vec();
        data.resize(data.len() + MAX_FRAME_LINE_BYTES, b'x');
        for reader in both(&data) {
            let err = match reader {
                Ok(mut r) => r.read_frame().unwrap_err(),
                Err(e) => e,
            };
            assert!(matches!(err, Error::Y4mFrame { frame: 0, .. }), "{err}");
        }
    }

    #[test]
    fn truncated_frames() {
        let (good, _) = clip("YUV4MPEG2 W4 H2 C420", 2, b"FRAME\n");
        let head = b"YUV4MPEG2 W4 H2 C420\n".len();
        let per = 6 + 12;
        // Cut inside the FRAME line, inside luma, inside chroma.
        for into in [3, 6 + 5, 6 + 10] {
            let data = &good[..head + per + into];
            let mut readers = both(data);
            let mut stream = readers.pop().unwrap().unwrap();
            assert!(stream.read_frame().unwrap().is_some());
            for err in [
                readers.pop().unwrap().err().unwrap(),
                stream.read_frame().unwrap_err(),
            ] {
                match err {
                    Error::TruncatedFrame {
                        frame,
                        leftover,
                        frame_bytes,
                        ..
                    } => assert_eq!((frame, leftover, frame_bytes), (1, into as u64, per as u64)),
                    e => panic!("{e}"),
                }
            }
        }
    }
}
