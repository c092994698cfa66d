//! VMAF's corpus: every built-in model, in one run, on clips made for VMAF
//! (motion and a scene cut, 8/10/12-bit, 4:2:0/4:2:2/4:4:4, the odd sizes
//! 853x480 and 1001x701, 1080p and 4K, the smallest frame the models take,
//! flat and identical inputs), `vkssim score --backend cpu` against the
//! `vmaf` CLI that libvmaf-sys builds (libvmaf 2.3.1, reference C path:
//! `--cpumask 255`), whole XML files compared line by line at full precision
//! (vmaf under the `%.17g` shim, vkssim with `--precision max`): every
//! frame's features and model scores, the pooled values and the aggregates.

use vkssim::io::Chroma;
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::vmaf_cli::compare_with_vmaf;

use vkssim_tests::vmaf_cli::EVERY_MODEL as MODELS;

/// Compares the four models' file on `clip` and reports the frames compared.
fn every_model(clip: &MetricClip) {
    let lines = compare_with_vmaf(clip, &MODELS, "xml", true, "cpu");
    eprintln!(
        "{}: {} frames identical to vmaf's C path for each model and extractor ({lines} lines)",
        clip.name, clip.frames
    );
}

#[test]
fn odd_sizes_with_motion_and_a_scene_cut() {
    every_model(&MetricClip::new(
        853,
        480,
        8,
        Chroma::C420,
        6,
        Content::SceneCut,
    ));
    every_model(&MetricClip::new(
        1001,
        701,
        10,
        Chroma::C422,
        4,
        Content::SceneCut,
    ));
}

#[test]
fn twelve_bit_four_four_four_with_a_scene_cut() {
    every_model(&MetricClip::new(
        640,
        361,
        12,
        Chroma::C444,
        4,
        Content::SceneCut,
    ));
}

#[test]
fn full_hd_and_4k() {
    every_model(&MetricClip::new(
        1920,
        1080,
        8,
        Chroma::C420,
        3,
        Content::SceneCut,
    ));
    every_model(&MetricClip::new(
        3840,
        2160,
        10,
        Chroma::C420,
        2,
        Content::Noisy,
    ));
}

#[test]
fn the_smallest_frame_the_models_take() {
    // adm's 33x33 is the largest of the three extractors' smallest sizes.
    every_model(&MetricClip::new(
        33,
        33,
        8,
        Chroma::C420,
        3,
        Content::SceneCut,
    ));
    every_model(&MetricClip::new(
        33,
        40,
        10,
        Chroma::C444,
        2,
        Content::Noisy,
    ));
}

#[test]
fn flat_and_identical_inputs() {
    every_model(&MetricClip::new(64, 48, 8, Chroma::C420, 3, Content::Flat));
    every_model(&MetricClip::new(96, 54, 10, Chroma::C422, 3, Content::Flat));
    every_model(&MetricClip::new(
        853,
        480,
        8,
        Chroma::C420,
        3,
        Content::Identical,
    ));
}
