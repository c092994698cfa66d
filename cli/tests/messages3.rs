//! End-to-end tests of the third reliability round's messages and input
//! rules (issue 29, items 7 and 9): counted nouns and articles before
//! numbers, the hint for standard input, raw YUV under any name when its
//! layout is given, and raw-layout flags that no input uses.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{assert_fails, assert_ok, file, no_model, run, run_cmd, s, stderr, vkssim, y4m_clip};

/// `score -r R -d D -q --backend cpu` and `rest`.
fn score<'a>(r: &'a Path, d: &'a Path, rest: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["score", "-r", s(r), "-d", s(d), "-q", "--backend", "cpu"];
    a.extend_from_slice(rest);
    a.extend_from_slice(no_model(rest));
    a
}

/// The raw frames of a Y4M clip made by [`y4m_clip`] (4:2:0, 8-bit): its
/// bytes without the header and the `FRAME` lines.
fn raw_frames(width: u32, height: u32, frames: u32, seed: u32) -> Vec<u8> {
    let y4m = y4m_clip(width, height, frames, seed);
    let header = y4m.iter().position(|&b| b == b'\n').unwrap() + 1;
    let frame = (width * height * 3 / 2) as usize;
    y4m[header..]
        .chunks_exact(b"FRAME\n".len() + frame)
        .flat_map(|chunk| &chunk[b"FRAME\n".len()..])
        .copied()
        .collect()
}

/// `ffmpeg -i INPUT ARGS OUT` in `dir`; the output's path.
fn ffmpeg(dir: &Path, input: &Path, args: &[&str], out: &str) -> PathBuf {
    let path = dir.join(out);
    let o = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i", s(input)])
        .args(args)
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .expect("running ffmpeg");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    path
}

/// A file's text with the fps figure left out.
fn without_fps(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter(|l| !l.contains("\"fps\""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Item 9: one frame, and one common frame, in the singular.
#[test]
fn one_frame_and_one_common_frame_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    let two = file(dir.path(), "two.y4m", &y4m_clip(32, 24, 2, 1));
    let one = file(dir.path(), "one.y4m", &y4m_clip(32, 24, 1, 5));
    let o = run(&score(&two, &one, &[]), None);
    assert_fails(
        &o,
        &[
            "reference has 2 frames but distorted has 1 (1 in common)",
            "pass --allow-length-mismatch to score the 1 common frame",
        ],
    );
    assert!(!stderr(&o).contains("common frames"), "{}", stderr(&o));
    let o = run(&score(&one, &two, &[]), None);
    assert_fails(
        &o,
        &["reference has 1 frame but distorted has 2 (1 in common)"],
    );
}

/// Item 9: `an 11x11 frame`, `an 11x11 plane` (and `a 64x48`).
#[test]
fn an_eleven_by_eleven_frame_takes_an() {
    let dir = tempfile::tempdir().unwrap();
    let plane = file(dir.path(), "a.yuv", &[60u8; 11 * 11 * 3]);
    let other = file(dir.path(), "b.yuv", &[70u8; 11 * 11 * 3]);
    let raw = ["-w", "11", "-h", "11", "-p", "444", "-b", "8"];
    let with = |feature: &'static str| {
        let mut a = raw.to_vec();
        a.extend(["--feature", feature]);
        a
    };
    let o = run(&score(&plane, &other, &with("float_ms_ssim")), None);
    assert_fails(&o, &["float_ms_ssim cannot score an 11x11 frame"]);
    let o = run(&score(&plane, &other, &with("float_ssim=scale=2")), None);
    assert_fails(&o, &["an 11x11 plane at scale 2 decimates to 6x6"]);
    let big = file(dir.path(), "c.yuv", &[60u8; 64 * 48 * 3]);
    let mut a = vec!["-w", "64", "-h", "48", "-p", "444", "-b", "8"];
    a.extend(["--feature", "float_ms_ssim"]);
    let o = run(&score(&big, &big, &a), None);
    assert_fails(&o, &["float_ms_ssim cannot score a 64x48 frame"]);
}

/// Item 9: standard input (a pipe, or redirected from a file) that is
/// neither Y4M nor a container: the message says what raw YUV needs,
/// without suggesting a name ending `.yuv` (standard input has none); a named
/// file keeps that hint.
#[test]
fn the_hint_for_standard_input_suggests_no_name() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = raw_frames(32, 24, 2, 3);
    let data = file(dir.path(), "frames.dat", &bytes);
    let reference = file(dir.path(), "ref.y4m", &y4m_clip(32, 24, 2, 1));
    let piped = run(&score(&reference, Path::new("-"), &[]), Some(&bytes));
    let mut cmd = vkssim();
    cmd.args(score(&reference, Path::new("-"), &[]))
        .stdin(std::fs::File::open(&data).unwrap());
    let redirected = run_cmd(&mut cmd, None);
    for o in [&piped, &redirected] {
        assert_fails(
            o,
            &[
                "-: cannot read it",
                "as raw YUV it would need its width, height, pixel format and bit depth",
            ],
        );
        assert!(!stderr(o).contains("name ending"), "{}", stderr(o));
    }
    let named = run(&score(&reference, &data, &[]), None);
    assert_fails(
        &named,
        &["frames.dat: cannot read it", "or a name ending .yuv"],
    );
}

