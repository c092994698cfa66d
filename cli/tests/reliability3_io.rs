//! End-to-end tests of the input items of the third reliability round
//! (issue 29): memory that stays flat in the number of encoded packets read
//! (item 3), truncated containers (item 5), inputs that declare different
//! colour ranges (item 6), and the decoder's and demuxer's messages (item 9).
//! Each test is named after the item it covers. (All need FFmpeg's
//! libraries: the encoded inputs, and the Y4M range notes' tests beside them.)
#![cfg(feature = "ffmpeg")]

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
        "-n",
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
// The child is reaped by `wait4`, which std does not know of.
#[allow(clippy::zombie_processes)]
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

/// A 50-frame 160x120 x264 clip with B-frames in `ext` (MP4 with its index
/// in front, so that a cut copy still opens).
fn x264_clip(ext: &str) -> PathBuf {
    let encode = "-pix_fmt yuv420p -c:v libx264 -qp 12 -bf 2 -movflags +faststart";
    encoded_clips::encoded(&format!("cut-source.{ext}"), "160x120", 50, encode)
}

/// The first `len` bytes of `clean`, saved as `dir/name`.
fn cut(clean: &Path, len: usize, dir: &Path, name: &str) -> PathBuf {
    let bytes = std::fs::read(clean).unwrap();
    common::file(dir, name, &bytes[..len])
}

/// Byte position of the video packet at `index` in `path`, per ffprobe.
fn packet_position(path: &Path, index: usize) -> usize {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "packet=pos",
        ])
        .args(["-of", "csv=p=0", s(path)])
        .output()
        .expect("running ffprobe");
    assert!(out.status.success(), "ffprobe: {}", stderr_of(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines().nth(index).unwrap().trim().parse().unwrap()
}

fn stderr_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The frame numbers in a JSON output (or partial output).
fn json_frames(path: &Path) -> Vec<u64> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["frameNum"].as_u64().unwrap())
        .collect()
}

/// Scores the full `clean` clip against `damaged`, with and without
/// `--allow-length-mismatch`: both runs fail naming the cut file and its
/// last decoded frame, never as a length mismatch, and keep the frames
/// scored in `.partial`.
fn assert_cut_is_an_error(clean: &Path, damaged: &Path, dir: &Path) {
    for allow in [false, true] {
        let out = dir.join(format!("s{allow}.json"));
        let mut args = score_args(clean, damaged, &out);
        if allow {
            args.push("--allow-length-mismatch");
        }
        let o = run(&args, None);
        let partial = PathBuf::from(format!("{}.partial", out.display()));
        assert!(partial.exists(), "no .partial: {}", stderr(&o));
        let frames = json_frames(&partial);
        assert!(
            (10..50).contains(&frames.len()),
            "{} frames kept in .partial",
            frames.len()
        );
        assert_eq!(frames, (0..frames.len() as u64).collect::<Vec<_>>());
        let last = format!("the last frame decoded is frame {}", frames.len() - 1);
        assert_fails(&o, &[s(damaged), "cut short", &last]);
        let err = stderr(&o);
        assert!(
            !err.contains("length"),
            "reported as a length mismatch: {err}"
        );
        assert!(!out.exists(), "a complete output was written: {err}");
    }
}

/// The `ext` clip cut in half, scored against the whole one.
fn assert_half_is_an_error(ext: &str) {
    let clean = x264_clip(ext);
    let dir = tempfile::tempdir().unwrap();
    let len = std::fs::metadata(&clean).unwrap().len() as usize;
    let damaged = cut(&clean, len / 2, dir.path(), &format!("cut.{ext}"));
    assert_cut_is_an_error(&clean, &damaged, dir.path());
}

/// Item 5: a Matroska file cut in half (libavformat: "File ended
/// prematurely") is an error naming it and its last decoded frame.
#[test]
fn item5_truncated_mkv_is_an_error() {
    assert_half_is_an_error("mkv");
}

/// Item 5: an MP4 (index in front) cut in the middle of a frame's data is an
/// error naming it and its last decoded frame.
#[test]
fn item5_truncated_mp4_inside_a_frame_is_an_error() {
    assert_half_is_an_error("mp4");
}

