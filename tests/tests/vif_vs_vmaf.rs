//! libvmaf's `vif` extractor (integer_vif) on vkssim's CPU twin against the
//! `vmaf` CLI that libvmaf-sys builds (libvmaf 2.3.1), run with
//! `--cpumask 255` (its reference C path; 2.3.1's AVX2 VIF differs from it at
//! some widths, such as 853) and every value printed in full: every output of
//! every frame compared bit for bit, by name (the four `integer_vif_scaleN`,
//! with `debug=true` also the combined score and each scale's numerator and
//! denominator; `_egl_N` names when `vif_enhn_gain_limit` is set), at 8, 10,
//! 12 and 16 bits, even and odd sizes down to the smallest VIF scores.

use std::path::Path;

use vkssim::testing::vif::{check_size, parse_enhn_gain_limit, vif_scores, VifOptions, MIN_SIZE};
use vkssim::{Error, LumaFrame};
use vkssim_tests::synth::{self, peak};
use vkssim_tests::vmaf_cli::run_vmaf;

/// A pair of luma frames.
type Pair = (LumaFrame, LumaFrame);

/// Writes the frames' luma with flat mid-grey 4:2:0 chroma as a raw file.
fn write_yuv(path: &Path, frames: &[&LumaFrame]) {
    let mut out = Vec::new();
    for f in frames {
        out.extend_from_slice(&f.bytes);
        let chroma = synth::flat(
            f.width.div_ceil(2),
            f.height.div_ceil(2),
            f.bit_depth,
            1 << (f.bit_depth - 1),
        );
        for _ in 0..2 {
            out.extend_from_slice(&chroma.bytes);
        }
    }
    std::fs::write(path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Scores `pairs` with vmaf's `vif` extractor (`--feature vif` plus `:`-joined
/// `vmaf_options`) and with the twin (`opts`), and asserts every frame's
/// outputs are the same names with the same bits.
fn assert_matches_vmaf(what: &str, pairs: &[Pair], vmaf_options: &str, opts: &VifOptions) {
    let (w, h, depth) = (pairs[0].0.width, pairs[0].0.height, pairs[0].0.bit_depth);
    let dir = tempfile::tempdir().expect("tempdir");
    let (r, d) = (dir.path().join("ref.yuv"), dir.path().join("dis.yuv"));
    write_yuv(&r, &pairs.iter().map(|p| &p.0).collect::<Vec<_>>());
    write_yuv(&d, &pairs.iter().map(|p| &p.1).collect::<Vec<_>>());
    let feature = if vmaf_options.is_empty() {
        "vif".to_string()
    } else {
        format!("vif={vmaf_options}")
    };
    let args: Vec<String> = [
        "-r",
        r.to_str().unwrap(),
        "-d",
        d.to_str().unwrap(),
        "-w",
        &w.to_string(),
        "-h",
        &h.to_string(),
        "-p",
        "420",
        "-b",
        &depth.to_string(),
        "--cpumask",
        "255",
        "--feature",
        &feature,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let xml = run_vmaf(&args, true).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(xml.frames.len(), pairs.len(), "{what}: frames");
    for (i, ((reference, distorted), vmaf)) in pairs.iter().zip(&xml.frames).enumerate() {
        let ours = vif_scores(&reference.view(), &distorted.view(), opts)
            .unwrap_or_else(|e| panic!("{what} frame {i}: {e}"))
            .outputs(opts);
        let names = |o: &[(String, f64)]| o.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&ours), names(vmaf), "{what} frame {i}: output names");
        for ((name, a), (_, b)) in ours.iter().zip(vmaf) {
            assert!(
                a.to_bits() == b.to_bits(),
                "{what} {w}x{h} {depth}-bit frame {i}: {name}: vkssim {a:?}, vmaf {b:?}"
            );
        }
    }
    eprintln!(
        "{what} {w}x{h} {depth}-bit: {} frames identical",
        pairs.len()
    );
}

/// `reference` with its contrast about mid-grey multiplied by `gain`
/// (clamped): a distortion whose VIF gain exceeds 1.
fn enhanced(reference: &LumaFrame, gain: f64) -> LumaFrame {
    let view = reference.view();
    let (mid, max) = (
        f64::from(1u32 << (reference.bit_depth - 1)),
        f64::from(peak(reference.bit_depth)),
    );
    synth::from_fn(
        reference.width,
        reference.height,
        reference.bit_depth,
        |x, y| {
            let v = f64::from(view.sample(x as usize, y as usize));
            (mid + (v - mid) * gain).round().clamp(0.0, max) as u32
        },
    )
}

/// Frames of varied content at one size: textured with mild and strong
/// noise, uniform noise against a perturbed copy, a contrast-enhanced copy,
/// identical frames, a flat reference, a gradient.
fn varied(w: u32, h: u32, depth: u32, seed: u64) -> Vec<Pair> {
    let amp = |a: u32| a << (depth - 8);
    let tex = synth::textured(w, h, depth, seed);
    let noise = synth::noise(w, h, depth, seed + 1);
    vec![
        (tex.clone(), synth::perturb(&tex, amp(3), seed + 2)),
        (tex.clone(), synth::perturb(&tex, amp(40), seed + 3)),
        (noise.clone(), synth::perturb(&noise, amp(20), seed + 4)),
        (tex.clone(), enhanced(&tex, 2.5)),
        (noise.clone(), noise.clone()),
        (
            synth::flat(w, h, depth, amp(100)),
            synth::perturb(&tex, amp(5), seed + 5),
        ),
        (
            synth::gradient(w, h, depth),
            synth::perturb(&synth::gradient(w, h, depth), amp(2), seed + 6),
        ),
    ]
}

/// The vmaf CLI's run on `pairs` with `vif_enhn_gain_limit=text`: whether it
/// loads the extractor.
fn vmaf_takes_gain_limit(pairs: &[Pair], text: &str) -> bool {
    let dir = tempfile::tempdir().expect("tempdir");
    let (r, d) = (dir.path().join("ref.yuv"), dir.path().join("dis.yuv"));
    write_yuv(&r, &pairs.iter().map(|p| &p.0).collect::<Vec<_>>());
    write_yuv(&d, &pairs.iter().map(|p| &p.1).collect::<Vec<_>>());
    let (w, h) = (pairs[0].0.width, pairs[0].0.height);
    let args: Vec<String> = [
        "-r",
        r.to_str().unwrap(),
        "-d",
        d.to_str().unwrap(),
        "-w",
        &w.to_string(),
        "-h",
        &h.to_string(),
        "-p",
        "420",
        "-b",
        "8",
        "--cpumask",
        "255",
        "--feature",
        &format!("vif=vif_enhn_gain_limit={text}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run_vmaf(&args, false).is_ok()
}

fn default_opts() -> VifOptions {
    VifOptions::default()
}

#[test]
fn eight_bit_even_and_odd_sizes_match_vmaf() {
    for (w, h) in [(64, 48), (67, 41), (853, 20), (33, 17), (176, 144)] {
        let pairs = varied(w, h, 8, u64::from(w * 1000 + h));
        assert_matches_vmaf("8-bit", &pairs, "", &default_opts());
    }
}

#[test]
fn deeper_samples_match_vmaf() {
    for depth in [10, 12] {
        for (w, h) in [(64, 48), (71, 39), (853, 18)] {
            let pairs = varied(w, h, depth, u64::from(w * 1000 + h + depth));
            assert_matches_vmaf("deep", &pairs, "", &default_opts());
        }
    }
}

#[test]
fn debug_outputs_match_vmaf() {
    let opts = VifOptions {
        debug: true,
        ..VifOptions::default()
    };
    for depth in [8, 10] {
        let pairs = varied(45, 37, depth, 7);
        assert_matches_vmaf("debug=true", &pairs, "debug=true", &opts);
    }
}

#[test]
fn gain_limits_match_vmaf() {
    // 1.0 is what vmaf_v0.6.1neg sets (outputs named `..._egl_1`).
    for (text, debug) in [("1.0", true), ("1", false), ("1.5", false), ("2.25", true)] {
        let opts = VifOptions {
            enhn_gain_limit: parse_enhn_gain_limit(text).unwrap(),
            debug,
        };
        for depth in [8, 12] {
            let pairs = varied(58, 35, depth, 11);
            let vmaf_options = format!("vif_enhn_gain_limit={text}:debug={debug}");
            assert_matches_vmaf(&vmaf_options, &pairs, &vmaf_options, &opts);
        }
    }
}

#[test]
fn sixteen_bit_matches_vmaf_up_to_the_largest_samples() {
    let (w, h) = (48, 40);
    let mut pairs = varied(w, h, 16, 21);
    // Samples at and above 42456 (where libvmaf's 16-bit ADM overflows).
    let bright = synth::from_fn(w, h, 16, |x, y| 42456 + (x * 377 + y * 911) % 23080);
    pairs.push((bright.clone(), synth::perturb(&bright, 3000, 22)));
    pairs.push((
        synth::flat(w, h, 16, 65535),
        synth::perturb(&bright, 9000, 23),
    ));
    pairs.push((synth::noise(w, h, 16, 24), synth::flat(w, h, 16, 65535)));
    let opts = VifOptions {
        debug: true,
        ..VifOptions::default()
    };
    assert_matches_vmaf("16-bit", &pairs, "debug=true", &opts);
}

#[test]
fn the_smallest_sizes_match_vmaf() {
    for depth in [8, 10] {
        for (w, h) in [
            (MIN_SIZE, MIN_SIZE),
            (MIN_SIZE + 1, MIN_SIZE),
            (MIN_SIZE, 31),
        ] {
            let pairs = varied(w, h, depth, 31);
            assert_matches_vmaf("smallest", &pairs, "", &default_opts());
        }
    }
}

#[test]
fn too_small_frames_are_refused_before_any_work() {
    for (w, h) in [(MIN_SIZE - 1, 64), (64, MIN_SIZE - 1), (1, 1), (8, 8)] {
        let e = check_size(w, h, 8).unwrap_err();
        assert!(matches!(e, Error::FrameTooSmall { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("{w}x{h}")) && msg.contains("16x16") && msg.contains("vif"),
            "{msg}"
        );
        let f = synth::flat(w, h, 8, 1);
        let e = vif_scores(&f.view(), &f.view(), &VifOptions::default()).unwrap_err();
        assert!(matches!(e, Error::FrameTooSmall { .. }), "{e}");
    }
    assert!(check_size(MIN_SIZE, MIN_SIZE, 8).is_ok());
    assert!(matches!(check_size(64, 64, 9), Err(Error::Unsupported(_))));
    let f = synth::flat(32, 32, 10, 1);
    let short = vkssim::LumaView {
        bytes: &f.bytes[..100],
        ..f.view()
    };
    let e = vif_scores(&short, &f.view(), &VifOptions::default()).unwrap_err();
    assert!(matches!(e, Error::BufferSize { .. }), "{e}");
    let other = synth::flat(32, 30, 10, 1);
    let e = vif_scores(&f.view(), &other.view(), &VifOptions::default()).unwrap_err();
    assert!(matches!(e, Error::GeometryMismatch(_)), "{e}");
    let bad = VifOptions {
        enhn_gain_limit: 0.5,
        debug: false,
    };
    let f = synth::flat(32, 32, 8, 1);
    assert!(matches!(
        vif_scores(&f.view(), &f.view(), &bad),
        Err(Error::InvalidOption(_))
    ));
}

#[test]
fn gain_limit_text_reads_as_vmaf_reads_it() {
    // The CLI rounds the number to binary32 and then to six significant
    // digits before checking 1..=100 and computing with it. (It also takes
    // trailing characters, C hexadecimal floats and `nan`, which vkssim
    // refuses; those are left out here.)
    let tex = synth::textured(40, 33, 8, 41);
    let pairs = vec![
        (tex.clone(), enhanced(&tex, 2.5)),
        (tex.clone(), enhanced(&tex, 1.3)),
    ];
    for text in [
        "1",
        "1.0000001",
        "1.000001",
        "1.00001",
        "0.9999995",
        "0.9999994",
        "0.9999994999999",
        "0.999999",
        "0.5",
        "1.2345678",
        "100.00049",
        "100.0004999",
        "100.001",
        "101",
        "50.123456789",
        "inf",
        "-1",
        "",
        "abc",
    ] {
        let ours = parse_enhn_gain_limit(text);
        assert_eq!(
            ours.is_ok(),
            vmaf_takes_gain_limit(&pairs, text),
            "{text:?}: {ours:?}"
        );
        if let Ok(egl) = ours {
            let opts = VifOptions {
                enhn_gain_limit: egl,
                debug: true,
            };
            let vmaf_options = format!("vif_enhn_gain_limit={text}:debug=true");
            assert_matches_vmaf(&vmaf_options, &pairs, &vmaf_options, &opts);
        }
    }
}
