//! The container side: opens an input with libavformat ([`Demuxer::open`]),
//! picks its video stream (the first, or the n-th with
//! [`DecodeOptions::stream`]; cover art is not a video stream here), tells the
//! demuxer to drop every other stream's packets, and reads that stream's
//! packets in file order ([`Demuxer::read`]), telling a clean end from a
//! file cut short ([`Read::Cut`]).

use std::ffi::CString;
use std::path::{Path, PathBuf};

use ffmpeg_next::ffi;
use ffmpeg_next::format::context::Input;
use ffmpeg_next::format::stream::Disposition;
use ffmpeg_next::media::Type;
use ffmpeg_next::{codec, Packet, Rational};

use super::avio::{CustomIo, Source};
use super::{log, message};
use crate::io::DecodeOptions;
use crate::{Error, Result};

/// An open container and the stream read from it.
pub(super) struct Demuxer {
    /// Declared before `io`: the context is closed before its custom I/O is
    /// freed.
    input: Input,
    /// The custom I/O of an input read from an open file or pipe.
    io: Option<CustomIo>,
    /// The stream's index in the container.
    stream: usize,
    /// The id in the context's `opaque` field (see [`log`]).
    id: usize,
}

// SAFETY: the format context is owned by this value alone and only used
// through `&mut self` (never from two threads at once); FFmpeg's contexts may
// move between threads.
unsafe impl Send for Demuxer {}

impl Demuxer {
    /// Opens `path` and picks its video stream. Not a container libavformat
    /// reads: [`Error::Demux`]; no video stream: [`Error::NoVideoStream`]; no
    /// n-th one: [`Error::NoSuchStream`]. With `sure`, a weak guess of
    /// libavformat's (see [`confident`]) is [`Error::Demux`] too.
    pub(super) fn open(path: &Path, options: &DecodeOptions, sure: bool) -> Result<Self> {
        Self::open_from(path, None, options, sure)
    }

    /// [`Demuxer::open`] on what `source` reads (standard input), named
    /// `name` in messages. An MP4 whose index follows its frames, read from
    /// a pipe, is [`Error::Demux`] saying so (see the `avio` module).
    pub(super) fn open_source(
        name: &Path,
        source: Source,
        options: &DecodeOptions,
        sure: bool,
    ) -> Result<Self> {
        Self::open_from(name, Some(CustomIo::new(source)?), options, sure)
    }

    fn open_from(
        path: &Path,
        mut io: Option<CustomIo>,
        options: &DecodeOptions,
        sure: bool,
    ) -> Result<Self> {
        let id = log::new_id();
        // With a raw layout given (`sure`), the input may be raw YUV: the
        // probe's complaints are not printed.
        let mut open = || open_context(path, io.as_mut(), id);
        let input = if sure { log::quietly(open) } else { open() }?;
        if sure && !confident(&input, path) {
            log::forget(id);
            return Err(Error::Demux {
                path: path.to_path_buf(),
                reason: format!(
                    "only a weak guess that it is {} (no magic number, and not its file name)",
                    input.format().name()
                ),
            });
        }
        let video: Vec<usize> = input
            .streams()
            .filter(|s| {
                s.parameters().medium() == Type::Video
                    && !s.disposition().contains(Disposition::ATTACHED_PIC)
            })
            .map(|s| s.index())
            .collect();
        let wanted = options.stream.unwrap_or(0);
        let Some(&stream) = video.get(wanted) else {
            log::forget(id);
            if video.is_empty() {
                return Err(Error::NoVideoStream {
                    path: path.to_path_buf(),
                    streams: stream_list(&input),
                });
            }
            return Err(Error::NoSuchStream {
                path: path.to_path_buf(),
                index: wanted,
                count: video.len(),
            });
        };
        let mut demuxer = Self {
            input,
            io,
            stream,
            id,
        };
        demuxer.discard_others();
        Ok(demuxer)
    }

