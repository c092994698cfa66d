//! The scoring pipeline: one reader thread per input sends luma planes through a
//! bounded channel, the main thread pairs them up and keeps the scorer's queue
//! full, and results are collected in frame order.
//!
//! Nothing scored is lost: a read or scoring error stops the run, and the frames
//! scored before it come back with the error ([`Outcome::error`]).
//!
//! When one input ends before the other, the other is counted to its end for
//! the length error only when that end is near: a regular file, or a stream
//! within `--frame_cnt`. A stream is not read on (it may never end: a pipe from
//! `/dev/zero`); the error says it has more frames.
//!
//! Streams are read ahead before the engine starts ([`prime`]).

mod prime;

pub use prime::{nothing_to_score, prime, Tally};

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use vkssim::io::LumaReader;
use vkssim::{Error, FrameScore, FrameScorer, LumaFrame};

use crate::progress::Progress;

/// Which frames to read from the inputs.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// Frames to skip at the start of the reference.
    pub skip_ref: u64,
    /// Frames to skip at the start of the distorted input.
    pub skip_dist: u64,
    /// Pairs to process at most (0: all).
    pub frame_cnt: u64,
    /// Score only pairs whose index is a multiple of this (0 or 1: all).
    pub subsample: u64,
    /// Score the common frames when the inputs differ in length.
    pub allow_length_mismatch: bool,
}

impl Selection {
    /// Pairs to process at most.
    fn limit(&self) -> u64 {
        if self.frame_cnt == 0 {
            u64::MAX
        } else {
            self.frame_cnt
        }
    }

    /// Whether pair `index` is scored (the others are read past).
    fn scores(&self, index: u64) -> bool {
        self.subsample <= 1 || index % self.subsample == 0
    }
}

/// What a run produced.
pub struct Outcome {
    /// Scored frames in order: (pair index, score).
    pub frames: Vec<(u64, FrameScore)>,
    /// Pairs read, scored or not (libvmaf's picture count, for fps).
    pub pairs_read: u64,
    /// Wall time from the first read to the last result.
    pub elapsed: Duration,
    /// The error that stopped the run early, if any.
    pub error: Option<anyhow::Error>,
}

/// What a reader thread sends for each frame position.
enum Msg {
    /// A luma plane to score.
    Frame(LumaFrame),
    /// A frame read past (not scored: `--subsample`).
    Skipped,
    /// The input ended cleanly.
    End,
    /// After a drain request: how many more frames the input held.
    Rest(u64),
    /// Reading failed.
    Failed(Error),
}

/// One input: its reader thread's channel and a way to ask it to count the rest.
struct Feed {
    role: &'static str,
    path: PathBuf,
    /// A stream (its length is not known without reading it to its end).
    stream: bool,
    rx: Receiver<Msg>,
    drain: Arc<AtomicBool>,
}

impl Feed {
    fn start(
        role: &'static str,
        mut reader: Box<dyn LumaReader>,
        skip: u64,
        sel: Selection,
        depth: usize,
    ) -> anyhow::Result<Self> {
        let (tx, rx) = sync_channel(depth.max(1));
        let drain = Arc::new(AtomicBool::new(false));
        let path = reader.path().to_path_buf();
        let stream = reader.frame_count().is_none();
        let flag = Arc::clone(&drain);
        // The thread ends when its input ends, fails, or the receiver is gone.
        thread::Builder::new()
            .name(format!("vkssim-read-{role}"))
            .spawn(move || read_loop(&mut *reader, skip, sel, &tx, &flag))
            .with_context(|| format!("starting the {role} reader thread"))?;
        Ok(Self {
            role,
            path,
            stream,
            rx,
            drain,
        })
    }

    fn recv(&self) -> Msg {
        // A reader thread that vanished without a word can only have panicked.
        self.rx.recv().unwrap_or_else(|_| {
            Msg::Failed(Error::Internal(format!(
                "the {} reader stopped unexpectedly",
                self.role
            )))
        })
    }

