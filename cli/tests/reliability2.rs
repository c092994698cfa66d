//! End-to-end tests of the second reliability round (issue 16): outputs told
//! apart by identity (the trace, links, partial files), `bench --write-yuv` and
//! its sizes, broken pipes on the file output, a stalled ladder input, signals
//! during a ladder's writes, long partial names, and the messages and options
//! of item 10. Each test is named after the item it covers; the catalog
//! runner's items are in `tools/catalog/test_catalog.py`.

mod common;

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{
    assert_fails, assert_ok, file, run, run_cmd, s, score_float_ssim, stderr, vkssim, y4m_clip,
};

const W: u32 = 32;
const H: u32 = 24;

/// `score -r REF ... --backend cpu` with `rest` in between.
fn score<'a>(r: &'a Path, rest: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["score", "-n", "--feature", "float_ssim", "-r", s(r)];
    a.extend_from_slice(rest);
    a.extend(["--backend", "cpu"]);
    a
}

/// `score -r R -d A --json -o OUT --trace-chrome TRACE` on the CPU twin.
fn pair_with_trace<'a>(r: &'a Path, a: &'a Path, out: &'a Path, trace: &'a Path) -> Vec<&'a str> {
    score(
        r,
        &[
            "-d",
            s(a),
            "--json",
            "-o",
            s(out),
            "--trace-chrome",
            s(trace),
        ],
    )
}

/// `score -r R -d A -d B --json --output-dir OUT --trace-chrome TRACE` on the
/// CPU twin.
fn ladder_with_trace<'a>(
    r: &'a Path,
    [a, b]: [&'a Path; 2],
    out: &'a Path,
    trace: &'a Path,
) -> Vec<&'a str> {
    let rest = [
        "-d",
        s(a),
        "-d",
        s(b),
        "--json",
        "--output-dir",
        s(out),
        "--trace-chrome",
        s(trace),
    ];
    score(r, &rest)
}

/// The entries of `dir`, by name, sorted (empty when it does not exist).
fn names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A reference and two distorted clips of 3 frames.
fn clips(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    (
        file(dir, "ref.y4m", &y4m_clip(W, H, 3, 1)),
        file(dir, "a.y4m", &y4m_clip(W, H, 3, 20)),
        file(dir, "b.y4m", &y4m_clip(W, H, 3, 40)),
    )
}

/// 2 frames and half of a third, for a run that fails after scoring 2 frames.
fn truncated_clip(frames: u32) -> Vec<u8> {
    let mut bytes = y4m_clip(W, H, frames, 50);
    bytes.extend(&common::y4m_frame(W, H, 52)[..100]);
    bytes
}

/// The JSON document at `p`.
fn json(p: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}: {text}", p.display()))
}

/// The frames of a score JSON, without the timing-dependent fps.
fn frames(p: &Path) -> serde_json::Value {
    json(p)["frames"].clone()
}

#[test]
fn item1_a_trace_that_is_an_output_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let (r, a, b) = clips(dir.path());
    let same = dir.path().join("same.json");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("same.json", &link).unwrap();
    // The trace as the output's path, and through a link to it.
    for trace in [&same, &link] {
        let o = run(&pair_with_trace(&r, &a, &same, trace), None);
        assert_fails(&o, &["-o", "--trace-chrome", s(trace), "one file"]);
        assert!(!same.exists(), "nothing is written");
    }
    // An output already there stays as it was.
    std::fs::write(&same, "previous").unwrap();
    let o = run(&pair_with_trace(&r, &a, &same, &link), None);
    assert_fails(&o, &["one file"]);
    assert_eq!(std::fs::read_to_string(&same).unwrap(), "previous");
    // In a ladder: --output-dir o and a trace at o/a.json.
    let out = dir.path().join("o");
    std::fs::create_dir(&out).unwrap();
    let trace = out.join("a.json");
    let o = run(&ladder_with_trace(&r, [&a, &b], &out, &trace), None);
    assert_fails(&o, &[s(&a), "--trace-chrome", s(&trace), "one file"]);
    assert!(names(&out).is_empty(), "{:?}", names(&out));
}

