//! End-to-end tests of what `vkssim score` does to files that are not its own
//! (issue 8, items 1 to 5 and 9, and the `--trace-chrome` part of 10): an output
//! never replaces a device, FIFO, symlink or hard link, never overwrites an input,
//! is checked before the first frame, is not replaced by a failed run, keeps the
//! umask, mode and owner; one stream is not read as both inputs; and an
//! interrupted run leaves an older trace whole.

mod common;

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{
    assert_fails, assert_ok, file, no_model, run, run_cmd, s, score_float_ssim, stderr, vkssim,
    y4m_clip,
};

const W: u32 = 32;
const H: u32 = 24;

/// A reference and a distorted clip of 3 frames in `dir`.
fn pair(dir: &Path) -> (PathBuf, PathBuf) {
    common::y4m_pair(dir, W, H)
}

/// `vkssim score -r REF -d DIST --csv --backend cpu` and `extra`.
fn score_args<'a>(r: &'a Path, d: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["score", "-r", s(r), "-d", s(d), "--csv", "--backend", "cpu"];
    a.extend_from_slice(extra);
    a.extend_from_slice(no_model(extra));
    a
}

/// The files in `dir`, by name, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Asserts that `text` is the CSV of frames 0..n.
fn assert_csv_frames(text: &str, n: usize) {
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.first(), Some(&"Frame,float_ssim,"), "{text}");
    assert_eq!(rows.len(), n + 1, "{text}");
    for (i, row) in rows[1..].iter().enumerate() {
        assert!(row.starts_with(&format!("{i},")), "{text}");
    }
}

fn make_node(args: &[&str]) {
    let st = Command::new(args[0]).args(&args[1..]).status().unwrap();
    assert!(st.success(), "{args:?}");
}

#[test]
fn item1_a_character_device_output_stays_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    // A node like /dev/null (major 1, minor 3) in the temporary folder.
    let null = dir.path().join("null");
    make_node(&["mknod", s(&null), "c", "1", "3"]);
    let before = std::fs::symlink_metadata(&null).unwrap();
    assert_ok(&run(&score_args(&r, &d, &["-o", s(&null)]), None));
    let after = std::fs::symlink_metadata(&null).unwrap();
    assert!(after.file_type().is_char_device(), "{after:?}");
    assert_eq!((after.rdev(), after.ino()), (before.rdev(), before.ino()));
    assert_eq!(names(dir.path()), ["dist.y4m", "null", "ref.y4m"]);
}

#[test]
fn item1_a_fifo_output_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let fifo = dir.path().join("fifo");
    make_node(&["mkfifo", s(&fifo)]);
    // A reader that is open before vkssim runs (so its open does not block);
    // the small CSV fits in the pipe's buffer and is read after vkssim exits.
    let mut reader = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    assert_ok(&run(&score_args(&r, &d, &["-o", s(&fifo)]), None));
    let mut text = String::new();
    reader.read_to_string(&mut text).unwrap();
    assert_csv_frames(&text, 3);
    let meta = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(meta.file_type().is_fifo(), "{meta:?}");
}

#[test]
fn item1_a_symlink_output_replaces_its_target_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let real = file(&dir.path().join("sub"), "real.csv", b"old");
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("sub/real.csv", &link).unwrap();
    assert_ok(&run(&score_args(&r, &d, &["-o", s(&link)]), None));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("sub/real.csv")
    );
    assert_csv_frames(&std::fs::read_to_string(&real).unwrap(), 3);
    assert_eq!(names(&dir.path().join("sub")), ["real.csv"]);
}

#[test]
fn item1_a_hard_linked_output_is_rewritten_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let out = file(dir.path(), "out.csv", b"old");
    let other = dir.path().join("other.csv");
    std::fs::hard_link(&out, &other).unwrap();
    assert_ok(&run(&score_args(&r, &d, &["-o", s(&out)]), None));
    assert_csv_frames(&std::fs::read_to_string(&other).unwrap(), 3);
    let (a, b) = (
        std::fs::metadata(&out).unwrap(),
        std::fs::metadata(&other).unwrap(),
    );
    assert_eq!((a.ino(), a.nlink()), (b.ino(), 2));
}

