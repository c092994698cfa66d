//! Several metrics in one run, end to end on the CPU twin: `vkssim score
//! --backend cpu` against the `vmaf` CLI that libvmaf-sys builds (libvmaf
//! 2.3.1), with the same `--feature` list on the same generated files
//! (`vkssim_tests::metric_clips`), file for file in XML, JSON, CSV and sub
//! (every line but the version and the fps figure); `--precision max`
//! against the vmaf CLI run under the full-precision shim (its `%.6f` become
//! `%.17g`, which is what `--precision max` writes). Then the library: a CPU
//! [`Scorer`] with several metrics, fed host pairs with chroma and frame
//! slots, against the vmaf CLI's full-precision values (fp64 equality), per
//! frame, pooled ([`Summary`]) and aggregate.

use std::path::Path;
use std::process::Command;
use vkssim::api::ScoreQueue;

use vkssim::api::{HostPlane, Pair, Scorer, ScorerDesc};
use vkssim::io::Chroma;
use vkssim::metric::config::parse_list;
use vkssim::metric::Summary;
use vkssim::FrameScore;
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::paths;
use vkssim_tests::vmaf_cli::{
    comparable_lines, run_shared_ladder, run_vkssim_piped, run_vmaf, run_writing_ok, shim, VmafXml,
};

/// Runs `program args` writing `out`, and returns the file's text.
fn run(program: &Path, args: &[String], env_preload: bool, out: &Path) -> String {
    let env: &[(&str, &Path)] = if env_preload {
        &[("LD_PRELOAD", shim())]
    } else {
        &[]
    };
    run_env(program, args, env, out)
}

/// [`run`] with `env` set; for vkssim with Vulkan validation on (any
/// validation message fails).
fn run_env(program: &Path, args: &[String], env: &[(&str, &Path)], out: &Path) -> String {
    run_writing_ok(program, args, env, out)
}

/// Both programs on `clip` with `features` in output format `format`
/// (`xml`, `json`, `csv`, `sub`) and `extra` flags; `max`: full precision.
/// Returns the number of identical lines.
fn compare(clip: &MetricClip, features: &[&str], format: &str, extra: &[&str], max: bool) -> usize {
    compare_on("cpu", clip, features, format, extra, max)
}

/// [`compare`] with vkssim on `backend` (`cpu`, `vulkan`, or `vulkan` and
/// more flags, e.g. `vulkan --device all`).
fn compare_on(
    backend: &str,
    clip: &MetricClip,
    features: &[&str],
    format: &str,
    extra: &[&str],
    max: bool,
) -> usize {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = clip.vmaf_args();
    for f in features {
        args.extend(["--feature".to_string(), f.to_string()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["-q".to_string(), format!("--{format}")]);
    // -n: the features alone, no VMAF model (both programs run one unless
    // told not to).
    args.push("-n".into());
    let vmaf_args = args.clone();
    let vmaf = run(&paths::vmaf_cli(), &vmaf_args, max, &dir.path().join("v"));
    let mut ours_args = vec!["score".to_string()];
    ours_args.extend(args);
    ours_args.push("--backend".to_string());
    ours_args.extend(backend.split_whitespace().map(str::to_string));
    if max {
        ours_args.extend(["--precision".to_string(), "max".to_string()]);
    }
    let ours = run(
        paths::vkssim_bin(),
        &ours_args,
        false,
        &dir.path().join("o"),
    );
    let what = format!(
        "{} {features:?} --{format} {extra:?} max={max} on {backend}",
        clip.name
    );
    let (a, b) = (comparable_lines(&ours), comparable_lines(&vmaf));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "{what}: line {} differs (vkssim vs vmaf)", i + 1);
    }
    assert_eq!(
        a.len(),
        b.len(),
        "{what}: line counts\nvkssim:\n{ours}\nvmaf:\n{vmaf}"
    );
    assert!(a.len() > 1, "{what}: nothing compared");
    eprintln!("{what}: {} lines identical", a.len());
    a.len()
}

