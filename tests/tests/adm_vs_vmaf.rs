//! libvmaf's `adm` extractor (`integer_adm`) against the CPU twin in
//! `vkssim::feature::adm`: every frame's `integer_adm2` and
//! `integer_adm_scale0..3`, and the debug outputs (`integer_adm_num`,
//! `_den`, `_num_scale0..3`, `_den_scale0..3`), compared bit for bit with
//! the `vmaf` CLI of libvmaf 2.3.1 (`--cpumask 255`: its C path) under the
//! full-precision shim. 8, 10 and 12-bit; odd and small sizes down to the
//! smallest libvmaf scores; the enhancement gain limit (the `_egl_1` outputs
//! of vmaf_v0.6.1neg) and other viewing conditions.

use vkssim::io::Chroma;
use vkssim::testing::{adm_check_size, adm_scores, AdmOptions, AdmScores, ADM_MIN_SIDE};
use vkssim::Error;
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::vmaf_cli::run_vmaf;

/// The `--feature` option string for `opts` (only what differs from the
/// defaults, plus `debug=true`).
fn feature_arg(opts: &AdmOptions) -> String {
    let d = AdmOptions::default();
    let mut s = "adm=debug=true".to_string();
    if opts.enhn_gain_limit != d.enhn_gain_limit {
        s += &format!(":adm_enhn_gain_limit={}", opts.enhn_gain_limit);
    }
    if opts.norm_view_dist != d.norm_view_dist {
        s += &format!(":adm_norm_view_dist={}", opts.norm_view_dist);
    }
    if opts.ref_display_height != d.ref_display_height {
        s += &format!(":adm_ref_display_height={}", opts.ref_display_height);
    }
    s
}

/// The named outputs of one frame's scores, under libvmaf's names.
fn named(s: &AdmScores, suffix: &str) -> Vec<(String, f64)> {
    let mut v = vec![("integer_adm2".to_string(), s.adm2)];
    for k in 0..4 {
        v.push((format!("integer_adm_scale{k}"), s.scale[k]));
    }
    v.push(("integer_adm".into(), s.adm2));
    v.push(("integer_adm_num".into(), s.num));
    v.push(("integer_adm_den".into(), s.den));
    for k in 0..4 {
        v.push((format!("integer_adm_num_scale{k}"), s.num_scale[k]));
        v.push((format!("integer_adm_den_scale{k}"), s.den_scale[k]));
    }
    v.into_iter()
        .map(|(name, x)| (insert_suffix(&name, suffix), x))
        .collect()
}

/// libvmaf's output name: the suffix goes at the end (`integer_adm2_egl_1`).
fn insert_suffix(name: &str, suffix: &str) -> String {
    format!("{name}{suffix}")
}

