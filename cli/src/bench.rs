//! `vkssim bench`: times the scorer on a deterministic pair of generated frames
//! (3840x2160 8-bit by default), so it needs no file. Time per frame is
//! `(t(N) - t(2)) / (N - 2)`, which cancels start-up and the pipeline's fill and
//! drain; each run uses a fresh scorer, and the median of the repetitions is
//! reported.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use vkssim::{FrameScore, LumaFrame};

use crate::args::BenchArgs;
use crate::backend::{self, Engine};
use crate::feature::parse_features;

/// Copies of the frame pair made before timing, at most this many bytes in all;
/// beyond it the copies are made while timing.
const PRECOPY_BYTES: usize = 2 << 30;

/// Runs `vkssim bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    let options = parse_features(&args.feature)?;
    if !matches!(args.bitdepth, 8 | 10 | 12 | 16) {
        bail!(
            "--bitdepth {}: vkssim reads 8, 10, 12 and 16-bit samples",
            args.bitdepth
        );
    }
    let (reference, distorted) = generate_pair(args.width, args.height, args.bitdepth);
    // Only the first start may print the CPU fallback note.
    let quiet = std::cell::Cell::new(false);
    let start = || {
        let engine = backend::start(
            &args.engine,
            options,
            args.width,
            args.height,
            args.bitdepth,
            quiet.get(),
        );
        quiet.set(true);
        engine
    };
    let geometry = vkssim::cpu::check_geometry(args.width, args.height, args.bitdepth, &options)?;
    let mut runs = Vec::new();
    let mut description = String::new();
    let mut first_score = None;
    for _ in 0..args.repeat {
        let (t_n, score, desc) = timed_run(start()?, &reference, &distorted, args.frames)?;
        let (t_2, _, _) = timed_run(start()?, &reference, &distorted, 2)?;
        description = desc;
        first_score.get_or_insert(score);
        let per_frame = t_n.saturating_sub(t_2).as_secs_f64() / (args.frames - 2) as f64;
        runs.push((t_n, t_2, per_frame));
    }
    let mut per_frame: Vec<f64> = runs.iter().map(|r| r.2).collect();
    per_frame.sort_by(f64::total_cmp);
    let median = per_frame[per_frame.len() / 2];
    let fps = if median > 0.0 {
        1.0 / median
    } else {
        f64::INFINITY
    };
    let score = first_score.context("no run was made")?;

    if args.json {
        let json = serde_json::json!({
            "backend": description,
            "width": args.width,
            "height": args.height,
            "bit_depth": args.bitdepth,
            "scale": geometry.scale,
            "frames": args.frames,
            "repetitions": args.repeat,
            "ms_per_frame": median * 1e3,
            "frames_per_second": fps,
            "float_ssim": score.float_ssim(),
            "runs": runs.iter().map(|(t_n, t_2, p)| serde_json::json!({
                "t_n_s": t_n.as_secs_f64(),
                "t_2_s": t_2.as_secs_f64(),
                "ms_per_frame": p * 1e3,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        println!(
            "vkssim bench: {}x{} {}-bit generated frames, float_ssim at scale {} ({}x{}), backend {}",
            args.width,
            args.height,
            args.bitdepth,
            geometry.scale,
            geometry.scaled_width,
            geometry.scaled_height,
            description
        );
        for (i, (t_n, t_2, p)) in runs.iter().enumerate() {
            println!(
                "  run {}: t({}) = {:.3} s, t(2) = {:.3} s, {:.3} ms per frame",
                i + 1,
                args.frames,
                t_n.as_secs_f64(),
                t_2.as_secs_f64(),
                p * 1e3
            );
        }
        println!(
            "time per frame: {:.3} ms (median of {}), {:.2} frames/s; float_ssim of the pair: {:.6}",
            median * 1e3,
            runs.len(),
            fps,
            score.float_ssim()
        );
    }
    Ok(())
}

/// Scores `n` copies of the pair on a fresh scorer; returns the wall time from
/// the first submit to the last result, the pair's score (every copy must give
/// the same), and the engine's description.
fn timed_run(
    engine: Engine,
    reference: &LumaFrame,
    distorted: &LumaFrame,
    n: u64,
) -> Result<(Duration, FrameScore, String)> {
    let Engine {
        mut scorer,
        description,
    } = engine;
    let pair_bytes = reference.bytes.len() + distorted.bytes.len();
    let precopy = (n as usize).saturating_mul(pair_bytes) <= PRECOPY_BYTES;
    let mut copies: Vec<(LumaFrame, LumaFrame)> = if precopy {
        (0..n)
            .map(|_| (reference.clone(), distorted.clone()))
            .collect()
    } else {
        Vec::new()
    };
    let mut scores = Vec::with_capacity(n as usize);
    let t0 = Instant::now();
    for _ in 0..n {
        let (r, d) = copies
            .pop()
            .unwrap_or_else(|| (reference.clone(), distorted.clone()));
        scorer
            .submit(r, d)
            .context("submitting a generated frame")?;
        while let Some(res) = scorer.poll_next() {
            scores.push(res.context("scoring a generated frame")?);
        }
    }
    while let Some(res) = scorer.wait_next() {
        scores.push(res.context("scoring a generated frame")?);
    }
    let elapsed = t0.elapsed();
    drop(scorer);
    let first = *scores.first().context("no frame was scored")?;
    if scores.iter().any(|s| s != &first) {
        bail!("the scorer gave different results for identical frames");
    }
    Ok((elapsed, first, description))
}

/// The deterministic generated pair: a reference with smooth gradients, edges and
/// fine texture, and a distorted copy with a small shift-free blur and noise.
pub fn generate_pair(width: u32, height: u32, bit_depth: u32) -> (LumaFrame, LumaFrame) {
    let max = (1u32 << bit_depth) - 1;
    let mut reference = LumaFrame::zeroed(width, height, bit_depth);
    let mut distorted = LumaFrame::zeroed(width, height, bit_depth);
    let bps = if bit_depth > 8 { 2 } else { 1 };
    let mut state = 0x9E37_79B9u32;
    let mut noise = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let (w, h) = (width as u64, height as u64);
    for y in 0..h {
        for x in 0..w {
            // Gradient + checker edges + texture, in [0, 1).
            let grad = (x * 3 + y * 2) as f64 / (3 * w + 2 * h) as f64;
            let checker = if ((x / 64) + (y / 64)) % 2 == 0 {
                0.15
            } else {
                0.0
            };
            let texture = (noise() % 1024) as f64 / 1024.0 * 0.1;
            let v = ((grad * 0.7 + checker + texture) * max as f64) as u32;
            let r = v.min(max);
            let n = (noise() % 64) as i64 - 32;
            let amp = (max as i64 + 1) / 256;
            let d = (r as i64 + n * amp / 4).clamp(0, max as i64) as u32;
            let i = ((y * w + x) as usize) * bps;
            put(&mut reference.bytes, i, r, bps);
            put(&mut distorted.bytes, i, d, bps);
        }
    }
    (reference, distorted)
}

/// Writes sample `v` at byte `i` (little-endian for 2-byte samples).
fn put(bytes: &mut [u8], i: usize, v: u32, bps: usize) {
    bytes[i] = v as u8;
    if bps == 2 {
        bytes[i + 1] = (v >> 8) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vkssim::SsimOptions;

    #[test]
    fn generated_pair_is_deterministic_and_in_range() {
        let (a, b) = generate_pair(37, 23, 10);
        let (a2, b2) = generate_pair(37, 23, 10);
        assert_eq!((&a, &b), (&a2, &b2));
        assert_ne!(a, b);
        let view = a.view();
        for y in 0..23 {
            for x in 0..37 {
                assert!(view.sample(x, y) <= 1023);
            }
        }
    }

    #[test]
    fn generated_pair_scores_below_one() {
        let (a, b) = generate_pair(96, 64, 8);
        let s = vkssim::cpu::score_frame(&a.view(), &b.view(), &SsimOptions::default()).unwrap();
        assert!(s.ssim < 1.0 && s.ssim > 0.5, "{s:?}");
    }
}
