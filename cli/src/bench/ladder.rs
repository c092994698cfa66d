//! `vkssim bench --ladder K`: one reference against K distorted inputs (the
//! generated distorted frame, or the `-d` file, K times) on K scorers at once,
//! timed as `vkssim score` runs a ladder (the reference read once,
//! [`crate::pipeline::Tee`], and on a Vulkan device uploaded once into a
//! shared plane), as the same ladder with the reference copied into each
//! pair's slot (uploaded K times; on the CPU twin this is the ladder), and as
//! K separate single-pair runs at once (each reading the reference itself).
//! Reports distorted frames/s and GB/s uploaded for each, by the bench's
//! method (t(N) - t(2), median of `--repeat`), for the `--feature` list (psnr
//! with chroma reads and uploads whole pictures, and the shared reference
//! holds them), and fails unless every way gave the same outputs bit for bit.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use vkssim::api::DealtPlanes;
use vkssim::FrameScore;

use super::Input;
use crate::args::BenchArgs;
use crate::backend::{self, Engine};
use crate::pipeline::{self, Input as PipelineInput, Selection, Tee};
use crate::plan::{BackendPlan, Spelling};
use crate::stdio;
use vkssim::metric::MetricSet;

/// Runs the ladder bench with `k` distorted inputs of `input`, scoring
/// `metrics` (psnr with chroma reads whole pictures: the shared reference then
/// holds the luma, Cb and Cr planes).
pub fn run(args: &BenchArgs, k: usize, input: &Input, metrics: &MetricSet) -> Result<()> {
    let (width, height, bit_depth) = metrics.geometry();
    let chroma = metrics.needs_chroma();
    let engine = BackendPlan::resolve(&args.engine, Spelling::Flags)?;
    let threads = backend::read_threads(&engine).1.div_ceil(k).max(1);
    let mut engines = Vec::with_capacity(k);
    for i in 0..k {
        engines.push(backend::start(
            &engine,
            metrics,
            (width, height, bit_depth),
            threads,
            i > 0,
        )?);
    }
    // Bytes of a frame as read and uploaded: its luma plane, and its Cb and
    // Cr planes when a metric reads chroma.
    let bps = if bit_depth > 8 { 2 } else { 1 };
    let (cw, ch) = metrics.chroma_plane_size();
    let luma = width as usize * height as usize * bps;
    let plane = luma
        + if chroma {
            2 * cw as usize * ch as usize * bps
        } else {
            0
        };
    let planes = backend::shared_planes(&engines[0]);
    let modes: Vec<Mode> = if planes.is_none() {
        vec![Mode::Copied, Mode::Separate]
    } else {
        vec![Mode::Shared, Mode::Copied, Mode::Separate]
    };
    let n = args.frames;
    let mut timings = Vec::new();
    let mut scores = Vec::new();
    let mut derived = Counts::default();
    // The first and last rungs' mean pass times over the ladder's runs.
    let mut rung_passes = (serde_json::Value::Null, serde_json::Value::Null);
    for &mode in &modes {
        let before = Counts::of(&engines);
        // The rungs' pass means restart here (the figures are dropped).
        mean_passes(engines.first_mut());
        mean_passes(engines.last_mut());
        let planes = planes.as_ref().filter(|_| mode == Mode::Shared);
        let mut run = |frames: u64| -> Result<(Duration, Vec<Vec<FrameScore>>)> {
            run_all(
                input,
                &mut engines,
                mode,
                planes,
                frames,
                (threads, plane, chroma),
            )
        };
        run(n)?; // warm-up
        let mut per_frame = Vec::new();
        for _ in 0..args.repeat {
            let (t_n, s) = run(n)?;
            let (t_2, _) = run(2)?;
            per_frame.push((t_n.as_secs_f64() - t_2.as_secs_f64()) / (n - 2) as f64);
            scores.push(s);
        }
        per_frame.sort_by(f64::total_cmp);
        timings.push((mode, per_frame[per_frame.len() / 2]));
        if mode == Mode::Shared {
            derived = Counts::of(&engines).since(&before);
            rung_passes = (
                mean_passes(engines.first_mut()),
                mean_passes(engines.last_mut()),
            );
        }
    }
    // Every way scores the same pairs, every output bit for bit: a check
    // that the ladder is exact.
    let flat = |run: &Vec<Vec<FrameScore>>| -> Vec<FrameScore> { run.concat() };
    if scores
        .windows(2)
        .any(|w| !super::same_scores(&flat(&w[0]), &flat(&w[1])))
    {
        return Err(anyhow!(
            "the ladder and the separate runs gave different scores for the same frames"
        ));
    }
    let pairs = scores.first().map_or(0, |s| s.iter().map(Vec::len).sum());
    let outputs = metrics.output_names().len();
    let feature_list = super::feature_list(metrics);
    let description = engines[0].description.clone();
    // None for a run too short to time (super::measured).
    let fps = |t: f64| super::measured(t).map(|t| k as f64 / t);
    // Bytes uploaded per distorted frame: its own plane, and the reference's
    // once per ladder frame or once per pair.
    let gbs = |mode: Mode, t: f64| {
        let reference = match mode {
            Mode::Shared => plane as f64 / k as f64,
            Mode::Copied | Mode::Separate => plane as f64,
        };
        fps(t)
            .filter(|_| !engines[0].on_cpu)
            .map(|f| (plane as f64 + reference) * f / 1e9)
    };
    let time_of = |m: Mode| timings.iter().find(|(mode, _)| *mode == m).map(|t| t.1);
    let ts = time_of(Mode::Separate).unwrap_or(0.0);
    let tl = time_of(modes[0]).unwrap_or(0.0);
    let ratio = super::measured(ts)
        .zip(super::measured(tl))
        .map(|(s, l)| s / l);
    if args.json {
        let mut json = serde_json::json!({
            "backend": description,
            "width": width,
            "height": height,
            "bit_depth": bit_depth,
            "features": feature_list,
            "ladder": k,
            "frames": n,
            "identical_across_modes": true,
            "pairs_compared": pairs,
            "outputs_per_pair": outputs,
            "repetitions": args.repeat,
            "read_threads_per_pair": threads,
            "reference_uploaded_once": modes[0] == Mode::Shared,
            "ladder_distorted_frames_per_second": fps(tl),
            "ladder_upload_gb_per_s": gbs(modes[0], tl),
            "separate_distorted_frames_per_second": fps(ts),
            "separate_upload_gb_per_s": gbs(Mode::Separate, ts),
            "ladder_over_separate": ratio,
            "shared_reference_pairs_making_derived_planes": derived.makes,
            "shared_reference_pairs_reading_derived_planes": derived.reads,
            "ladder_gpu_busy_us_per_pair": derived.busy_us(),
            "first_rung_gpu_pass_us_mean": rung_passes.0,
            "last_rung_gpu_pass_us_mean": rung_passes.1,
        });
        if let (Some(tc), true) = (time_of(Mode::Copied), modes[0] == Mode::Shared) {
            json["copied_reference_distorted_frames_per_second"] = fps(tc).into();
            json["copied_reference_upload_gb_per_s"] = gbs(Mode::Copied, tc).into();
        }
        stdio::print(&format!("{}\n", serde_json::to_string_pretty(&json)?))?;
        return Ok(());
    }
    let mut out = String::new();
    writeln!(
        out,
        "vkssim bench --ladder {k}: {width}x{height} {bit_depth}-bit, {feature_list}, 1 reference + {k} distorted, {n} frames, median of {}",
        args.repeat
    )?;
    writeln!(
        out,
        "backend: {description}; reader threads per pair: {threads}"
    )?;
    let gb = |m: Mode, t: f64| gbs(m, t).map_or("n/a".to_string(), |g| format!("{g:.3} GB/s"));
    for &(mode, t) in &timings {
        let what = match mode {
            Mode::Shared => "ladder (reference read and uploaded once)".to_string(),
            Mode::Copied if modes[0] == Mode::Shared => {
                "ladder, reference copied into each pair's slot".to_string()
            }
            Mode::Copied => "ladder (reference read once)".to_string(),
            Mode::Separate => format!("{k} separate single-pair runs at once"),
        };
        match fps(t) {
            Some(f) => writeln!(
                out,
                "{what}: {f:.1} distorted frames/s, uploading {}",
                gb(mode, t)
            )?,
            None => writeln!(
                out,
                "{what}: the run was too short to time; pass a larger --frames"
            )?,
        }
    }
    if modes[0] == Mode::Shared {
        writeln!(
            out,
            "ladder pairs that made the planes their metrics derive from the reference: {}; \
             that read them, made by another rung: {}",
            derived.makes, derived.reads
        )?;
    }
    match ratio {
        Some(r) => writeln!(out, "ladder / separate: {r:.2}x")?,
        None => writeln!(out, "ladder / separate: too short to compare")?,
    }
    writeln!(
        out,
        "scores identical in every way: {} runs x {pairs} pairs x {outputs} outputs, bit for bit",
        scores.len()
    )?;
    stdio::print(&out)?;
    Ok(())
}

