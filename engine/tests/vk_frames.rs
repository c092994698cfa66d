//! The GPU scorer frame by frame through the `FrameScorer` interface, against
//! the CPU twin (itself bit-identical to libvmaf, see tests/), with several
//! frames in flight, on both upload paths and both arithmetic paths, with
//! every option; and the engine's refusals. Validation is on; any message fails.

mod vk_support;

use vk_support::*;
use vkssim::testing::FrameScorer;
use vkssim::testing::VkScorer;
use vkssim::vk::UploadPath;
use vkssim::{testing::cpu, Error, LumaFrame, SsimOptions};

/// Scores `n` frame pairs on the GPU and the CPU and compares every result,
/// once with the device's fixed-point sums deciding where they can and once
/// with every frame summed on the host.
fn run(
    (width, height, bit_depth): (u32, u32, u32),
    opts: SsimOptions,
    upload: UploadPath,
    no_fp64: bool,
    in_flight: usize,
    n: u32,
) {
    let mut scorer = VkScorer::new(
        width,
        height,
        bit_depth,
        &opts,
        &vk_opts(upload, no_fp64, in_flight),
    )
    .unwrap_or_else(|e| panic!("creating the scorer: {e}"));
    assert_eq!(scorer.queue_depth(), in_flight);
    let pairs = pairs((width, height, bit_depth), n);
    for force_host in [false, true] {
        scorer.set_force_host_sum(force_host);
        scorer.reset_stats();
        score_and_compare(&mut scorer, &pairs, &opts, in_flight, force_host);
        let fallbacks = scorer.stats().host_sum_fallbacks;
        if force_host {
            assert_eq!(fallbacks, n as u64, "every frame summed on the host");
        } else {
            // The device's partial sums decide ordinary frames (a fallback is
            // rare: a mean within the error bound of an fp32 boundary).
            assert!(fallbacks < n as u64, "{fallbacks} of {n} frames fell back");
        }
    }
    assert_no_validation_messages(&scorer);
}

/// `n` deterministic pairs: pair 0 identical (ssim exactly 1), the others
/// distorted.
fn pairs((width, height, bit_depth): (u32, u32, u32), n: u32) -> Vec<(LumaFrame, LumaFrame)> {
    (0..n)
        .map(|i| {
            let r = frame(width, height, bit_depth, 10 + i);
            // Frame 0: identical inputs (exactly 1); the others distorted.
            let d = if i == 0 {
                r.clone()
            } else {
                frame(width, height, bit_depth, 100 + i)
            };
            (r, d)
        })
        .collect()
}

/// Submits `pairs`, collects the results in order and checks each against the
/// CPU twin.
fn score_and_compare(
    scorer: &mut VkScorer,
    pairs: &[(LumaFrame, LumaFrame)],
    opts: &SsimOptions,
    in_flight: usize,
    force_host: bool,
) {
    let (width, height, bit_depth) = (pairs[0].0.width, pairs[0].0.height, scorer.bit_depth());
    let upload = scorer.upload_path();
    let mut got = Vec::new();
    for (r, d) in pairs {
        scorer.submit(r.clone(), d.clone()).expect("submit");
        assert!(scorer.in_flight() <= in_flight + got.len() + 1);
        while let Some(result) = scorer.poll_next() {
            got.push(result.expect("frame result"));
        }
    }
    while let Some(result) = scorer.wait_next() {
        got.push(result.expect("frame result"));
    }
    assert_eq!(got.len(), pairs.len());
    assert_eq!(scorer.in_flight(), 0);
    for (i, ((r, d), g)) in pairs.iter().zip(&got).enumerate() {
        let want = cpu::score_frame(&r.view(), &d.view(), opts).unwrap();
        let label = format!(
            "{width}x{height} {bit_depth}-bit {opts:?} {upload:?} {} host sum {force_host} frame {i}",
            scorer.arithmetic().name()
        );
        assert_eq!(g.ssim().to_bits(), want.ssim().to_bits(), "{label}: ssim");
        assert_eq!(
            g.db().map(f64::to_bits),
            want.db().map(f64::to_bits),
            "{label}: dB"
        );
        if opts.enable_lcs {
            assert_eq!(
                g.lcs().map(|v| v.map(f64::to_bits)),
                want.lcs().map(|v| v.map(f64::to_bits)),
                "{label}: l, c, s"
            );
        }
        if i == 0 {
            assert_eq!(g.ssim(), 1.0, "{label}: identical frames");
        }
    }
}

fn option_sets() -> Vec<SsimOptions> {
    vec![
        SsimOptions::default(),
        SsimOptions {
            enable_lcs: true,
            ..Default::default()
        },
        SsimOptions {
            enable_db: true,
            ..Default::default()
        },
        SsimOptions {
            scale: 1,
            enable_db: true,
            clip_db: true,
            enable_lcs: true,
        },
        SsimOptions {
            scale: 3,
            ..Default::default()
        },
    ]
}

fn all_options_on(upload: UploadPath, no_fp64: bool) {
    for opts in option_sets() {
        run((320, 180, 8), opts, upload, no_fp64, 3, 5);
    }
    run(
        (517, 301, 10),
        SsimOptions {
            enable_lcs: true,
            ..Default::default()
        },
        upload,
        no_fp64,
        2,
        4,
    );
}

#[test]
fn frames_match_the_cpu_twin_direct_upload() {
    if gpu_present() {
        all_options_on(UploadPath::Direct, false);
    }
}

#[test]
fn frames_match_the_cpu_twin_staging_upload() {
    if gpu_present() {
        all_options_on(UploadPath::Staging, false);
    }
}

