//! `psnr` on luma-only input and `psnr=min_sse=...` as the `vmaf` command
//! line takes it (issue 29, items 7 and 9), end to end: `vkssim score` on the
//! CPU twin and on Vulkan (lavapipe in CI) against the `vmaf` CLI that
//! libvmaf-sys builds (libvmaf 2.3.1), whole output files compared (every
//! line but the version and the fps figure).
//!
//! libvmaf scores a 4:0:0 picture's psnr on luma alone (its psnr turns
//! `enable_chroma` off for such pictures). The vmaf CLI reads luma-only
//! input only as an 8-bit Y4M `Cmono`, whose reader converts it to 4:2:0
//! with flat chroma before scoring; so the oracle for raw `-p mono` and a
//! gray encoded input is vmaf on the same luma as Y4M with
//! `enable_chroma=false`, and for the Y4M itself vmaf on that Y4M.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vkssim::io::Chroma;
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::paths;
use vkssim_tests::vmaf_cli::{comparable_lines, run_writing, run_writing_ok};

/// [`run_writing`] with no variable set.
fn run(program: &Path, args: &[String], out: &Path) -> (Output, Option<String>) {
    run_writing(program, args, &[], out)
}

/// [`run_writing_ok`] with no variable set.
fn run_ok(program: &Path, args: &[String], out: &Path) -> String {
    run_writing_ok(program, args, &[], out)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// `input` then `--feature feature -q -n --json`.
fn with_feature(input: &[String], feature: &str) -> Vec<String> {
    let mut args = input.to_vec();
    args.extend(strings(&["--feature", feature, "-q", "-n", "--json"]));
    args
}

/// Asserts that the two output files are equal line for line.
fn assert_same_file(what: &str, ours: &str, vmaf: &str) {
    let (a, b) = (comparable_lines(ours), comparable_lines(vmaf));
    assert!(b.len() > 5, "{what}: nothing compared:\n{vmaf}");
    assert_eq!(
        a, b,
        "{what}: differs from vmaf\nvkssim:\n{ours}\nvmaf:\n{vmaf}"
    );
    eprintln!("{what}: {} lines identical", a.len());
}

/// The Y4M (`C{tag}`) in `dir` of `raw`, a file of `clip`.
fn y4m_of(clip: &MetricClip, raw: &Path, tag: &str, dir: &Path) -> PathBuf {
    let bytes = std::fs::read(raw).unwrap_or_else(|e| panic!("{}: {e}", raw.display()));
    let (w, h) = (clip.width, clip.height);
    let mut out = format!("YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C{tag}\n").into_bytes();
    for frame in bytes.chunks_exact(bytes.len() / clip.frames) {
        out.extend_from_slice(b"FRAME\n");
        out.extend_from_slice(frame);
    }
    let path = dir.join(raw.file_name().unwrap()).with_extension("y4m");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

/// A generated 8-bit luma-only pair as raw files, and the same frames as
/// Y4M `Cmono` files in `dir`.
struct MonoPair {
    clip: MetricClip,
    y4m: [PathBuf; 2],
}

impl MonoPair {
    fn new(dir: &Path, width: u32, height: u32, frames: usize) -> Self {
        let clip = MetricClip::new(width, height, 8, Chroma::Mono, frames, Content::Noisy);
        let y4m = [&clip.reference, &clip.distorted].map(|raw| y4m_of(&clip, raw, "mono", dir));
        Self { clip, y4m }
    }

    /// `-r REF.y4m -d DIST.y4m`.
    fn y4m_args(&self) -> Vec<String> {
        let [r, d] = &self.y4m;
        strings(&[
            "-r",
            &r.display().to_string(),
            "-d",
            &d.display().to_string(),
        ])
    }
}

/// Raw `-p mono` with psnr (its default options, explicit chroma, and the
/// other options): libvmaf's 4:0:0 scores, psnr_y (and mse_y, apsnr_y)
/// alone, on the CPU twin and on Vulkan.
#[test]
fn raw_mono_psnr_is_scored_on_luma_as_libvmaf_scores_4_0_0() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pair = MonoPair::new(dir.path(), 67, 45, 3);
    let raw = pair.clip.vmaf_args();
    assert!(raw.contains(&"mono".to_string()), "{raw:?}");
    for (ours, vmaf_feature) in [
        ("psnr", "psnr=enable_chroma=false"),
        ("psnr=enable_chroma=true", "psnr=enable_chroma=false"),
        (
            "psnr=enable_mse=true:enable_apsnr=true:min_sse=0.5",
            "psnr=enable_chroma=false:enable_mse=true:enable_apsnr=true:min_sse=0.5",
        ),
    ] {
        let vmaf = run_ok(
            &paths::vmaf_cli(),
            &with_feature(&pair.y4m_args(), vmaf_feature),
            &dir.path().join("vmaf.json"),
        );
        for backend in ["cpu", "vulkan"] {
            let mut args = strings(&["score"]);
            args.extend(with_feature(&raw, ours));
            args.extend(strings(&["--backend", backend]));
            let text = run_ok(paths::vkssim_bin(), &args, &dir.path().join("ours.json"));
            assert!(!text.contains("\"psnr_cb\""), "{text}");
            assert_same_file(&format!("raw mono {ours} on {backend}"), &text, &vmaf);
        }
    }
}

/// An 8-bit Y4M `Cmono` pair with psnr: vmaf's own output, whose Y4M reader
/// makes 4:2:0 pictures of flat chroma (psnr_cb and psnr_cr at their
/// ceiling), on the CPU twin and on Vulkan; and a mono reference against a
/// 4:2:0 distorted Y4M, whose chroma vmaf compares with that flat chroma.
#[test]
fn y4m_mono_psnr_equals_vmafs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pair = MonoPair::new(dir.path(), 67, 45, 3);
    let c420 = MetricClip::new(67, 45, 8, Chroma::C420, 3, Content::Noisy);
    let dist420 = y4m_of(&c420, &c420.distorted, "420jpeg", dir.path());
    let mut mixed = pair.y4m_args();
    mixed[3] = dist420.display().to_string();
    let all = "psnr=enable_mse=true:enable_apsnr=true:min_sse=0.5";
    for (inputs, feature) in [
        (pair.y4m_args(), "psnr"),
        (pair.y4m_args(), all),
        (mixed, "psnr=enable_mse=true"),
    ] {
        let args = with_feature(&inputs, feature);
        let vmaf = run_ok(&paths::vmaf_cli(), &args, &dir.path().join("vmaf.json"));
        assert!(vmaf.contains("\"psnr_cb\""), "{vmaf}");
        for backend in ["cpu", "vulkan"] {
            let mut ours = strings(&["score"]);
            ours.extend(args.iter().cloned());
            ours.extend(strings(&["--backend", backend]));
            let text = run_ok(paths::vkssim_bin(), &ours, &dir.path().join("ours.json"));
            let what = format!("Y4M mono against {} {feature} on {backend}", inputs[3]);
            assert_same_file(&what, &text, &vmaf);
        }
    }
}

