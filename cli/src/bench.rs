//! `vkssim bench`: times the scorer, by default on a deterministic pair of
//! generated frames (3840x2160 8-bit) held in memory, or with `-r/-d` on real
//! files read through the real reader path (every repetition reads them again).
//!
//! Method (the seed note's): on a warm engine, t(k) is the wall time to score k
//! pairs including reading, upload, compute and read-back; time per frame is
//! `(t(N) - t(2)) / (N - 2)`, which cancels the pipeline's fill and drain; the
//! median of `--repeat` repetitions is reported. Both backends are fed by
//! the scoring pipeline ([`crate::pipeline`]: several threads writing straight
//! into the scorer's frame slots); the CPU backend is timed on the same pairs
//! unless `--no-cpu`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use vkssim::api::MultiScorer;
use vkssim::frame::PlaneGeometry;
use vkssim::io::{open_input, Chroma, FrameIndex, RawFormat, VideoFormat};
use vkssim::metric::{MetricSet, Models, Summary};
use vkssim::{FrameScore, LumaFrame};

use crate::args::BenchArgs;
use crate::backend::{self, Engine};
use crate::chrome_trace::TraceGuard;
use crate::feature::Features;
use crate::pipeline::{self, Input as PipelineInput, MainTimes, Selection};
use crate::plan::{BackendPlan, Spelling};
use crate::stdio;

mod generate;
mod ladder;
mod report;

use generate::{try_generate_pair, write_yuv};

/// The frames a bench scores.
enum Input {
    /// The generated pair, in memory.
    Generated(LumaFrame, LumaFrame),
    /// Two regular files.
    Files {
        reference: FrameIndex,
        distorted: FrameIndex,
    },
}

impl Input {
    /// The pipeline's inputs: the generated pair at every position, or the
    /// files read again from their start when shorter than the run; with
    /// `chroma`, each read takes the chroma planes too (a generated frame
    /// then holds them after its luma: [`with_chroma_planes`]).
    fn inputs(&self, chroma: bool) -> (PipelineInput<'_>, PipelineInput<'_>) {
        let (r, d) = match self {
            Input::Generated(r, d) => (
                PipelineInput::memory("reference", "generated", &r.bytes),
                PipelineInput::memory("distorted", "generated", &d.bytes),
            ),
            Input::Files {
                reference,
                distorted,
            } => (
                PipelineInput::wrapping("reference", reference.clone()),
                PipelineInput::wrapping("distorted", distorted.clone()),
            ),
        };
        (r.with_chroma(chroma), d.with_chroma(chroma))
    }

    /// The frames' layout: the files', or the generated pair's with `chroma`.
    fn format(&self, chroma: Chroma) -> VideoFormat {
        match self {
            Input::Generated(r, _) => VideoFormat {
                width: r.width,
                height: r.height,
                bit_depth: r.bit_depth,
                chroma,
            },
            Input::Files { reference, .. } => reference.format(),
        }
    }
}

/// A generated luma plane followed by two chroma planes of `chroma`'s size,
/// filled from the start of the luma plane (samples in range, content that
/// differs between the pair as the luma does).
fn with_chroma_planes(mut frame: LumaFrame, chroma: Chroma) -> LumaFrame {
    let f = VideoFormat {
        width: frame.width,
        height: frame.height,
        bit_depth: frame.bit_depth,
        chroma,
    };
    let plane = f.chroma_plane_bytes();
    let luma = frame.bytes.len();
    for _ in 0..2 {
        let n = plane.min(luma);
        frame.bytes.extend_from_within(..n);
        frame.bytes.resize(frame.bytes.len() + plane - n, 0);
    }
    frame
}

/// The metrics as `--feature` gives them, space-separated.
fn feature_list(metrics: &MetricSet) -> String {
    metrics
        .configs()
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether two runs reported the same values, bit for bit (NaN included).
fn same_scores(a: &[FrameScore], b: &[FrameScore]) -> bool {
    let bits = |s: &FrameScore| -> Vec<(String, u64)> {
        s.iter()
            .map(|(n, v)| (n.to_string(), v.to_bits()))
            .collect()
    };
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| bits(x) == bits(y))
}

/// One timed repetition: t(N), t(2) and the time per frame.
#[derive(Debug, Clone, Copy)]
struct Rep {
    t_n: Duration,
    t_2: Duration,
    per_frame: f64,
}