const ALL_FOUR: [&str; 4] = ["xml", "json", "csv", "sub"];

#[test]
fn three_metrics_every_format_420_8_bit_odd_size() {
    let clip = MetricClip::new(177, 181, 8, Chroma::C420, 3, Content::Noisy);
    let features = [
        "psnr=enable_mse=true:enable_apsnr=true",
        "float_ssim=enable_lcs=true",
        "float_ms_ssim=enable_lcs=true",
    ];
    for format in ALL_FOUR {
        compare(&clip, &features, format, &[], false);
    }
    compare(&clip, &features, "xml", &[], true);
    // Another order, another subset.
    compare(&clip, &["float_ms_ssim", "psnr"], "json", &[], false);
    // Frame selection: psnr's aggregate over the frames scored.
    compare(&clip, &features, "xml", &["--subsample", "2"], true);
    compare(&clip, &features, "json", &["--frame_cnt", "2"], false);
}

#[test]
fn options_422_10_bit_and_444_12_bit() {
    let clip = MetricClip::new(181, 177, 10, Chroma::C422, 2, Content::Noisy);
    let features = [
        "float_ms_ssim=enable_db=true:clip_db=true",
        "psnr=enable_apsnr=true:min_sse=0.5:enable_mse=true",
    ];
    compare(&clip, &features, "json", &[], true);
    compare(&clip, &features, "sub", &[], false);
    let clip = MetricClip::new(176, 176, 12, Chroma::C444, 2, Content::Noisy);
    let features = [
        "psnr=reduced_hbd_peak=true:enable_chroma=false:enable_apsnr=true",
        "float_ssim=enable_db=true",
        "float_ms_ssim",
    ];
    compare(&clip, &features, "xml", &[], true);
    compare(&clip, &features, "csv", &[], false);
}

#[test]
fn identical_inputs_reach_the_ceilings() {
    let clip = MetricClip::new(176, 178, 8, Chroma::C420, 2, Content::Identical);
    let features = [
        "psnr=enable_mse=true:enable_apsnr=true",
        "float_ms_ssim=enable_db=true",
        "float_ssim",
    ];
    // psnr at 60 (its ceiling), apsnr at its cap, MS-SSIM 1 (inf dB: JSON null).
    compare(&clip, &features, "json", &[], false);
    compare(&clip, &features, "xml", &[], true);
}

#[test]
fn inverted_content_gives_nan() {
    let clip = MetricClip::new(180, 178, 8, Chroma::C420, 2, Content::Inverted);
    let features = ["float_ms_ssim=enable_lcs=true", "psnr"];
    for format in ALL_FOUR {
        compare(&clip, &features, format, &[], false);
    }
    compare(&clip, &features, "json", &[], true);
}

#[test]
fn refusals_name_the_feature_and_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    let small = MetricClip::new(175, 200, 8, Chroma::C420, 1, Content::Noisy);
    let mut args = vec!["score".to_string()];
    args.extend(small.vmaf_args());
    args.extend([
        "-n".into(),
        "--feature".into(),
        "float_ms_ssim".into(),
        "-q".into(),
    ]);
    let o = Command::new(paths::vkssim_bin())
        .args(&args)
        .output()
        .expect("run vkssim");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("float_ms_ssim cannot score a 175x200 frame"),
        "{err}"
    );
    // A Y4M 4:2:2 input: vmaf converts its chroma before scoring; psnr's
    // chroma is refused, luma-only psnr is scored.
    let y4m = |name: &str, seed: u8| {
        let path = dir.path().join(name);
        let (w, h) = (64usize, 48usize);
        let mut bytes = b"YUV4MPEG2 W64 H48 F25:1 Ip A1:1 C422\nFRAME\n".to_vec();
        bytes.extend((0..w * h + 2 * (w / 2) * h).map(|i| (i as u8).wrapping_mul(seed)));
        std::fs::write(&path, bytes).expect("write y4m");
        path
    };
    let (r, d) = (y4m("r.y4m", 3), y4m("d.y4m", 5));
    let score = |feature: &str| {
        Command::new(paths::vkssim_bin())
            .arg("score")
            .arg("-r")
            .arg(&r)
            .arg("-d")
            .arg(&d)
            .args(["-n", "--feature", feature, "-q", "--backend", "cpu"])
            .output()
            .expect("run vkssim")
    };
    let o = score("psnr");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("Y4M reader converts"),
        "{err}"
    );
    assert!(score("psnr=enable_chroma=false").status.success());
}

