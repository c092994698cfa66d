//! H.264 from containers as Annex B, for GPU decoding (`--decode gpu`):
//! [`vkssim::io::ffmpeg::AnnexB`]'s bytes, packet after packet, equal what
//! `ffmpeg -c:v copy -bsf:v h264_mp4toannexb -f h264` writes, byte for byte,
//! for MP4 and MKV (length-prefixed NAL units, SPS and PPS in the extradata)
//! and MPEG-TS (Annex B already); another codec is refused by name.
#![cfg(feature = "ffmpeg")]

mod common;
mod encoded_clips;

use std::path::Path;

use common::s;
use encoded_clips::{encoded, ffmpeg};
use vkssim::io::ffmpeg::AnnexB;
use vkssim::io::DecodeOptions;

/// Every packet of `input` through [`AnnexB`], concatenated.
fn annex_b(input: &Path) -> Vec<u8> {
    let mut stream = AnnexB::open(input, &DecodeOptions::default()).unwrap();
    let mut all = Vec::new();
    while let Some(packet) = stream.next_packet().unwrap() {
        all.extend_from_slice(packet);
    }
    all
}

#[test]
fn mp4_mkv_and_ts_give_ffmpegs_annex_b_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // B-frames, two IDR pictures (a GOP of 8 in 20 frames), an odd size.
    let mp4 = encoded(
        "annexb-src.mp4",
        "190x106",
        20,
        "-c:v libx264 -bf 2 -g 8 -keyint_min 8 -sc_threshold 0",
    );
    let mkv = dir.path().join("src.mkv");
    let ts = dir.path().join("src.ts");
    for remuxed in [&mkv, &ts] {
        ffmpeg(&["-i", s(&mp4), "-c", "copy", s(remuxed)]);
    }
    for input in [&mp4, &mkv, &ts] {
        let expected = dir.path().join("expected.h264");
        ffmpeg(&[
            "-i",
            s(input),
            "-map",
            "0:v:0",
            "-c:v",
            "copy",
            "-bsf:v",
            "h264_mp4toannexb",
            "-f",
            "h264",
            s(&expected),
        ]);
        let expected = std::fs::read(&expected).unwrap();
        let got = annex_b(input);
        assert!(expected.len() > 1000, "{}", input.display());
        assert_eq!(got.len(), expected.len(), "{}: lengths", input.display());
        assert!(got == expected, "{}: bytes differ", input.display());
        // Annex B: a start code first; an SPS (NAL type 7) in it.
        assert_eq!(&got[..4], &[0, 0, 0, 1], "{}", input.display());
        assert!(got
            .windows(5)
            .any(|w| w[..4] == [0, 0, 0, 1] && w[4] & 0x1f == 7));
    }
}

#[test]
fn another_codec_is_refused_by_name() {
    let vp9 = encoded("annexb-vp9.webm", "64x64", 2, "-c:v libvpx-vp9");
    match AnnexB::open(&vp9, &DecodeOptions::default()) {
        Err(vkssim::Error::Unsupported(m)) => {
            assert!(m.contains("annexb-vp9.webm"), "{m}");
            assert!(m.contains("its video stream is vp9"), "{m}");
            assert!(m.contains("takes H.264 only"), "{m}");
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a VP9 stream was taken as H.264"),
    }
}
