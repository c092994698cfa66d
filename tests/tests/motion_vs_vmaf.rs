//! libvmaf's `motion` extractor (libvmaf 2.3.1's integer motion) on the CPU
//! twin, `vkssim::testing::motion`, against the `vmaf` CLI that libvmaf-sys
//! builds (`--feature motion`, `-n`, `--cpumask 255`, every value printed in
//! full by the shim): every frame's `integer_motion` and `integer_motion2`
//! compared bit for bit, at 8, 10, 12 and 16 bits, at even, odd and the
//! smallest sizes, on streams of 1, 2 and 5 frames (the edges of the min
//! rule), with `motion_force_zero` and `debug`, and with `--subsample` and
//! `--frame_cnt` (which frame is "previous", where the stream ends).

use std::path::Path;

use vkssim::testing::motion::{self, BlurredPlane, MotionOptions};
use vkssim::LumaFrame;
use vkssim_tests::synth;
use vkssim_tests::vmaf_cli::{run_vmaf, VmafXml};

/// A clip of `frames` reference frames: smooth texture whose noise and
/// offset move from frame to frame, with a noise frame in the middle.
fn clip(width: u32, height: u32, bit_depth: u32, frames: usize, seed: u64) -> Vec<LumaFrame> {
    let base = synth::textured(width, height, bit_depth, seed);
    (0..frames)
        .map(|n| match n {
            2 => synth::noise(width, height, bit_depth, seed + 100),
            _ => synth::perturb(
                &base,
                synth::peak(bit_depth) / 16 * n as u32,
                seed + n as u64,
            ),
        })
        .collect()
}

