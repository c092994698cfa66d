//! `psnr` and `float_ms_ssim` (and `float_ssim` beside them): the CPU twin
//! against the `vmaf` command line that libvmaf-sys builds (libvmaf 2.3.1),
//! run on the generated corpus of `vkssim_tests::metric_clips` with every
//! value printed in full (`vkssim_tests::vmaf_cli`). Every per-frame, pooled
//! and aggregate value must be the same fp64 value (NaN matches NaN), under
//! the same name, in the same order.
//!
//! The one place 2.3.1 is wrong, 16-bit `psnr` with errors above 46340 (its
//! int32 square overflows), is checked in `psnr_16_bit_overflow` against an
//! independent 128-bit sum, as libvmaf 3.x computes it.

use vkssim::io::Chroma;
use vkssim::metric::config::{parse_list, MetricConfig};
use vkssim::metric::psnr::{self, Apsnr};
use vkssim::metric::MetricOutputs;
use vkssim::testing::cpu::{ms_ssim, psnr as cpu_psnr, score_frame};
use vkssim::testing::pool;
use vkssim_tests::metric_clips::{views, Content, MetricClip};
use vkssim_tests::vmaf_cli::{run_vmaf, VmafXml};

/// What the CPU twin reports for a run.
#[derive(Debug, Default)]
struct Ours {
    frames: Vec<MetricOutputs>,
    aggregate: MetricOutputs,
}

/// Scores `clip` with `configs` on the CPU twin, as the vmaf CLI would.
fn ours(clip: &MetricClip, configs: &[MetricConfig]) -> vkssim::Result<Ours> {
    for c in configs {
        c.check_frame(clip.width, clip.height, clip.bit_depth, clip.chroma)?;
    }
    let refs = clip.read(&clip.reference);
    let dists = clip.read(&clip.distorted);
    let mut out = Ours::default();
    let mut apsnr = Apsnr::default();
    for (r, d) in refs.iter().zip(&dists) {
        let (r, d) = (views(r), views(d));
        let mut frame = MetricOutputs::new();
        for c in configs {
            match c {
                MetricConfig::FloatSsim(o) => {
                    let s = score_frame(&r[0], &d[0], o)?;
                    frame.push("float_ssim", s.float_ssim());
                    if let Some([l, cs, st]) = s.lcs() {
                        frame.push("float_ssim_l", l);
                        frame.push("float_ssim_c", cs);
                        frame.push("float_ssim_s", st);
                    }
                }
                MetricConfig::Psnr(o) => {
                    let f = cpu_psnr::score_psnr(&r, &d, clip.chroma, o)?;
                    let g = psnr::check_geometry(
                        clip.width,
                        clip.height,
                        clip.bit_depth,
                        clip.chroma,
                        o,
                    )?;
                    apsnr.add(&f.sse, &g);
                    frame.extend(&f.outputs);
                }
                MetricConfig::FloatMsSsim(o) => {
                    frame.extend(&ms_ssim::score_ms_ssim(&r[0], &d[0], o)?)
                }
                other => panic!("no CPU twin wired here for {other}"),
            }
        }
        out.frames.push(frame);
    }
    for c in configs {
        if let MetricConfig::Psnr(o) = c {
            let g = psnr::check_geometry(clip.width, clip.height, clip.bit_depth, clip.chroma, o)?;
            out.aggregate.extend(&apsnr.outputs(&g, o));
        }
    }
    Ok(out)
}

