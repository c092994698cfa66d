//! The Vulkan passes of libvmaf 2.3.1's integer `motion` against the exact
//! CPU twin (`vkssim::testing::motion`), on lavapipe with validation on (any
//! message fails): pass by pass (each frame's blurred reference plane, byte
//! for byte, and its sum of absolute differences against the previous
//! frame's) and whole frames (every output's fp64 bits), over several frames
//! (the blurred plane is carried from frame to frame on the device), frames
//! in flight, 8 to 16 bits, odd sizes, both upload paths and both arithmetic
//! paths; the sums pass's chunk sums both through subgroup operations
//! (`motion_sad_subgroup`, where the device has subgroup arithmetic, as
//! lavapipe has) and through one shared-memory atomic per invocation
//! (`no_subgroups`); frames several of the pass's 512-column, 4-row tiles
//! wide and high. Small frames: lavapipe is slow.

mod vk_support;

use vk_support::*;
use vkssim::metric::{MetricConfig, MetricOutputs};
use vkssim::testing::motion::{blur, motion_score, BlurredPlane, MotionOptions};
use vkssim::testing::FrameScorer;
use vkssim::vk::UploadPath;

/// The CPU twin's motion outputs of frame `n` of `blurred` (every frame's
/// blurred reference).
fn cpu_motion(blurred: &[BlurredPlane], n: usize, opts: &MotionOptions) -> MetricOutputs {
    let previous = n.checked_sub(1).map(|p| &blurred[p]);
    let motion = motion_score(previous, &blurred[n], opts).unwrap();
    let mut names = MotionOptions {
        debug: true,
        ..*opts
    }
    .output_names()
    .into_iter();
    let mut out = MetricOutputs::new();
    out.push(names.next().unwrap(), f64::NAN);
    out.push(names.next().unwrap(), motion);
    out
}

/// The outputs (name, position) for which `keep` holds, in order.
fn pick(outputs: &MetricOutputs, keep: impl Fn(&str, usize) -> bool) -> MetricOutputs {
    let mut out = MetricOutputs::new();
    for (k, (name, v)) in outputs.iter().enumerate() {
        if keep(name, k) {
            out.push(name.to_string(), v);
        }
    }
    out
}

/// The sum libvmaf forms of |a - b|: each row's in a wrapping uint32, the
/// rows in uint64 (from the CPU twin's blurred planes).
fn sad(a: &BlurredPlane, b: &BlurredPlane) -> u64 {
    let w = a.width as usize;
    a.samples
        .chunks_exact(w)
        .zip(b.samples.chunks_exact(w))
        .map(|(ra, rb)| {
            ra.iter().zip(rb).fold(0u32, |acc, (&p, &c)| {
                acc.wrapping_add((p as i32 - c as i32).unsigned_abs())
            }) as u64
        })
        .sum()
}

/// Pass by pass, frame by frame: the blurred plane, the sum and the outputs.
fn check_passes(w: u32, h: u32, depth: u32, path: (UploadPath, bool)) {
    check_passes_with(w, h, depth, path, false);
}

/// [`check_passes`], with the shared-memory reduction when `no_subgroups`.
fn check_passes_with(w: u32, h: u32, depth: u32, path: (UploadPath, bool), no_subgroups: bool) {
    let list = metric_list(&["motion"]);
    let mut s = metric_scorer_with((w, h, depth), &list, path, 2, no_subgroups);
    let subgroups = s.subgroup_reduction();
    let label = format!("{w}x{h} {depth}-bit {path:?} subgroups {subgroups}");
    let refs = motion_clip(w, h, depth, 4);
    let dist = frame(w, h, depth, 77);
    let opts = MotionOptions::default();
    let blurred: Vec<BlurredPlane> = refs.iter().map(|r| blur(&r.view()).unwrap()).collect();
    for (n, r) in refs.iter().enumerate() {
        let got = s.debug_metrics(&[r.view()], &[dist.view()]).unwrap();
        let want = &blurred[n].samples;
        assert_eq!(
            first_difference(&got.motion_blurred, want),
            None,
            "{label} frame {n}: blurred plane"
        );
        if n > 0 {
            let cpu = sad(&blurred[n - 1], &blurred[n]);
            assert_eq!(got.motion_sad, Some(cpu), "{label} frame {n}: sum");
            assert_eq!(cpu == 0, n == 2, "{label} frame {n}: the clip moves");
        }
        assert_same_outputs(
            &format!("{label} frame {n}"),
            &got.outputs,
            &cpu_motion(&blurred, n, &opts),
        );
    }
    assert_no_validation_messages(&s);
}

#[test]
fn motion_passes_match_the_cpu_twin_on_every_path() {
    if !gpu_present() {
        return;
    }
    for path in PATHS {
        for (w, h, depth) in MOTION_CASES {
            check_passes(w, h, depth, path);
        }
    }
}

/// The sums pass's per-invocation shared-memory atomics (what devices
/// without subgroup arithmetic run) give the same sums as the CPU twin (the
/// test above runs the subgroup reduction where the device has it).
#[test]
fn motion_passes_match_the_cpu_twin_without_subgroups() {
    if !gpu_present() {
        return;
    }
    for (w, h, depth) in MOTION_CASES {
        check_passes_with(w, h, depth, (UploadPath::Direct, false), true);
    }
}

