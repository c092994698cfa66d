//! A ladder whose reference is a regular file: a distorted input that stalls
//! (a FIFO whose writer stops) holds back none of the others, however far
//! they run ahead of it (issue 29, item 8). The lanes ahead read the
//! reference by position instead of waiting for the stalled one to free the
//! shared window; their outputs are written, whole and equal to their single
//! runs, while the stalled input still waits.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{assert_ok, file, s, score_float_ssim, stderr, vkssim, y4m_clip};

const W: u32 = 32;
const H: u32 = 24;

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Waits (60 s at most) until `done`, asserting that `child` still runs.
fn wait_while_running(child: &mut Child, what: &str, done: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !done() {
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no {what} in 60 s");
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "vkssim ended before {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A 100-frame file reference, a 100-frame file input `a.y4m`, and a FIFO
/// input that sends its header and 50 frames, then stalls (open) until the
/// test lets it close. Two reader threads keep the shared window (20 planes)
/// far below the 50 frames `a.y4m` runs ahead. `a.json` is written, equal to
/// a's single run, while the FIFO still stalls; once it closes, its lane
/// fails alone with the length error, its 50 frames kept as `.partial`.
#[test]
fn a_stalled_input_does_not_hold_back_a_file_referenced_ladder() {
    let dir = tempfile::tempdir().unwrap();
    let r = file(dir.path(), "ref.y4m", &y4m_clip(W, H, 100, 1));
    let a = file(dir.path(), "a.y4m", &y4m_clip(W, H, 100, 7));
    let fifo = dir.path().join("stalled.y4m");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    let (release, released) = mpsc::channel::<()>();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let clip = y4m_clip(W, H, 50, 30);
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(&clip).unwrap();
            // Stalled, the FIFO open, until the test lets it go (or ends).
            let _ = released.recv_timeout(Duration::from_secs(120));
        })
    };
    let out = dir.path().join("o");
    std::fs::create_dir(&out).unwrap();
    let pattern = out.join("{name}.json");
    let mut child = vkssim()
        .args([
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            s(&r),
            "-d",
            s(&a),
            "-d",
            s(&fifo),
        ])
        .args(["--json", "-o", s(&pattern), "--backend", "cpu", "-q"])
        .args(["--read-threads", "2"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let oa = out.join("a.json");
    wait_while_running(&mut child, "a.json while the FIFO stalls", || oa.exists());
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run waits for the stalled input"
    );
    let single = dir.path().join("single.json");
    assert_ok(&score_float_ssim(
        &[
            "-r",
            s(&r),
            "-d",
            s(&a),
            "--json",
            "-o",
            s(&single),
            "--backend",
            "cpu",
            "-q",
        ],
        None,
    ));
    let frames = |p: &Path| json(p)["frames"].clone();
    assert_eq!(frames(&oa).as_array().unwrap().len(), 100);
    assert_eq!(frames(&oa), frames(&single));
    assert_eq!(json(&oa)["pooled_metrics"], json(&single)["pooled_metrics"]);

    // The FIFO ends after its 50 frames: that input fails alone.
    release.send(()).unwrap();
    writer.join().unwrap();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("stalled.y4m"), "{err}");
    assert!(err.contains("100") && err.contains("50"), "{err}");
    let partial = out.join("stalled.json.partial");
    assert_eq!(frames(&partial).as_array().unwrap().len(), 50, "{err}");
    assert!(!out.join("stalled.json").exists());
    // Unchanged by the stalled lane's end.
    assert_eq!(frames(&oa), frames(&single));
}