    /// Marks every stream but the one read as discarded (the demuxer then
    /// skips their packets, as `ffmpeg` does for streams it does not map).
    fn discard_others(&mut self) {
        // SAFETY: the context is open; `streams` holds `nb_streams` valid
        // stream pointers, whose `discard` field the caller may set.
        unsafe {
            let ctx = self.input.as_mut_ptr();
            for i in 0..(*ctx).nb_streams as usize {
                if i != self.stream {
                    (**(*ctx).streams.add(i)).discard = ffi::AVDiscard::AVDISCARD_ALL;
                }
            }
        }
    }

    /// The stream's codec parameters.
    pub(super) fn parameters(&self) -> codec::Parameters {
        self.stream().parameters()
    }

    /// The stream's time base.
    pub(super) fn time_base(&self) -> Rational {
        self.stream().time_base()
    }

    fn stream(&self) -> ffmpeg_next::format::stream::Stream<'_> {
        // The index came from this context's stream list, so it is there.
        self.input
            .stream(self.stream)
            .unwrap_or_else(|| unreachable!("stream {} of the open context", self.stream))
    }

    /// The frame count the container gives, or one from its duration and
    /// average frame rate; `None` when it gives neither. An estimate (a
    /// decoder may drop or add frames, an edit list may cut some).
    pub(super) fn frame_estimate(&self) -> Option<u64> {
        let s = self.stream();
        if s.frames() > 0 {
            return Some(s.frames() as u64);
        }
        let rate = s.avg_frame_rate();
        if rate.numerator() <= 0 || rate.denominator() <= 0 {
            return None;
        }
        let seconds = if s.duration() > 0 {
            s.duration() as f64 * f64::from(s.time_base())
        } else if self.input.duration() > 0 {
            self.input.duration() as f64 / f64::from(ffi::AV_TIME_BASE)
        } else {
            return None;
        };
        Some((seconds * f64::from(rate)).round() as u64)
    }

    /// Reads the stream's next packet into `packet`: [`Read::Packet`], or
    /// [`Read::End`] at the end of the input, or [`Read::Cut`] when the
    /// input ends before its data does (see [`Demuxer::cut_short`] and
    /// [`Read::Cut`]). A read error is [`Error::Demux`], or [`Read::Cut`]
    /// where the container's index shows the file to be cut short.
    ///
    /// `packet`'s previous contents are released first (and so is each
    /// packet of another stream skipped here): `av_read_frame` overwrites
    /// the packet without unreferencing its buffer, which would otherwise
    /// leak every packet read.
    pub(super) fn read(&mut self, packet: &mut Packet, path: &Path) -> Result<Read> {
        loop {
            // Dropping the old packet unreferences its buffer.
            *packet = Packet::empty();
            match packet.read(&mut self.input) {
                Ok(()) if packet.stream() == self.stream => {
                    // Errors logged on the way to a packet were recovered
                    // from: warnings (no error quotes them); only those
                    // logged at the end tell how the input ended.
                    if let Some(logged) = log::take(self.id) {
                        tracing::warn!("{}: {logged}", path.display());
                    }
                    return Ok(Read::Packet);
                }
                Ok(()) => {}
                Err(ffmpeg_next::Error::Eof) => {
                    let logged = log::take(self.id).map(|l| format!("FFmpeg's libavformat: {l}"));
                    return Ok(match self.index_past_end().or(logged) {
                        Some(reason) => Read::Cut(reason),
                        None => Read::End,
                    });
                }
                Err(e) => {
                    let mut reason = message(self.id, &e);
                    if let Some(cut) = self.index_past_end() {
                        return Ok(Read::Cut(format!("{cut}; FFmpeg's libavformat: {reason}")));
                    }
                    if let Some(io) = self.io.as_mut().and_then(CustomIo::take_error) {
                        reason = format!("{reason}: {io}");
                    }
                    return Err(Error::Demux {
                        path: path.to_path_buf(),
                        reason,
                    });
                }
            }
        }
    }

    /// Why the input is known to be cut short once reading has reached its
    /// end (a packet cut in two: the decoder then fails on it); `None` while
    /// reading is inside the file, or nothing shows a cut.
    pub(super) fn cut_short(&self) -> Option<String> {
        // SAFETY: the context is open; its `pb` is null or a valid I/O
        // context.
        let at_end = unsafe {
            let pb = (*self.input.as_ptr()).pb;
            !pb.is_null() && ffi::avio_feof(pb) != 0
        };
        if at_end {
            self.index_past_end()
        } else {
            None
        }
    }

    /// For an MP4/MOV, whose index (read with its header) gives every
    /// sample's position and size: a reason when the stream's samples reach
    /// past the file's end. `None` for other containers, for an input of
    /// unknown size (a pipe) and for an index inside the file.
    fn index_past_end(&self) -> Option<String> {
        if !is_mp4(&self.input) {
            return None;
        }
        // SAFETY: the context is open: `pb` is null or valid, `streams`
        // holds the stream read; each index entry's pointer is read before
        // the next call into libavformat.
        let (end, size) = unsafe {
            let ctx = self.input.as_ptr();
            if (*ctx).pb.is_null() {
                return None;
            }
            let size = ffi::avio_size((*ctx).pb);
            let st = *(*ctx).streams.add(self.stream);
            let count = ffi::avformat_index_get_entries_count(st);
            let mut end = 0i64;
            for i in 0..count {
                let entry = ffi::avformat_index_get_entry(st, i);
                if let Some(entry) = entry.as_ref() {
                    if entry.pos >= 0 {
                        end = end.max(entry.pos.saturating_add(i64::from(entry.size())));
                    }
                }
            }
            (end, size)
        };
        (size > 0 && end > size).then(|| {
            format!("its index places video data up to byte {end}, but the file has {size} bytes")
        })
    }
}