#[test]
fn item2_ladder_outputs_that_are_one_file_through_a_link_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, a, b) = clips(dir.path());
    let out = dir.path().join("o");
    std::fs::create_dir(&out).unwrap();
    let b_out = file(&out, "b.json", b"b's previous scores");
    let args = score(
        &r,
        &["-d", s(&a), "-d", s(&b), "--json", "--output-dir", s(&out)],
    );
    // o/a.json a symlink to o/b.json.
    std::os::unix::fs::symlink("b.json", out.join("a.json")).unwrap();
    let o = run(&args, None);
    assert_fails(&o, &[s(&a), s(&b), "one file"]);
    // o/a.json a hard link of o/b.json.
    std::fs::remove_file(out.join("a.json")).unwrap();
    std::fs::hard_link(&b_out, out.join("a.json")).unwrap();
    let o = run(&args, None);
    assert_fails(&o, &[s(&a), s(&b), "one file"]);
    assert_eq!(std::fs::read(&b_out).unwrap(), b"b's previous scores");
    // A symlink to a file that does not exist yet is one new file too.
    std::fs::remove_file(out.join("a.json")).unwrap();
    std::fs::remove_file(&b_out).unwrap();
    std::os::unix::fs::symlink("b.json", out.join("a.json")).unwrap();
    assert_fails(&run(&args, None), &["one file"]);
    assert!(!b_out.exists());
}

