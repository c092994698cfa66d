//! Encoded inputs (the `ffmpeg` feature, on by default): every frame read
//! through the library equals, byte for byte, what the system `ffmpeg` writes
//! with `-fps_mode passthrough -f rawvideo` (luma planes compared, frame
//! counts equal), per codec and container; `vkssim score` on an encoded pair
//! writes the same output as on the ffmpeg-decoded raw pair; and bad inputs
//! fail with a message naming the file (and frame), never a panic.
//!
//! The clips are made here by the system `ffmpeg` (small, few frames) and
//! cached under the target directory's test scratch folder.
#![cfg(feature = "ffmpeg")]

mod common;
mod encoded_clips;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assert_fails, assert_ok, no_model, run, s, score_float_ssim};
use encoded_clips::{
    clip, clips_dir, damaged, encoded, ffmpeg, ffmpeg_decode, ffmpeg_raw, score_args, without_fps,
};
use vkssim::io::{
    open_input_with, Check, Chroma, DecodeErrors, DecodeOptions, LumaReader, Planes, VideoFormat,
};

/// The width, height and pixel format `ffprobe` gives video stream `stream`.
fn ffprobe(input: &Path, stream: usize) -> (u32, u32, String) {
    let v = format!("v:{stream}");
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", &v, "-show_entries"])
        .args(["stream=width,height,pix_fmt", "-of", "csv=p=0", s(input)])
        .output()
        .expect("running ffprobe");
    let text = String::from_utf8(out.stdout).unwrap();
    // The first line (MPEG-TS adds program sections after it).
    let f: Vec<&str> = text.lines().next().unwrap_or("").split(',').collect();
    assert!(f.len() >= 3, "ffprobe {}: {text}", input.display());
    (
        f[0].parse().unwrap(),
        f[1].parse().unwrap(),
        f[2].to_string(),
    )
}

/// The subsampling and bit depth of an FFmpeg pixel format name.
fn layout(pix_fmt: &str) -> (Chroma, u32) {
    let (chroma, rest) = match pix_fmt.split_at(pix_fmt.len().min(7)) {
        ("yuv420p", rest) => (Chroma::C420, rest),
        ("yuv422p", rest) => (Chroma::C422, rest),
        ("yuv444p", rest) => (Chroma::C444, rest),
        _ if pix_fmt.starts_with("gray") => (Chroma::Mono, &pix_fmt[4..]),
        _ => panic!("no layout for {pix_fmt} in this test"),
    };
    let depth = rest.trim_end_matches("le");
    (
        chroma,
        if depth.is_empty() {
            8
        } else {
            depth.parse().unwrap()
        },
    )
}

/// Reads every frame of `input` (video stream `stream`) through the library
/// and compares it with ffmpeg's passthrough rawvideo output: the same
/// format as ffprobe says, `frames` frames in both, each luma plane equal.
/// Returns the format.
fn assert_decodes_as_ffmpeg(input: &Path, stream: usize, frames: usize) -> VideoFormat {
    let options = DecodeOptions {
        stream: Some(stream),
        ..DecodeOptions::default()
    };
    let mut reader = open_input_with(input, None, &options).unwrap();
    let f = reader.format();
    let (w, h, pix_fmt) = ffprobe(input, stream);
    let (chroma, depth) = layout(&pix_fmt);
    assert_eq!(
        (f.width, f.height, f.chroma, f.bit_depth),
        (w, h, chroma, depth)
    );
    let raw = std::fs::read(ffmpeg_raw(input, stream)).unwrap();
    let frame_bytes = f.frame_bytes() as usize;
    assert_eq!(
        raw.len() % frame_bytes,
        0,
        "{}: ffmpeg's raw output",
        input.display()
    );
    assert_eq!(
        raw.len() / frame_bytes,
        frames,
        "{}: ffmpeg's frames",
        input.display()
    );
    let mut luma = vec![0u8; f.luma_bytes()];
    let mut read = 0;
    while reader.read(&mut luma, Planes::Luma, Check::Range).unwrap() {
        assert!(
            read < frames,
            "{}: more frames than ffmpeg's",
            input.display()
        );
        let expected = &raw[read * frame_bytes..][..luma.len()];
        assert!(
            luma == expected,
            "{}: frame {read} differs",
            input.display()
        );
        read += 1;
    }
    assert_eq!(read, frames, "{}: frames read", input.display());
    f
}

