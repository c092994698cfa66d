//! End-to-end tests of the `vkssim` binary: bad inputs fail with a clear message
//! and a non-zero status (never a panic), frames scored before a mid-stream error
//! are still written, the output files have libvmaf's structure, and the values
//! written are exactly the library's.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_fails, assert_ok, run, s, score_float_ssim, stderr};
use vkssim::{LumaFrame, SsimOptions};

/// A deterministic luma plane.
fn luma(width: u32, height: u32, bit_depth: u32, seed: u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(width, height, bit_depth);
    let max = (1u32 << bit_depth) - 1;
    let mut s = seed.wrapping_mul(0x9E37_79B9) | 1;
    let bps = if bit_depth > 8 { 2 } else { 1 };
    for y in 0..height {
        for x in 0..width {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let smooth = (x * 7 + y * 5 + seed * 3) % (max + 1);
            let v = (smooth + s % (max / 8 + 1)).min(max);
            let i = ((y * width + x) as usize) * bps;
            f.bytes[i] = v as u8;
            if bps == 2 {
                f.bytes[i + 1] = (v >> 8) as u8;
            }
        }
    }
    f
}

/// Bytes of the two 4:2:0 chroma planes after a luma plane.
fn chroma_420(f: &LumaFrame) -> Vec<u8> {
    let bps = if f.bit_depth > 8 { 2 } else { 1 };
    let n = 2 * f.width.div_ceil(2) as usize * f.height.div_ceil(2) as usize * bps;
    vec![0; n]
}

/// A raw 4:2:0 file of `frames`.
fn raw_file(dir: &Path, name: &str, frames: &[LumaFrame]) -> PathBuf {
    let mut bytes = Vec::new();
    for f in frames {
        bytes.extend_from_slice(&f.bytes);
        bytes.extend(chroma_420(f));
    }
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A 4:2:0 Y4M file of `frames`.
fn y4m_bytes(frames: &[LumaFrame]) -> Vec<u8> {
    let f0 = &frames[0];
    let c = if f0.bit_depth == 8 {
        "420jpeg".to_string()
    } else {
        format!("420p{}", f0.bit_depth)
    };
    let mut bytes = format!(
        "YUV4MPEG2 W{} H{} F25:1 Ip A1:1 C{c}\n",
        f0.width, f0.height
    )
    .into_bytes();
    for f in frames {
        bytes.extend_from_slice(b"FRAME\n");
        bytes.extend_from_slice(&f.bytes);
        bytes.extend(chroma_420(f));
    }
    bytes
}

fn y4m_file(dir: &Path, name: &str, frames: &[LumaFrame]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, y4m_bytes(frames)).unwrap();
    p
}

/// A reference / distorted pair of `n` frames each.
fn clip(n: u32, width: u32, height: u32, bit_depth: u32) -> (Vec<LumaFrame>, Vec<LumaFrame>) {
    let r = (0..n)
        .map(|i| luma(width, height, bit_depth, i + 1))
        .collect();
    let d = (0..n)
        .map(|i| luma(width, height, bit_depth, i + 101))
        .collect();
    (r, d)
}

fn read_json(p: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(p).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn missing_file_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _) = clip(1, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let missing = dir.path().join("nope.y4m");
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&missing)], None);
    assert_fails(&o, &["nope.y4m", "distorted"]);
}

#[test]
fn truncated_raw_file_says_how_many_bytes_are_left_over() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(2, 32, 24, 8);
    let rp = raw_file(dir.path(), "ref.yuv", &r);
    let dp = raw_file(dir.path(), "dist.yuv", &d);
    let mut bytes = std::fs::read(&dp).unwrap();
    bytes.extend_from_slice(&[7; 100]);
    std::fs::write(&dp, bytes).unwrap();
    let o = score_float_ssim(
        &[
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "-w",
            "32",
            "-h",
            "24",
            "-p",
            "420",
            "-b",
            "8",
        ],
        None,
    );
    assert_fails(&o, &["dist.yuv", "100 bytes"]);
}

