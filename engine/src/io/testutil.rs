//! Test helpers for the readers: a pipe-like `Read` and generated videos.

use std::io::{self, Read};

use super::VideoFormat;

/// A reader that hands out at most `chunk` bytes per call, as a pipe does.
pub(crate) struct Trickle<R> {
    pub(crate) inner: R,
    pub(crate) chunk: usize,
}

impl<R: Read> Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.chunk);
        self.inner.read(&mut buf[..n])
    }
}

/// `frames` frames of `format`, each preceded by `frame_line` (empty for raw YUV):
/// the bytes, and each frame's luma plane. Samples are a hash of position and frame,
/// within the bit depth; chroma differs from luma so a misplaced read shows.
pub(crate) fn pattern_video(
    format: &VideoFormat,
    frames: usize,
    frame_line: &[u8],
) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut data = Vec::new();
    let mut lumas = Vec::new();
    let max = (1u64 << format.bit_depth) - 1;
    let sample = |plane: u64, i: u64, f: u64| -> u64 {
        let mut h = (plane << 56) ^ (f << 40) ^ i;
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 29) & max
    };
    for f in 0..frames as u64 {
        data.extend_from_slice(frame_line);
        let mut luma = Vec::new();
        let n_luma = format.width as u64 * format.height as u64;
        let n_rest = format.chroma_bytes() / format.bytes_per_sample() as u64;
        for (plane, n) in [(0, n_luma), (1, n_rest)] {
            for i in 0..n {
                let v = sample(plane, i, f);
                let bytes = if format.bit_depth <= 8 {
                    vec![v as u8]
                } else {
                    (v as u16).to_le_bytes().to_vec()
                };
                if plane == 0 {
                    luma.extend_from_slice(&bytes);
                }
                data.extend_from_slice(&bytes);
            }
        }
        lumas.push(luma);
    }
    (data, lumas)
}
