//! End-to-end tests of how `vkssim` behaves as a process (issue 8, items 6, 11
//! and the `--device` and colour parts of 10; issue 9, item 5): no panic or
//! abort on a broken, full or closed standard output or standard error, bounded
//! thread and frame counts, checked environment variables, a clear message for
//! a missing validation layer or device index, no colour off a terminal, and
//! `--backend auto` choosing the CPU twin when Vulkan is broken or only a CPU
//! implementation.

mod common;

use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{assert_fails, assert_ok, file, no_model, run, run_cmd, s, stderr, vkssim};

const W: u32 = 32;
const H: u32 = 24;

/// A reference and a distorted clip of 3 frames in `dir`.
fn pair(dir: &Path) -> (PathBuf, PathBuf) {
    common::y4m_pair(dir, W, H)
}

/// `score -r REF -d DIST -q` and `extra`.
fn score_args<'a>(r: &'a Path, d: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["score", "-r", s(r), "-d", s(d), "-q"];
    a.extend_from_slice(extra);
    a.extend_from_slice(no_model(extra));
    a
}

/// Runs the binary with `args` and standard output going to `stdout`.
fn run_to(args: &[&str], stdout: impl Into<Stdio>) -> Output {
    vkssim()
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("running vkssim")
}

/// A pipe whose reader is already gone: writing to it gives EPIPE.
fn broken_pipe() -> OwnedFd {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors `pipe` writes.
    let rc = unsafe { libc::pipe(fds.as_mut_ptr()) };
    assert_eq!(rc, 0, "pipe: {}", std::io::Error::last_os_error());
    // SAFETY: `pipe` just opened both descriptors and nothing else owns them.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(reader);
    writer
}

fn dev_full() -> File {
    File::options()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

/// Runs the binary with `args` under `sh`, standard output closed (`>&-`).
fn run_stdout_closed(args: &[&str]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(r#"exec "$0" "$@" >&-"#)
        .arg(env!("CARGO_BIN_EXE_vkssim"))
        .args(args)
        .stdin(Stdio::null());
    run_cmd(&mut cmd, None)
}

/// A broken pipe is the reader's choice: exit 141 (a shell's status for a
/// program killed by SIGPIPE) with nothing on standard error.
fn assert_quiet_broken_pipe(o: &Output) {
    assert_eq!(o.status.code(), Some(141), "stderr: {}", stderr(o));
    assert_eq!(stderr(o), "");
}

/// Exactly one line on standard error, the one given.
fn assert_one_line(o: &Output, line: &str) {
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(o));
    assert_eq!(stderr(o), format!("{line}\n"));
}

#[test]
fn item6_summary_to_a_broken_pipe_exits_141_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    for backend in ["cpu", "auto"] {
        let o = run_to(&score_args(&r, &d, &["--backend", backend]), broken_pipe());
        assert_quiet_broken_pipe(&o);
    }
}

#[test]
fn item6_devices_to_a_broken_pipe_exits_141_quietly() {
    assert_quiet_broken_pipe(&run_to(&["devices"], broken_pipe()));
}

#[test]
fn item6_summary_and_devices_to_a_full_disk_fail_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let full = "vkssim: error: writing to standard output: No space left on device (os error 28)";
    let o = run_to(&score_args(&r, &d, &["--backend", "cpu"]), dev_full());
    assert_one_line(&o, full);
    assert_one_line(&run_to(&["devices"], dev_full()), full);
    let o = run_to(
        &[
            "bench",
            "--frames",
            "3",
            "-w",
            "32",
            "-h",
            "24",
            "--repeat",
            "1",
            "--backend",
            "cpu",
        ],
        dev_full(),
    );
    assert_one_line(&o, full);
}

#[test]
fn item6_summary_and_devices_to_a_closed_stdout_fail_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let closed = "vkssim: error: writing to standard output: Bad file descriptor (os error 9)";
    assert_one_line(
        &run_stdout_closed(&score_args(&r, &d, &["--backend", "cpu"])),
        closed,
    );
    assert_one_line(&run_stdout_closed(&["devices"]), closed);
    // Standard output sent to /dev/null on purpose is not "closed".
    let o = run_to(&score_args(&r, &d, &["--backend", "cpu"]), Stdio::null());
    assert_ok(&o);
}

