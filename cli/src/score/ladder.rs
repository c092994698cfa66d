//! `vkssim score` with several `-d` (an encoding ladder: one reference, many
//! encodes). Each reference frame is read once ([`crate::pipeline::Tee`]) and
//! scored against every distorted input; each pair runs the one pipeline
//! ([`crate::pipeline::run`]) on its own scorer, so each input's output is
//! what `vkssim score -r REF -d THAT` writes (apart from the fps figure), with
//! the same errors: an input that cannot be scored (unreadable, another
//! geometry, another length) fails alone, its output written as `.partial` or
//! not at all as a single run would, and the others are scored; the exit
//! status is 1 when any failed (141 when a write found a pipe with no reader).
//! Each input's output is written as soon as its pair ends, so the finished
//! ones survive a run that is killed while another input stalls; summaries
//! are printed in input order. On a Vulkan device each reference frame is
//! uploaded once per device and every pair reads that one plane
//! ([`vkssim::api::SharedPlanes`]); on the CPU twin each pair copies it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{anyhow, Context, Result};
use vkssim::io::LumaReader;

use super::files::shown;
use super::open::{self, check_geometry, check_lengths, start_engine};
use super::report::{report, write_scores};
use super::y4m_mono::as_vmaf_reads;
use crate::backend;
use crate::pipeline::{self, prime_ladder, Input, Selection, Tee};
use crate::plan::ScorePlan;
use crate::progress::Progress;

/// One distorted input on its way through the run.
struct Lane {
    /// Its path, for messages.
    path: PathBuf,
    /// Its output, if any.
    output: Option<PathBuf>,
}

/// The inputs that failed, reported as they fail (from any lane's thread).
#[derive(Default)]
struct Failures {
    count: AtomicUsize,
    /// Whether a failure was a write to a pipe whose reader went away.
    broken_pipe: AtomicBool,
}

impl Failures {
    /// Reports that `path` could not be scored or its scores written.
    fn report(&self, path: &Path, e: anyhow::Error) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let e = e.context(format!("scoring {}", path.display()));
        if crate::is_broken_pipe(&e) {
            self.broken_pipe.store(true, Ordering::Relaxed);
        }
        crate::failure(&e);
    }

    /// The run's exit status: 141 after a broken pipe (as a program killed by
    /// SIGPIPE), 1 after any other failure.
    fn status(&self) -> ExitCode {
        if self.broken_pipe.load(Ordering::Relaxed) {
            ExitCode::from(crate::stdio::BROKEN_PIPE_STATUS)
        } else if self.count.load(Ordering::Relaxed) > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// Runs the ladder of `plan` (its preflight made; see the module
/// documentation).
pub fn run(plan: &ScorePlan) -> Result<ExitCode> {
    let lanes: Vec<Lane> = plan
        .outputs
        .targets
        .iter()
        .zip(&plan.inputs.distorted)
        .map(|(output, path)| Lane {
            path: path.clone(),
            output: output.clone(),
        })
        .collect();
    let inputs = &plan.inputs;
    let reference = as_vmaf_reads(open::reference(inputs)?, &plan.features);
    let rf = reference.format();
    let metrics = open::metric_set(&plan.features, rf, reference.is_y4m())?;
    let sel = plan.selection;
    // Each input is opened and checked as a single run would; one that fails
    // fails alone.
    let failures = Failures::default();
    let mut total = Some(0u64);
    let mut ready = Vec::new();
    for (k, lane) in lanes.into_iter().enumerate() {
        let opened = open::distorted(inputs, k, rf);
        let checked = opened
            .map(|d| as_vmaf_reads(d, &plan.features))
            .and_then(|d| {
                let opened = [
                    (inputs.reference.as_path(), rf),
                    (lane.path.as_path(), d.format()),
                ];
                super::raw_flags::check_used(inputs.raw(), &opened, plan.spelling)?;
                check_geometry(&inputs.reference, rf, &*d)?;
                open::check_chroma(
                    &plan.features,
                    &inputs.reference,
                    rf,
                    &lane.path,
                    d.format(),
                )?;
                if d.is_y4m() {
                    open::metric_set(&plan.features, d.format(), true)?;
                }
                open::note_ranges(plan.quiet, &*reference, &*d);
                let n = check_lengths(&*reference, &*d, &sel)?
                    .or_else(|| crate::progress::estimate(&*reference, &*d, &sel));
                Ok((d, n))
            });
        match checked {
            Ok((d, n)) => {
                total = total.zip(n).map(|(a, b)| a + b);
                ready.push((lane, d));
            }
            Err(e) => failures.report(&lane.path, e),
        }
    }
    let (lanes, readers): (Vec<Lane>, Vec<Box<dyn LumaReader>>) = ready.into_iter().unzip();
    let (reference, primed) = if readers.is_empty() {
        (reference, Vec::new())
    } else {
        prime_ladder(reference, readers, sel, metrics.needs_chroma())?
    };
    let mut running = Vec::new();
    for (lane, primed) in lanes.into_iter().zip(primed) {
        match primed {
            Ok(p) => running.push((lane, p)),
            Err(e) => failures.report(&lane.path, e),
        }
    }
    if running.is_empty() {
        return Ok(failures.status());
    }
    // Created only now that there is something to score (a run refused
    // before any work leaves no folder behind).
    if let Some(dir) = &plan.outputs.dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--output-dir: cannot create {}", shown(dir)))?;
    }

    let (lanes, pairs): (Vec<Lane>, Vec<_>) = running.into_iter().unzip();
    let size = (rf.width, rf.height);
    let several = inputs.distorted.len() > 1;
    let format = plan.outputs.format;
    let summaries = InOrder::new(lanes.len());
    // Each input's output is written as soon as its lane ends, so a lane that
    // stalls (a pipe that stops) does not hold back the others' files.
    let finish = |k: usize, outcome: pipeline::Outcome| {
        let lane = &lanes[k];
        let fps = outcome.pairs_read as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
        let report = match report(plan, &metrics, size, fps, &outcome.frames) {
            Ok(report) => report,
            Err(e) => {
                failures.report(&lane.path, e);
                summaries.done(k, None, &failures);
                return;
            }
        };
        if lane.output.is_some() {
            let written = write_scores(lane.output.as_deref(), format, report, outcome.error);
            if let Err(e) = written {
                failures.report(&lane.path, e);
            }
            summaries.done(k, None, &failures);
            return;
        }
        let summary = match outcome.error {
            None => {
                let heading = several.then(|| format!("{}:\n", lane.path.display()));
                Some((
                    lane.path.as_path(),
                    format!("{}{}", heading.unwrap_or_default(), report.summary()),
                ))
            }
            Some(e) => {
                if let Err(e) = write_scores(None, format, report, Some(e)) {
                    failures.report(&lane.path, e);
                }
                None
            }
        };
        summaries.done(k, summary, &failures);
    };
    score_all(plan, &metrics, reference, pairs, total, &finish)?;
    Ok(failures.status())
}

