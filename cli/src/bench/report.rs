//! What `vkssim bench` reports of a timed run ([`Report`]): as JSON
//! ([`json`], `--json`) or as text ([`text`]).

use std::fmt::Write as _;
use std::time::Duration;

use vkssim::api::Diagnostics;
use vkssim::metric::ssim::FrameGeometry;

use super::{measured, Rep, Timing};
use crate::pipeline::MainTimes;

/// A timed run: the backend's timings and, unless it was the CPU twin or
/// `--no-cpu` was given, the CPU twin's.
pub(super) struct Report {
    /// Pairs per timed run (`--frames`).
    pub frames: u64,
    /// Timed runs (`--repeat`).
    pub repeat: u64,
    /// The backend timed.
    pub description: String,
    /// Where the frames came from.
    pub input_name: String,
    /// Width, height and bit depth.
    pub size: (u32, u32, u32),
    /// The metrics as `--feature` gives them.
    pub feature_list: String,
    /// What the mean is reported of, and its value per frame: the first
    /// model's score, or the first output (float_ssim by default).
    pub first: (String, Vec<f64>),
    /// float_ssim's scale and scaled size, when it is among the metrics
    /// (the JSON's `scale`).
    pub geometry: Option<FrameGeometry>,
    /// Each metric's note on how it scores these frames (the header's).
    pub notes: Vec<String>,
    /// Threads reading frames.
    pub read_threads: usize,
    /// The devices the backend ran on.
    pub devices: Vec<String>,
    /// The backend's timings.
    pub main: Timing,
    /// The Vulkan engine's facts (none on the CPU twin).
    pub vk_info: Option<VkInfo>,
    /// The CPU twin's description and timings.
    pub cpu: Option<(String, Timing)>,
    /// Whether the CPU twin gave the same scores.
    pub identical: Option<bool>,
}

impl Report {
    /// The median time per frame, when the run was long enough to time.
    fn per_frame(&self) -> Option<f64> {
        measured(self.main.median)
    }

    /// The mean of [`Report::first`]'s values.
    fn mean_first(&self) -> f64 {
        let values = &self.first.1;
        values.iter().sum::<f64>() / values.len() as f64
    }
}

impl From<Diagnostics> for VkInfo {
    fn from(d: Diagnostics) -> Self {
        Self {
            device: d.device,
            driver: d.driver,
            memory_path: d.memory_path,
            frames_in_flight: d.frames_in_flight,
            sum_threads: d.sum_threads,
            bytes_per_frame: d.bytes_per_frame,
            pass_ns: d.pass_ns,
        }
    }
}

