//! vkssim's CPU twin against libvmaf, bit for bit, on every frame of the ffmpeg
//! corpus (`tools/gen-clips.sh`) under every option set, and at explicit scales
//! against libvmaf's own stages run at that scale.
//!
//! vkssim reads the clips with its own readers (`vkssim::io::open_input`); the
//! oracle is fed by the harness's independent reader, and the two readers' luma
//! bytes are checked equal first.

use std::path::Path;

use vkssim::io::{open_input, Chroma, RawFormat};
use vkssim::{testing::cpu, LumaFrame, SsimOptions};
use vkssim_tests::corpus::{self, Clip};
use vkssim_tests::parity::{assert_frame, assert_same, check_scorer, libvmaf_frames, option_sets};
use vkssim_tests::{auto_scale, libvmaf_at_scale, libvmaf_decimate, libvmaf_float_ssim};

/// Every frame of `path` through vkssim's reader.
fn read_with_vkssim(clip: &Clip, path: &Path) -> Vec<LumaFrame> {
    let chroma = match clip.chroma {
        420 => Chroma::C420,
        422 => Chroma::C422,
        400 => Chroma::Mono,
        _ => Chroma::C444,
    };
    let raw = RawFormat::new(clip.width, clip.height, chroma, clip.bit_depth);
    let mut reader = open_input(path, Some(raw))
        .unwrap_or_else(|e| panic!("{}: vkssim cannot open it: {e}", clip.name));
    let mut frames = Vec::new();
    while let Some(f) = reader
        .read_frame()
        .unwrap_or_else(|e| panic!("{}: vkssim reader: {e}", clip.name))
    {
        frames.push(f);
    }
    frames
}

/// Reads a clip with both readers, checks they agree, and returns the pairs.
fn pairs(clip: &Clip) -> Vec<(LumaFrame, LumaFrame)> {
    let ours = clip.read_pairs();
    let r = read_with_vkssim(clip, &clip.reference);
    let d = read_with_vkssim(clip, &clip.distorted);
    assert_eq!(r.len(), ours.len(), "{}: reference frame count", clip.name);
    assert_eq!(d.len(), ours.len(), "{}: distorted frame count", clip.name);
    for (i, ((a, b), (x, y))) in r.iter().zip(&d).zip(&ours).enumerate() {
        assert!(
            a == x,
            "{} frame {i}: vkssim's reference luma differs",
            clip.name
        );
        assert!(
            b == y,
            "{} frame {i}: vkssim's distorted luma differs",
            clip.name
        );
    }
    ours
}

/// Every frame of clip `name` under every option set: frame by frame through
/// `cpu::score_frame`, and under the last option set also through
/// [`cpu::CpuScorer`] (two worker threads, results in submission order).
fn check_clip(name: &str) {
    let clip = corpus::clip(name);
    let pairs = pairs(&clip);
    let sets = option_sets();
    for (k, (opt_name, opts)) in sets.iter().enumerate() {
        let lib = libvmaf_frames(&pairs, opts);
        for (i, ((r, d), l)) in pairs.iter().zip(&lib).enumerate() {
            let what = format!("{name} frame {i} [{opt_name}]");
            let v = cpu::score_frame(&r.view(), &d.view(), opts)
                .unwrap_or_else(|e| panic!("{what}: vkssim: {e}"));
            assert_frame(&what, &v, l, opts);
        }
        if k + 1 == sets.len() {
            let mut scorer =
                vkssim::testing::CpuScorer::float_ssim(*opts, 2).expect("CPU scorer starts");
            check_scorer(
                "CpuScorer",
                &clip,
                opt_name,
                opts,
                &pairs,
                &lib,
                &mut scorer,
            );
        }
        eprintln!(
            "{name} [{opt_name}]: {} frames identical; float_ssim {:?}",
            pairs.len(),
            lib.iter().map(|f| f.float_ssim).collect::<Vec<_>>()
        );
    }
}

vkssim_tests::corpus_clip_tests!(check_clip);

