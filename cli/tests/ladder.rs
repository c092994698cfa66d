//! `vkssim score` with several `-d` (a ladder): each input's output is
//! byte-identical, apart from the fps figure, to what the single-pair run
//! writes (files and a pipe, different lengths, a wrong geometry, a length
//! error mid-run), and the output rules (patterns, --output-dir, never an
//! input overwritten) hold for each output.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use common::{assert_fails, assert_ok, file, no_model, run_cmd, s, stderr, vkssim, y4m_clip};

/// Runs `vkssim ARGS` on the Vulkan backend with validation on
/// (synchronization included); any validation message fails the test.
fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_logging(args, stdin, "warn")
}

/// [`run`] logging at `VKSSIM_LOG=log`.
fn run_logging(args: &[&str], stdin: Option<&[u8]>, log: &str) -> Output {
    let mut cmd = vkssim();
    cmd.env("VKSSIM_LOG", log)
        .args(args)
        .args(["--backend", "vulkan"])
        .env("VKSSIM_VALIDATION", "1")
        .stdin(Stdio::null());
    let o = run_cmd(&mut cmd, stdin);
    let err = stderr(&o);
    assert!(!err.contains("vkssim::vk::validation"), "{err}");
    o
}

const W: u32 = 48;
const H: u32 = 40;

