//! Helpers shared by the end-to-end test files: running the `vkssim` binary and
//! writing small Y4M clips. (Each test file uses a subset of them.)
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub fn vkssim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vkssim"))
}

/// Runs `cmd` to its end, feeding it `stdin` (from a thread, so a child that
/// stops reading cannot block the test) or leaving its standard input as `cmd`
/// sets it.
pub fn run_cmd(cmd: &mut Command, stdin: Option<&[u8]>) -> Output {
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("starting vkssim");
    if let Some(data) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    child.wait_with_output().expect("waiting for vkssim")
}

/// Runs the binary with `args`, optionally feeding `stdin`.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_cmd(vkssim().args(args).stdin(Stdio::null()), stdin)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a failure (not a panic) with a message containing every one of
/// `needles`.
pub fn assert_fails(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected failure, got success; stderr: {err}"
    );
    assert_ne!(
        o.status.code(),
        Some(101),
        "exit status 101 is a panic: {err}"
    );
    assert!(!err.contains("panicked"), "panic: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

pub fn assert_ok(o: &Output) {
    assert!(o.status.success(), "vkssim failed: {}", stderr(o));
}

/// The path as `&str` (test paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The Y4M header of an 8-bit 4:2:0 clip.
pub fn y4m_header(width: u32, height: u32) -> Vec<u8> {
    format!("YUV4MPEG2 W{width} H{height} F25:1 Ip A1:1 C420jpeg\n").into_bytes()
}

/// One Y4M frame (with its `FRAME` line) of an 8-bit 4:2:0 clip: a smooth
/// pattern that `seed` shifts, and flat chroma.
pub fn y4m_frame(width: u32, height: u32, seed: u32) -> Vec<u8> {
    let mut bytes = b"FRAME\n".to_vec();
    for y in 0..height {
        for x in 0..width {
            let v = (x * 7 + y * 5 + seed * 13 + (x * y) % (seed % 5 + 3)) % 256;
            bytes.push(v as u8);
        }
    }
    let chroma = 2 * width.div_ceil(2) as usize * height.div_ceil(2) as usize;
    bytes.resize(bytes.len() + chroma, 128);
    bytes
}

/// A whole Y4M clip of `frames` frames, seeds `seed`, `seed + 1`, ...
pub fn y4m_clip(width: u32, height: u32, frames: u32, seed: u32) -> Vec<u8> {
    let mut bytes = y4m_header(width, height);
    for i in 0..frames {
        bytes.extend(y4m_frame(width, height, seed + i));
    }
    bytes
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A reference and a distorted Y4M clip of 3 frames, `width` x `height`, in `dir`
/// (`ref.y4m`, `dist.y4m`).
pub fn y4m_pair(dir: &Path, width: u32, height: u32) -> (PathBuf, PathBuf) {
    (
        file(dir, "ref.y4m", &y4m_clip(width, height, 3, 1)),
        file(dir, "dist.y4m", &y4m_clip(width, height, 3, 50)),
    )
}

/// Runs `vkssim score -n --feature float_ssim ARGS` (float_ssim alone, no
/// VMAF model: the run most of these tests were written for).
pub fn score_float_ssim(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut all = vec!["score", "-n", "--feature", "float_ssim"];
    all.extend_from_slice(args);
    run(&all, stdin)
}

/// What a `score` command line adds so that it runs the metrics `extra`
/// names and no VMAF model (a plain `score` runs vmaf_v0.6.1, as `vmaf`
/// does): nothing when `extra` names a model or `-n`, `-n` when it names a
/// `--feature`, else `-n --feature float_ssim` (the run these tests were
/// written for).
pub fn no_model(extra: &[&str]) -> &'static [&'static str] {
    let has = |f: &dyn Fn(&str) -> bool| extra.iter().any(|a| f(a));
    if has(&|a| matches!(a, "-m" | "--model" | "-n" | "--no_prediction")) {
        &[]
    } else if has(&|a| a == "--feature" || a.starts_with("--feature=")) {
        &["-n"]
    } else {
        &["-n", "--feature", "float_ssim"]
    }
}