#[test]
fn mismatched_geometry_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rp = y4m_file(dir.path(), "ref.y4m", &clip(1, 32, 32, 8).0);
    let dp = y4m_file(dir.path(), "dist.y4m", &clip(1, 32, 34, 8).0);
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&dp)], None);
    assert_fails(&o, &["differ", "32x32", "32x34"]);
    let dp = y4m_file(dir.path(), "dist10.y4m", &clip(1, 32, 32, 10).0);
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&dp)], None);
    assert_fails(&o, &["differ", "8-bit", "10-bit"]);
}

#[test]
fn length_mismatch_fails_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(3, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d[..2]);
    let out = dir.path().join("out.json");
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&dp), "-o", s(&out), "--json"], None);
    assert_fails(&o, &["3 frames", "2", "--allow-length-mismatch"]);
    assert!(
        !out.exists(),
        "nothing is scored when files show the mismatch up front"
    );

    let o = score_float_ssim(
        &[
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "-o",
            s(&out),
            "--json",
            "--allow-length-mismatch",
        ],
        None,
    );
    assert_ok(&o);
    assert_eq!(read_json(&out)["frames"].as_array().unwrap().len(), 2);
}

#[test]
fn length_mismatch_on_a_pipe_keeps_the_common_frames() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(4, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let out = dir.path().join("out.json");
    let o = score_float_ssim(
        &["-r", s(&rp), "-d", "-", "-o", s(&out), "--json"],
        Some(&y4m_bytes(&d[..2])),
    );
    assert_fails(
        &o,
        &[
            "reference has 4 frames but distorted has 2",
            "wrote the 2 frames",
        ],
    );
    let partial = dir.path().join("out.json.partial");
    assert_eq!(read_json(&partial)["frames"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_y4m_header_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rp = y4m_file(dir.path(), "ref.y4m", &clip(1, 32, 32, 8).0);
    let bad = dir.path().join("bad.y4m");
    std::fs::write(&bad, b"YUV4MPEG2 W32 Hx F25:1\nFRAME\n").unwrap();
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&bad)], None);
    assert_fails(&o, &["bad.y4m", "Y4M header"]);
}

#[test]
fn zero_frames_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty_r = dir.path().join("r.yuv");
    let empty_d = dir.path().join("d.yuv");
    std::fs::write(&empty_r, b"").unwrap();
    std::fs::write(&empty_d, b"").unwrap();
    let o = score_float_ssim(
        &[
            "-r",
            s(&empty_r),
            "-d",
            s(&empty_d),
            "-w",
            "32",
            "-h",
            "32",
            "-p",
            "420",
            "-b",
            "8",
        ],
        None,
    );
    assert_fails(&o, &["no frames"]);
    // Skipping past the end leaves nothing to score either.
    let (r, d) = clip(2, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let o = score_float_ssim(
        &[
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "--frame_skip_ref",
            "5",
            "--frame_skip_dist",
            "5",
        ],
        None,
    );
    assert_fails(&o, &["no frames"]);
}

#[test]
fn plane_too_small_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(1, 10, 12, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&dp)], None);
    assert_fails(&o, &["10x12", "11x11"]);
}

#[test]
fn unsupported_bit_depth_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.yuv");
    std::fs::write(&p, vec![0u8; 4096]).unwrap();
    let o = score_float_ssim(
        &[
            "-r",
            s(&p),
            "-d",
            s(&p),
            "-w",
            "32",
            "-h",
            "32",
            "-p",
            "420",
            "-b",
            "9",
        ],
        None,
    );
    assert_fails(&o, &["bit depth 9"]);
}

#[test]
fn raw_input_without_its_geometry_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(1, 32, 32, 8);
    let rp = raw_file(dir.path(), "ref.yuv", &r);
    let dp = raw_file(dir.path(), "dist.yuv", &d);
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&dp), "-w", "32", "-h", "32"], None);
    assert_fails(&o, &["ref.yuv"]);
}

#[test]
fn unsupported_feature_and_model_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(1, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let o = run(
        &[
            "score",
            "-n",
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "--feature",
            "ciede",
        ],
        None,
    );
    assert_fails(&o, &["ciede", "float_ssim, psnr, float_ms_ssim"]);
    let o = run(
        &[
            "score",
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "-m",
            "version=vmaf_v0.6.1",
        ],
        None,
    );
    // The model's adm takes frames of at least 33x33.
    assert_fails(&o, &["adm", "32x32"]);
    let o = run(
        &["score", "-r", s(&rp), "-d", s(&dp), "-m", "version=nope"],
        None,
    );
    assert_fails(&o, &["-m/--model", "nope"]);
}

