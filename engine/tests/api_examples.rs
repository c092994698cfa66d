//! The library API's examples (`engine/examples/`), run as CI runs them: with
//! the validation layer on (`VKSSIM_VALIDATION=1`), each must exit 0, which it
//! does only when every score is bit-identical to the CPU twin's and no
//! validation message appeared. `score_files` gets two raw 4:2:0 files written
//! here. `image_frames` scores frames in `VkImage`s.
//!
//! `cargo test` builds the examples before it runs the tests; when this test is
//! run alone (`--test api_examples`) it builds a missing example with cargo.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The example binary `name`, built if missing.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let path = profile_dir.join("examples").join(name);
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "-p", "vkssim", "--example", name]);
        // The example goes where this test looks: the test's own profile.
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        let status = build.status().expect("running cargo to build the example");
        assert!(status.success(), "building example {name} failed");
    }
    assert!(
        path.exists(),
        "example {name} not found at {}",
        path.display()
    );
    path
}

/// Runs an example with validation on and fails with its output unless it
/// exits 0; returns its standard output.
fn run(name: &str, args: &[String]) -> String {
    let mut child = Command::new(example(name))
        .args(args)
        .env("VKSSIM_VALIDATION", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running example {name}: {e}"));
    // Drain both pipes on threads (a chatty child never blocks), and fail a
    // hang instead of stalling CI.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out_thread = drain(Box::new(child.stdout.take().expect("stdout")));
    let err_thread = drain(Box::new(child.stderr.take().expect("stderr")));
    let deadline = Instant::now() + Duration::from_secs(600);
    let status = loop {
        if let Some(status) = child.try_wait().expect("polling the example") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("example {name} ran for more than 600 s; killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = std::process::Output {
        status,
        stdout: out_thread.join().expect("stdout reader"),
        stderr: err_thread.join().expect("stderr reader"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "example {name} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    println!("{stdout}");
    stdout
}

#[test]
fn device_resident_example() {
    let out = run("device_resident", &[]);
    // Two bit depths x (zero-copy, device copy, host) pairs.
    assert_eq!(
        out.matches("bit-identical to the CPU twin").count(),
        6,
        "{out}"
    );
}

#[test]
fn import_device_example() {
    let out = run("import_device", &[]);
    assert!(out.contains("import without shaderInt64 refused"), "{out}");
    assert!(
        out.contains("host device still works after the engine was dropped"),
        "{out}"
    );
    assert_eq!(
        out.matches("bit-identical to the CPU twin").count(),
        2,
        "{out}"
    );
}

#[test]
fn score_files_example() {
    let (w, h, frames) = (96usize, 72usize, 3usize);
    let dir = tempfile::tempdir().expect("temp dir");
    let chroma = 2 * w.div_ceil(2) * h.div_ceil(2);
    let mut files = Vec::new();
    for (k, name) in ["ref.yuv", "dist.yuv"].iter().enumerate() {
        let mut bytes = Vec::new();
        let mut state = 0x1234_5678u32 + k as u32;
        for f in 0..frames {
            for y in 0..h {
                for x in 0..w {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    let noise = if k == 1 { state % 24 } else { 0 };
                    bytes.push(((x * 2 + y + f * 7) as u32 % 200 + noise) as u8);
                }
            }
            bytes.extend(std::iter::repeat(128u8).take(chroma));
        }
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write a YUV file");
        files.push(path.display().to_string());
    }
    let args = [
        files[0].clone(),
        files[1].clone(),
        w.to_string(),
        h.to_string(),
        "--check".to_string(),
    ];
    let out = run("score_files", &args);
    assert!(
        out.contains(&format!("{frames} frames, mean float_ssim")),
        "{out}"
    );
    assert!(
        out.contains("every frame bit-identical to the CPU twin"),
        "{out}"
    );
}

#[test]
fn image_frames_example() {
    let out = run("image_frames", &[]);
    // R8 and R16 (as is, 10 and 12-bit MSB-aligned) in three layouts each, at
    // least: every Vulkan device copies those.
    assert!(identical_of_all(&out, "image frames identical: ") >= 12);
    // The luma metrics on R8 and MSB-aligned R16 images at least.
    assert!(identical_of_all(&out, "image frames with metrics identical: ") >= 2);
}

/// The count of a summary line `<prefix>N/M` of `out`, failing unless N is M.
fn identical_of_all(out: &str, prefix: &str) -> usize {
    let line = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?}:\n{out}"));
    let (n, total) = line[prefix.len()..].split_once('/').expect("N/M");
    assert_eq!(n, total, "{out}");
    total.parse().expect("a count")
}
