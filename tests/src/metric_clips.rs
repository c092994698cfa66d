//! The corpus of the `psnr` / `float_ms_ssim` parity tests: small raw planar
//! YUV pairs generated here from fixed seeds (no codec needed), written once
//! under `target/vkssim-metrics/clips-v<VERSION>/` (a temporary file renamed
//! into place, so concurrent tests never read half a file), and read back
//! plane by plane with this module's own reader.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use vkssim::frame::bytes_per_sample;
use vkssim::io::Chroma;
use vkssim::{LumaFrame, LumaView};

use crate::paths;

/// Bump when the generated content changes.
const VERSION: u32 = 1;

/// What the distorted clip is, relative to the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// The reference plus bounded noise and a small shift in brightness.
    Noisy,
    /// The reference itself.
    Identical,
    /// `max - reference` (negative structure: MS-SSIM is NaN).
    Inverted,
    /// Independent full-range samples (16-bit: errors above 46340, where
    /// libvmaf 2.3.1's int32 square overflows).
    Unrelated,
    /// As `Noisy`, but the reference cuts to another scene (another ramp,
    /// grating and brightness) at the middle frame: motion's big step.
    SceneCut,
    /// A flat mid-grey reference against a flat, slightly brighter distorted
    /// (no structure: VIF's and ADM's zero-variance paths).
    Flat,
}

/// One generated pair.
#[derive(Debug, Clone)]
pub struct MetricClip {
    /// A name for messages and files.
    pub name: String,
    /// Luma width.
    pub width: u32,
    /// Luma height.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// 4:2:0, 4:2:2 or 4:4:4.
    pub chroma: Chroma,
    /// Frames in each file.
    pub frames: usize,
    /// The distortion.
    pub content: Content,
    /// The reference file.
    pub reference: PathBuf,
    /// The distorted file.
    pub distorted: PathBuf,
}

/// A xorshift generator (fixed seeds, reproducible everywhere).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

impl MetricClip {
    /// The pair `content` of this geometry, generated on first use.
    pub fn new(
        width: u32,
        height: u32,
        bit_depth: u32,
        chroma: Chroma,
        frames: usize,
        content: Content,
    ) -> Self {
        let name = format!("{width}x{height}_{chroma}p{bit_depth}_{content:?}_{frames}f");
        let dir = paths::target_dir().join(format!("vkssim-metrics/clips-v{VERSION}"));
        let clip = MetricClip {
            reference: dir.join(format!("{name}_ref.yuv")),
            distorted: dir.join(format!("{name}_dis.yuv")),
            name,
            width,
            height,
            bit_depth,
            chroma,
            frames,
            content,
        };
        if !(clip.reference.is_file() && clip.distorted.is_file()) {
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            let (r, d) = clip.generate();
            for (path, bytes) in [(&clip.reference, r), (&clip.distorted, d)] {
                // One name per writer: the process and a counter (test
                // threads of one process may generate the same clip).
                static WRITER: AtomicUsize = AtomicUsize::new(0);
                let n = WRITER.fetch_add(1, Ordering::Relaxed);
                let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
                std::fs::write(&tmp, bytes).unwrap_or_else(|e| panic!("{}: {e}", tmp.display()));
                std::fs::rename(&tmp, path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
        clip
    }

    /// The three planes' sizes (libvmaf's picture sizes).
    pub fn plane_sizes(&self) -> [(u32, u32); 3] {
        let c = self.chroma.plane_size(self.width, self.height);
        [(self.width, self.height), c, c]
    }

    /// Bytes of one frame.
    fn frame_bytes(&self) -> usize {
        self.plane_sizes()
            .iter()
            .map(|&(w, h)| w as usize * h as usize)
            .sum::<usize>()
            * bytes_per_sample(self.bit_depth)
    }

    fn generate(&self) -> (Vec<u8>, Vec<u8>) {
        let max = (1u64 << self.bit_depth) - 1;
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (self.width as u64) << 20 ^ self.height as u64);
        let (mut r, mut d) = (Vec::new(), Vec::new());
        let put = |out: &mut Vec<u8>, v: u64| {
            if self.bit_depth == 8 {
                out.push(v as u8);
            } else {
                out.extend((v as u16).to_le_bytes());
            }
        };
        for f in 0..self.frames as u64 {
            for (p, &(w, h)) in self.plane_sizes().iter().enumerate() {
                for y in 0..h as u64 {
                    for x in 0..w as u64 {
                        // Smooth ramps, a moving grating and texture noise;
                        // after a cut, another ramp, grating and level.
                        let cut = self.content == Content::SceneCut && f >= self.frames as u64 / 2;
                        let ramp = if cut {
                            (x * 2 + (h as u64 - y) * 5 + f * 3 + p as u64 * 70) % 256
                        } else {
                            (x * 3 + y * 2 + f * 5 + p as u64 * 40) % 256
                        };
                        let grating = match (cut, (x / 4 + y / 6 + f) % 2, (x / 9 + f) % 3) {
                            (false, 0, _) | (true, _, 0) => 30,
                            _ => 0,
                        };
                        let noise = rng.next() % 24;
                        let level = if cut { 70 } else { 40 };
                        let base8 = (ramp / 2 + grating + noise + level).min(255);
                        let scale = max as f64 / 255.0;
                        let fine = rng.next() % (1 << (self.bit_depth - 8));
                        let a = if self.content == Content::Flat {
                            1 << (self.bit_depth - 1)
                        } else {
                            ((base8 as f64 * scale) as u64 + fine).min(max)
                        };
                        let b = match self.content {
                            Content::Identical => a,
                            Content::Inverted => max - a,
                            Content::Unrelated => rng.next() % (max + 1),
                            Content::Flat => a + (max / 64),
                            Content::Noisy | Content::SceneCut => {
                                let amp = (max / 64).max(3) + f * (max / 255);
                                let delta = (rng.next() % (2 * amp + 1)) as i64 - amp as i64;
                                (a as i64 + delta + (max / 128) as i64).clamp(0, max as i64) as u64
                            }
                        };
                        put(&mut r, a);
                        put(&mut d, b);
                    }
                }
            }
        }
        (r, d)
    }

    /// Every frame of `path` (this clip's reference or distorted) as its three
    /// planes.
    pub fn read(&self, path: &std::path::Path) -> Vec<[LumaFrame; 3]> {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            data.len(),
            self.frame_bytes() * self.frames,
            "{}: size",
            path.display()
        );
        let bps = bytes_per_sample(self.bit_depth);
        data.chunks_exact(self.frame_bytes())
            .map(|frame| {
                let mut at = 0;
                self.plane_sizes().map(|(w, h)| {
                    let n = w as usize * h as usize * bps;
                    let bytes = frame[at..at + n].to_vec();
                    at += n;
                    LumaFrame {
                        width: w,
                        height: h,
                        bit_depth: self.bit_depth,
                        bytes,
                    }
                })
            })
            .collect()
    }

    /// The vmaf CLI's input flags for this pair.
    pub fn vmaf_args(&self) -> Vec<String> {
        vec![
            "-r".into(),
            self.reference.display().to_string(),
            "-d".into(),
            self.distorted.display().to_string(),
            "-w".into(),
            self.width.to_string(),
            "-h".into(),
            self.height.to_string(),
            "-p".into(),
            self.chroma.to_string(),
            "-b".into(),
            self.bit_depth.to_string(),
        ]
    }
}

/// Views of a frame's planes.
pub fn views(planes: &[LumaFrame; 3]) -> [LumaView<'_>; 3] {
    [planes[0].view(), planes[1].view(), planes[2].view()]
}