/// The Vulkan engine's psnr and float_ms_ssim passes (lavapipe in CI): the
/// CLI's files on `--backend vulkan` equal the vmaf CLI's, at 6 decimals and
/// at full precision, for odd 4:2:0 8-bit, 4:2:2 10-bit and 4:4:4 12-bit
/// clips, inverted content (NaN) and identical inputs, with every metric
/// option that changes the passes.
#[test]
fn vulkan_files_equal_vmafs() {
    let all = [
        "float_ssim=enable_lcs=true",
        "psnr=enable_mse=true:enable_apsnr=true",
        "float_ms_ssim=enable_lcs=true",
    ];
    let odd = MetricClip::new(181, 177, 8, Chroma::C420, 2, Content::Noisy);
    for format in ALL_FOUR {
        compare_on("vulkan", &odd, &all, format, &[], false);
    }
    compare_on("vulkan", &odd, &all, "xml", &[], true);
    let c422 = MetricClip::new(177, 179, 10, Chroma::C422, 2, Content::Noisy);
    compare_on("vulkan", &c422, &all, "json", &[], true);
    let c444 = MetricClip::new(176, 176, 12, Chroma::C444, 1, Content::Noisy);
    let opts = [
        "psnr=reduced_hbd_peak=true:min_sse=0.5",
        "float_ms_ssim=enable_db=true:clip_db=true",
    ];
    compare_on("vulkan", &c444, &opts, "xml", &[], true);
    let inverted = MetricClip::new(180, 178, 8, Chroma::C420, 2, Content::Inverted);
    compare_on(
        "vulkan",
        &inverted,
        &["float_ms_ssim", "psnr"],
        "json",
        &[],
        true,
    );
    let same = MetricClip::new(176, 180, 8, Chroma::C420, 1, Content::Identical);
    compare_on("vulkan", &same, &all, "json", &[], false);
}

/// fp64 equality; NaN equals NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The library's frames, pooled and aggregate values against the vmaf CLI's
/// full-precision XML; returns the values compared.
fn compare_api(what: &str, vmaf: &VmafXml, scores: &[FrameScore], summary: &Summary) -> usize {
    assert_eq!(vmaf.frames.len(), scores.len(), "{what}: frames");
    let mut n = 0;
    for (i, (v, s)) in vmaf.frames.iter().zip(scores).enumerate() {
        let ours: Vec<_> = s.iter().collect();
        assert_eq!(v.len(), ours.len(), "{what}: frame {i}: outputs");
        for ((name, x), (our_name, y)) in v.iter().zip(ours) {
            assert_eq!(name, our_name, "{what}: frame {i}: order");
            assert!(
                same(*x, y),
                "{what}: frame {i} {name}: vmaf {x:?}, vkssim {y:?}"
            );
            n += 1;
        }
    }
    let pooled = summary.pooled().expect("pooled values");
    assert_eq!(vmaf.pooled.len(), pooled.len(), "{what}: pooled");
    for ((name, methods), (our_name, p)) in vmaf.pooled.iter().zip(&pooled) {
        assert_eq!(name, our_name, "{what}: pooled order");
        for ((m, x), (pm, y)) in methods.iter().zip(p.named()) {
            assert_eq!(m, pm);
            assert!(
                same(*x, y),
                "{what}: pooled {name} {m}: vmaf {x:?}, vkssim {y:?}"
            );
            n += 1;
        }
    }
    let aggregate = summary.aggregate().unwrap();
    let aggregate: Vec<_> = aggregate.iter().collect();
    assert_eq!(vmaf.aggregate.len(), aggregate.len(), "{what}: aggregate");
    for ((name, x), (our_name, y)) in vmaf.aggregate.iter().zip(aggregate) {
        assert_eq!(name, our_name);
        assert!(
            same(*x, y),
            "{what}: aggregate {name}: vmaf {x:?}, vkssim {y:?}"
        );
        n += 1;
    }
    n
}

