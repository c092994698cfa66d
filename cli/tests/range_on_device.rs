//! A 10-bit raw file with a sample above 1023, scored by `vkssim score` on the
//! Vulkan backend from regular files (the pipeline, where the device's
//! decimate pass checks the range instead of the readers): the error names the
//! file, the frame and the sample's position, the exit status is non-zero, and
//! the frames before it are kept. The same from a pipe, and on the CPU twin
//! (whose readers check the samples instead).

mod common;

use common::{assert_fails, file, run, s};

/// A raw 10-bit 4:2:0 clip of `frames` frames, samples in range, little-endian.
fn raw10(width: u32, height: u32, frames: u32, seed: u32) -> Vec<u8> {
    let samples = (width * height * 3 / 2) as usize;
    let mut st = seed.wrapping_mul(2_654_435_761) | 1;
    let mut out = Vec::with_capacity(2 * samples * frames as usize);
    for _ in 0..frames as usize * samples {
        st ^= st << 13;
        st ^= st >> 17;
        st ^= st << 5;
        out.extend_from_slice(&((st % 1024) as u16).to_le_bytes());
    }
    out
}

/// `vkssim score` of two 780x520 10-bit clips of 4 frames on `backend`, the
/// distorted one's frame 2 with its last sample (which no decimation window
/// reads: auto scale 2 reads columns 0..=778 and rows 0..=518 only) at 1030;
/// the distorted clip from standard input with `piped`.
fn score_bad_frame(backend: &str, piped: bool) -> std::process::Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let (w, h) = (780u32, 520u32);
    let reference = raw10(w, h, 4, 1);
    let mut distorted = raw10(w, h, 4, 2);
    let frame_bytes = (w * h * 3 / 2) as usize * 2;
    let at = 2 * frame_bytes + (((h - 1) * w + w - 1) as usize) * 2;
    distorted[at..at + 2].copy_from_slice(&1030u16.to_le_bytes());
    let r = file(dir.path(), "ref.yuv", &reference);
    let d = file(dir.path(), "dist.yuv", &distorted);
    let d_arg = if piped { "-" } else { s(&d) };
    let geometry = raw10_geometry(w, h);
    let mut args = vec![
        "score",
        "-n",
        "--feature",
        "float_ssim",
        "-r",
        s(&r),
        "-d",
        d_arg,
        "--backend",
        backend,
    ];
    args.extend(geometry.iter().map(String::as_str));
    run(&args, piped.then_some(&distorted[..]))
}

/// `-w W -h H -p 420 -b 10`.
fn raw10_geometry(w: u32, h: u32) -> Vec<String> {
    [
        "-w",
        &w.to_string(),
        "-h",
        &h.to_string(),
        "-p",
        "420",
        "-b",
        "10",
    ]
    .map(String::from)
    .to_vec()
}

fn gpu_tests_skipped() -> bool {
    std::env::var("VKSSIM_SKIP_GPU_TESTS").is_ok_and(|v| v == "1")
}

/// Asserts that the run failed on the bad sample as `context` says (how the
/// error arose), naming the input (`named`) and its frame 2, and kept the two
/// frames before it.
fn assert_refused(out: &std::process::Output, context: &str, named: &str) {
    assert_fails(
        out,
        &[
            context,
            &format!("{named}: frame 2"),
            "x=779, y=519",
            "is 1030, above 1023",
            "2 frames were scored before the error",
        ],
    );
}

/// From the file, then from a pipe: a stream is read without the host check
/// too (the device finds the sample: the error is the scoring's, not the
/// read's).
#[test]
fn a_sample_above_the_bit_depth_names_file_frame_and_position() {
    if gpu_tests_skipped() {
        return;
    }
    for (piped, named) in [(false, "dist.yuv"), (true, "-")] {
        let out = score_bad_frame("vulkan", piped);
        assert_refused(&out, "scoring frame 2: ", named);
    }
}

/// The CPU twin has no device check: its reader threads check each frame
/// slot once both frames are read, with the same message.
#[test]
fn the_cpu_twin_refuses_the_sample_too() {
    for (piped, named) in [(false, "dist.yuv"), (true, "-")] {
        let out = score_bad_frame("cpu", piped);
        assert_refused(&out, "reading the distorted", named);
    }
}

/// A ladder (`-d` twice, `--output-dir`) whose reference has the bad sample in
/// frame 2: on the Vulkan backend the reference is uploaded once into a shared
/// plane and each pair finds the sample on the device; each input fails
/// naming the reference file and its frame, with its two frames before kept
/// (a `.partial` output each), as its single run would. The same on the CPU
/// twin, whose reference reader finds it.
#[test]
fn a_bad_sample_in_a_ladders_shared_reference_fails_every_input() {
    let backends: &[(&str, &str)] = if gpu_tests_skipped() {
        &[("cpu", "reading the reference")]
    } else {
        &[
            ("vulkan", "scoring frame 2: "),
            ("cpu", "reading the reference"),
        ]
    };
    for &(backend, context) in backends {
        let dir = tempfile::tempdir().expect("temp dir");
        let (w, h) = (780u32, 520u32);
        let mut reference = raw10(w, h, 4, 1);
        let frame_bytes = (w * h * 3 / 2) as usize * 2;
        let at = 2 * frame_bytes + (((h - 1) * w + w - 1) as usize) * 2;
        reference[at..at + 2].copy_from_slice(&1030u16.to_le_bytes());
        let r = file(dir.path(), "ref.yuv", &reference);
        let d1 = file(dir.path(), "one.yuv", &raw10(w, h, 4, 2));
        let d2 = file(dir.path(), "two.yuv", &raw10(w, h, 4, 3));
        let out_dir = dir.path().join("out");
        let geometry = raw10_geometry(w, h);
        let mut args = vec![
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            s(&r),
            "-d",
            s(&d1),
            "-d",
            s(&d2),
            "--json",
        ];
        args.extend(["--output-dir", s(&out_dir), "--backend", backend]);
        args.extend(geometry.iter().map(String::as_str));
        let out = run(&args, None);
        for name in ["one", "two"] {
            assert_fails(
                &out,
                &[
                    &format!("scoring {}", s(&dir.path().join(format!("{name}.yuv")))),
                    context,
                    "ref.yuv: frame 2",
                    "x=779, y=519",
                    "is 1030, above 1023",
                ],
            );
            let partial = out_dir.join(format!("{name}.json.partial"));
            let text = std::fs::read_to_string(&partial)
                .unwrap_or_else(|e| panic!("{backend}: {}: {e}", partial.display()));
            assert_eq!(text.matches("\"frameNum\"").count(), 2, "{backend}: {text}");
        }
    }
}
