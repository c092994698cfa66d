//! The Vulkan passes of libvmaf 3.2.0's integer `motion` (the blur of the
//! frame difference: `glsl/motion_v32_blur.comp`, `motion_v32_sad.comp`)
//! against the exact CPU twin (`vkssim::testing::motion::v32`), on lavapipe
//! with validation on (any message fails): each frame's sum of absolute
//! values (what the passes give the host) and every output's fp64 bits,
//! frame after frame (the reference is kept on the device for the next
//! frame), a repeated frame (0) and a stream started afresh, frames in
//! flight beside VIF and ADM, the options, 8 to 16 bits, odd sizes, rows of
//! several chunks, both upload paths and both arithmetic paths, the sums
//! pass's chunk sums both through subgroup operations
//! (`motion_v32_sad_subgroup`, where the device has subgroup arithmetic, as
//! lavapipe has) and through the shared-memory tree (`no_subgroups`); a
//! sample above the bit depth is refused. Whole runs (motion2 and motion3, which the
//! run fills, and the models) are compared with libvmaf 3.2.0's own files
//! on every path in tests/tests/vmaf_v32_cli_vs_fixtures.rs. Small frames:
//! lavapipe is slow.

mod vk_support;

use vk_support::*;
use vkssim::metric::{MetricConfig, MetricOutputs, MotionVersion};
use vkssim::testing::motion::{v32, MotionOptions};
use vkssim::testing::{FrameScorer, VkScorer};
use vkssim::vk::UploadPath;
use vkssim::LumaFrame;

/// A metric list of 3.2.0's motion from `--feature`-style specs.
fn v32_list(specs: &[&str]) -> Vec<MetricConfig> {
    specs
        .iter()
        .map(|s| MetricConfig::parse_with_motion(s, MotionVersion::V3_2_0).unwrap())
        .collect()
}

/// The motion options of `list` (its motion entry).
fn motion_options(list: &[MetricConfig]) -> MotionOptions {
    list.iter()
        .find_map(|m| match m {
            MetricConfig::Motion(o) => Some(*o),
            _ => None,
        })
        .expect("motion in the list")
}

/// The CPU twin's sum for frame `n` of `refs` (`None` for the first frame
/// or under `motion_force_zero`) and the frame's outputs: the SAD score
/// (and `integer_motion` with `debug`) from it, then motion2 and motion3 as
/// NaN (the run's collector fills them).
fn cpu_frame(refs: &[LumaFrame], n: usize, opts: &MotionOptions) -> (Option<u64>, MetricOutputs) {
    let v = opts.v32();
    let sad = n
        .checked_sub(1)
        .filter(|_| !v.force_zero)
        .map(|p| v32::sad(&refs[p].view(), &refs[n].view()).unwrap());
    let (w, h) = (refs[n].width, refs[n].height);
    let motion = v32::motion_from_sad(sad, w, h, &v);
    let names = v.output_names();
    let late = names.len() - 2;
    let mut out = MetricOutputs::new();
    for (k, name) in names.into_iter().enumerate() {
        out.push(name, if k < late { motion } else { f64::NAN });
    }
    (sad, out)
}

/// The outputs whose names are motion's, in order.
fn motion_outputs(outputs: &MetricOutputs, opts: &MotionOptions) -> MetricOutputs {
    let names = opts.v32().output_names();
    let mut out = MetricOutputs::new();
    for (name, v) in outputs.iter() {
        if names.iter().any(|n| n == name) {
            out.push(name.to_string(), v);
        }
    }
    out
}

/// Frame by frame: the sum the passes give and the outputs.
fn check_passes(w: u32, h: u32, depth: u32, path: (UploadPath, bool)) {
    check_passes_with(w, h, depth, path, false);
}

/// [`check_passes`], with the sums pass's shared-memory tree when
/// `no_subgroups`.
fn check_passes_with(w: u32, h: u32, depth: u32, path: (UploadPath, bool), no_subgroups: bool) {
    let list = v32_list(&["motion=debug=true"]);
    let opts = motion_options(&list);
    let mut s = metric_scorer_with((w, h, depth), &list, path, 2, no_subgroups);
    let subgroups = s.subgroup_reduction();
    let label = format!("{w}x{h} {depth}-bit {path:?} subgroups {subgroups}");
    let refs = motion_clip(w, h, depth, 4);
    let dist = frame(w, h, depth, 77);
    for (n, r) in refs.iter().enumerate() {
        let got = s.debug_metrics(&[r.view()], &[dist.view()]).unwrap();
        let (sad, want) = cpu_frame(&refs, n, &opts);
        if let Some(sad) = sad {
            assert_eq!(got.motion_sad, Some(sad), "{label} frame {n}: sum");
            assert_eq!(sad == 0, n == 2, "{label} frame {n}: the clip moves");
        }
        assert_same_outputs(&format!("{label} frame {n}"), &got.outputs, &want);
    }
    assert_no_validation_messages(&s);
}

