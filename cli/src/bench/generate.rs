//! The bench's generated pair: a deterministic reference and distorted frame
//! of any size (in memory, or row by row), and `--write-yuv`, which writes it
//! as raw YUV files.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use vkssim::io::{Chroma, VideoFormat};
use vkssim::LumaFrame;

use crate::args::BenchArgs;
use crate::chrome_trace::TraceGuard;
use crate::output::target::{Target, Writer};
use crate::stdio;

/// `--write-yuv PREFIX`: the generated pair as raw YUV files of `--frames`
/// frames each (chroma planes at mid-grey), for timing file reads anywhere.
/// Written row by row (memory does not grow with the frame), through the
/// rules of `score -o` ([`Target`]: atomic, the umask, links, devices), after
/// checking that the file system has room for them.
pub(super) fn write_yuv(
    args: &BenchArgs,
    chroma: Chroma,
    prefix: &Path,
    trace: &mut Option<TraceGuard>,
) -> Result<()> {
    let (w, h, depth) = (args.width, args.height, args.bitdepth);
    let format = VideoFormat::new(w, h, depth, chroma)?;
    let paths: Vec<PathBuf> = ["ref", "dist"]
        .iter()
        .map(|suffix| {
            let mut p = prefix.as_os_str().to_owned();
            p.push(format!("_{suffix}.yuv"));
            PathBuf::from(p)
        })
        .collect();
    let outputs: Vec<(String, &Path)> = paths
        .iter()
        .map(|p| (format!("--write-yuv {}", p.display()), p.as_path()))
        .collect();
    crate::score::preflight_outputs(&outputs, &[], None, trace)?;
    let targets = paths
        .iter()
        .map(|p| Target::open(p).context("--write-yuv"))
        .collect::<Result<Vec<_>>>()?;
    let bytes = format.frame_bytes().saturating_mul(args.frames);
    targets[0].check_room(bytes.saturating_mul(2))?;
    targets[1].check_room(bytes)?;
    let mut writers = targets
        .iter()
        .map(|t| Ok(std::io::BufWriter::with_capacity(1 << 20, t.writer()?)))
        .collect::<Result<Vec<_>>>()?;
    let bps = if depth > 8 { 2 } else { 1 };
    let row_bytes = w as usize * bps;
    let (cw, ch) = chroma.plane_size(w, h);
    let mid = (1u32 << (depth - 1)).to_le_bytes();
    let chroma_row: Vec<u8> = (0..cw).flat_map(|_| mid[..bps].to_vec()).collect();
    let chroma_rows = ch as u64 * chroma.extra_planes() as u64;
    let mut rows = [vec![0u8; row_bytes], vec![0u8; row_bytes]];
    let fail = |writer: &std::io::BufWriter<Writer<'_>>, e| writer.get_ref().failed(e);
    for _ in 0..args.frames {
        let mut gen = PairRows::new(w, h, depth);
        for _ in 0..h {
            let [r, d] = &mut rows;
            gen.next_rows(r, d);
            for (writer, row) in writers.iter_mut().zip(&rows) {
                if let Err(e) = writer.write_all(row) {
                    return Err(fail(writer, e));
                }
            }
        }
        for writer in &mut writers {
            for _ in 0..chroma_rows {
                if let Err(e) = writer.write_all(&chroma_row) {
                    return Err(fail(writer, e));
                }
            }
        }
    }
    for (writer, path) in writers.into_iter().zip(&paths) {
        let writer = writer.into_inner().map_err(|e| {
            let (e, writer) = e.into_parts();
            writer.get_ref().failed(e)
        })?;
        writer.commit()?;
        stdio::print(&format!("{}\n", path.display()))?;
    }
    Ok(())
}

/// The deterministic generated pair, a row at a time: a reference with smooth
/// gradients, edges and fine texture, and a distorted copy with noise.
struct PairRows {
    width: u64,
    height: u64,
    max: u32,
    bps: usize,
    y: u64,
    state: u32,
}

impl PairRows {
    fn new(width: u32, height: u32, bit_depth: u32) -> Self {
        Self {
            width: width as u64,
            height: height as u64,
            max: (1u32 << bit_depth) - 1,
            bps: if bit_depth > 8 { 2 } else { 1 },
            y: 0,
            state: 0x9E37_79B9,
        }
    }