#[test]
fn library_scorer_with_several_metrics_equals_vmaf() {
    let specs = [
        "float_ssim=enable_lcs=true",
        "psnr=enable_mse=true:enable_apsnr=true",
        "float_ms_ssim=enable_lcs=true",
    ];
    for (clip, chroma) in [
        (
            MetricClip::new(177, 181, 8, Chroma::C420, 3, Content::Noisy),
            Chroma::C420,
        ),
        (
            MetricClip::new(179, 176, 10, Chroma::C444, 2, Content::Inverted),
            Chroma::C444,
        ),
    ] {
        let mut args = clip.vmaf_args();
        for f in specs {
            args.extend(["--feature".to_string(), f.to_string()]);
        }
        let vmaf = run_vmaf(&args, true).expect("vmaf");
        let desc = ScorerDesc::new(clip.width, clip.height, clip.bit_depth)
            .with_metrics(parse_list(&specs).unwrap())
            .with_chroma(chroma);
        let set = desc.metric_set().unwrap();
        let refs = clip.read(&clip.reference);
        let dists = clip.read(&clip.distorted);
        // Host pairs with their chroma planes.
        let mut scorer = Scorer::cpu(&desc, 2).unwrap();
        let mut scores = Vec::new();
        let words = |b: &[u8]| -> Vec<u16> {
            b.chunks_exact(2)
                .map(|s| u16::from_le_bytes([s[0], s[1]]))
                .collect()
        };
        for (r, d) in refs.iter().zip(&dists) {
            let w: Vec<Vec<u16>> = r.iter().chain(d).map(|p| words(&p.bytes)).collect();
            let plane = |k: usize| {
                let p = if k < 3 { &r[k] } else { &d[k - 3] };
                if clip.bit_depth > 8 {
                    HostPlane::u16(&w[k], p.width as usize)
                } else {
                    HostPlane::u8(&p.bytes, p.width as usize)
                }
            };
            let pair = Pair::new(plane(0), plane(3))
                .with_chroma([plane(1), plane(2)], [plane(4), plane(5)]);
            scorer.submit(pair).unwrap();
            while let Some(s) = scorer.poll() {
                scores.push(s.unwrap());
            }
        }
        while let Some(s) = scorer.wait() {
            scores.push(s.unwrap());
        }
        let mut summary = Summary::new(&set);
        scores.iter().for_each(|s| summary.add(s));
        let n = compare_api(&clip.name, &vmaf, &scores, &summary);
        eprintln!("{}: {n} values identical (host pairs)", clip.name);
        // float_ssim's own fields as before.
        assert_eq!(
            scores[0].float_ssim(),
            scores[0].value("float_ssim").unwrap()
        );
        assert_eq!(scores[0].psnr_y(), scores[0].value("psnr_y"));

        // The same through frame slots filled with whole frames.
        let mut scorer = Scorer::cpu(&desc, 2).unwrap();
        let mut slot_scores = Vec::new();
        {
            let mut slots = scorer.slots();
            for (r, d) in refs.iter().zip(&dists) {
                let mut slot = slots.acquire().unwrap();
                assert!(slot.reads_chroma());
                let whole = |f: &[vkssim::LumaFrame; 3]| -> Vec<u8> {
                    f.iter().flat_map(|p| p.bytes.iter().copied()).collect()
                };
                slot.copy_from(&whole(r), &whole(d)).unwrap();
                slots.submit(slot).unwrap();
            }
            while let Some(s) = slots.wait() {
                slot_scores.push(s.unwrap());
            }
        }
        let mut summary = Summary::new(&set);
        slot_scores.iter().for_each(|s| summary.add(s));
        compare_api(&clip.name, &vmaf, &slot_scores, &summary);
    }
}