/// The timings of one backend.
struct Timing {
    reps: Vec<Rep>,
    /// Median time per frame, seconds.
    median: f64,
    /// Scores of the N pairs of the first timed run.
    scores: Vec<FrameScore>,
    /// Vulkan: where the time of the first timed t(N) run went.
    breakdown: Option<(MainTimes, vkssim::vk::HostStats, Duration)>,
    /// Vulkan with timestamps: each pass's and metric stage's mean GPU time
    /// per frame over the first timed t(N) run, on the first device (name,
    /// ns).
    pass_means: Option<Vec<(String, f64)>>,
}

/// Runs `vkssim bench` (`trace`: the `--trace-chrome` being collected, which
/// `--write-yuv` must not write over).
pub fn run(args: &BenchArgs, trace: &mut Option<TraceGuard>) -> Result<()> {
    // As in score, -n/--no_prediction runs no model.
    let models: &[String] = if args.no_prediction { &[] } else { &args.model };
    let features =
        Features::parse_with_motion(&args.feature, models, Spelling::Flags, args.motion_version)?;
    let chroma: Chroma = args.pixel_format.parse().context("-p/--pixel_format")?;
    // The limits `score` applies to its inputs' geometry.
    VideoFormat::new(args.width, args.height, args.bitdepth, chroma).context("-w/-h/-b/-p")?;
    if let Some(prefix) = &args.write_yuv {
        return write_yuv(args, chroma, prefix, trace);
    }
    let (input, metrics) = open_for(args, &features, chroma)?;
    if let Some(k) = args.ladder {
        return ladder::run(args, k as usize, &input, &metrics);
    }
    let report = measure(args, &input, &metrics, &features.models()?)?;
    let text = if args.json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&report::json(&report))?
        )
    } else {
        report::text(&report)?
    };
    stdio::print(&text)?;
    Ok(())
}

/// The input (with the chroma planes its metrics read, for a generated
/// pair) and the metrics checked against its frames.
fn open_for(args: &BenchArgs, features: &Features, chroma: Chroma) -> Result<(Input, MetricSet)> {
    let mut input = open(args)?;
    let f = input.format(chroma);
    let metrics = MetricSet::new(
        features.configs(),
        f.width,
        f.height,
        f.bit_depth,
        Some(f.chroma),
    )
    .context("cannot bench these frames")?;
    if let (Input::Generated(r, d), true) = (&mut input, metrics.needs_chroma()) {
        let take = |f: &mut LumaFrame| std::mem::replace(f, LumaFrame::zeroed(0, 0, 8));
        *r = with_chroma_planes(take(r), chroma);
        *d = with_chroma_planes(take(d), chroma);
    }
    Ok((input, metrics))
}

/// The input's width, height and bit depth, and its description.
fn describe(input: &Input) -> ((u32, u32, u32), String) {
    match input {
        Input::Generated(r, _) => (
            (r.width, r.height, r.bit_depth),
            "generated in memory".to_string(),
        ),
        Input::Files {
            reference,
            distorted,
        } => {
            let f = reference.format();
            let name = format!(
                "files {} ({}) and {} ({}), {}",
                reference.path().display(),
                vkssim::words::count(reference.len(), "frame"),
                distorted.path().display(),
                vkssim::words::count(distorted.len(), "frame"),
                f
            );
            ((f.width, f.height, f.bit_depth), name)
        }
    }
}

/// The name and the per-frame values of what a bench reports the mean of:
/// the first model's score, or without a model the first output, from a
/// run's collector (so motion's `integer_motion2` is filled).
fn first_values(
    metrics: &MetricSet,
    models: &Models,
    scores: &[FrameScore],
) -> Result<(String, Vec<f64>)> {
    let mut summary = Summary::with_models(metrics, models);
    scores.iter().for_each(|s| summary.add(s));
    let name = match models.output_names().into_iter().next() {
        Some(model) => model,
        None => metrics.output_names()[0].to_string(),
    };
    let values = summary
        .columns()?
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_default();
    Ok((name, values))
}

