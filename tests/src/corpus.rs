//! The clip corpus: runs `tools/gen-clips.sh` once (cached under
//! `target/vkssim-clips/`, keyed on the script's hash, serialised across processes
//! by the script's own `flock`), parses its `manifest.tsv`, and reads the luma of
//! each frame with a reader independent of vkssim's (so the oracle never sees
//! bytes that vkssim's readers produced).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use vkssim::{frame::bytes_per_sample, LumaFrame};

use crate::paths;

/// File container of a clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// Raw planar YUV, no header.
    Yuv,
    /// YUV4MPEG2.
    Y4m,
}

/// One reference/distorted pair of the corpus.
#[derive(Debug, Clone)]
pub struct Clip {
    /// Name, e.g. `s4_1920x1080_420p8`.
    pub name: String,
    /// File format.
    pub container: Container,
    /// Luma width.
    pub width: u32,
    /// Luma height.
    pub height: u32,
    /// Chroma subsampling: 420, 422, 444, or 400 for luma only (Y4M `Cmono`).
    pub chroma: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// Frames in each file.
    pub frames: usize,
    /// The reference file.
    pub reference: PathBuf,
    /// The distorted file.
    pub distorted: PathBuf,
    /// Encoder that made the distorted clip.
    pub codec: String,
}

impl Clip {
    /// Bytes of one luma plane.
    pub fn luma_bytes(&self) -> usize {
        self.width as usize * self.height as usize * bytes_per_sample(self.bit_depth)
    }

    /// Bytes of one whole frame (luma and two chroma planes of ceil-halved size,
    /// or luma alone for 400).
    pub fn frame_bytes(&self) -> usize {
        let (cw, ch) = match self.chroma {
            420 => (self.width.div_ceil(2), self.height.div_ceil(2)),
            422 => (self.width.div_ceil(2), self.height),
            400 => (0, 0),
            _ => (self.width, self.height),
        };
        self.luma_bytes() + 2 * cw as usize * ch as usize * bytes_per_sample(self.bit_depth)
    }

    /// The luma planes of every frame of `path` (this clip's reference or
    /// distorted file), read without vkssim's readers. Panics naming the file on a
    /// malformed file: the corpus is generated, so that is a harness bug.
    pub fn read_luma(&self, path: &Path) -> Vec<LumaFrame> {
        let data = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut pos = 0;
        if self.container == Container::Y4m {
            pos = line_end(&data, 0, path) + 1;
        }
        let mut out = Vec::with_capacity(self.frames);
        while pos < data.len() {
            if self.container == Container::Y4m {
                assert!(
                    data[pos..].starts_with(b"FRAME"),
                    "{}: frame {}: no FRAME line",
                    path.display(),
                    out.len()
                );
                pos = line_end(&data, pos, path) + 1;
            }
            let end = pos + self.frame_bytes();
            assert!(
                end <= data.len(),
                "{}: frame {} is truncated",
                path.display(),
                out.len()
            );
            out.push(LumaFrame {
                width: self.width,
                height: self.height,
                bit_depth: self.bit_depth,
                bytes: data[pos..pos + self.luma_bytes()].to_vec(),
            });
            pos = end;
        }
        assert_eq!(
            out.len(),
            self.frames,
            "{}: frame count differs from the manifest",
            path.display()
        );
        out
    }

    /// Reference and distorted luma planes of every frame.
    pub fn read_pairs(&self) -> Vec<(LumaFrame, LumaFrame)> {
        self.read_luma(&self.reference)
            .into_iter()
            .zip(self.read_luma(&self.distorted))
            .collect()
    }

    /// The `-p` value of the vmaf CLI for this clip (raw YUV clips are never
    /// 400: the vmaf CLI reads luma-only input from Y4M only).
    pub fn pixel_format(&self) -> &'static str {
        match self.chroma {
            420 => "420",
            422 => "422",
            _ => "444",
        }
    }
}

/// Index of the next `\n` at or after `from`.
fn line_end(data: &[u8], from: usize, path: &Path) -> usize {
    data[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| from + i)
        .unwrap_or_else(|| panic!("{}: unterminated Y4M line", path.display()))
}

/// The corpus directory, generating it on first use in this process.
pub fn corpus_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = paths::workspace_root().join("tools/gen-clips.sh");
        let base = paths::target_dir().join("vkssim-clips");
        let out = Command::new("bash")
            .arg(&script)
            .arg(&base)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "{} failed ({}):\n{}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let dir = stdout
            .lines()
            .last()
            .unwrap_or_else(|| panic!("{} printed no directory", script.display()));
        PathBuf::from(dir.trim())
    })
}

/// Every clip of the corpus, in manifest order.
pub fn clips() -> Vec<Clip> {
    let dir = corpus_dir();
    let manifest = dir.join("manifest.tsv");
    let text =
        fs::read_to_string(&manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 10, "{}: bad line {line:?}", manifest.display());
            let num = |i: usize| -> u32 {
                f[i].parse()
                    .unwrap_or_else(|_| panic!("{}: bad number in {line:?}", manifest.display()))
            };
            Clip {
                name: f[0].to_string(),
                container: if f[1] == "y4m" {
                    Container::Y4m
                } else {
                    Container::Yuv
                },
                width: num(2),
                height: num(3),
                chroma: num(4),
                bit_depth: num(5),
                frames: num(6) as usize,
                reference: dir.join(f[7]),
                distorted: dir.join(f[8]),
                codec: f[9].to_string(),
            }
        })
        .collect()
}

/// The clip called `name`; panics if the corpus has none.
pub fn clip(name: &str) -> Clip {
    clips()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no clip {name} in the corpus"))
}

/// One `#[test]` per corpus clip, each calling `$check(clip_name)`, and a const
/// `CLIPS_WITH_TESTS` naming them, so a test file can check that the manifest
/// holds no clip without a test. The clip list lives here once for every
/// parity test file.
#[macro_export]
macro_rules! corpus_clip_tests {
    ($check:path) => {
        $crate::corpus_clip_tests!(@emit $check;
            s1_321x241_420p8,
            s1_255x300_444p16,
            s2_704x513_422p10,
            s2_640x480_420p12,
            s3_1024x768_444p12,
            s4_1920x1080_420p8,
            s5_1283x1280_420p10,
            s6_1536x1537_444p16,
            s7_1800x1792_422p8,
            s8_2100x2048_420p12,
            s11_2800x2761_420p8,
            hq_1280x720_420p10,
            mono_480x361_400p8,
        );
    };
    (@emit $check:path; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $check(stringify!($name));
            }
        )*
        /// The clips that have a test in this file.
        const CLIPS_WITH_TESTS: &[&str] = &[$(stringify!($name)),*];
    };
}
