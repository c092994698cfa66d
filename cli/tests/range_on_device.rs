//! A 10-bit raw file with a sample above 1023, scored by `vkssim score` on the
//! Vulkan backend from regular files (the fast feed, where the device's
//! decimate pass checks the range instead of the readers): the error names the
//! file, the frame and the sample's position, the exit status is non-zero, and
//! the frames before it are kept.

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

#[test]
fn a_sample_above_the_bit_depth_names_file_frame_and_position() {
    if std::env::var("VKSSIM_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    // Auto scale 2: the decimation windows read columns 0..=778 and rows
    // 0..=518 only.
    let (w, h) = (780u32, 520u32);
    let reference = raw10(w, h, 4, 1);
    let mut distorted = raw10(w, h, 4, 2);
    // Frame 2 of the distorted file, its last sample (which no window reads).
    let frame_bytes = (w * h * 3 / 2) as usize * 2;
    let at = 2 * frame_bytes + (((h - 1) * w + w - 1) as usize) * 2;
    distorted[at..at + 2].copy_from_slice(&1030u16.to_le_bytes());
    let r = file(dir.path(), "ref.yuv", &reference);
    let d = file(dir.path(), "dist.yuv", &distorted);
    let (ws, hs) = (w.to_string(), h.to_string());
    let out = run(
        &[
            "score",
            "-r",
            s(&r),
            "-d",
            s(&d),
            "-w",
            &ws,
            "-h",
            &hs,
            "-p",
            "420",
            "-b",
            "10",
            "--backend",
            "vulkan",
        ],
        None,
    );
    assert_fails(
        &out,
        &["dist.yuv", "frame 2", "x=779, y=519", "is 1030, above 1023"],
    );
}
