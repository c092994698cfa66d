//! vkssim's CPU twin against libvmaf on planes made in Rust: identical inputs
//! (exactly 1, and the clip_db ceiling), flat planes, black against white, at
//! every bit depth and at several auto scales. Every expected value is libvmaf's.

use vkssim::{testing::cpu, LumaFrame, SsimOptions};
use vkssim_tests::{libvmaf_float_ssim_one, synth, LibvmafFrame};

/// Option sets that together cover every output: `_l/_c/_s` and the linear
/// score, the dB figure without a ceiling, and with `clip_db`'s ceiling.
fn all_options() -> Vec<SsimOptions> {
    let o = SsimOptions::default();
    vec![
        SsimOptions {
            enable_lcs: true,
            ..o
        },
        SsimOptions {
            enable_db: true,
            ..o
        },
        SsimOptions {
            enable_lcs: true,
            enable_db: true,
            clip_db: true,
            ..o
        },
    ]
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

/// vkssim equals libvmaf on this pair under every option set; returns libvmaf's
/// frames (in [`all_options`] order) for further checks.
fn check(what: &str, r: &LumaFrame, d: &LumaFrame) -> Vec<LibvmafFrame> {
    all_options()
        .into_iter()
        .map(|opts| {
            let lib = libvmaf_float_ssim_one(&r.view(), &d.view(), &opts);
            let v = cpu::score_frame(&r.view(), &d.view(), &opts)
                .unwrap_or_else(|e| panic!("{what} {opts:?}: vkssim: {e}"));
            assert!(
                same(v.float_ssim(), lib.float_ssim),
                "{what} {opts:?}: float_ssim vkssim {:?} libvmaf {:?}",
                v.float_ssim(),
                lib.float_ssim
            );
            if let Some([l, c, s]) = lib.lcs {
                assert!(
                    v.lcs()
                        .is_some_and(|[vl, vc, vs]| same(vl, l) && same(vc, c) && same(vs, s)),
                    "{what} {opts:?}: l/c/s vkssim {:?} libvmaf {:?}",
                    v.lcs(),
                    (l, c, s)
                );
            }
            lib
        })
        .collect()
}

/// Sizes at auto scales 1, 2 and 3, one with odd sides.
const SIZES: [(u32, u32); 3] = [(64, 48), (533, 517), (800, 770)];

#[test]
fn identical_inputs_score_exactly_one() {
    for bits in [8, 10, 12, 16] {
        for (w, h) in SIZES {
            let f = synth::textured(w, h, bits, (w + bits) as u64);
            let lib = check(&format!("identical {w}x{h} {bits}-bit"), &f, &f);
            // libvmaf's own verdict on identical input: exactly 1 and l = c = s = 1.
            assert_eq!(lib[0].float_ssim, 1.0);
            assert_eq!(lib[0].lcs, Some([1.0, 1.0, 1.0]));
            // enable_db without clip_db: -10 log10(0) = +inf in both.
            assert_eq!(lib[1].float_ssim, f64::INFINITY);
            // with clip_db: the finite ceiling.
            assert!(lib[2].float_ssim.is_finite());
        }
    }
}

#[test]
fn flat_planes() {
    for bits in [8, 10, 12, 16] {
        let p = synth::peak(bits);
        for (w, h) in SIZES {
            let what = format!("{w}x{h} {bits}-bit");
            let a = synth::flat(w, h, bits, p / 3);
            let b = synth::flat(w, h, bits, p / 2);
            check(&format!("flat vs flat {what}"), &a, &b);
            check(&format!("flat vs itself {what}"), &a, &a);
            let t = synth::textured(w, h, bits, 7);
            check(&format!("flat vs textured {what}"), &a, &t);
            check(&format!("textured vs flat {what}"), &t, &a);
            let z = synth::flat(w, h, bits, 0);
            check(&format!("zero vs zero {what}"), &z, &z);
        }
    }
}

#[test]
fn black_against_white() {
    for bits in [8, 10, 12, 16] {
        for (w, h) in SIZES {
            let what = format!("{w}x{h} {bits}-bit");
            let black = synth::flat(w, h, bits, 0);
            let white = synth::flat(w, h, bits, synth::peak(bits));
            check(&format!("black vs white {what}"), &black, &white);
            check(&format!("white vs black {what}"), &white, &black);
        }
    }
}

#[test]
fn noise_gradients_and_near_identical() {
    for bits in [8, 10, 12, 16] {
        for (w, h) in SIZES {
            let what = format!("{w}x{h} {bits}-bit");
            let n1 = synth::noise(w, h, bits, 1);
            let n2 = synth::noise(w, h, bits, 2);
            check(&format!("noise vs noise {what}"), &n1, &n2);
            let g = synth::gradient(w, h, bits);
            check(&format!("gradient vs noise {what}"), &g, &n1);
            // one code value off in a few places: scores within an ulp or two of 1
            let near = synth::perturb(&g, 1, 3);
            check(&format!("gradient vs perturbed {what}"), &g, &near);
        }
    }
}

#[test]
fn smallest_planes() {
    // 11 x 11 is the smallest plane with a valid SSIM position.
    for bits in [8, 16] {
        for (w, h) in [(11, 11), (11, 40), (40, 11), (12, 13)] {
            let r = synth::noise(w, h, bits, 5);
            let d = synth::perturb(&r, 9, 6);
            check(&format!("{w}x{h} {bits}-bit"), &r, &d);
        }
    }
}

/// `frame`'s bytes with `pad` junk bytes after every row.
fn padded(frame: &LumaFrame, pad: usize) -> (usize, Vec<u8>) {
    let row = frame.row_bytes();
    let stride = row + pad;
    let mut bytes = Vec::with_capacity(stride * frame.height as usize);
    for chunk in frame.bytes.chunks(row) {
        bytes.extend_from_slice(chunk);
        bytes.extend(std::iter::repeat(0xA5).take(pad));
    }
    (stride, bytes)
}

#[test]
fn strided_views() {
    for bits in [8, 10, 16] {
        let (w, h) = (97, 61);
        let r = synth::textured(w, h, bits, 11);
        let d = synth::perturb(&r, 5 << (bits - 8), 12);
        let (rs, rb) = padded(&r, 7);
        let (ds, db) = padded(&d, 13);
        let rv = vkssim::LumaView::new(w, h, bits, rs, &rb).expect("valid view");
        let dv = vkssim::LumaView::new(w, h, bits, ds, &db).expect("valid view");
        for opts in all_options() {
            let packed = libvmaf_float_ssim_one(&r.view(), &d.view(), &opts);
            let strided = libvmaf_float_ssim_one(&rv, &dv, &opts);
            assert_eq!(packed, strided, "the oracle ignores the padding");
            let v = cpu::score_frame(&rv, &dv, &opts).expect("scores");
            assert!(
                same(v.float_ssim(), packed.float_ssim),
                "{bits}-bit {opts:?}"
            );
            if let Some([l, c, s]) = packed.lcs {
                assert!(
                    v.lcs()
                        .is_some_and(|[vl, vc, vs]| same(vl, l) && same(vc, c) && same(vs, s)),
                    "{bits}-bit {opts:?}"
                );
            }
        }
    }
}
