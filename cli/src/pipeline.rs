//! The scoring pipeline, one for every input (regular files, pipes, standard
//! input, the bench's frames in memory) and both backends: reader threads fill
//! the scorer's frame slots ([`vkssim::api::FrameSlots`]) straight from the
//! inputs ([`input`]: positional reads of files, reads of streams in order,
//! with no frame buffer in between), the main thread submits them in pair
//! order and collects the results in frame order.
//!
//! Frame selection is decided here once ([`Selection`], [`Plan`]): the skips,
//! `--frame_cnt`, `--subsample` and what an input ending early means.
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

mod collect;
mod input;
mod prime;
mod tee;
mod work;

pub use input::{read_error, Input};
pub use prime::{nothing_to_score, prime, prime_ladder, Tally};
pub use tee::Tee;

use std::time::Duration;

use anyhow::anyhow;
use vkssim::api::MultiScorer;
use vkssim::{Error, FrameScore};

/// Which frames to read from the inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// How messages name the skips (`--frame_skip_ref`, `frame_skip_ref`).
    pub spelling: crate::plan::Spelling,
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
}

/// The jobs of a run: job `j < scored` reads and scores pair `j * step`; with
/// `tail`, one more job checks that both inputs reach `positions` (the pairs
/// read past after the last scored one, which an input may lack).
#[derive(Debug, Clone, Copy)]
struct Plan {
    step: u64,
    /// Pair positions in all (`u64::MAX`: until an input ends).
    positions: u64,
    /// Jobs that score a pair.
    scored: u64,
    /// Whether a last job checks the positions after the last scored pair.
    tail: bool,
}

impl Plan {
    fn new(sel: &Selection, reference: &Input<'_>, distorted: &Input<'_>) -> Self {
        let step = sel.subsample.max(1);
        let mut positions = sel.limit();
        // Inputs whose lengths are known were checked by the caller: the run
        // covers the pairs both have.
        if let (Some(a), Some(b)) = (reference.known_len(), distorted.known_len()) {
            positions = positions.min(a).min(b);
        }
        let scored = if positions == u64::MAX {
            u64::MAX
        } else {
            positions.div_ceil(step)
        };
        let streams = reference.is_stream() || distorted.is_stream();
        let tail =
            streams && positions != u64::MAX && scored > 0 && (scored - 1) * step + 1 < positions;
        Self {
            step,
            positions,
            scored,
            tail,
        }
    }

    /// Jobs in all.
    fn jobs(&self) -> u64 {
        self.scored.saturating_add(self.tail as u64)
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
    /// Where the main thread's time went.
    pub main: MainTimes,
}

/// The submitting thread's time, by what it was doing (ns).
#[derive(Debug, Clone, Copy, Default)]
pub struct MainTimes {
    /// Taking slots (waits for the oldest frame when the ring is full).
    pub acquire_ns: u64,
    /// Waiting for a reader to finish a pair.
    pub read_wait_ns: u64,
    /// Submitting filled slots.
    pub submit_ns: u64,
    /// Collecting results (including the final drain).
    pub collect_ns: u64,
}

/// Default reader threads for `devices` devices: the cores less three (the
/// submitting thread and the engine's summing threads need some), from 2 to
/// 12 per device (each device has its own PCIe link to fill; two, so that two
/// streams written in step by one producer are read at once).
pub fn default_threads_for(devices: usize) -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .saturating_sub(3)
        .clamp(2, 12 * devices.max(1))
}

/// Scores `reference` against `distorted` with `scorer` as `sel` selects,
/// filling slots on `threads` reader threads; `on_score` sees the number of
/// frames scored so far (for progress), and an error it returns stops the run
/// there as a failed frame does (the frames scored before it are kept).
pub fn run(
    reference: Input<'_>,
    distorted: Input<'_>,
    sel: Selection,
    scorer: &mut MultiScorer,
    threads: usize,
    on_score: &dyn Fn(u64) -> anyhow::Result<()>,
) -> Outcome {
    let plan = Plan::new(&sel, &reference, &distorted);
    let start = std::time::Instant::now();
    let mut run = work::run(&reference, &distorted, plan, scorer, threads, on_score);
    // The length error counts the longer input on: its readers are done.
    if let Some(end) = run.mismatch.take() {
        if let Some(e) = length_mismatch(end, &reference, &distorted, sel) {
            run.out.fail(e);
        }
    }
    if run.pairs_read == 0 && run.out.error.is_none() {
        run.out.fail(anyhow!(Error::NoFrames(format!(
            "{} and {}",
            reference.path().display(),
            distorted.path().display()
        ))));
    }
    Outcome {
        frames: run.out.frames,
        pairs_read: run.pairs_read,
        elapsed: start.elapsed(),
        error: run.out.error,
        main: run.main,
    }
}

/// Where one input ended before the other: pair `common`, and which one.
#[derive(Debug, Clone, Copy)]
struct Mismatch {
    common: u64,
    reference_ended: bool,
}

/// The other input still had frames when one ended at pair `common`.
/// With `--allow-length-mismatch` that is the end of the run; otherwise it is
/// [`Error::LengthMismatch`] with both lengths (counting the rest of the
/// longer, up to the selection's limit), or, for a stream with no limit, an
/// error saying it has more frames (it is not read on: it may never end).
fn length_mismatch(
    end: Mismatch,
    reference: &Input<'_>,
    distorted: &Input<'_>,
    sel: Selection,
) -> Option<anyhow::Error> {
    if sel.allow_length_mismatch {
        return None;
    }
    let common = end.common;
    let (shorter, longer) = if end.reference_ended {
        (reference, distorted)
    } else {
        (distorted, reference)
    };
    if !longer.length_known() && sel.frame_cnt == 0 {
        let name = |f: &Input<'_>| match f.role {
            "reference" => format!("the reference {}", f.path().display()),
            _ => format!("the distorted input {}", f.path().display()),
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
    let rest = match longer.count_from(common, sel.limit()) {
        Ok(n) => n,
        Err(e) => return Some(read_error(e, longer.role, longer.path(), common)),
    };
    let (reference, distorted) = if end.reference_ended {
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
