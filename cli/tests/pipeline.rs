//! The one scoring pipeline, end to end: the same frame selection (skips,
//! `--subsample`, `--frame_cnt`) gives the same frames and bit-identical
//! values whether an input is a file (read by position) or standard input
//! (read front to back into the frame slots), on both backends; and a stream
//! that ends between two scored frames is a length error counting both inputs,
//! with the frames before it kept.

mod common;

use common::{assert_fails, assert_ok, file, run, s, y4m_clip};

fn frames(out: &std::path::Path) -> Vec<(u64, u64)> {
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    j["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["frameNum"].as_u64().unwrap(),
                f["metrics"]["float_ssim"].as_f64().unwrap().to_bits(),
            )
        })
        .collect()
}

#[test]
fn streams_and_files_select_the_same_frames_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let r = y4m_clip(40, 36, 9, 1);
    let d = y4m_clip(40, 36, 8, 60);
    let (rp, dp) = (file(dir.path(), "r.y4m", &r), file(dir.path(), "d.y4m", &d));
    let out = dir.path().join("out.json");
    let flags = [
        "--frame_skip_ref",
        "1",
        "--subsample",
        "3",
        "--frame_cnt",
        "7",
        "--json",
        "--precision",
        "max",
        "-o",
        s(&out),
    ];
    let mut seen = Vec::new();
    for backend in ["cpu", "vulkan"] {
        for (reference, distorted, stdin) in [
            (s(&rp), s(&dp), None),
            ("-", s(&dp), Some(&r)),
            (s(&rp), "-", Some(&d)),
        ] {
            let mut args = vec![
                "score",
                "-n",
                "--feature",
                "float_ssim",
                "-r",
                reference,
                "-d",
                distorted,
            ];
            args.extend(["--backend", backend]);
            args.extend(flags);
            let o = run(&args, stdin.map(|v| v.as_slice()));
            assert_ok(&o);
            let got = frames(&out);
            let nums: Vec<u64> = got.iter().map(|f| f.0).collect();
            assert_eq!(nums, [0, 3, 6], "{backend} {reference} {distorted}");
            seen.push(got);
        }
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
}

#[test]
fn a_stream_ending_between_scored_frames_is_a_length_error() {
    let dir = tempfile::tempdir().unwrap();
    let r = y4m_clip(40, 36, 5, 1);
    let dp = file(dir.path(), "d.y4m", &y4m_clip(40, 36, 8, 60));
    let out = dir.path().join("out.json");
    let args = [
        "score",
        "-n",
        "--feature",
        "float_ssim",
        "-r",
        "-",
        "-d",
        s(&dp),
        "--subsample",
        "3",
        "--json",
        "-o",
        s(&out),
    ];
    let o = run(&args, Some(&r));
    assert_fails(
        &o,
        &["reference has 5 frames but distorted has 8 (5 in common)"],
    );
    let partial = dir.path().join("out.json.partial");
    let nums: Vec<u64> = frames(&partial).iter().map(|f| f.0).collect();
    assert_eq!(nums, [0, 3]);

    let mut allowed = args.to_vec();
    allowed.push("--allow-length-mismatch");
    let o = run(&allowed, Some(&r));
    assert_ok(&o);
    let nums: Vec<u64> = frames(&out).iter().map(|f| f.0).collect();
    assert_eq!(nums, [0, 3]);
}
