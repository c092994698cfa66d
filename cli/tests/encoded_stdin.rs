//! Encoded inputs on standard input (`-r -` or `-d -`): an MP4, MKV or
//! MPEG-TS stream piped in is recognised by its content and scored as the
//! same file named on the command line is; an MP4 whose index follows its
//! frames cannot come through a pipe, and the error says so (redirected from
//! the file, it can). Y4M and raw YUV on standard input are the other test
//! files' (pipeline.rs, input_safety.rs).
#![cfg(feature = "ffmpeg")]

mod common;
mod encoded_clips;

use std::process::{Command, Stdio};

use common::{assert_fails, assert_ok, run, run_cmd, s, vkssim};
use encoded_clips::{encoded, ffmpeg, score_args as args, without_fps};

/// The pair as files, then each container piped in as the reference, and as
/// the distorted input: the same output file every time.
#[test]
fn mp4_mkv_and_ts_piped_in_score_as_the_files_do() {
    let dir = tempfile::tempdir().unwrap();
    let reference = encoded(
        "stdin-ref.mp4",
        "192x108",
        12,
        "-c:v libx264 -crf 12 -bf 2 -movflags +faststart",
    );
    let distorted = encoded("stdin-dist.mkv", "192x108", 12, "-c:v libx264 -crf 40");
    let files_out = dir.path().join("files.json");
    assert_ok(&run(&args(s(&reference), s(&distorted), &files_out), None));
    let expected = without_fps(&files_out);
    assert!(
        expected.matches("\"float_ssim\"").count() > 12,
        "{expected}"
    );

    let mkv = dir.path().join("ref.mkv");
    let ts = dir.path().join("ref.ts");
    for remuxed in [&mkv, &ts] {
        ffmpeg(&["-i", s(&reference), "-c", "copy", s(remuxed)]);
    }
    for piped in [&reference, &mkv, &ts] {
        let bytes = std::fs::read(piped).unwrap();
        let out = dir.path().join("piped-ref.json");
        assert_ok(&run(&args("-", s(&distorted), &out), Some(&bytes)));
        assert_eq!(without_fps(&out), expected, "{} piped", piped.display());
    }
    let bytes = std::fs::read(&distorted).unwrap();
    let out = dir.path().join("piped-dist.json");
    assert_ok(&run(&args(s(&reference), "-", &out), Some(&bytes)));
    assert_eq!(without_fps(&out), expected, "the distorted MKV piped");
}

/// An MP4 whose index (moov) follows its frames: through a pipe, an error
/// that says why and what to do, status 1; redirected from the file (which
/// can seek), scored.
#[test]
fn an_mp4_with_its_index_at_the_end_cannot_come_through_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let at_end = encoded("moov-at-end.mp4", "192x108", 12, "-c:v libx264 -crf 12");
    let distorted = encoded("stdin-dist.mkv", "192x108", 12, "-c:v libx264 -crf 40");
    let out = dir.path().join("out.json");
    let bytes = std::fs::read(&at_end).unwrap();
    let o = run(&args("-", s(&distorted), &out), Some(&bytes));
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert_fails(
        &o,
        &[
            "the reference",
            "index (its moov box) follows its frames",
            "cannot be read from a pipe",
            "-movflags +faststart",
        ],
    );

    let files_out = dir.path().join("files.json");
    assert_ok(&run(&args(s(&at_end), s(&distorted), &files_out), None));
    let redirected = Stdio::from(std::fs::File::open(&at_end).unwrap());
    let mut cmd: Command = vkssim();
    cmd.args(args("-", s(&distorted), &out)).stdin(redirected);
    assert_ok(&run_cmd(&mut cmd, None));
    assert_eq!(without_fps(&out), without_fps(&files_out));
}

/// Bytes that no demuxer knows, piped in without a raw layout: an error
/// naming standard input and what raw YUV would need, never a panic.
#[test]
fn unknown_bytes_piped_in_say_what_they_would_need() {
    let dir = tempfile::tempdir().unwrap();
    let distorted = encoded("stdin-dist.mkv", "192x108", 12, "-c:v libx264 -crf 40");
    let out = dir.path().join("out.json");
    let noise: Vec<u8> = (0..20_000u32).map(|i| (i * 7919 % 251) as u8).collect();
    let o = run(&args("-", s(&distorted), &out), Some(&noise));
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert_fails(&o, &["the reference", "width, height, pixel format"]);
}