#[test]
fn x264_in_mp4_with_b_frames_and_cropping() {
    let p = encoded("x264.mp4", "190x106", 10, "-c:v libx264 -bf 3 -g 6");
    assert_decodes_as_ffmpeg(&p, 0, 10);
}

#[test]
fn x264_in_mkv_with_b_frames() {
    let p = encoded("x264.mkv", "192x108", 10, "-c:v libx264 -bf 3 -crf 35");
    assert_decodes_as_ffmpeg(&p, 0, 10);
}

#[test]
fn x264_422_and_444_10_bit() {
    let p = encoded(
        "x264-422.mkv",
        "190x106",
        6,
        "-c:v libx264 -pix_fmt yuv422p",
    );
    assert_eq!(assert_decodes_as_ffmpeg(&p, 0, 6).chroma, Chroma::C422);
    let p = encoded(
        "x264-444.mkv",
        "190x106",
        6,
        "-c:v libx264 -pix_fmt yuv444p10le",
    );
    let f = assert_decodes_as_ffmpeg(&p, 0, 6);
    assert_eq!((f.chroma, f.bit_depth), (Chroma::C444, 10));
}

/// 12 and 16-bit, and luma only (gray), from x265 and the lossless FFV1.
#[test]
fn twelve_and_sixteen_bit_and_gray() {
    let x265 = "-c:v libx265 -pix_fmt yuv444p12le -x265-params log-level=error";
    let f = assert_decodes_as_ffmpeg(&encoded("x265-12.mkv", "190x106", 4, x265), 0, 4);
    assert_eq!((f.chroma, f.bit_depth), (Chroma::C444, 12));
    let ffv1 = "-c:v ffv1 -pix_fmt yuv420p16le";
    let f = assert_decodes_as_ffmpeg(&encoded("ffv1-16.mkv", "191x107", 4, ffv1), 0, 4);
    assert_eq!((f.chroma, f.bit_depth), (Chroma::C420, 16));
    let gray = "-c:v ffv1 -pix_fmt gray10le";
    let f = assert_decodes_as_ffmpeg(&encoded("ffv1-gray.mkv", "190x106", 4, gray), 0, 4);
    assert_eq!((f.chroma, f.bit_depth), (Chroma::Mono, 10));
}

#[test]
fn x265_10_bit_in_mkv() {
    let p = encoded(
        "x265.mkv",
        "192x108",
        8,
        "-c:v libx265 -pix_fmt yuv420p10le -x265-params log-level=error",
    );
    assert_eq!(assert_decodes_as_ffmpeg(&p, 0, 8).bit_depth, 10);
}

#[test]
fn vp9_in_webm_of_odd_size() {
    let p = encoded(
        "vp9.webm",
        "191x107",
        8,
        "-c:v libvpx-vp9 -deadline realtime -cpu-used 8",
    );
    assert_decodes_as_ffmpeg(&p, 0, 8);
}

#[test]
fn av1_in_ivf_and_mp4() {
    let av1 = "-c:v libaom-av1 -usage realtime -cpu-used 8";
    assert_decodes_as_ffmpeg(&encoded("av1.ivf", "190x106", 8, av1), 0, 8);
    assert_decodes_as_ffmpeg(&encoded("av1.mp4", "192x108", 8, av1), 0, 8);
}

#[test]
fn mpeg2_in_mpeg_ts() {
    let p = encoded("mpeg2.ts", "192x108", 10, "-c:v mpeg2video -bf 2 -q:v 8");
    assert_decodes_as_ffmpeg(&p, 0, 10);
}

/// H.264 Annex B (`.h264`), without the `vulkan-video` feature, is decoded by
/// FFmpeg as any other input.
#[cfg(not(feature = "vulkan-video"))]
#[test]
fn annex_b_h264() {
    let p = encoded("annexb.h264", "190x106", 8, "-c:v libx264 -bf 2 -f h264");
    assert_decodes_as_ffmpeg(&p, 0, 8);
}