#[test]
fn mid_stream_error_keeps_the_frames_scored_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(3, 32, 24, 8);
    let rp = raw_file(dir.path(), "ref.yuv", &r);
    // The distorted stream (a pipe, so nothing is known up front) ends 50 bytes
    // into its third frame.
    let mut piped = std::fs::read(raw_file(dir.path(), "dist.yuv", &d[..2])).unwrap();
    piped.extend_from_slice(&[9; 50]);
    let out = dir.path().join("partial.csv");
    let o = score_float_ssim(
        &[
            "-r",
            s(&rp),
            "-d",
            "-",
            "-w",
            "32",
            "-h",
            "24",
            "-p",
            "420",
            "-b",
            "8",
            "--csv",
            "-o",
            s(&out),
        ],
        Some(&piped),
    );
    assert_fails(&o, &["frame 2", "50 bytes", "wrote the 2 frames"]);
    let csv = std::fs::read_to_string(dir.path().join("partial.csv.partial")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "Frame,float_ssim,");
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(
        rows[1].starts_with("0,") && rows[2].starts_with("1,"),
        "{csv}"
    );
}

/// The frames' values as the library computes them.
fn expected(r: &[LumaFrame], d: &[LumaFrame], opts: &SsimOptions) -> Vec<vkssim::FrameScore> {
    r.iter()
        .zip(d)
        .map(|(a, b)| vkssim::testing::cpu::score_frame(&a.view(), &b.view(), opts).unwrap())
        .collect()
}

#[test]
fn json_holds_the_exact_library_values_with_precision_max() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(3, 61, 37, 10);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let out = dir.path().join("out.json");
    let o = run(
        &[
            "score",
            "-n",
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "--feature",
            "float_ssim=enable_lcs=true:enable_db=true:clip_db=true",
            "--json",
            "--precision",
            "max",
            "-o",
            s(&out),
            "--threads",
            "2",
        ],
        None,
    );
    assert_ok(&o);
    let opts = SsimOptions {
        enable_lcs: true,
        enable_db: true,
        clip_db: true,
        ..Default::default()
    };
    let want = expected(&r, &d, &opts);
    let j = read_json(&out);
    let frames = j["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    for (i, (f, w)) in frames.iter().zip(&want).enumerate() {
        assert_eq!(f["frameNum"].as_u64(), Some(i as u64));
        let m = &f["metrics"];
        assert_eq!(
            m["float_ssim"].as_f64().unwrap().to_bits(),
            w.float_ssim().to_bits()
        );
        assert_eq!(
            m["float_ssim_l"].as_f64().unwrap().to_bits(),
            w.l().unwrap().to_bits()
        );
        assert_eq!(
            m["float_ssim_c"].as_f64().unwrap().to_bits(),
            w.c().unwrap().to_bits()
        );
        assert_eq!(
            m["float_ssim_s"].as_f64().unwrap().to_bits(),
            w.s().unwrap().to_bits()
        );
    }
    let pooled = &j["pooled_metrics"];
    for name in ["float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"] {
        for k in ["min", "max", "mean", "harmonic_mean"] {
            assert!(pooled[name][k].is_f64(), "{name}.{k}: {pooled}");
        }
    }
    let mean = want.iter().map(|w| w.float_ssim()).sum::<f64>() / 3.0;
    assert_eq!(
        pooled["float_ssim"]["mean"].as_f64().unwrap().to_bits(),
        mean.to_bits()
    );
    assert_eq!(j["aggregate_metrics"], serde_json::json!({}));
    assert!(j["version"].is_string() && j["fps"].is_number());
}

