//! VMAF end to end: `vkssim score` with `-m/--model` and the VMAF extractors
//! (`--feature vif|adm|motion`) against the `vmaf` CLI that libvmaf-sys
//! builds (libvmaf 2.3.1, reference C path: `--cpumask 255`), whole output
//! files compared line by line (all but the version and the fps figure), at
//! vmaf's default precision and at full precision (vmaf under the
//! `%.17g` shim, vkssim with `--precision max`). With neither `-m` nor `-n`
//! both run the default model, vmaf_v0.6.1.

use vkssim::io::Chroma;
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::paths;
use vkssim_tests::vmaf_cli::{comparable_lines, compare_with_vmaf as compare, run_writing_ok};

#[test]
fn the_default_model_matches_vmaf_in_every_format() {
    let clip = MetricClip::new(177, 181, 8, Chroma::C420, 4, Content::Noisy);
    for format in ["xml", "json", "csv", "sub"] {
        compare(&clip, &["-m", "version=vmaf_v0.6.1"], format, false, "cpu");
    }
    compare(&clip, &["-m", "version=vmaf_v0.6.1"], "xml", true, "cpu");
    // `auto` scores VMAF on the CPU twin on a CPU implementation of Vulkan
    // (lavapipe), with the same numbers.
    compare(&clip, &["-m", "version=vmaf_v0.6.1"], "json", true, "auto");
}

#[test]
fn every_built_in_model_matches_vmaf_at_full_precision() {
    let clip = MetricClip::new(96, 72, 10, Chroma::C422, 3, Content::Noisy);
    for version in ["vmaf_v0.6.1neg", "vmaf_4k_v0.6.1", "vmaf_b_v0.6.3"] {
        let model = format!("version={version}");
        compare(&clip, &["-m", &model], "xml", true, "cpu");
    }
}

#[test]
fn extractors_alone_and_beside_other_metrics_match_vmaf() {
    let clip = MetricClip::new(67, 45, 12, Chroma::C444, 3, Content::Noisy);
    compare(
        &clip,
        &[
            "-n",
            "--feature",
            "vif",
            "--feature",
            "adm=debug=true",
            "--feature",
            "motion",
        ],
        "xml",
        true,
        "cpu",
    );
    let clip = MetricClip::new(176, 176, 8, Chroma::C420, 3, Content::Noisy);
    compare(
        &clip,
        &[
            "-m",
            "version=vmaf_v0.6.1",
            "--feature",
            "psnr",
            "--feature",
            "vif=vif_enhn_gain_limit=1.0:debug=true",
            "--feature",
            "float_ssim",
            "--feature",
            "motion=motion_force_zero=true",
        ],
        "json",
        true,
        "cpu",
    );
}

#[test]
fn several_models_subsampling_and_identical_frames_match_vmaf() {
    let clip = MetricClip::new(80, 64, 8, Chroma::C420, 5, Content::Noisy);
    compare(
        &clip,
        &[
            "-m",
            "version=vmaf_v0.6.1:name=a",
            "-m",
            "version=vmaf_4k_v0.6.1:name=b:disable_clip",
        ],
        "xml",
        true,
        "cpu",
    );
    compare(
        &clip,
        &["-m", "version=vmaf_v0.6.1", "--subsample", "2"],
        "json",
        true,
        "cpu",
    );
    let same = MetricClip::new(80, 64, 10, Chroma::C420, 2, Content::Identical);
    compare(&same, &["-m", "version=vmaf_v0.6.1"], "xml", true, "cpu");
}