#[test]
fn motion_v32_passes_match_the_cpu_twin_on_every_path() {
    if !gpu_present() {
        return;
    }
    for path in PATHS {
        for (w, h, depth) in MOTION_CASES {
            check_passes(w, h, depth, path);
        }
    }
}

/// The sums pass's shared-memory tree (what devices without subgroup
/// arithmetic run) gives the same sums as the CPU twin (the test above runs
/// the subgroup reduction where the device has it).
#[test]
fn motion_v32_passes_match_the_cpu_twin_without_subgroups() {
    if !gpu_present() {
        return;
    }
    for (w, h, depth) in MOTION_CASES {
        check_passes_with(w, h, depth, (UploadPath::Direct, false), true);
    }
}

/// Frames in flight (none waited on before the next is submitted), beside
/// VIF and ADM in one ring, each frame's motion against the frame submitted
/// before it; then the same clip again after the stream ends, which starts
/// afresh (its first frame scores 0, as a fresh scorer's).
#[test]
fn motion_v32_in_a_full_ring_beside_vif_and_adm_matches_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let (w, h, depth) = (48, 40, 10);
    let list = v32_list(&["vif", "adm", "motion"]);
    let opts = motion_options(&list);
    for path in [(UploadPath::Direct, false), (UploadPath::Staging, true)] {
        let label = format!("{path:?}");
        let mut s: VkScorer = metric_scorer((w, h, depth), &list, path, 3);
        let refs = motion_clip(w, h, depth, 6);
        let dist = frame(w, h, depth, 78);
        for _ in 0..2 {
            for r in &refs {
                s.submit_picture(&[r.view()], &[dist.view()]).unwrap();
            }
            s.end_stream();
        }
        let mut n = 0;
        while let Some(score) = s.wait_next() {
            score.unwrap_or_else(|e| panic!("{label} frame {n}: {e}"));
            let outputs = s.take_metric_outputs().unwrap();
            let (_, want) = cpu_frame(&refs, n % refs.len(), &opts);
            let what = format!("{label} frame {n}");
            assert_same_outputs(&what, &motion_outputs(&outputs, &opts), &want);
            assert!(outputs.get("integer_vif_scale0").is_some(), "{what}");
            assert!(outputs.get("integer_adm2").is_some(), "{what}");
            n += 1;
        }
        assert_eq!(n, 2 * refs.len(), "{label}: every frame scored");
        // The second stream's first frame follows a frame that moved: had
        // it read that frame's reference, its motion would not be 0.
        assert!(v32::sad(&refs[5].view(), &refs[0].view()).unwrap() > 0);
        assert_no_validation_messages(&s);
    }
}

/// 3.2.0's options: `motion_force_zero` (no blur, any size, `_force_0`
/// names), `debug=false` (the SAD score, motion2 and motion3 only) and the
/// number options, which change the finish and the names.
#[test]
fn motion_v32_options_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let path = (UploadPath::Direct, false);
    for (spec, (w, h)) in [
        ("motion=motion_force_zero=true", (2, 1)),
        ("motion", (9, 7)),
        (
            "motion=motion_fps_weight=1.7:motion_max_val=65:motion_blend_factor=0.3:motion_blend_offset=55",
            (21, 11),
        ),
    ] {
        let list = v32_list(&[spec]);
        let opts = motion_options(&list);
        let mut s = metric_scorer((w, h, 8), &list, path, 2);
        let refs = motion_clip(w, h, 8, 3);
        for (n, r) in refs.iter().enumerate() {
            let got = s.score_picture(&[r.view()], &[r.view()]).unwrap();
            let (_, want) = cpu_frame(&refs, n, &opts);
            assert_same_outputs(&format!("{spec} frame {n}"), &got, &want);
        }
        assert_no_validation_messages(&s);
    }
}

/// A luma sample above the bit depth, in either picture, is refused naming
/// the frame, with 3.2.0's motion alone, with `motion_force_zero` too.
#[test]
fn motion_v32_alone_refuses_samples_above_the_bit_depth() {
    if !gpu_present() {
        return;
    }
    let list = v32_list(&["motion"]);
    assert_list_refuses_a_sample_above("3.2.0 motion", &list, (19, 11, 10), (7, 4), 1500);
    // In the third 256-column chunk of its row.
    assert_list_refuses_a_sample_above("3.2.0 motion", &list, (600, 5, 12), (517, 3), 4096);
    let zero = v32_list(&["motion=motion_force_zero=true"]);
    assert_list_refuses_a_sample_above("3.2.0 force_zero", &zero, (2, 2, 12), (1, 1), 4096);
}