#[test]
fn precision_sets_the_digits() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(1, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let want = expected(&r, &d, &SsimOptions::default())[0].float_ssim();
    for (p, text) in [
        ("6", format!("{want:.6}")),
        ("3", format!("{want:.3}")),
        ("max", format!("{want}")),
    ] {
        let out = dir.path().join(format!("p{p}.csv"));
        let o = score_float_ssim(
            &[
                "-r",
                s(&rp),
                "-d",
                s(&dp),
                "--csv",
                "--precision",
                p,
                "-o",
                s(&out),
            ],
            None,
        );
        assert_ok(&o);
        let csv = std::fs::read_to_string(&out).unwrap();
        let value = csv.lines().nth(1).unwrap().split(',').nth(1).unwrap();
        if p == "max" {
            assert_eq!(
                value.parse::<f64>().unwrap().to_bits(),
                want.to_bits(),
                "{value}"
            );
        } else {
            assert_eq!(value, text);
        }
    }
}

#[test]
fn xml_csv_and_sub_have_libvmafs_shape() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(4, 40, 30, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let xml = dir.path().join("o.xml");
    let o = score_float_ssim(
        &[
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "-o",
            s(&xml),
            "--subsample",
            "2",
        ],
        None,
    );
    assert_ok(&o);
    let x = std::fs::read_to_string(&xml).unwrap();
    let lines: Vec<&str> = x.lines().collect();
    assert!(lines[0].starts_with("<VMAF version=\""), "{x}");
    assert_eq!(
        lines[1],
        "  <params qualityWidth=\"40\" qualityHeight=\"30\" />"
    );
    assert!(lines[2].starts_with("  <fyi fps=\""));
    assert_eq!(lines[3], "  <frames>");
    assert!(lines[4].starts_with("    <frame frameNum=\"0\" float_ssim=\""));
    assert!(lines[5].starts_with("    <frame frameNum=\"2\" float_ssim=\""));
    assert_eq!(lines[6], "  </frames>");
    assert_eq!(lines[7], "  <pooled_metrics>");
    assert!(lines[8].starts_with("    <metric name=\"float_ssim\" min=\""));
    assert_eq!(
        &lines[9..],
        ["  </pooled_metrics>", "  <aggregate_metrics />", "</VMAF>"]
    );

    let sub = dir.path().join("o.sub");
    assert_ok(&score_float_ssim(
        &["-r", s(&rp), "-d", s(&dp), "-o", s(&sub), "--sub"],
        None,
    ));
    let t = std::fs::read_to_string(&sub).unwrap();
    assert_eq!(t.lines().count(), 4);
    assert!(t.starts_with("{0}{1}frame: 0|float_ssim: 0."), "{t}");
}

#[test]
fn summary_on_stdout_without_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _) = clip(2, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    // vmaf-style: no subcommand, identical inputs score exactly 1.
    let o = run(
        &[
            "-r",
            s(&rp),
            "-d",
            s(&rp),
            "-q",
            "--no_prediction",
            "--feature",
            "float_ssim",
        ],
        None,
    );
    assert_ok(&o);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "float_ssim: 1.000000\n");
}

#[test]
fn stdin_input_scores_like_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(2, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let from_file = score_float_ssim(&["-r", s(&rp), "-d", s(&dp), "--precision", "max"], None);
    let from_pipe = score_float_ssim(
        &["-r", s(&rp), "-d", "-", "--precision", "max"],
        Some(&y4m_bytes(&d)),
    );
    assert_ok(&from_file);
    assert_ok(&from_pipe);
    assert_eq!(from_file.stdout, from_pipe.stdout);
}

#[test]
fn minus_h_is_the_height_and_help_is_long_only() {
    let o = run(&["score", "--help"], None);
    assert_ok(&o);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("--height"), "{help}");
    let o = run(&["score", "-h"], None);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("value"), "{}", stderr(&o));
}

#[test]
fn output_into_a_missing_folder_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(1, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let out = dir.path().join("no/such/dir/out.xml");
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&dp), "-o", s(&out)], None);
    assert_fails(&o, &["out.xml"]);
}

#[test]
fn bench_runs_on_small_generated_frames() {
    let o = run(
        &[
            "bench",
            "--frames",
            "3",
            "--width",
            "64",
            "--height",
            "48",
            "--repeat",
            "1",
            "--json",
            "--threads",
            "1",
        ],
        None,
    );
    assert_ok(&o);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["width"], 64);
    assert_eq!(j["frames"], 3);
    // A time per frame above zero, or none when t(3) - t(2) was not above
    // zero (such small frames may take less time than the clock can tell).
    match j["ms_per_frame"].as_f64() {
        Some(ms) => assert!(ms > 0.0 && j["too_short_to_time"] == false, "{j}"),
        None => assert!(
            j["too_short_to_time"] == true && j["frames_per_second"].is_null(),
            "{j}"
        ),
    }
    let score = j["float_ssim"].as_f64().unwrap();
    assert!(score > 0.0 && score < 1.0, "{score}");
}