/// What [`Demuxer::read`] found.
pub(super) enum Read {
    /// The stream's next packet.
    Packet,
    /// The end of the input, where its container says it is.
    End,
    /// The end of the input, before its data's end: a file cut short. Why,
    /// in words: the index pointing past the file's end (MP4/MOV), or the
    /// error libavformat logged as the input ended (Matroska/WebM's "File
    /// ended prematurely", and any other demuxer that reports its end as an
    /// error).
    Cut(String),
}

impl Drop for Demuxer {
    fn drop(&mut self) {
        log::forget(self.id);
    }
}

/// `avformat_open_input` and `avformat_find_stream_info` on `path` (or, with
/// `io`, on what it reads, `path` naming it), with `id` in the context's
/// `opaque` field from the start (so that the messages of opening are caught
/// too).
fn open_context(path: &Path, io: Option<&mut CustomIo>, id: usize) -> Result<Input> {
    let demux_error = |reason: String| Error::Demux {
        path: PathBuf::from(path),
        reason,
    };
    let c_path = c_path(path).ok_or_else(|| demux_error("the name holds a NUL byte".into()))?;
    // SAFETY: avformat_alloc_context returns a new context or null; on
    // failure avformat_open_input frees the context and nulls the pointer, on
    // success the context is open and owned by `Input` (which closes it);
    // `c_path` outlives the call.
    unsafe {
        let mut ctx = ffi::avformat_alloc_context();
        if ctx.is_null() {
            return Err(demux_error("out of memory".into()));
        }
        (*ctx).opaque = id as *mut std::ffi::c_void;
        let url = match &io {
            Some(_) => c"".to_owned(),
            None => c_path,
        };
        let mut io = io;
        if let Some(io) = io.as_deref_mut() {
            (*ctx).pb = io.as_mut_ptr();
            (*ctx).flags |= ffi::AVFMT_FLAG_CUSTOM_IO;
        }
        let r = ffi::avformat_open_input(
            &mut ctx,
            url.as_ptr(),
            std::ptr::null(),
            std::ptr::null_mut(),
        );
        if r < 0 {
            let e = ffmpeg_next::Error::from(r);
            return Err(demux_error(message(id, &e)));
        }
        let input = Input::wrap(ctx);
        // An MP4 on a pipe whose header was only complete at the pipe's end:
        // its index followed its frames, which cannot be read again.
        let pipe = io.is_some_and(|io| !io.seekable());
        if pipe && is_mp4(&input) && samples_behind(ctx) {
            log::forget(id);
            return Err(demux_error(MP4_INDEX_AT_END.into()));
        }
        let r = ffi::avformat_find_stream_info(ctx, std::ptr::null_mut());
        if r < 0 {
            let e = ffmpeg_next::Error::from(r);
            return Err(demux_error(message(id, &e)));
        }
        Ok(input)
    }
}