/// Scores `clip` with vmaf and with the twin, comparing every output of every
/// frame bit for bit.
fn assert_clip_matches(clip: &MetricClip, opts: &AdmOptions) {
    let mut args = clip.vmaf_args();
    args.extend([
        "--feature".into(),
        feature_arg(opts),
        "--cpumask".into(),
        "255".into(),
    ]);
    let vmaf = run_vmaf(&args, true).unwrap_or_else(|e| panic!("{}: {e}", clip.name));
    let refs = clip.read(&clip.reference);
    let dist = clip.read(&clip.distorted);
    assert_eq!(vmaf.frames.len(), clip.frames, "{}", clip.name);
    let suffix = opts.name_suffix();
    let mut mismatches = Vec::new();
    for (f, expected) in vmaf.frames.iter().enumerate() {
        let ours = adm_scores(&refs[f][0].view(), &dist[f][0].view(), opts)
            .unwrap_or_else(|e| panic!("{} frame {f}: {e}", clip.name));
        for (name, value) in named(&ours, &suffix) {
            let theirs = expected
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("{}: vmaf wrote no {name}: {expected:?}", clip.name))
                .1;
            if value.to_bits() != theirs.to_bits() {
                mismatches.push(format!(
                    "frame {f} {name}: vkssim {value:e} vmaf {theirs:e}"
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} {opts:?}: {} outputs differ:\n{}",
        clip.name,
        mismatches.len(),
        mismatches.join("\n")
    );
    eprintln!("{} {opts:?}: {} frames identical", clip.name, clip.frames);
}

fn noisy(width: u32, height: u32, bit_depth: u32, frames: usize) -> MetricClip {
    MetricClip::new(
        width,
        height,
        bit_depth,
        Chroma::C420,
        frames,
        Content::Noisy,
    )
}

/// 8-bit at sizes where later libvmaf's SIMD DWT goes wrong (324x200, 66x50,
/// 98x60), odd widths and heights, and the four kinds of distortion.
#[test]
fn adm_8bit_matches_vmaf() {
    for (w, h) in [
        (64, 48),
        (177, 181),
        (324, 200),
        (66, 50),
        (98, 60),
        (35, 97),
    ] {
        assert_clip_matches(&noisy(w, h, 8, 2), &AdmOptions::default());
    }
    for content in [Content::Identical, Content::Inverted, Content::Unrelated] {
        let clip = MetricClip::new(71, 53, 8, Chroma::C420, 2, content);
        assert_clip_matches(&clip, &AdmOptions::default());
    }
}

/// 10, 12 and 16-bit, odd sizes included (16-bit samples above 42456
/// overflow libvmaf's int32 vertical sums, which wrap here as they do there).
#[test]
fn adm_10_12_and_16bit_match_vmaf() {
    for (w, h, bpc) in [
        (98, 60, 10),
        (67, 45, 10),
        (176, 144, 10),
        (66, 50, 12),
        (131, 77, 12),
        (64, 48, 16),
        (45, 39, 16),
    ] {
        assert_clip_matches(&noisy(w, h, bpc, 2), &AdmOptions::default());
    }
    let clip = MetricClip::new(53, 41, 10, Chroma::C420, 2, Content::Inverted);
    assert_clip_matches(&clip, &AdmOptions::default());
}

/// The smallest frames the twin scores (33 samples each way: a scale-3 band
/// of 3 x 3), alone or in one direction, at each depth.
#[test]
fn adm_smallest_frames_match_vmaf() {
    let side = ADM_MIN_SIDE;
    for (w, h, bpc) in [
        (side, side, 8),
        (side, 70, 8),
        (71, side, 10),
        (side, side, 12),
    ] {
        assert_clip_matches(&noisy(w, h, bpc, 2), &AdmOptions::default());
    }
}

/// `adm_enhn_gain_limit=1.0` (vmaf_v0.6.1neg's `integer_adm2_egl_1`) and a
/// fractional limit.
#[test]
fn adm_enhancement_gain_limit_matches_vmaf() {
    for egl in [1.0, 2.5] {
        let opts = AdmOptions {
            enhn_gain_limit: egl,
            ..AdmOptions::default()
        };
        assert_clip_matches(&noisy(98, 60, 8, 2), &opts);
        assert_clip_matches(&noisy(67, 45, 10, 2), &opts);
    }
}

/// Other viewing distances and display heights, alone and with the gain limit
/// (4 x 810 is 3 x 1080: libvmaf then keeps its hard-coded scale-0 factors).
#[test]
fn adm_viewing_conditions_match_vmaf() {
    for (egl, nvd, rdh) in [
        (100.0, 4.0, 1080),
        (100.0, 3.0, 2160),
        (1.0, 4.25, 2160),
        (100.0, 24.0, 4320),
        (100.0, 2.5, 1400),
        (100.0, 4.0, 810),
    ] {
        let opts = AdmOptions {
            enhn_gain_limit: egl,
            norm_view_dist: nvd,
            ref_display_height: rdh,
            debug: false,
        };
        assert_clip_matches(&noisy(98, 60, 8, 2), &opts);
        assert_clip_matches(&noisy(67, 45, 12, 2), &opts);
    }
}

/// Frames narrower or shorter than 33 samples (libvmaf 2.3.1 crashes below 17
/// and reads outside its scale-3 band from 17 to 32) are refused with a
/// clear error before any work; so are viewing conditions below 3 heights at
/// 1080 lines (where libvmaf fails the frame).
#[test]
fn adm_refuses_what_libvmaf_cannot_score() {
    assert!(adm_check_size(ADM_MIN_SIDE, ADM_MIN_SIDE, 8).is_ok());
    for (w, h) in [(32, 33), (33, 32), (16, 16), (17, 17), (1, 100)] {
        let e = adm_check_size(w, h, 10).unwrap_err();
        assert!(matches!(e, Error::FrameTooSmall { .. }), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("adm") && text.contains("33x33"), "{text}");
        let plane = vkssim_tests::synth::noise(w, h, 10, 1);
        let e = adm_scores(&plane.view(), &plane.view(), &AdmOptions::default()).unwrap_err();
        assert!(matches!(e, Error::FrameTooSmall { .. }), "{e:?}");
    }
    let plane = vkssim_tests::synth::noise(40, 40, 8, 1);
    let opts = AdmOptions {
        ref_display_height: 1079,
        ..AdmOptions::default()
    };
    let e = adm_scores(&plane.view(), &plane.view(), &opts).unwrap_err();
    assert!(e.to_string().contains("adm_ref_display_height"), "{e}");
}

/// A 4K frame: the scale-0 denominator's window holds more than 2^20
/// samples, so its row sums are rounded off (shift above 0).
#[test]
fn adm_4k_frame_matches_vmaf() {
    assert_clip_matches(&noisy(3840, 2160, 8, 1), &AdmOptions::default());
}
