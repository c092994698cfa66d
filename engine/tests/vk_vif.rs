//! The Vulkan passes of libvmaf's integer `vif` against the exact CPU twin
//! (`vkssim::testing::vif`), on lavapipe with validation on (any message
//! fails): pass by pass (every decimated plane, byte for byte, and each
//! scale's four exact integer sums, which take in the per-pixel binary64
//! gain and residual) and whole frames (every output's fp64 bits, `debug`
//! outputs included), 8 to 16 bits, odd sizes, both upload paths and both
//! arithmetic paths (native fp64 and the software fp64 forced by `no_fp64`),
//! on noise, on half-flat frames and on frames of only 0 and the largest
//! sample (the bounds of the device's 32-bit partial sums); the stats pass's
//! row sums both through subgroup operations (`vif_stats_subgroup`, where the
//! device has subgroup arithmetic, as lavapipe has) and through the
//! shared-memory tree (`no_subgroups`). Small frames: lavapipe is slow.

mod vk_support;

use vk_support::*;
use vkssim::metric::{MetricConfig, MetricOutputs};
use vkssim::testing::vif::{vif_scores, VifOptions};
use vkssim::testing::vif_intermediates;
use vkssim::vk::UploadPath;
use vkssim::LumaFrame;

/// (width, height, bit depth): odd sizes, every depth, the smallest frame,
/// and rows of several of the stats pass's 256-column chunks at scales 0
/// and 1.
const CASES: [(u32, u32, u32); 7] = [
    (37, 29, 8),
    (41, 23, 10),
    (33, 35, 12),
    (29, 17, 16),
    (16, 16, 8),
    (1043, 19, 8),
    (1061, 17, 10),
];

/// A distorted frame close to the reference: each sample moved by a small
/// deterministic amount (so that most pixels have σ12 > 0 and the binary64
/// step runs), within the bit depth.
fn distort(r: &LumaFrame, seed: u32) -> LumaFrame {
    let noise = frame(r.width, r.height, r.bit_depth, seed);
    let mut d = r.clone();
    let max = (1i64 << r.bit_depth) - 1;
    let step = 1i64 << r.bit_depth.saturating_sub(6);
    for y in 0..r.height as usize {
        for x in 0..r.width as usize {
            let v = r.view().sample(x, y) as i64;
            let n = noise.view().sample(x, y) as i64 % 5 - 2;
            let out = (v + n * step).clamp(0, max) as u32;
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

/// `r` with its left half flat (a constant), where σ1² falls below the
/// noise variance.
fn half_flat(r: &LumaFrame) -> LumaFrame {
    let mut f = r.clone();
    let bps = if r.bit_depth == 8 { 1 } else { 2 };
    for y in 0..r.height as usize {
        for x in 0..r.width as usize / 2 {
            let i = (y * r.width as usize + x) * bps;
            f.bytes[i..i + bps].copy_from_slice(&33u16.to_le_bytes()[..bps]);
        }
    }
    f
}

/// `r` with every sample at 0 or the depth's largest value (by whether
/// `r`'s sample is in the upper half): the largest statistics each scale can
/// form, which bound the device's 32-bit partial sums.
fn extremes(r: &LumaFrame) -> LumaFrame {
    let mut f = r.clone();
    let max = (1u32 << r.bit_depth) - 1;
    let bps = if r.bit_depth == 8 { 1 } else { 2 };
    for y in 0..r.height as usize {
        for x in 0..r.width as usize {
            let v = if r.view().sample(x, y) > max / 2 {
                max
            } else {
                0
            };
            let i = (y * r.width as usize + x) * bps;
            f.bytes[i..i + bps].copy_from_slice(&v.to_le_bytes()[..bps]);
        }
    }
    f
}

/// The CPU twin's outputs of one pair.
fn cpu_outputs(r: &LumaFrame, d: &LumaFrame, opts: &VifOptions) -> MetricOutputs {
    let mut out = MetricOutputs::new();
    for (name, v) in vif_scores(&r.view(), &d.view(), opts)
        .unwrap()
        .outputs(opts)
    {
        out.push(name, v);
    }
    out
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
    let MetricConfig::Vif(opts) = list[0] else {
        unreachable!()
    };
    let mut s = metric_scorer_with((w, h, depth), &list, path, 2, no_subgroups);
    let subgroups = s.subgroup_reduction();
    let label = format!("{w}x{h} {depth}-bit {spec} {path:?} subgroups {subgroups}");
    for seed in [1, 2, 3, 4] {
        let r = match seed {
            3 => half_flat(&frame(w, h, depth, seed)),
            4 => extremes(&frame(w, h, depth, seed)),
            _ => frame(w, h, depth, seed),
        };
        let pairs = [distort(&r, seed + 10), r.clone()];
        for d in &pairs {
            let got = s.debug_metrics(&[r.view()], &[d.view()]).unwrap();
            let (planes, sums) = vif_intermediates(&r.view(), &d.view(), &opts).unwrap();
            assert_eq!(got.vif_planes.len(), planes.len(), "{label}");
            for (k, (g, c)) in got.vif_planes.iter().zip(&planes).enumerate() {
                assert_eq!(
                    first_difference(g, c),
                    None,
                    "{label} seed {seed}: decimated plane {k}"
                );
            }
            assert_eq!(got.vif_sums, Some(sums), "{label} seed {seed}: sums");
            assert_same_outputs(&label, &got.outputs, &cpu_outputs(&r, d, &opts));
        }
        // The binary64 step ran (σ12 > 0 somewhere at scale 0).
        let d = &pairs[0];
        let (_, sums) = vif_intermediates(&r.view(), &d.view(), &opts).unwrap();
        assert!(sums[0][0] != 0, "{label}: no gain term at scale 0");
        if seed == 3 && w >= 24 {
            assert!(sums[0][3] > 0, "{label}: no pixel below the noise variance");
        }
    }
    assert_no_validation_messages(&s);
}

#[test]
fn vif_passes_match_the_cpu_twin_on_every_path() {
    if !gpu_present() {
        return;
    }
    for path in PATHS {
        for (w, h, depth) in CASES {
            check(w, h, depth, "vif", path);
        }
    }
}

/// The stats pass's shared-memory tree (what devices without subgroup
/// arithmetic run) gives the same sums as the CPU twin, on both arithmetic
/// paths (the test above runs the subgroup reduction where the device has
/// it).
#[test]
fn vif_passes_match_the_cpu_twin_without_subgroups() {
    if !gpu_present() {
        return;
    }
    for path in [(UploadPath::Direct, false), (UploadPath::Direct, true)] {
        for (w, h, depth) in CASES {
            check_with(w, h, depth, "vif", path, true);
        }
    }
}

#[test]
fn vif_options_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    for path in [(UploadPath::Direct, false), (UploadPath::Direct, true)] {
        for spec in ["vif=vif_enhn_gain_limit=1.0:debug=true", "vif=debug=true"] {
            check(35, 27, 10, spec, path);
            check(35, 27, 8, spec, path);
        }
    }
}

/// A luma sample above the bit depth, in either picture, is refused naming
/// the frame and the sample, with vif alone.
#[test]
fn vif_alone_refuses_samples_above_the_bit_depth() {
    if !gpu_present() {
        return;
    }
    assert_refuses_a_sample_above("vif", (19, 17, 12), (3, 9), 5000);
}