/// Item 7: raw YUV named as an encoded file (`.mkv`, `.mp4`) with `-w -h -p
/// -b` is read as raw YUV, as under any other name: the scores of the same
/// bytes named `.yuv` (a truncated MP4, an MP4 by its content, is never
/// read as raw YUV: `encoded_input.rs`).
#[test]
fn raw_yuv_under_an_encoded_name_is_raw_when_its_layout_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let raw = [
        "-w", "32", "-h", "24", "-p", "420", "-b", "8", "--json", "-o",
    ];
    let (r, d) = (raw_frames(32, 24, 3, 1), raw_frames(32, 24, 3, 40));
    let reference = file(dir.path(), "ref.yuv", &r);
    let as_yuv = file(dir.path(), "dist.yuv", &d);
    let want = dir.path().join("yuv.json");
    let mut a = raw.to_vec();
    a.push(s(&want));
    assert_ok(&run(&score(&reference, &as_yuv, &a), None));
    for name in ["dist.mkv", "dist.mp4"] {
        let dist = file(dir.path(), name, &d);
        let got = dir.path().join(format!("{name}.json"));
        let mut a = raw.to_vec();
        a.push(s(&got));
        let o = run(&score(&reference, &dist, &a), None);
        assert_ok(&o);
        assert_eq!(without_fps(&got), without_fps(&want), "{name}");
    }
}

/// Item 9: `-w/-h/-p/-b` that every input contradicts (no input is raw
/// YUV, so nothing would use them) are refused, naming the flags and what
/// the inputs are; flags that agree with the inputs, or that a raw input
/// uses, are taken.
#[test]
fn raw_layout_flags_that_no_input_uses_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let y4m = file(dir.path(), "src.y4m", &y4m_clip(32, 24, 3, 1));
    let a = ffmpeg(dir.path(), &y4m, &["-c:v", "ffv1"], "a.mkv");
    let b = ffmpeg(
        dir.path(),
        &y4m,
        &["-c:v", "libx264", "-crf", "40"],
        "b.mkv",
    );
    let contradicting = ["-w", "100", "-h", "24", "-p", "444", "-b", "10"];
    let o = run(&score(&a, &b, &contradicting), None);
    assert_fails(
        &o,
        &[
            "-w/--width 100, -p/--pixel_format 444, -b/--bitdepth 10",
            "no input is raw YUV",
            "a.mkv is 32x24 420 8-bit",
            "b.mkv is 32x24 420 8-bit",
        ],
    );
    assert!(!stderr(&o).contains("-h/--height"), "{}", stderr(&o));
    let agreeing = ["-w", "32", "-h", "24", "-p", "420", "-b", "8"];
    assert_ok(&run(&score(&a, &b, &agreeing), None));
    let raw = file(dir.path(), "ref.yuv", &raw_frames(32, 24, 3, 1));
    assert_ok(&run(&score(&raw, &b, &agreeing), None));
}