/// fp64 equality of reported values; NaN equals NaN (whatever its sign).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Checks every value of `vmaf` against `ours`; returns the number of
/// (per-frame, pooled, aggregate) values compared.
fn compare(what: &str, vmaf: &VmafXml, ours: &Ours) -> [usize; 3] {
    assert_eq!(vmaf.frames.len(), ours.frames.len(), "{what}: frame count");
    let mut per_frame = 0;
    for (i, (v, o)) in vmaf.frames.iter().zip(&ours.frames).enumerate() {
        let vn: Vec<&str> = v.iter().map(|(n, _)| n.as_str()).collect();
        let on: Vec<&str> = o.names().collect();
        assert_eq!(vn, on, "{what}: frame {i}: names or order differ");
        for ((name, x), (_, y)) in v.iter().zip(o.iter()) {
            assert!(
                same(*x, y),
                "{what}: frame {i}: {name}: vmaf {x:?} ({:#x}), vkssim {y:?} ({:#x})",
                x.to_bits(),
                y.to_bits()
            );
            per_frame += 1;
        }
    }
    // Pooled: one entry per per-frame name, in order, through vkssim's pool.
    let names: Vec<&str> = ours.frames[0].names().collect();
    assert_eq!(
        vmaf.pooled
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        names,
        "{what}: pooled names"
    );
    let mut pooled = 0;
    for (name, methods) in &vmaf.pooled {
        let values: Vec<f64> = ours
            .frames
            .iter()
            .map(|f| f.get(name).expect("name present"))
            .collect();
        let p = pool(&values).expect("frames");
        let named = p.named();
        assert_eq!(methods.len(), named.len(), "{what}: {name}: pool methods");
        for ((m, x), (pm, y)) in methods.iter().zip(named) {
            assert_eq!(m, pm, "{what}: {name}: pool method order");
            assert!(
                same(*x, y),
                "{what}: pooled {name} {m}: vmaf {x:?}, vkssim {y:?}"
            );
            pooled += 1;
        }
    }
    let an: Vec<&str> = vmaf.aggregate.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        an,
        ours.aggregate.names().collect::<Vec<_>>(),
        "{what}: aggregate names"
    );
    for ((name, x), (_, y)) in vmaf.aggregate.iter().zip(ours.aggregate.iter()) {
        assert!(
            same(*x, y),
            "{what}: aggregate {name}: vmaf {x:?}, vkssim {y:?}"
        );
    }
    [per_frame, pooled, vmaf.aggregate.len()]
}

/// Runs both on `clip` with the `--feature` values `features`, compares, and
/// says how many values were identical.
fn check(clip: &MetricClip, features: &[&str]) -> usize {
    let configs = parse_list(features).expect("valid features");
    let mut args = clip.vmaf_args();
    for f in features {
        args.extend(["--feature".to_string(), f.to_string()]);
    }
    let what = format!("{} {features:?}", clip.name);
    let vmaf = run_vmaf(&args, true).unwrap_or_else(|e| panic!("{what}: {e}"));
    let ours = ours(clip, &configs).unwrap_or_else(|e| panic!("{what}: vkssim: {e}"));
    let [f, p, a] = compare(&what, &vmaf, &ours);
    eprintln!(
        "{what}: {} frames, {f} per-frame, {p} pooled, {a} aggregate values identical",
        ours.frames.len()
    );
    f + p + a
}

/// Every option of psnr, one at a time and together.
const PSNR_OPTION_SETS: [&str; 8] = [
    "psnr",
    "psnr=enable_mse=true",
    "psnr=enable_apsnr=true",
    "psnr=enable_chroma=false:enable_mse=true:enable_apsnr=true",
    "psnr=reduced_hbd_peak=true:enable_apsnr=true",
    "psnr=min_sse=0.5:enable_mse=true",
    "psnr=min_sse=1000:enable_mse=true",
    "psnr=enable_mse=true:enable_apsnr=true:reduced_hbd_peak=true:min_sse=0.5",
];

#[test]
fn psnr_every_option_8_bit_420_odd_size() {
    let clip = MetricClip::new(181, 97, 8, Chroma::C420, 3, Content::Noisy);
    let n: usize = PSNR_OPTION_SETS.iter().map(|f| check(&clip, &[f])).sum();
    assert!(n > 0);
}

#[test]
fn psnr_every_option_high_bit_depths() {
    for clip in [
        MetricClip::new(123, 77, 10, Chroma::C422, 2, Content::Noisy),
        MetricClip::new(64, 51, 12, Chroma::C444, 2, Content::Noisy),
        MetricClip::new(97, 61, 16, Chroma::C420, 2, Content::Noisy),
        MetricClip::new(33, 17, 10, Chroma::C420, 2, Content::Noisy),
    ] {
        for f in PSNR_OPTION_SETS {
            check(&clip, &[f]);
        }
    }
}

#[test]
fn psnr_identical_inputs_reach_the_ceiling() {
    for (depth, chroma) in [(8, Chroma::C420), (10, Chroma::C444), (16, Chroma::C422)] {
        let clip = MetricClip::new(45, 31, depth, chroma, 2, Content::Identical);
        for f in PSNR_OPTION_SETS {
            check(&clip, &[f]);
        }
        let ours = ours(&clip, &parse_list(&["psnr"]).unwrap()).unwrap();
        let max = (6 * depth + 12) as f64;
        assert!(ours.frames.iter().all(|f| f.iter().all(|(_, v)| v == max)));
    }
}

