//! Property tests: vkssim's CPU twin equals libvmaf, bit for bit, on random small
//! planes (11..80 x 11..80, every bit depth, random content and options), and at
//! random explicit scales equals libvmaf's stages run at that scale.

use proptest::prelude::*;
use vkssim::{testing::cpu, LumaFrame, SsimOptions};
use vkssim_tests::{decimated_size, libvmaf_at_scale, libvmaf_float_ssim_one, synth};

/// How the distorted plane relates to the reference.
#[derive(Debug, Clone, Copy)]
enum Distortion {
    /// Independent uniform noise.
    Independent,
    /// The reference moved by up to this many code values.
    Perturbed(u32),
    /// The reference itself.
    Identical,
    /// A flat plane.
    Flat(u32),
}

fn distortion() -> impl Strategy<Value = Distortion> {
    prop_oneof![
        Just(Distortion::Independent),
        (1u32..64).prop_map(Distortion::Perturbed),
        Just(Distortion::Identical),
        any::<u32>().prop_map(Distortion::Flat),
    ]
}

/// A random pair: reference (noise or texture) and its distortion.
fn pair(
    w: u32,
    h: u32,
    bits: u32,
    seed: u64,
    textured: bool,
    how: Distortion,
) -> (LumaFrame, LumaFrame) {
    let r = if textured {
        synth::textured(w, h, bits, seed)
    } else {
        synth::noise(w, h, bits, seed)
    };
    let d = match how {
        Distortion::Independent => synth::noise(w, h, bits, seed ^ 0xDEAD_BEEF),
        Distortion::Perturbed(a) => synth::perturb(&r, a << (bits - 8), seed + 1),
        Distortion::Identical => r.clone(),
        Distortion::Flat(v) => synth::flat(w, h, bits, v % (synth::peak(bits) + 1)),
    };
    (r, d)
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn cpu_equals_libvmaf_on_random_planes(
        w in 11u32..80,
        h in 11u32..80,
        bits in prop::sample::select(vec![8u32, 10, 12, 16]),
        seed in any::<u64>(),
        textured in any::<bool>(),
        how in distortion(),
        enable_lcs in any::<bool>(),
        enable_db in any::<bool>(),
        clip_db in any::<bool>(),
    ) {
        let (r, d) = pair(w, h, bits, seed, textured, how);
        let opts = SsimOptions { scale: 0, enable_lcs, enable_db, clip_db };
        let lib = libvmaf_float_ssim_one(&r.view(), &d.view(), &opts);
        let v = cpu::score_frame(&r.view(), &d.view(), &opts)
            .map_err(|e| TestCaseError::fail(format!("vkssim: {e}")))?;
        prop_assert!(same(v.float_ssim(), lib.float_ssim),
            "float_ssim: vkssim {:?} libvmaf {:?}", v.float_ssim(), lib.float_ssim);
        if let Some([l, c, s]) = lib.lcs {
            prop_assert!(v.lcs().is_some_and(|[vl, vc, vs]| same(vl, l) && same(vc, c) && same(vs, s)),
                "l/c/s: vkssim {:?} libvmaf {:?}", v.lcs(), (l, c, s));
        }
    }

    #[test]
    fn cpu_equals_libvmaf_stages_at_explicit_scales(
        w in 11u32..80,
        h in 11u32..80,
        scale in 1u32..8,
        bits in prop::sample::select(vec![8u32, 10, 12, 16]),
        seed in any::<u64>(),
        how in distortion(),
    ) {
        let (sw, sh) = decimated_size(w, h, scale);
        prop_assume!(sw >= 11 && sh >= 11);
        let (r, d) = pair(w, h, bits, seed, true, how);
        let want = libvmaf_at_scale(&r.view(), &d.view(), scale).expect("size checked");
        let opts = SsimOptions { scale, enable_lcs: true, ..SsimOptions::default() };
        let v = cpu::score_frame(&r.view(), &d.view(), &opts)
            .map_err(|e| TestCaseError::fail(format!("vkssim: {e}")))?;
        prop_assert!(
            same(v.ssim(), want.ssim) && v.lcs().is_some_and(|[l, c, s]| same(l, want.l) && same(c, want.c) && same(s, want.s)),
            "vkssim {:?} libvmaf stages {:?}", (v.ssim(), v.lcs()), want
        );
    }
}
