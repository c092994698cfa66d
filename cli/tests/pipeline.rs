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

/// The ring a Vulkan run made, from the engine's log line ("Vulkan scorer
/// ready ... frames_in_flight=N").
fn ring_made(o: &std::process::Output) -> String {
    assert_ok(o);
    let err = String::from_utf8_lossy(&o.stderr);
    let at = err
        .find("frames_in_flight=")
        .unwrap_or_else(|| panic!("no frames_in_flight in the log: {err}"));
    err[at + "frames_in_flight=".len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect()
}

/// A run whose length the inputs (or --frame_cnt) give gets a ring of one
/// slot per 64 pairs, 8 at least, instead of one sized for its 12 readers
/// (3 x 12 + 4 = 40 slots, each slot's device memory allocated once per
/// run); several devices each size theirs by their share; --frames-in-flight
/// is kept whatever the length.
#[test]
fn a_short_run_gets_a_short_ring() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let clip = |frames| {
        let r = file(dir.path(), "r.y4m", &y4m_clip(40, 36, frames, 1));
        let d = file(dir.path(), "d.y4m", &y4m_clip(40, 36, frames, 60));
        (r, d)
    };
    let scored = |(r, d): &(std::path::PathBuf, std::path::PathBuf), feature, extra: &[&str]| {
        ring_made(&common::run_cmd(
            common::vkssim()
                .env("VKSSIM_LOG", "info")
                .args(["-r", s(r), "-d", s(d), "-n", "--feature", feature])
                .args(["--backend", "vulkan", "--read-threads", "12", "-q"])
                .args(["--json", "-o", s(&out)])
                .args(extra),
            None,
        ))
    };
    let ring = |pair, extra: &[&str]| scored(pair, "psnr", extra);
    let short = clip(20);
    assert_eq!(ring(&short, &[]), "8", "20 pairs");
    assert_eq!(ring(&short, &["--frame_cnt", "3"]), "8", "3 pairs");
    assert_eq!(
        ring(&short, &["--frames-in-flight", "20"]),
        "20",
        "a set ring"
    );
    let long = clip(1_100);
    assert_eq!(ring(&long, &[]), "18", "1,100 pairs");
    assert_eq!(ring(&long, &["--subsample", "2"]), "9", "550 pairs scored");
    // An aggregate value (apsnr) scores every frame whatever --subsample.
    let apsnr = scored(&long, "psnr=enable_apsnr=true", &["--subsample", "4"]);
    assert_eq!(apsnr, "18", "every frame scored");
    assert_eq!(ring(&long, &["--device", "0,0"]), "9", "550 pairs a scorer");
    // Without a length (the engine's own choice for 12 readers).
    let o = common::run_cmd(
        common::vkssim()
            .env("VKSSIM_LOG", "info")
            .args(["bench", "-w", "40", "-h", "36", "--frames", "4", "--no-cpu"])
            .args([
                "--backend",
                "vulkan",
                "--read-threads",
                "12",
                "-n",
                "--feature",
                "psnr",
            ]),
        None,
    );
    assert_eq!(ring_made(&o), "40", "bench passes no length");
}
