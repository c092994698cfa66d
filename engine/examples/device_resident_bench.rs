//! Device-resident throughput through the library API: how many pairs per
//! second a `Scorer` scores when the frames are already on the GPU, in the
//! host's own `vk::Buffer`s (read in place, zero-copy), as a Vulkan-native
//! video tool would feed it. No host upload, no file reading.
//!
//! Setup: `--buffers B` pairs of device-local buffers are written on the GPU
//! (`vkCmdFillBuffer`, rows of a deterministic pattern); the first pair's
//! score is checked bit for bit against the CPU twin. Then, on a warm scorer,
//! `t(k)` is the wall time to submit `k` pairs (cycling through the buffers)
//! and take every result; reported, as the median of `--reps` repetitions:
//! throughput `N / t(N)` and the per-pair time `(t(N) - t(2)) / (N - 2)`
//! (the project's method, see BENCHMARKS.md).
//!
//! Build: `cargo build --release -p vkssim --example device_resident_bench`
//! Run:   `target/release/examples/device_resident_bench [--width 3840] [--height 2160]
//!         [--bitdepth 8] [--frames 4000] [--reps 3] [--in-flight 0] [--buffers 8]
//!         [--device N] [--vmaf] [--json]`
//!
//! `--vmaf`: the pairs are scored with VMAF's default model (`vmaf_v0.6.1`:
//! its vif, adm and motion passes); the first pair's `vmaf` is checked bit
//! for bit against the CPU twin's, and each pair's against its earlier runs
//! (the pairs cycle through the buffers, so motion repeats with them).
//!
//! Also prints the mean GPU time of each pass over the timed pairs
//! (`Scorer::take_gpu_pass_ns`; with `--in-flight 1` the passes of one pair do
//! not overlap another's).

mod common;

use std::time::{Duration, Instant};
use vkssim::api::ScoreQueue;

use ash::vk;
use common::*;
use vkssim::api::{
    DevicePlane, Engine, HostPlane, ImportedPlane, Pair, SampleFormat, Scorer, ScorerDesc,
};

struct Args {
    width: u32,
    height: u32,
    bit_depth: u32,
    frames: usize,
    reps: usize,
    in_flight: usize,
    buffers: usize,
    device: Option<usize>,
    vmaf: bool,
    json: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        width: 3840,
        height: 2160,
        bit_depth: 8,
        frames: 4000,
        reps: 3,
        in_flight: 0,
        buffers: 8,
        device: None,
        vmaf: false,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--json" || flag == "--vmaf" {
            a.json |= flag == "--json";
            a.vmaf |= flag == "--vmaf";
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let n = || {
            value
                .parse::<usize>()
                .map_err(|e| format!("{flag} {value}: {e}"))
        };
        match flag.as_str() {
            "--width" => a.width = n()? as u32,
            "--height" => a.height = n()? as u32,
            "--bitdepth" => a.bit_depth = n()? as u32,
            "--frames" => a.frames = n()?,
            "--reps" => a.reps = n()?,
            "--in-flight" => a.in_flight = n()?,
            "--buffers" => a.buffers = n()?,
            "--device" => a.device = Some(n()?),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.frames < 3 || a.reps == 0 || a.buffers == 0 {
        return Err("--frames must be at least 3, --reps and --buffers at least 1".into());
    }
    Ok(a)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("device_resident_bench: {e}");
        std::process::exit(1);
    }
}

/// Submits `k` pairs cycling through `planes` and takes every result; returns
/// the wall time and the results.
fn score_k(
    scorer: &mut Scorer,
    planes: &[(ImportedPlane, ImportedPlane)],
    k: usize,
) -> Result<(Duration, Vec<vkssim::FrameScore>), vkssim::Error> {
    let mut out = Vec::with_capacity(k);
    let t0 = Instant::now();
    for i in 0..k {
        let (r, d) = &planes[i % planes.len()];
        scorer.submit(Pair::new(r, d))?;
        while let Some(s) = scorer.poll() {
            out.push(s?);
        }
    }
    // Ends the stream (a model holds a frame until the next one's motion):
    // each call scores its pairs as a stream of their own.
    scorer.finish();
    while let Some(s) = scorer.wait() {
        out.push(s?);
    }
    Ok((t0.elapsed(), out))
}