/// The report as `--json` prints it.
pub(super) fn json(r: &Report) -> serde_json::Value {
    let (n, main) = (r.frames, &r.main);
    let per_frame = r.per_frame();
    let fps = per_frame.map(|t| 1.0 / t);
    let (width, height, bit_depth) = r.size;
    let mut json = serde_json::json!({
        "backend": r.description,
        "input": r.input_name,
        "width": width,
        "height": height,
        "bit_depth": bit_depth,
        "features": r.feature_list,
        "scale": r.geometry.map(|g| g.scale),
        "frames": n,
        "repetitions": r.repeat,
        "read_threads": r.read_threads,
        "devices": r.devices,
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
    json[format!("mean_{}", r.first.0)] = r.mean_first().into();
    if let Some(b) = &main.breakdown {
        json["time_per_frame_breakdown"] = breakdown_json(b, n);
    }
    if let Some(v) = &r.vk_info {
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
    if let Some((desc, t)) = &r.cpu {
        json["cpu"] = serde_json::json!({
            "backend": desc,
            "ms_per_frame": measured(t.median).map(|t| t * 1e3),
            "frames_per_second": measured(t.median).map(|t| 1.0 / t),
            "runs": reps_json(&t.reps),
            "identical_scores": r.identical,
        });
        json["speedup_over_cpu"] = speedup(t.median, main.median).into();
    }
    json
}

/// The report as text: the run, the engine, the times, the CPU twin's.
pub(super) fn text(r: &Report) -> Result<String, std::fmt::Error> {
    let mut out = String::new();
    header(&mut out, r)?;
    times(&mut out, r)?;
    if let Some(v) = &r.vk_info {
        uploads_and_passes(&mut out, v, r.frames, r.per_frame().map(|t| 1.0 / t))?;
    }
    breakdowns(&mut out, &r.main, r.frames)?;
    if let Some((desc, t)) = &r.cpu {
        writeln!(out, "CPU backend: {desc}")?;
        print_reps(&mut out, &t.reps, r.frames)?;
        let cpu_time = match measured(t.median) {
            Some(m) => format!("{:.3} ms", m * 1e3),
            None => "too short to time".to_string(),
        };
        writeln!(
            out,
            "CPU time per frame: {cpu_time} (median of {}); {}; scores identical: {}",
            t.reps.len(),
            comparison(&r.description, speedup(t.median, r.main.median)),
            r.identical == Some(true)
        )?;
    }
    Ok(out)
}

/// What was scored, on what.
fn header(out: &mut String, r: &Report) -> std::fmt::Result {
    let (width, height, bit_depth) = r.size;
    write!(
        out,
        "vkssim bench: {width}x{height} {bit_depth}-bit, {}; {}",
        r.input_name, r.feature_list
    )?;
    if r.notes.is_empty() {
        writeln!(out)?;
    } else {
        writeln!(out, " ({})", r.notes.join("; "))?;
    }
    writeln!(out, "backend: {}", r.description)?;
    if let Some(v) = &r.vk_info {
        writeln!(out, "device: {}, driver {}", v.device, v.driver)?;
        writeln!(out, "memory path: {}", v.memory_path)?;
        writeln!(
            out,
            "frames in flight: {}; reader threads: {}; summing threads: {}",
            v.frames_in_flight, r.read_threads, v.sum_threads
        )?;
    }
    Ok(())
}

/// Each repetition and the median time per frame.
fn times(out: &mut String, r: &Report) -> std::fmt::Result {
    print_reps(out, &r.main.reps, r.frames)?;
    let (first_name, mean_first) = (&r.first.0, r.mean_first());
    match r.per_frame() {
        Some(t) => writeln!(
            out,
            "time per frame: {:.4} ms (median of {}), {:.1} frames/s; mean {first_name} {:.6}",
            t * 1e3,
            r.main.reps.len(),
            1.0 / t,
            mean_first
        ),
        None => writeln!(out, "{TOO_SHORT}; mean {first_name} {mean_first:.6}"),
    }
}

/// The bytes uploaded and each pass's GPU time on the last frame.
fn uploads_and_passes(out: &mut String, v: &VkInfo, n: u64, fps: Option<f64>) -> std::fmt::Result {
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
    }
}

/// The mean GPU time per pass and where the host's time went, over the
/// first timed run.
fn breakdowns(out: &mut String, main: &Timing, n: u64) -> std::fmt::Result {
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
    Ok(())
}

/// What the report says instead of a time per frame when the run was too
/// short to time.
pub(super) const TOO_SHORT: &str = "time per frame: the run was too short to time (t(N) - t(2) was not above zero in the median repetition); pass a larger --frames";

/// How many times faster the backend timed at `main` was than the CPU twin at
/// `cpu` (seconds per frame), when both were measured.
pub(super) fn speedup(cpu: f64, main: f64) -> Option<f64> {
    Some(measured(cpu)? / measured(main)?)
}

/// `<backend> is N.Nx faster` (or `slower`) than the CPU twin, for a `speedup`
/// of CPU time over the backend's time (`None`: a run too short to compare).
pub(super) fn comparison(backend: &str, speedup: Option<f64>) -> String {
    match speedup {
        None => format!("{backend} and the CPU twin: the run was too short to compare them"),
        Some(x) if x >= 1.0 => format!("{backend} is {x:.1}x faster"),
        Some(x) => format!("{backend} is {:.1}x slower", 1.0 / x),
    }
}

/// The engine's facts for the report.
pub(super) struct VkInfo {
    device: String,
    driver: String,
    memory_path: String,
    frames_in_flight: usize,
    sum_threads: usize,
    bytes_per_frame: u64,
    pass_ns: Option<Vec<(String, f64)>>,
}

/// Each repetition's times.
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

/// Each repetition's times, one line each.
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

/// Each pass's or metric stage's time in microseconds, and their total.
fn pass_json(p: &[(String, f64)]) -> serde_json::Value {
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

/// Where the time of the first timed run went, in microseconds per frame.
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