#[test]
fn a_pair_without_chroma_is_refused_when_psnr_reads_it() {
    let desc = ScorerDesc::new(64, 48, 8)
        .with_metrics(parse_list(&["psnr"]).unwrap())
        .with_chroma(Chroma::C420);
    let mut scorer = Scorer::cpu(&desc, 1).unwrap();
    let y = vec![16u8; 64 * 48];
    let e = scorer
        .submit(Pair::new(HostPlane::u8(&y, 64), HostPlane::u8(&y, 64)))
        .unwrap_err();
    assert!(e.to_string().contains("Pair::with_chroma"), "{e}");
    let e = Scorer::cpu(
        &ScorerDesc::new(64, 48, 8).with_metrics(parse_list(&["psnr"]).unwrap()),
        1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("chroma layout is not given"), "{e}");
}

#[test]
fn a_stream_with_chroma_gives_the_files_scores() {
    // The distorted input from standard input (read ahead, then front to
    // back): the same file as vmaf's from the file.
    let clip = MetricClip::new(177, 181, 8, Chroma::C420, 3, Content::Noisy);
    let dir = tempfile::tempdir().expect("tempdir");
    let features = ["psnr=enable_apsnr=true:enable_mse=true", "float_ssim"];
    let mut args = clip.vmaf_args();
    for f in features {
        args.extend(["--feature".to_string(), f.to_string()]);
    }
    args.extend(["-q".to_string(), "--xml".to_string()]);
    // -n: the features alone, no VMAF model (both programs run one unless
    // told not to).
    args.push("-n".into());
    let vmaf_args = args.clone();
    let vmaf = run(&paths::vmaf_cli(), &vmaf_args, false, &dir.path().join("v"));
    let dist = clip.distorted.display().to_string();
    let mut ours_args = vec!["score".to_string()];
    ours_args.extend(
        args.into_iter()
            .map(|a| if a == dist { "-".into() } else { a }),
    );
    // On the CPU twin and on Vulkan (the pipe's frames read straight into
    // the device slot's upload memory, chroma checked on the device).
    for backend in ["cpu", "vulkan"] {
        let mut ours_args = ours_args.clone();
        ours_args.extend(["--backend".into(), backend.into()]);
        let out = dir.path().join("o");
        let ours = run_vkssim_piped(&ours_args, &clip.distorted, &out);
        assert_eq!(
            comparable_lines(&ours),
            comparable_lines(&vmaf),
            "{backend}"
        );
    }
}

