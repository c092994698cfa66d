//! The Vulkan engine against libvmaf, bit for bit, on every frame of the ffmpeg
//! corpus: on both upload paths (direct and staging) and both arithmetic paths
//! (native fp64 and the software fp64 forced by `no_fp64`) under the option set
//! that exercises every output (`enable_lcs:enable_db:clip_db`), and under every
//! option set on the engine's automatic choice; and at explicit scales against
//! libvmaf's stages run at that scale. Validation is on; any message fails the
//! test.
//!
//! Without a Vulkan device the tests fail with a clear message, unless
//! `VKSSIM_SKIP_GPU_TESTS=1` (then they pass without checking anything, and say
//! so on stderr).

use vkssim::testing::FrameScorer;
use vkssim::testing::VkScorer;
use vkssim::vk::{list_devices, UploadPath, VkOptions};
use vkssim::{LumaFrame, SsimOptions};
use vkssim_tests::corpus::{self, Clip};
use vkssim_tests::libvmaf_at_scale;
use vkssim_tests::parity::{assert_same, check_scorer, libvmaf_frames, option_sets};

/// True when a Vulkan device is present; see the module documentation.
fn gpu_present() -> bool {
    let skip = std::env::var("VKSSIM_SKIP_GPU_TESTS").is_ok_and(|v| v == "1");
    match list_devices(true) {
        Ok(d) if !d.is_empty() => true,
        other => {
            let why = match other {
                Ok(_) => "the Vulkan loader lists no device".to_string(),
                Err(e) => e.to_string(),
            };
            assert!(
                skip,
                "no Vulkan device for the GPU parity tests: {why}. Install mesa-vulkan-drivers \
                 (lavapipe) and vulkan-validationlayers, or set VKSSIM_SKIP_GPU_TESTS=1"
            );
            eprintln!("skipping GPU parity test (VKSSIM_SKIP_GPU_TESTS=1): {why}");
            false
        }
    }
}

/// Scores `pairs` of `clip` on the GPU with `vk` and checks them against
/// libvmaf's frames `want`.
fn check_config(
    clip: &Clip,
    opt_name: &str,
    opts: &SsimOptions,
    pairs: &[(LumaFrame, LumaFrame)],
    want: &[vkssim_tests::LibvmafFrame],
    vk: &VkOptions,
) {
    let label = format!(
        "vulkan {:?} no_fp64={}",
        vk.engine.upload, vk.engine.no_fp64
    );
    let mut scorer = VkScorer::new(clip.width, clip.height, clip.bit_depth, opts, vk)
        .unwrap_or_else(|e| panic!("{} [{opt_name}] {label}: {e}", clip.name));
    check_scorer(&label, clip, opt_name, opts, pairs, want, &mut scorer);
    let messages = scorer.validation_messages();
    assert!(
        messages.is_empty(),
        "{} [{opt_name}] {label}: {} validation message(s):\n{}",
        clip.name,
        messages.len(),
        messages.join("\n")
    );
    eprintln!(
        "{} [{opt_name}] {label} ({}, {:?}): {} frames identical to libvmaf \
         ({} summed on the host)",
        clip.name,
        scorer.device_name(),
        scorer.arithmetic(),
        pairs.len(),
        scorer.stats().host_sum_fallbacks
    );
}

fn check_clip(name: &str) {
    if !gpu_present() {
        return;
    }
    let clip = corpus::clip(name);
    let pairs = clip.read_pairs();
    let sets = option_sets();
    let vk = |upload, no_fp64| {
        VkOptions::default()
            .with_device_index(None)
            .with_upload(upload)
            .with_no_fp64(no_fp64)
            .with_frames_in_flight(2)
            .with_validation(true)
    };
    for (k, (opt_name, opts)) in sets.iter().enumerate() {
        let want = libvmaf_frames(&pairs, opts);
        if k + 1 < sets.len() {
            check_config(
                &clip,
                opt_name,
                opts,
                &pairs,
                &want,
                &vk(UploadPath::Auto, false),
            );
        } else {
            for upload in [UploadPath::Direct, UploadPath::Staging] {
                for no_fp64 in [false, true] {
                    check_config(&clip, opt_name, opts, &pairs, &want, &vk(upload, no_fp64));
                }
            }
        }
    }
}

vkssim_tests::corpus_clip_tests!(check_clip);

#[test]
fn every_corpus_clip_has_a_gpu_parity_test() {
    for c in corpus::clips() {
        assert!(
            CLIPS_WITH_TESTS.contains(&c.name.as_str()),
            "{} has no GPU parity test",
            c.name
        );
    }
}

/// The GPU at explicit `scale=N` against libvmaf's stages run at N (libvmaf
/// 2.3.1's public API has no scale option), on the first frame of a clip, on the
/// native and the software fp64 paths.
fn check_explicit_scales(name: &str, scales: &[u32]) {
    if !gpu_present() {
        return;
    }
    let clip = corpus::clip(name);
    let (r, d) = clip.read_pairs().swap_remove(0);
    for &scale in scales {
        let want = libvmaf_at_scale(&r.view(), &d.view(), scale)
            .unwrap_or_else(|| panic!("{name} scale={scale}: decimates below 11x11"));
        let opts = SsimOptions {
            scale,
            enable_lcs: true,
            ..SsimOptions::default()
        };
        for no_fp64 in [false, true] {
            let vk = VkOptions::default()
                .with_device_index(None)
                .with_upload(UploadPath::Auto)
                .with_no_fp64(no_fp64)
                .with_frames_in_flight(1)
                .with_validation(true);
            let what = format!("{name} frame 0 scale={scale} no_fp64={no_fp64}");
            let mut scorer = VkScorer::new(clip.width, clip.height, clip.bit_depth, &opts, &vk)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            scorer
                .submit(r.clone(), d.clone())
                .unwrap_or_else(|e| panic!("{what}: submit: {e}"));
            let v = scorer
                .wait_next()
                .unwrap_or_else(|| panic!("{what}: no result"))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_same(&format!("{what} ssim"), v.ssim(), want.ssim);
            assert_same(&format!("{what} l"), v.l().unwrap(), want.l);
            assert_same(&format!("{what} c"), v.c().unwrap(), want.c);
            assert_same(&format!("{what} s"), v.s().unwrap(), want.s);
            let messages = scorer.validation_messages();
            assert!(messages.is_empty(), "{what}: {}", messages.join("\n"));
        }
        eprintln!("{name} scale={scale}: GPU identical to libvmaf's stages");
    }
}

#[test]
fn explicit_scales_on_gpu() {
    check_explicit_scales("s4_1920x1080_420p8", &[1, 3, 5]);
    check_explicit_scales("s2_704x513_422p10", &[7]);
    check_explicit_scales("s8_2100x2048_420p12", &[13]);
    check_explicit_scales("s11_2800x2761_420p8", &[128]);
}
