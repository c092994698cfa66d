//! vkssim's VMAF models against the `vmaf` CLI of libvmaf 2.3.1 (C path,
//! `--cpumask 255`, every value printed in full by the shim): vmaf runs with
//! one or more `--model`s on small generated clips; the per-frame feature
//! values it wrote are fed to vkssim's predictor, and every model output of
//! every frame, and their pooled values, must equal vmaf's bit for bit.

use std::path::{Path, PathBuf};
use std::process::Command;

use vkssim::io::Chroma;
use vkssim::testing::{
    check_unique_names, pool_outputs, predict_run, run_output_names, Model, ModelSpec, BUILT_IN,
};
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::paths;
use vkssim_tests::synth;
use vkssim_tests::vmaf_cli::{shim, VmafXml};

/// A reference-distorted pair as the vmaf CLI reads it.
struct Pair {
    /// For messages.
    name: String,
    /// Frames in each file.
    frames: usize,
    /// vmaf's input flags.
    args: Vec<String>,
    /// Where generated files live (kept until the pair is dropped).
    _dir: Option<tempfile::TempDir>,
}

impl From<MetricClip> for Pair {
    fn from(clip: MetricClip) -> Self {
        Pair {
            name: clip.name.clone(),
            frames: clip.frames,
            args: clip.vmaf_args(),
            _dir: None,
        }
    }
}

/// A 4:2:0 pair with flat chroma whose luma is textured content and, in the
/// distorted file, that content with noise of `amplitude · (f + 1)` in
/// frame `f`: scores spread from good to poor.
fn textured_pair(width: u32, height: u32, bit_depth: u32, frames: usize, amplitude: u32) -> Pair {
    let dir = tempfile::tempdir().expect("tempdir");
    let (cw, ch) = (width.div_ceil(2), height.div_ceil(2));
    let chroma = synth::flat(cw, ch, bit_depth, synth::peak(bit_depth) / 2);
    let (mut r, mut d) = (Vec::new(), Vec::new());
    for f in 0..frames as u64 {
        let luma = synth::textured(width, height, bit_depth, 7 + f);
        let dis = synth::perturb(&luma, amplitude * (f as u32 + 1), 99 + f);
        for (out, y) in [(&mut r, &luma), (&mut d, &dis)] {
            out.extend_from_slice(&y.bytes);
            out.extend_from_slice(&chroma.bytes);
            out.extend_from_slice(&chroma.bytes);
        }
    }
    let name = format!("textured_{width}x{height}_{bit_depth}bit_{frames}f");
    let (rp, dp) = (dir.path().join("ref.yuv"), dir.path().join("dis.yuv"));
    std::fs::write(&rp, r).unwrap();
    std::fs::write(&dp, d).unwrap();
    let args = [
        "-r",
        &rp.display().to_string(),
        "-d",
        &dp.display().to_string(),
        "-w",
        &width.to_string(),
        "-h",
        &height.to_string(),
        "-p",
        "420",
        "-b",
        &bit_depth.to_string(),
    ]
    .map(String::from)
    .to_vec();
    Pair {
        name,
        frames,
        args,
        _dir: Some(dir),
    }
}