/// Whether the Vulkan tests are skipped (`VKSSIM_SKIP_GPU_TESTS=1`, for machines
/// without any Vulkan device; CI has lavapipe and runs them).
fn skip_gpu() -> bool {
    std::env::var("VKSSIM_SKIP_GPU_TESTS").is_ok_and(|v| v == "1")
}

#[test]
fn vulkan_and_cpu_backends_write_identical_files() {
    if skip_gpu() {
        eprintln!("VKSSIM_SKIP_GPU_TESTS=1: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(3, 67, 45, 12);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let mut files = Vec::new();
    for backend in ["cpu", "vulkan"] {
        let out = dir.path().join(format!("{backend}.csv"));
        let o = run(
            &[
                "score",
                "-n",
                "-r",
                s(&rp),
                "-d",
                s(&dp),
                "--backend",
                backend,
                "--csv",
                "--precision",
                "max",
                "--feature",
                "float_ssim=enable_lcs=true:enable_db=true",
                "-o",
                s(&out),
            ],
            None,
        );
        assert_ok(&o);
        files.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(files[0], files[1]);
    assert_eq!(files[0].lines().count(), 4);
}

#[test]
fn devices_lists_the_vulkan_devices() {
    if skip_gpu() {
        eprintln!("VKSSIM_SKIP_GPU_TESTS=1: skipped");
        return;
    }
    let o = run(&["devices"], None);
    assert_ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("shaderInt64"), "{text}");
    assert!(text.contains("vkssim path"), "{text}");
}

#[test]
fn frame_selection_flags_pick_the_right_frames() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(6, 32, 32, 8);
    let want = expected(&r[1..], &d[..5], &SsimOptions::default());
    // The reference starts one frame early: skip it.
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d[..5]);
    let out = dir.path().join("skip.json");
    let o = score_float_ssim(
        &[
            "-r",
            s(&rp),
            "-d",
            s(&dp),
            "--frame_skip_ref",
            "1",
            "--subsample",
            "2",
            "--frame_cnt",
            "4",
            "--json",
            "--precision",
            "max",
            "-o",
            s(&out),
        ],
        None,
    );
    assert_ok(&o);
    let j = read_json(&out);
    let frames = j["frames"].as_array().unwrap();
    // frame_cnt 4 pairs, every second one scored: pairs 0 and 2.
    let nums: Vec<u64> = frames
        .iter()
        .map(|f| f["frameNum"].as_u64().unwrap())
        .collect();
    assert_eq!(nums, [0, 2]);
    for f in frames {
        let i = f["frameNum"].as_u64().unwrap() as usize;
        let v = f["metrics"]["float_ssim"].as_f64().unwrap();
        assert_eq!(v.to_bits(), want[i].float_ssim().to_bits(), "frame {i}");
    }
}

#[test]
fn dash_output_writes_the_file_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(2, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r);
    let dp = y4m_file(dir.path(), "dist.y4m", &d);
    let o = score_float_ssim(&["-r", s(&rp), "-d", s(&dp), "--json", "-o", "-"], None);
    assert_ok(&o);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["frames"].as_array().unwrap().len(), 2);
}

#[test]
fn length_mismatch_on_a_pipe_with_frame_cnt_counts_up_to_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = clip(5, 32, 32, 8);
    let rp = y4m_file(dir.path(), "ref.y4m", &r[..3]);
    let o = score_float_ssim(
        &["-r", s(&rp), "-d", "-", "--frame_cnt", "4"],
        Some(&y4m_bytes(&d)),
    );
    assert_fails(&o, &["reference has 3 frames but distorted has 4"]);
    // Within the limit both have enough frames: no mismatch.
    let o = score_float_ssim(
        &["-r", s(&rp), "-d", "-", "--frame_cnt", "3"],
        Some(&y4m_bytes(&d)),
    );
    assert_ok(&o);
}
