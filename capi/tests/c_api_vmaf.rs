//! VMAF models through the C API: a C program (`tests/score_vmaf.c`, built
//! with `cc` against the generated header) scores a clip on a CPU scorer
//! whose description names `version=vmaf_v0.6.1`, the last frame released by
//! `vkssim_scorer_finish`, then on a Vulkan scorer of its own engine
//! (validation on, no message allowed); every value of every frame (`vmaf`,
//! `integer_motion2`, every feature), by name and in order, must equal bit
//! for bit, on both, what the Rust API's streaming scorer gives on the CPU
//! twin (which `tests/tests/stream_vs_vmaf.rs` proves equal to the `vmaf`
//! CLI). Then the same for a scorer of two models and three features, 44
//! values a frame, taken as `VkssimFrame`s (a `VkssimScore` holds 40), and
//! for the default model with libvmaf 3.2.0's motion (`motion_version`). The
//! frames are 184x176, the least float_ms_ssim's five scales take.

use std::process::Command;

use vkssim::api::{HostPlane, Pair, ScoreQueue, Scorer, ScorerDesc};
use vkssim::metric::config::parse_list;
use vkssim::metric::{Models, MotionVersion};

#[allow(dead_code)] // each test binary uses part of it
mod common;
use common::{crate_dir, lib_dir, library_path_first};

const WIDTH: u32 = 184;
const HEIGHT: u32 = 176;
const FRAMES: usize = 4;

/// `FRAMES` deterministic 8-bit planes: a moving gradient with texture
/// (`noise`: added noise of that amplitude).
fn planes(seed: u32, base: &[Vec<u8>], noise: u32) -> Vec<Vec<u8>> {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    (0..FRAMES)
        .map(|f| {
            (0..(WIDTH * HEIGHT) as usize)
                .map(|i| {
                    let (x, y) = (i as u32 % WIDTH, i as u32 / WIDTH);
                    let v = match base.get(f) {
                        Some(b) => b[i] as u32 + next() % (2 * noise + 1),
                        None => (x * 3 + y * 2 + f as u32 * 7) % 200 + next() % 40,
                    };
                    v.saturating_sub(noise).min(255) as u8
                })
                .collect()
        })
        .collect()
}

/// `(name, bits)` of every value per frame, as the C program printed them
/// on the lines that start with `prefix` then `frame=`.
fn parse(stdout: &str, prefix: &str) -> Vec<Vec<(String, u64)>> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter(|l| l.starts_with("frame="))
        .map(|l| {
            l.split(' ')
                .skip(1)
                .map(|kv| {
                    let (k, v) = kv.split_once('=').expect("name=bits");
                    (k.to_string(), u64::from_str_radix(v, 16).expect("hex"))
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_c_program_scores_vmaf_like_the_rust_api() {
    let reference = planes(3, &[], 0);
    let distorted = planes(5, &reference, 9);

    let desc = ScorerDesc::new(WIDTH, HEIGHT, 8).with_models(Models::default_model().unwrap());
    let want = rust_frames(&desc, &reference, &distorted);
    assert!(want[0].iter().any(|(n, _)| n == "vmaf"));
    let models = ["version=vmaf_v0.6.1", "version=vmaf_v0.6.1neg:name=neg"].map(String::from);
    let features = [
        "float_ms_ssim=enable_lcs=true",
        "float_ssim=enable_lcs=true",
        "psnr=enable_mse=true:enable_chroma=false",
    ];
    let many = ScorerDesc::new(WIDTH, HEIGHT, 8)
        .with_models(Models::parse(&models).unwrap())
        .with_metrics(parse_list(&features).unwrap());
    let want_many = rust_frames(&many, &reference, &distorted);
    assert_eq!(want_many[0].len(), 44);
    let v32 = desc.clone().with_motion_version(MotionVersion::V3_2_0);
    let want_v32 = rust_frames(&v32, &reference, &distorted);
    assert!(want_v32[0].iter().any(|(n, _)| n == "integer_motion3"));
    let motion2 = |frames: &[Vec<(String, u64)>]| -> Vec<u64> {
        frames
            .iter()
            .flat_map(|f| f.iter().filter(|(n, _)| n == "integer_motion2"))
            .map(|(_, v)| *v)
            .collect()
    };
    assert_ne!(motion2(&want_v32), motion2(&want), "3.2.0's motion differs");

    let dir = tempfile::tempdir().expect("temp dir");
    let (rp, dp) = (dir.path().join("ref.y"), dir.path().join("dist.y"));
    std::fs::write(&rp, reference.concat()).expect("write ref");
    std::fs::write(&dp, distorted.concat()).expect("write dist");
    let lib = lib_dir();
    let exe = dir.path().join("score_vmaf");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/score_vmaf.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lvkssim_capi")
        .output()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(
        out.status.success(),
        "compiling score_vmaf.c failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe)
        .arg(&rp)
        .arg(&dp)
        .args([WIDTH, HEIGHT].map(|n| n.to_string()))
        .arg(FRAMES.to_string())
        .arg("vulkan")
        .env("VKSSIM_VALIDATION", "1")
        .env("LD_LIBRARY_PATH", library_path_first(&lib))
        .output()
        .expect("running score_vmaf");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "score_vmaf failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // (the lines' prefix, what the Rust API's CPU twin gives, what they are)
    for (prefix, expected, what) in [
        ("", &want, "CPU frames"),
        ("vulkan ", &want, "Vulkan frames"),
        ("many ", &want_many, "CPU frames of 44 values"),
        ("vulkan many ", &want_many, "Vulkan frames of 44 values"),
        ("v32 ", &want_v32, "CPU frames with 3.2.0's motion"),
        (
            "vulkan v32 ",
            &want_v32,
            "Vulkan frames with 3.2.0's motion",
        ),
    ] {
        assert_eq!(
            &parse(&stdout, prefix),
            expected,
            "the C API's {what} differ from the Rust API's CPU twin"
        );
    }
}

/// `(name, bits)` of every value of every frame, scored by the Rust API's
/// CPU twin.
fn rust_frames(
    desc: &ScorerDesc,
    reference: &[Vec<u8>],
    distorted: &[Vec<u8>],
) -> Vec<Vec<(String, u64)>> {
    let mut scorer = Scorer::cpu(desc, 2).expect("CPU scorer");
    let w = WIDTH as usize;
    for (r, d) in reference.iter().zip(distorted) {
        scorer
            .submit(Pair::new(HostPlane::u8(r, w), HostPlane::u8(d, w)))
            .expect("submit");
    }
    scorer.finish();
    let frames: Vec<Vec<(String, u64)>> = std::iter::from_fn(|| scorer.wait())
        .map(|r| {
            let s = r.expect("a score");
            s.iter()
                .map(|(n, v)| (n.to_string(), v.to_bits()))
                .collect()
        })
        .collect();
    assert_eq!(frames.len(), FRAMES);
    frames
}
