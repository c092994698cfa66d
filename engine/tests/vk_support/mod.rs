//! Shared helpers of the GPU tests (`engine/tests/vk_*.rs`): the Vulkan-present
//! check, deterministic frames, and the validation-message check.

#![allow(dead_code)] // Each test file uses a different subset.

use vkssim::testing::VkScorer;
use vkssim::vk::{UploadPath, VkOptions};
use vkssim::LumaFrame;

/// True when a Vulkan device is present. Without one the test FAILS with a
/// clear message, unless `VKSSIM_SKIP_GPU_TESTS=1` (then it is skipped).
pub fn gpu_present() -> bool {
    let skip = std::env::var("VKSSIM_SKIP_GPU_TESTS").is_ok_and(|v| v == "1");
    match vkssim::vk::list_devices(true) {
        Ok(d) if !d.is_empty() => true,
        other => {
            let why = match other {
                Ok(_) => "the Vulkan loader lists no device".to_string(),
                Err(e) => e.to_string(),
            };
            if skip {
                eprintln!("skipping GPU test (VKSSIM_SKIP_GPU_TESTS=1): {why}");
                false
            } else {
                panic!(
                    "no Vulkan device for the GPU tests: {why}. Install mesa-vulkan-drivers \
                     (lavapipe) and vulkan-validationlayers, or set VKSSIM_SKIP_GPU_TESTS=1 \
                     to skip them"
                );
            }
        }
    }
}

/// Engine options for tests: validation always on.
pub fn vk_opts(upload: UploadPath, no_fp64: bool, frames_in_flight: usize) -> VkOptions {
    VkOptions::default()
        .with_device_index(None)
        .with_upload(upload)
        .with_no_fp64(no_fp64)
        .with_frames_in_flight(frames_in_flight)
        .with_validation(true)
}

/// A scorer for `width x height` `bit_depth`-bit frames under `opts`, two
/// frames in flight, validation on (panics if it cannot be made).
pub fn scorer_for(
    (width, height, bit_depth): (u32, u32, u32),
    opts: &vkssim::SsimOptions,
    upload: UploadPath,
    no_fp64: bool,
) -> VkScorer {
    VkScorer::new(width, height, bit_depth, opts, &vk_opts(upload, no_fp64, 2))
        .unwrap_or_else(|e| panic!("creating the scorer: {e}"))
}

/// Fails the test if the validation layer said anything.
pub fn assert_no_validation_messages(scorer: &VkScorer) {
    let messages = scorer.validation_messages();
    assert!(
        messages.is_empty(),
        "{} validation message(s):\n{}",
        messages.len(),
        messages.join("\n")
    );
}

/// A deterministic pseudo-random plane: smooth content plus noise, so that
/// SSIM terms are far from trivial; `seed` varies it.
pub fn frame(width: u32, height: u32, bit_depth: u32, seed: u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(width, height, bit_depth);
    let max = (1u32 << bit_depth) - 1;
    let bps = if bit_depth == 8 { 1 } else { 2 };
    let mut st = seed.wrapping_mul(2_654_435_761) | 1;
    for y in 0..height {
        for x in 0..width {
            st ^= st << 13;
            st ^= st >> 17;
            st ^= st << 5;
            let smooth = ((x * 7 + y * 3 + seed * 11) % 256) as f64 / 255.0;
            let noise = (st % 64) as f64 / 255.0;
            let v = (((smooth * 0.8 + noise) / 1.05) * max as f64) as u32;
            let v = v.min(max);
            let i = (y * width + x) as usize * bps;
            f.bytes[i] = v as u8;
            if bps == 2 {
                f.bytes[i + 1] = (v >> 8) as u8;
            }
        }
    }
    f
}

/// The index of the first difference between two slices of bits, if any.
pub fn first_difference<T: PartialEq + Copy>(a: &[T], b: &[T]) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    a.iter().zip(b).position(|(x, y)| x != y)
}