#[test]
fn item1_a_descriptor_path_output_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let o = run(&score_args(&r, &d, &["-o", "/proc/self/fd/1"]), None);
    assert_ok(&o);
    assert_csv_frames(&String::from_utf8_lossy(&o.stdout), 3);
}

#[test]
fn item2_an_output_naming_an_input_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let (r_bytes, d_bytes) = (std::fs::read(&r).unwrap(), std::fs::read(&d).unwrap());
    let soft = dir.path().join("soft.csv");
    std::os::unix::fs::symlink(&r, &soft).unwrap();
    let hard = dir.path().join("hard.csv");
    std::fs::hard_link(&d, &hard).unwrap();
    for (out, input) in [(&soft, &r), (&hard, &d), (&d, &d)] {
        let o = run(&score_args(&r, &d, &["-o", s(out)]), None);
        assert_fails(&o, &[s(out), s(input), "same file"]);
    }
    // The input given as standard input is recognised too.
    let o = run_cmd(
        vkssim()
            .args(score_args(Path::new("-"), &d, &["-o", s(&r)]))
            .stdin(std::fs::File::open(&r).unwrap()),
        None,
    );
    assert_fails(&o, &[s(&r), "same file"]);
    assert_eq!(std::fs::read(&r).unwrap(), r_bytes);
    assert_eq!(std::fs::read(&d).unwrap(), d_bytes);
}

#[test]
fn item2_a_trace_naming_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let d_bytes = std::fs::read(&d).unwrap();
    let hard = dir.path().join("trace.json");
    std::fs::hard_link(&d, &hard).unwrap();
    let o = run(&score_args(&r, &d, &["--trace-chrome", s(&hard)]), None);
    assert_fails(&o, &["--trace-chrome", s(&hard), s(&d), "same file"]);
    assert_eq!(std::fs::read(&d).unwrap(), d_bytes);
}

#[test]
fn item9_the_same_stream_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let clip = y4m_clip(W, H, 4, 1);
    let o = score_float_ssim(
        &["-r", "/dev/stdin", "-d", "-", "--backend", "cpu"],
        Some(&clip),
    );
    assert_fails(&o, &["/dev/stdin", "same stream"]);
    // (The same FIFO twice is a unit test of `paths`: run here, a regression
    // would hang on opening it.)
    // One regular file twice is a legitimate comparison (SSIM 1).
    let r = file(dir.path(), "ref.y4m", &clip);
    let o = run(&score_args(&r, &r, &["-o", "-"]), None);
    assert_ok(&o);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.lines().skip(1).all(|l| l.contains(",1.000000,")),
        "{text}"
    );
}

#[test]
fn item3_a_missing_output_folder_fails_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no-such-folder/out.csv");
    // Standard input is empty and the distorted input missing: reading either
    // before checking the output would fail on them instead.
    let o = score_float_ssim(
        &["-r", "-", "-d", "/nonexistent-distorted.y4m", "-o", s(&out)],
        None,
    );
    assert_fails(&o, &["no-such-folder", "out.csv"]);
    assert!(
        !stderr(&o).contains("nonexistent-distorted"),
        "{}",
        stderr(&o)
    );
    // A file where the folder should be.
    let (r, d) = pair(dir.path());
    let out = r.join("out.csv");
    let o = run(&score_args(&r, &d, &["-o", s(&out)]), None);
    assert_fails(&o, &[s(&out)]);
}

/// 2 frames and half of a third, for a run that fails after scoring 2 frames.
fn truncated_clip() -> Vec<u8> {
    let mut bytes = y4m_clip(W, H, 2, 50);
    bytes.extend(&common::y4m_frame(W, H, 52)[..100]);
    bytes
}