#[test]
fn a_bad_model_or_frame_size_is_a_clear_error() {
    let clip = MetricClip::new(64, 48, 8, Chroma::C420, 2, Content::Noisy);
    let run = |args: &[&str]| {
        let mut a = vec!["score".to_string()];
        a.extend(clip.vmaf_args());
        a.extend(args.iter().map(|s| s.to_string()));
        std::process::Command::new(paths::vkssim_bin())
            .args(&a)
            .output()
            .expect("run vkssim")
    };
    let o = run(&["-m", "version=vmaf_v9"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("-m/--model") && err.contains("vmaf_v9"),
        "{err}"
    );
    let o = run(&["--feature", "vif", "-w", "64", "-h", "15"]);
    assert!(!o.status.success());
}

#[test]
fn a_ladder_with_a_model_writes_vmafs_file_for_each_input() {
    // The CPU twin, then the Vulkan engine (the reference uploaded once and
    // read by every rung) and two Vulkan scorers (`--device 0,0`: runs of
    // frames per scorer, each run's first carrying its previous reference).
    for engine in [
        &["--backend", "cpu"][..],
        &["--backend", "vulkan"][..],
        &["--device", "0,0"][..],
    ] {
        ladder_with_a_model(engine);
    }
}

fn ladder_with_a_model(engine: &[&str]) {
    let clip = MetricClip::new(96, 64, 8, Chroma::C420, 4, Content::Noisy);
    let other = MetricClip::new(96, 64, 8, Chroma::C420, 4, Content::Identical);
    let dir = tempfile::tempdir().expect("tempdir");
    let dists = [&clip.distorted, &other.distorted, &clip.distorted];
    let raw = ["-w", "96", "-h", "64", "-p", "420", "-b", "8"].map(String::from);
    let model = ["-m", "version=vmaf_v0.6.1", "-q", "--json"].map(String::from);
    let mut args = vec![
        "score".to_string(),
        "-r".into(),
        clip.reference.display().to_string(),
    ];
    for d in dists {
        args.extend(["-d".to_string(), d.display().to_string()]);
    }
    args.extend(raw.iter().cloned());
    args.extend(model.iter().cloned());
    args.extend(engine.iter().map(|s| s.to_string()));
    args.push("-o".to_string());
    args.push(dir.path().join("ladder_{index}.json").display().to_string());
    let o = std::process::Command::new(paths::vkssim_bin())
        .args(&args)
        .output()
        .expect("run vkssim");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (k, d) in dists.iter().enumerate() {
        let mut pair = vec!["-r".to_string(), clip.reference.display().to_string()];
        pair.extend(["-d".to_string(), d.display().to_string()]);
        pair.extend(raw.iter().cloned());
        pair.extend(model.iter().cloned());
        pair.extend(["--cpumask".to_string(), "255".to_string()]);
        let vmaf = run_writing_ok(
            &paths::vmaf_cli(),
            &pair,
            &[],
            &dir.path().join(format!("v{k}")),
        );
        let ours = std::fs::read_to_string(dir.path().join(format!("ladder_{k}.json")))
            .expect("the ladder's output");
        assert_eq!(
            comparable_lines(&ours),
            comparable_lines(&vmaf),
            "{engine:?}: ladder input {k} differs from vmaf"
        );
    }
}

#[test]
fn a_plain_run_is_vmafs_default_model_in_every_format() {
    // `vkssim score -r R -d D` and `vmaf -r R -d D --cpumask 255`: no model,
    // no feature, no backend named.
    let clip = MetricClip::new(96, 72, 8, Chroma::C420, 4, Content::Noisy);
    for format in ["xml", "json", "csv", "sub"] {
        compare(&clip, &[], format, false, "");
    }
    compare(&clip, &[], "xml", true, "");
    let ten = MetricClip::new(80, 64, 10, Chroma::C444, 3, Content::Noisy);
    compare(&ten, &[], "json", true, "");
    compare(&clip, &["--subsample", "2"], "xml", true, "");
}

#[test]
fn features_beside_the_default_model_match_vmaf() {
    let clip = MetricClip::new(177, 181, 8, Chroma::C420, 3, Content::Noisy);
    let features = ["--feature", "psnr", "--feature", "float_ms_ssim"];
    compare(&clip, &features, "json", true, "");
    compare(&clip, &features, "xml", false, "");
    compare(&clip, &["--feature", "float_ssim"], "csv", true, "");
}

/// The pooled means of an XML file, as `name: mean` lines in its order.
fn pooled_means(xml: &str) -> String {
    let mut out = String::new();
    for line in xml.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix("<metric name=\"") else {
            continue;
        };
        let name = &rest[..rest.find('"').expect("a name")];
        let mean = rest.split(" mean=\"").nth(1).expect("a mean");
        out.push_str(&format!(
            "{name}: {}\n",
            &mean[..mean.find('"').expect("end")]
        ));
    }
    out
}