/// Little-endian 16-bit samples.
fn samples_u16(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let a = parse_args()?;
    let engine = Engine::new(
        &vk_options_from_env()
            .with_device_index(a.device)
            .with_frames_in_flight(a.in_flight),
    )?;
    let h = engine.device_handles();
    let d = &h.device;
    let bps = if a.bit_depth > 8 { 2u64 } else { 1 };
    let row = a.width as u64 * bps;
    if row % 4 != 0 {
        return Err(format!("rows must be a multiple of 4 bytes for the GPU fill ({row})").into());
    }
    let size = row * a.height as u64;
    let format = if a.bit_depth > 8 {
        SampleFormat::U16
    } else {
        SampleFormat::U8
    };
    let mut desc = ScorerDesc::new(a.width, a.height, a.bit_depth);
    if a.vmaf {
        desc = desc.with_models(vkssim::metric::Models::default_model()?);
    }
    let mut scorer = engine.scorer(&desc)?;

    let usage = vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST;
    let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
    let mut buffers = Vec::new();
    let mut planes = Vec::new();
    // SAFETY: objects of the engine's device, submitted through the engine,
    // destroyed after the scorer finished with them.
    unsafe {
        for _ in 0..a.buffers {
            let r = create_buffer(&h.instance, h.physical_device, d, size, usage, local)?;
            let dd = create_buffer(&h.instance, h.physical_device, d, size, usage, local)?;
            // The buffers hold their planes, are never written after setup
            // and outlive the scorer.
            let plane =
                |b: &RawBuffer| engine.import_buffer(DevicePlane::new(b.buffer, row, format));
            planes.push((plane(&r)?, plane(&dd)?));
            buffers.push(r);
            buffers.push(dd);
        }
        let (pool, cmd) = command_buffer(d, h.queue_family)?;
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        for (k, pair) in buffers.chunks(2).enumerate() {
            let seed = 100 + k as u32;
            let bd = a.bit_depth;
            record_fill(d, cmd, pair[0].buffer, 0, row, a.height, |y| {
                row_word(y, seed, bd)
            });
            record_fill(d, cmd, pair[1].buffer, 0, row, a.height, |y| {
                distorted_word(y, seed, bd)
            });
        }
        transfer_to_all(d, cmd);
        d.end_command_buffer(cmd)?;
        let fence = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
        let cmds = [cmd];
        engine.queue_submit(&[vk::SubmitInfo::default().command_buffers(&cmds)], fence)?;
        d.wait_for_fences(&[fence], true, u64::MAX)?;
        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
    }

    // Exactness of the first pair, then warm-up.
    let (_, first) = score_k(&mut scorer, &planes[..1], 1)?;
    let bd = a.bit_depth;
    let (hr, hd) = (
        host_plane(a.width, a.height, bd, |y| row_word(y, 100, bd)),
        host_plane(a.width, a.height, bd, |y| distorted_word(y, 100, bd)),
    );
    if a.vmaf {
        let mut cpu = Scorer::cpu(&desc, 0)?;
        let row = a.width as usize;
        let pair = if bd > 8 {
            let (r16, d16) = (samples_u16(&hr.bytes), samples_u16(&hd.bytes));
            cpu.submit(Pair::new(
                HostPlane::u16(&r16, row),
                HostPlane::u16(&d16, row),
            ))?;
            cpu.finish();
            cpu.wait()
        } else {
            cpu.submit(Pair::new(
                HostPlane::u8(&hr.bytes, row),
                HostPlane::u8(&hd.bytes, row),
            ))?;
            cpu.finish();
            cpu.wait()
        };
        let want = pair.ok_or("the CPU twin gave no score")??.value("vmaf");
        let got = first[0].value("vmaf");
        if got.map(f64::to_bits) != want.map(f64::to_bits) || got.is_none() {
            return Err(format!("GPU vmaf {got:?} differs from the CPU twin's {want:?}").into());
        }
    } else {
        let want = cpu_score(&hr, &hd, &vkssim::SsimOptions::default());
        if first[0].ssim().to_bits() != want.ssim().to_bits() {
            return Err(format!("GPU {:?} differs from the CPU twin {want:?}", first[0]).into());
        }
    }
    let warm = (2 * scorer.queue_depth()).max(16).max(planes.len() + 2);
    let (_, warm_scores) = score_k(&mut scorer, &planes, warm)?;

    let mut throughput = Vec::new();
    let mut per_pair_us = Vec::new();
    // Per-pass GPU times of the timed pairs only (the warm-up's are dropped).
    let _ = scorer.take_gpu_pass_ns();
    for _ in 0..a.reps {
        let (t2, _) = score_k(&mut scorer, &planes, 2)?;
        let (tn, scores) = score_k(&mut scorer, &planes, a.frames)?;
        // Every repetition gives every buffer pair the same score. With
        // VMAF a pair's motion reads the pair before (none for a stream's
        // first) and its motion2 the pair after (none for the last, which
        // is left out): pair i > 0 repeats warm pair (i - 1) % B + 1.
        let b = planes.len();
        let compared = if a.vmaf {
            scores.len() - 1
        } else {
            scores.len()
        };
        for (i, s) in scores[..compared].iter().enumerate() {
            let at = match (a.vmaf, i) {
                (false, _) => i % b,
                (true, 0) => 0,
                (true, _) => (i - 1) % b + 1,
            };
            let same = &warm_scores[at];
            let key = |s: &vkssim::FrameScore| match a.vmaf {
                true => s.value("vmaf").map(f64::to_bits),
                false => Some(s.ssim().to_bits()),
            };
            if key(s) != key(same) {
                return Err(format!("pair {i}: {s:?} differs from {same:?} earlier").into());
            }
        }
        throughput.push(a.frames as f64 / tn.as_secs_f64());
        per_pair_us.push((tn - t2).as_secs_f64() * 1e6 / (a.frames - 2) as f64);
    }
    let passes = scorer.take_gpu_pass_ns().unwrap_or_default();
    let messages = engine.validation_messages();
    drop(scorer);
    // SAFETY: the scorer is gone; nothing uses the buffers any more.
    unsafe {
        for b in &buffers {
            destroy_buffer(d, b);
        }
    }
    check_validation(&messages);

    let (tp, us) = (median(throughput), median(per_pair_us));
    let pass_total: f64 = passes.iter().map(|(_, ns)| ns).sum();
    if a.json {
        let pass_json: Vec<String> = passes
            .iter()
            .map(|(name, ns)| format!("{name:?}:{:.2}", ns / 1e3))
            .collect();
        println!(
            "{{\"device\":{:?},\"width\":{},\"height\":{},\"bit_depth\":{},\"frames\":{},\"reps\":{},\"buffers\":{},\"in_flight\":{},\"pairs_per_s\":{:.1},\"us_per_pair\":{:.2},\"gpu_pass_us\":{{{}}},\"gpu_pass_us_total\":{:.2}}}",
            engine.device_name(),
            a.width,
            a.height,
            a.bit_depth,
            a.frames,
            a.reps,
            a.buffers,
            a.in_flight,
            tp,
            us,
            pass_json.join(","),
            pass_total / 1e3
        );
    } else {
        println!("device: {}", engine.device_name());
        println!(
            "{}x{} {}-bit device-resident pairs, zero-copy, {} buffer pairs, {} frames x {} reps",
            a.width, a.height, a.bit_depth, a.buffers, a.frames, a.reps
        );
        println!("throughput: {tp:.1} pairs/s (median N / t(N))");
        println!("per pair:   {us:.2} us (median (t(N) - t(2)) / (N - 2))");
        if passes.is_empty() {
            println!("GPU time per pass: the queue has no timestamps");
        } else {
            let each: Vec<String> = passes
                .iter()
                .map(|(name, ns)| format!("{name} {:.2} us", ns / 1e3))
                .collect();
            println!(
                "GPU time per pass (mean of the timed pairs, timestamps around each dispatch): {}; total {:.2} us",
                each.join(", "),
                pass_total / 1e3
            );
        }
    }
    Ok(())
}
