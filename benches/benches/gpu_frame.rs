//! Criterion benchmarks of one GPU frame on whatever Vulkan device is present
//! (lavapipe on CI, a real GPU elsewhere): a 1920x1080 and a 3840x2160 8-bit
//! pair scored by `VkScorer` with one frame in flight (latency of a frame:
//! upload, the three passes, read-back and the host sum), and with the default
//! ring kept full (time per frame in steady state). With no usable device the
//! benchmarks are skipped with a note.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use vkssim::testing::FrameScorer;
use vkssim::testing::VkScorer;
use vkssim::vk::VkOptions;
use vkssim::{LumaFrame, SsimOptions};

/// A textured, deterministic 8-bit plane: gradients plus xorshift noise.
fn frame(w: u32, h: u32, seed: u32, noise: u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(w, h, 8);
    let mut st = seed.wrapping_mul(2_654_435_761) | 1;
    for y in 0..h {
        for x in 0..w {
            st ^= st << 13;
            st ^= st >> 17;
            st ^= st << 5;
            let base = (x / 3 + y / 5 + (x * y) / 97) % 200;
            f.bytes[(y * w + x) as usize] = (base + st % noise) as u8;
        }
    }
    f
}

/// Scores `iters` copies of the pair, keeping the scorer's queue full; the
/// wall time of the whole batch.
fn run(scorer: &mut VkScorer, r: &LumaFrame, d: &LumaFrame, iters: u64) -> Duration {
    let t0 = Instant::now();
    for _ in 0..iters {
        scorer.submit(r.clone(), d.clone()).expect("submit");
        while let Some(s) = scorer.poll_next() {
            s.expect("score");
        }
    }
    while let Some(s) = scorer.wait_next() {
        s.expect("score");
    }
    t0.elapsed()
}

fn gpu_frame(c: &mut Criterion) {
    let opts = SsimOptions::default();
    let mut group = c.benchmark_group("gpu_frame");
    group.sample_size(10);
    for (w, h) in [(1920u32, 1080u32), (3840, 2160)] {
        let r = frame(w, h, 1, 40);
        let d = frame(w, h, 2, 55);
        for in_flight in [1usize, 0] {
            let vk_opts = VkOptions::default().with_frames_in_flight(in_flight);
            let mut scorer = match VkScorer::new(w, h, 8, &opts, &vk_opts) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("gpu_frame: no usable Vulkan device ({e}); skipped");
                    return;
                }
            };
            let label = if in_flight == 1 {
                "1 in flight"
            } else {
                "default ring"
            };
            group.bench_function(
                BenchmarkId::new(format!("{w}x{h} {label}"), scorer.device_name()),
                |b| b.iter_custom(|iters| run(&mut scorer, &r, &d, iters)),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, gpu_frame);
criterion_main!(benches);