#[test]
fn item6_a_failing_stderr_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _) = pair(dir.path());
    let missing = dir.path().join("missing.y4m");
    let status = vkssim()
        .args(score_args(&r, &missing, &["--backend", "cpu"]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(dev_full())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "a panic exits 101");
}

#[test]
fn item6_thread_and_frame_counts_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    for (flag, range) in [
        ("--threads", "0..=1024"),
        ("--read-threads", "0..=256"),
        ("--frames-in-flight", "0..=1024"),
    ] {
        let o = run(
            &score_args(&r, &d, &["--backend", "cpu", flag, "100000"]),
            None,
        );
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("100000 is not in {range}")), "{err}");
    }
    let o = run(&["bench", "--frames", "18446744073709551615"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("18446744073709551615 is not in 3..=1000000"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn item6_invalid_environment_values_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let args = score_args(&r, &d, &["--backend", "cpu"]);
    for bad in ["abc", "-1", "0", "100000"] {
        let o = run_cmd(
            vkssim()
                .args(&args)
                .env("VKSSIM_SUM_THREADS", bad)
                .stdin(Stdio::null()),
            None,
        );
        assert_one_line(
            &o,
            &format!(
                "vkssim: error: VKSSIM_SUM_THREADS={bad}: expected a whole number from 1 to \
                 1024 (unset it for the default)"
            ),
        );
    }
    for name in [
        "VKSSIM_VALIDATION",
        "VKSSIM_FORCE_HOST_SUM",
        "VKSSIM_SUM_COPY",
    ] {
        let o = run_cmd(
            vkssim().args(&args).env(name, "yes").stdin(Stdio::null()),
            None,
        );
        assert_fails(&o, &[&format!("{name}=yes: expected 1 (")]);
        assert_eq!(o.status.code(), Some(1));
    }
}

#[test]
fn item6_validation_without_the_layer_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let no_layers = tempfile::tempdir().unwrap();
    for backend in ["vulkan", "auto"] {
        let o = run_cmd(
            vkssim()
                .args(score_args(&r, &d, &["--backend", backend]))
                .env("VKSSIM_VALIDATION", "1")
                // The loader then looks for explicit layers there only.
                .env("VK_LAYER_PATH", no_layers.path())
                .stdin(Stdio::null()),
            None,
        );
        assert_fails(
            &o,
            &[
                "Vulkan validation was asked for but the Vulkan loader finds no \
                 VK_LAYER_KHRONOS_validation layer",
                "vulkan-validationlayers",
                "or unset VKSSIM_VALIDATION",
            ],
        );
        assert_eq!(o.status.code(), Some(1));
    }
}

#[test]
fn item10_a_missing_device_index_names_the_device_count() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let o = run(&score_args(&r, &d, &["--device", "99"]), None);
    assert_fails(&o, &["--device 99: there ", "see `vkssim devices`"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).contains("install"), "{}", stderr(&o));
}

/// A run that logs a warning (`VKSSIM_COMPUTE_QUEUES` is no longer read).
fn warning_run(cmd: &mut Command, dir: &Path) {
    let (r, d) = pair(dir);
    cmd.args(score_args(&r, &d, &["--backend", "cpu"]))
        .env("VKSSIM_COMPUTE_QUEUES", "4")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null());
}

#[test]
fn item10_no_colour_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = vkssim();
    warning_run(&mut cmd, dir.path());
    let o = run_cmd(&mut cmd, None);
    assert_ok(&o);
    let err = stderr(&o);
    assert!(
        err.contains("VKSSIM_COMPUTE_QUEUES is no longer read"),
        "{err}"
    );
    assert!(
        !err.contains('\x1b'),
        "escape codes off a terminal: {err:?}"
    );
}

/// Runs `cmd` on a terminal (`script` from util-linux) and returns what the
/// terminal showed.
fn on_a_terminal(cmd: &Command) -> String {
    let line: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| format!("'{}'", a.to_str().unwrap()))
        .collect();
    let mut script = Command::new("script");
    script.args(["-qec", &line.join(" "), "/dev/null"]);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => script.env(k, v),
            None => script.env_remove(k),
        };
    }
    let o = run_cmd(script.stdin(Stdio::null()), None);
    assert_ok(&o);
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn item10_colour_on_a_terminal_only_without_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = vkssim();
    warning_run(&mut cmd, dir.path());
    let shown = on_a_terminal(&cmd);
    assert!(shown.contains("no longer read"), "{shown:?}");
    assert!(shown.contains('\x1b'), "no colour on a terminal: {shown:?}");
    cmd.env("NO_COLOR", "1");
    let shown = on_a_terminal(&cmd);
    assert!(shown.contains("no longer read"), "{shown:?}");
    assert!(
        !shown.contains('\x1b'),
        "colour despite NO_COLOR: {shown:?}"
    );
}

