//! `motion` (a temporal metric: each frame reads the previous frame's
//! reference) on several Vulkan engines, end to end: `vkssim score -n
//! --feature motion ...` on one device, with `--device all` (every usable
//! device: lavapipe alone on a machine without a GPU) and with `--device
//! 0,0` and `0,0,0` (two and three scorers on device 0, each with its own
//! ring and kept plane, pairs dealt in runs, each run's first pair carrying
//! its previous reference), two frames in flight so that runs are short, on
//! a clip with a scene cut, beside psnr (which reads chroma: the kept
//! reference frames hold it) and float_ssim; the reference as a file (read
//! by position) and from a pipe (read in order); and a ladder of two encodes
//! whose reference frames go once per device into shared planes (each run's
//! last reference from host memory instead). Every file must equal the
//! `vmaf` CLI's at full precision (every line but the version and the fps),
//! and so one device's; and so must the default VMAF model's (whose motion
//! is one of its extractors) and every built-in model's files over two and
//! three scorers. Validation is on; any message fails.

use vkssim::io::Chroma;
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::paths;
use vkssim_tests::vmaf_cli::{
    comparable_lines, compare_with_vmaf, run_shared_ladder, run_vkssim_piped, run_writing_ok, shim,
    EVERY_MODEL,
};

const FEATURES: [&str; 3] = ["motion=debug=true", "psnr", "float_ssim"];

/// The flags both programs take for `clip`: the inputs, the features
/// alone (`-n`), JSON.
fn args(clip: &MetricClip) -> Vec<String> {
    let mut args = clip.vmaf_args();
    for f in FEATURES {
        args.extend(["--feature".to_string(), f.to_string()]);
    }
    args.extend(["-n", "-q", "--json"].map(String::from));
    args
}

/// vkssim's flags for the same run on Vulkan with `devices` (none: the
/// default device), at full precision, two frames in flight.
fn ours(clip: &MetricClip, devices: Option<&str>) -> Vec<String> {
    let mut a = vec!["score".to_string()];
    a.extend(args(clip));
    a.extend(
        [
            "--backend",
            "vulkan",
            "--precision",
            "max",
            "--frames-in-flight",
            "2",
        ]
        .map(String::from),
    );
    if let Some(d) = devices {
        a.extend(["--device".to_string(), d.to_string()]);
    }
    a
}

fn assert_same(what: &str, ours: &str, vmaf: &str) {
    let (a, b) = (comparable_lines(ours), comparable_lines(vmaf));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "{what}: line {} differs (vkssim vs vmaf)", i + 1);
    }
    assert_eq!(a.len(), b.len(), "{what}: line counts");
    assert!(a.len() > 100, "{what}: nothing compared");
}

#[test]
fn motion_on_several_devices_equals_vmaf() {
    let clip = MetricClip::new(67, 45, 10, Chroma::C420, 13, Content::SceneCut);
    let dir = tempfile::tempdir().expect("tempdir");
    let env = [("LD_PRELOAD", shim())];
    let vmaf = run_writing_ok(
        &paths::vmaf_cli(),
        &args(&clip),
        &env,
        &dir.path().join("v"),
    );
    // The clip moves (motion is not 0 everywhere but on the first frame).
    let moving = vmaf
        .lines()
        .filter(|l| l.contains("\"integer_motion\"") && !l.contains(": 0,"))
        .count();
    assert!(moving >= 10, "{vmaf}");
    let out = dir.path().join("o.json");
    for devices in [None, Some("all"), Some("0,0"), Some("0,0,0")] {
        let ours = run_writing_ok(paths::vkssim_bin(), &ours(&clip, devices), &[], &out);
        assert_same(&format!("--device {devices:?}"), &ours, &vmaf);
    }

    // The reference from a pipe (read front to back, not by position).
    let mut a = ours(&clip, Some("0,0"));
    let r = a.iter().position(|x| *x == "-r").expect("-r") + 1;
    a[r] = "-".into();
    let piped = run_vkssim_piped(&a, &clip.reference, &out);
    assert_same("the reference from a pipe, --device 0,0", &piped, &vmaf);

    // A ladder of two encodes over two scorers: the reference frames in
    // shared planes, each device's run's last one from host memory.
    for devices in [None, Some("0,0")] {
        let pattern = dir.path().join("ladder_{index}.json");
        let mut a = ours(&clip, devices);
        a.extend(["-d".to_string(), clip.distorted.display().to_string()]);
        run_shared_ladder(&a, &pattern);
        for k in 0..2 {
            let text = std::fs::read_to_string(dir.path().join(format!("ladder_{k}.json")))
                .expect("ladder output");
            assert_same(&format!("ladder {devices:?}, encode {k}"), &text, &vmaf);
        }
    }
}

#[test]
fn vmaf_models_on_several_devices_equal_vmaf() {
    let clip = MetricClip::new(67, 45, 8, Chroma::C420, 9, Content::SceneCut);
    for devices in ["0,0", "0,0,0"] {
        let backend = format!("vulkan --device {devices} --frames-in-flight 2");
        compare_with_vmaf(&clip, &[], "xml", true, &backend);
        compare_with_vmaf(&clip, &EVERY_MODEL, "json", true, &backend);
    }
}