/// Writes `frames` as raw 4:4:4 (flat chroma) at `path`.
fn write_444(path: &Path, frames: &[LumaFrame]) {
    let mut bytes = Vec::new();
    for f in frames {
        bytes.extend_from_slice(&f.bytes);
        let mid = 1u32 << (f.bit_depth - 1);
        let chroma = synth::flat(f.width, f.height, f.bit_depth, mid);
        bytes.extend_from_slice(&chroma.bytes);
        bytes.extend_from_slice(&chroma.bytes);
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// vmaf on `frames` as the reference (the distorted is noise: motion must
/// not read it) with `--feature feature` and `extra` arguments.
fn vmaf(frames: &[LumaFrame], feature: &str, extra: &[&str]) -> VmafXml {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = &frames[0];
    let (w, h, bpc) = (f.width, f.height, f.bit_depth);
    let (r, d) = (dir.path().join("ref.yuv"), dir.path().join("dis.yuv"));
    write_444(&r, frames);
    let noise: Vec<LumaFrame> = (0..frames.len())
        .map(|n| synth::noise(w, h, bpc, 7 + n as u64))
        .collect();
    write_444(&d, &noise);
    let mut args: Vec<String> = vec![
        "-r".into(),
        r.display().to_string(),
        "-d".into(),
        d.display().to_string(),
        "-w".into(),
        w.to_string(),
        "-h".into(),
        h.to_string(),
        "-p".into(),
        "444".into(),
        "-b".into(),
        bpc.to_string(),
        "--feature".into(),
        feature.into(),
        "--cpumask".into(),
        "255".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    run_vmaf(&args, true).unwrap_or_else(|e| panic!("{e}"))
}

/// The twin's per-frame outputs for the whole stream `frames`, named and
/// ordered as `opts.output_names()`: `[motion2, motion]` (motion only with
/// `debug`).
fn ours(frames: &[LumaFrame], opts: &MotionOptions) -> Vec<Vec<(String, f64)>> {
    let f = &frames[0];
    motion::check_size(f.width, f.height, f.bit_depth, opts).unwrap();
    let mut previous: Option<BlurredPlane> = None;
    let mut scores = Vec::new();
    for frame in frames {
        // With force_zero nothing is blurred (libvmaf scores any size then).
        let current = if opts.force_zero {
            BlurredPlane {
                width: f.width,
                height: f.height,
                samples: Vec::new(),
            }
        } else {
            motion::blur(&frame.view()).unwrap()
        };
        scores.push(motion::motion_score(previous.as_ref(), &current, opts).unwrap());
        previous = Some(current);
    }
    let motion2 = motion::motion2(&scores);
    let names = opts.output_names();
    (0..frames.len())
        .map(|n| {
            names
                .iter()
                .zip([motion2[n], scores[n]])
                .map(|(name, v)| (name.clone(), v))
                .collect()
        })
        .collect()
}

/// Asserts that `got` equals vmaf's frames bit for bit, names and order too.
fn assert_same(what: &str, got: &[Vec<(String, f64)>], vmaf: &VmafXml) {
    assert_eq!(got.len(), vmaf.frames.len(), "{what}: frame count");
    for (n, (ours, theirs)) in got.iter().zip(&vmaf.frames).enumerate() {
        let bits = |v: &[(String, f64)]| -> Vec<(String, u64)> {
            v.iter().map(|(k, x)| (k.clone(), x.to_bits())).collect()
        };
        assert_eq!(
            bits(ours),
            bits(theirs),
            "{what}: frame {n}: ours {ours:?}, vmaf {theirs:?}"
        );
    }
}

/// Runs both on `frames` with `feature` (`motion[=options]`) and compares.
fn check(what: &str, frames: &[LumaFrame], feature: &str, opts: &MotionOptions) {
    let vmaf = vmaf(frames, feature, &[]);
    let got = ours(frames, opts);
    assert_same(what, &got, &vmaf);
    let nonzero = got
        .iter()
        .filter(|f| f.iter().any(|(_, v)| *v != 0.0))
        .count();
    eprintln!(
        "{what}: {} frames identical ({nonzero} non-zero)",
        got.len()
    );
}

#[test]
fn every_frame_matches_at_each_bit_depth_and_size() {
    let sizes = [(64, 48), (67, 35), (33, 5), (3, 3), (3, 8), (8, 3), (5, 4)];
    for bpc in [8, 10, 12, 16] {
        for (i, &(w, h)) in sizes.iter().enumerate() {
            let frames = clip(w, h, bpc, 5, 11 + i as u64);
            check(
                &format!("{w}x{h} {bpc}-bit"),
                &frames,
                "motion",
                &MotionOptions::default(),
            );
        }
    }
}

#[test]
fn larger_frames_and_extreme_samples() {
    // 352x288 video-like content, and full-range black/white alternation.
    check(
        "352x288 8-bit",
        &clip(352, 288, 8, 3, 3),
        "motion",
        &MotionOptions::default(),
    );
    for bpc in [8, 10, 12, 16] {
        let peak = synth::peak(bpc);
        let frames = [
            synth::flat(19, 13, bpc, peak),
            synth::from_fn(19, 13, bpc, |x, y| if (x + y) % 2 == 0 { peak } else { 0 }),
            synth::flat(19, 13, bpc, 0),
            synth::gradient(19, 13, bpc),
        ];
        check(
            &format!("19x13 {bpc}-bit extremes"),
            &frames,
            "motion",
            &MotionOptions::default(),
        );
    }
}

#[test]
fn one_two_and_five_frames() {
    for frames in [1, 2, 5] {
        for bpc in [8, 10] {
            check(
                &format!("{frames} frames {bpc}-bit"),
                &clip(41, 23, bpc, frames, 5),
                "motion",
                &MotionOptions::default(),
            );
        }
    }
}

#[test]
fn options_force_zero_and_debug() {
    let frames = clip(48, 32, 10, 4, 9);
    for (feature, settings) in [
        ("motion=debug=false", &[("debug", "false")][..]),
        ("motion=debug=true", &[("debug", "true")][..]),
        (
            "motion=motion_force_zero=true",
            &[("motion_force_zero", "true")][..],
        ),
        (
            "motion=motion_force_zero=true:debug=false",
            &[("motion_force_zero", "true"), ("debug", "false")][..],
        ),
        (
            "motion=motion_force_zero=false",
            &[("motion_force_zero", "false")][..],
        ),
    ] {
        let mut opts = MotionOptions::default();
        for (k, v) in settings {
            opts.set(k, v).unwrap();
        }
        check(feature, &frames, feature, &opts);
    }
    // With motion_force_zero libvmaf blurs nothing and scores even 1x1 and 2x2.
    let forced = MotionOptions {
        force_zero: true,
        ..MotionOptions::default()
    };
    for (w, h) in [(1, 1), (2, 2)] {
        let frames = clip(w, h, 8, 3, 1);
        check(
            &format!("{w}x{h} force_zero"),
            &frames,
            "motion=motion_force_zero=true",
            &forced,
        );
    }
}

#[test]
fn subsample_and_frame_cnt_keep_the_frames_read() {
    let frames = clip(40, 30, 8, 7, 21);
    let all = ours(&frames, &MotionOptions::default());
    for n in [2, 3] {
        let vmaf = vmaf(&frames, "motion", &["--subsample", &n.to_string()]);
        let want: Vec<_> = all.iter().step_by(n).cloned().collect();
        assert_same(&format!("--subsample {n}"), &want, &vmaf);
    }
    // The stream ends at --frame_cnt: its last frame keeps its own motion.
    let vmaf = vmaf(&frames, "motion", &["--frame_cnt", "4"]);
    assert_same(
        "--frame_cnt 4",
        &ours(&frames[..4], &MotionOptions::default()),
        &vmaf,
    );
}

#[test]
fn too_small_frames_are_refused() {
    let opts = MotionOptions::default();
    for (w, h) in [(2, 3), (3, 2), (1, 1), (2, 100), (100, 1)] {
        let err = motion::check_size(w, h, 8, &opts).unwrap_err().to_string();
        assert!(
            err.contains(&format!("{w}x{h}")) && err.contains("too small"),
            "{err}"
        );
        let frame = synth::flat(w, h, 8, 0);
        assert_eq!(
            motion::blur(&frame.view()).unwrap_err().to_string(),
            err,
            "blur refuses with the same message"
        );
    }
    assert!(motion::check_size(3, 3, 8, &opts).is_ok());
    let err = motion::check_size(64, 64, 9, &opts)
        .unwrap_err()
        .to_string();
    assert!(err.contains("bit depth 9"), "{err}");
}
