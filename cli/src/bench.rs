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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use vkssim::api::MultiScorer;
use vkssim::frame::PlaneGeometry;
use vkssim::io::{open_input, Chroma, FrameIndex, RawFormat, VideoFormat};
use vkssim::metric::MetricSet;
use vkssim::{FrameScore, LumaFrame};

use crate::args::BenchArgs;
use crate::backend::{self, Engine};
use crate::chrome_trace::TraceGuard;
use crate::feature::Features;
use crate::pipeline::{self, Input as PipelineInput, MainTimes, Selection};
use crate::plan::BackendPlan;
use crate::stdio;

mod generate;
mod ladder;

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
    pass_means: Option<Vec<(&'static str, f64)>>,
}

/// Runs `vkssim bench` (`trace`: the `--trace-chrome` being collected, which
/// `--write-yuv` must not write over).
pub fn run(args: &BenchArgs, trace: &mut Option<TraceGuard>) -> Result<()> {
    let features = Features::parse(&args.feature)?;
    let chroma: Chroma = args.pixel_format.parse().context("-p/--pixel_format")?;
    // The limits `score` applies to its inputs' geometry.
    VideoFormat::new(args.width, args.height, args.bitdepth, chroma).context("-w/-h/-b/-p")?;
    if let Some(prefix) = &args.write_yuv {
        return write_yuv(args, chroma, prefix, trace);
    }
    let mut input = open(args)?;
    let metrics = MetricSet::new(
        features.configs(),
        input.format(chroma).width,
        input.format(chroma).height,
        input.format(chroma).bit_depth,
        Some(input.format(chroma).chroma),
    )
    .context("cannot bench these frames")?;
    let with_chroma = metrics.needs_chroma();
    if let (Input::Generated(r, d), true) = (&mut input, with_chroma) {
        let take = |f: &mut LumaFrame| std::mem::replace(f, LumaFrame::zeroed(0, 0, 8));
        *r = with_chroma_planes(take(r), chroma);
        *d = with_chroma_planes(take(d), chroma);
    }
    if let Some(k) = args.ladder {
        return ladder::run(args, k as usize, &input, &metrics);
    }
    let (width, height, bit_depth, input_name) = match &input {
        Input::Generated(r, _) => (
            r.width,
            r.height,
            r.bit_depth,
            "generated in memory".to_string(),
        ),
        Input::Files {
            reference,
            distorted,
        } => {
            let f = reference.format();
            (
                f.width,
                f.height,
                f.bit_depth,
                format!(
                    "files {} ({}) and {} ({}), {}",
                    reference.path().display(),
                    vkssim::words::count(reference.len(), "frame"),
                    distorted.path().display(),
                    vkssim::words::count(distorted.len(), "frame"),
                    f
                ),
            )
        }
    };
    let geometry = metrics
        .ssim()
        .map(|o| vkssim::testing::cpu::check_geometry(width, height, bit_depth, &o))
        .transpose()?;
    let feature_list = feature_list(&metrics);
    // Threads and frames in flight are sized per device (--device N,M / all).
    let engine = BackendPlan::resolve(&args.engine)?;
    let (devices, read_threads) = backend::read_threads(&engine);
    let size = (width, height, bit_depth);
    let readers = read_threads.div_ceil(devices);
    let Engine {
        mut scorer,
        description,
        on_cpu,
        ..
    } = backend::start(&engine, &metrics, size, readers, false)?;
    let n = args.frames;
    let main = time(
        &mut scorer,
        &input,
        with_chroma,
        n,
        args.repeat,
        read_threads,
    )?;
    let devices_used = scorer.devices().to_vec();
    let vk_info = scorer.scorers()[0].diagnostics().map(|d| VkInfo {
        device: d.device,
        driver: d.driver,
        memory_path: d.memory_path,
        frames_in_flight: d.frames_in_flight,
        sum_threads: d.sum_threads,
        bytes_per_frame: d.bytes_per_frame,
        pass_ns: d.pass_ns,
    });
    drop(scorer);

    // Timed against the CPU twin unless that is what was just timed.
    let cpu = if args.no_cpu || on_cpu {
        None
    } else {
        let Engine {
            mut scorer,
            description,
            ..
        } = backend::start(&engine.on_cpu()?, &metrics, size, readers, true)?;
        let t = time(
            &mut scorer,
            &input,
            with_chroma,
            n,
            args.repeat,
            read_threads,
        )?;
        Some((description, t))
    };
    let identical = cpu
        .as_ref()
        .map(|(_, t)| same_scores(&t.scores, &main.scores));
    if identical == Some(false) {
        bail!("the CPU backend and {description} gave different scores for the same frames");
    }
    // None when the run was too short to time (see `measured`).
    let per_frame = measured(main.median);
    let fps = per_frame.map(|t| 1.0 / t);
    // The mean of the first value each frame reports (float_ssim by default).
    let first_name = metrics.output_names()[0];
    let mean_first = main
        .scores
        .iter()
        .map(|s| s.value(first_name).unwrap_or(f64::NAN))
        .sum::<f64>()
        / main.scores.len() as f64;

    if args.json {
        let mut json = serde_json::json!({
            "backend": description,
            "input": input_name,
            "width": width,
            "height": height,
            "bit_depth": bit_depth,
            "features": feature_list,
            "scale": geometry.map(|g| g.scale),
            "frames": n,
            "repetitions": args.repeat,
            "read_threads": read_threads,
            "devices": devices_used,
            "ms_per_frame": per_frame.map(|t| t * 1e3),
            "frames_per_second": fps,
            "too_short_to_time": per_frame.is_none(),
            "float_ssim": main.scores.first().and_then(|s| s.value("float_ssim")),
            "first_frame": main.scores.first().map(|s| {
                s.iter()
                    .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
                    .collect::<serde_json::Map<_, _>>()
            }),
            "runs": reps_json(&main.reps),
        });
        json[format!("mean_{first_name}")] = mean_first.into();
        if let Some(b) = &main.breakdown {
            json["time_per_frame_breakdown"] = breakdown_json(b, n);
        }
        if let Some(v) = &vk_info {
            json["device"] = v.device.clone().into();
            json["driver"] = v.driver.clone().into();
            json["memory_path"] = v.memory_path.clone().into();
            json["frames_in_flight"] = v.frames_in_flight.into();
            json["sum_threads"] = v.sum_threads.into();
            json["bytes_uploaded_per_frame"] = v.bytes_per_frame.into();
            json["bytes_uploaded"] = (v.bytes_per_frame * n).into();
            json["upload_gb_per_s"] = fps.map(|f| v.bytes_per_frame as f64 * f / 1e9).into();
            if let Some(p) = &v.pass_ns {
                json["gpu_pass_us_last_frame"] = pass_json(p);
            }
        }
        if let Some(p) = &main.pass_means {
            json["gpu_pass_us_mean"] = pass_json(p);
        }
        if let Some((desc, t)) = &cpu {
            json["cpu"] = serde_json::json!({
                "backend": desc,
                "ms_per_frame": measured(t.median).map(|t| t * 1e3),
                "frames_per_second": measured(t.median).map(|t| 1.0 / t),
                "runs": reps_json(&t.reps),
                "identical_scores": identical,
            });
            json["speedup_over_cpu"] = speedup(t.median, main.median).into();
        }
        stdio::print(&format!("{}\n", serde_json::to_string_pretty(&json)?))?;
        return Ok(());
    }
    let mut out = String::new();
    write!(
        out,
        "vkssim bench: {width}x{height} {bit_depth}-bit, {input_name}; {feature_list}"
    )?;
    match geometry {
        Some(g) => writeln!(
            out,
            " (float_ssim at scale {}, {}x{})",
            g.scale, g.scaled_width, g.scaled_height
        )?,
        None => writeln!(out)?,
    }
    writeln!(out, "backend: {description}")?;
    if let Some(v) = &vk_info {
        writeln!(out, "device: {}, driver {}", v.device, v.driver)?;
        writeln!(out, "memory path: {}", v.memory_path)?;
        writeln!(
            out,
            "frames in flight: {}; reader threads: {read_threads}; summing threads: {}",
            v.frames_in_flight, v.sum_threads
        )?;
    }
    print_reps(&mut out, &main.reps, n)?;
    match per_frame {
        Some(t) => writeln!(
            out,
            "time per frame: {:.4} ms (median of {}), {:.1} frames/s; mean {first_name} {:.6}",
            t * 1e3,
            main.reps.len(),
            1.0 / t,
            mean_first
        )?,
        None => writeln!(out, "{TOO_SHORT}; mean {first_name} {mean_first:.6}")?,
    }
    if let Some(v) = &vk_info {
        write!(
            out,
            "uploaded: {} bytes per frame, {} bytes per t({n}) run",
            v.bytes_per_frame,
            v.bytes_per_frame * n,
        )?;
        match fps {
            Some(f) => writeln!(out, ", {:.2} GB/s", v.bytes_per_frame as f64 * f / 1e9)?,
            None => writeln!(out)?,
        }
        match &v.pass_ns {
            Some(p) => writeln!(
                out,
                "GPU time per pass (last frame): {}, total {:.1} us",
                p.iter()
                    .map(|(name, ns)| format!("{name} {:.1} us", ns / 1e3))
                    .collect::<Vec<_>>()
                    .join(", "),
                p.iter().map(|(_, ns)| ns).sum::<f64>() / 1e3
            ),
            None => writeln!(out, "GPU time per pass: the queue has no timestamps"),
        }?;
    }
    if let Some(p) = &main.pass_means {
        writeln!(
            out,
            "GPU time per pass (mean per frame of the first t({n}) run, first device): {}",
            pass_json(p)
        )?;
    }
    if let Some(b) = &main.breakdown {
        writeln!(
            out,
            "where the time went (first t({n}) run, us per frame): {}",
            breakdown_json(b, n)
        )?;
    }
    if let Some((desc, t)) = &cpu {
        writeln!(out, "CPU backend: {desc}")?;
        print_reps(&mut out, &t.reps, n)?;
        let cpu_time = match measured(t.median) {
            Some(m) => format!("{:.3} ms", m * 1e3),
            None => "too short to time".to_string(),
        };
        writeln!(
            out,
            "CPU time per frame: {cpu_time} (median of {}); {}; scores identical: {}",
            t.reps.len(),
            comparison(&description, speedup(t.median, main.median)),
            identical == Some(true)
        )?;
    }
    stdio::print(&out)?;
    Ok(())
}