/// A variable frame rate MP4 (a gap of 10 frame times after frame 6): the
/// 12 frames it holds, where a constant-rate Y4M pipe would add duplicates.
#[test]
fn variable_frame_rate_mp4_gives_each_frame_once() {
    let p = encoded(
        "vfr.mp4",
        "192x108",
        12,
        "-vf setpts='(N+if(gte(N,6),10,0))/25/TB' -fps_mode passthrough -c:v libx264 -bf 2",
    );
    assert_decodes_as_ffmpeg(&p, 0, 12);
    // The clip is variable-rate: at a constant rate, ffmpeg's Y4M has more.
    let y4m = p.with_extension("cfr.y4m");
    ffmpeg(&["-i", s(&p), "-f", "yuv4mpegpipe", s(&y4m)]);
    let cfr = std::fs::read(&y4m).unwrap();
    let frames = cfr.windows(6).filter(|w| w == b"FRAME\n").count();
    assert!(
        frames > 12,
        "the clip is not variable-rate: {frames} frames at 25 fps"
    );
}

/// Two video streams: the first by default, `--stream 1` the other.
#[test]
fn second_video_stream_by_index() {
    let p = clip(
        "two.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=192x108:rate=25:duration=0.24",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=160x90:rate=25:duration=0.24",
            "-map",
            "0",
            "-map",
            "1",
            "-c:v",
            "libx264",
        ],
    );
    assert_eq!(assert_decodes_as_ffmpeg(&p, 0, 6).width, 192);
    assert_eq!(assert_decodes_as_ffmpeg(&p, 1, 6).width, 160);
    let o = score_float_ssim(&["-r", s(&p), "-d", s(&p), "--stream", "2"], None);
    assert_fails(&o, &["two.mkv", "there is no video stream 2: it has 2"]);
}

/// `vkssim score` on `reference` and `distorted` (CPU backend, JSON) into
/// `out`, plus `extra` arguments.
fn score(reference: &Path, distorted: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec!["score", "-r", s(reference), "-d", s(distorted), "-q"];
    args.extend(["--backend", "cpu", "--json", "-o", s(out)]);
    args.extend(extra);
    args.extend(no_model(extra));
    assert_ok(&run(&args, None));
}

/// Both inputs encoded, and a Y4M reference with an encoded distorted
/// input: the same output file as the ffmpeg-decoded raw pair.
#[test]
fn scores_equal_those_of_the_decoded_pair() {
    let dir = tempfile::tempdir().unwrap();
    let reference = encoded("pair-ref.mp4", "190x106", 10, "-c:v libx264 -crf 10 -bf 3");
    let distorted = encoded("pair-dist.mkv", "190x106", 10, "-c:v libx264 -crf 40 -bf 3");
    let (ref_yuv, dist_yuv) = (ffmpeg_raw(&reference, 0), ffmpeg_raw(&distorted, 0));
    let raw_flags = ["-w", "190", "-h", "106", "-p", "420", "-b", "8"];
    let raw_out = dir.path().join("raw.json");
    score(&ref_yuv, &dist_yuv, &raw_out, &raw_flags);
    let enc_out = dir.path().join("encoded.json");
    score(&reference, &distorted, &enc_out, &[]);
    assert_eq!(without_fps(&enc_out), without_fps(&raw_out));
    assert!(without_fps(&raw_out).matches("float_ssim").count() > 10);

    let ref_y4m = dir.path().join("ref.y4m");
    ffmpeg(&["-i", s(&reference), "-fps_mode", "passthrough", s(&ref_y4m)]);
    let mixed_out = dir.path().join("mixed.json");
    score(&ref_y4m, &distorted, &mixed_out, &[]);
    assert_eq!(without_fps(&mixed_out), without_fps(&raw_out));
}

