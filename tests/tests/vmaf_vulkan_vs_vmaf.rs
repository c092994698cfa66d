//! VMAF on the Vulkan engine (lavapipe here; the H200 in
//! `tools/round-device-exact.sh`): `vkssim score --backend vulkan` against
//! the `vmaf` CLI that libvmaf-sys builds (libvmaf 2.3.1's C path,
//! `--cpumask 255`), whole XML files compared line by line at full
//! precision: every built-in model in one run (each named), `adm` alone with
//! its options and beside the other metrics, on both upload paths and both
//! arithmetic paths (native fp64 and `--no-fp64`'s software binary64),
//! 8/10/12-bit, 4:2:0/4:2:2/4:4:4, odd sizes, a scene cut, the smallest
//! frame the models take, flat and identical pictures. Small clips: lavapipe
//! is slow.

use vkssim::io::Chroma;
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::vmaf_cli::compare_with_vmaf;

use vkssim_tests::vmaf_cli::EVERY_MODEL as MODELS;

/// Every Vulkan path: (upload, arithmetic) as `--backend` arguments.
const PATHS: [&str; 4] = [
    "vulkan --upload direct",
    "vulkan --upload staging",
    "vulkan --upload direct --no-fp64",
    "vulkan --upload staging --no-fp64",
];

#[test]
fn every_model_on_every_vulkan_path_equals_vmaf() {
    let clips = [
        MetricClip::new(67, 45, 8, Chroma::C420, 5, Content::SceneCut),
        MetricClip::new(53, 37, 10, Chroma::C422, 4, Content::SceneCut),
        MetricClip::new(41, 34, 12, Chroma::C444, 3, Content::Noisy),
        MetricClip::new(33, 33, 8, Chroma::C420, 3, Content::SceneCut),
    ];
    for (k, clip) in clips.iter().enumerate() {
        // Every path on the first clip; one path each after (lavapipe is slow).
        let paths: &[&str] = if k == 0 {
            &PATHS
        } else {
            &PATHS[k % 4..k % 4 + 1]
        };
        for path in paths {
            let lines = compare_with_vmaf(clip, &MODELS, "xml", true, path);
            eprintln!("{} on {path}: {lines} lines identical to vmaf's", clip.name);
        }
    }
}

#[test]
fn the_default_model_on_flat_and_identical_pictures_equals_vmaf() {
    for content in [Content::Flat, Content::Identical] {
        let clip = MetricClip::new(64, 48, 8, Chroma::C420, 3, content);
        compare_with_vmaf(&clip, &[], "xml", true, "vulkan");
        compare_with_vmaf(&clip, &[], "xml", true, "vulkan --no-fp64");
    }
}

#[test]
fn adm_alone_and_beside_the_other_metrics_equals_vmaf() {
    let clip = MetricClip::new(59, 41, 10, Chroma::C420, 3, Content::Noisy);
    for features in [
        &["-n", "--feature", "adm"][..],
        &["-n", "--feature", "adm=debug=true:adm_enhn_gain_limit=1.2"][..],
        &[
            "-n",
            "--feature",
            "adm=adm_norm_view_dist=4.0:adm_ref_display_height=2160",
        ][..],
    ] {
        for path in ["vulkan", "vulkan --no-fp64 --upload staging"] {
            compare_with_vmaf(&clip, features, "xml", true, path);
        }
    }
    // float_ms_ssim's five scales need 176 samples each way.
    let clip = MetricClip::new(181, 177, 8, Chroma::C420, 2, Content::Noisy);
    let beside = [
        "--feature",
        "float_ssim",
        "--feature",
        "psnr",
        "--feature",
        "float_ms_ssim",
    ];
    for path in ["vulkan", "vulkan --no-fp64 --upload staging"] {
        compare_with_vmaf(&clip, &beside, "xml", true, path);
    }
}