/// What the report says instead of a time per frame when the run was too
/// short to time.
const TOO_SHORT: &str = "time per frame: the run was too short to time (t(N) - t(2) was not above zero in the median repetition); pass a larger --frames";

/// A median time per frame, in seconds, when it was measured: `None` when
/// t(N) - t(2) was not above zero (a run too short for the clock), so that no
/// rate is divided out of a zero.
pub(crate) fn measured(per_frame: f64) -> Option<f64> {
    (per_frame.is_finite() && per_frame > 0.0).then_some(per_frame)
}

/// How many times faster the backend timed at `main` was than the CPU twin at
/// `cpu` (seconds per frame), when both were measured.
fn speedup(cpu: f64, main: f64) -> Option<f64> {
    Some(measured(cpu)? / measured(main)?)
}

/// `<backend> is N.Nx faster` (or `slower`) than the CPU twin, for a `speedup`
/// of CPU time over the backend's time (`None`: a run too short to compare).
fn comparison(backend: &str, speedup: Option<f64>) -> String {
    match speedup {
        None => format!("{backend} and the CPU twin: the run was too short to compare them"),
        Some(x) if x >= 1.0 => format!("{backend} is {x:.1}x faster"),
        Some(x) => format!("{backend} is {:.1}x slower", 1.0 / x),
    }
}

