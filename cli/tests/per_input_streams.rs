//! Streams chosen per input (issue 29, item 4): `--stream` selects the
//! distorted input's video stream (one for every `-d`, or a comma list with
//! one per `-d`), `--reference-stream` the reference's. The README's own
//! example, `vkssim score -r ref.y4m -d dist.mp4 --stream 1`, scores stream
//! 1 of the MP4 against the Y4M, with the values of that stream extracted by
//! `ffmpeg`; a Y4M or raw input asked for a stream other than the first is an
//! error naming it.
#![cfg(feature = "ffmpeg")]

mod common;
mod encoded_clips;

use std::path::{Path, PathBuf};

use common::{assert_fails, assert_ok, run, run_cmd, s, vkssim};
use encoded_clips::{clip, ffmpeg, score_args, without_fps};

/// The reference: 6 frames of `ffmpeg`'s test pattern, 192x108, as Y4M.
fn reference() -> PathBuf {
    clip(
        "streams-ref.y4m",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=192x108:rate=25",
            "-frames:v",
            "6",
            "-pix_fmt",
            "yuv420p",
            "-f",
            "yuv4mpegpipe",
        ],
    )
}

/// An MP4 with two video streams: 0 another picture of another size, 1 the
/// reference encoded by x264 (the one to score).
fn two_streams(name: &str) -> PathBuf {
    let r = reference();
    clip(
        name,
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=160x90:rate=25:duration=0.24",
            "-i",
            s(&r),
            "-map",
            "0:v",
            "-map",
            "1:v",
            "-c:v",
            "libx264",
            "-crf",
            "32",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// Video stream `n` of `input` as ffmpeg decodes it, as Y4M in `dir`.
fn extracted(input: &Path, n: usize, dir: &Path) -> PathBuf {
    let out = dir.join(format!("stream{n}.y4m"));
    let map = format!("0:v:{n}");
    ffmpeg(&["-i", s(input), "-map", &map, "-f", "yuv4mpegpipe", s(&out)]);
    out
}

/// `vkssim score` at full precision into `out` (CPU twin, JSON), plus `extra`.
fn scored(reference: &Path, distorted: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = score_args(s(reference), s(distorted), out);
    args.extend(extra);
    assert_ok(&run(&args, None));
    without_fps(out)
}

/// The README's example exactly (run where `ref.y4m` and `dist.mp4` are):
/// its summary equals the one of stream 1 extracted by ffmpeg, and so do the
/// full-precision values.
#[test]
fn the_readmes_example_scores_stream_1_of_the_distorted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(reference(), d.join("ref.y4m")).unwrap();
    std::fs::copy(two_streams("streams-two.mp4"), d.join("dist.mp4")).unwrap();
    let one = extracted(&d.join("dist.mp4"), 1, d);
    let readme = run_cmd(
        vkssim()
            .current_dir(d)
            .args([
                "score",
                "-n",
                "--feature",
                "float_ssim",
                "-r",
                "ref.y4m",
                "-d",
                "dist.mp4",
                "--stream",
                "1",
            ])
            .stdin(std::process::Stdio::null()),
        None,
    );
    assert_ok(&readme);
    let want = run_cmd(
        vkssim()
            .current_dir(d)
            .args([
                "score",
                "-n",
                "--feature",
                "float_ssim",
                "-r",
                "ref.y4m",
                "-d",
                s(&one),
            ])
            .stdin(std::process::Stdio::null()),
        None,
    );
    assert_ok(&want);
    assert!(!readme.stdout.is_empty());
    assert_eq!(readme.stdout, want.stdout);
    // Every value, as exact decimals.
    let r = d.join("ref.y4m");
    assert_eq!(
        scored(
            &r,
            &d.join("dist.mp4"),
            &d.join("a.json"),
            &["--stream", "1"]
        ),
        scored(&r, &one, &d.join("b.json"), &[])
    );
}

/// `--reference-stream 1` takes the reference's own stream 1, whatever
/// `--stream` says of the distorted input; a Y4M input asked for stream 1
/// (by either flag) is an error naming it.
#[test]
fn the_reference_has_its_own_stream_option() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mp4 = two_streams("streams-two.mp4");
    let one = extracted(&mp4, 1, d);
    let y4m = reference();
    // The encoded stream as the reference, the Y4M as the distorted input.
    assert_eq!(
        scored(&mp4, &y4m, &d.join("a.json"), &["--reference-stream", "1"]),
        scored(&one, &y4m, &d.join("b.json"), &[])
    );
    // Both inputs the MP4: stream 1 against stream 1.
    let same = scored(
        &mp4,
        &mp4,
        &d.join("c.json"),
        &["--reference-stream", "1", "--stream", "1"],
    );
    assert_eq!(same, scored(&one, &one, &d.join("e.json"), &[]));
    // A Y4M has only stream 0, as reference or as distorted input.
    let f = d.join("f.json");
    for (a, b) in [(&y4m, &mp4), (&mp4, &y4m)] {
        let mut args = score_args(s(a), s(b), &f);
        args.extend(["--reference-stream", "1", "--stream", "1"]);
        assert_fails(&run(&args, None), &["streams-ref.y4m", "stream 1"]);
    }
    // Stream 0 of a Y4M is the Y4M.
    assert_eq!(
        scored(&y4m, &one, &d.join("g.json"), &["--reference-stream", "0"]),
        scored(&y4m, &one, &d.join("h.json"), &[])
    );
}

/// A ladder with a stream per input (`--stream 1,0`): each output equals its
/// single run; a list of another length than the `-d`s is refused, saying so.
#[test]
fn a_ladder_takes_a_stream_per_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = reference();
    let mp4 = two_streams("streams-two.mp4");
    let one = extracted(&mp4, 1, d);
    let out = d.join("o");
    let pattern = out.join("{index}.json");
    let mut args = vec![
        "score",
        "-n",
        "--feature",
        "float_ssim",
        "-r",
        s(&r),
        "-d",
        s(&mp4),
        "-d",
        s(&one),
    ];
    args.extend(["-q", "--backend", "cpu", "--json", "--precision", "max"]);
    args.extend(["-o", s(&pattern), "--stream", "1,0"]);
    std::fs::create_dir(&out).unwrap();
    assert_ok(&run(&args, None));
    let single = scored(&r, &one, &d.join("single.json"), &[]);
    assert_eq!(without_fps(&out.join("0.json")), single);
    assert_eq!(without_fps(&out.join("1.json")), single);
    // One stream for every input: stream 1 of a Y4M is refused (that input
    // alone fails).
    let last = args.len() - 1;
    args[last] = "1";
    let o = run(&args, None);
    assert_fails(&o, &["stream 1"]);
    assert_eq!(without_fps(&out.join("0.json")), single);
    // Three streams for two inputs.
    args[last] = "1,0,0";
    let o = run(&args, None);
    assert_fails(&o, &["--stream 1,0,0", "3 streams for 2 distorted inputs"]);
}
