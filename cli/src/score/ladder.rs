//! `vkssim score` with several `-d` (an encoding ladder: one reference, many
//! encodes). Each reference frame is read once ([`crate::pipeline::Tee`]) and
//! scored against every distorted input; each pair runs the one pipeline
//! ([`crate::pipeline::run`]) on its own scorer, so each input's output is
//! what `vkssim score -r REF -d THAT` writes (apart from the fps figure), with
//! the same errors: an input that cannot be scored (unreadable, another
//! geometry, another length) fails alone, its output written as `.partial` or
//! not at all as a single run would, and the others are scored; the exit
//! status is 1 when any failed. On a Vulkan device each reference frame is
//! uploaded once per device and every pair reads that one plane
//! ([`vkssim::api::SharedPlanes`]); on the CPU twin each pair copies it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{anyhow, bail, Context, Result};
use vkssim::io::{open_input, LumaReader};
use vkssim::SsimOptions;

use super::files::preflight_outputs;
use super::paths::check_distinct_streams;
use super::{check_geometry, check_lengths, raw_format, report, start_engine, write_scores};
use crate::args::ScoreArgs;
use crate::backend;
use crate::chrome_trace::TraceGuard;
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
    let lanes: Vec<Lane> = outputs(args)?
        .into_iter()
        .zip(&args.distorted)
        .map(|(output, path)| Lane {
            path: path.clone(),
            output,
        })
        .collect();
    let outs: Vec<&Path> = lanes.iter().filter_map(|l| l.output.as_deref()).collect();
    if let Some(dir) = &args.output_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--output-dir: cannot create {}", dir.display()))?;
    }
    preflight_outputs(&outs, &named, trace)?;
    if inputs.contains(&Path::new("-")) {
        if let Some(size) = crate::pipe_size::enlarge_stdin() {
            tracing::debug!(size, "standard input's pipe buffer raised");
        }
    }

    let raw = raw_format(args)?;
    let reference = open_input(&args.reference, raw).context("cannot read the reference")?;
    let rf = reference.format();
    let sel = super::selection(args);
    // Each input is opened and checked as a single run would; one that fails
    // fails alone.
    let mut failed = 0usize;
    let mut fail = |lane: &Lane, e: anyhow::Error| {
        failed += 1;
        crate::failure(&e.context(format!("scoring {}", lane.path.display())));
    };
    let mut total = Some(0u64);
    let mut ready = Vec::new();
    for lane in lanes {
        let checked = open_input(&lane.path, raw)
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
            Err(e) => fail(&lane, e),
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
            Err(e) => fail(&lane, e),
        }
    }
    if running.is_empty() {
        return Ok(ExitCode::FAILURE);
    }

    let (lanes, pairs): (Vec<Lane>, Vec<_>) = running.into_iter().unzip();
    let outcomes = score_all(args, options, reference, pairs, total)?;
    let size = (rf.width, rf.height);
    let several = args.distorted.len() > 1;
    for (lane, outcome) in lanes.iter().zip(outcomes) {
        let fps = outcome.pairs_read as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
        let report = report(args, &options, size, fps, &outcome.frames);
        let heading = several.then(|| format!("{}:", lane.path.display()));
        let written = write_scores(
            lane.output.as_deref(),
            args.format(),
            heading.as_deref(),
            report,
            outcome.error,
        );
        if let Err(e) = written {
            fail(lane, e);
        }
    }
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Starts one scorer per pair and runs the pairs at once, sharing the
/// reference; gives each pair's outcome, in order.
fn score_all(
    args: &ScoreArgs,
    options: SsimOptions,
    reference: Box<dyn LumaReader>,
    pairs: Vec<(Box<dyn LumaReader>, Selection)>,
    total: Option<u64>,
) -> Result<Vec<pipeline::Outcome>> {
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
            args.quiet || k > 0,
        )?);
    }
    // The reference's skip is done when it was read ahead (every pair's
    // selection then says 0).
    let skip_ref = pairs[0].1.skip_ref;
    let step = args.subsample.max(1);
    let window = 2 * pipeline::frames_in_flight_for(threads) + 8;
    let plane = rf.luma_bytes();
    // Every lane deals its pairs over the same devices in the same order, so
    // the first lane's devices stand for all.
    let pools = match &engines[0] {
        e if !e.on_cpu => backend::shared_planes(e, rf.width, rf.height, rf.bit_depth),
        _ => Vec::new(),
    };
    let first_device = engines[0].scorer.next_engine();
    let tee = Tee::new(
        Input::open("reference", reference, skip_ref),
        lanes,
        step,
        window,
        plane,
    )
    .with_shared_planes(pools, first_device);
    let progress = Progress::new(args.quiet, total);
    let scored: Vec<AtomicU64> = (0..lanes).map(|_| AtomicU64::new(0)).collect();
    let mut outcomes = Vec::with_capacity(lanes);
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
                    outcome
                })
            })
            .collect();
        for h in handles {
            outcomes.push(h.join().map_err(|_| anyhow!("a ladder lane panicked")));
        }
    });
    progress.finish();
    if tee.shares_planes() {
        tracing::info!(
            planes = tee.planes_made(),
            "each reference frame was uploaded once per device, into shared planes"
        );
    }
    outcomes.into_iter().collect()
}

/// Each distorted input's output: from `--output-dir`, from the `-o`
/// pattern, or none (a summary each). Refuses two inputs that would write one
/// file, naming both.
fn outputs(args: &ScoreArgs) -> Result<Vec<Option<PathBuf>>> {
    let stem = |p: &Path| -> String {
        if p == Path::new("-") {
            return "stdin".into();
        }
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".into())
    };
    let ext = match args.format() {
        Format::Xml => "xml",
        Format::Json => "json",
        Format::Csv => "csv",
        Format::Sub => "sub",
    };
    let outs: Vec<Option<PathBuf>> = match (&args.output_dir, &args.output) {
        (Some(dir), _) => args
            .distorted
            .iter()
            .map(|d| Some(dir.join(format!("{}.{ext}", stem(d)))))
            .collect(),
        (None, Some(pattern)) => {
            let pattern = pattern.to_string_lossy();
            if args.distorted.len() > 1
                && !pattern.contains("{name}")
                && !pattern.contains("{index}")
            {
                bail!("-o {pattern}: with several -d, -o is a pattern with {{name}} (the distorted file's stem) or {{index}} (its position among the -d), or use --output-dir");
            }
            args.distorted
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    let path = pattern
                        .replace("{name}", &stem(d))
                        .replace("{index}", &k.to_string());
                    Some(PathBuf::from(path))
                })
                .collect()
        }
        (None, None) => vec![None; args.distorted.len()],
    };
    for (a, oa) in outs.iter().enumerate() {
        for (b, ob) in outs.iter().enumerate().skip(a + 1) {
            if let (Some(oa), Some(ob)) = (oa, ob) {
                if oa == ob {
                    bail!(
                        "the distorted inputs {} and {} would both write {}: give them different file names, or use an -o pattern with {{index}}",
                        args.distorted[a].display(),
                        args.distorted[b].display(),
                        oa.display()
                    );
                }
            }
        }
    }
    Ok(outs)
}