#[test]
fn item3_bench_write_yuv_is_refused_with_inputs_and_written_safely() {
    let dir = tempfile::tempdir().unwrap();
    let (r, a, _) = clips(dir.path());
    let (r_bytes, a_bytes) = (std::fs::read(&r).unwrap(), std::fs::read(&a).unwrap());
    // With -r/-d: a usage error, the inputs untouched.
    let prefix = dir.path().join("p");
    let o = run(
        &["bench", "-r", s(&r), "-d", s(&a), "--write-yuv", s(&prefix)],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--write-yuv"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&r).unwrap(), r_bytes);
    assert_eq!(std::fs::read(&a).unwrap(), a_bytes);
    // A file that is there is replaced by a new one (atomically: another
    // inode), keeping its mode; a symlink stays a link and its target is
    // written.
    let gen = [
        "bench",
        "-w",
        "32",
        "-h",
        "24",
        "--frames",
        "3",
        "--write-yuv",
    ];
    let old = file(dir.path(), "p_ref.yuv", b"old");
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    let ino = std::fs::metadata(&old).unwrap().ino();
    let real = dir.path().join("real.yuv");
    std::os::unix::fs::symlink("real.yuv", dir.path().join("p_dist.yuv")).unwrap();
    let mut args = gen.to_vec();
    args.push(s(&prefix));
    assert_ok(&run(&args, None));
    let meta = std::fs::metadata(&old).unwrap();
    assert_ne!(
        meta.ino(),
        ino,
        "replaced by a new file, not truncated in place"
    );
    assert_eq!(meta.mode() & 0o7777, 0o640);
    let frame = (32 * 24 * 3 / 2) as u64;
    assert_eq!(meta.len(), 3 * frame);
    assert!(std::fs::symlink_metadata(dir.path().join("p_dist.yuv"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::metadata(&real).unwrap().len(), 3 * frame);
    assert!(
        names(dir.path()).iter().all(|n| !n.starts_with(".vkssim-")),
        "{:?}",
        names(dir.path())
    );
    // The files written score as the generated pair does.
    let o = score_float_ssim(
        &[
            "-r",
            s(&old),
            "-d",
            s(&real),
            "-w",
            "32",
            "-h",
            "24",
            "-p",
            "420",
            "-b",
            "8",
            "--backend",
            "cpu",
        ],
        None,
    );
    assert_ok(&o);
    // A trace that is one of the files is refused.
    let mut args = gen.to_vec();
    args.extend([s(&prefix), "--trace-chrome", s(&old)]);
    assert_fails(&run(&args, None), &["--trace-chrome", "one file"]);
}

/// `cmd` run with its address space limited to `bytes` and its files to
/// `file_bytes` (so a regression cannot fill the disk).
fn limited(cmd: &mut Command, bytes: u64, file_bytes: u64) -> &mut Command {
    // SAFETY: only async-signal-safe calls (setrlimit, signal) between fork
    // and exec.
    unsafe {
        cmd.pre_exec(move || {
            let set = |what, n: u64| {
                let lim = libc::rlimit {
                    rlim_cur: n,
                    rlim_max: n,
                };
                libc::setrlimit(what, &lim)
            };
            set(libc::RLIMIT_AS, bytes);
            set(libc::RLIMIT_FSIZE, file_bytes);
            // A write past the file limit fails instead of killing.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        })
    }
}

#[test]
fn item4_bench_sizes_are_bounded_as_score_and_memory_errors_named() {
    let dir = tempfile::tempdir().unwrap();
    // score's limit.
    let o = run(
        &[
            "bench",
            "-w",
            "65537",
            "-h",
            "16",
            "--frames",
            "3",
            "--backend",
            "cpu",
        ],
        None,
    );
    assert_fails(&o, &["65537", "at most 65536"]);
    // Two 4 GiB planes under a 3 GB address space: an error, not an abort.
    let o = run_cmd(
        limited(
            vkssim()
                .args([
                    "bench",
                    "-w",
                    "65536",
                    "-h",
                    "65536",
                    "--frames",
                    "3",
                    "--backend",
                    "cpu",
                ])
                .stdin(Stdio::null()),
            3_000_000_000,
            1 << 26,
        ),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_fails(&o, &["65536x65536", "8589934592 bytes", "memory"]);
    // --write-yuv that would need more than the disk has: refused up front
    // (about 24.9 TB at 4K, a million frames), nothing left behind.
    let prefix = dir.path().join("big");
    let o = run_cmd(
        limited(
            vkssim()
                .args(["bench", "--frames", "1000000", "--write-yuv", s(&prefix)])
                .stdin(Stdio::null()),
            u64::MAX,
            1 << 26,
        ),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_fails(&o, &["big_ref.yuv", "24883200000000 bytes", "free"]);
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}

/// Runs `args` with standard output a pipe whose reader is gone before
/// vkssim writes, standard input `stdin` (fed from a thread) or null.
fn run_into_closed_pipe(args: &[&str], stdin: Option<Vec<u8>>) -> Output {
    let mut cmd = vkssim();
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    if let Some(data) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    child.wait_with_output().unwrap()
}

#[test]
fn item5_a_broken_pipe_on_the_file_output_exits_141_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let (r, a, b) = clips(dir.path());
    let clip = std::fs::read(&a).unwrap();
    for (args, stdin) in [
        (score(&r, &["-d", s(&a), "--json", "-o", "-"]), None),
        (
            score(&r, &["-d", s(&a), "--json", "-o", "/dev/stdout"]),
            None,
        ),
        (
            score(&r, &["-d", "-", "--json", "-o", "-"]),
            Some(clip.clone()),
        ),
        (score(&r, &["-d", s(&a), "-d", s(&b)]), None),
        (score(&r, &["-d", s(&a), "-d", "-"]), Some(clip.clone())),
    ] {
        let o = run_into_closed_pipe(&args, stdin);
        assert_eq!(o.status.code(), Some(141), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

/// Waits up to 60 s for `done` to hold, checking that `child` is still running.
fn wait_while_running(child: &mut Child, what: &str, done: impl Fn() -> bool) {
    wait_polling(child, what, Duration::from_millis(20), done);
}

/// [`wait_while_running`], looking every `every`.
fn wait_polling(child: &mut Child, what: &str, every: Duration, done: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !done() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "vkssim ended before {what}"
        );
        assert!(t0.elapsed() < Duration::from_secs(60), "no {what} in 60 s");
        std::thread::sleep(every);
    }
}

#[test]
fn item6_a_stalled_ladder_input_does_not_hold_back_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (r, a, b) = clips(dir.path());
    let fifo = dir.path().join("stalled.y4m");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // A writer that sends the header and one frame, then stops (keeping the
    // FIFO open) until the test ends.
    let stall = {
        let fifo = fifo.clone();
        let clip = y4m_clip(W, H, 3, 60);
        let one_frame = clip.len() - 2 * common::y4m_frame(W, H, 0).len();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(&clip[..one_frame]).unwrap();
            std::thread::sleep(Duration::from_secs(90));
        })
    };
    let out = dir.path().join("o");
    let mut child = vkssim()
        .args(score(
            &r,
            &[
                "-d",
                s(&a),
                "-d",
                s(&fifo),
                "-d",
                s(&b),
                "--json",
                "--output-dir",
                s(&out),
            ],
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (oa, ob) = (out.join("a.json"), out.join("b.json"));
    wait_while_running(&mut child, "the finished inputs' outputs", || {
        oa.exists() && ob.exists()
    });
    // The run still waits for the stalled input; a timeout kills it.
    assert!(child.try_wait().unwrap().is_none());
    child.kill().unwrap();
    child.wait().unwrap();
    // What was written is each input's whole output, as its own run writes.
    for (path, input) in [(&oa, &a), (&ob, &b)] {
        let single = dir.path().join("single.json");
        assert_ok(&run(
            &score(&r, &["-d", s(input), "--json", "-o", s(&single)]),
            None,
        ));
        assert_eq!(frames(path), frames(&single), "{}", path.display());
    }
    assert_eq!(names(&out), ["a.json", "b.json"]);
    drop(stall);
}

#[test]
fn item7_a_signal_during_a_ladders_writes_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let r = file(dir.path(), "ref.y4m", &y4m_clip(W, H, 1, 1));
    let lanes = 200;
    let inputs: Vec<PathBuf> = (0..lanes)
        .map(|k| {
            file(
                dir.path(),
                &format!("d{k:03}.y4m"),
                &y4m_clip(W, H, 1, 10 + k),
            )
        })
        .collect();
    let mut interrupted = 0;
    for (attempt, signal) in [libc::SIGTERM, libc::SIGINT, libc::SIGTERM]
        .into_iter()
        .enumerate()
    {
        let out = dir.path().join(format!("o{attempt}"));
        std::fs::create_dir(&out).unwrap();
        let mut args = vec![
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            s(&r),
            "--json",
            "--output-dir",
            s(&out),
        ];
        for d in &inputs {
            args.extend(["-d", s(d)]);
        }
        args.extend(["--backend", "cpu", "--threads", "1"]);
        let mut child = vkssim()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // As soon as the first output is in place (the temporary files of the
        // up-front checks come and go before).
        wait_polling(&mut child, "an output", Duration::from_micros(200), || {
            names(&out).iter().any(|n| n.ends_with(".json"))
        });
        // SAFETY: signalling our own child, which has not been waited for.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let status = child.wait().unwrap();
        let left = names(&out);
        let temps: Vec<&String> = left.iter().filter(|n| n.starts_with(".vkssim-")).collect();
        assert!(temps.is_empty(), "signal {signal}: left {temps:?}");
        // Killed by the signal (or done before it arrived), the outputs in
        // place whole.
        assert!(
            status.signal() == Some(signal) || status.success(),
            "{status:?}"
        );
        interrupted += usize::from(status.signal() == Some(signal));
        for name in &left {
            assert_eq!(json(&out.join(name))["frames"].as_array().unwrap().len(), 1);
        }
    }
    // The signal came while outputs were being written at least once.
    assert!(interrupted > 0, "every run ended before its signal");
}

#[test]
fn item8_a_partial_name_too_long_falls_back_to_a_shorter_one() {
    let dir = tempfile::tempdir().unwrap();
    let r = file(dir.path(), "ref.y4m", &y4m_clip(W, H, 3, 1));
    let long = format!("{}.csv", "x".repeat(246)); // 250 bytes: FILE.partial is 258
    let out = dir.path().join(&long);
    let o = run_cmd(
        vkssim().args(score(&r, &["-d", "-", "--csv", "-o", s(&out)])),
        Some(&truncated_clip(2)),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("could not write"), "{}", stderr(&o));
    let partial: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.ends_with(".partial"))
        .collect();
    assert_eq!(partial.len(), 1, "{:?}", names(dir.path()));
    assert!(partial[0].len() <= 255);
    assert_fails(&o, &["2 frames", &partial[0], "too long"]);
    let text = std::fs::read_to_string(dir.path().join(&partial[0])).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(!out.exists());
}

#[test]
fn item10_bench_write_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.path().join("full_ref.yuv")).unwrap();
    let prefix = dir.path().join("full");
    // Frames larger than any write buffer, so the first write fails.
    let o = run(
        &[
            "bench",
            "-w",
            "1024",
            "-h",
            "1024",
            "--frames",
            "3",
            "--write-yuv",
            s(&prefix),
        ],
        None,
    );
    assert_fails(&o, &["full_ref.yuv", "No space left on device"]);
}

#[test]
fn item10_partial_messages_say_what_happened() {
    let dir = tempfile::tempdir().unwrap();
    let r = file(dir.path(), "ref.y4m", &y4m_clip(W, H, 3, 1));
    // No previous FILE: nothing is said to be left as it was.
    let new = dir.path().join("new.csv");
    let o = run_cmd(
        vkssim().args(score(&r, &["-d", "-", "--csv", "-o", s(&new)])),
        Some(&truncated_clip(2)),
    );
    assert_fails(&o, &["new.csv.partial"]);
    assert!(!stderr(&o).contains("left as it was"), "{}", stderr(&o));
    // A previous FILE is.
    std::fs::write(&new, "previous").unwrap();
    let o = run_cmd(
        vkssim().args(score(&r, &["-d", "-", "--csv", "-o", s(&new)])),
        Some(&truncated_clip(2)),
    );
    assert_fails(&o, &["new.csv is left as it was"]);
    // One frame scored, no -o: "1 frame was scored".
    let o = run_cmd(
        vkssim().args(score(&r, &["-d", "-"])),
        Some(&truncated_clip(1)),
    );
    assert_fails(&o, &["1 frame was scored before the error"]);
}

#[test]
fn item10_output_dir_is_checked_created_late_and_takes_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (r, a, b) = clips(dir.path());
    // A file given as --output-dir.
    let o = run(
        &score(&r, &["-d", s(&a), "-d", s(&b), "--output-dir", s(&a)]),
        None,
    );
    assert_fails(&o, &[s(&a), "is a file, not a folder"]);
    // A run refused before any work creates no folder.
    let new = dir.path().join("new");
    let missing = dir.path().join("missing.y4m");
    let o = run(
        &score(
            &missing,
            &["-d", s(&a), "-d", s(&b), "--output-dir", s(&new)],
        ),
        None,
    );
    assert_fails(&o, &["missing.y4m"]);
    assert!(!new.exists());
    // A new --output-dir takes the trace too.
    let trace = new.join("t.json");
    let o = run(&ladder_with_trace(&r, [&a, &b], &new, &trace), None);
    assert_ok(&o);
    assert!(json(&trace).is_array());
    assert_eq!(names(&new), ["a.json", "b.json", "t.json"]);
}

#[test]
fn item10_options_that_would_be_ignored_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, a, _) = clips(dir.path());
    let o = run(&score(&r, &["-d", s(&a), "--device", "5"]), None);
    assert_fails(&o, &["--device 5", "--backend cpu"]);
    let o = run(
        &score(
            &r,
            &[
                "-d",
                s(&a),
                "--feature",
                "float_ssim=enable_lcs=true:enable_lcs=false",
            ],
        ),
        None,
    );
    assert_fails(&o, &["enable_lcs", "more than once"]);
}

