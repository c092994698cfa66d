//! libvmaf 3.2.0's motion (`vkssim::testing::motion::v32`) against what a
//! libvmaf 3.2.0 `vmaf` CLI reported on committed clips
//! (`tests/fixtures/motion_v32/`, remade by `tools/motion-v32-fixtures.sh`;
//! CI builds only libvmaf 2.3.1): every frame's SAD score, `integer_motion`
//! (with `debug`), `integer_motion2` and `integer_motion3`, bit for bit, at
//! 8, 10, 12 and 16 bits, on 1, 2, 3, 4 and 5-frame clips, from 3x3 to 48x32
//! (odd sizes in 4:4:4: 3.2.0 crashes on odd-width 4:2:0), with
//! `motion_force_zero`, and with `motion_fps_weight`, `motion_max_val`,
//! `motion_blend_factor` and `motion_blend_offset` together (the names with
//! 3.2.0's suffixes too).

use std::path::{Path, PathBuf};

use vkssim::testing::motion::v32::{self, Motion32Options};
use vkssim::LumaView;
use vkssim_tests::paths;

/// The fixture folder.
fn fixtures() -> PathBuf {
    paths::workspace_root().join("tests/fixtures/motion_v32")
}

/// One line of `cases.txt`.
struct Case {
    name: String,
    width: u32,
    height: u32,
    chroma_samples: usize,
    bit_depth: u32,
    frames: usize,
    feature: String,
}

fn cases() -> Vec<Case> {
    let path = fixtures().join("cases.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let num = |i: usize| -> u32 { f[i].parse().unwrap() };
            let (w, h) = (num(1), num(2));
            let chroma_samples = match f[3] {
                "420" => 2 * w.div_ceil(2) as usize * h.div_ceil(2) as usize,
                "444" => 2 * w as usize * h as usize,
                other => panic!("{line}: pixel format {other}"),
            };
            Case {
                name: f[0].into(),
                width: w,
                height: h,
                chroma_samples,
                bit_depth: num(4),
                frames: num(5) as usize,
                feature: f[6].into(),
            }
        })
        .collect()
}

/// The options of `motion[=key=value:...]`.
fn options(feature: &str) -> Motion32Options {
    let mut o = Motion32Options::default();
    if let Some((_, list)) = feature.split_once('=') {
        for kv in list.split(':') {
            let (k, v) = kv.split_once('=').unwrap();
            let num = || v.parse::<f64>().unwrap();
            match k {
                "debug" => o.debug = v == "true",
                "motion_force_zero" => o.force_zero = v == "true",
                "motion_fps_weight" => o.fps_weight = num(),
                "motion_max_val" => o.max_val = num(),
                "motion_blend_factor" => o.blend_factor = num(),
                "motion_blend_offset" => o.blend_offset = num(),
                _ => panic!("{feature}: option {k}"),
            }
        }
    }
    o
}

/// Per frame, the `(name, value)` pairs of the JSON's `metrics`, in the
/// file's order; numbers read with Rust's correctly rounded parser.
fn read_json(path: &Path) -> Vec<Vec<(String, f64)>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let frames_part = text.split("\"pooled_metrics\"").next().unwrap();
    let mut frames: Vec<Vec<(String, f64)>> = Vec::new();
    for line in frames_part.lines().map(str::trim) {
        if line.starts_with("\"frameNum\"") {
            frames.push(Vec::new());
        } else if let (Some(frame), Some((key, value))) = (frames.last_mut(), line.split_once(": "))
        {
            let value = value.trim_end_matches(',');
            if let Ok(v) = value.parse::<f64>() {
                frame.push((key.trim_matches('"').to_string(), v));
            }
        }
    }
    frames
}

/// The twin's per-frame values for `case`, in the output order.
fn ours(case: &Case, opts: &Motion32Options) -> Vec<Vec<f64>> {
    let path = fixtures().join(format!("{}.yuv", case.name));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let bps = if case.bit_depth == 8 { 1 } else { 2 };
    let luma = case.width as usize * case.height as usize * bps;
    let frame_bytes = luma + case.chroma_samples * bps;
    assert_eq!(bytes.len(), frame_bytes * case.frames, "{}", case.name);
    let view = |n: usize| {
        let start = n * frame_bytes;
        LumaView::new(
            case.width,
            case.height,
            case.bit_depth,
            case.width as usize * bps,
            &bytes[start..start + luma],
        )
        .unwrap()
    };
    let motion: Vec<f64> = (0..case.frames)
        .map(|n| {
            let sad =
                (n > 0 && !opts.force_zero).then(|| v32::sad(&view(n - 1), &view(n)).unwrap());
            v32::motion_from_sad(sad, case.width, case.height, opts)
        })
        .collect();
    v32::motion2_motion3(&motion, opts, true)
        .into_iter()
        .zip(&motion)
        .map(|((m2, m3), &m)| {
            let mut row = vec![m];
            if opts.debug {
                row.push(m);
            }
            row.extend([m2, m3]);
            row
        })
        .collect()
}

#[test]
fn every_fixture_matches_bit_for_bit() {
    let cases = cases();
    assert!(cases.len() >= 10);
    for case in &cases {
        let opts = options(&case.feature);
        v32::check_options(&opts).unwrap();
        let want = read_json(&fixtures().join(format!("{}.json", case.name)));
        let got = ours(case, &opts);
        assert_eq!(got.len(), want.len(), "{}: frames", case.name);
        for (n, (g, w)) in got.iter().zip(&want).enumerate() {
            let names: Vec<&str> = w.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(names, opts.output_names(), "{}: frame {n}", case.name);
            let bits = |v: &mut dyn Iterator<Item = f64>| v.map(f64::to_bits).collect::<Vec<_>>();
            assert_eq!(
                bits(&mut g.iter().copied()),
                bits(&mut w.iter().map(|(_, v)| *v)),
                "{}: frame {n}: ours {g:?}, vmaf 3.2.0 {w:?}",
                case.name
            );
        }
        eprintln!(
            "{} ({}): {} frames identical",
            case.name,
            case.feature,
            got.len()
        );
    }
}

#[test]
fn unreproduced_options_are_refused() {
    for opts in [
        Motion32Options {
            moving_average: true,
            ..Default::default()
        },
        Motion32Options {
            five_frame_window: true,
            ..Default::default()
        },
    ] {
        assert!(v32::check_options(&opts).is_err());
    }
}