/// A gray (luma-only) encoded input with psnr: the scores of its luma, as
/// libvmaf scores 4:0:0 (lossless FFV1, so the decoded frames are the
/// Y4M's).
#[test]
fn gray_encoded_psnr_is_scored_on_luma() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pair = MonoPair::new(dir.path(), 64, 48, 3);
    let encoded = pair.y4m.clone().map(|y4m| {
        let out = y4m.with_extension("mkv");
        let o = Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-i"])
            .arg(&y4m)
            .args(["-c:v", "ffv1", "-pix_fmt", "gray"])
            .arg(&out)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("running ffmpeg");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    });
    let vmaf = run_ok(
        &paths::vmaf_cli(),
        &with_feature(&pair.y4m_args(), "psnr=enable_chroma=false:enable_mse=true"),
        &dir.path().join("vmaf.json"),
    );
    let [r, d] = encoded.map(|p| p.display().to_string());
    let mut args = strings(&["score", "-r", &r, "-d", &d, "--backend", "cpu"]);
    args = with_feature(&args, "psnr=enable_mse=true");
    let ours = run_ok(paths::vkssim_bin(), &args, &dir.path().join("ours.json"));
    assert_same_file("gray FFV1 psnr", &ours, &vmaf);
}

/// `psnr=min_sse=V`: vkssim takes the values vmaf takes and refuses the
/// ones it refuses (`-0`, negatives, values a float cannot hold), and
/// scores the accepted ones as vmaf does, whose option reaches the metric
/// as a float written with 6 significant digits (`1997.5679` is 1997.57:
/// identical frames then reach psnr_y's ceiling of 50, not 51). NaN, which
/// vmaf takes and then writes `nan` for every psnr, is refused on purpose.
#[test]
fn min_sse_is_accepted_and_scored_as_vmaf_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clip = MetricClip::new(64, 48, 8, Chroma::C420, 2, Content::Identical);
    for value in [
        "0",
        "+0",
        "-0",
        "-1e-50",
        "1e-50",
        "-1",
        "0.5",
        "1997.5679",
        "1e21",
        "3.4e38",
        "3.402824e38",
        "1e39",
    ] {
        let feature = format!("psnr=min_sse={value}:enable_mse=true");
        let vmaf_args = with_feature(&clip.vmaf_args(), &feature);
        let (vo, vmaf) = run(&paths::vmaf_cli(), &vmaf_args, &dir.path().join("v.json"));
        let mut args = strings(&["score"]);
        args.extend(with_feature(&clip.vmaf_args(), &feature));
        args.extend(strings(&["--backend", "cpu"]));
        let (o, ours) = run(paths::vkssim_bin(), &args, &dir.path().join("o.json"));
        let err = String::from_utf8_lossy(&o.stderr);
        match (&ours, &vmaf) {
            (Some(ours), Some(vmaf)) => assert_same_file(&feature, ours, vmaf),
            (None, None) => {
                assert!(
                    err.contains("min_sse") && err.contains(value),
                    "{feature}: {err}"
                );
                eprintln!("{feature}: refused by both ({})", err.trim());
            }
            _ => panic!(
                "{feature}: vmaf {} but vkssim {}: {err}",
                vo.status, o.status
            ),
        }
    }
}