/// The summaries of the lanes, printed in input order as soon as every lane
/// before has ended (a lane that writes a file, or fails, prints nothing).
struct InOrder<'p> {
    /// The next lane to print, and each lane's summary once it ended.
    state: Mutex<(usize, Vec<Option<Summary<'p>>>)>,
}

/// What an ended lane prints: its input and its summary, or nothing.
type Summary<'p> = Option<(&'p Path, String)>;

impl<'p> InOrder<'p> {
    fn new(lanes: usize) -> Self {
        Self {
            state: Mutex::new((0, (0..lanes).map(|_| None).collect())),
        }
    }

    /// Lane `k` ended with `summary` to print: prints every summary that is
    /// now next in order.
    fn done(&self, k: usize, summary: Summary<'p>, failures: &Failures) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (next, slots) = &mut *state;
        slots[k] = Some(summary);
        while let Some(Some(slot)) = slots.get_mut(*next) {
            if let Some((path, text)) = slot.take() {
                if let Err(e) = crate::stdio::print(&text) {
                    failures.report(path, e.into());
                }
            }
            *next += 1;
        }
    }
}

/// Starts one scorer per pair and runs the pairs at once, sharing the
/// reference; hands each pair's outcome to `finish` (with its position) on
/// its lane's thread as soon as that pair ends.
fn score_all(
    plan: &ScorePlan,
    metrics: &vkssim::metric::MetricSet,
    reference: Box<dyn LumaReader>,
    pairs: Vec<(Box<dyn LumaReader>, Selection)>,
    total: Option<u64>,
    finish: &(dyn Fn(usize, pipeline::Outcome) + Sync),
) -> Result<()> {
    let rf = reference.format();
    let lanes = pairs.len();
    let threads = backend::read_threads(&plan.backend)
        .1
        .div_ceil(lanes)
        .max(1);
    let mut engines = Vec::with_capacity(lanes);
    for k in 0..lanes {
        // The engine's notes once, not once per pair.
        engines.push(start_engine(
            &plan.backend,
            metrics,
            rf,
            0,
            plan.quiet || k > 0,
        )?);
    }
    // The reference's skip is done when it was read ahead (every pair's
    // selection then says 0).
    let skip_ref = pairs[0].1.skip_ref;
    let step = open::run_selection(plan.selection, metrics)
        .subsample
        .max(1);
    let window = 2 * vkssim::api::in_flight::for_readers(threads) + 8;
    let chroma = metrics.needs_chroma();
    let plane = if chroma {
        rf.planes_bytes()
    } else {
        rf.luma_bytes()
    };
    // Every lane deals its pairs over the same devices in the same order, so
    // the first lane's devices stand for all.
    let planes = backend::shared_planes(&engines[0]);
    let tee = Tee::new(
        Input::open("reference", reference, skip_ref).with_chroma(chroma),
        lanes,
        step,
        window,
        plane,
    )
    .with_shared_planes(planes);
    let progress = Progress::new(plan.quiet, total);
    let scored: Vec<AtomicU64> = (0..lanes).map(|_| AtomicU64::new(0)).collect();
    let mut joined = Vec::with_capacity(lanes);
    std::thread::scope(|s| {
        let handles: Vec<_> = pairs
            .into_iter()
            .zip(engines.iter_mut())
            .enumerate()
            .map(|(k, ((d, sel), engine))| {
                let (tee, scored, progress) = (&tee, &scored, &progress);
                s.spawn(move || {
                    let on_score = |n: u64| {
                        scored[k].store(n, Ordering::Relaxed);
                        progress.set_scored(scored.iter().map(|a| a.load(Ordering::Relaxed)).sum());
                        Ok(())
                    };
                    let outcome = pipeline::run(
                        Input::tee(tee, k),
                        Input::open("distorted", d, sel.skip_dist).with_chroma(chroma),
                        open::run_selection(sel, metrics),
                        &mut engine.scorer,
                        threads,
                        &on_score,
                    );
                    tee.leave(k);
                    finish(k, outcome);
                })
            })
            .collect();
        for h in handles {
            joined.push(h.join().map_err(|_| anyhow!("a ladder lane panicked")));
        }
    });
    progress.finish();
    if tee.shares_planes() {
        tracing::info!(
            planes = tee.planes_made(),
            "each reference frame was uploaded once per device, into shared planes"
        );
    }
    joined.into_iter().collect()
}
