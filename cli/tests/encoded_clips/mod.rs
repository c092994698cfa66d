//! Clips for the encoded-input tests, made by the system `ffmpeg` (small, few
//! frames) and cached under the target directory's test scratch folder, and
//! ffmpeg's own decoding of them.
#![allow(dead_code)]

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::common::s;

/// Where the clips are cached.
pub fn clips_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("encoded-clips");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the system `ffmpeg` with `args`; panics with its message on failure.
pub fn ffmpeg(args: &[&str]) {
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y"])
        .args(args)
        .output()
        .expect("running ffmpeg (tools/setup-debian.sh installs it)");
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A clip named `name` made by `ffmpeg ARGS... OUT` once (the cache key is
/// the arguments' hash), written under a temporary name and renamed, so
/// that parallel tests and processes never see half a file.
pub fn clip(name: &str, args: &[&str]) -> PathBuf {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (name, args).hash(&mut h);
    let path = clips_dir().join(format!("{:016x}-{name}", h.finish()));
    if !path.exists() {
        let tmp = clips_dir().join(format!(
            "tmp-{}-{:?}-{name}",
            std::process::id(),
            std::thread::current().id()
        ));
        let mut all: Vec<&str> = args.to_vec();
        all.push(s(&tmp));
        ffmpeg(&all);
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

/// `ffmpeg`'s test pattern of `size`, `frames` frames at 25 fps, as input
/// arguments.
pub fn source(size: &str, frames: u32) -> Vec<String> {
    format!("-f lavfi -i testsrc2=size={size}:rate=25 -frames:v {frames}")
        .split(' ')
        .map(String::from)
        .collect()
}

/// [`clip`] of [`source`] encoded with `encode` (space-separated arguments).
pub fn encoded(name: &str, size: &str, frames: u32, encode: &str) -> PathBuf {
    let mut args = source(size, frames);
    args.extend(encode.split(' ').map(String::from));
    clip(name, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `clean` with 48 bytes XOR-ed at 45% of the file and on, saved as `name`
/// among the clips: damage inside the coded frames.
pub fn damaged(clean: &Path, name: &str) -> PathBuf {
    let mut bytes = std::fs::read(clean).unwrap();
    let at = bytes.len() * 45 / 100;
    for b in &mut bytes[at..at + 48] {
        *b ^= 0x5a;
    }
    let path = clips_dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `ffmpeg -i input ARGS -fps_mode passthrough -f rawvideo out`.
pub fn ffmpeg_decode(input: &Path, args: &[&str], out: &Path) {
    let mut all = vec!["-i", s(input)];
    all.extend(args);
    all.extend(["-fps_mode", "passthrough", "-f", "rawvideo", s(out)]);
    ffmpeg(&all);
}

/// What `ffmpeg -i input -map 0:v:N -fps_mode passthrough -f rawvideo`
/// writes, saved as `input.vN.yuv`.
pub fn ffmpeg_raw(input: &Path, stream: usize) -> PathBuf {
    let out = input.with_extension(format!("v{stream}.yuv"));
    ffmpeg_decode(input, &["-map", &format!("0:v:{stream}")], &out);
    out
}

/// The lines of an output file but its fps figure (a timing).
pub fn without_fps(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    text.lines()
        .filter(|l| !l.contains("fps"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `vkssim score` arguments: `reference` against `distorted` on the CPU
/// backend, quiet, JSON at full precision into `out`.
pub fn score_args<'a>(reference: &'a str, distorted: &'a str, out: &'a Path) -> Vec<&'a str> {
    // float_ssim alone (a plain score runs VMAF's default model, as vmaf).
    let mut a = vec!["score", "-n", "--feature", "float_ssim"];
    a.extend(["-r", reference, "-d", distorted, "-q"]);
    a.extend([
        "--backend",
        "cpu",
        "--json",
        "--precision",
        "max",
        "-o",
        s(out),
    ]);
    a
}