    fn noise(&mut self) -> u32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 17;
        self.state ^= self.state << 5;
        self.state
    }

    /// Fills the next row of the reference and of the distorted frame.
    fn next_rows(&mut self, reference: &mut [u8], distorted: &mut [u8]) {
        let (w, h, y, max) = (self.width, self.height, self.y, self.max);
        for x in 0..w {
            // Gradient + checker edges + texture, in [0, 1).
            let grad = (x * 3 + y * 2) as f64 / (3 * w + 2 * h) as f64;
            let checker = if ((x / 64) + (y / 64)) % 2 == 0 {
                0.15
            } else {
                0.0
            };
            let texture = (self.noise() % 1024) as f64 / 1024.0 * 0.1;
            let v = ((grad * 0.7 + checker + texture) * max as f64) as u32;
            let r = v.min(max);
            let n = (self.noise() % 64) as i64 - 32;
            let amp = (max as i64 + 1) / 256;
            let d = (r as i64 + n * amp / 4).clamp(0, max as i64) as u32;
            let i = x as usize * self.bps;
            put(reference, i, r, self.bps);
            put(distorted, i, d, self.bps);
        }
        self.y += 1;
    }
}

/// The deterministic generated pair ([`PairRows`]), or an error naming the
/// size and the memory it needs when that memory cannot be had.
pub(super) fn try_generate_pair(
    width: u32,
    height: u32,
    bit_depth: u32,
) -> Result<(LumaFrame, LumaFrame)> {
    let bps = if bit_depth > 8 { 2 } else { 1 };
    let need = 2 * u128::from(width) * u128::from(height) * bps as u128;
    let too_large = |e: &dyn std::fmt::Display| {
        anyhow!(
            "generating {} {width}x{height} {bit_depth}-bit pair needs {need} bytes ({:.1} GB) of memory: {e}",
            vkssim::words::article(width.into()),
            need as f64 / 1e9
        )
    };
    let len = usize::try_from(need / 2).map_err(|e| too_large(&e))?;
    let plane = || -> Result<Vec<u8>> {
        let mut v = Vec::new();
        v.try_reserve_exact(len).map_err(|e| too_large(&e))?;
        v.resize(len, 0);
        Ok(v)
    };
    let (mut r, mut d) = (plane()?, plane()?);
    let mut gen = PairRows::new(width, height, bit_depth);
    let row = width as usize * bps;
    if row > 0 {
        for (rr, dr) in r.chunks_exact_mut(row).zip(d.chunks_exact_mut(row)) {
            gen.next_rows(rr, dr);
        }
    }
    let frame = |bytes| LumaFrame {
        width,
        height,
        bit_depth,
        bytes,
    };
    Ok((frame(r), frame(d)))
}

/// [`try_generate_pair`] for sizes known to fit in memory.
#[cfg(test)]
fn generate_pair(width: u32, height: u32, bit_depth: u32) -> (LumaFrame, LumaFrame) {
    try_generate_pair(width, height, bit_depth).expect("a generated pair that fits in memory")
}

/// Writes sample `v` at byte `i` (little-endian for 2-byte samples).
fn put(bytes: &mut [u8], i: usize, v: u32, bps: usize) {
    bytes[i] = v as u8;
    if bps == 2 {
        bytes[i + 1] = (v >> 8) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vkssim::SsimOptions;

    #[test]
    fn generated_pair_is_deterministic_and_in_range() {
        let (a, b) = generate_pair(37, 23, 10);
        let (a2, b2) = generate_pair(37, 23, 10);
        assert_eq!((&a, &b), (&a2, &b2));
        assert_ne!(a, b);
        let view = a.view();
        for y in 0..23 {
            for x in 0..37 {
                assert!(view.sample(x, y) <= 1023);
            }
        }
    }

    #[test]
    fn generated_pair_scores_below_one() {
        let (a, b) = generate_pair(96, 64, 8);
        let s = vkssim::testing::cpu::score_frame(&a.view(), &b.view(), &SsimOptions::default())
            .unwrap();
        assert!(s.ssim() < 1.0 && s.ssim() > 0.5, "{s:?}");
    }

    #[test]
    fn the_generated_pair_streams_row_by_row_as_it_is_held() {
        let (r, d) = generate_pair(37, 5, 10);
        let mut gen = PairRows::new(37, 5, 10);
        let mut rows = (vec![0u8; 74], vec![0u8; 74]);
        for y in 0..5 {
            gen.next_rows(&mut rows.0, &mut rows.1);
            assert_eq!(rows.0, r.bytes[y * 74..(y + 1) * 74]);
            assert_eq!(rows.1, d.bytes[y * 74..(y + 1) * 74]);
        }
    }

    #[test]
    fn a_pair_too_large_for_memory_is_an_error_naming_its_size() {
        // More than the address space: the allocation cannot succeed.
        let err = try_generate_pair(u32::MAX, u32::MAX, 8)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("{}x{}", u32::MAX, u32::MAX)), "{err}");
        assert!(err.contains("bytes"), "{err}");
    }
}
