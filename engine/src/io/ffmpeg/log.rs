//! FFmpeg's log messages, caught: the libraries report what is wrong with a
//! stream (a damaged slice, a missing reference) only through `av_log`, so
//! vkssim installs a log callback (once, for the whole process) that keeps
//! the last error messages of each of its demuxers and decoders, keyed by the
//! id stored in their context's `opaque` field (frame-threaded decoders copy
//! it to their worker contexts), for the errors that name them. Every message
//! also goes to `tracing`: an error of one of those contexts at `debug` (it
//! is shown where it is used: inside vkssim's error, or by its reader as a
//! warning when no error takes it, so it is printed once), another context's
//! error at `warn` (at `debug` on a thread inside [`quietly`]: probing what
//! may be raw YUV), the rest at `debug`; nothing is printed on standard error
//! by FFmpeg itself.
//!
//! The callback needs the C `va_list` type of the platform, which the
//! bindings give only as the x86-64 form; on other targets nothing is
//! installed, FFmpeg prints its own messages, and errors carry FFmpeg's error
//! code text alone.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The messages kept per id (the last ones).
const KEPT: usize = 4;

/// Error messages by context id.
static MESSAGES: Mutex<Option<HashMap<usize, Vec<String>>>> = Mutex::new(None);

/// The next id (0 is no id).
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

thread_local! {
    /// Whether this thread is inside [`quietly`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the errors that contexts other than vkssim's log on this
/// thread kept at `debug` (a probe's complaints about bytes that are not its
/// format, when the input may be raw YUV, are not the user's concern).
pub(super) fn quietly<T>(f: impl FnOnce() -> T) -> T {
    let before = QUIET.with(|q| q.replace(true));
    let out = f();
    QUIET.with(|q| q.set(before));
    out
}

/// A new id for a context's `opaque` field, with the callback installed
/// (and ffmpeg-next's error texts, which `ffmpeg_next::init` fills, ready).
pub(super) fn new_id() -> usize {
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| {
        if let Err(e) = ffmpeg_next::init() {
            tracing::warn!("FFmpeg's initialisation failed: {e}");
        }
        install();
    });
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// The error messages logged for `id` since the last call, joined with `; `
/// (`None` when there were none).
pub(super) fn take(id: usize) -> Option<String> {
    let mut guard = MESSAGES.lock().unwrap_or_else(|e| e.into_inner());
    let list = guard.as_mut()?.remove(&id)?;
    (!list.is_empty()).then(|| list.join("; "))
}

/// Forgets `id`'s messages (its reader is closed).
pub(super) fn forget(id: usize) {
    let mut guard = MESSAGES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(map) = guard.as_mut() {
        map.remove(&id);
    }
}

fn keep(id: usize, line: String) {
    let mut guard = MESSAGES.lock().unwrap_or_else(|e| e.into_inner());
    let list = guard
        .get_or_insert_with(HashMap::new)
        .entry(id)
        .or_default();
    if list.len() == KEPT {
        list.remove(0);
    }
    list.push(line);
}

#[cfg(target_arch = "x86_64")]
fn install() {
    // SAFETY: av_log_set_callback only stores the function pointer; the
    // callback is sound to call from any thread at any time (it locks).
    unsafe { ffmpeg_next::ffi::av_log_set_callback(Some(callback)) }
}

#[cfg(not(target_arch = "x86_64"))]
fn install() {}

/// The id in `avcl`'s `opaque` field when `avcl` is a demuxer's or a
/// decoder's context (0 otherwise).
///
/// # Safety
/// `avcl` is null or points to a struct whose first field is an `AVClass`
/// pointer, as every `av_log` context does.
#[cfg(target_arch = "x86_64")]
unsafe fn context_id(avcl: *mut std::ffi::c_void) -> usize {
    use ffmpeg_next::ffi::{AVClass, AVCodecContext, AVFormatContext};
    if avcl.is_null() {
        return 0;
    }
    // SAFETY: per this function's contract, the first field is the class.
    let class = unsafe { *(avcl as *const *const AVClass) };
    if class.is_null() {
        return 0;
    }
    // SAFETY: a non-null AVClass pointer points to a static AVClass whose
    // class_name is a NUL-terminated string.
    let name = unsafe { std::ffi::CStr::from_ptr((*class).class_name) };
    // SAFETY: the class names say which struct `avcl` is; `opaque` is a plain
    // field of it.
    let opaque = unsafe {
        match name.to_bytes() {
            b"AVCodecContext" => (*(avcl as *const AVCodecContext)).opaque,
            b"AVFormatContext" => (*(avcl as *const AVFormatContext)).opaque,
            _ => return 0,
        }
    };
    opaque as usize
}

#[cfg(target_arch = "x86_64")]
unsafe extern "C" fn callback(
    avcl: *mut std::ffi::c_void,
    level: std::ffi::c_int,
    fmt: *const std::ffi::c_char,
    vl: *mut ffmpeg_next::ffi::__va_list_tag,
) {
    use ffmpeg_next::ffi;
    if level > ffi::AV_LOG_INFO as std::ffi::c_int {
        return;
    }
    let mut line = [0 as std::ffi::c_char; 1024];
    let mut prefix: std::ffi::c_int = 0;
    // SAFETY: FFmpeg hands the callback a valid context, format and argument
    // list; av_log_format_line2 writes at most `line.len()` bytes, NUL
    // terminated, and consumes `vl` once (it is not used again).
    let written = unsafe {
        ffi::av_log_format_line2(
            avcl,
            level,
            fmt,
            vl,
            line.as_mut_ptr(),
            line.len() as std::ffi::c_int,
            &mut prefix,
        )
    };
    if written < 0 {
        return;
    }
    // SAFETY: the buffer is NUL terminated (see above).
    let text = unsafe { std::ffi::CStr::from_ptr(line.as_ptr()) };
    let text = text.to_string_lossy().trim_end().to_string();
    if level > ffi::AV_LOG_ERROR as std::ffi::c_int {
        tracing::debug!(target: "ffmpeg", "{text}");
        return;
    }
    // SAFETY: `avcl` is an av_log context (see context_id).
    let id = unsafe { context_id(avcl) };
    if id != 0 {
        tracing::debug!(target: "ffmpeg", "{text}");
        keep(id, text);
    } else if QUIET.with(Cell::get) {
        tracing::debug!(target: "ffmpeg", "{text} (while probing)");
    } else {
        tracing::warn!(target: "ffmpeg", "{text}");
    }
}