/// A driver manifest that is not JSON, for `VK_ICD_FILENAMES`/`VK_DRIVER_FILES`.
fn broken_icd(dir: &Path) -> PathBuf {
    file(
        dir,
        "broken_icd.json",
        br#"{ "file_format_version": "1.0.0", "ICD": { "library_path": "#,
    )
}

#[test]
fn item11_auto_scores_on_the_cpu_when_the_vulkan_driver_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let icd = broken_icd(dir.path());
    let with_icd = |backend: &str| {
        let mut cmd = vkssim();
        cmd.args([
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            s(&r),
            "-d",
            s(&d),
            "--csv",
            "-o",
            "-",
        ])
        .args(["--backend", backend])
        .env("VK_ICD_FILENAMES", &icd)
        .env("VK_DRIVER_FILES", &icd)
        .stdin(Stdio::null());
        run_cmd(&mut cmd, None)
    };
    let auto = with_icd("auto");
    assert_ok(&auto);
    let note = stderr(&auto);
    assert!(
        note.contains("no usable Vulkan") && note.contains("scoring on the CPU"),
        "{note}"
    );
    assert!(note.contains("malformed"), "{note}");
    let cpu = with_icd("cpu");
    assert_ok(&cpu);
    assert_eq!(auto.stdout, cpu.stdout, "the same numbers");
    let vulkan = with_icd("vulkan");
    assert_fails(&vulkan, &["starting the Vulkan backend", "malformed"]);
    assert_eq!(vulkan.status.code(), Some(1));
}

/// Whether the device `--backend auto` would consider is a CPU implementation
/// (`vkssim devices` marks the default one).
fn default_device_is_a_cpu() -> bool {
    let o = run(&["devices"], None);
    assert_ok(&o);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.lines()
        .find(|l| l.ends_with("(default)"))
        .is_some_and(|l| l.contains(" (CPU) "))
}

#[test]
fn issue9_item5_auto_leaves_a_cpu_implementation_to_the_cpu_twin() {
    let cpu_only = default_device_is_a_cpu();
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let o = run(&score_args(&r, &d, &[]), None);
    assert_ok(&o);
    assert_eq!(
        stderr(&o),
        "",
        "-q: no note even when auto picks the CPU twin"
    );
    // With the validation layer on: any message it logs fails the test.
    let bench = |backend: &str| {
        let mut cmd = vkssim();
        cmd.args([
            "bench", "--frames", "3", "-w", "32", "-h", "24", "--repeat", "1",
        ])
        .args(["--backend", backend])
        .env("VKSSIM_VALIDATION", "1")
        .stdin(Stdio::null());
        let o = run_cmd(&mut cmd, None);
        assert_ok(&o);
        let err = stderr(&o);
        assert!(!err.contains("vkssim::vk::validation"), "{err}");
        (String::from_utf8_lossy(&o.stdout).into_owned(), err)
    };
    let (out, note) = bench("auto");
    if cpu_only {
        assert!(out.contains("\nbackend: cpu ("), "{out}");
        assert!(note.contains("is a CPU implementation"), "{note}");
        // Nothing to compare the CPU twin with but itself.
        assert!(!out.contains("CPU backend:"), "{out}");
    } else {
        assert!(out.contains("\nbackend: vulkan ("), "{out}");
    }
    // `--backend vulkan` uses the device whatever it is, and the comparison
    // says faster or slower (or, when t(3) - t(2) was not above zero for
    // frames this small, that the run was too short to compare them).
    let (out, _) = bench("vulkan");
    assert!(out.contains("\nbackend: vulkan ("), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("CPU time per frame"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("x faster;")
            || line.contains("x slower;")
            || line.contains("the run was too short to compare them;"),
        "{line}"
    );
}
