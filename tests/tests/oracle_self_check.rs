//! Checks the harness itself: the forced-scale oracle ([`libvmaf_at_scale`], libvmaf's
//! stages called one by one) equals libvmaf's public API at the automatic scale,
//! on every corpus frame and on synthetic planes. This is what makes the stage
//! oracle a trustworthy reference for vkssim's explicit `scale=N`.

use vkssim::SsimOptions;
use vkssim_tests::{auto_scale, corpus, libvmaf_at_scale, libvmaf_float_ssim, synth};

fn lcs() -> SsimOptions {
    SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    }
}

#[test]
fn stages_equal_public_api_on_corpus() {
    for clip in corpus::clips() {
        let pairs = clip.read_pairs();
        let api = libvmaf_float_ssim(pairs.iter().map(|(r, d)| (r.view(), d.view())), &lcs());
        let scale = auto_scale(clip.width, clip.height);
        for (i, ((r, d), a)) in pairs.iter().zip(&api).enumerate() {
            let st = libvmaf_at_scale(&r.view(), &d.view(), scale)
                .unwrap_or_else(|| panic!("{} frame {i}: too small", clip.name));
            let lcs = a.lcs.expect("enable_lcs reports l, c, s");
            let got = [st.ssim, st.l, st.c, st.s];
            let want = [a.float_ssim, lcs[0], lcs[1], lcs[2]];
            assert_eq!(got, want, "{} frame {i} (scale {scale})", clip.name);
            eprintln!(
                "{} frame {i} scale {scale}: ssim {:.17}",
                clip.name, a.float_ssim
            );
        }
    }
}

#[test]
fn stages_equal_public_api_on_synthetic_planes() {
    for (w, h, bits, seed) in [
        (11, 11, 8, 1),
        (37, 23, 10, 2),
        (64, 90, 12, 3),
        (400, 390, 16, 4),
        (700, 650, 8, 5),
    ] {
        let r = synth::textured(w, h, bits, seed);
        let d = synth::perturb(&r, 3 << (bits - 8), seed + 100);
        let a = libvmaf_float_ssim([(r.view(), d.view())], &lcs())[0];
        let st = libvmaf_at_scale(&r.view(), &d.view(), auto_scale(w, h)).expect("big enough");
        let lcs = a.lcs.expect("lcs");
        assert_eq!(
            [st.ssim, st.l, st.c, st.s],
            [a.float_ssim, lcs[0], lcs[1], lcs[2]],
            "{w}x{h} {bits}-bit"
        );
    }
}

#[test]
fn identical_planes_score_exactly_one_in_libvmaf() {
    let r = synth::textured(300, 200, 10, 9);
    let a = libvmaf_float_ssim([(r.view(), r.view())], &lcs())[0];
    assert_eq!(a.float_ssim, 1.0);
    assert_eq!(a.lcs, Some([1.0, 1.0, 1.0]));
}
