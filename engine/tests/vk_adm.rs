//! The Vulkan passes of libvmaf's integer `adm` against the exact CPU twin
//! (`vkssim::testing::adm_intermediates`), on lavapipe with validation on
//! (any message fails): pass by pass (every scale's eight wavelet bands, its
//! restored bands and the masking threshold's sums, plane by plane, and each
//! active-window row's integer sums of the numerator's and the denominator's
//! cubes, which take in the per-pixel binary64 angle test and enhancement
//! gain) and whole frames (every output's fp64 bits, `debug` outputs
//! included), 8 to 16 bits, odd sizes, the smallest frame, both upload paths
//! and both arithmetic paths (native fp64 and the software fp64 forced by
//! `no_fp64`); the rows pass's sums both through subgroup operations
//! (`adm_rows_subgroup`, where the device has subgroup arithmetic, as
//! lavapipe has) and through the shared-memory tree (`no_subgroups`). Small
//! frames: lavapipe is slow.

mod vk_support;

use vk_support::*;
use vkssim::metric::{MetricConfig, MetricOutputs};
use vkssim::testing::{adm_intermediates, adm_scores, AdmOptions};
use vkssim::vk::UploadPath;
use vkssim::LumaFrame;

/// (width, height, bit depth): odd sizes, every depth, the smallest frame
/// (33x33, whose scale-3 bands are 3 samples across and whose windows reach
/// the bands' edges, where the threshold mirrors), and scale-0 rows of
/// several of the wavelet pass's 256-output chunks.
const CASES: [(u32, u32, u32); 6] = [
    (37, 45, 8),
    (41, 35, 10),
    (33, 33, 12),
    (39, 34, 16),
    (66, 50, 8),
    (1101, 34, 10),
];

/// A distorted frame near the reference: each sample scaled towards mid-grey
/// (a contrast loss, so that restored parts, gains and impairments all
/// occur) plus a small deterministic noise, within the bit depth.
fn distort(r: &LumaFrame, seed: u32) -> LumaFrame {
    let noise = frame(r.width, r.height, r.bit_depth, seed);
    let mut d = r.clone();
    let max = (1i64 << r.bit_depth) - 1;
    let mid = max / 2;
    let step = 1i64 << r.bit_depth.saturating_sub(6);
    for y in 0..r.height as usize {
        for x in 0..r.width as usize {
            let v = r.view().sample(x, y) as i64;
            let n = noise.view().sample(x, y) as i64 % 5 - 2;
            let scaled = mid + (v - mid) * (3 + (seed as i64 % 3)) / 4;
            let out = (scaled + n * step).clamp(0, max) as u32;
            let i = y * r.width as usize + x;
            if r.bit_depth == 8 {
                d.bytes[i] = out as u8;
            } else {
                d.bytes[2 * i..2 * i + 2].copy_from_slice(&(out as u16).to_le_bytes());
            }
        }
    }
    d
}

/// The CPU twin's outputs of one pair.
fn cpu_outputs(r: &LumaFrame, d: &LumaFrame, opts: &AdmOptions) -> MetricOutputs {
    adm_scores(&r.view(), &d.view(), opts)
        .unwrap()
        .outputs(opts)
}

fn check(w: u32, h: u32, depth: u32, spec: &str, path: (UploadPath, bool)) {
    check_with(w, h, depth, spec, path, false);
}

