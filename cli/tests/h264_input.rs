//! H.264 decoded on the GPU by Vulkan Video (`--decode gpu`; without FFmpeg,
//! `.h264`/`.264` inputs by default): only when vkssim is built with the
//! `vulkan-video` feature and a device decodes H.264; otherwise a clear error
//! that says what is missing, status 1, never a panic. The flags that need
//! decoded frames, and (without FFmpeg) inputs that are not `.h264`, are
//! refused before any decoding; with FFmpeg, a container whose stream is not
//! H.264 is refused by its codec before a device is looked for. Built with
//! `ffmpeg` and without `vulkan-video` (the default), `.h264` is decoded by
//! FFmpeg like any encoded input (tests/encoded_input.rs) and `--decode gpu`
//! is refused (src/plan/tests.rs), so these tests do not apply.
#![cfg(any(feature = "vulkan-video", not(feature = "ffmpeg")))]

mod common;
#[cfg(feature = "ffmpeg")]
mod encoded_clips;

use common::{assert_fails, s};

/// `vkssim` with `args`, and `--decode gpu` where that is not the default
/// for `.h264` (built with FFmpeg).
fn run(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    let mut all = args.to_vec();
    if cfg!(feature = "ffmpeg") {
        all.extend(["--decode", "gpu"]);
    }
    common::run(&all, stdin)
}

/// Two files named like H.264 streams (their bytes are not looked at before
/// the decoder is found).
fn streams(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (r, d) = (dir.join("ref.h264"), dir.join("dist.264"));
    std::fs::write(&r, [0, 0, 0, 1, 0x67]).unwrap();
    std::fs::write(&d, [0, 0, 0, 1, 0x67]).unwrap();
    (r, d)
}

#[test]
fn h264_inputs_say_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = streams(dir.path());
    let ssim = ["score", "-n", "--feature", "float_ssim"];
    let o = run(&[&ssim[..], &["-r", s(&r), "-d", s(&d)]].concat(), None);
    #[cfg(not(feature = "vulkan-video"))]
    assert_fails(
        &o,
        &[
            "ref.h264",
            "H.264 Annex B input needs vkssim built with the vulkan-video feature",
            "Vulkan Video H.264 decode",
            "ffmpeg -i IN.h264 -f yuv4mpegpipe",
        ],
    );
    // Built with the feature: without a decoding device (lavapipe, CI) the
    // error says so; on one, these 5 bytes are no stream and the error names
    // the file.
    #[cfg(feature = "vulkan-video")]
    {
        let e = common::stderr(&o);
        let no_device = e.contains("no Vulkan Video H.264 decode device");
        let names_file = e.contains("ref.h264") || e.contains("dist.264");
        assert!(no_device || names_file, "{e}");
        assert_fails(&o, &["vkssim: error:"]);
    }
}

#[test]
fn h264_with_another_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _) = streams(dir.path());
    let y4m = dir.path().join("dist.y4m");
    std::fs::write(&y4m, b"YUV4MPEG2 W32 H32 F25:1 C420\n").unwrap();
    let ssim = ["score", "-n", "--feature", "float_ssim"];
    let o = run(&[&ssim[..], &["-r", s(&r), "-d", s(&y4m)]].concat(), None);
    #[cfg(not(feature = "ffmpeg"))]
    assert_fails(
        &o,
        &[
            "dist.y4m",
            "is not an H.264 Annex B stream",
            "give both as .h264",
        ],
    );
    // With FFmpeg any container is demuxed, and the stream's codec named.
    #[cfg(feature = "ffmpeg")]
    assert_fails(
        &o,
        &[
            "the distorted input for GPU decoding",
            "dist.y4m: its video stream is rawvideo",
            "takes H.264 only",
        ],
    );
}

#[test]
fn h264_with_flags_for_decoded_frames_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (r, d) = streams(dir.path());
    for (flags, named) in [
        (&["--backend", "cpu"][..], "--backend cpu"),
        (&["--frame_skip_ref", "2"][..], "--frame_skip_ref"),
        (&["-w", "64", "-h", "64"][..], "-w/--width"),
    ] {
        let mut args = vec![
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            s(&r),
            "-d",
            s(&d),
        ];
        args.extend_from_slice(flags);
        let o = run(&args, None);
        assert_fails(&o, &[named, "does not apply to H.264 inputs"]);
    }
}

/// An MP4 and an MKV of H.264 pass the codec check and go to the GPU
/// decoder: scored on a device that decodes H.264, otherwise the error that
/// no device does (lavapipe, CI).
#[cfg(all(feature = "vulkan-video", feature = "ffmpeg"))]
#[test]
fn h264_in_containers_goes_to_the_gpu_decoder() {
    let reference = encoded_clips::encoded("gpu-ref.mp4", "64x64", 3, "-c:v libx264");
    let distorted = encoded_clips::encoded("gpu-dist.mkv", "64x64", 3, "-c:v libx264 -crf 40");
    let o = run(
        &[
            "score",
            "-n",
            "--feature",
            "float_ssim",
            "-r",
            s(&reference),
            "-d",
            s(&distorted),
        ],
        None,
    );
    let e = common::stderr(&o);
    assert!(
        o.status.success() || e.contains("no Vulkan Video H.264 decode device"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}