/// Over every engine's Vulkan scorers: the pairs that made and that read a
/// shared reference's derived planes (`vkssim::vk::HostStats`'s
/// `shared_reference_makes` and `shared_reference_reads`), and the GPU's
/// busy time over the pairs with timestamps.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    makes: u64,
    reads: u64,
    busy_ns: f64,
    timed: u64,
}

impl Counts {
    /// The counts so far.
    fn of(engines: &[Engine]) -> Self {
        let host = engines
            .iter()
            .flat_map(|e| e.scorer.scorers())
            .filter_map(|s| s.diagnostics())
            .map(|d| d.host);
        host.fold(Self::default(), |c, h| Self {
            makes: c.makes + h.shared_reference_makes,
            reads: c.reads + h.shared_reference_reads,
            busy_ns: c.busy_ns + h.gpu_busy_ns,
            timed: c.timed + h.gpu_frames,
        })
    }

    /// The counts since `before`.
    fn since(&self, before: &Self) -> Self {
        Self {
            makes: self.makes - before.makes,
            reads: self.reads - before.reads,
            busy_ns: self.busy_ns - before.busy_ns,
            timed: self.timed - before.timed,
        }
    }

    /// GPU busy time per timed pair, us.
    fn busy_us(&self) -> Option<f64> {
        (self.timed > 0).then(|| self.busy_ns / self.timed as f64 / 1e3)
    }
}

