//! Times the CPU twin's stages on one thread, for a generated pair of a given
//! size: the sample conversion, the MS-SSIM low-pass pyramid, the SSIM stage
//! per scale, the whole `float_ms_ssim` and the whole set of three metrics
//! (float_ssim, psnr, float_ms_ssim). A profiling aid (median of `REPS`
//! runs, milliseconds per frame); BENCHMARKS.md takes its numbers from
//! `tools/bench-vs-vmaf.sh`.
//!
//! Run: `cargo run --release -p vkssim --example cpu_stages -- [WIDTH HEIGHT [BITDEPTH [REPS]]]`

use std::time::Instant;

use vkssim::io::Chroma;
use vkssim::metric::config::MetricConfig;
use vkssim::metric::MetricSet;
use vkssim::testing::cpu::{luma_to_plane, ms_ssim, score_metrics, ssim_means};
use vkssim::{LumaFrame, LumaView};

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: WIDTH HEIGHT [BITDEPTH [REPS]]"))
        .collect();
    let (w, h) = (
        args.first().copied().unwrap_or(1920),
        args.get(1).copied().unwrap_or(1080),
    );
    let depth = args.get(2).copied().unwrap_or(8);
    let reps = args.get(3).copied().unwrap_or(5) as usize;
    let (r, d) = pair(w, h, depth);
    let (rv, dv) = (r.view(), d.view());

    time("luma_to_plane x2", reps, || {
        luma_to_plane(&rv).unwrap();
        luma_to_plane(&dv).unwrap();
    });
    let (rp, dp) = (luma_to_plane(&rv).unwrap(), luma_to_plane(&dv).unwrap());
    time("pyramid x2", reps, || {
        ms_ssim::pyramid(rp.clone()).unwrap();
        ms_ssim::pyramid(dp.clone()).unwrap();
    });
    let (ra, da) = (
        ms_ssim::pyramid(rp.clone()).unwrap(),
        ms_ssim::pyramid(dp.clone()).unwrap(),
    );
    for (k, (a, b)) in ra.iter().zip(&da).enumerate() {
        time(&format!("ssim stage scale {k}"), reps, || {
            ssim_means(a, b).unwrap();
        });
    }
    // The SSIM stage on planes of one pixel count and other widths: how much
    // the width (the rows kept in cache) costs.
    if std::env::var_os("SHAPES").is_some() {
        for (sw, sh) in [(w / 4, h * 4), (w / 2, h * 2), (w, h), (w * 2, h / 2)] {
            let p = |seed: usize| {
                vkssim::testing::cpu::Plane::new(
                    sw,
                    sh,
                    (0..(sw * sh) as usize)
                        .map(|i| ((i * 7 + seed) % 251) as f32)
                        .collect(),
                )
                .unwrap()
            };
            let (a, b) = (p(0), p(3));
            time(&format!("ssim stage {sw}x{sh}"), reps, || {
                ssim_means(&a, &b).unwrap();
            });
        }
    }
    let configs = |names: &[&str]| -> MetricSet {
        let c: Vec<MetricConfig> = names.iter().map(|n| n.parse().unwrap()).collect();
        MetricSet::new(&c, w, h, depth, Some(Chroma::C420)).unwrap()
    };
    let ms = configs(&["float_ms_ssim"]);
    time("float_ms_ssim", reps, || {
        score_metrics(&[rv], &[dv], &ms).unwrap();
    });
    let ss = configs(&["float_ssim"]);
    time("float_ssim", reps, || {
        score_metrics(&[rv], &[dv], &ss).unwrap();
    });
    // psnr reads chroma: the frames carry it after luma.
    let (rc, dc) = (with_chroma(&r), with_chroma(&d));
    let (rcv, dcv) = (
        chroma_views(&rc, w, h, depth),
        chroma_views(&dc, w, h, depth),
    );
    let all = configs(&["float_ssim", "psnr", "float_ms_ssim"]);
    time("float_ssim psnr float_ms_ssim", reps, || {
        score_metrics(&rcv, &dcv, &all).unwrap();
    });
}

fn time(what: &str, reps: usize, mut f: impl FnMut()) {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    println!("{what:32} {:9.2} ms (min {:.2})", t[reps / 2], t[0]);
}

/// A reference with structure and a distorted copy with noise.
fn pair(w: u32, h: u32, depth: u32) -> (LumaFrame, LumaFrame) {
    let max = (1u32 << depth) - 1;
    let mut r = LumaFrame::zeroed(w, h, depth);
    let mut d = LumaFrame::zeroed(w, h, depth);
    let bps = if depth == 8 { 1 } else { 2 };
    let mut st = 0x1234_5678u32;
    for y in 0..h {
        for x in 0..w {
            st ^= st << 13;
            st ^= st >> 17;
            st ^= st << 5;
            let base = ((x * 7 + y * 3) % 256 + (x / 40 + y / 30) % 7 * 20) % 256;
            let v = (base << (depth - 8)).min(max);
            let n = (v as i64 + (st % 17) as i64 - 8).clamp(0, max as i64) as u32;
            let i = (y * w + x) as usize * bps;
            for (f, s) in [(&mut r, v), (&mut d, n)] {
                f.bytes[i] = s as u8;
                if bps == 2 {
                    f.bytes[i + 1] = (s >> 8) as u8;
                }
            }
        }
    }
    (r, d)
}

/// The frame's luma followed by two mid-grey 4:2:0 chroma planes.
fn with_chroma(f: &LumaFrame) -> Vec<u8> {
    let bps = if f.bit_depth == 8 { 1 } else { 2 };
    let chroma = (f.width.div_ceil(2) * f.height.div_ceil(2)) as usize * bps;
    let mut bytes = f.bytes.clone();
    bytes.extend((0..2 * chroma).map(|i| (i % 200) as u8));
    bytes
}

fn chroma_views(bytes: &[u8], w: u32, h: u32, depth: u32) -> Vec<LumaView<'_>> {
    let bps = if depth == 8 { 1 } else { 2 };
    let luma = (w * h) as usize * bps;
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let chroma = (cw * ch) as usize * bps;
    vec![
        LumaView::new(w, h, depth, w as usize * bps, &bytes[..luma]).unwrap(),
        LumaView::new(
            cw,
            ch,
            depth,
            cw as usize * bps,
            &bytes[luma..luma + chroma],
        )
        .unwrap(),
        LumaView::new(cw, ch, depth, cw as usize * bps, &bytes[luma + chroma..]).unwrap(),
    ]
}