/// Metrics that read chroma (psnr) and MS-SSIM on encoded inputs, 4:2:0 8-bit
/// and 4:4:4 10-bit: the same output file as the ffmpeg-decoded raw
/// pair (whose psnr the vmaf CLI parity tests check).
#[test]
fn several_metrics_with_chroma_equal_those_of_the_decoded_pair() {
    let dir = tempfile::tempdir().unwrap();
    let features = [
        "--feature",
        "psnr=enable_mse=true",
        "--feature",
        "float_ms_ssim",
        "--feature",
        "float_ssim",
    ];
    for (tag, size, pix, bits, enc) in [
        (
            "420",
            "192x178",
            "420",
            "8",
            "-c:v libx264 -crf 30 -bf 2 -pix_fmt yuv420p",
        ),
        (
            "444",
            "178x180",
            "444",
            "10",
            "-c:v libx264 -crf 30 -pix_fmt yuv444p10le",
        ),
    ] {
        let reference = encoded(&format!("metrics-{tag}-ref.mp4"), size, 4, enc);
        let distorted = encoded(
            &format!("metrics-{tag}-dist.mkv"),
            size,
            4,
            &enc.replace("-crf 30", "-crf 45"),
        );
        let (ref_yuv, dist_yuv) = (ffmpeg_raw(&reference, 0), ffmpeg_raw(&distorted, 0));
        let (w, h) = size.split_once('x').unwrap();
        let mut raw_flags = vec!["-w", w, "-h", h, "-p", pix, "-b", bits];
        raw_flags.extend(features);
        let raw_out = dir.path().join(format!("raw-{tag}.json"));
        score(&ref_yuv, &dist_yuv, &raw_out, &raw_flags);
        let enc_out = dir.path().join(format!("encoded-{tag}.json"));
        score(&reference, &distorted, &enc_out, &features);
        let raw = without_fps(&raw_out);
        assert_eq!(without_fps(&enc_out), raw, "{tag}");
        for name in ["psnr_cb", "psnr_cr", "mse_y", "float_ms_ssim", "float_ssim"] {
            assert!(raw.contains(name), "{tag}: {name} missing:\n{raw}");
        }
    }
}

#[test]
fn a_damaged_frame_is_an_error_naming_file_and_frame() {
    let dir = tempfile::tempdir().unwrap();
    let clean = encoded("clean.mkv", "192x108", 20, "-c:v libx264 -g 10 -bf 2");
    let bad = damaged(&clean, "damaged.mkv");
    let out = dir.path().join("partial.json");
    let o = score_float_ssim(
        &[
            "-r",
            s(&bad),
            "-d",
            s(&clean),
            "-q",
            "--backend",
            "cpu",
            "-o",
            s(&out),
        ],
        None,
    );
    assert_fails(&o, &["damaged.mkv: frame ", "h264 decoding failed"]);
    // Through the library: the same error, at a frame after the first.
    let mut r = open_input_with(&bad, None, &DecodeOptions::default()).unwrap();
    let mut luma = vec![0u8; r.format().luma_bytes()];
    let e = loop {
        match r.read(&mut luma, Planes::Luma, Check::Range) {
            Ok(true) => {}
            Ok(false) => panic!("the damaged clip decoded without an error"),
            Err(e) => break e,
        }
    };
    match e {
        vkssim::Error::Decode { path, frame, .. } => {
            assert_eq!(path, bad);
            assert!(frame > 0 && frame < 20, "frame {frame}");
        }
        e => panic!("{e}"),
    }
}

/// The float_ssim values of a JSON output, by frame number, as bits.
fn ssim_frames(path: &Path) -> Vec<(u64, u64)> {
    let text = std::fs::read(path).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
    json["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let v = f["metrics"]["float_ssim"].as_f64().unwrap();
            (f["frameNum"].as_u64().unwrap(), v.to_bits())
        })
        .collect()
}