/// Item 5: an MP4 cut exactly between two frames' data (libavformat then
/// ends the stream without an error) is an error too: its index places
/// frames past the file's end.
#[test]
fn item5_truncated_mp4_between_frames_is_an_error() {
    let clean = x264_clip("mp4");
    let dir = tempfile::tempdir().unwrap();
    let at = packet_position(&clean, 30);
    let damaged = cut(&clean, at, dir.path(), "cut-between.mp4");
    assert_cut_is_an_error(&clean, &damaged, dir.path());
}

/// A 3-frame 32x24 Y4M clip whose header carries `tag` (say
/// `XCOLORRANGE=FULL`; empty: none), `seed` choosing its pattern.
fn y4m_with(dir: &Path, name: &str, tag: &str, seed: u32) -> PathBuf {
    let mut bytes = common::y4m_clip(32, 24, 3, seed);
    if !tag.is_empty() {
        let end = bytes.iter().position(|&b| b == b'\n').unwrap();
        bytes.splice(end..end, format!(" {tag}").into_bytes());
    }
    common::file(dir, name, &bytes)
}

/// `score -r R -d D ... --backend cpu`, psnr into `dir/s.json`, with `more`.
fn run_pair(dir: &Path, r: &Path, d: &Path, more: &[&str]) -> std::process::Output {
    let out = dir.join("s.json");
    let mut args = vec!["score", "-r", s(r), "-d", s(d), "--backend", "cpu"];
    args.extend(["-n", "--feature", "psnr", "--json", "-o", s(&out)]);
    args.extend_from_slice(more);
    run(&args, None)
}

/// Asserts success and a range note saying `reference` and `distorted`.
fn assert_range_note(o: &std::process::Output, reference: &str, distorted: &str) {
    assert_ok(o);
    let err = stderr(o);
    for needle in [reference, distorted, "scored as stored"] {
        assert!(err.contains(needle), "stderr lacks {needle:?}: {err}");
    }
}

/// Asserts success and that standard error holds no range note.
fn assert_no_range_note(o: &std::process::Output) {
    assert_ok(o);
    let err = stderr(o);
    assert!(!err.contains("range"), "unexpected note: {err}");
}

/// Item 6: a Y4M reference declared full range against a distorted declared
/// limited: scored as stored, with a note naming both (silenced by `-q`).
#[test]
fn item6_y4m_full_against_limited_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let r = y4m_with(dir.path(), "full.y4m", "XCOLORRANGE=FULL", 1);
    let d = y4m_with(dir.path(), "limited.y4m", "XCOLORRANGE=LIMITED", 40);
    let o = run_pair(dir.path(), &r, &d, &[]);
    assert_range_note(
        &o,
        &format!("the reference {} is full range (XCOLORRANGE=FULL)", s(&r)),
        &format!(
            "the distorted {} is limited range (XCOLORRANGE=LIMITED)",
            s(&d)
        ),
    );
    assert_no_range_note(&run_pair(dir.path(), &r, &d, &["-q"]));
}

/// Item 6: an inputs' declared range the same (or none declared at all)
/// gives no note.
#[test]
fn item6_same_range_is_not_noted() {
    let dir = tempfile::tempdir().unwrap();
    let full_r = y4m_with(dir.path(), "r.y4m", "XCOLORRANGE=FULL", 1);
    let full_d = y4m_with(dir.path(), "d.y4m", "XCOLORRANGE=FULL", 40);
    assert_no_range_note(&run_pair(dir.path(), &full_r, &full_d, &[]));
    let plain_r = y4m_with(dir.path(), "pr.y4m", "", 1);
    let limited_d = y4m_with(dir.path(), "ld.y4m", "XCOLORRANGE=LIMITED", 40);
    assert_no_range_note(&run_pair(dir.path(), &plain_r, &limited_d, &[]));
}

/// Item 6: an encoded full-range input (x264 with `-pix_fmt yuvj420p`,
/// decoded as yuvj420p) against a Y4M that declares no range: noted, the
/// distorted's range named by its pixel format; in a ladder, only the lane
/// whose range differs is noted.
#[test]
fn item6_encoded_yuvj420p_against_limited_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let r = y4m_with(dir.path(), "plain.y4m", "", 1);
    let encode = "-pix_fmt yuvj420p -c:v libx264 -qp 20";
    let d = encoded_clips::encoded("full-range.mkv", "32x24", 3, encode);
    let o = run_pair(dir.path(), &r, &d, &[]);
    assert_range_note(
        &o,
        &format!("the reference {} declares no range", s(&r)),
        &format!(
            "the distorted {} is full range (pixel format yuvj420p)",
            s(&d)
        ),
    );
    let limited = y4m_with(dir.path(), "l.y4m", "XCOLORRANGE=LIMITED", 40);
    let out = dir.path().join("out");
    let ladder = [
        "score",
        "-n",
        "--feature",
        "float_ssim",
        "-r",
        s(&r),
        "-d",
        s(&limited),
        "-d",
        s(&d),
        "--backend",
        "cpu",
        "--json",
        "--output-dir",
        s(&out),
    ];
    let o = run(&ladder, None);
    assert_ok(&o);
    let err = stderr(&o);
    assert_eq!(err.matches("scored as stored").count(), 1, "{err}");
    assert!(
        err.contains(&format!("the distorted {} is full range", s(&d))),
        "{err}"
    );
}