/// On Vulkan (lavapipe, validation on): `--device all` and `--device 0,0`
/// (two scorers on one device, pairs dealt between them), and a ladder of
/// two encodes of one reference whose frames go once per device into
/// shared planes holding luma, Cb and Cr (psnr reads the reference's chroma
/// there), with and without `--device 0,0`: every file equal to the vmaf
/// CLI's at full precision.
#[test]
fn vulkan_devices_and_ladders_with_chroma_equal_vmafs() {
    let all = [
        "float_ssim=enable_lcs=true",
        "psnr=enable_mse=true:enable_apsnr=true",
        "float_ms_ssim=enable_lcs=true",
    ];
    let clip = MetricClip::new(177, 179, 10, Chroma::C420, 3, Content::Noisy);
    for devices in ["all", "0,0"] {
        compare_on(
            &format!("vulkan --device {devices}"),
            &clip,
            &all,
            "json",
            &[],
            true,
        );
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = clip.vmaf_args();
    for f in all {
        args.extend(["--feature".to_string(), f.to_string()]);
    }
    args.extend(["-q".to_string(), "--json".to_string()]);
    // -n: the features alone, no VMAF model (both programs run one unless
    // told not to).
    args.push("-n".into());
    let vmaf_args = args.clone();
    let vmaf = run(&paths::vmaf_cli(), &vmaf_args, true, &dir.path().join("v"));
    for devices in [&[][..], &["--device", "0,0"][..]] {
        let pattern = dir.path().join("ladder_{index}.json");
        let mut ladder = vec!["score".to_string()];
        ladder.extend(args.iter().cloned());
        ladder.extend(["-d".into(), clip.distorted.display().to_string()]);
        ladder.extend(["--backend", "vulkan", "--precision", "max"].map(String::from));
        ladder.extend(devices.iter().map(|d| d.to_string()));
        run_shared_ladder(&ladder, &pattern);
        for k in 0..2 {
            let out = dir.path().join(format!("ladder_{k}.json"));
            let ours = std::fs::read_to_string(&out).expect("ladder output");
            assert_eq!(
                comparable_lines(&ours),
                comparable_lines(&vmaf),
                "{devices:?}: encode {k}"
            );
        }
    }
}

/// A 10-bit sample above the bit depth in a chroma plane (in the column
/// and row of a 4:2:0 file's chroma that libvmaf's truncated chroma leaves
/// out, and inside the scored region): on Vulkan the device finds it (the
/// readers write straight into the upload memory and do not read it back),
/// and the run fails with the CPU backend's message from the file's name
/// on, naming the frame, the plane (Cb or Cr) and the sample's position in
/// it (the context before it says "scoring" rather than "reading", as for
/// luma).
#[test]
fn a_chroma_sample_above_the_bit_depth_fails_alike_on_vulkan() {
    let clip = MetricClip::new(177, 179, 10, Chroma::C420, 2, Content::Noisy);
    let dir = tempfile::tempdir().expect("tempdir");
    let (w, h) = (clip.width as usize, clip.height as usize);
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let luma = 2 * w * h;
    let frame = luma + 2 * 2 * cw * ch;
    for (plane, x, y) in [(2usize, cw - 1, ch - 1), (1, 10, 20)] {
        let bad = dir.path().join(format!("bad_{plane}.yuv"));
        let mut bytes = std::fs::read(&clip.distorted).expect("read");
        let at = frame + luma + (plane - 1) * 2 * cw * ch + 2 * (y * cw + x);
        bytes[at..at + 2].copy_from_slice(&1030u16.to_le_bytes());
        std::fs::write(&bad, &bytes).expect("write");
        let errors: Vec<String> = ["cpu", "vulkan"]
            .iter()
            .map(|backend| {
                let mut args = clip.vmaf_args();
                let dist = clip.distorted.display().to_string();
                for a in &mut args {
                    if *a == dist {
                        *a = bad.display().to_string();
                    }
                }
                let o = Command::new(paths::vkssim_bin())
                    .arg("score")
                    .args(&args)
                    .args(["-n", "--feature", "psnr", "--feature", "float_ssim", "-q"])
                    .args(["--backend", backend, "-o"])
                    .arg(dir.path().join("o.xml"))
                    .env("VKSSIM_VALIDATION", "1")
                    .output()
                    .expect("run vkssim");
                let err = String::from_utf8_lossy(&o.stderr).to_string();
                assert!(!o.status.success(), "{backend}: {err}");
                assert!(!err.contains("vkssim::vk::validation"), "{err}");
                let line = err
                    .lines()
                    .find(|l| l.contains("above 1023"))
                    .unwrap_or_else(|| panic!("{backend}: {err}"));
                let from = line.find(&*bad.display().to_string()).unwrap_or(0);
                line[from..].trim().to_string()
            })
            .collect();
        assert_eq!(errors[0], errors[1], "plane {plane}");
        let name = ["Cb", "Cr"][plane - 1];
        let want = format!("frame 1: the {name} sample at x={x}, y={y} is 1030");
        assert!(errors[1].contains(&want), "{}", errors[1]);
        assert!(
            errors[1].contains(&bad.display().to_string()),
            "{}",
            errors[1]
        );
    }
}