#[test]
fn the_summary_ends_with_vmafs_mean() {
    let clip = MetricClip::new(96, 72, 8, Chroma::C420, 4, Content::Noisy);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut vmaf_args = clip.vmaf_args();
    vmaf_args.extend(["-q", "--xml", "--cpumask", "255"].map(String::from));
    let vmaf = run_writing_ok(&paths::vmaf_cli(), &vmaf_args, &[], &dir.path().join("v"));
    let o = std::process::Command::new(paths::vkssim_bin())
        .arg("score")
        .args(clip.vmaf_args())
        .arg("-q")
        .output()
        .expect("run vkssim");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = String::from_utf8_lossy(&o.stdout);
    // One line per output, each the mean vmaf pools, the model's last.
    assert_eq!(summary, pooled_means(&vmaf));
    let last = summary.lines().last().expect("a line");
    assert!(last.starts_with("vmaf: "), "{summary}");
}

#[test]
fn n_alone_is_a_clear_error() {
    let clip = MetricClip::new(64, 48, 8, Chroma::C420, 2, Content::Noisy);
    let run = |args: &[&str]| {
        let o = std::process::Command::new(paths::vkssim_bin())
            .arg("score")
            .args(clip.vmaf_args())
            .args(args)
            .output()
            .expect("run vkssim");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {o:?}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // vmaf -n alone writes a file without scores; vkssim says why not.
    for args in [&["-n"][..], &["-n", "-m", "version=vmaf_v0.6.1"][..]] {
        let err = run(args);
        assert!(
            err.contains(
                "-n/--no_prediction runs no model and no --feature is given: nothing to score"
            ) && err.contains("add --feature NAME"),
            "{err}"
        );
    }
}

/// `motion` and `vif` on the Vulkan engine (motion's blurred plane carried
/// from frame to frame on the device, vif's binary64 step in native or
/// software fp64): the whole file equals vmaf's, as the CPU twin's does, at
/// full precision; 8, 10 and 12-bit, odd sizes, several frames, beside other
/// metrics, with options and `--subsample`, on both upload paths and both
/// arithmetic paths.
#[test]
fn motion_and_vif_on_vulkan_match_vmaf_and_the_cpu_twin() {
    let cases = [
        (
            MetricClip::new(67, 45, 8, Chroma::C420, 5, Content::Noisy),
            "vulkan",
        ),
        (
            MetricClip::new(53, 37, 10, Chroma::C422, 4, Content::Noisy),
            "vulkan --upload staging --no-fp64",
        ),
        (
            MetricClip::new(41, 29, 12, Chroma::C444, 4, Content::Noisy),
            "vulkan --upload direct",
        ),
    ];
    for (clip, vulkan) in cases {
        for features in [
            &["--feature", "motion"][..],
            &["--feature", "vif=debug=true", "--feature", "motion"][..],
            &[
                "--feature",
                "float_ssim",
                "--feature",
                "motion=debug=false",
                "--feature",
                "psnr",
                "--feature",
                "vif=vif_enhn_gain_limit=1.0",
                "--subsample",
                "2",
            ][..],
        ] {
            let mut args = vec!["-n"];
            args.extend(features);
            let on_cpu = compare(&clip, &args, "xml", true, "cpu");
            let on_vulkan = compare(&clip, &args, "xml", true, vulkan);
            assert_eq!(on_cpu, on_vulkan, "{vulkan} {args:?}: lines compared");
        }
    }
}
