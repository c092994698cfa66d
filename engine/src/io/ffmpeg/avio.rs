//! Encoded input from an open file or a pipe rather than a path (standard
//! input): a custom `AVIOContext` ([`CustomIo`]) through which libavformat
//! reads a [`Source`], and [`probe`], which asks libavformat what the first
//! bytes of a pipe are before anything is handed to a reader.
//!
//! A pipe cannot seek: an MP4 whose index (the `moov` box) comes after its
//! frames (`mdat`) cannot be demuxed from one (libavformat reads past the
//! frames to find the index and cannot go back); the demuxer says so instead
//! of failing at the first packet.

use std::ffi::{c_int, c_void};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use ffmpeg_next::ffi;
use ffmpeg_next::util::error::{EINVAL, EIO, ESPIPE};

use crate::{Error, Result};

/// Bytes of a pipe that [`probe`] looks at: enough for every container's
/// magic number (MPEG-TS needs more than ten 204-byte packets).
pub(crate) const PROBE_BYTES: usize = 4096;

/// The AVIO buffer's size.
const BUFFER: usize = 1 << 16;

/// What a [`CustomIo`] reads.
pub(crate) enum Source {
    /// A regular file (standard input redirected from one): read and seek.
    File(File),
    /// A pipe: read front to back.
    Stream(Box<dyn Read + Send>),
}

/// The reading state behind the AVIO context's `opaque` pointer.
struct State {
    source: Source,
    /// The last read or seek error, for the message.
    error: Option<std::io::Error>,
}

/// A custom `AVIOContext` reading a [`Source`]; freed (context, buffer and
/// source) when dropped, which must be after the format context using it is
/// closed.
pub(crate) struct CustomIo {
    ctx: *mut ffi::AVIOContext,
    state: *mut State,
}

// SAFETY: the context and its state are owned by this value and used only by
// the format context that the same owner (the demuxer) drives through
// `&mut self`; the source is `Send`.
unsafe impl Send for CustomIo {}

impl CustomIo {
    /// A context reading `source`; seekable when it is a file.
    pub(crate) fn new(source: Source) -> Result<Self> {
        let seekable = matches!(source, Source::File(_));
        let state = Box::into_raw(Box::new(State {
            source,
            error: None,
        }));
        // SAFETY: av_malloc returns a buffer of BUFFER bytes or null; on
        // success avio_alloc_context takes it (freed in Drop through the
        // context's `buffer` field, which FFmpeg may have replaced);
        // `state` is a live Box pointer until Drop.
        unsafe {
            let buffer = ffi::av_malloc(BUFFER) as *mut u8;
            if buffer.is_null() {
                drop(Box::from_raw(state));
                return Err(Error::Internal("out of memory for an AVIO buffer".into()));
            }
            let seek: Option<unsafe extern "C" fn(*mut c_void, i64, c_int) -> i64> =
                seekable.then_some(seek_callback);
            let ctx = ffi::avio_alloc_context(
                buffer,
                BUFFER as c_int,
                0,
                state.cast(),
                Some(read_callback),
                None,
                seek,
            );
            if ctx.is_null() {
                ffi::av_free(buffer.cast());
                drop(Box::from_raw(state));
                return Err(Error::Internal("out of memory for an AVIO context".into()));
            }
            Ok(Self { ctx, state })
        }
    }

    /// The context, for a format context's `pb`.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut ffi::AVIOContext {
        self.ctx
    }

    /// Whether the source can seek (a file).
    pub(crate) fn seekable(&self) -> bool {
        // SAFETY: `state` is live until Drop; libavformat only touches it
        // inside calls made through `&mut` of the demuxer, not now.
        unsafe { matches!((*self.state).source, Source::File(_)) }
    }

    /// The last I/O error of a read or seek, taken.
    pub(crate) fn take_error(&mut self) -> Option<std::io::Error> {
        // SAFETY: as in `seekable`.
        unsafe { (*self.state).error.take() }
    }
}

impl Drop for CustomIo {
    fn drop(&mut self) {
        // SAFETY: the context was made by avio_alloc_context and its buffer
        // by av_malloc (or FFmpeg's reallocation); the format context using
        // it is closed by now (the owner drops it first); `state` came from
        // Box::into_raw and is freed once.
        unsafe {
            ffi::av_freep(std::ptr::addr_of_mut!((*self.ctx).buffer).cast());
            ffi::avio_context_free(&mut self.ctx);
            drop(Box::from_raw(self.state));
        }
    }
}

