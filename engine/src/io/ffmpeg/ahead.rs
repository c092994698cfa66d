//! Decoding ahead: [`Frames`] gives a [`Decoded`] stream's frames either
//! inline (each decoded when asked for) or, once [`Frames::start`] is called
//! on a regular file's stream, from a thread of its own
//! (`vkssim-decode-<file name>`) that decodes into a bounded queue ahead of
//! the reader.
//!
//! Why: FFmpeg's frame-threaded decoders make progress only while somebody
//! sends packets and receives frames. Read inline, a decoder idles whenever
//! its reader is busy elsewhere (copying a frame out, or waiting for its
//! turn beside the other input); on its own thread it runs continuously and
//! the reader takes finished frames.
//!
//! What the reader sees is the same either way: the same frames, and each
//! error (with its message and frame number) in its place after the frames
//! before it; after an error the stream goes on as inline decoding would.
//! A pipe is never decoded ahead: a thread blocked on a pipe's read could
//! not be stopped and joined.
//!
//! Stopping: dropping [`Frames`] closes the queue, which ends the thread at
//! its next hand-over (a blocked hand-over returns at once), and joins it:
//! a bounded wait (the file reads and the decoding of one frame). A thread
//! that panicked is [`Error::Internal`] at the read that finds it gone.

use std::path::Path;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, RecvError};
use ffmpeg_next::frame;

use super::decoded::Decoded;
use crate::{Error, Result};

/// The frames decoded ahead and not yet read, at most. Enough to absorb the
/// decoder's bursts (frame threads and B-frame reordering hand out frames
/// unevenly) and the reader's (the other input's turn, a frame's copy), so
/// that neither side waits on the other's moment-to-moment pace; small
/// because each frame holds a decoder buffer (12 MB at 4K 4:2:0 8-bit, so
/// about 100 MB an input at most).
const DEPTH: usize = 8;

/// What the decoding thread hands over: a frame, the end (`None`), or an
/// error in its place.
type Item = Result<Option<frame::Video>>;

/// A stream's decoded frames (see the module documentation).
pub(super) struct Frames {
    state: State,
    /// Whether [`Frames::start`] may move decoding to a thread.
    ahead: bool,
    /// The input's name in messages.
    name: String,
    /// The thread's name.
    thread_name: String,
}

enum State {
    /// Decoded when asked for (not started, or never to be).
    Inline(Box<Decoded>),
    /// Decoded by a thread into `frames`.
    Ahead {
        frames: Receiver<Item>,
        thread: Option<JoinHandle<()>>,
    },
    /// The end was handed over (or the thread is gone).
    Done,
}

impl Frames {
    /// `decoded`'s frames, decoded inline until [`Frames::start`], and then
    /// ahead on a thread when `ahead` (a regular file: see the module
    /// documentation); `path` names the input.
    pub(super) fn new(decoded: Decoded, ahead: bool, path: &Path) -> Self {
        let file = path.file_name().unwrap_or(path.as_os_str());
        // A thread's name holds no NUL byte.
        let file: String = file
            .to_string_lossy()
            .chars()
            .filter(|&c| c != '\0')
            .collect();
        Self {
            state: State::Inline(Box::new(decoded)),
            ahead,
            name: path.display().to_string(),
            thread_name: format!("vkssim-decode-{file}"),
        }
    }

    /// Moves decoding onto its own thread, once, when allowed. A thread that
    /// cannot be started leaves decoding inline.
    pub(super) fn start(&mut self) {
        if !self.ahead || !matches!(self.state, State::Inline(_)) {
            return;
        }
        self.ahead = false;
        // The state goes to the thread through `give` once it is running,
        // so that a failed spawn leaves it here.
        let (give, take) = crossbeam_channel::bounded::<Box<Decoded>>(1);
        let (sender, frames) = crossbeam_channel::bounded::<Item>(DEPTH);
        let spawned = std::thread::Builder::new()
            .name(self.thread_name.clone())
            .spawn(move || {
                let Ok(mut decoded) = take.recv() else {
                    return;
                };
                loop {
                    let item = decoded.next_frame();
                    let end = matches!(item, Ok(None));
                    // An error is sent (and decoding goes on, as inline); a
                    // closed queue means the reader is gone.
                    if sender.send(item).is_err() || end {
                        return;
                    }
                }
            });
        let thread = match spawned {
            Ok(thread) => thread,
            Err(e) => {
                tracing::debug!("{}: decoding inline, no thread: {e}", self.name);
                return;
            }
        };
        let State::Inline(decoded) = std::mem::replace(&mut self.state, State::Done) else {
            return;
        };
        match give.send(decoded) {
            Ok(()) => {
                self.state = State::Ahead {
                    frames,
                    thread: Some(thread),
                }
            }
            // The thread is gone before taking it (it cannot be, short of a
            // panic): decoding stays inline.
            Err(back) => {
                self.state = State::Inline(back.into_inner());
                let _ = thread.join();
            }
        }
    }

    /// The next frame, `None` at the end, or the error in its place (see
    /// [`Decoded::next_frame`]).
    pub(super) fn next_frame(&mut self) -> Result<Option<frame::Video>> {
        match &mut self.state {
            State::Inline(decoded) => decoded.next_frame(),
            State::Done => Ok(None),
            State::Ahead { frames, thread } => match frames.recv() {
                Ok(Ok(None)) => {
                    self.finish();
                    Ok(None)
                }
                Ok(item) => item,
                Err(RecvError) => {
                    // The thread left without handing over the end.
                    let joined = thread.take().map(JoinHandle::join);
                    self.state = State::Done;
                    let why = match joined {
                        Some(Err(panic)) => format!("panicked: {}", panic_text(&*panic)),
                        _ => "stopped before the end of the stream".to_string(),
                    };
                    Err(Error::Internal(format!(
                        "{}: the decoding thread {why}",
                        self.name
                    )))
                }
            },
        }
    }

    /// Closes the queue and joins the thread (see the module documentation).
    fn finish(&mut self) {
        if let State::Ahead { frames, thread } = std::mem::replace(&mut self.state, State::Done) {
            drop(frames);
            if let Some(thread) = thread {
                if thread.join().is_err() {
                    tracing::debug!("{}: the decoding thread panicked", self.name);
                }
            }
        }
    }
}

impl Drop for Frames {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A panic's message, when it is text.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}