#[test]
fn item4_a_failed_run_keeps_the_previous_output_and_writes_partial() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _) = pair(dir.path());
    let out = file(dir.path(), "out.csv", b"previous scores");
    let o = run(
        &score_args(&r, Path::new("-"), &["-o", s(&out)]),
        Some(&truncated_clip()),
    );
    let partial = dir.path().join("out.csv.partial");
    assert_fails(
        &o,
        &["wrote the 2 frames scored before the error", s(&partial)],
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"previous scores");
    assert_csv_frames(&std::fs::read_to_string(&partial).unwrap(), 2);
}

#[test]
fn item4_a_failed_run_to_standard_output_says_it_is_partial() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _) = pair(dir.path());
    let o = run(
        &score_args(&r, Path::new("-"), &["-o", "-"]),
        Some(&truncated_clip()),
    );
    assert_fails(&o, &["2 frames", "partial"]);
    assert_csv_frames(&String::from_utf8_lossy(&o.stdout), 2);
}

/// Runs vkssim under `umask`.
fn run_with_umask(umask: &str, args: &[&str]) -> std::process::Output {
    let script = format!("umask {umask}; exec \"$0\" \"$@\"");
    run_cmd(
        Command::new("sh")
            .stdin(Stdio::null())
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_vkssim"))
            .args(args),
        None,
    )
}

#[test]
fn item5_new_outputs_follow_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    for (umask, mode) in [("022", 0o644), ("077", 0o600)] {
        let out = dir.path().join(format!("{umask}.csv"));
        let trace = dir.path().join(format!("{umask}.json"));
        let o = run_with_umask(
            umask,
            &score_args(&r, &d, &["-o", s(&out), "--trace-chrome", s(&trace)]),
        );
        assert_ok(&o);
        for p in [&out, &trace] {
            let m = std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
            assert_eq!(m, mode, "{} under umask {umask}: {m:o}", p.display());
        }
    }
}

#[test]
fn item5_a_replaced_output_keeps_its_mode_and_owner() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = pair(dir.path());
    let out = file(dir.path(), "out.csv", b"old");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    let owned = std::os::unix::fs::chown(&out, Some(1234), Some(1234)).is_ok();
    if !owned {
        println!("note: not root, the owner is not checked (only root can give a file away)");
    }
    assert_ok(&run_with_umask(
        "022",
        &score_args(&r, &d, &["-o", s(&out)]),
    ));
    let meta = std::fs::metadata(&out).unwrap();
    assert_csv_frames(&std::fs::read_to_string(&out).unwrap(), 3);
    assert_eq!(meta.permissions().mode() & 0o7777, 0o640);
    if owned {
        assert_eq!((meta.uid(), meta.gid()), (1234, 1234));
    }
}

#[test]
fn item10_an_interrupted_run_leaves_the_older_trace_whole() {
    let dir = tempfile::tempdir().unwrap();
    let frames = 600;
    let d = file(dir.path(), "dist.y4m", &y4m_clip(W, H, frames + 10, 50));
    let trace = file(dir.path(), "trace.json", b"[\"older trace\"]\n");
    let mut child = vkssim()
        .args(score_args(
            Path::new("-"),
            &d,
            &["--trace-chrome", s(&trace)],
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // When this returns, vkssim has read all but a pipe buffer's worth (64 KiB)
    // of the ~0.7 MB: it is mid-run, its stdin still open.
    stdin
        .write_all(&y4m_clip(W, H, frames, 1))
        .expect("vkssim stopped reading its input early");
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let status = child.wait().unwrap();
    drop(stdin);
    assert!(!status.success(), "an interrupted run does not succeed");
    // Either the older trace, untouched, or a complete new document.
    let text = std::fs::read_to_string(&trace).unwrap();
    if text != "[\"older trace\"]\n" {
        let v: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("the trace is neither the older one nor JSON: {e}"));
        assert!(v.is_array());
    }
    assert_eq!(names(dir.path()), ["dist.y4m", "trace.json"]);
}