/// `read_packet`: fills `buf` from the source; `AVERROR_EOF` at its end.
unsafe extern "C" fn read_callback(opaque: *mut c_void, buf: *mut u8, size: c_int) -> c_int {
    // SAFETY: `opaque` is the State this context was made with, live while
    // the context is; FFmpeg hands a buffer of `size` writable bytes.
    let (state, out) = unsafe {
        (
            &mut *(opaque as *mut State),
            std::slice::from_raw_parts_mut(buf, size.max(0) as usize),
        )
    };
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loop {
        let r = match &mut state.source {
            Source::File(f) => f.read(out),
            Source::Stream(s) => s.read(out),
        };
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }));
    match read {
        Ok(Ok(0)) => ffi::AVERROR_EOF,
        Ok(Ok(n)) => n as c_int,
        Ok(Err(e)) => {
            state.error = Some(e);
            ffi::AVERROR(EIO)
        }
        Err(_) => ffi::AVERROR(EIO),
    }
}

/// `seek` of a file source: `whence` as `lseek`'s, or `AVSEEK_SIZE` for the
/// size; the new position or a negative error.
unsafe extern "C" fn seek_callback(opaque: *mut c_void, offset: i64, whence: c_int) -> i64 {
    // SAFETY: as in `read_callback`.
    let state = unsafe { &mut *(opaque as *mut State) };
    let Source::File(file) = &mut state.source else {
        return i64::from(ffi::AVERROR(ESPIPE));
    };
    let whence = whence & !ffi::AVSEEK_FORCE;
    let r = if whence == ffi::AVSEEK_SIZE {
        file.metadata().map(|m| m.len())
    } else {
        let to = match whence {
            0 => SeekFrom::Start(offset.max(0) as u64),
            1 => SeekFrom::Current(offset),
            2 => SeekFrom::End(offset),
            _ => return i64::from(ffi::AVERROR(EINVAL)),
        };
        file.seek(to)
    };
    match r {
        Ok(n) => n as i64,
        Err(e) => {
            state.error = Some(e);
            i64::from(ffi::AVERROR(EIO))
        }
    }
}

/// What libavformat makes of an input's first bytes ([`probe`]).
pub(crate) struct Probe {
    /// The format's name (`matroska,webm`, `h264`, ...).
    pub name: String,
    /// Whether it is sure: a magic number, a probe score above what an
    /// extension alone gives.
    pub sure: bool,
    /// The format's usual file name extensions, comma-separated.
    pub extensions: String,
}

impl Probe {
    /// Whether this says the input named `path`, which may be raw YUV (its
    /// layout is given), is encoded: a magic number, other than a still
    /// image's few bytes (raw samples can hold them: JPEG XL's is FF 0A), or
    /// a weaker guess of a format whose usual extensions include `path`'s
    /// (an elementary stream such as `.h264` has no magic number).
    pub(crate) fn says_encoded(&self, path: &Path) -> bool {
        let still_image = self.name.ends_with("_pipe");
        let ext = path.extension().and_then(|e| e.to_str());
        (self.sure && !still_image)
            || ext.is_some_and(|ext| {
                self.extensions
                    .split(',')
                    .any(|e| e.eq_ignore_ascii_case(ext))
            })
    }
}

/// What libavformat makes of `prefix`, the first bytes of an input, by its
/// content alone (no file name), or `None` when no format matches at all.
pub(crate) fn probe(prefix: &[u8]) -> Option<Probe> {
    let mut buf = prefix.to_vec();
    buf.resize(prefix.len() + ffi::AVPROBE_PADDING_SIZE as usize, 0);
    let mut score: c_int = 0;
    let text = |p: *const std::ffi::c_char| {
        (!p.is_null()).then(|| {
            // SAFETY: `p` is not null: one of a format's static C strings.
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        })
    };
    // The probe's complaints about bytes that are not its format (raw YUV)
    // are not printed.
    // SAFETY: `pd` points at `buf`, which holds `buf_size` bytes and the
    // zeroed padding FFmpeg requires, for the call; the other fields are
    // null (no file name, no MIME type). The returned format is static.
    let (name, extensions) = super::log::quietly(|| unsafe {
        let mut pd: ffi::AVProbeData = std::mem::zeroed();
        pd.buf = buf.as_mut_ptr();
        pd.buf_size = prefix.len() as c_int;
        pd.filename = c"".as_ptr();
        let f = ffi::av_probe_input_format3(&pd, 1, &mut score);
        if f.is_null() {
            return None;
        }
        Some((text((*f).name), text((*f).extensions)))
    })?;
    Some(Probe {
        name: name.unwrap_or_default(),
        sure: score > ffi::AVPROBE_SCORE_EXTENSION + 1,
        extensions: extensions.unwrap_or_default(),
    })
}
