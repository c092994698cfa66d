//! `vkssim score`: opens both inputs, checks they can be compared, runs the
//! pipeline, and writes the scores (a file in libvmaf's format with `-o`, a
//! summary on standard output otherwise). On an error mid-run the frames scored
//! so far are still written, and the command then fails.

mod files;
mod ladder;
mod paths;
mod video;

pub(crate) use files::preflight_outputs;

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use vkssim::frame::PlaneGeometry;
use vkssim::io::{open_input_with, Chroma, LumaReader, RawFormat, VideoFormat};
use vkssim::{Error, FrameScore, SsimOptions};

use crate::args::ScoreArgs;
use crate::backend;
use crate::chrome_trace::TraceGuard;
use crate::feature::{metric_names, parse_features};
use crate::output::{Report, ScoredFrame};
use crate::pipeline::{self, nothing_to_score, Input, Selection, Tally};
use crate::progress::Progress;

/// What vkssim writes where libvmaf writes its version.
pub const VERSION: &str = concat!("vkssim ", env!("CARGO_PKG_VERSION"));

/// Runs `vkssim score`. A `--trace-chrome` that names an input is refused and
/// taken out of `trace`.
pub fn run(args: &ScoreArgs, trace: &mut Option<TraceGuard>) -> Result<ExitCode> {
    if !args.model.is_empty() {
        bail!("-m/--model: vkssim computes float_ssim only and runs no VMAF model; drop the model (or pass --no_prediction to vmaf-style scripts)");
    }
    if let Some(ctc) = &args.aom_ctc {
        bail!("--aom_ctc {ctc}: the AOM CTC presets need features vkssim does not compute; use --feature float_ssim=enable_db=true:clip_db=true for its SSIM part");
    }
    let options = parse_features(&args.feature)?;
    if ladder::wanted(args) {
        return ladder::run(args, options, trace);
    }
    // With FFmpeg and no Vulkan Video, .h264 is decoded as any encoded input.
    let gpu_h264 = cfg!(feature = "vulkan-video") || !cfg!(feature = "ffmpeg");
    if gpu_h264 && (video::is_h264(&args.reference) || video::is_h264(args.dist())) {
        return video::run(args, options, trace);
    }
    if args.reference == Path::new("-") && args.dist() == Path::new("-") {
        bail!("the reference and the distorted input cannot both be standard input (-)");
    }
    files::preflight(args, trace)?;
    if args.reference == Path::new("-") || args.dist() == Path::new("-") {
        if let Some(size) = crate::pipe_size::enlarge_stdin() {
            tracing::debug!(size, "standard input's pipe buffer raised");
        }
    }
    let raw = raw_format(args)?;
    // The readers' errors name the file (and frame); the context says which input.
    let decode = args.decode();
    let reference =
        open_input_with(&args.reference, raw, &decode).context("cannot read the reference")?;
    let decode = args.decode_distorted(reference.format())?;
    let distorted =
        open_input_with(args.dist(), raw, &decode).context("cannot read the distorted input")?;
    let (rf, df) = (reference.format(), distorted.format());
    check_geometry(&args.reference, rf, args.dist(), df)?;
    let sel = selection(args);
    let to_score = check_lengths(&*reference, &*distorted, &sel)?
        .or_else(|| crate::progress::estimate(&*reference, &*distorted, &sel));
    // A stream's skip and first frame are read before the engine takes memory
    // sized by the geometry (its header alone proves nothing).
    let (reference, distorted, sel) = pipeline::prime(reference, distorted, sel)?;
    // Reader threads fill the scorer's frame slots (crate::pipeline); regular
    // files, read by position on several threads, want more frames in flight.
    // Threads and frames in flight are sized per device (--device N,M / all).
    let (devices, read_threads) = backend::read_threads(&args.engine);
    let indexed = reference.frame_index().is_some() && distorted.frame_index().is_some();
    let readers = if indexed {
        read_threads.div_ceil(devices)
    } else {
        0
    };
    let mut engine = start_engine(&args.engine, options, rf, readers, args.quiet)?;

    let progress = Progress::new(args.quiet, to_score);
    let outcome = pipeline::run(
        Input::open("reference", reference, sel.skip_ref),
        Input::open("distorted", distorted, sel.skip_dist),
        sel,
        &mut engine.scorer,
        read_threads,
        &|n| progress.set_scored(n),
    );
    progress.finish();

    let fps = outcome.pairs_read as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
    let size = (rf.width, rf.height);
    let output = args.output.as_deref();
    let report = report(args, &options, size, fps, &outcome.frames);
    write_scores(output, args.format(), None, report, outcome.error)
}

/// The frames `args` select.
fn selection(args: &ScoreArgs) -> Selection {
    Selection {
        skip_ref: args.frame_skip_ref,
        skip_dist: args.frame_skip_dist,
        frame_cnt: args.frame_cnt,
        subsample: args.subsample,
        allow_length_mismatch: args.allow_length_mismatch,
    }
}

