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
    args.extend(["--feature".into(), feature_arg(opts), "--cpumask".into(), "255".into()]);
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
                mismatches.push(format!("frame {f} {name}: vkssim {value:e} vmaf {theirs:e}"));
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
    MetricClip::new(width, height, bit_depth, Chroma::C420, frames, Content::Noisy)
}

#[test]
fn adm_8bit_matches_vmaf() {
    for (w, h) in [(64, 48), (177, 181), (324, 200), (66, 50), (98, 60)] {
        assert_clip_matches(&noisy(w, h, 8, 2), &AdmOptions::default());
    }
}