/// The mean GPU time of each pass (us) of the pairs `engine`'s first scorer
/// scored since the last call, by name, when its device has timestamps
/// (each pass alone with `VKSSIM_TIME_EACH_PASS=1`); restarts the means. In
/// a ladder the first rung's pairs make a shared reference's derived planes
/// and the others' read them.
fn mean_passes(engine: Option<&mut Engine>) -> serde_json::Value {
    let passes = engine
        .and_then(|e| e.scorer.scorers_mut().first_mut())
        .and_then(|s| s.take_gpu_pass_ns());
    match passes {
        Some(p) => p
            .into_iter()
            .map(|(name, ns)| (name, serde_json::Value::from(ns / 1e3)))
            .collect(),
        None => serde_json::Value::Null,
    }
}

/// How the bench's pairs get their reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Read once, uploaded once per device (shared planes).
    Shared,
    /// Read once, copied into each pair's slot.
    Copied,
    /// Each pair reads its own.
    Separate,
}

/// Scores `frames` positions on every engine at once, as a ladder (one
/// reference, on `planes` when given) or as separate pairs, reading frames of
/// `plane` bytes (whole pictures with `chroma`) on `threads` readers per
/// pair; gives the wall time and the scores of each pair.
fn run_all(
    input: &Input,
    engines: &mut [Engine],
    mode: Mode,
    planes: Option<&DealtPlanes>,
    frames: u64,
    (threads, plane, chroma): (usize, usize, bool),
) -> Result<(Duration, Vec<Vec<FrameScore>>)> {
    let k = engines.len();
    let sel = Selection {
        skip_ref: 0,
        skip_dist: 0,
        frame_cnt: frames,
        subsample: 1,
        allow_length_mismatch: false,
        spelling: Spelling::Flags,
    };
    let window = 2 * vkssim::api::in_flight::for_readers(threads) + 8;
    // Every lane has scored as many pairs as the others: their next pairs go
    // to one device, the first lane's.
    let planes = planes.map(|p| p.dealt_from(&engines[0].scorer));
    let tee = Tee::new(input.inputs(chroma).0, k, 1, window, plane).with_shared_planes(planes);
    let t0 = Instant::now();
    let outcomes: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = engines
            .iter_mut()
            .enumerate()
            .map(|(lane, engine)| {
                let tee = &tee;
                s.spawn(move || {
                    let (own, distorted) = input.inputs(chroma);
                    let reference = if mode != Mode::Separate {
                        PipelineInput::tee(tee, lane)
                    } else {
                        own
                    };
                    let out = pipeline::run(
                        reference,
                        distorted,
                        sel,
                        &mut engine.scorer,
                        threads,
                        &|_| Ok(()),
                    );
                    tee.leave(lane);
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    let elapsed = t0.elapsed();
    let mut scores = Vec::with_capacity(k);
    for out in outcomes {
        let out = out.map_err(|_| anyhow!("a bench lane panicked"))?;
        if let Some(e) = out.error {
            return Err(e.context("scoring in vkssim bench --ladder"));
        }
        scores.push(out.frames.into_iter().map(|(_, s)| s).collect());
    }
    Ok((elapsed, scores))
}