    /// Frames left in this input (beyond those already paired) up to the
    /// selection's limit: asks the reader to skip to there and counts what it
    /// sends.
    fn count_rest(&self) -> Result<u64, Error> {
        self.drain.store(true, Ordering::SeqCst);
        let mut n = 0;
        loop {
            match self.recv() {
                Msg::Frame(_) | Msg::Skipped => n += 1,
                Msg::Rest(k) => return Ok(n + k),
                Msg::End => return Ok(n),
                Msg::Failed(e) => return Err(e),
            }
        }
    }
}

/// A reader thread's body: skip, then send one message per frame position up to
/// the selection's limit.
fn read_loop(
    reader: &mut dyn LumaReader,
    skip: u64,
    sel: Selection,
    tx: &SyncSender<Msg>,
    drain: &AtomicBool,
) {
    let send = |m: Msg| tx.send(m).is_ok();
    match reader.skip(skip) {
        Ok(n) if n < skip => {
            send(Msg::End);
            return;
        }
        Ok(_) => {}
        Err(e) => {
            send(Msg::Failed(e));
            return;
        }
    }
    let limit = sel.limit();
    for index in 0..limit {
        if drain.load(Ordering::SeqCst) {
            send(match reader.skip(limit - index) {
                Ok(n) => Msg::Rest(n),
                Err(e) => Msg::Failed(e),
            });
            return;
        }
        let msg = if sel.scores(index) {
            match reader.read_frame() {
                Ok(Some(f)) => Msg::Frame(f),
                Ok(None) => Msg::End,
                Err(e) => Msg::Failed(e),
            }
        } else {
            match reader.skip(1) {
                Ok(1) => Msg::Skipped,
                Ok(_) => Msg::End,
                Err(e) => Msg::Failed(e),
            }
        };
        let last = matches!(msg, Msg::End | Msg::Failed(_));
        if !send(msg) || last {
            return;
        }
    }
    // At the selection's limit: nothing more is read. Saying so lets a drain
    // request (length check) end instead of finding the channel closed.
    send(Msg::Rest(0));
}

/// Scores `reference` against `distorted` with `scorer`, as `sel` selects.
pub fn run(
    reference: Box<dyn LumaReader>,
    distorted: Box<dyn LumaReader>,
    sel: Selection,
    scorer: &mut dyn FrameScorer,
    progress: &Progress,
) -> anyhow::Result<Outcome> {
    let depth = scorer.queue_depth().max(2);
    let start = Instant::now();
    let r = Feed::start("reference", reference, sel.skip_ref, sel, depth)?;
    let d = Feed::start("distorted", distorted, sel.skip_dist, sel, depth)?;

    let mut out = Collector::default();
    let mut index = 0u64;
    while index < sel.limit() {
        let (a, b) = (r.recv(), d.recv());
        match (a, b) {
            (Msg::Failed(e), _) => {
                out.fail(read_error(e, r.role, &r.path, index));
                break;
            }
            (_, Msg::Failed(e)) => {
                out.fail(read_error(e, d.role, &d.path, index));
                break;
            }
            (Msg::End, Msg::End) => break,
            (Msg::End, _) => {
                if let Some(e) = length_mismatch(index, &r, &d, true, sel) {
                    out.fail(e);
                }
                break;
            }
            (_, Msg::End) => {
                if let Some(e) = length_mismatch(index, &d, &r, false, sel) {
                    out.fail(e);
                }
                break;
            }
            (Msg::Frame(fa), Msg::Frame(fb)) => {
                if let Err(e) = scorer.submit(fa, fb) {
                    out.fail(anyhow!(e).context(format!("scoring frame {index}")));
                    break;
                }
                out.submitted.push_back(index);
            }
            (Msg::Skipped, Msg::Skipped) => {}
            _ => {
                out.fail(anyhow!(
                    "internal error: the readers fell out of step at frame {index}"
                ));
                break;
            }
        }
        index += 1;
        while let Some(res) = scorer.poll_next() {
            out.take(res, progress);
        }
        if out.error.is_some() {
            break;
        }
    }
    if index == 0 && out.error.is_none() {
        out.fail(anyhow!(Error::NoFrames(format!(
            "{} and {}",
            r.path.display(),
            d.path.display()
        ))));
    }
    // Everything in flight was read before any error: collect it.
    while let Some(res) = scorer.wait_next() {
        out.take(res, progress);
    }
    Ok(Outcome {
        frames: out.frames,
        pairs_read: index,
        elapsed: start.elapsed(),
        error: out.error,
    })
}