/// The engine's facts for the report.
struct VkInfo {
    device: String,
    driver: String,
    memory_path: String,
    frames_in_flight: usize,
    sum_threads: usize,
    bytes_per_frame: u64,
    pass_ns: Option<Vec<(&'static str, f64)>>,
}

fn reps_json(reps: &[Rep]) -> Vec<serde_json::Value> {
    reps.iter()
        .map(|r| {
            serde_json::json!({
                "t_n_s": r.t_n.as_secs_f64(),
                "t_2_s": r.t_2.as_secs_f64(),
                "ms_per_frame": r.per_frame * 1e3,
            })
        })
        .collect()
}

fn print_reps(out: &mut String, reps: &[Rep], n: u64) -> std::fmt::Result {
    for (i, r) in reps.iter().enumerate() {
        writeln!(
            out,
            "  run {}: t({n}) = {:.4} s, t(2) = {:.4} s, {:.4} ms per frame",
            i + 1,
            r.t_n.as_secs_f64(),
            r.t_2.as_secs_f64(),
            r.per_frame * 1e3
        )?;
    }
    Ok(())
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

/// Each pass's or metric stage's time in microseconds, and their total.
fn pass_json(p: &[(&'static str, f64)]) -> serde_json::Value {
    let mut passes = serde_json::Map::new();
    for (name, ns) in p {
        passes.insert(name.to_string(), (ns / 1e3).into());
    }
    passes.insert(
        "total".into(),
        (p.iter().map(|(_, ns)| ns).sum::<f64>() / 1e3).into(),
    );
    passes.into()
}

fn breakdown_json(b: &(MainTimes, vkssim::vk::HostStats, Duration), n: u64) -> serde_json::Value {
    let (m, st, wall) = b;
    let us = |ns: u64| ns as f64 / 1e3 / n as f64;
    let frames = st.gpu_frames.max(1) as f64;
    serde_json::json!({
        "wall_us": wall.as_secs_f64() * 1e6 / n as f64,
        "main_thread_acquire_us": us(m.acquire_ns),
        "main_thread_read_wait_us": us(m.read_wait_ns),
        "main_thread_submit_us": us(m.submit_ns),
        "main_thread_collect_us": us(m.collect_ns),
        "engine_fence_wait_us": us(st.fence_wait_ns),
        "engine_sum_wait_us": us(st.sum_wait_ns),
        "engine_submit_us": us(st.submit_ns),
        "host_sum_fallbacks": st.host_sum_fallbacks,
        "gpu_busy_us": st.gpu_busy_ns / 1e3 / frames,
        "gpu_span_us": st.gpu_span_ns().map(|s| s / 1e3 / frames),
    })
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
