//! The plan's resolution: what each flag becomes, and each check failing
//! when it should (with its message).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Parser;
use vkssim::io::{Chroma, RawFormat};
use vkssim::SsimOptions;

use super::*;
use crate::args::{with_default_subcommand, Backend, Cli, Command, DeviceChoice};
use crate::output::{Format, Precision};

/// The `score` flags of `line` (words split at spaces).
pub(crate) fn args(line: &str) -> ScoreArgs {
    let words: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
    match Cli::try_parse_from(with_default_subcommand(words))
        .unwrap()
        .command
    {
        Command::Score(s) => *s,
        c => panic!("not score: {c:?}"),
    }
}

fn plan(line: &str) -> Result<ScorePlan> {
    ScorePlan::resolve(&args(line), None)
}

/// The error `line` resolves to, which must contain `needle`.
fn refused(line: &str, needle: &str) {
    match plan(line) {
        Ok(p) => panic!("{line}: accepted as {p:?}"),
        Err(e) => {
            let msg = format!("{e:#}");
            assert!(msg.contains(needle), "{line}: {msg}");
        }
    }
}

#[test]
fn a_plain_pair() {
    let p = plan("vkssim -r a.y4m -d b.y4m").unwrap();
    assert_eq!(p.mode, Mode::Pair);
    assert_eq!(p.inputs.reference, Path::new("a.y4m"));
    assert_eq!(p.inputs.distorted, [PathBuf::from("b.y4m")]);
    assert_eq!(p.inputs.kind, InputKind::Frames { raw: None });
    // As vmaf: the default model, no other feature.
    assert_eq!(
        p.features,
        crate::feature::Features::parse_with_models(
            &[],
            &[crate::feature::DEFAULT_MODEL.to_string()],
            Spelling::Flags
        )
        .unwrap()
    );
    assert_eq!(p.outputs.targets, [None]);
    assert_eq!(p.outputs.dir, None);
    assert_eq!(p.outputs.format, Format::Xml);
    assert_eq!(p.outputs.trace, None);
    assert_eq!(p.backend.backend, Backend::Auto);
    assert_eq!(
        p.selection,
        Selection {
            skip_ref: 0,
            skip_dist: 0,
            frame_cnt: 0,
            subsample: 0,
            allow_length_mismatch: false,
            spelling: Spelling::Flags,
        }
    );
    assert!(!p.quiet);
}

#[test]
fn every_part_takes_its_flags() {
    let p = ScorePlan::resolve(
        &args(
            "vkssim -r a.yuv -d b.yuv -w 64 -h 48 -p 422 -b 10 --frame_cnt 5 \
             --frame_skip_ref 1 --frame_skip_dist 2 --subsample 3 --allow-length-mismatch \
             -n --feature float_ssim=enable_lcs=true --json -o out.json --precision max -q \
             --backend vulkan --device 1,0 --threads 3",
        ),
        Some(Path::new("t.json")),
    )
    .unwrap();
    assert_eq!(
        p.inputs.kind,
        InputKind::Frames {
            raw: Some(RawFormat {
                width: Some(64),
                height: Some(48),
                chroma: Some(Chroma::C422),
                bit_depth: Some(10),
            })
        }
    );
    assert_eq!(
        p.selection,
        Selection {
            skip_ref: 1,
            skip_dist: 2,
            frame_cnt: 5,
            subsample: 3,
            allow_length_mismatch: true,
            spelling: Spelling::Flags,
        }
    );
    let lcs = SsimOptions {
        enable_lcs: true,
        ..Default::default()
    };
    assert_eq!(p.features.ssim(), lcs);
    assert_eq!(p.features.configs().len(), 1);
    assert_eq!(p.outputs.targets, [Some(PathBuf::from("out.json"))]);
    assert_eq!(p.outputs.format, Format::Json);
    assert_eq!(p.outputs.precision, Precision::Max);
    assert_eq!(p.outputs.trace.as_deref(), Some(Path::new("t.json")));
    assert_eq!(p.backend.backend, Backend::Vulkan);
    assert_eq!(p.backend.device, Some(DeviceChoice::List(vec![1, 0])));
    assert_eq!(p.backend.threads, 3);
    assert!(p.quiet);
}

#[test]
fn refused_vmaf_flags_come_first() {
    refused("vkssim -r a -d b -m version=vmaf_v9", "-m/--model");
    refused("vkssim -r a -d b --aom_ctc v1.0", "--aom_ctc v1.0");
    // Before a bad --feature and a bad -p.
    refused("vkssim -r a -d b -m x --feature adm -p 999", "-m/--model: ");
}

#[test]
fn features_are_each_asked_once() {
    refused(
        "vkssim -r a -d b --feature float_ssim --feature float_ssim=scale=2",
        "--feature float_ssim=scale=2: float_ssim is already requested with other options; give it once",
    );
    refused("vkssim -r a -d b --feature ciede", "`ciede`");
    refused(
        "vkssim -r a -d b --feature adm --feature adm=debug=true",
        "adm is already requested with other options",
    );
    let several = plan("vkssim -r a -d b -n --feature adm --feature float_ssim").unwrap();
    assert_eq!(several.features.configs().len(), 2);
    let same =
        plan("vkssim -r a -d b -n --feature float_ssim=scale=2 --feature float_ssim=scale=2")
            .unwrap();
    assert_eq!(same.features.configs().len(), 1);
    assert_eq!(same.features.ssim().scale, 2);
}