/// Frames in flight (the ring's slots in turn, none waited on before the
/// next is submitted), beside float_ssim and psnr in one ring: each frame's
/// motion is against the frame submitted before it.
#[test]
fn motion_in_a_full_ring_matches_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let (w, h, depth) = (37, 21, 10);
    let list = metric_list(&["float_ssim", "motion", "psnr=enable_chroma=false"]);
    for path in [(UploadPath::Direct, false), (UploadPath::Staging, true)] {
        let label = format!("{path:?}");
        let mut s = metric_scorer((w, h, depth), &list, path, 3);
        let refs = motion_clip(w, h, depth, 7);
        let dist = frame(w, h, depth, 78);
        let blurred: Vec<BlurredPlane> = refs.iter().map(|r| blur(&r.view()).unwrap()).collect();
        for r in &refs {
            s.submit_picture(&[r.view()], &[dist.view()]).unwrap();
        }
        let mut n = 0;
        while let Some(score) = s.wait_next() {
            score.unwrap_or_else(|e| panic!("{label} frame {n}: {e}"));
            let outputs = s.take_metric_outputs().unwrap();
            let motion = pick(&outputs, |name, _| name.starts_with("integer_motion"));
            let want = cpu_motion(&blurred, n, &MotionOptions::default());
            assert_same_outputs(&format!("{label} frame {n}"), &motion, &want);
            assert!(outputs.get("float_ssim").is_some(), "{label}");
            assert!(outputs.get("psnr_y").is_some(), "{label}");
            n += 1;
        }
        assert_eq!(n, refs.len(), "{label}: every frame scored");
        assert_no_validation_messages(&s);
    }
}

/// A stream ended ([`VkScorer::end_stream`], what a queue's `finish` calls)
/// while its frames are still in flight: the next frame submitted starts
/// another stream and scores as a first frame (no previous one), so a
/// second run of the same clip on the same scorer gives the first run's
/// values, as the CPU twin does.
#[test]
fn a_new_stream_starts_without_a_previous_frame() {
    if !gpu_present() {
        return;
    }
    let (w, h, depth) = (35, 19, 8);
    let list = metric_list(&["motion"]);
    let mut s = metric_scorer((w, h, depth), &list, (UploadPath::Direct, false), 3);
    let refs = motion_clip(w, h, depth, 4);
    let dist = frame(w, h, depth, 9);
    let blurred: Vec<BlurredPlane> = refs.iter().map(|r| blur(&r.view()).unwrap()).collect();
    for _ in 0..2 {
        for r in &refs {
            s.submit_picture(&[r.view()], &[dist.view()]).unwrap();
        }
        s.end_stream();
    }
    let mut n = 0;
    while let Some(score) = s.wait_next() {
        score.unwrap_or_else(|e| panic!("frame {n}: {e}"));
        let outputs = s.take_metric_outputs().unwrap();
        let want = cpu_motion(&blurred, n % refs.len(), &MotionOptions::default());
        assert_same_outputs(&format!("frame {n}"), &outputs, &want);
        n += 1;
    }
    assert_eq!(n, 2 * refs.len());
    // The second stream's first frame follows a frame that moved: had it
    // read that frame's plane, its motion would not be 0.
    assert!(sad(&blurred[3], &blurred[0]) > 0);
    assert_no_validation_messages(&s);
}

/// `motion_force_zero` records no pass, takes any size and scores 0 under
/// the `_force_0` names; with `debug=false` a frame still reports
/// `integer_motion` (the run's collector needs it), as the CPU twin does.
#[test]
fn motion_options_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let path = (UploadPath::Direct, false);
    for (spec, (w, h)) in [
        ("motion=motion_force_zero=true", (2, 1)),
        ("motion=debug=false", (9, 7)),
    ] {
        let list = metric_list(&[spec]);
        let MetricConfig::Motion(opts) = list[0] else {
            unreachable!()
        };
        let mut s = metric_scorer((w, h, 8), &list, path, 2);
        let refs = motion_clip(w, h, 8, 3);
        for (n, r) in refs.iter().enumerate() {
            let got = s.score_picture(&[r.view()], &[r.view()]).unwrap();
            // Under motion_force_zero the twin blurs nothing: any plane will
            // do (it scores 0).
            let blurred: Vec<BlurredPlane> = refs
                .iter()
                .map(|r| match opts.force_zero {
                    true => BlurredPlane {
                        width: w,
                        height: h,
                        samples: vec![0; (w * h) as usize],
                    },
                    false => blur(&r.view()).unwrap(),
                })
                .collect();
            let want = cpu_motion(&blurred, n, &opts);
            assert_same_outputs(&format!("{spec} frame {n}"), &got, &want);
        }
        assert_no_validation_messages(&s);
    }
}

/// A luma sample above the bit depth, in either picture, is refused naming
/// the frame, with motion alone (no other pass checks the samples), with
/// `motion_force_zero` too.
#[test]
fn motion_alone_refuses_samples_above_the_bit_depth() {
    if !gpu_present() {
        return;
    }
    assert_refuses_a_sample_above("motion", (19, 11, 10), (7, 4), 1500);
    // In the second 512-column chunk of its row.
    assert_refuses_a_sample_above("motion", (600, 5, 10), (517, 3), 1500);
    // In the second chunk and the second 4-row tile down, at 12 bits.
    assert_refuses_a_sample_above("motion", (601, 9, 12), (515, 6), 5000);
    // motion_force_zero blurs nothing, at any size, but still checks.
    let zero = "motion=motion_force_zero=true";
    assert_refuses_a_sample_above(zero, (2, 2, 12), (1, 1), 4096);
}