/// Times the backend `args` asks for, then (unless it is the CPU twin or
/// `--no-cpu`) the CPU twin on the same frames, which must give the same
/// scores; `models` predict on the timed backend's first run.
fn measure(
    args: &BenchArgs,
    input: &Input,
    metrics: &MetricSet,
    models: &Models,
) -> Result<report::Report> {
    let (size, input_name) = describe(input);
    let geometry = metrics
        .ssim()
        .map(|o| vkssim::testing::cpu::check_geometry(size.0, size.1, size.2, &o))
        .transpose()?;
    // Threads and frames in flight are sized per device (--device N,M / all).
    let engine = BackendPlan::resolve(&args.engine, Spelling::Flags)?;
    let (devices, read_threads) = backend::read_threads(&engine);
    let readers = read_threads.div_ceil(devices);
    let with_chroma = metrics.needs_chroma();
    let timed = |scorer: &mut MultiScorer| {
        time(
            scorer,
            input,
            with_chroma,
            args.frames,
            args.repeat,
            read_threads,
        )
    };
    let Engine {
        mut scorer,
        description,
        on_cpu,
        ..
    } = backend::start(&engine, metrics, size, readers, false)?;
    let main = timed(&mut scorer)?;
    let devices_used = scorer.devices().to_vec();
    let vk_info = scorer.scorers()[0].diagnostics().map(report::VkInfo::from);
    drop(scorer);
    // Timed against the CPU twin unless that is what was just timed.
    let cpu = if args.no_cpu || on_cpu {
        None
    } else {
        let Engine {
            mut scorer,
            description,
            ..
        } = backend::start(&engine.on_cpu()?, metrics, size, readers, true)?;
        Some((description, timed(&mut scorer)?))
    };
    let identical = cpu
        .as_ref()
        .map(|(_, t)| same_scores(&t.scores, &main.scores));
    if identical == Some(false) {
        bail!("the CPU backend and {description} gave different scores for the same frames");
    }
    Ok(report::Report {
        frames: args.frames,
        repeat: args.repeat,
        description,
        input_name,
        size,
        feature_list: feature_list(metrics),
        first: first_values(metrics, models, &main.scores)?,
        geometry,
        notes: metrics.frame_notes(),
        read_threads,
        devices: devices_used,
        main,
        vk_info,
        cpu,
        identical,
    })
}

/// A median time per frame, in seconds, when it was measured: `None` when
/// t(N) - t(2) was not above zero (a run too short for the clock), so that no
/// rate is divided out of a zero.
pub(crate) fn measured(per_frame: f64) -> Option<f64> {
    (per_frame.is_finite() && per_frame > 0.0).then_some(per_frame)
}

/// The input: the generated pair, or the two files through the readers.
fn open(args: &BenchArgs) -> Result<Input> {
    let (Some(r), Some(d)) = (&args.reference, &args.distorted) else {
        let (r, d) = try_generate_pair(args.width, args.height, args.bitdepth)?;
        return Ok(Input::Generated(r, d));
    };
    let index = |path: &PathBuf, role: &str| -> Result<FrameIndex> {
        let raw = if is_y4m(path) {
            None
        } else {
            let chroma: Chroma = args.pixel_format.parse().context("-p/--pixel_format")?;
            Some(RawFormat::new(
                args.width,
                args.height,
                chroma,
                args.bitdepth,
            ))
        };
        let reader = open_input(path, raw).with_context(|| format!("cannot read the {role}"))?;
        let index = reader.frame_index().with_context(|| {
            format!(
                "the {role} {} is not a regular Y4M or raw YUV file; vkssim bench reads \
                 files by position (decode an encoded input to .y4m first)",
                path.display()
            )
        })?;
        if index.is_empty() {
            bail!(vkssim::Error::NoFrames(path.display().to_string()));
        }
        Ok(index)
    };
    let reference = index(r, "reference")?;
    let distorted = index(d, "distorted input")?;
    let g = |f: VideoFormat| PlaneGeometry::new(f.width, f.height, f.bit_depth);
    g(reference.format()).expect_same(
        &format!("the reference {}", r.display()),
        g(distorted.format()),
        &format!("the distorted input {}", d.display()),
    )?;
    Ok(Input::Files {
        reference,
        distorted,
    })
}

fn is_y4m(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("y4m"))
}