#[test]
fn standard_input_is_one_input_at_most() {
    refused(
        "vkssim -r - -d -",
        "the reference and the distorted input cannot both be standard input (-)",
    );
    refused(
        "vkssim -r a -d - -d - --output-dir o",
        "standard input (-) can be only one of the inputs",
    );
    let p = plan("vkssim -r - -d b").unwrap();
    assert!(p.inputs.reads_stdin());
    assert!(!plan("vkssim -r a -d b").unwrap().inputs.reads_stdin());
}

/// `--decode gpu` where vkssim can decode on the GPU; without FFmpeg, `.h264`
/// goes there by default.
#[cfg(any(feature = "vulkan-video", not(feature = "ffmpeg")))]
const GPU: &str = if cfg!(feature = "ffmpeg") {
    " --decode gpu"
} else {
    ""
};

// With FFmpeg and without Vulkan Video, .h264 is an encoded input like any
// other and `--decode gpu` is refused.
#[cfg(any(feature = "vulkan-video", not(feature = "ffmpeg")))]
#[test]
fn h264_is_a_pair_of_streams_without_the_flags_for_frames() {
    let p = plan(&format!("vkssim -r a.h264 -d b.264 -o o.xml{GPU}")).unwrap();
    assert_eq!(p.mode, Mode::H264);
    assert_eq!(p.inputs.kind, InputKind::H264);
    assert_eq!(p.inputs.raw(), None);
    if cfg!(feature = "ffmpeg") {
        // Any container; the codec is checked when the input is opened.
        let p = plan("vkssim -r a.mp4 -d b.mkv --decode gpu").unwrap();
        assert_eq!(p.inputs.kind, InputKind::H264);
        // auto: the CPU (no measurement shows the GPU faster yet).
        let p = plan("vkssim -r a.h264 -d b.264").unwrap();
        assert_eq!(p.mode, Mode::Pair);
        refused(
            "vkssim -r - -d b.mp4 --decode gpu",
            "the reference input is standard input, which the GPU's decoder does not read",
        );
    } else {
        refused(
            "vkssim -r a.h264 -d b.y4m",
            "the distorted input b.y4m is not an H.264 Annex B stream",
        );
        refused(
            "vkssim -r a.y4m -d b.h264",
            "the reference input a.y4m is not an H.264 Annex B stream",
        );
        refused(
            "vkssim -r a.h264 -d b.h264 --decode cpu",
            "--decode cpu: .h264 inputs are decoded on the CPU by FFmpeg",
        );
    }
    for (flags, named) in [
        ("-w 64", "-w/--width"),
        ("-p 420", "-p/--pixel_format"),
        ("--frame_skip_dist 1", "--frame_skip_dist"),
        ("--subsample 2", "--subsample"),
        ("--device 0", "--device"),
        // The first refused flag is named, not the engine's conflict.
        ("--backend cpu --device 0", "--backend cpu"),
    ] {
        refused(
            &format!("vkssim -r a.h264 -d b.h264 {flags}{GPU}"),
            &format!("{named} does not apply to H.264 inputs"),
        );
    }
    // --subsample 1 scores every frame: allowed.
    assert!(plan(&format!("vkssim -r a.h264 -d b.h264 --subsample 1{GPU}")).is_ok());
    for line in [
        "vkssim -r a.h264 -d b.h264 -d c.h264",
        "vkssim -r a.h264 -d b.h264 --output-dir o",
    ] {
        refused(
            &format!("{line}{GPU}"),
            "score inputs decoded on the GPU (--decode gpu, .h264) one pair at a time",
        );
    }
}

#[cfg(all(feature = "ffmpeg", not(feature = "vulkan-video")))]
#[test]
fn decode_gpu_needs_the_vulkan_video_build() {
    refused(
        "vkssim -r a.mp4 -d b.mp4 --decode gpu",
        "--decode gpu needs vkssim built with the vulkan-video feature",
    );
    let p = plan("vkssim -r a.h264 -d b.264 --decode cpu").unwrap();
    assert_eq!(p.mode, Mode::Pair);
}