#[test]
fn frames_match_the_cpu_twin_without_fp64() {
    if gpu_present() {
        all_options_on(UploadPath::Direct, true);
        run(
            (300, 170, 12),
            SsimOptions::default(),
            UploadPath::Staging,
            true,
            2,
            3,
        );
    }
}

/// The shared-memory reduction (what devices without subgroup arithmetic
/// run) gives the same sums: every frame matches, and the device's sums
/// decide ordinary frames.
#[test]
fn frames_match_the_cpu_twin_without_subgroups() {
    if !gpu_present() {
        return;
    }
    for (geometry, enable_lcs) in [((320, 180, 8), true), ((517, 301, 10), false)] {
        let opts = SsimOptions {
            enable_lcs,
            ..Default::default()
        };
        let vk = (vk_opts(UploadPath::Direct, false, 3)).with_no_subgroups(true);
        let (w, h, depth) = geometry;
        let mut scorer = VkScorer::new(w, h, depth, &opts, &vk).unwrap();
        assert!(!scorer.subgroup_reduction());
        scorer.reset_stats();
        score_and_compare(&mut scorer, &pairs(geometry, 5), &opts, 3, false);
        assert!(scorer.stats().host_sum_fallbacks < 5);
        assert_no_validation_messages(&scorer);
    }
}

#[test]
fn one_frame_in_flight_keeps_order() {
    if gpu_present() {
        run(
            (160, 120, 16),
            SsimOptions::default(),
            UploadPath::Auto,
            false,
            1,
            4,
        );
    }
}

#[test]
fn scale_above_128_is_refused() {
    if !gpu_present() {
        return;
    }
    let opts = SsimOptions {
        scale: 129,
        ..Default::default()
    };
    let err = VkScorer::new(1500, 1500, 8, &opts, &vk_opts(UploadPath::Auto, false, 1))
        .err()
        .expect("scale 129 must be refused");
    assert!(matches!(err, Error::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("128"), "{err}");
}

#[test]
fn too_small_plane_is_refused() {
    if !gpu_present() {
        return;
    }
    let err = VkScorer::new(
        10,
        40,
        8,
        &SsimOptions::default(),
        &vk_opts(UploadPath::Auto, false, 1),
    )
    .err()
    .expect("a 10-wide plane has no 11x11 window");
    assert!(matches!(err, Error::PlaneTooSmall { .. }), "{err}");
}

#[test]
fn wrong_frame_size_is_an_error_not_a_panic() {
    if !gpu_present() {
        return;
    }
    let mut scorer = VkScorer::new(
        64,
        64,
        8,
        &SsimOptions::default(),
        &vk_opts(UploadPath::Auto, false, 2),
    )
    .unwrap();
    let a = frame(64, 64, 8, 1);
    let b = frame(64, 48, 8, 2);
    let err = scorer.submit(a, b).expect_err("mismatched frame");
    assert!(matches!(err, Error::GeometryMismatch(_)), "{err}");
    assert!(err.to_string().contains("64x48"), "{err}");
    assert_eq!(scorer.in_flight(), 0);
    assert_no_validation_messages(&scorer);
}

#[test]
fn devices_are_listed_with_what_vkssim_needs() {
    if !gpu_present() {
        return;
    }
    let devices = vkssim::vk::list_devices(true).unwrap();
    assert!(devices.iter().any(|d| d.default_choice), "{devices:#?}");
    for d in &devices {
        let text = d.to_string();
        assert!(text.contains(&d.name), "{text}");
        assert!(!d.queue_families.is_empty(), "{text}");
        if d.default_choice {
            assert!(d.shader_int64, "{text}");
            assert!(!d.path.starts_with("unusable"), "{text}");
        }
    }
}

#[test]
fn bad_device_index_names_the_count() {
    if !gpu_present() {
        return;
    }
    let mut o = vk_opts(UploadPath::Auto, false, 1);
    o.device.index = Some(99);
    let err = VkScorer::new(64, 64, 8, &SsimOptions::default(), &o)
        .err()
        .expect("device 99 does not exist");
    let count = vkssim::vk::list_devices(true).unwrap().len();
    assert!(
        matches!(err, Error::NoSuchDevice { index: 99, count: c } if c == count),
        "{err}"
    );
    assert!(!err.vulkan_unavailable(), "{err}");
}

#[test]
fn gpu_pass_times_are_measured_at_1080p_and_4k() {
    if !gpu_present() {
        return;
    }
    for (w, h) in [(1920u32, 1080u32), (3840, 2160)] {
        let opts = SsimOptions::default();
        let mut scorer =
            VkScorer::new(w, h, 8, &opts, &vk_opts(UploadPath::Auto, false, 2)).unwrap();
        let r = frame(w, h, 8, 7);
        let d = frame(w, h, 8, 8);
        // Two frames: the second runs on warm pipelines.
        for _ in 0..2 {
            scorer.submit(r.clone(), d.clone()).unwrap();
        }
        let want = cpu::score_frame(&r.view(), &d.view(), &opts).unwrap();
        while let Some(got) = scorer.wait_next() {
            assert_eq!(
                got.unwrap().ssim().to_bits(),
                want.ssim().to_bits(),
                "{w}x{h}"
            );
        }
        if let Some(ns) = scorer.last_pass_ns() {
            assert_eq!(ns.len(), vkssim::testing::PASSES.len());
            assert!(ns.iter().all(|(_, t)| t.is_finite() && *t >= 0.0), "{ns:?}");
            let passes: Vec<String> = ns
                .iter()
                .map(|(name, t)| format!("{name} {:.1} us", t / 1e3))
                .collect();
            eprintln!(
                "{w}x{h} on {} ({}, {:?}): {}",
                scorer.device_name(),
                scorer.arithmetic().name(),
                scorer.upload_path(),
                passes.join(", ")
            );
        }
        assert_no_validation_messages(&scorer);
    }
}
