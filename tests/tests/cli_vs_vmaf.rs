//! Whole output files: `vkssim score` against the `vmaf` CLI that libvmaf-sys
//! builds, run with the same flags on the same corpus files. Every line must be
//! identical except the version and the fps figure (JSON also parsed and compared
//! as values, for a readable failure).

use std::path::Path;
use std::process::Command;

use vkssim_tests::corpus::{self, Clip, Container};
use vkssim_tests::paths;
use vkssim_tests::vmaf_cli::comparable_lines;

/// Output format flag and file extension.
#[derive(Debug, Clone, Copy)]
enum Format {
    Json,
    Xml,
    Csv,
}

impl Format {
    fn flag(self) -> &'static str {
        match self {
            Format::Json => "--json",
            Format::Xml => "--xml",
            Format::Csv => "--csv",
        }
    }
}

/// Drops `version` and `fps` from a parsed JSON file.
fn without_version_and_fps(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("version");
        o.remove("fps");
    }
    v
}

/// The input flags for a pair of files of `clip`'s format.
fn input_args(clip: &Clip, reference: &Path, distorted: &Path) -> Vec<String> {
    let mut a = vec![
        "-r".to_string(),
        reference.display().to_string(),
        "-d".to_string(),
        distorted.display().to_string(),
    ];
    if clip.container == Container::Yuv {
        a.extend([
            "-w".to_string(),
            clip.width.to_string(),
            "-h".to_string(),
            clip.height.to_string(),
            "-p".to_string(),
            clip.pixel_format().to_string(),
            "-b".to_string(),
            clip.bit_depth.to_string(),
        ]);
    }
    a
}

/// Runs `program args... -o out` and returns the output file's text.
fn run(program: &Path, args: &[String], extra: &[&str], out: &Path) -> String {
    let o = Command::new(program)
        .args(args)
        .args(extra)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(
        o.status.success(),
        "{} {:?} {:?} failed ({}):\n{}",
        program.display(),
        args,
        extra,
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read_to_string(out).unwrap_or_else(|e| panic!("{}: {e}", out.display()))
}

/// Scores `reference` / `distorted` (files of `clip`'s format) with both
/// programs, `extra` flags given to both, and compares the output files.
fn compare_files(
    clip: &Clip,
    reference: &Path,
    distorted: &Path,
    feature: &str,
    format: Format,
    extra: &[&str],
    backend: &str,
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = input_args(clip, reference, distorted);
    args.extend(extra.iter().map(|s| s.to_string()));
    // -n: the feature alone, no VMAF model (both programs run one unless
    // told not to).
    let flags = ["-n", "-q", "--feature", feature, format.flag()];
    let vmaf = run(
        &paths::vmaf_cli(),
        &args,
        &flags,
        &dir.path().join("vmaf.out"),
    );
    let vkssim_args: Vec<String> = std::iter::once("score".to_string())
        .chain(args.iter().cloned())
        .collect();
    // `backend` may carry vkssim-only flags after the backend's name.
    let backend_flags: Vec<&str> = std::iter::once("--backend")
        .chain(backend.split_whitespace())
        .collect();
    let ours = run(
        paths::vkssim_bin(),
        &vkssim_args,
        &[&flags[..], &backend_flags[..]].concat(),
        &dir.path().join("vkssim.out"),
    );
    let what = format!(
        "{} --feature {feature} {} {extra:?} --backend {backend}",
        clip.name,
        format.flag()
    );
    if let Format::Json = format {
        if let (Ok(a), Ok(b)) = (
            serde_json::from_str::<serde_json::Value>(&ours),
            serde_json::from_str::<serde_json::Value>(&vmaf),
        ) {
            assert_eq!(
                without_version_and_fps(a),
                without_version_and_fps(b),
                "{what}: JSON values differ"
            );
        }
    }
    let (a, b) = (comparable_lines(&ours), comparable_lines(&vmaf));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "{what}: line {} differs (vkssim vs vmaf)", i + 1);
    }
    assert_eq!(
        a.len(),
        b.len(),
        "{what}: line counts differ\nvkssim:\n{ours}\nvmaf:\n{vmaf}"
    );
    eprintln!("{what}: {} lines identical", a.len());
}

