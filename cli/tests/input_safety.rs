//! End-to-end tests of what vkssim does with hostile or broken inputs: a stream
//! whose header claims huge frames (no memory is taken before the data comes,
//! on either backend), an endless stream longer than the other input (the run
//! stops at once), empty or closed standard input, skips past the end, and
//! duplicate Y4M header tags.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::{
    assert_fails, file, no_model, run, run_cmd, s, score_float_ssim, vkssim, y4m_clip, y4m_frame,
};

/// A raw 8-bit 4:2:0 clip of `frames` frames of `width` x `height`.
fn raw_clip(width: u32, height: u32, frames: u32) -> Vec<u8> {
    (0..frames)
        .flat_map(|i| y4m_frame(width, height, i + 1).split_off(b"FRAME\n".len()))
        .collect()
}

/// A named pipe at `path` that a thread fills with `bytes` (then closes) once
/// the reader opens it.
#[cfg(unix)]
fn fifo(path: &Path, bytes: Vec<u8>) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
    let path = path.to_path_buf();
    thread::spawn(move || {
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&path) {
            let _ = f.write_all(&bytes);
        }
    });
}

/// `vkssim score -r - -d FIFO EXTRA...` with the same `bytes` on standard input
/// and on a named pipe `dir/name`, run under `sh` with `ulimit -v KIB` (address
/// space) when `limit_kib` is given.
fn score_two_pipes(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    extra: &[&str],
    limit_kib: Option<u64>,
) -> Output {
    let path = dir.join(name);
    fifo(&path, bytes.to_vec());
    let ulimit = limit_kib.map_or(String::new(), |k| format!("ulimit -v {k} && "));
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("{ulimit}exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_vkssim"))
        .args(["score", "-r", "-", "-d", s(&path)])
        .args(extra)
        .args(no_model(extra))
        // Few malloc arenas, so that the limit measures vkssim, not the
        // allocator's reservations per thread.
        .env("MALLOC_ARENA_MAX", "2");
    run_cmd(&mut cmd, Some(bytes))
}

/// Asserts a clean failure with status 1 (an abort is 134 or a signal).
fn assert_exit_1(o: &Output, needles: &[&str]) {
    assert_fails(o, needles);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(o));
}

/// A header claiming 65536x65536 16-bit frames (8 GiB of luma each) on two
/// pipes, then a few bytes: a clean error naming the input and its frame 0,
/// under an address-space limit of 4 GiB that a normal run fits in, with no
/// abort. Before, the CPU backend allocated a whole frame before its bytes came
/// (an abort under the limit), and the Vulkan engine was started (and sized)
/// before any frame was read.
#[cfg(unix)]
#[test]
fn a_huge_frame_claimed_on_a_pipe_takes_no_memory_before_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut claim = b"YUV4MPEG2 W65536 H65536 F25:1 C420p16\nFRAME\n".to_vec();
    claim.extend([9u8; 10]);

    let cpu = ["--backend", "cpu", "--threads", "2"];
    let limit = Some(4 << 20);

    // The limit leaves room for a normal run from pipes.
    let clip = y4m_clip(64, 48, 3, 1);
    common::assert_ok(&score_two_pipes(dir.path(), "ok", &clip, &cpu, limit));

    let o = score_two_pipes(dir.path(), "y4m", &claim, &cpu, limit);
    assert_exit_1(&o, &["-: frame 0 is incomplete", "ends 16 bytes into it"]);

    let mut raw = vec!["-w", "65536", "-h", "65536", "-p", "420", "-b", "16"];
    raw.extend(cpu);
    let o = score_two_pipes(dir.path(), "raw", &[3u8; 100], &raw, limit);
    assert_exit_1(&o, &["-: frame 0 is incomplete", "ends 100 bytes into it"]);

    // The Vulkan engine is not started before frame 0 has come (without a
    // device, or with one that refuses the size, the message is the same).
    let o = score_two_pipes(dir.path(), "vk", &claim, &["--backend", "vulkan"], None);
    assert_exit_1(&o, &["-: frame 0 is incomplete", "ends 16 bytes into it"]);
}