/// A damaged frame in an encoded input stops the run with an error naming
/// the file and the frame, status 1, and the frames scored before it are
/// kept in `OUT.partial`: the same values, frame for frame, as the clean
/// pair's first frames.
#[test]
fn frames_before_a_damaged_one_are_kept_in_the_partial_output() {
    let dir = tempfile::tempdir().unwrap();
    let clean = encoded("clean-p.mkv", "192x108", 20, "-c:v libx264 -g 10 -bf 2");
    let bad = damaged(&clean, "damaged-p.mkv");
    let score_to =
        |reference: &Path, out: &Path| run(&score_args(s(reference), s(&clean), out), None);
    let whole = dir.path().join("clean.json");
    assert_ok(&score_to(&clean, &whole));
    let expected = ssim_frames(&whole);
    assert_eq!(expected.len(), 20);

    let out = dir.path().join("damaged.json");
    let o = score_to(&bad, &out);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert_fails(&o, &["damaged-p.mkv: frame ", "h264 decoding failed"]);
    assert!(!out.exists(), "a failed run wrote {}", out.display());
    let kept = ssim_frames(&dir.path().join("damaged.json.partial"));
    assert!(
        !kept.is_empty() && kept.len() < 20,
        "{} frames kept",
        kept.len()
    );
    // The error's frame number is where the kept frames end.
    let e = common::stderr(&o);
    let named: u64 = e
        .split("damaged-p.mkv: frame ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no frame number in: {e}"));
    assert!(
        named >= kept.len() as u64,
        "frame {named}, {} kept: {e}",
        kept.len()
    );
    assert_eq!(kept, expected[..kept.len()], "the kept frames' scores");
}

/// `--decode-errors conceal` scores the frames as ffmpeg conceals them.
#[test]
fn concealed_frames_are_ffmpegs() {
    let clean = encoded("clean-c.mkv", "192x108", 20, "-c:v libx264 -g 10 -bf 2");
    let bad = damaged(&clean, "damaged-c.mkv");
    let options = DecodeOptions {
        errors: DecodeErrors::Conceal,
        ..DecodeOptions::default()
    };
    let mut r = open_input_with(&bad, None, &options).unwrap();
    let f = r.format();
    let raw = std::fs::read(ffmpeg_raw(&bad, 0)).unwrap();
    let fb = f.frame_bytes() as usize;
    let mut luma = vec![0u8; f.luma_bytes()];
    let mut i = 0;
    while r.read(&mut luma, Planes::Luma, Check::Range).unwrap() {
        assert!(luma == raw[i * fb..][..luma.len()], "frame {i} differs");
        i += 1;
    }
    assert_eq!(i * fb, raw.len());
}

#[test]
fn an_unknown_codec_names_it_and_the_ffmpeg_version() {
    let clean = encoded("known.mkv", "192x108", 4, "-c:v libx264");
    let bytes = std::fs::read(&clean).unwrap();
    let id = b"V_MPEG4/ISO/AVC";
    let at = bytes.windows(id.len()).position(|w| w == id).unwrap();
    let mut patched = bytes.clone();
    patched[at..at + id.len()].copy_from_slice(b"V_MPEG4/ISO/XYZ");
    let path = clips_dir().join("unknown-codec.mkv");
    std::fs::write(&path, patched).unwrap();
    let o = score_float_ssim(&["-r", s(&path), "-d", s(&clean)], None);
    assert_fails(
        &o,
        &[
            "unknown-codec.mkv",
            "has no decoder for its codec",
            "FFmpeg 5",
            "libavcodec",
        ],
    );
}

#[test]
fn no_video_stream_says_so() {
    let audio = clip(
        "audio.mkv",
        &["-f", "lavfi", "-i", "sine=d=0.2", "-c:a", "pcm_s16le"],
    );
    let video = encoded("video.mkv", "192x108", 4, "-c:v libx264");
    let o = score_float_ssim(&["-r", s(&video), "-d", s(&audio)], None);
    assert_fails(
        &o,
        &["audio.mkv: has no video stream (it holds audio (pcm_s16le))"],
    );
}

#[test]
fn a_stream_that_ends_early_is_a_length_error() {
    let long = encoded("long.mkv", "192x108", 12, "-c:v libx264");
    let short = encoded("short.mkv", "192x108", 8, "-c:v libx264");
    let o = score_float_ssim(&["-r", s(&long), "-d", s(&short), "--backend", "cpu"], None);
    assert_fails(&o, &["long.mkv", "short.mkv", "--allow-length-mismatch"]);
}