#[test]
fn psnr_unrelated_content_below_16_bits() {
    for depth in [8, 10, 12] {
        let clip = MetricClip::new(40, 30, depth, Chroma::C420, 2, Content::Unrelated);
        check(&clip, &["psnr=enable_mse=true:enable_apsnr=true"]);
    }
}

/// 16-bit errors above 46340: libvmaf 2.3.1 squares them in int32, which
/// wraps; libvmaf 3.x squares `|e|` in uint32 (exact). The expected sums
/// here are an independent 128-bit computation (`i128` differences, squared
/// and summed in `u128`), which equals 3.x's exact integer sum; the expected
/// values are the metric's finish on those sums. That the finish itself is
/// libvmaf's is checked on the same frames: applied to 2.3.1's wrapped sums
/// (each square cut to int32, then sign-extended into the uint64 sum, as its
/// C does on x86-64), it gives exactly the values the 2.3.1 CLI prints.
#[test]
fn psnr_16_bit_overflow() {
    let clip = MetricClip::new(64, 48, 16, Chroma::C420, 2, Content::Unrelated);
    let spec = "psnr=enable_mse=true:enable_apsnr=true";
    let configs = parse_list(&[spec]).unwrap();
    let MetricConfig::Psnr(opts) = configs[0] else {
        unreachable!()
    };
    let g = psnr::check_geometry(64, 48, 16, Chroma::C420, &opts).unwrap();
    let refs = clip.read(&clip.reference);
    let dists = clip.read(&clip.distorted);
    let mut exact = Vec::new();
    let mut wrapped = Vec::new();
    for (r, d) in refs.iter().zip(&dists) {
        let (mut e, mut w) = ([0u64; 3], [0u64; 3]);
        for p in 0..3 {
            let (rv, dv) = (r[p].view(), d[p].view());
            let mut big = 0u128;
            let mut wrap = 0u64;
            for y in 0..rv.height as usize {
                for x in 0..rv.width as usize {
                    let diff = rv.sample(x, y) as i128 - dv.sample(x, y) as i128;
                    big += (diff * diff) as u128;
                    let e32 = diff as i32;
                    wrap = wrap.wrapping_add(e32.wrapping_mul(e32) as i64 as u64);
                }
            }
            e[p] = u64::try_from(big).expect("fits");
            w[p] = wrap;
        }
        assert_ne!(e, w, "the clip must overflow 2.3.1's int32 squares");
        exact.push(e);
        wrapped.push(w);
    }
    // vkssim's sums are the exact ones, and its values the finish on them.
    let ours = ours(&clip, &configs).unwrap();
    let mut exact_apsnr = Apsnr::default();
    for (i, e) in exact.iter().enumerate() {
        let f =
            cpu_psnr::score_psnr(&views(&refs[i]), &views(&dists[i]), clip.chroma, &opts).unwrap();
        assert_eq!(
            &f.sse, e,
            "frame {i}: vkssim's sums against the 128-bit sums"
        );
        assert_eq!(ours.frames[i], psnr::frame_outputs(e, &g, &opts));
        exact_apsnr.add(e, &g);
    }
    assert_eq!(ours.aggregate, exact_apsnr.outputs(&g, &opts));
    // The 2.3.1 CLI's numbers are that finish on its wrapped sums.
    let mut args = clip.vmaf_args();
    args.extend(["--feature".to_string(), spec.to_string()]);
    let vmaf = run_vmaf(&args, true).unwrap();
    let mut model = Ours::default();
    let mut wrapped_apsnr = Apsnr::default();
    for w in &wrapped {
        model.frames.push(psnr::frame_outputs(w, &g, &opts));
        wrapped_apsnr.add(w, &g);
    }
    model.aggregate = wrapped_apsnr.outputs(&g, &opts);
    let [f, _, a] = compare("16-bit overflow, 2.3.1's wrapped sums", &vmaf, &model);
    assert!(f == 12 && a == 3);
    // And vkssim differs from 2.3.1 there, as it should.
    assert_ne!(ours.frames[0].get("psnr_y"), model.frames[0].get("psnr_y"));
    eprintln!("16-bit overflow: {f} per-frame values of 2.3.1 reproduced from wrapped sums; vkssim gives the exact ones");
}

const MS_OPTION_SETS: [&str; 4] = [
    "float_ms_ssim",
    "float_ms_ssim=enable_lcs=true",
    "float_ms_ssim=enable_db=true",
    "float_ms_ssim=enable_db=true:clip_db=true:enable_lcs=true",
];