/// Results in submission order: scores are kept until the first failed frame
/// (so the kept frames never have a gap); the first error is remembered.
#[derive(Default)]
struct Collector {
    /// Indices submitted whose result has not come back.
    submitted: VecDeque<u64>,
    /// Scores kept, in order.
    frames: Vec<(u64, FrameScore)>,
    /// A frame failed: later scores are dropped.
    broken: bool,
    /// The first error of the run.
    error: Option<anyhow::Error>,
}

impl Collector {
    /// Records the run's error (the first one wins).
    fn fail(&mut self, e: anyhow::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Records the next result.
    fn take(&mut self, res: vkssim::Result<FrameScore>, progress: &Progress) {
        let index = self.submitted.pop_front().unwrap_or(u64::MAX);
        match res {
            Ok(s) if !self.broken => {
                self.frames.push((index, s));
                progress.set_scored(self.frames.len() as u64);
            }
            Ok(_) => {}
            Err(e) => {
                self.broken = true;
                self.fail(anyhow!(e).context(format!("scoring frame {index}")));
            }
        }
    }
}

/// The error for a failed read of the `role` input at `path`, naming the input
/// (the reader's own message names the file and the frame within it) and,
/// when frames were skipped, the pair index.
fn read_error(e: Error, role: &str, path: &Path, index: u64) -> anyhow::Error {
    let names_file = e.to_string().contains(&*path.to_string_lossy());
    let what = if names_file {
        format!("reading the {role}")
    } else {
        format!("reading the {role} {}", path.display())
    };
    anyhow!(e).context(format!("{what} (pair {index})"))
}

/// The other input (`longer`) still had frames when `shorter` ended at pair
/// `common`.
/// With `--allow-length-mismatch` that is the end of the run; otherwise it is
/// [`Error::LengthMismatch`] with both lengths (counting the rest of `longer`,
/// up to the selection's limit), or, for a stream with no limit, an error
/// saying it has more frames (it is not read on: it may never end).
fn length_mismatch(
    common: u64,
    shorter: &Feed,
    longer: &Feed,
    reference_ended: bool,
    sel: Selection,
) -> Option<anyhow::Error> {
    if sel.allow_length_mismatch {
        return None;
    }
    if longer.stream && sel.frame_cnt == 0 {
        let name = |f: &Feed| match f.role {
            "reference" => format!("the reference {}", f.path.display()),
            _ => format!("the distorted input {}", f.path.display()),
        };
        return Some(anyhow!(
            "{} has {} but {} has more than {common} (at least {}; it is a stream, so it \
             was not read to its end); pass --allow-length-mismatch to score the {}",
            name(shorter),
            prime::frames(common),
            name(longer),
            common + 1,
            prime::frames(common).replace(" frame", " common frame"),
        ));
    }
    // The pair already received from the longer input counts too.
    let rest = match longer.count_rest() {
        Ok(n) => n + 1,
        Err(e) => return Some(read_error(e, longer.role, &longer.path, common)),
    };
    let (reference, distorted) = if reference_ended {
        (common, common + rest)
    } else {
        (common + rest, common)
    };
    Some(anyhow!(Error::LengthMismatch {
        reference,
        distorted,
        common,
    }))
}