/// Times `scorer` on the first `n` pairs of `input` through the scoring
/// pipeline (`repeat` times t(N) and t(2), after a warm-up run).
fn time(
    scorer: &mut MultiScorer,
    input: &Input,
    chroma: bool,
    n: u64,
    repeat: u64,
    threads: usize,
) -> Result<Timing> {
    let run =
        |scorer: &mut MultiScorer, k: u64| -> Result<(Duration, Vec<FrameScore>, MainTimes)> {
            let (reference, distorted) = input.inputs(chroma);
            let sel = Selection {
                skip_ref: 0,
                skip_dist: 0,
                frame_cnt: k,
                subsample: 1,
                allow_length_mismatch: false,
                spelling: Spelling::Flags,
            };
            let t0 = Instant::now();
            let out = pipeline::run(reference, distorted, sel, scorer, threads, &|_| Ok(()));
            let elapsed = t0.elapsed();
            if let Some(e) = out.error {
                return Err(e.context("scoring in vkssim bench"));
            }
            let scores = out.frames.into_iter().map(|(_, s)| s).collect();
            Ok((elapsed, scores, out.main))
        };
    run(scorer, n)?; // warm-up
    let mut reps = Vec::new();
    let mut scores = Vec::new();
    let mut breakdown = None;
    let mut pass_means = None;
    for _ in 0..repeat {
        scorer
            .scorers_mut()
            .iter_mut()
            .for_each(|s| s.reset_stats());
        // The warm-up's (or the last t(2)'s) pass times are dropped.
        let _ = scorer.scorers_mut()[0].take_gpu_pass_ns();
        let (t_n, s, main) = run(scorer, n)?;
        if let Some(d) = scorer.scorers()[0].diagnostics() {
            breakdown.get_or_insert((main, d.host, t_n));
        }
        if pass_means.is_none() {
            pass_means = scorer.scorers_mut()[0].take_gpu_pass_ns();
        }
        let (t_2, _, _) = run(scorer, 2)?;
        if scores.is_empty() {
            scores = s;
        } else if !same_scores(&scores, &s) {
            bail!("the scorer gave different scores for the same frames in two runs");
        }
        reps.push(rep(t_n, t_2, n));
    }
    let mut t = timing(reps, scores);
    t.breakdown = breakdown;
    t.pass_means = pass_means;
    Ok(t)
}

/// Times any backend through [`FrameScorer::submit`], with frames in memory
/// (read from the files as they are submitted, for file inputs).
fn rep(t_n: Duration, t_2: Duration, n: u64) -> Rep {
    Rep {
        t_n,
        t_2,
        per_frame: t_n.saturating_sub(t_2).as_secs_f64() / (n - 2) as f64,
    }
}

fn timing(reps: Vec<Rep>, scores: Vec<FrameScore>) -> Timing {
    let mut per: Vec<f64> = reps.iter().map(|r| r.per_frame).collect();
    per.sort_by(f64::total_cmp);
    Timing {
        median: per[per.len() / 2],
        reps,
        scores,
        breakdown: None,
        pass_means: None,
    }
}

#[cfg(test)]
mod tests {
    use super::report::{comparison, speedup, TOO_SHORT};
    use super::*;

    #[test]
    fn comparison_says_faster_or_slower() {
        let cmp = |cpu, main| comparison("vulkan (x)", speedup(cpu, main));
        assert_eq!(cmp(12.34, 1.0), "vulkan (x) is 12.3x faster");
        assert_eq!(cmp(1.0, 1.0), "vulkan (x) is 1.0x faster");
        assert_eq!(cmp(0.08, 1.0), "vulkan (x) is 12.5x slower");
        assert_eq!(cmp(0.5, 1.0), "vulkan (x) is 2.0x slower");
    }

    #[test]
    fn a_run_too_short_to_time_gives_no_rate() {
        // t(N) <= t(2): the median per-frame time is 0 (rep() saturates).
        let r = rep(Duration::from_millis(5), Duration::from_millis(7), 22);
        assert_eq!(r.per_frame, 0.0);
        assert_eq!(measured(r.per_frame), None);
        assert_eq!(measured(f64::NAN), None);
        assert_eq!(measured(2e-3), Some(2e-3));
        let text = comparison("vulkan (x)", speedup(1e-3, 0.0));
        assert!(text.contains("too short"), "{text}");
        assert!(!text.contains("1000000000"), "{text}");
        assert_eq!(speedup(0.0, 1e-3), None);
        assert!(TOO_SHORT.contains("too short to time") && !TOO_SHORT.contains("frames/s"));
    }
}