/// [`check`], with the shared-memory reductions when `no_subgroups`.
fn check_with(
    w: u32,
    h: u32,
    depth: u32,
    spec: &str,
    path: (UploadPath, bool),
    no_subgroups: bool,
) {
    let list = metric_list(&[spec]);
    let MetricConfig::Adm(opts) = list[0] else {
        unreachable!()
    };
    let mut s = metric_scorer_with((w, h, depth), &list, path, 2, no_subgroups);
    let subgroups = s.subgroup_reduction();
    let label = format!("{w}x{h} {depth}-bit {spec} {path:?} subgroups {subgroups}");
    for seed in [1, 2, 3] {
        let r = frame(w, h, depth, seed);
        let pairs = [distort(&r, seed + 10), r.clone()];
        for d in &pairs {
            let got = s.debug_metrics(&[r.view()], &[d.view()]).unwrap();
            let want = adm_intermediates(&r.view(), &d.view(), &opts).unwrap();
            assert_eq!(got.adm.len(), 4, "{label}");
            for (scale, (g, c)) in got.adm.iter().zip(&want).enumerate() {
                let at = format!("{label} seed {seed} scale {scale}");
                assert_eq!(g.size, c.size, "{at}");
                let planes = |x: &vkssim::testing::AdmScaleIntermediates| {
                    let mut v: Vec<(String, Vec<i32>)> = Vec::new();
                    for (k, b) in x.bands.iter().enumerate() {
                        v.push((format!("band {k} (ref a h v d, then distorted)"), b.clone()));
                    }
                    for (k, b) in x.restored.iter().enumerate() {
                        v.push((format!("restored band {k}"), b.clone()));
                    }
                    v.push(("flat sum".into(), x.flat_sum.clone()));
                    v.push(("own terms' sum".into(), x.centre_sum.clone()));
                    v
                };
                let (gp, cp) = (planes(g), planes(c));
                assert_eq!(gp.len(), cp.len(), "{at}");
                for ((name, gv), (_, cv)) in gp.iter().zip(&cp) {
                    assert_eq!(gv.len(), cv.len(), "{at}: {name}");
                    let fd = first_difference(gv, cv);
                    assert_eq!(fd, None, "{at}: {name} {:?}", fd.map(|i| (gv[i], cv[i])));
                }
                assert_eq!(g.numerator_rows, c.numerator_rows, "{at}: numerator rows");
                assert_eq!(
                    g.denominator_rows, c.denominator_rows,
                    "{at}: denominator rows"
                );
            }
            assert_same_outputs(&label, &got.outputs, &cpu_outputs(&r, d, &opts));
        }
        // The distorted frame is not the reference: the numerator differs
        // from the denominator somewhere (the test would pass trivially
        // otherwise).
        let d = &pairs[0];
        let s0 = adm_scores(&r.view(), &d.view(), &opts).unwrap();
        assert!(
            s0.adm2 != 1.0,
            "{label}: a distorted frame scored as the reference"
        );
    }
    assert_no_validation_messages(&s);
}

#[test]
fn adm_passes_match_the_cpu_twin_on_every_path() {
    if !gpu_present() {
        return;
    }
    for path in PATHS {
        for (w, h, depth) in CASES {
            check(w, h, depth, "adm", path);
        }
    }
}

/// The rows pass's shared-memory tree (what devices without subgroup
/// arithmetic run) gives the same sums as the CPU twin, on both arithmetic
/// paths (the test above runs the subgroup reduction where the device has
/// it).
#[test]
fn adm_passes_match_the_cpu_twin_without_subgroups() {
    if !gpu_present() {
        return;
    }
    for path in [(UploadPath::Direct, false), (UploadPath::Direct, true)] {
        for (w, h, depth) in CASES {
            check_with(w, h, depth, "adm", path, true);
        }
    }
}

#[test]
fn adm_options_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    for path in [(UploadPath::Direct, false), (UploadPath::Direct, true)] {
        for spec in [
            "adm=adm_enhn_gain_limit=1.0:debug=true",
            "adm=adm_norm_view_dist=4.5:adm_ref_display_height=2160",
            "adm=debug=true",
        ] {
            check(35, 37, 10, spec, path);
            check(40, 33, 8, spec, path);
        }
    }
}

/// A luma sample above the bit depth, in either picture, is refused naming
/// the frame and the sample, with adm alone.
#[test]
fn adm_alone_refuses_samples_above_the_bit_depth() {
    if !gpu_present() {
        return;
    }
    assert_refuses_a_sample_above("adm", (37, 35, 12), (3, 9), 5000);
    assert_refuses_a_sample_above("adm", (37, 35, 10), (36, 34), 1500);
    // In the wavelet pass's second and fifth 512-column input chunks, and in
    // the column two chunks share (the last of one, the first of the next).
    assert_refuses_a_sample_above("adm", (2100, 33, 10), (700, 17), 1024);
    assert_refuses_a_sample_above("adm", (2100, 33, 10), (1023, 5), 1024);
    assert_refuses_a_sample_above("adm", (2100, 33, 12), (2099, 32), 4096);
}