/// The text of an output with its fps figure blanked (the one line that
/// depends on timing).
fn without_fps(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .map(|l| {
            if l.contains("\"fps\"") || l.contains("fps=") {
                "FPS"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

struct Clips {
    dir: tempfile::TempDir,
    reference: PathBuf,
    /// As long as the reference.
    full: PathBuf,
    /// Four frames, given on standard input.
    short: Vec<u8>,
    /// Another width.
    wide: PathBuf,
}

fn clips() -> Clips {
    let dir = tempfile::tempdir().unwrap();
    let reference = file(dir.path(), "ref.y4m", &y4m_clip(W, H, 6, 1));
    let full = file(dir.path(), "full.y4m", &y4m_clip(W, H, 6, 40));
    let short = y4m_clip(W, H, 4, 70);
    let wide = file(dir.path(), "wide.y4m", &y4m_clip(W + 16, H, 6, 9));
    Clips {
        dir,
        reference,
        full,
        short,
        wide,
    }
}

/// `score -r REF -d FULL`.
fn base(c: &Clips) -> Vec<&str> {
    vec![
        "score",
        "-n",
        "--feature",
        "float_ssim",
        "-r",
        s(&c.reference),
        "-d",
        s(&c.full),
    ]
}

/// The single-pair run of `dist` (`-` with `stdin`), writing `out`.
fn single(c: &Clips, dist: &str, stdin: Option<&[u8]>, out: &Path, extra: &[&str]) -> bool {
    let mut args = vec!["score", "-r", s(&c.reference), "-d", dist, "-o", s(out)];
    args.extend_from_slice(extra);
    args.extend_from_slice(no_model(extra));
    run(&args, stdin).status.success()
}

#[test]
fn each_output_equals_the_single_run() {
    let c = clips();
    let d = c.dir.path();
    let pattern = d.join("ladder_{index}.json");
    let extra = ["--json", "--allow-length-mismatch", "--precision", "max"];
    let mut args = base(&c);
    args.extend(["-d", "-", "-d", s(&c.wide), "-o", s(&pattern)]);
    args.extend_from_slice(&extra);
    let o = run(&args, Some(&c.short));
    // The wrong geometry fails alone (status 1); the others are scored.
    assert_fails(&o, &["differ", s(&c.wide)]);
    assert_eq!(o.status.code(), Some(1));

    let one = d.join("single_full.json");
    assert!(single(&c, s(&c.full), None, &one, &extra));
    assert_eq!(without_fps(&d.join("ladder_0.json")), without_fps(&one));
    let one = d.join("single_pipe.json");
    assert!(single(&c, "-", Some(&c.short), &one, &extra));
    let piped = without_fps(&d.join("ladder_1.json"));
    assert_eq!(piped, without_fps(&one));
    assert!(piped.matches("\"frameNum\"").count() == 4, "{piped}");
    // As the single run: a geometry error writes nothing.
    let one = d.join("single_wide.json");
    assert!(!single(&c, s(&c.wide), None, &one, &extra));
    assert!(!one.exists());
    assert!(!d.join("ladder_2.json").exists());
    assert!(!d.join("ladder_2.json.partial").exists());
}

#[test]
fn a_length_error_mid_run_leaves_that_input_partial() {
    let c = clips();
    let d = c.dir.path();
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    let mut args = base(&c);
    args.extend(["-d", "-", "--output-dir", s(&out), "--xml"]);
    let o = run(&args, Some(&c.short));
    assert_fails(&o, &["reference has 6 frames but distorted has 4"]);
    assert_eq!(o.status.code(), Some(1));
    let one = d.join("single_full.xml");
    assert!(single(&c, s(&c.full), None, &one, &["--xml"]));
    assert_eq!(without_fps(&out.join("full.xml")), without_fps(&one));
    // The pipe's input is `stdin`; its single run fails the same way.
    assert!(!out.join("stdin.xml").exists());
    let one = d.join("single_pipe.xml");
    assert!(!single(&c, "-", Some(&c.short), &one, &["--xml"]));
    let partial = |p: &Path| {
        let mut s = p.as_os_str().to_owned();
        s.push(".partial");
        PathBuf::from(s)
    };
    assert_eq!(
        without_fps(&partial(&out.join("stdin.xml"))),
        without_fps(&partial(&one))
    );
}

#[test]
fn summaries_name_each_input() {
    let c = clips();
    let other = file(c.dir.path(), "other.y4m", &y4m_clip(W, H, 6, 90));
    let mut args = base(&c);
    args.extend(["-d", s(&other)]);
    let o = run(&args, None);
    assert_ok(&o);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let single = |d: &Path| {
        let o = run(
            &[
                "score",
                "-n",
                "--feature",
                "float_ssim",
                "-r",
                s(&c.reference),
                "-d",
                s(d),
            ],
            None,
        );
        assert_ok(&o);
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let expected = format!(
        "{}:\n{}{}:\n{}",
        c.full.display(),
        single(&c.full),
        other.display(),
        single(&other)
    );
    assert_eq!(text, expected);
}

#[test]
fn outputs_are_refused_before_any_work() {
    let c = clips();
    let d = c.dir.path();
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let twin = file(&sub, "full.y4m", &y4m_clip(W, H, 6, 3));
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    let base = base(&c);

    // One -o for several inputs needs a pattern.
    let one = d.join("one.xml");
    let mut args = base.to_vec();
    args.extend(["-d", s(&twin), "-o", s(&one)]);
    assert_fails(&run(&args, None), &["{name}", "{index}"]);
    assert!(!one.exists());

    // Two inputs with one stem would write one file: both are named.
    let mut args = base.to_vec();
    args.extend(["-d", s(&twin), "--output-dir", s(&out)]);
    assert_fails(&run(&args, None), &[s(&c.full), s(&twin)]);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);

    // A pattern that names an input is refused: the input is left as it was.
    let before = std::fs::read(&c.full).unwrap();
    let pattern = d.join("{name}.y4m");
    let mut args = base.to_vec();
    args.extend(["-o", s(&pattern)]);
    let o = run(&args, None);
    assert_fails(&o, &["same file", s(&c.full)]);
    assert_eq!(std::fs::read(&c.full).unwrap(), before);

    // One FIFO as two inputs (through a symlink).
    let fifo = d.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let link = d.join("link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let mut args = base.to_vec();
    args.extend(["-d", s(&fifo), "-d", s(&link)]);
    assert_fails(
        &run(&args, None),
        &["same stream", "distorted input", s(&link)],
    );

    // Standard input as two inputs.
    let mut args = base.to_vec();
    args.extend(["-d", "-", "-d", "-"]);
    let o = run(&args, Some(&c.short));
    assert_fails(&o, &["standard input"]);
    assert!(stderr(&o).contains("only one"), "{}", stderr(&o));
}

#[test]
fn a_piped_reference_with_skips_and_subsampling() {
    let c = clips();
    let d = c.dir.path();
    let reference = y4m_clip(W, H, 6, 1);
    let other = file(d, "other.y4m", &y4m_clip(W, H, 5, 90));
    let extra = [
        "--csv",
        "--frame_skip_ref",
        "1",
        "--frame_skip_dist",
        "1",
        "--subsample",
        "2",
        "--frame_cnt",
        "4",
        "--allow-length-mismatch",
        "--precision",
        "max",
    ];
    let pattern = d.join("{name}.csv");
    let mut args = vec![
        "score",
        "-r",
        "-",
        "-d",
        s(&c.full),
        "-d",
        s(&other),
        "-o",
        s(&pattern),
    ];
    args.extend_from_slice(&extra);
    args.extend_from_slice(no_model(&extra));
    assert_ok(&run(&args, Some(&reference)));
    for (dist, name) in [(&c.full, "full"), (&other, "other")] {
        let one = d.join(format!("single_{name}.csv"));
        let mut args = vec!["score", "-r", "-", "-d", s(dist), "-o", s(&one)];
        args.extend_from_slice(&extra);
        args.extend_from_slice(no_model(&extra));
        assert_ok(&run(&args, Some(&reference)));
        let ladder = without_fps(&d.join(format!("{name}.csv")));
        assert_eq!(ladder, without_fps(&one));
        assert!(ladder.lines().count() >= 2, "{ladder}");
    }
}

#[test]
fn the_ladder_bench_scores_as_the_separate_runs() {
    // The bench fails when the ladder and the separate runs disagree on a
    // score; its timings are reported, not checked.
    for extra in [&[][..], &["--json"][..]] {
        let mut args = vec![
            "bench", "--ladder", "3", "-w", "64", "-h", "48", "--frames", "5", "--repeat", "1",
        ];
        args.extend_from_slice(extra);
        let o = run(&args, None);
        assert_ok(&o);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            out.contains("distorted_frames_per_second") || out.contains("ladder / separate"),
            "{out}"
        );
    }
}

/// `bench --ladder` with a feature list, psnr reading chroma (the shared
/// reference holds the whole picture) beside float_ms_ssim, at an odd size,
/// 8-bit 4:2:0 and 10-bit 4:4:4: the ladder, the ladder with copied
/// references and the separate runs give every output of every pair bit for
/// bit alike (the bench fails otherwise), and it says so.
#[test]
fn the_ladder_bench_takes_a_feature_list_with_chroma() {
    let features = ["--feature", "psnr", "--feature", "float_ms_ssim"];
    let common = ["bench", "--ladder", "2", "--frames", "3", "--repeat", "1"];
    for geometry in [
        &["-w", "176", "-h", "177"][..],
        &["-w", "177", "-h", "176", "-b", "10", "-p", "444"][..],
    ] {
        let mut args = [&common[..], &features[..], geometry].concat();
        let o = run(&args, None);
        assert_ok(&o);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        // Three ways, 2 lanes x 3 frames, psnr_y/_cb/_cr and float_ms_ssim.
        assert!(
            out.contains("psnr float_ms_ssim")
                && out.contains(
                    "scores identical in every way: 3 runs x 6 pairs x 4 outputs, bit for bit"
                ),
            "{out}"
        );
        args.push("--json");
        let o = run(&args, None);
        assert_ok(&o);
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(json["features"], "psnr float_ms_ssim", "{json}");
        assert_eq!(json["identical_across_modes"], true, "{json}");
        assert_eq!(json["reference_uploaded_once"], true, "{json}");
        assert_eq!(json["pairs_compared"], 6, "{json}");
        assert_eq!(json["outputs_per_pair"], 4, "{json}");
    }
}

#[test]
fn many_frames_on_many_threads() {
    // Enough frames and readers that the lanes run ahead of each other and
    // the shared reference's window fills; each output still equals its run.
    // Also over two engines of one device (`--device 0,0`), each with its
    // pool of shared planes.
    let c = clips();
    let d = c.dir.path();
    let reference = file(d, "long_ref.y4m", &y4m_clip(W, H, 60, 5));
    let dists: Vec<PathBuf> = (0..4)
        .map(|k| file(d, &format!("long_{k}.y4m"), &y4m_clip(W, H, 60, 20 + k)))
        .collect();
    let piped = y4m_clip(W, H, 60, 99);
    let extra = ["--json", "--read-threads", "8", "--frames-in-flight", "3"];
    let inputs: Vec<&str> = std::iter::once("-")
        .chain(dists.iter().map(|p| s(p)))
        .collect();
    let singles: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(k, dist)| {
            let one = d.join(format!("many_single_{k}.json"));
            let mut args = vec!["score", "-r", s(&reference), "-d", dist, "-o", s(&one)];
            args.extend_from_slice(&extra);
            args.extend_from_slice(no_model(&extra));
            let stdin = (*dist == "-").then_some(&piped[..]);
            assert_ok(&run(&args, stdin));
            without_fps(&one)
        })
        .collect();
    for (run_no, devices) in [&[][..], &["--device", "0,0"][..]].into_iter().enumerate() {
        let pattern = d.join(format!("many{run_no}_{{index}}.json"));
        let mut args = vec!["score", "-r", s(&reference)];
        for dist in &inputs {
            args.extend(["-d", dist]);
        }
        args.extend(["-o", s(&pattern)]);
        args.extend_from_slice(&extra);
        args.extend_from_slice(no_model(&extra));
        args.extend_from_slice(devices);
        let o = run_logging(&args, Some(&piped), "info");
        assert_ok(&o);
        // The reference went to the device once per frame, into shared planes.
        assert!(
            stderr(&o).contains("uploaded once per device, into shared planes"),
            "{devices:?}: {}",
            stderr(&o)
        );
        for (k, one) in singles.iter().enumerate() {
            let ladder = without_fps(&d.join(format!("many{run_no}_{k}.json")));
            assert_eq!(&ladder, one, "{devices:?} input {k}");
            assert_eq!(ladder.matches("\"frameNum\"").count(), 60);
        }
    }
}