#[test]
fn ms_ssim_every_option_and_depth() {
    for clip in [
        MetricClip::new(176, 176, 8, Chroma::C420, 2, Content::Noisy),
        MetricClip::new(181, 193, 10, Chroma::C420, 2, Content::Noisy),
        MetricClip::new(200, 180, 12, Chroma::C422, 1, Content::Noisy),
        MetricClip::new(177, 179, 16, Chroma::C444, 1, Content::Noisy),
    ] {
        for f in MS_OPTION_SETS {
            check(&clip, &[f]);
        }
    }
}

#[test]
fn ms_ssim_identical_is_one_and_inverted_is_nan() {
    let same_clip = MetricClip::new(176, 177, 8, Chroma::C420, 1, Content::Identical);
    for f in MS_OPTION_SETS {
        check(&same_clip, &[f]);
    }
    // Identical windows give a structure term of exactly 1; l and c divide an
    // fp64 numerator by an fp32-rounded denominator, so they (and the
    // product) are 1 only up to that rounding, in libvmaf as here.
    let o = ours(
        &same_clip,
        &parse_list(&["float_ms_ssim=enable_lcs=true"]).unwrap(),
    )
    .unwrap();
    for k in 0..5 {
        assert_eq!(
            o.frames[0].get(&format!("float_ms_ssim_s_scale{k}")),
            Some(1.0)
        );
    }
    let v = o.frames[0].get("float_ms_ssim").unwrap();
    eprintln!("identical frames: float_ms_ssim = {v:?}");
    assert!((1.0 - v).abs() < 1e-6, "{v}");
    let inverted = MetricClip::new(190, 176, 10, Chroma::C420, 1, Content::Inverted);
    for f in MS_OPTION_SETS {
        check(&inverted, &[f]);
    }
    let o = ours(&inverted, &parse_list(&["float_ms_ssim"]).unwrap()).unwrap();
    assert!(o.frames[0].get("float_ms_ssim").unwrap().is_nan());
}

#[test]
fn ms_ssim_below_176_is_an_error_in_both() {
    for (w, h) in [(175, 176), (176, 175), (64, 64)] {
        let clip = MetricClip::new(w, h, 8, Chroma::C420, 1, Content::Noisy);
        let mut args = clip.vmaf_args();
        args.extend(["--feature".to_string(), "float_ms_ssim".to_string()]);
        assert!(run_vmaf(&args, false).is_err(), "vmaf scored {w}x{h}");
        let e = ours(&clip, &parse_list(&["float_ms_ssim"]).unwrap()).unwrap_err();
        assert!(matches!(e, vkssim::Error::FrameTooSmall { .. }), "{e}");
        assert!(e
            .to_string()
            .contains(&format!("float_ms_ssim cannot score a {w}x{h} frame")));
        // psnr takes any size.
        check(&clip, &["psnr=enable_mse=true"]);
    }
}

#[test]
fn several_features_in_one_run() {
    let clip = MetricClip::new(192, 180, 10, Chroma::C420, 2, Content::Noisy);
    check(
        &clip,
        &[
            "float_ssim=enable_lcs=true",
            "psnr=enable_mse=true:enable_apsnr=true",
            "float_ms_ssim=enable_lcs=true",
        ],
    );
    check(&clip, &["float_ms_ssim", "psnr"]);
}

/// The shim prints the numbers vmaf computed: rounded to 6 decimals, they are
/// what the CLI prints without it.
#[test]
fn full_precision_shim_changes_only_the_digits() {
    let clip = MetricClip::new(181, 177, 8, Chroma::C420, 2, Content::Noisy);
    let mut args = clip.vmaf_args();
    for f in [
        "psnr=enable_mse=true:enable_apsnr=true",
        "float_ms_ssim=enable_lcs=true",
    ] {
        args.extend(["--feature".to_string(), f.to_string()]);
    }
    let full = run_vmaf(&args, true).unwrap();
    let plain = run_vmaf(&args, false).unwrap();
    let (mut n, mut longer) = (0, 0);
    for (a, b) in full.frames.iter().zip(&plain.frames) {
        for ((na, x), (nb, y)) in a.iter().zip(b) {
            assert_eq!(na, nb);
            assert_eq!(format!("{x:.6}").parse::<f64>().unwrap(), *y, "{na}");
            longer += usize::from(x != y);
            n += 1;
        }
    }
    assert_eq!(n, 2 * 22);
    assert!(
        longer > n / 2,
        "the shim printed no more digits ({longer} of {n})"
    );
}