#[test]
fn item10_output_names_follow_the_inputs_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (r, _, b) = clips(d);
    // An input named {index}.y4m keeps its name in the pattern.
    let braces = file(d, "{index}.y4m", &y4m_clip(W, H, 3, 70));
    let pattern = d.join("{name}_{index}.csv");
    assert_ok(&run(
        &score(
            &r,
            &["-d", s(&braces), "-d", s(&b), "--csv", "-o", s(&pattern)],
        ),
        None,
    ));
    assert!(d.join("{index}_0.csv").exists(), "{:?}", names(d));
    assert!(d.join("b_1.csv").exists(), "{:?}", names(d));
    // A stem `-` with -o '{name}' writes the file `-`, not standard output.
    let dash = file(d, "-.y4m", &y4m_clip(W, H, 3, 80));
    let o = run_cmd(
        vkssim()
            .current_dir(d)
            .args(score(
                &r,
                &["-d", s(&dash), "-d", s(&b), "--csv", "-o", "{name}"],
            ))
            .stdin(Stdio::null()),
        None,
    );
    assert_ok(&o);
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(std::fs::read_to_string(d.join("-"))
        .unwrap()
        .starts_with("Frame,"));
    // Two stems that are not UTF-8 and differ write two files.
    let odd = |byte: u8| {
        let bytes = [b'n', byte, b'.', b'y', b'4', b'm'];
        let p = d.join(OsStr::from_bytes(&bytes));
        std::fs::write(&p, y4m_clip(W, H, 3, byte as u32)).unwrap();
        p
    };
    let (x, y) = (odd(0xFF), odd(0xFE));
    let out = d.join("odd");
    let o = csv_ladder(&r, &x, &y, &out);
    assert_ok(&o);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 2);
    // The same stems twice collide, shown escaped.
    let o = csv_ladder(&r, &x, d.join("sub").join(x.file_name().unwrap()), &out);
    assert_fails(&o, &["n\\xFF.csv", "one file"]);
}

