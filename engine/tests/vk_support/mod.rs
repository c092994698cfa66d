//! Shared helpers of the GPU tests (`engine/tests/vk_*.rs`): the Vulkan-present
//! check, deterministic frames, and the validation-message check.

#![allow(dead_code)] // Each test file uses a different subset.

use vkssim::api::ScoreQueue;
use vkssim::testing::VkScorer;
use vkssim::vk::{UploadPath, VkOptions};
use vkssim::{FrameScore, LumaFrame};

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

/// (upload path, no_fp64) of every configuration the metric tests check.
pub const PATHS: [(UploadPath, bool); 4] = [
    (UploadPath::Direct, false),
    (UploadPath::Staging, false),
    (UploadPath::Direct, true),
    (UploadPath::Staging, true),
];

/// A metric list from `--feature`-style specs (panics on a bad one).
pub fn metric_list(specs: &[&str]) -> Vec<vkssim::metric::MetricConfig> {
    vkssim::metric::config::parse_list(specs).unwrap()
}

/// A scorer of `list` for luma-only pictures of `size` on `path`, validation
/// on, checked to run on the path asked for.
pub fn metric_scorer(
    size: (u32, u32, u32),
    list: &[vkssim::metric::MetricConfig],
    path: (UploadPath, bool),
    in_flight: usize,
) -> VkScorer {
    metric_scorer_with(size, list, path, in_flight, false)
}

/// [`metric_scorer`], with the subgroup reductions turned off when
/// `no_subgroups` (`VkOptions::with_no_subgroups`: the shared-memory
/// reductions, what devices without subgroup arithmetic run).
pub fn metric_scorer_with(
    size: (u32, u32, u32),
    list: &[vkssim::metric::MetricConfig],
    (upload, no_fp64): (UploadPath, bool),
    in_flight: usize,
    no_subgroups: bool,
) -> VkScorer {
    let opts = vk_opts(upload, no_fp64, in_flight).with_no_subgroups(no_subgroups);
    let s = VkScorer::with_metrics(size, vkssim::io::Chroma::C420, list, &opts)
        .unwrap_or_else(|e| panic!("creating the scorer: {e}"));
    let soft = s.arithmetic() == vkssim::vk::ArithVariant::SoftF64;
    assert_eq!(soft, no_fp64, "arithmetic path");
    assert_eq!(s.upload_path(), upload);
    if no_subgroups {
        assert!(!s.subgroup_reduction(), "subgroup reductions turned off");
    }
    s
}

/// The same names in the same order, each value's fp64 bits equal.
pub fn assert_same_outputs(
    label: &str,
    gpu: &vkssim::metric::MetricOutputs,
    cpu: &vkssim::metric::MetricOutputs,
) {
    let g: Vec<(&str, u64)> = gpu.iter().map(|(n, v)| (n, v.to_bits())).collect();
    let c: Vec<(&str, u64)> = cpu.iter().map(|(n, v)| (n, v.to_bits())).collect();
    assert_eq!(g, c, "{label}: GPU {gpu:?}\nCPU {cpu:?}");
}

/// `result` is the device's range error of a shared reference plane: frame
/// `frame`'s reference sample `value` at `(x, y)`, found on the device
/// (`what` names the scorer in messages).
pub fn assert_device_reference_range(
    result: vkssim::Result<FrameScore>,
    (frame, x, y, value): (u64, u32, u32, u32),
    what: &str,
) {
    use vkssim::{Error, PlaneRole, SampleAt};
    match result {
        Err(Error::SampleRange {
            plane,
            at,
            frame: got_frame,
            x: got_x,
            y: got_y,
            value: got_value,
            ..
        }) => {
            assert_eq!(
                (plane, at),
                (Some(PlaneRole::Reference), SampleAt::Device),
                "{what}"
            );
            assert_eq!(
                (got_frame, got_x, got_y, got_value),
                (frame, x, y, value),
                "{what}"
            );
        }
        other => panic!("{what}: expected the range error, got {other:?}"),
    }
}

/// A scorer of metric `spec` alone for `size` (10 or 12-bit) refuses a luma
/// sample `value`, above the bit depth, at `(x, y)` of either picture of its
/// second frame, naming the frame, the position and the value.
pub fn assert_refuses_a_sample_above(
    spec: &str,
    size: (u32, u32, u32),
    at: (u32, u32),
    value: u16,
) {
    assert_list_refuses_a_sample_above(spec, &metric_list(&[spec]), size, at, value);
}

/// [`assert_refuses_a_sample_above`] for the metrics of `list`, named
/// `spec` in messages.
pub fn assert_list_refuses_a_sample_above(
    spec: &str,
    list: &[vkssim::metric::MetricConfig],
    (w, h, depth): (u32, u32, u32),
    (x, y): (u32, u32),
    value: u16,
) {
    for picture in 0..2 {
        let mut s = metric_scorer((w, h, depth), list, (UploadPath::Direct, false), 2);
        let good = frame(w, h, depth, 5);
        let mut bad = good.clone();
        let at = 2 * (y * w + x) as usize;
        bad.bytes[at..at + 2].copy_from_slice(&value.to_le_bytes());
        s.score_picture(&[good.view()], &[good.view()]).unwrap();
        let pair = [(&bad, &good), (&good, &bad)][picture];
        match s.score_picture(&[pair.0.view()], &[pair.1.view()]) {
            Err(e @ vkssim::Error::SampleRange { .. }) => {
                let text = e.to_string();
                assert!(text.contains("frame 1"), "{spec}: {text}");
                let vkssim::Error::SampleRange {
                    x: ex,
                    y: ey,
                    value: ev,
                    ..
                } = e
                else {
                    unreachable!()
                };
                assert_eq!((ex, ey, ev), (x, y, value as u32), "{spec}: {text}");
            }
            other => panic!("{spec}, picture {picture}: {other:?}"),
        }
        assert_no_validation_messages(&s);
    }
}