#[test]
fn a_file_no_reader_knows_says_what_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let junk = common::file(dir.path(), "junk.bin", &[7u8; 3000]);
    let video = encoded("video2.mkv", "192x108", 4, "-c:v libx264");
    let o = score_float_ssim(&["-r", s(&junk), "-d", s(&video)], None);
    assert_fails(
        &o,
        &[
            "junk.bin: cannot read it as a video container",
            "width, height, pixel format",
        ],
    );
    // With a raw layout given, it is raw YUV, as before (and then too small
    // for the encoded input's geometry).
    let o = score_float_ssim(
        &[
            "-r",
            s(&junk),
            "-d",
            s(&video),
            "-w",
            "10",
            "-h",
            "10",
            "-p",
            "420",
            "-b",
            "8",
        ],
        None,
    );
    assert_fails(&o, &["reference and distorted differ", "junk.bin is 10x10"]);
}

/// What `ffmpeg -i input -vf scale=W:H:flags=ALGO -fps_mode passthrough -f
/// rawvideo` writes.
fn ffmpeg_scaled(input: &Path, size: (u32, u32), algo: &str) -> PathBuf {
    let out = input.with_extension(format!("{}x{}-{algo}.yuv", size.0, size.1));
    let filter = format!("scale={}:{}:flags={algo}", size.0, size.1);
    ffmpeg_decode(input, &["-vf", &filter], &out);
    out
}

/// `--resize-distorted`'s scaling (the library's [`vkssim::io::Resize`]):
/// every algorithm, up and down, 8 and 10-bit, equals ffmpeg's scale filter
/// byte for byte.
#[test]
fn resized_frames_equal_ffmpegs_scale_filter() {
    let clips = [
        encoded("rs8.mkv", "192x108", 4, "-c:v libx264"),
        encoded(
            "rs10.mkv",
            "190x106",
            4,
            "-c:v libx265 -pix_fmt yuv420p10le -x265-params log-level=error",
        ),
    ];
    for clip in &clips {
        for size in [(256u32, 144u32), (161, 91)] {
            for algorithm in vkssim::io::ScaleAlgorithm::ALL {
                let options = DecodeOptions {
                    resize: Some(vkssim::io::Resize {
                        width: size.0,
                        height: size.1,
                        algorithm,
                    }),
                    ..DecodeOptions::default()
                };
                let mut r = open_input_with(clip, None, &options).unwrap();
                let f = r.format();
                assert_eq!((f.width, f.height), size);
                let raw = std::fs::read(ffmpeg_scaled(clip, size, algorithm.name())).unwrap();
                let fb = f.frame_bytes() as usize;
                assert_eq!(raw.len(), 4 * fb);
                let mut luma = vec![0u8; f.luma_bytes()];
                let mut i = 0;
                while r.read(&mut luma, Planes::Luma, Check::Range).unwrap() {
                    let what = format!("{}: {algorithm} to {size:?}, frame {i}", clip.display());
                    assert!(luma == raw[i * fb..][..luma.len()], "{what} differs");
                    i += 1;
                }
                assert_eq!(i, 4);
            }
        }
    }
}

/// `vkssim score --resize-distorted` scores what ffmpeg's scale filter
/// gives; without it, different sizes stay an error.
#[test]
fn score_with_resize_distorted() {
    let dir = tempfile::tempdir().unwrap();
    let reference = encoded("rs-ref.mkv", "256x144", 6, "-c:v libx264 -crf 12");
    let distorted = encoded("rs-dist.mkv", "192x108", 6, "-c:v libx264 -crf 30");
    let o = score_float_ssim(&["-r", s(&reference), "-d", s(&distorted), "-q"], None);
    assert_fails(&o, &["reference and distorted differ"]);
    let out = dir.path().join("resized.json");
    score(
        &reference,
        &distorted,
        &out,
        &["--resize-distorted", "lanczos"],
    );
    let ref_yuv = ffmpeg_raw(&reference, 0);
    let dist_yuv = ffmpeg_scaled(&distorted, (256, 144), "lanczos");
    let raw_out = dir.path().join("raw.json");
    let raw_flags = ["-w", "256", "-h", "144", "-p", "420", "-b", "8"];
    score(&ref_yuv, &dist_yuv, &raw_out, &raw_flags);
    assert_eq!(without_fps(&out), without_fps(&raw_out));
}

