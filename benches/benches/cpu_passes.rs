//! Criterion benchmarks of the CPU twin's passes on a deterministic 1920x1080
//! 8-bit pair (auto scale 4): decimation, the Gaussian filters, the per-pixel
//! l/c/s map, the frame means, a whole frame, and the threaded `CpuScorer` at 1
//! and 2 threads (time per frame).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use vkssim::testing::cpu;
use vkssim::testing::CpuScorer;
use vkssim::testing::FrameScorer;
use vkssim::{LumaFrame, SsimOptions};

const W: u32 = 1920;
const H: u32 = 1080;

/// A textured, deterministic 8-bit plane: gradients plus xorshift noise.
fn frame(seed: u32, noise: u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(W, H, 8);
    let mut st = seed.wrapping_mul(2_654_435_761) | 1;
    for y in 0..H {
        for x in 0..W {
            st ^= st << 13;
            st ^= st >> 17;
            st ^= st << 5;
            let base = (x / 3 + y / 5 + (x * y) / 97) % 200;
            f.bytes[(y * W + x) as usize] = (base + st % noise) as u8;
        }
    }
    f
}

fn passes(c: &mut Criterion) {
    let reference = frame(1, 40);
    let distorted = frame(2, 55);
    let opts = SsimOptions::default();
    let geometry = cpu::check_geometry(W, H, 8, &opts).expect("1080p is scorable");
    let scale = geometry.scale;
    let r = cpu::decimate::decimate_luma(&reference.view(), scale).expect("decimate");
    let d = cpu::decimate::decimate_luma(&distorted.view(), scale).expect("decimate");
    let filtered = cpu::gaussian_filter_all(&r, &d).expect("filter");
    let terms = cpu::lcs_terms(&filtered);

    let mut g = c.benchmark_group("cpu_1080p");
    g.bench_function("samples_to_f32", |b| {
        b.iter(|| cpu::luma_to_plane(black_box(&reference.view())))
    });
    g.bench_function(format!("decimate_luma_scale{scale}"), |b| {
        b.iter(|| cpu::decimate::decimate_luma(black_box(&reference.view()), scale))
    });
    g.bench_function("gaussian_filter_all", |b| {
        b.iter(|| cpu::gaussian_filter_all(black_box(&r), black_box(&d)))
    });
    g.bench_function("lcs_terms", |b| {
        b.iter(|| cpu::lcs_terms(black_box(&filtered)))
    });
    g.bench_function("frame_means", |b| {
        b.iter(|| cpu::frame_means(black_box(&terms)))
    });
    g.bench_function("ssim_means_after_decimation", |b| {
        b.iter(|| cpu::ssim_means(black_box(&r), black_box(&d)))
    });
    g.bench_function("score_frame", |b| {
        b.iter(|| cpu::score_frame(black_box(&reference.view()), &distorted.view(), &opts))
    });
    let scale1 = SsimOptions { scale: 1, ..opts };
    g.sample_size(10);
    g.bench_function("score_frame_scale1", |b| {
        b.iter(|| cpu::score_frame(black_box(&reference.view()), &distorted.view(), &scale1))
    });
    g.finish();
}

/// Time per frame through the threaded scorer, submitting a batch of pairs and
/// waiting for all of them.
fn scorer(c: &mut Criterion) {
    let reference = frame(1, 40);
    let distorted = frame(2, 55);
    let mut g = c.benchmark_group("cpu_scorer_1080p");
    g.throughput(Throughput::Elements(1));
    for threads in [1usize, 2] {
        let mut scorer = CpuScorer::float_ssim(SsimOptions::default(), threads).expect("scorer");
        g.bench_with_input(BenchmarkId::new("threads", threads), &threads, |b, _| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let batch = left.min(16);
                    let start = Instant::now();
                    for _ in 0..batch {
                        scorer
                            .submit(reference.clone(), distorted.clone())
                            .expect("submit");
                        while let Some(r) = scorer.poll_next() {
                            black_box(r.expect("score"));
                        }
                    }
                    while let Some(r) = scorer.wait_next() {
                        black_box(r.expect("score"));
                    }
                    total += start.elapsed();
                    left -= batch;
                }
                total
            })
        });
    }
    g.finish();
}

criterion_group!(benches, passes, scorer);
criterion_main!(benches);