/// `score -r R -d A -d B --csv --output-dir OUT` on the CPU twin, for paths
/// that need not be UTF-8.
fn csv_ladder(r: &Path, a: &Path, b: impl AsRef<OsStr>, out: &Path) -> Output {
    let mut cmd = vkssim();
    cmd.arg("score")
        .arg("-r")
        .arg(r)
        .arg("-d")
        .arg(a)
        .arg("-d")
        .arg(b);
    cmd.args(["--csv", "--output-dir", s(out), "--backend", "cpu"]);
    cmd.args(["-n", "--feature", "float_ssim"]);
    run_cmd(cmd.stdin(Stdio::null()), None)
}

#[test]
fn item11_the_readme_lists_every_pixel_format_accepted() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `-w/--width`") && l.contains("-p/--pixel_format"))
        .expect("the README's raw YUV layout row");
    let listed = row.split("-p/--pixel_format ").nth(1).unwrap();
    let listed: Vec<&str> = listed.split('`').next().unwrap().split("\\|").collect();
    for name in vkssim::io::PIXEL_FORMATS {
        assert!(
            listed.contains(&name),
            "the README's -p row lacks {name}: {row}"
        );
    }
    // And what it lists is accepted.
    let dir = tempfile::tempdir().unwrap();
    for name in &listed {
        let chroma: vkssim::io::Chroma = name.parse().unwrap();
        let (cw, ch) = chroma.plane_size(W, H);
        let bytes = (W * H + cw * ch * chroma.extra_planes()) as usize;
        let raw = file(dir.path(), "raw.yuv", &vec![100u8; 2 * bytes]);
        let o = score_float_ssim(
            &[
                "-r",
                s(&raw),
                "-d",
                s(&raw),
                "-w",
                "32",
                "-h",
                "24",
                "-p",
                name,
                "-b",
                "8",
                "--backend",
                "cpu",
            ],
            None,
        );
        assert_ok(&o);
    }
}