/// Waits for `child` at most `limit`; kills it and fails past that (a hang).
fn wait_or_kill(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().expect("waiting for vkssim").is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("vkssim still running after {limit:?}: it reads the endless input");
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// A 3-frame reference against an endless distorted stream (`/dev/zero` as
/// raw frames): the run stops when the reference ends, says the distorted
/// input has more, and keeps the 3 frames scored. Before, the distorted input
/// was read to its end to count its frames: forever.
#[cfg(unix)]
#[test]
fn an_endless_stream_longer_than_the_other_input_stops_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let reference = file(dir.path(), "ref.yuv", &raw_clip(64, 48, 3));
    let out = dir.path().join("out.json");
    let geometry = ["-w", "64", "-h", "48", "-p", "420", "-b", "8"];
    for from_pipe in [false, true] {
        let r = if from_pipe { "-" } else { s(&reference) };
        let mut cmd = vkssim();
        cmd.args([
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            r,
            "-d",
            "/dev/zero",
            "--backend",
            "cpu",
        ])
        .args(geometry)
        .args(["-o", s(&out), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        cmd.stdin(if from_pipe {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = cmd.spawn().unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(&raw_clip(64, 48, 3)).unwrap();
        }
        let o = wait_or_kill(child, Duration::from_secs(60));
        assert_exit_1(
            &o,
            &[
                "has 3 frames but the distorted input /dev/zero has more than 3",
                "at least 4",
                "--allow-length-mismatch",
            ],
        );
        let partial = dir.path().join("out.json.partial");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&partial).unwrap()).unwrap();
        assert_eq!(json["frames"].as_array().unwrap().len(), 3, "{from_pipe}");
        std::fs::remove_file(partial).unwrap();
    }
}

/// Standard input with no byte, empty or closed, is named as such with what
/// was expected (before: "- is not Y4M ... missing: width ...", or for raw
/// YUV, a length mismatch with 0 frames).
#[cfg(unix)]
#[test]
fn empty_or_closed_standard_input_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let clip = file(dir.path(), "d.y4m", &y4m_clip(32, 32, 2, 1));
    let raw = file(dir.path(), "d.yuv", &raw_clip(32, 32, 2));
    let y4m_expected = "expected a Y4M stream (a header line such as `YUV4MPEG2";
    let raw_expected = "expected raw YUV frames of 32x32 420 8-bit (1536 bytes each)";
    let raw_args = ["-w", "32", "-h", "32", "-p", "420", "-b", "8"];
    for closed in [false, true] {
        let redirect = if closed { "<&-" } else { "</dev/null" };
        let shell = |extra: &[&str], d: &Path| {
            let mut cmd = Command::new("sh");
            cmd.arg("-c")
                .arg(format!("exec \"$0\" \"$@\" {redirect}"))
                .arg(env!("CARGO_BIN_EXE_vkssim"))
                .args(["score", "-r", "-", "-d", s(d), "--backend", "cpu"])
                .args(extra)
                .args(no_model(extra));
            run_cmd(&mut cmd, None)
        };
        let o = shell(&[], &clip);
        assert_exit_1(&o, &["-: standard input is empty (0 bytes)", y4m_expected]);
        let o = shell(&raw_args, &raw);
        assert_exit_1(&o, &["-: standard input is empty (0 bytes)", raw_expected]);
    }
}

/// Skipping past the end of one input says how many frames each input has
/// after its skip, with `--allow-length-mismatch` too (before: a length error
/// suggesting that flag, which then failed with a bare "no frames to score").
#[test]
fn skipping_past_the_end_says_what_each_input_has() {
    let dir = tempfile::tempdir().unwrap();
    let clip = y4m_clip(32, 32, 3, 1);
    let r = file(dir.path(), "r.y4m", &clip);
    let d = file(dir.path(), "d.y4m", &clip);
    let files = format!(
        "no frames to score: after skipping, the reference {} has 0 frames \
         (3 less --frame_skip_ref 5) and the distorted input {} has 3 frames",
        s(&r),
        s(&d)
    );
    for allow in [&[][..], &["--allow-length-mismatch"]] {
        let mut args = vec![
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            s(&r),
            "-d",
            s(&d),
            "--frame_skip_ref",
            "5",
        ];
        args.extend(allow);
        assert_exit_1(&run(&args, None), &[&files]);
        // From a pipe, the skip runs into the end as the frames are read.
        let at = args.iter().position(|a| *a == s(&r)).unwrap();
        args[at] = "-";
        let piped = format!(
            "no frames to score: after skipping, the reference - has 0 frames \
             (3 less --frame_skip_ref 5) and the distorted input {} has 3 frames",
            s(&d)
        );
        assert_exit_1(&run(&args, Some(&clip)), &[&piped]);
    }
    // The other input a pipe: it is read no further than one frame.
    let o = score_float_ssim(
        &["-r", s(&r), "-d", "-", "--frame_skip_ref", "3"],
        Some(&clip),
    );
    assert_exit_1(
        &o,
        &["the distorted input - has at least 1 frame (a stream, not read further)"],
    );
}

/// A Y4M header with a tag given twice is refused, naming both (before, the
/// last one silently won).
#[test]
fn duplicate_y4m_header_tags_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = y4m_clip(32, 32, 2, 1);
    let d = file(dir.path(), "d.y4m", &good);
    let header_end = good.iter().position(|&b| b == b'\n').unwrap();
    for (tags, tag) in [
        ("W32 W32 H32", "W"),
        ("W32 H32 H32", "H"),
        ("W32 H32 C420jpeg C420jpeg", "C"),
        ("W32 H32 F25:1 F25:1", "F"),
        ("W32 H32 Ip Ip", "I"),
        ("W32 H32 A1:1 A1:1", "A"),
    ] {
        let mut bytes = format!("YUV4MPEG2 {tags}").into_bytes();
        bytes.extend_from_slice(&good[header_end..]);
        let r = file(dir.path(), "r.y4m", &bytes);
        let o = score_float_ssim(&["-r", s(&r), "-d", s(&d), "--backend", "cpu"], None);
        let needle = format!("the {tag} tag is given twice");
        assert_exit_1(&o, &["r.y4m: bad Y4M header", &needle]);
    }
    // X tags may repeat.
    let mut bytes = b"YUV4MPEG2 W32 H32 F25:1 Ip A1:1 C420jpeg XA=1 XB=2 XA=1".to_vec();
    bytes.extend_from_slice(&good[header_end..]);
    let r = file(dir.path(), "r.y4m", &bytes);
    common::assert_ok(&score_float_ssim(
        &["-r", s(&r), "-d", s(&d), "--backend", "cpu"],
        None,
    ));
}