/// Item 9: a stream that changes size midway (two raw H.264 streams, 64x48
/// then 96x64, one after the other) is refused at the change, in words that
/// say so, not as a decoding failure.
#[test]
fn item9_size_change_is_named_as_such() {
    let x264 = "-pix_fmt yuv420p -c:v libx264 -f h264";
    let small = encoded_clips::encoded("small.h264", "64x48", 5, x264);
    let large = encoded_clips::encoded("large.h264", "96x64", 5, x264);
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(&small).unwrap();
    bytes.extend(std::fs::read(&large).unwrap());
    let changing = common::file(dir.path(), "changing.h264", &bytes);
    let r = common::file(dir.path(), "r.y4m", &common::y4m_clip(64, 48, 10, 1));
    let o = run_pair(dir.path(), &r, &changing, &[]);
    let said = format!(
        "{}: the stream changes size at frame 5, from 64x48 to 96x64",
        s(&changing)
    );
    assert_fails(&o, &[&said, "which vkssim does not score"]);
    assert!(!stderr(&o).contains("decoding failed"), "{}", stderr(&o));
}

/// Item 9: what libavformat logs about an input that an error quotes is
/// printed once, inside the error, not also as a log line before it.
#[test]
fn item9_ffmpeg_messages_are_printed_once() {
    let clean = x264_clip("mkv");
    let dir = tempfile::tempdir().unwrap();
    let len = std::fs::metadata(&clean).unwrap().len() as usize;
    let damaged = cut(&clean, len / 2, dir.path(), "cut.mkv");
    let o = run_pair(dir.path(), &clean, &damaged, &["-q"]);
    assert_fails(&o, &["File ended prematurely"]);
    let err = stderr(&o);
    assert_eq!(err.matches("File ended prematurely").count(), 1, "{err}");
}

/// Item 9: probing a raw YUV file not named `.yuv` with libavformat (raw
/// layout given) prints nothing: the probe's messages are not the user's.
#[test]
fn item9_raw_probe_is_silent() {
    let dir = tempfile::tempdir().unwrap();
    let y4m = common::y4m_clip(64, 48, 3, 1);
    // The Y4M's frames without its header and FRAME lines: raw 4:2:0.
    let frame = 64 * 48 * 3 / 2;
    let body: Vec<u8> = y4m[y4m.iter().position(|&b| b == b'\n').unwrap() + 1..]
        .chunks(6 + frame)
        .flat_map(|c| c[6..].to_vec())
        .collect();
    let r = common::file(dir.path(), "r.raw", &body);
    let d = common::file(dir.path(), "d.bin", &body);
    let raw = ["-w", "64", "-h", "48", "-p", "420", "-b", "8", "-q"];
    let o = run_pair(dir.path(), &r, &d, &raw);
    assert_ok(&o);
    assert_eq!(stderr(&o), "", "stderr is not empty");
}

/// Item 9: a resized input whose geometry is refused (10-bit against an
/// 8-bit reference) is named by its own size, not the size it was resized
/// to.
#[test]
fn item9_resized_input_error_shows_its_own_size() {
    let dir = tempfile::tempdir().unwrap();
    let deep = encoded_clips::encoded("deep.mkv", "96x64", 3, "-pix_fmt yuv420p10le -c:v ffv1");
    let r = common::file(dir.path(), "r.y4m", &common::y4m_clip(64, 48, 3, 1));
    let o = run_pair(dir.path(), &r, &deep, &["--resize-distorted", "bicubic"]);
    let said = format!("distorted {} is 96x64 10-bit (resized to 64x48)", s(&deep));
    assert_fails(&o, &[&said]);
}