#[test]
fn every_corpus_clip_has_a_parity_test_and_auto_scales_are_covered() {
    let clips = corpus::clips();
    let mut scales: Vec<u32> = Vec::new();
    for c in &clips {
        assert!(
            CLIPS_WITH_TESTS.contains(&c.name.as_str()),
            "{} has no test here",
            c.name
        );
        scales.push(auto_scale(c.width, c.height));
    }
    for s in 1..=8 {
        assert!(scales.contains(&s), "no corpus clip at auto scale {s}");
    }
    assert!(
        scales.iter().any(|&s| s > 10),
        "no corpus clip above scale 10"
    );
    assert_eq!(clips.len(), CLIPS_WITH_TESTS.len());
}

/// vkssim at explicit `scale` against libvmaf's stages at that scale, on the
/// first frame of `name`; decimated planes compared value for value too.
fn check_explicit_scales(name: &str, scales: &[u32]) {
    let clip = corpus::clip(name);
    let (r, d) = clip.read_pairs().swap_remove(0);
    for &scale in scales {
        let where_ = format!("{name} frame 0 scale={scale}");
        let want = libvmaf_at_scale(&r.view(), &d.view(), scale)
            .unwrap_or_else(|| panic!("{where_}: decimates below 11x11"));
        let opts = SsimOptions {
            scale,
            enable_lcs: true,
            ..SsimOptions::default()
        };
        let v = cpu::score_frame(&r.view(), &d.view(), &opts)
            .unwrap_or_else(|e| panic!("{where_}: vkssim: {e}"));
        assert_same(&format!("{where_} ssim"), v.ssim(), want.ssim);
        assert_same(&format!("{where_} l"), v.l().unwrap(), want.l);
        assert_same(&format!("{where_} c"), v.c().unwrap(), want.c);
        assert_same(&format!("{where_} s"), v.s().unwrap(), want.s);
        if scale > 1 {
            let (w, h, lib) = libvmaf_decimate(&r.view(), scale);
            let ours = cpu::decimate::decimate_luma(&r.view(), scale)
                .unwrap_or_else(|e| panic!("{where_}: vkssim decimation: {e}"));
            assert_eq!(
                (ours.width, ours.height),
                (w, h),
                "{where_}: decimated size"
            );
            let first = ours
                .data
                .iter()
                .zip(&lib)
                .position(|(a, b)| a.to_bits() != b.to_bits());
            assert!(
                first.is_none(),
                "{where_}: decimated plane differs first at index {:?}",
                first
            );
        }
        eprintln!(
            "{where_}: {}x{} after decimation, ssim {:?} identical",
            want.scaled.0, want.scaled.1, want.ssim
        );
    }
}

#[test]
fn explicit_scales_1080p_8bit() {
    check_explicit_scales("s4_1920x1080_420p8", &[1, 2, 3, 5, 6, 8]);
}

#[test]
fn explicit_scales_10_and_12_bit() {
    check_explicit_scales("s2_704x513_422p10", &[1, 3, 7]);
    check_explicit_scales("s3_1024x768_444p12", &[1, 4, 9]);
}

#[test]
fn explicit_scales_16bit_odd_height() {
    check_explicit_scales("s6_1536x1537_444p16", &[1, 4]);
}

#[test]
fn explicit_large_scales() {
    check_explicit_scales("s8_2100x2048_420p12", &[10, 13, 16]);
    check_explicit_scales("s11_2800x2761_420p8", &[2, 12, 128]);
}

#[test]
fn explicit_scale_equal_to_auto_matches_the_public_api() {
    // scale=N where N is the frame's own auto scale is libvmaf's default run.
    let clip = corpus::clip("s5_1283x1280_420p10");
    let (r, d) = clip.read_pairs().swap_remove(0);
    let n = auto_scale(clip.width, clip.height);
    let lib = libvmaf_float_ssim(
        [(r.view(), d.view())],
        &SsimOptions {
            enable_lcs: true,
            ..SsimOptions::default()
        },
    )[0];
    for scale in [0, n] {
        let opts = SsimOptions {
            scale,
            enable_lcs: true,
            ..SsimOptions::default()
        };
        let v = cpu::score_frame(&r.view(), &d.view(), &opts).expect("scores");
        assert_frame(&format!("scale={scale}"), &v, &lib, &opts);
    }
}