/// Why an MP4 with its index at the end cannot come through a pipe.
const MP4_INDEX_AT_END: &str = "an MP4 (or MOV) whose index (its moov box) follows its frames \
     cannot be read from a pipe, which cannot go back to the frames once the index is read: \
     give the file's name instead, pipe it as MKV or MPEG-TS, or move its index to the front \
     (ffmpeg -i IN -c copy -movflags +faststart OUT.mp4)";

/// Whether a stream's first sample lies before the position where reading
/// the header left the input (an MP4 whose index follows its frames).
///
/// # Safety
/// `ctx` is an open format context.
unsafe fn samples_behind(ctx: *mut ffi::AVFormatContext) -> bool {
    // SAFETY: the caller's context is open: its `pb`, `nb_streams` and
    // `streams` are valid; avio_seek by 0 from the current position is
    // avio_tell; an index entry's pointer is read at once.
    unsafe {
        let at = ffi::avio_seek((*ctx).pb, 0, 1);
        if at < 0 {
            return false;
        }
        (0..(*ctx).nb_streams as usize).any(|i| {
            let entry = ffi::avformat_index_get_entry(*(*ctx).streams.add(i), 0);
            !entry.is_null() && (*entry).pos < at
        })
    }
}

/// Whether libavformat's demuxer for `input` is the MP4/MOV one.
fn is_mp4(input: &Input) -> bool {
    input.format().name().split(',').any(|n| n == "mp4")
}

/// Whether libavformat found `path`'s format by its content (a probe score
/// above what an extension alone gives, as a container's magic number does),
/// or the name's extension is one of that format's. Raw elementary streams
/// (H.263, MPEG video, ...) have no magic, and their probes can take raw YUV
/// for one; a caller that was told the input is raw YUV accepts only these.
/// A still-image demuxer (`jpegxl_pipe`, `png_pipe`, ...) counts only by the
/// name: its magic number is a few bytes that raw samples can hold (JPEG
/// XL's is FF 0A, two bright-then-dark 8-bit pixels), and probed from them
/// it scores as high as a container.
fn confident(input: &Input, path: &Path) -> bool {
    // SAFETY: the context is open; probe_score is a plain field.
    let score = unsafe { (*input.as_ptr()).probe_score };
    let still_image = input.format().name().ends_with("_pipe");
    if score > ffi::AVPROBE_SCORE_EXTENSION + 1 && !still_image {
        return true;
    }
    let format = input.format();
    let ext = path.extension().and_then(|e| e.to_str());
    ext.is_some_and(|ext| {
        format
            .extensions()
            .iter()
            .any(|e| e.eq_ignore_ascii_case(ext))
    })
}

#[cfg(unix)]
fn c_path(path: &Path) -> Option<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes()).ok()
}

#[cfg(not(unix))]
fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.to_string_lossy().as_bytes()).ok()
}

/// The streams of `input`, as `audio (aac), subtitle (subrip)`, or `no
/// stream at all`.
fn stream_list(input: &Input) -> String {
    let list: Vec<String> = input
        .streams()
        .map(|s| {
            let p = s.parameters();
            let kind = match p.medium() {
                Type::Video => "cover art",
                Type::Audio => "audio",
                Type::Subtitle => "subtitle",
                Type::Data => "data",
                Type::Attachment => "attachment",
                _ => "unknown",
            };
            format!("{kind} ({})", p.id().name())
        })
        .collect();
    if list.is_empty() {
        "no stream at all".to_string()
    } else {
        list.join(", ")
    }
}
