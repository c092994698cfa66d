//! The C API from C: checks that `include/vkssim.h` is what cbindgen makes of
//! `src/lib.rs`, compiles `tests/score_pair.c` with `cc` against the shared
//! library cargo built, runs it on a generated pair with validation on, and
//! compares every score it prints with the Rust API's, bit for bit (and the
//! Rust API's with the CPU twin's).

use std::path::{Path, PathBuf};
use std::process::Command;

use vkssim::api::{Engine, HostPlane, ScorerDesc};
use vkssim::vk::VkOptions;
use vkssim::LumaFrame;

const WIDTH: u32 = 176;
const HEIGHT: u32 = 144;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding `libvkssim_capi.so`: the test binary sits in
/// `target/<profile>/deps`, the library in `target/<profile>`.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory");
    for dir in [deps, deps.parent().expect("profile directory")] {
        if dir.join("libvkssim_capi.so").exists() {
            return dir.to_path_buf();
        }
    }
    panic!(
        "libvkssim_capi.so not found next to {} (cargo builds it with the tests)",
        deps.display()
    );
}

/// A deterministic 8-bit plane: a gradient with pseudo-random texture.
fn plane(seed: u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(WIDTH, HEIGHT, 8);
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let v = (x + 2 * y) / 2 + (state % 48);
            f.bytes[(y * WIDTH + x) as usize] = v.min(255) as u8;
        }
    }
    f
}

#[test]
fn header_is_what_cbindgen_generates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("vkssim.h");
    let status = Command::new("cbindgen")
        .current_dir(crate_dir())
        .args([
            "--config",
            "cbindgen.toml",
            "--crate",
            "vkssim-capi",
            "--output",
        ])
        .arg(&out)
        .status()
        .expect("running cbindgen (Debian package cbindgen; tools/setup-debian.sh installs it)");
    assert!(status.success(), "cbindgen failed");
    let fresh = std::fs::read_to_string(&out).expect("generated header");
    let committed =
        std::fs::read_to_string(crate_dir().join("include/vkssim.h")).expect("include/vkssim.h");
    assert!(
        fresh == committed,
        "capi/include/vkssim.h is stale: regenerate it with \
         `cd capi && cbindgen --config cbindgen.toml --crate vkssim-capi --output include/vkssim.h`"
    );
}

/// The score line `label ssim=... l=... c=... s=... db=... has_db=N` as bits.
fn parse(stdout: &str, label: &str) -> [u64; 6] {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no `{label}` line in the C program's output:\n{stdout}"));
    let mut v = [0u64; 6];
    for (k, field) in line.split_whitespace().skip(1).enumerate() {
        let (_, value) = field.split_once('=').expect("key=value");
        v[k] = u64::from_str_radix(value, 16).expect("hex");
    }
    v
}

#[test]
fn c_program_scores_like_the_rust_api() {
    let (r, d) = (plane(1), plane(2));
    let dir = tempfile::tempdir().expect("temp dir");
    let (rp, dp) = (dir.path().join("ref.y"), dir.path().join("dist.y"));
    std::fs::write(&rp, &r.bytes).expect("write ref");
    std::fs::write(&dp, &d.bytes).expect("write dist");

    // The Rust API's score (validation on), checked against the CPU twin.
    let engine = Engine::new(&VkOptions {
        validation: true,
        ..VkOptions::default()
    })
    .expect("engine");
    let mut desc = ScorerDesc::new(WIDTH, HEIGHT, 8);
    desc.ssim.enable_lcs = true;
    desc.ssim.enable_db = true;
    let want = engine
        .score_pair(
            &desc,
            HostPlane::u8(&r.bytes, WIDTH as usize),
            HostPlane::u8(&d.bytes, WIDTH as usize),
        )
        .expect("Rust API score");
    let cpu = vkssim::cpu::score_frame(&r.view(), &d.view(), &desc.ssim).expect("CPU twin");
    assert_eq!(want, cpu, "Rust API against the CPU twin");
    assert!(
        engine.validation_messages().is_empty(),
        "{:?}",
        engine.validation_messages()
    );
    let want_bits = [
        want.ssim.to_bits(),
        want.l.expect("enable_lcs").to_bits(),
        want.c.expect("enable_lcs").to_bits(),
        want.s.expect("enable_lcs").to_bits(),
        want.db.expect("enable_db").to_bits(),
        1,
    ];

    let lib = lib_dir();
    let exe = dir.path().join("score_pair");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/score_pair.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lvkssim_capi", "-lvulkan"])
        .output()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(
        out.status.success(),
        "compiling score_pair.c failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe)
        .arg(&rp)
        .arg(&dp)
        .arg(WIDTH.to_string())
        .arg(HEIGHT.to_string())
        .env("VKSSIM_VALIDATION", "1")
        .output()
        .expect("running score_pair");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "score_pair failed:\n{stdout}\n{stderr}"
    );
    for label in [
        "host_packed",
        "host_strided",
        "own_device_buffers",
        "device_images",
        "device_buffers",
    ] {
        assert_eq!(
            parse(&stdout, label),
            want_bits,
            "{label}: the C API's score differs from the Rust API's\n{stdout}"
        );
    }
    assert_library_path(&lib);
}

/// The program must have used the library cargo just built.
fn assert_library_path(lib: &Path) {
    assert!(lib.join("libvkssim_capi.so").is_file());
}
