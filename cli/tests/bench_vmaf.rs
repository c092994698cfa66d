//! `vkssim bench` with a VMAF model and with VMAF's extractors alone: it
//! runs on the CPU twin (`auto` picks it with a note, `vulkan` refuses),
//! reports the structure `--json` promises (no timing is asserted), and the
//! mean VMAF it reports is the pooled mean `vkssim score` writes for the
//! same frames.

mod common;

use common::{assert_ok, run, s, stderr};

/// `vkssim bench` on 3 generated 64x48 frames, timed once, then `extra`.
fn bench_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "bench", "--frames", "3", "-w", "64", "-h", "48", "--repeat", "1",
    ];
    args.extend_from_slice(extra);
    args
}

/// `vkssim bench` on generated 64x48 frames with `extra`, as JSON.
fn bench(extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = bench_args(&["--json"]);
    args.extend_from_slice(extra);
    let o = run(&args, None);
    assert_ok(&o);
    let j = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    (j, stderr(&o))
}

/// The timing fields: a time per frame above zero, or none when the run
/// was too short for the clock.
fn check_timing(j: &serde_json::Value) {
    match j["ms_per_frame"].as_f64() {
        Some(ms) => assert!(ms > 0.0 && j["too_short_to_time"] == false, "{j}"),
        None => assert!(
            j["too_short_to_time"] == true && j["frames_per_second"].is_null(),
            "{j}"
        ),
    }
    assert_eq!(j["runs"].as_array().map(Vec::len), Some(1), "{j}");
}

#[test]
fn bench_with_the_default_model_reports_vmaf_on_the_cpu_twin() {
    let (j, _) = bench(&["--backend", "cpu", "-m", "version=vmaf_v0.6.1"]);
    assert_eq!(
        (
            j["width"].as_u64(),
            j["height"].as_u64(),
            j["frames"].as_u64()
        ),
        (Some(64), Some(48), Some(3))
    );
    assert!(
        j["backend"].as_str().is_some_and(|b| b.starts_with("cpu")),
        "{j}"
    );
    assert_eq!(j["features"], "adm motion vif");
    assert!(
        j["first_frame"]["integer_adm2"].is_f64()
            && j["first_frame"]["integer_vif_scale0"].is_f64(),
        "{j}"
    );
    check_timing(&j);
    let vmaf = j["mean_vmaf"]
        .as_f64()
        .unwrap_or_else(|| panic!("no mean_vmaf: {j}"));

    // The same frames through `vkssim score`: bench --write-yuv writes the
    // generated pair, --frames times.
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("pair");
    let o = run(&bench_args(&["--write-yuv", s(&prefix)]), None);
    assert_ok(&o);
    let (r, d) = (
        dir.path().join("pair_ref.yuv"),
        dir.path().join("pair_dist.yuv"),
    );
    let out = dir.path().join("score.json");
    let o = run(
        &[
            "score",
            "-r",
            s(&r),
            "-d",
            s(&d),
            "-w",
            "64",
            "-h",
            "48",
            "-p",
            "420",
            "-b",
            "8",
            "-m",
            "version=vmaf_v0.6.1",
            "--backend",
            "cpu",
            "--json",
            "--precision",
            "max",
            "-q",
            "-o",
            s(&out),
        ],
        None,
    );
    assert_ok(&o);
    let score: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(score["frames"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        score["pooled_metrics"]["vmaf"]["mean"].as_f64(),
        Some(vmaf),
        "bench {vmaf} vs score {score}"
    );
}

#[test]
fn bench_times_each_vmaf_extractor_alone() {
    for (feature, first) in [
        ("vif", "integer_vif_scale0"),
        ("adm", "integer_adm2"),
        ("motion", "integer_motion2"),
    ] {
        let (j, _) = bench(&["--backend", "cpu", "-n", "--feature", feature]);
        assert_eq!(j["features"], feature, "{j}");
        let mean = j[format!("mean_{first}")].as_f64();
        // motion2 is filled by the run's collector: identical generated
        // frames move by nothing.
        assert!(mean.is_some_and(f64::is_finite), "{feature}: {j}");
        check_timing(&j);
    }
    // -n drops the model: the mean is of the first feature.
    let (j, _) = bench(&[
        "--backend",
        "cpu",
        "-n",
        "-m",
        "version=vmaf_v0.6.1",
        "--feature",
        "vif",
    ]);
    assert!(
        j.get("mean_vmaf").is_none() && j["mean_integer_vif_scale0"].is_f64(),
        "{j}"
    );
}

#[test]
fn vmaf_on_vulkan_reports_the_cpu_twins_mean_with_either_motion_and_auto_keeps_the_cpu_on_lavapipe()
{
    let (on_cpu, _) = bench(&["--backend", "cpu", "-m", "version=vmaf_v0.6.1"]);
    let (on_vulkan, _) = bench(&["--backend", "vulkan", "-m", "version=vmaf_v0.6.1"]);
    assert!(
        on_vulkan["backend"]
            .as_str()
            .is_some_and(|b| b.starts_with("vulkan")),
        "{on_vulkan}"
    );
    assert!(on_cpu["mean_vmaf"].is_f64(), "{on_cpu}");
    assert_eq!(on_vulkan["mean_vmaf"], on_cpu["mean_vmaf"]);
    // Only a CPU implementation of Vulkan here (lavapipe): auto scores on
    // the CPU twin, which is faster.
    let (j, err) = bench(&["-m", "version=vmaf_v0.6.1"]);
    if err.contains("CPU implementation") {
        assert!(
            j["backend"].as_str().is_some_and(|b| b.starts_with("cpu")),
            "{j}"
        );
    }
    // libvmaf 3.2.0's motion runs on Vulkan too, with the same mean (bench's
    // generated frames repeat, so motion is 0 here: tests/tests/
    // vmaf_v32_cli_vs_fixtures.rs compares moving clips with libvmaf 3.2.0).
    let v32 = ["-m", "version=vmaf_v0.6.1", "--motion-version", "3.2.0"];
    let (cpu32, _) = bench(&[&["--backend", "cpu"][..], &v32].concat());
    let (vulkan32, _) = bench(&[&["--backend", "vulkan"][..], &v32].concat());
    assert!(cpu32["mean_vmaf"].is_f64(), "{cpu32}");
    assert_eq!(vulkan32["mean_vmaf"], cpu32["mean_vmaf"]);
}