/// motion's frame sizes (width, height, bit depth), for both of libvmaf's
/// motions (`vk_motion.rs`, `vk_motion_v32.rs`): odd sizes, every depth (16
/// bits takes 3.2.0's int64 vertical sums), the smallest frame, rows of
/// several 512-column chunks, odd and even, and a frame of several of
/// 2.3.1's 512-column, 4-row tiles each way.
pub const MOTION_CASES: [(u32, u32, u32); 9] = [
    (33, 17, 8),
    (31, 23, 10),
    (29, 19, 12),
    (27, 25, 16),
    (300, 5, 8),
    (521, 3, 12),
    (1100, 3, 8),
    (3, 3, 10),
    (1031, 11, 10),
];

/// The reference frames of a motion clip: frame 2 repeats frame 1 (motion
/// 0), every other frame differs from the one before.
pub fn motion_clip(w: u32, h: u32, depth: u32, frames: u32) -> Vec<LumaFrame> {
    (0..frames)
        .map(|n| frame(w, h, depth, if n == 2 { 1 } else { n }))
        .collect()
}

/// A shared plane of `planes` holding `f`.
pub fn share(planes: &vkssim::api::SharedPlanes, f: &LumaFrame) -> vkssim::api::SharedPlane {
    let mut w = planes.take().expect("take a plane");
    w.bytes_mut().copy_from_slice(&f.bytes);
    w.share()
}

/// Submits to `scorer` one pair through a frame slot: its reference
/// `shared` (when given) or `reference` copied into the slot.
pub fn submit_in_slot(
    scorer: &mut vkssim::api::Scorer,
    shared: Option<&vkssim::api::SharedPlane>,
    reference: &LumaFrame,
    d: &LumaFrame,
) {
    use vkssim::api::ScoreQueue;
    let mut slots = scorer.slots();
    let mut slot = slots.acquire().expect("acquire");
    match shared {
        Some(plane) => {
            slot.share_reference(plane).expect("share");
            slot.distorted_mut().copy_from_slice(&d.bytes);
        }
        None => {
            let (a, b) = slot.planes_mut();
            a.copy_from_slice(&reference.bytes);
            b.copy_from_slice(&d.bytes);
        }
    }
    slots.submit(slot).expect("submit");
}

/// An engine on the first device with validation on, uploading by `upload`.
pub fn validated_engine(upload: UploadPath) -> vkssim::api::Engine {
    vkssim::api::Engine::new(
        &VkOptions::default()
            .with_validation(true)
            .with_upload(upload),
    )
    .expect("engine")
}

/// Every output of `s` by name, with its fp64 bits.
pub fn output_bits(s: &vkssim::FrameScore) -> Vec<(String, u64)> {
    s.iter()
        .map(|(n, v)| (n.to_string(), v.to_bits()))
        .collect()
}

/// Fails when `engine`'s validation layer said anything (`what` names the
/// case).
pub fn assert_no_engine_messages(engine: &vkssim::api::Engine, what: &str) {
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "{what}: {}", messages.join("\n"));
}

/// Each frame's result, in frame order, every pair given to `queue` by
/// `submit` (results taken as they come), the stream finished: a pair
/// refused on submission has that error as its result, the others what the
/// queue gave back (an error is one frame's result, not the run's).
pub fn collect_results<Q: ScoreQueue>(
    queue: &mut Q,
    pairs: &[(LumaFrame, LumaFrame)],
    mut submit: impl FnMut(&mut Q, &LumaFrame, &LumaFrame) -> Result<(), vkssim::Error>,
) -> Vec<Result<FrameScore, vkssim::Error>> {
    let mut refused = Vec::new();
    let mut scored = Vec::new();
    for (k, (r, d)) in pairs.iter().enumerate() {
        if let Err(e) = submit(queue, r, d) {
            refused.push((k, e));
        }
        while let Some(s) = queue.poll() {
            scored.push(s);
        }
    }
    queue.finish();
    while let Some(s) = queue.wait() {
        scored.push(s);
    }
    let mut scored = scored.into_iter();
    let got = (0..pairs.len())
        .map(|k| match refused.iter().position(|(at, _)| *at == k) {
            Some(i) => Err(refused[i].1.clone()),
            None => scored.next().expect("a result per frame"),
        })
        .collect();
    assert!(scored.next().is_none(), "more results than pairs");
    got
}

/// `count` engines with validation on, spread over the usable devices.
pub fn engines(count: usize) -> Vec<vkssim::api::Engine> {
    let devices = vkssim::api::usable_devices(true).expect("devices");
    (0..count)
        .map(|i| {
            let opts = VkOptions::default()
                .with_device_index(Some(devices[i % devices.len()]))
                .with_validation(true);
            vkssim::api::Engine::new(&opts).expect("engine")
        })
        .collect()
}

/// The reference frames of a clip of `n`: smooth content moving from frame
/// to frame, frame 3 repeating frame 2 (motion 0), and a scene cut at
/// frame 7 (other content); the distorted frames are others.
pub fn clip(w: u32, h: u32, depth: u32, n: u32) -> Vec<(LumaFrame, LumaFrame)> {
    (0..n)
        .map(|k| {
            let seed = match k {
                3 => 2,
                k if k >= 7 => 500 + k,
                k => k,
            };
            (frame(w, h, depth, seed), frame(w, h, depth, 900 + k))
        })
        .collect()
}
