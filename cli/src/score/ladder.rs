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

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};
use vkssim::io::{open_input_with, LumaReader};
use vkssim::SsimOptions;

use super::files::{preflight_outputs, shown};
use super::paths::check_distinct_streams;
use super::{check_geometry, check_lengths, raw_format, report, start_engine, write_scores};
use crate::args::ScoreArgs;
use crate::backend;
use crate::chrome_trace::TraceGuard;
use crate::output::target::check_planned;
use crate::output::Format;
use crate::pipeline::{self, prime_ladder, Input, Selection, Tee};
use crate::progress::Progress;

/// Whether `args` ask for a ladder: several `-d`, `--output-dir`, or an `-o`
/// pattern.
pub fn wanted(args: &ScoreArgs) -> bool {
    let pattern = args.output.as_deref().is_some_and(|o| {
        let o = o.to_string_lossy();
        o.contains("{name}") || o.contains("{index}")
    });
    args.distorted.len() > 1 || args.output_dir.is_some() || pattern
}

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

/// Runs the ladder (see the module documentation).
pub fn run(
    args: &ScoreArgs,
    options: SsimOptions,
    trace: &mut Option<TraceGuard>,
) -> Result<ExitCode> {
    let inputs: Vec<&Path> = std::iter::once(args.reference.as_path())
        .chain(args.distorted.iter().map(PathBuf::as_path))
        .collect();
    if inputs.iter().any(|p| super::video::is_h264(p)) {
        bail!("several -d (or --output-dir, or an -o pattern) take Y4M or raw YUV inputs; score .h264 inputs one pair at a time");
    }
    if inputs.iter().filter(|p| **p == Path::new("-")).count() > 1 {
        bail!("standard input (-) can be only one of the inputs");
    }
    let named: Vec<(&str, &Path)> = std::iter::once(("reference", inputs[0]))
        .chain(inputs[1..].iter().map(|p| ("distorted input", *p)))
        .collect();
    check_distinct_streams(&named)?;
    if let Some(dir) = &args.output_dir {
        check_output_dir(dir)?;
    }
    let lanes: Vec<Lane> = outputs(args)?
        .into_iter()
        .zip(&args.distorted)
        .map(|(output, path)| Lane {
            path: path.clone(),
            output,
        })
        .collect();
    let outs: Vec<(String, &Path)> = lanes
        .iter()
        .filter_map(|l| {
            let o = l.output.as_deref()?;
            Some((
                format!("the output of the distorted input {}", shown(&l.path)),
                o,
            ))
        })
        .collect();
    preflight_outputs(&outs, &named, args.output_dir.as_deref(), trace)?;
    if inputs.contains(&Path::new("-")) {
        if let Some(size) = crate::pipe_size::enlarge_stdin() {
            tracing::debug!(size, "standard input's pipe buffer raised");
        }
    }

    let raw = raw_format(args)?;
    let decode = args.decode();
    let reference =
        open_input_with(&args.reference, raw, &decode).context("cannot read the reference")?;
    let rf = reference.format();
    let decode = args.decode_distorted(rf)?;
    let sel = super::selection(args);
    // Each input is opened and checked as a single run would; one that fails
    // fails alone.
    let failures = Failures::default();
    let mut total = Some(0u64);
    let mut ready = Vec::new();
    for lane in lanes {
        let checked = open_input_with(&lane.path, raw, &decode)
            .context("cannot read the distorted input")
            .and_then(|d| {
                check_geometry(&args.reference, rf, &lane.path, d.format())?;
                let n = check_lengths(&*reference, &*d, &sel)?;
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
        prime_ladder(reference, readers, sel)?
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
    if let Some(dir) = &args.output_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--output-dir: cannot create {}", shown(dir)))?;
    }

    let (lanes, pairs): (Vec<Lane>, Vec<_>) = running.into_iter().unzip();
    let size = (rf.width, rf.height);
    let several = args.distorted.len() > 1;
    let summaries = InOrder::new(lanes.len());
    // Each input's output is written as soon as its lane ends, so a lane that
    // stalls (a pipe that stops) does not hold back the others' files.
    let finish = |k: usize, outcome: pipeline::Outcome| {
        let lane = &lanes[k];
        let fps = outcome.pairs_read as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
        let report = report(args, &options, size, fps, &outcome.frames);
        if lane.output.is_some() {
            let written = write_scores(
                lane.output.as_deref(),
                args.format(),
                None,
                report,
                outcome.error,
            );
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
                if let Err(e) = write_scores(None, args.format(), None, report, Some(e)) {
                    failures.report(&lane.path, e);
                }
                None
            }
        };
        summaries.done(k, summary, &failures);
    };
    score_all(args, options, reference, pairs, total, &finish)?;
    Ok(failures.status())
}

/// Checks `--output-dir DIR` before any work: a folder, or a path where one
/// can be created (it is created once there is something to score).
fn check_output_dir(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => bail!("--output-dir {}: it is a file, not a folder", shown(dir)),
        Err(_) => check_planned(&dir.join("x"))
            .with_context(|| format!("--output-dir {}: cannot create it", shown(dir))),
    }
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
    args: &ScoreArgs,
    options: SsimOptions,
    reference: Box<dyn LumaReader>,
    pairs: Vec<(Box<dyn LumaReader>, Selection)>,
    total: Option<u64>,
    finish: &(dyn Fn(usize, pipeline::Outcome) + Sync),
) -> Result<()> {
    let rf = reference.format();
    let lanes = pairs.len();
    let threads = backend::read_threads(&args.engine).1.div_ceil(lanes).max(1);
    let mut engines = Vec::with_capacity(lanes);
    for k in 0..lanes {
        // The engine's notes once, not once per pair.
        engines.push(start_engine(
            &args.engine,
            options,
            rf,
            0,
            args.quiet || k > 0,
        )?);
    }
    // The reference's skip is done when it was read ahead (every pair's
    // selection then says 0).
    let skip_ref = pairs[0].1.skip_ref;
    let step = args.subsample.max(1);
    let window = 2 * vkssim::api::in_flight::for_readers(threads) + 8;
    let plane = rf.luma_bytes();
    // Every lane deals its pairs over the same devices in the same order, so
    // the first lane's devices stand for all.
    let planes = backend::shared_planes(&engines[0]);
    let tee = Tee::new(
        Input::open("reference", reference, skip_ref),
        lanes,
        step,
        window,
        plane,
    )
    .with_shared_planes(planes);
    let progress = Progress::new(args.quiet, total);
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
                    };
                    let outcome = pipeline::run(
                        Input::tee(tee, k),
                        Input::open("distorted", d, sel.skip_dist),
                        sel,
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

/// Each distorted input's output: from `--output-dir`, from the `-o`
/// pattern, or none (a summary each). Two inputs that would write one file
/// (also through links) are refused by the preflight, naming both.
fn outputs(args: &ScoreArgs) -> Result<Vec<Option<PathBuf>>> {
    let ext = match args.format() {
        Format::Xml => "xml",
        Format::Json => "json",
        Format::Csv => "csv",
        Format::Sub => "sub",
    };
    Ok(match (&args.output_dir, &args.output) {
        (Some(dir), _) => args
            .distorted
            .iter()
            .map(|d| {
                let mut name = stem(d);
                name.push(".");
                name.push(ext);
                Some(dir.join(name))
            })
            .collect(),
        (None, Some(pattern)) => {
            let text = pattern.to_string_lossy();
            if args.distorted.len() > 1 && !text.contains("{name}") && !text.contains("{index}") {
                bail!("-o {text}: with several -d, -o is a pattern with {{name}} (the distorted file's stem) or {{index}} (its position among the -d), or use --output-dir");
            }
            args.distorted
                .iter()
                .enumerate()
                .map(|(k, d)| Some(fill_pattern(pattern.as_os_str(), &stem(d), k)))
                .collect()
        }
        (None, None) => vec![None; args.distorted.len()],
    })
}

/// The stem that names an input's output: its file stem (`stdin` for `-`).
fn stem(p: &Path) -> OsString {
    if p == Path::new("-") {
        return "stdin".into();
    }
    p.file_stem()
        .map(ToOwned::to_owned)
        .unwrap_or_else(|| "output".into())
}

/// `pattern` with `{name}` replaced by `name` and `{index}` by `index`, in
/// one pass (a name that contains `{index}` stays as it is), byte for byte
/// (a name that is not UTF-8 is kept). A result of `-` is the file `./-`,
/// never standard output.
fn fill_pattern(pattern: &OsStr, name: &OsStr, index: usize) -> PathBuf {
    let p = pattern.as_bytes();
    let mut out = Vec::with_capacity(p.len() + name.len());
    let mut i = 0;
    while i < p.len() {
        if p[i..].starts_with(b"{name}") {
            out.extend_from_slice(name.as_bytes());
            i += "{name}".len();
        } else if p[i..].starts_with(b"{index}") {
            out.extend_from_slice(index.to_string().as_bytes());
            i += "{index}".len();
        } else {
            out.push(p[i]);
            i += 1;
        }
    }
    if out == b"-" {
        return PathBuf::from("./-");
    }
    PathBuf::from(OsString::from_vec(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_is_filled_in_one_pass() {
        let fill = |p: &str, n: &str, k| fill_pattern(OsStr::new(p), OsStr::new(n), k);
        assert_eq!(
            fill("o/{name}_{index}.json", "a", 3),
            Path::new("o/a_3.json")
        );
        // A name with a placeholder in it is not substituted again.
        assert_eq!(fill("{name}-{index}", "{index}", 1), Path::new("{index}-1"));
        assert_eq!(fill("{index}{name}", "{name}", 0), Path::new("0{name}"));
        // A stem `-` never turns the output into standard output.
        assert_eq!(fill("{name}", "-", 0), Path::new("./-"));
        let odd = OsStr::from_bytes(b"a\xff");
        assert_eq!(
            fill_pattern(OsStr::new("{name}.csv"), odd, 0)
                .as_os_str()
                .as_bytes(),
            b"a\xff.csv"
        );
    }
}
