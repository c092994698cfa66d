//! End-to-end tests of the input items of the third reliability round
//! (issue 29): memory that stays flat in the number of encoded packets read
//! (item 3), truncated containers (item 5), inputs that declare different
//! colour ranges (item 6), and the decoder's and demuxer's messages (item 9).
//! Each test is named after the item it covers.

mod common;
mod encoded_clips;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{assert_fails, assert_ok, run, s, stderr};
use encoded_clips::clip;

/// `--backend cpu` and the arguments to score `r` against `d`, quiet, psnr
/// only, JSON into `out`.
fn score_args<'a>(r: &'a Path, d: &'a Path, out: &'a Path) -> Vec<&'a str> {
    vec![
        "score",
        "-r",
        s(r),
        "-d",
        s(d),
        "-q",
        "--backend",
        "cpu",
        "--feature",
        "psnr",
        "--json",
        "-o",
        s(out),
    ]
}

/// Runs vkssim with `args` and returns its exit status and its peak resident
/// set size in KiB (the kernel's `ru_maxrss` of that one child, through
/// `wait4`).
fn peak_rss_kib(args: &[&str]) -> (i32, i64) {
    let child = Command::new(env!("CARGO_BIN_EXE_vkssim"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting vkssim");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child, not waited for yet (the Child is
    // never waited on through std afterwards); both pointers are valid.
    let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(r, child.id() as i32, "wait4 failed");
    assert!(libc::WIFEXITED(status), "vkssim did not exit normally");
    (libc::WEXITSTATUS(status), usage.ru_maxrss)
}

/// 320x240 4:2:0 noise, FFV1 in Matroska, `frames` frames: every packet
/// about as large as the raw frame (115 KB), `seed` choosing the noise.
fn ffv1_noise(frames: u32, seed: u32) -> PathBuf {
    let source = format!("testsrc2=size=320x240:rate=25,noise=alls=80:allf=t:all_seed={seed}");
    let frames = frames.to_string();
    clip(
        &format!("noise{seed}-{frames}.mkv"),
        &[
            "-f",
            "lavfi",
            "-i",
            &source,
            "-frames:v",
            &frames,
            "-pix_fmt",
            "yuv420p",
            "-c:v",
            "ffv1",
        ],
    )
}

/// Item 3: the demuxer's packets are released after each read: scoring 400
/// frames of an FFV1 pair (each packet about 115 KB, so 350 more frames of
/// both inputs are about 80 MB of packets) takes no more memory than scoring
/// 50 of them, within 16 MiB.
#[test]
fn item3_memory_flat_in_encoded_frames() {
    let r = ffv1_noise(400, 1);
    let d = ffv1_noise(400, 2);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let mut args = score_args(&r, &d, &out);
    args.extend(["--frame_cnt", "50"]);
    let (rc50, rss50) = peak_rss_kib(&args);
    let (rc400, rss400) = peak_rss_kib(&score_args(&r, &d, &out));
    assert_eq!((rc50, rc400), (0, 0), "vkssim failed");
    let grown = rss400 - rss50;
    assert!(
        grown < 16 * 1024,
        "peak RSS grew by {grown} KiB from 50 frames ({rss50} KiB) to 400 ({rss400} KiB)"
    );
}