#[test]
fn a_ladder_gets_an_output_per_input() {
    let p = plan("vkssim -r r.y4m -d x/a.y4m -d y/b.yuv --csv --output-dir out").unwrap();
    assert_eq!(p.mode, Mode::Ladder);
    assert_eq!(
        p.outputs.targets,
        [
            Some(PathBuf::from("out/a.csv")),
            Some(PathBuf::from("out/b.csv"))
        ]
    );
    assert_eq!(p.outputs.dir.as_deref(), Some(Path::new("out")));
    let p = plan("vkssim -r r.y4m -d a.y4m -d - -o s/{name}_{index}.json").unwrap();
    assert_eq!(
        p.outputs.targets,
        [
            Some(PathBuf::from("s/a_0.json")),
            Some(PathBuf::from("s/stdin_1.json"))
        ]
    );
    // One -d with a pattern is a ladder of one.
    let p = plan("vkssim -r r.y4m -d a.y4m -o {name}.xml").unwrap();
    assert_eq!(p.mode, Mode::Ladder);
    assert_eq!(p.outputs.targets, [Some(PathBuf::from("a.xml"))]);
    // Several -d without outputs: a summary each.
    let p = plan("vkssim -r r.y4m -d a.y4m -d b.y4m").unwrap();
    assert_eq!(p.outputs.targets, [None, None]);
}

#[test]
fn conflicting_outputs_are_refused() {
    refused(
        "vkssim -r r -d a -d b -o out.json",
        "-o out.json: with several -d, -o is a pattern with {name}",
    );
    // clap refuses -o with --output-dir.
    let words = [
        "vkssim",
        "-r",
        "r",
        "-d",
        "a",
        "-o",
        "x",
        "--output-dir",
        "o",
    ];
    assert!(Cli::try_parse_from(words).is_err());
}

#[test]
fn the_raw_layout_is_checked() {
    refused("vkssim -r a.yuv -d b.yuv -p 999", "-p/--pixel_format");
    let p = plan("vkssim -r a.yuv -d b.yuv -w 8").unwrap();
    assert_eq!(
        p.inputs.raw(),
        Some(RawFormat {
            width: Some(8),
            ..Default::default()
        })
    );
    // In a ladder too, after the -o pattern check.
    refused(
        "vkssim -r a -d b -d c -p 999 --output-dir o",
        "-p/--pixel_format",
    );
    refused(
        "vkssim -r a -d b -d c -p 999 -o x",
        "with several -d, -o is a pattern",
    );
}

#[test]
fn a_device_is_refused_with_the_cpu_backend() {
    refused(
        "vkssim -r a -d b --backend cpu --device 0",
        "--device 0 picks a Vulkan device, and --backend cpu scores on the CPU twin",
    );
    refused(
        "vkssim -r a -d b --backend cpu --device all",
        "--device all picks",
    );
    let p = plan("vkssim -r a -d b -n --feature float_ssim --device 0,2").unwrap();
    let err = p.backend.on_cpu().unwrap_err().to_string();
    assert!(err.contains("--device 0,2 picks a Vulkan device"), "{err}");
    let p = plan("vkssim -r a -d b --backend cpu --threads 2").unwrap();
    assert_eq!(p.backend.on_cpu().unwrap(), p.backend);
}

#[test]
fn the_default_model_runs_unless_n_or_m() {
    let models = |line: &str| {
        let names = plan(line)
            .unwrap()
            .features
            .models()
            .unwrap()
            .output_names();
        names.len()
    };
    assert_eq!(models("vkssim -r a -d b"), 1);
    assert_eq!(models("vkssim score -r a -d b --feature float_ssim"), 1);
    assert_eq!(
        models("vkssim -r a -d b -m version=vmaf_4k_v0.6.1 -m version=vmaf_v0.6.1:name=x"),
        2
    );
    assert_eq!(models("vkssim -r a -d b -n --feature float_ssim"), 0);
    assert_eq!(
        models("vkssim -r a -d b -n -m version=vmaf_v0.6.1 --feature float_ssim"),
        0
    );
    // The model's extractors first, then the features given, as vmaf.
    let p = plan("vkssim -r a -d b --feature float_ssim").unwrap();
    let names: Vec<_> = p.features.configs().iter().map(|m| m.feature()).collect();
    assert_eq!(names.last(), Some(&"float_ssim"));
    assert!(names.len() > 1, "{names:?}");
    for line in [
        "vkssim -r a -d b -n",
        "vkssim -r a -d b -n -m version=vmaf_v0.6.1",
    ] {
        refused(
            line,
            "-n/--no_prediction runs no model and no --feature is given",
        );
    }
    // A front end's pair has the default model too; no model and no
    // feature is refused in its words.
    let mut args = ScoreArgs::pair("a".into(), "b".into());
    args.spelling = Spelling::Keywords;
    let p = ScorePlan::resolve(&args, None).unwrap();
    assert_eq!(p.features.models().unwrap().output_names(), ["vmaf"]);
    args.model.clear();
    let e = ScorePlan::resolve(&args, None).unwrap_err().to_string();
    assert!(
        e.starts_with("model=None and no features: nothing to score"),
        "{e}"
    );
}

#[test]
fn vmaf_plans_on_an_engine_asked_to_be_vulkan() {
    for line in [
        "vkssim -r a -d b --backend vulkan",
        "vkssim -r a -d b --device 0",
        "vkssim -r a -d b --backend vulkan -m version=vmaf_4k_v0.6.1",
        "vkssim -r a -d b --backend vulkan -n --feature float_ssim",
        "vkssim -r a -d b",
        "vkssim -r a -d b --backend cpu",
    ] {
        assert!(plan(line).is_ok(), "{line}");
    }
}