/// The vmaf CLI on `clip` with a `--model` per entry of `models`: its XML,
/// or its messages when it fails.
fn vmaf_with_models(clip: &Pair, models: &[String]) -> Result<VmafXml, String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("vmaf.xml");
    let mut cmd = Command::new(paths::vmaf_cli());
    cmd.args(&clip.args)
        .args(["--cpumask", "255", "-q", "--xml", "-o"])
        .arg(&out)
        .env("LD_PRELOAD", shim());
    for m in models {
        cmd.arg("--model").arg(m);
    }
    let o = cmd.output().expect("cannot run the vmaf CLI");
    if !o.status.success() {
        return Err(format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    Ok(VmafXml::parse(&text))
}

/// The committed JSON file of built-in model `version`.
fn committed(version: &str) -> PathBuf {
    paths::workspace_root().join(format!("engine/models/{version}.json"))
}

/// The clips: sizes, bit depths and distortions that spread the scores
/// (the identical pair scores above 100 before the clip, the unrelated one
/// near 0, the textured ones from about 90 down to about 30).
fn clips() -> Vec<Pair> {
    vec![
        MetricClip::new(64, 48, 8, Chroma::C420, 3, Content::Noisy).into(),
        textured_pair(97, 61, 8, 4, 12),
        textured_pair(176, 144, 10, 3, 60),
        MetricClip::new(80, 64, 10, Chroma::C420, 2, Content::Identical).into(),
        MetricClip::new(72, 56, 8, Chroma::C420, 2, Content::Unrelated).into(),
        MetricClip::new(99, 77, 10, Chroma::C420, 3, Content::Noisy).into(),
    ]
}

/// Runs vmaf with `specs` on `clip` and checks vkssim's outputs of every
/// frame, and their pooled values, against it bit for bit. Returns how many
/// values were compared.
fn check(clip: &Pair, specs: &[String]) -> usize {
    let what = format!("{} {specs:?}", clip.name);
    let xml = vmaf_with_models(clip, specs).unwrap_or_else(|e| panic!("{what}: vmaf failed: {e}"));
    let parsed: Vec<ModelSpec> = specs.iter().map(|s| ModelSpec::parse(s).unwrap()).collect();
    check_unique_names(&parsed).unwrap();
    let models: Vec<Model> = parsed.iter().map(|s| Model::load(s).unwrap()).collect();
    let names = run_output_names(&models);
    let mut ours = Vec::new();
    let mut compared = 0;
    assert_eq!(xml.frames.len(), clip.frames, "{what}: frames");
    for (i, row) in xml.frames.iter().enumerate() {
        for m in &models {
            for f in m.inputs() {
                assert!(
                    row.iter().any(|(n, _)| *n == f.output),
                    "{what}: frame {i}: vmaf wrote no {} ({row:?})",
                    f.output
                );
            }
        }
        let got = predict_run(&models, row).unwrap();
        let theirs: Vec<(String, f64)> = row
            .iter()
            .filter(|(n, _)| !n.starts_with("integer_"))
            .cloned()
            .collect();
        let theirs_names: Vec<&String> = theirs.iter().map(|t| &t.0).collect();
        assert_eq!(
            names.iter().collect::<Vec<_>>(),
            theirs_names,
            "{what}: output names"
        );
        for ((name, want), g) in theirs.iter().zip(&got) {
            assert_eq!(
                g.to_bits(),
                want.to_bits(),
                "{what}: frame {i} {name}: vkssim {g:?} vmaf {want:?}"
            );
            compared += 1;
        }
        ours.push(got);
    }
    let pooled = pool_outputs(&ours).unwrap();
    for (name, p) in names.iter().zip(&pooled) {
        let (_, theirs) = xml
            .pooled
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{what}: vmaf pooled no {name}"));
        for (method, value) in p.named() {
            let want = theirs
                .iter()
                .find(|(m, _)| m == method)
                .unwrap_or_else(|| panic!("{what}: no {method} of {name}"))
                .1;
            assert_eq!(
                value.to_bits(),
                want.to_bits(),
                "{what}: pooled {method} of {name}: vkssim {value:?} vmaf {want:?}"
            );
            compared += 1;
        }
    }
    compared
}

#[test]
fn built_in_models_by_version_match_vmaf() {
    for clip in clips() {
        for (version, _) in BUILT_IN {
            let n = check(&clip, &[format!("version={version}")]);
            eprintln!("{} {version}: {n} values identical", clip.name);
        }
    }
}

#[test]
fn committed_model_files_by_path_match_vmaf() {
    for clip in &clips()[..3] {
        for (version, _) in BUILT_IN {
            let path = committed(version);
            let n = check(clip, &[format!("path={}", path.display())]);
            eprintln!("{} {}: {n} values identical", clip.name, path.display());
        }
    }
}

#[test]
fn the_committed_files_are_the_built_in_texts() {
    for (version, text) in BUILT_IN {
        let file = std::fs::read_to_string(committed(version)).unwrap();
        assert_eq!(&file, text, "{version}");
    }
}

#[test]
fn transform_and_clip_flags_match_vmaf() {
    let specs = [
        "enable_transform",
        "disable_clip",
        "enable_transform:disable_clip",
        "enable_transform=true:disable_clip=false",
        "enable_transform=false:disable_clip=true",
    ];
    let clips = clips();
    for clip in [&clips[3], &clips[4], &clips[1]] {
        for version in ["vmaf_v0.6.1", "vmaf_4k_v0.6.1", "vmaf_b_v0.6.3"] {
            for flags in specs {
                check(clip, &[format!("version={version}:{flags}")]);
            }
        }
    }
}

#[test]
fn several_models_in_one_run_match_vmaf() {
    let clips = clips();
    let clip = &clips[2];
    check(
        clip,
        &[
            "version=vmaf_v0.6.1:name=a".to_string(),
            "version=vmaf_4k_v0.6.1:name=b".to_string(),
        ],
    );
    check(
        clip,
        &[
            "version=vmaf_b_v0.6.3:name=bb:enable_transform".to_string(),
            "version=vmaf_v0.6.1neg".to_string(),
            "version=vmaf_b_v0.6.3:name=cc".to_string(),
        ],
    );
    // Both unnamed: vmaf refuses, and so does vkssim.
    let two = [
        "version=vmaf_v0.6.1".to_string(),
        "version=vmaf_4k_v0.6.1".to_string(),
    ];
    let e = vmaf_with_models(clip, &two).unwrap_err();
    assert!(e.contains("uniquely named"), "{e}");
    let specs: Vec<ModelSpec> = two.iter().map(|s| ModelSpec::parse(s).unwrap()).collect();
    let e = check_unique_names(&specs).unwrap_err().to_string();
    assert!(e.contains("two models are named \"vmaf\""), "{e}");
}

#[test]
fn feature_options_in_the_spec_match_vmaf() {
    let clips = clips();
    let clip = &clips[1];
    for spec in [
        "version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.2:vif.vif_enhn_gain_limit=1.5",
        "version=vmaf_v0.6.1neg:adm.adm_enhn_gain_limit=100",
        "version=vmaf_v0.6.1neg:vif.vif_enhn_gain_limit=2",
        "version=vmaf_v0.6.1:motion.motion_force_zero=true",
        "version=vmaf_b_v0.6.3:adm.adm_enhn_gain_limit=1.0",
    ] {
        check(clip, &[spec.to_string()]);
    }
}

/// Writes `text` as `name` in `dir`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn malformed_models_and_unknown_features_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(committed("vmaf_v0.6.1")).unwrap();
    let cases = [
        (
            "truncated.json",
            good[..good.len() / 2].to_string(),
            "not valid JSON",
        ),
        ("empty.json", "{}".to_string(), "no \"model_dict\""),
        (
            "noslopes.json",
            good.replace("\"slopes\"", "\"slopez\""),
            "model_dict has no \"slopes\"",
        ),
        (
            "badsv.json",
            good.replace("total_sv 211", "total_sv 212"),
            "total_sv is 212 but 211",
        ),
        (
            "float_adm.json",
            good.replace("VMAF_integer_feature_adm2_score", "VMAF_feature_adm2_score"),
            "feature \"VMAF_feature_adm2_score\"",
        ),
        (
            "bogus.json",
            good.replace(
                "VMAF_integer_feature_motion2_score",
                "VMAF_integer_feature_bogus_score",
            ),
            "feature \"VMAF_integer_feature_bogus_score\"",
        ),
    ];
    for (name, text, says) in cases {
        let path = write(dir.path(), name, &text);
        let spec = ModelSpec::parse(&format!("path={}", path.display())).unwrap();
        let e = Model::load(&spec).unwrap_err().to_string();
        assert!(e.contains(&path.display().to_string()), "{name}: {e}");
        assert!(e.contains(says), "{name}: {e}");
        eprintln!("{name}: {e}");
    }
    // vmaf refuses the malformed ones, and cannot compute an unknown feature.
    let clips = clips();
    let clip = &clips[0];
    for name in ["truncated.json", "empty.json", "bogus.json"] {
        let spec = format!("path={}", dir.path().join(name).display());
        assert!(vmaf_with_models(clip, &[spec]).is_err(), "vmaf took {name}");
    }
    let missing = dir.path().join("missing.json");
    let spec = ModelSpec::parse(&format!("path={}", missing.display())).unwrap();
    let e = Model::load(&spec).unwrap_err().to_string();
    assert!(e.contains("missing.json"), "{e}");
    let e = Model::load(&ModelSpec::parse("version=vmaf_v9").unwrap()).unwrap_err();
    assert!(e.to_string().contains("no such built-in model"), "{e}");
}

#[test]
fn model_specs_vmaf_refuses_are_refused() {
    let clips = clips();
    let clip = &clips[0];
    for (spec, says) in [
        ("version=vmaf_v0.6.1:bogus=1", "unknown key \"bogus\""),
        (
            "version=vmaf_v0.6.1:Enable_transform",
            "unknown key \"Enable_transform\"",
        ),
        ("name=x", "names no model"),
        (
            "version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=0.5",
            "adm_enhn_gain_limit=0.5",
        ),
        (
            "version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=abc",
            "adm_enhn_gain_limit=abc",
        ),
        (
            "version=vmaf_v0.6.1:motion.motion_force_zero=1",
            "true or false",
        ),
    ] {
        assert!(
            vmaf_with_models(clip, &[spec.to_string()]).is_err(),
            "vmaf took {spec}"
        );
        let e = ModelSpec::parse(spec).unwrap_err().to_string();
        assert!(e.contains(says), "{spec}: {e}");
    }
}