/// A broken MP4 (a truncated one, an MP4 by its content) is an error even
/// with a raw layout given (it is never scored as raw YUV; raw YUV named
/// `.mp4` is raw with its layout given: `messages3.rs`).
#[test]
fn a_broken_mp4_is_never_read_as_raw() {
    let dir = tempfile::tempdir().unwrap();
    let whole = std::fs::read(encoded("broken-src.mp4", "192x108", 4, "-c:v libx264")).unwrap();
    let broken = common::file(dir.path(), "broken.mp4", &whole[..whole.len() / 2]);
    let raw = common::file(dir.path(), "ref.yuv", &[0u8; 192 * 108 * 3]);
    let o = score_float_ssim(
        &[
            "-r",
            s(&raw),
            "-d",
            s(&broken),
            "-w",
            "192",
            "-h",
            "108",
            "-p",
            "420",
            "-b",
            "8",
        ],
        None,
    );
    assert_fails(&o, &["broken.mp4: cannot read it as a video container"]);
}

/// Skips, `--frame_cnt` and `--subsample` on encoded inputs, and a ladder of
/// two encoded inputs: the outputs of the ffmpeg-decoded raw inputs.
#[test]
fn selection_flags_and_ladders_take_encoded_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let reference = encoded("sel-ref.mp4", "190x106", 12, "-c:v libx264 -crf 10 -bf 3");
    let a = encoded("sel-a.mkv", "190x106", 12, "-c:v libx264 -crf 30 -bf 2");
    let b = encoded(
        "sel-b.webm",
        "190x106",
        12,
        "-c:v libvpx-vp9 -deadline realtime -cpu-used 8",
    );
    let raw_flags = ["-w", "190", "-h", "106", "-p", "420", "-b", "8"];
    let sel = [
        "--frame_skip_ref",
        "2",
        "--frame_skip_dist",
        "1",
        "--frame_cnt",
        "7",
    ];
    let sel: Vec<&str> = sel.iter().copied().chain(["--subsample", "2"]).collect();
    let (ref_yuv, a_yuv) = (ffmpeg_raw(&reference, 0), ffmpeg_raw(&a, 0));
    let raw_out = dir.path().join("raw.json");
    let raw_args: Vec<&str> = sel.iter().chain(&raw_flags).copied().collect();
    score(&ref_yuv, &a_yuv, &raw_out, &raw_args);
    let enc_out = dir.path().join("enc.json");
    score(&reference, &a, &enc_out, &sel);
    assert_eq!(without_fps(&enc_out), without_fps(&raw_out));
    assert_eq!(without_fps(&raw_out).matches("float_ssim\"").count(), 4 + 1);

    let single = dir.path().join("b.json");
    score(&reference, &b, &single, &[]);
    let pattern = dir.path().join("ladder_{index}.json");
    let o = score_float_ssim(
        &[
            "-r",
            s(&reference),
            "-d",
            s(&a),
            "-d",
            s(&b),
            "-q",
            "--backend",
            "cpu",
            "--json",
            "-o",
            s(&pattern),
        ],
        None,
    );
    assert_ok(&o);
    assert_eq!(
        without_fps(&dir.path().join("ladder_1.json")),
        without_fps(&single)
    );
}

/// Pixel formats vkssim does not read (RGB, semi-planar) are refused with a
/// message naming the format, never converted.
#[test]
fn rgb_and_nv12_are_refused_by_name() {
    let video = encoded("fmt-ok.mkv", "192x108", 2, "-c:v libx264");
    for (name, encode, pix_fmt) in [
        ("rgb.mkv", "-c:v ffv1 -pix_fmt bgr0", "bgr0"),
        ("nv12.nut", "-c:v rawvideo -pix_fmt nv12", "nv12"),
    ] {
        let clip = encoded(name, "192x108", 2, encode);
        let o = score_float_ssim(&["-r", s(&clip), "-d", s(&video)], None);
        let gives = format!("the decoder gives {pix_fmt} frames");
        assert_fails(&o, &[name, &gives, "planar YUV"]);
    }
}