/// Starts the scoring engine for `format`'s frames, `readers` threads filling
/// each device's frame slots (0: no hint; see [`backend::start`]; `quiet`: no
/// notes).
fn start_engine(
    engine_args: &crate::args::EngineArgs,
    options: SsimOptions,
    format: VideoFormat,
    readers: usize,
    quiet: bool,
) -> Result<backend::Engine> {
    let size = (format.width, format.height, format.bit_depth);
    let engine = backend::start(engine_args, options, size, readers, quiet)?;
    tracing::info!(backend = %engine.description, "scoring");
    Ok(engine)
}

/// Refuses a distorted input whose geometry differs from the reference's.
fn check_geometry(
    reference: &Path,
    rf: VideoFormat,
    distorted: &Path,
    df: VideoFormat,
) -> Result<()> {
    let g = |f: VideoFormat| PlaneGeometry::new(f.width, f.height, f.bit_depth);
    g(rf).expect_same(
        &format!("reference {}", reference.display()),
        g(df),
        &format!("distorted {}", distorted.display()),
    )?;
    Ok(())
}

/// The report of a run that scored `frames` at `fps`.
fn report(
    args: &ScoreArgs,
    options: &SsimOptions,
    (width, height): (u32, u32),
    fps: f64,
    frames: &[(u64, FrameScore)],
) -> Report {
    Report {
        version: VERSION.to_string(),
        width,
        height,
        fps,
        subsample: args.subsample,
        metrics: metric_names(options),
        frames: frames
            .iter()
            .map(|(index, score)| ScoredFrame {
                index: *index,
                values: metric_values(score, options),
            })
            .collect(),
        precision: args.precision,
    }
}

/// Writes `report` (to `output` in `format`, or as a summary after
/// `heading`) and gives the exit status; with `error`, the frames scored
/// before it are kept as the module docs say and the error is returned.
fn write_scores(
    output: Option<&Path>,
    format: crate::output::Format,
    heading: Option<&str>,
    report: Report,
    error: Option<anyhow::Error>,
) -> Result<ExitCode> {
    let scored = report.frames.len();
    match (output, error) {
        (Some(path), error) => files::write_output(path, &report.render(format), scored, error),
        (None, None) => {
            let summary = report.summary();
            match heading {
                Some(h) => crate::stdio::print(&format!("{h}\n{summary}"))?,
                None => crate::stdio::print(&summary)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        (None, Some(e)) => {
            if scored > 0 {
                crate::stdio::note(format!(
                    "vkssim: {scored} frame{} scored before the error (not printed: pass -o to keep partial scores)",
                    if scored == 1 { " was" } else { "s were" }
                ));
            }
            Err(e)
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The values a frame reports, in [`metric_names`] order.
fn metric_values(score: &FrameScore, options: &SsimOptions) -> Vec<f64> {
    let mut v = vec![score.float_ssim()];
    if options.enable_lcs {
        // Present exactly with enable_lcs (FrameScore::l).
        v.extend(score.lcs().unwrap_or([f64::NAN; 3]));
    }
    v
}

/// The raw YUV layout from `-w -h -p -b`, `None` when none is given (Y4M input).
fn raw_format(args: &ScoreArgs) -> Result<Option<RawFormat>> {
    if args.width.is_none()
        && args.height.is_none()
        && args.pixel_format.is_none()
        && args.bitdepth.is_none()
    {
        return Ok(None);
    }
    let chroma = args
        .pixel_format
        .as_deref()
        .map(|p| p.parse::<Chroma>())
        .transpose()
        .context("-p/--pixel_format")?;
    Ok(Some(RawFormat {
        width: args.width,
        height: args.height,
        chroma,
        bit_depth: args.bitdepth,
    }))
}

/// When both inputs know their length up front (regular files), checks it now,
/// before any work: no pair to score is an error saying how many frames each
/// input has after its skip (with `--allow-length-mismatch` too), different
/// lengths [`Error::LengthMismatch`] unless `--allow-length-mismatch`. Returns
/// how many frames will be scored, when known (for the progress bar).
fn check_lengths(
    reference: &dyn LumaReader,
    distorted: &dyn LumaReader,
    sel: &Selection,
) -> Result<Option<u64>> {
    let avail = |r: &dyn LumaReader, skip: u64| {
        r.frame_count()
            .map(|n| n.saturating_sub(r.frames_read()).saturating_sub(skip))
    };
    let (Some(nr), Some(nd)) = (
        avail(reference, sel.skip_ref),
        avail(distorted, sel.skip_dist),
    ) else {
        return Ok(None);
    };
    let cap = if sel.frame_cnt == 0 {
        u64::MAX
    } else {
        sel.frame_cnt
    };
    let (pr, pd) = (nr.min(cap), nd.min(cap));
    let pairs = pr.min(pd);
    if pairs == 0 {
        return Err(nothing_to_score(
            &Tally::known(reference, sel.skip_ref),
            &Tally::known(distorted, sel.skip_dist),
        ));
    }
    if pr != pd && !sel.allow_length_mismatch {
        return Err(anyhow!(Error::LengthMismatch {
            reference: nr,
            distorted: nd,
            common: pairs,
        }));
    }
    let step = sel.subsample.max(1);
    Ok(Some(pairs.div_ceil(step)))
}