fn compare_clip(name: &str, feature: &str, format: Format) {
    compare_clip_with(name, feature, format, &[]);
}

fn compare_clip_with(name: &str, feature: &str, format: Format, extra: &[&str]) {
    compare_clip_on(name, feature, format, extra, "cpu");
}

/// [`compare_files`] on a corpus clip's pair.
fn compare_clip_on(name: &str, feature: &str, format: Format, extra: &[&str], backend: &str) {
    let clip = corpus::clip(name);
    compare_files(
        &clip,
        &clip.reference,
        &clip.distorted,
        feature,
        format,
        extra,
        backend,
    );
}

#[test]
fn json_raw_yuv_odd_size_with_lcs() {
    compare_clip(
        "s1_321x241_420p8",
        "float_ssim=enable_lcs=true",
        Format::Json,
    );
}

#[test]
fn json_y4m_10bit_422_db_clipped() {
    compare_clip(
        "s2_704x513_422p10",
        "float_ssim=enable_db=true:clip_db=true",
        Format::Json,
    );
}

#[test]
fn json_raw_yuv_12bit_default() {
    compare_clip("s2_640x480_420p12", "float_ssim", Format::Json);
}

#[test]
fn json_raw_yuv_16bit_444_all_options() {
    compare_clip(
        "s1_255x300_444p16",
        "float_ssim=enable_lcs=true:enable_db=true:clip_db=true",
        Format::Json,
    );
}

#[test]
fn xml_and_csv_1080p() {
    compare_clip("s4_1920x1080_420p8", "float_ssim", Format::Xml);
    compare_clip(
        "s4_1920x1080_420p8",
        "float_ssim=enable_lcs=true",
        Format::Csv,
    );
}

#[test]
fn identical_files_hit_the_db_ceiling_and_infinity() {
    let clip = corpus::clip("s1_321x241_420p8");
    // Identical inputs: linear 1, dB at the clip_db ceiling, or +inf without it.
    compare_files(
        &clip,
        &clip.reference,
        &clip.reference,
        "float_ssim=enable_lcs=true",
        Format::Json,
        &[],
        "cpu",
    );
    compare_files(
        &clip,
        &clip.reference,
        &clip.reference,
        "float_ssim=enable_db=true:clip_db=true",
        Format::Json,
        &[],
        "cpu",
    );
    compare_files(
        &clip,
        &clip.reference,
        &clip.reference,
        "float_ssim=enable_db=true",
        Format::Xml,
        &[],
        "cpu",
    );
}

#[test]
fn frame_count_subsample_and_threads_flags() {
    compare_clip_with(
        "s1_321x241_420p8",
        "float_ssim",
        Format::Json,
        &["--frame_cnt", "2"],
    );
    compare_clip_with(
        "s1_321x241_420p8",
        "float_ssim=enable_lcs=true",
        Format::Json,
        &["--subsample", "2"],
    );
    compare_clip_with(
        "s2_704x513_422p10",
        "float_ssim",
        Format::Csv,
        &["--threads", "2"],
    );
}

/// True when a Vulkan device is present; without one the test fails, unless
/// `VKSSIM_SKIP_GPU_TESTS=1`.
fn gpu_present() -> bool {
    match vkssim::vk::list_devices(true) {
        Ok(d) if !d.is_empty() => true,
        other => {
            assert!(
                std::env::var("VKSSIM_SKIP_GPU_TESTS").is_ok_and(|v| v == "1"),
                "no Vulkan device ({other:?}): install mesa-vulkan-drivers, or set \
                 VKSSIM_SKIP_GPU_TESTS=1"
            );
            eprintln!("skipping the Vulkan CLI comparison (VKSSIM_SKIP_GPU_TESTS=1)");
            false
        }
    }
}

#[test]
fn vulkan_backend_output_files() {
    if !gpu_present() {
        return;
    }
    for (name, feature, format) in [
        (
            "s4_1920x1080_420p8",
            "float_ssim=enable_lcs=true",
            Format::Json,
        ),
        (
            "s2_704x513_422p10",
            "float_ssim=enable_db=true:clip_db=true",
            Format::Json,
        ),
        ("s1_255x300_444p16", "float_ssim", Format::Xml),
    ] {
        let clip = corpus::clip(name);
        compare_files(
            &clip,
            &clip.reference,
            &clip.distorted,
            feature,
            format,
            &[],
            "vulkan",
        );
    }
    let clip = corpus::clip("s1_321x241_420p8");
    compare_files(
        &clip,
        &clip.reference,
        &clip.reference,
        "float_ssim=enable_db=true:clip_db=true",
        Format::Json,
        &[],
        "vulkan",
    );
}

/// `--device all` (every usable device; lavapipe alone in CI) and `--device
/// 0,0` (two scorers on device 0, pairs dealt between them: the several-GPU
/// path on one device) give libvmaf's output files.
#[test]
fn several_devices_output_files() {
    if !gpu_present() {
        return;
    }
    for (name, feature, devices) in [
        ("s4_1920x1080_420p8", "float_ssim=enable_lcs=true", "all"),
        ("s4_1920x1080_420p8", "float_ssim=enable_lcs=true", "0,0"),
        ("s2_704x513_422p10", "float_ssim=enable_db=true", "0,0,0"),
    ] {
        let backend = format!("vulkan --device {devices}");
        compare_clip_on(name, feature, Format::Json, &[], &backend);
    }
}

#[test]
fn json_y4m_mono_and_near_lossless_10bit() {
    compare_clip(
        "mono_480x361_400p8",
        "float_ssim=enable_lcs=true",
        Format::Json,
    );
    compare_clip(
        "hq_1280x720_420p10",
        "float_ssim=enable_lcs=true:enable_db=true:clip_db=true",
        Format::Json,
    );
}

/// A ladder (`vkssim score -r REF -d A -d B -d C -o 'out_{index}'`): each
/// output file against the `vmaf` CLI's for that pair alone. The distorted
/// inputs are the clip's distorted file, its reference (identical frames),
/// and the distorted file again.
fn compare_ladder(name: &str, feature: &str, format: Format, extra: &[&str], backend: &str) {
    let clip = corpus::clip(name);
    let dir = tempfile::tempdir().expect("tempdir");
    let dists = [&clip.distorted, &clip.reference, &clip.distorted];
    let mut args = input_args(&clip, &clip.reference, dists[0]);
    for d in &dists[1..] {
        args.extend(["-d".to_string(), d.display().to_string()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let pattern = dir.path().join("vkssim_{index}.out");
    let o = Command::new(paths::vkssim_bin())
        .arg("score")
        .args(&args)
        .args([
            "-n",
            "-q",
            "--feature",
            feature,
            format.flag(),
            "--backend",
            backend,
        ])
        .arg("-o")
        .arg(&pattern)
        .env("VKSSIM_VALIDATION", "1")
        .output()
        .expect("running vkssim");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "vkssim ladder failed: {err}");
    assert!(!err.contains("vkssim::vk::validation"), "{err}");
    for (k, d) in dists.iter().enumerate() {
        let mut pair = input_args(&clip, &clip.reference, d);
        pair.extend(extra.iter().map(|s| s.to_string()));
        let vmaf = run(
            &paths::vmaf_cli(),
            &pair,
            &["-n", "-q", "--feature", feature, format.flag()],
            &dir.path().join(format!("vmaf_{k}.out")),
        );
        let path = dir.path().join(format!("vkssim_{k}.out"));
        let ours = std::fs::read_to_string(&path).expect("the ladder's output");
        let what =
            format!("ladder {name} input {k} --feature {feature} {extra:?} --backend {backend}");
        assert_eq!(
            comparable_lines(&ours),
            comparable_lines(&vmaf),
            "{what}: differs from vmaf"
        );
        eprintln!("{what}: {} lines identical", comparable_lines(&ours).len());
    }
}

#[test]
fn ladder_output_files() {
    compare_ladder(
        "s1_321x241_420p8",
        "float_ssim=enable_lcs=true",
        Format::Json,
        &["--subsample", "2"],
        "cpu",
    );
    if !gpu_present() {
        return;
    }
    compare_ladder(
        "s4_1920x1080_420p8",
        "float_ssim=enable_lcs=true",
        Format::Json,
        &[],
        "vulkan",
    );
    compare_ladder(
        "s2_704x513_422p10",
        "float_ssim=enable_db=true:clip_db=true",
        Format::Xml,
        &["--frame_cnt", "2"],
        "vulkan",
    );
}
