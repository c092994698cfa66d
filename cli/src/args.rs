//! The command line: `vkssim score` with the `vmaf` CLI's flags (so a script can
//! switch by changing the program name; `vkssim -r ... -d ...` without a
//! subcommand means `score`), and `vkssim bench`.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

use crate::env_vars::EnvOptions;
use crate::output::{Format, Precision};
use crate::plan::Spelling;
use vkssim::metric::MotionVersion;

/// The most `--threads` may ask for.
pub const MAX_THREADS: u64 = 1024;
/// The most `--read-threads` may ask for.
pub const MAX_READ_THREADS: u64 = 256;
/// The most `--frames-in-flight` may ask for (the engine's limit).
pub const MAX_FRAMES_IN_FLIGHT: u64 = vkssim::vk::MAX_FRAMES_IN_FLIGHT as u64;
/// The most `--decode-threads` may ask for.
pub const MAX_DECODE_THREADS: u16 = 64;
/// The most `bench --frames` may ask for.
pub const MAX_BENCH_FRAMES: u64 = 1_000_000;

/// vkssim: libvmaf's scores (VMAF, float_ssim, psnr, float_ms_ssim), bit for bit, fast.
#[derive(Debug, Parser)]
#[command(name = "vkssim", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Write a Chrome/Perfetto trace (JSON) of the run to FILE: a span per frame
    /// (read, upload, submit, wait) and the per-pass GPU times.
    #[arg(long = "trace-chrome", value_name = "FILE", global = true)]
    pub trace_chrome: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score a distorted video against its reference (the `vmaf` CLI's flags).
    Score(Box<ScoreArgs>),
    /// Time the scorer on generated frames (no file needed): float_ssim on
    /// the Vulkan engine unless --feature or -m/--model say otherwise.
    Bench(Box<BenchArgs>),
    /// List the Vulkan devices and what vkssim would do on each.
    Devices,
}

/// Which engine scores the frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// Vulkan when a usable device is present, otherwise the CPU.
    Auto,
    /// The exact CPU twin, on `--threads` threads.
    Cpu,
    /// The Vulkan engine (an error when no usable device is present).
    Vulkan,
}

/// How the Vulkan engine gets samples onto the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Upload {
    /// Direct on unified-memory devices, staging otherwise.
    Auto,
    /// Straight into host-visible device memory.
    Direct,
    /// Through a staging buffer and a copy on the device.
    Staging,
}

/// Which Vulkan devices `--device` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Every device that can score (see `vkssim::api::usable_devices`).
    All,
    /// These indices, in this order (at least one; an index given twice runs
    /// two scorers on that device).
    List(Vec<usize>),
}

impl std::fmt::Display for DeviceChoice {
    /// As `--device` takes it: `all`, or `N,M,...`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceChoice::All => f.write_str("all"),
            DeviceChoice::List(list) => {
                let parts: Vec<String> = list.iter().map(usize::to_string).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

/// Devices one run may name at most.
pub const MAX_DEVICES: usize = 64;

/// Parses `--device`: `all`, `N` or `N,M,...` (at most [`MAX_DEVICES`]).
pub fn parse_devices(text: &str) -> Result<DeviceChoice, String> {
    if text.trim() == "all" {
        return Ok(DeviceChoice::All);
    }
    let mut list = Vec::new();
    for part in text.split(',') {
        let index: usize = part.trim().parse().map_err(|_| {
            format!("`{part}` is not a device index: give N, N,M,... or all (see `vkssim devices`)")
        })?;
        list.push(index);
    }
    if list.len() > MAX_DEVICES {
        return Err(format!(
            "at most {MAX_DEVICES} devices, {} given",
            list.len()
        ));
    }
    Ok(DeviceChoice::List(list))
}

/// The scoring engine's flags, shared by `score` and `bench`.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Scoring engine.
    #[arg(long = "backend", value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// Worker threads of the CPU backend (0: one per core; at most 1024).
    #[arg(long = "threads", default_value_t = 0, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_THREADS))]
    pub threads: usize,
    /// Vulkan device(s), as `vkssim devices` lists them: an index, a list
    /// (`0,2`: the pairs are spread over them; an index given twice runs two
    /// scorers on it), or `all` (every GPU that can score); default: the best
    /// one.
    #[arg(long = "device", value_name = "N|N,M,..|all", value_parser = parse_devices)]
    pub device: Option<DeviceChoice>,
    /// Vulkan upload path.
    #[arg(long = "upload", value_enum, default_value_t = Upload::Auto)]
    pub upload: Upload,
    /// Use the software fp64 shaders even on a device with shaderFloat64.
    #[arg(long = "no-fp64")]
    pub no_fp64: bool,
    /// Vulkan: frames in flight (ring slots); 0 picks (8 for in-memory frames,
    /// more when reading files on several threads, no more than one per 64
    /// frames of a run of known length); at most 1024.
    #[arg(long = "frames-in-flight", default_value_t = 0, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_FRAMES_IN_FLIGHT))]
    pub frames_in_flight: usize,
    /// Threads reading luma planes straight into the scorer's frame slots
    /// (regular files by position, streams in order); 0 picks (the cores,
    /// less 3, from 2 to 12); at most 256.
    #[arg(long = "read-threads", default_value_t = 0, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_READ_THREADS))]
    pub read_threads: usize,
    /// What the `VKSSIM_*` environment variables ask (filled in by `main`).
    #[arg(skip)]
    pub env: EnvOptions,
}

impl Default for EngineArgs {
    /// No engine flag given.
    fn default() -> Self {
        Self {
            backend: Backend::Auto,
            threads: 0,
            device: None,
            upload: Upload::Auto,
            no_fp64: false,
            frames_in_flight: 0,
            read_threads: 0,
            env: EnvOptions::default(),
        }
    }
}

/// `vkssim score`. `-h` is the height, as in `vmaf`; help is `--help` only.
#[derive(Debug, Clone, Args)]
#[command(disable_help_flag = true)]
pub struct ScoreArgs {
    /// Reference video: .y4m, raw .yuv with -w -h -p -b, or (built with FFmpeg) any
    /// encoded file FFmpeg decodes (.mp4, .mkv, ...); `-` reads standard input.
    #[arg(short = 'r', long = "reference", value_name = "PATH")]
    pub reference: PathBuf,
    /// Distorted video: as the reference (.y4m, .yuv, or encoded); `-` reads standard input.
    /// Repeat it to score one reference against several encodes (a ladder): each
    /// reference frame is read once, and each input gets its own output.
    #[arg(short = 'd', long = "distorted", value_name = "PATH", required = true)]
    pub distorted: Vec<PathBuf>,
    /// Width of raw YUV input.
    #[arg(short = 'w', long = "width")]
    pub width: Option<u32>,
    /// Height of raw YUV input.
    #[arg(short = 'h', long = "height")]
    pub height: Option<u32>,
    /// Pixel format of raw YUV input: 420, 422, 444, 411, 444alpha or mono (also 400, gray).
    #[arg(short = 'p', long = "pixel_format", visible_alias = "pixel-format")]
    pub pixel_format: Option<String>,
    /// Bit depth of raw YUV input: 8, 10, 12 or 16.
    #[arg(short = 'b', long = "bitdepth")]
    pub bitdepth: Option<u32>,
    /// Feature to compute beside the model (repeatable): float_ssim, psnr,
    /// float_ms_ssim, vif, adm, motion, with options as in `vmaf`
    /// (float_ssim=enable_db=true:clip_db=true); `-n --feature NAME` scores it
    /// alone.
    #[arg(long = "feature", value_name = "SPEC")]
    pub feature: Vec<String>,
    /// Output file (`-`: standard output). Without it, a summary is printed. With
    /// several -d: a pattern where `{name}` is the distorted file's stem and
    /// `{index}` its position among the -d (from 0).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// With several -d: write each input's scores to DIR/<its stem>.<xml|json|csv|sub>.
    #[arg(long = "output-dir", value_name = "DIR", conflicts_with = "output")]
    pub output_dir: Option<PathBuf>,
    /// Write the output file as XML (the default).
    #[arg(long = "xml", overrides_with_all = ["json", "csv", "sub"])]
    pub xml: bool,
    /// Write the output file as JSON.
    #[arg(long = "json", overrides_with_all = ["xml", "csv", "sub"])]
    pub json: bool,
    /// Write the output file as CSV.
    #[arg(long = "csv", overrides_with_all = ["xml", "json", "sub"])]
    pub csv: bool,
    /// Write the output file as subtitles (MicroDVD).
    #[arg(long = "sub", overrides_with_all = ["xml", "json", "csv"])]
    pub sub: bool,
    /// Score at most this many frames (0: all).
    #[arg(long = "frame_cnt", visible_alias = "frame-cnt", default_value_t = 0)]
    pub frame_cnt: u64,
    /// Skip this many frames at the start of the reference.
    #[arg(
        long = "frame_skip_ref",
        visible_alias = "frame-skip-ref",
        default_value_t = 0
    )]
    pub frame_skip_ref: u64,
    /// Skip this many frames at the start of the distorted video.
    #[arg(
        long = "frame_skip_dist",
        visible_alias = "frame-skip-dist",
        default_value_t = 0
    )]
    pub frame_skip_dist: u64,
    /// Score only every N-th frame.
    #[arg(long = "subsample", default_value_t = 0)]
    pub subsample: u64,
    /// No progress display.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Runs no VMAF model (neither the default nor any `-m/--model`), as in
    /// `vmaf`: only the `--feature`s given.
    #[arg(short = 'n', long = "no_prediction", visible_alias = "no-prediction")]
    pub no_prediction: bool,
    /// A VMAF model, in `vmaf`'s syntax: `version=vmaf_v0.6.1` (built in:
    /// vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1, vmaf_b_v0.6.3) or
    /// `path=FILE.json`, with `name=`, `enable_transform`, `disable_clip`;
    /// repeatable; without it, vmaf_v0.6.1 runs, as in `vmaf`. Its
    /// extractors (vif, adm, motion) run on the CPU twin.
    #[arg(
        short = 'm',
        long = "model",
        value_name = "PARAMS",
        default_value = crate::feature::DEFAULT_MODEL
    )]
    pub model: Vec<String>,
    /// Which libvmaf's motion to compute (for `--feature motion` and the
    /// models): 2.3.1 (the default, the same in 2.3.1 to 3.1.0) or 3.2.0,
    /// whose values and names differ (its SAD score, integer_motion2,
    /// integer_motion3; integer_motion only with motion=debug=true).
    #[arg(
        long = "motion-version",
        value_name = "VERSION",
        default_value = "2.3.1"
    )]
    pub motion_version: MotionVersion,
    /// Accepted for `vmaf` compatibility and ignored (results do not depend on it).
    #[arg(long = "cpumask", hide = true)]
    pub cpumask: Option<String>,
    /// Refused: the AOM CTC presets need features vkssim does not compute.
    #[arg(long = "aom_ctc", hide = true)]
    pub aom_ctc: Option<String>,
    /// The scoring engine.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Digits after the point in the output (default 6, as libvmaf), or `max` for
    /// 17 significant digits (the exact value).
    #[arg(long = "precision", default_value_t = Precision::default())]
    pub precision: Precision,
    /// When the videos differ in length, score the frames both have instead of
    /// failing.
    #[arg(
        long = "allow-length-mismatch",
        visible_alias = "allow_length_mismatch"
    )]
    pub allow_length_mismatch: bool,
    /// Encoded distorted inputs: the video stream to score, counting video
    /// streams from 0 (default: the first); one for every -d, or a comma list
    /// with one per -d, in order.
    #[arg(long = "stream", value_name = "N[,M...]", value_delimiter = ',')]
    pub stream: Vec<usize>,
    /// An encoded reference: the video stream to score, counting video streams
    /// from 0 (default: the first).
    #[arg(long = "reference-stream", value_name = "N")]
    pub reference_stream: Option<usize>,
    /// Encoded inputs: a frame the decoder reports as damaged fails the run
    /// (`error`), or is scored as the decoder concealed it, with a warning (`conceal`).
    #[arg(long = "decode-errors", value_name = "MODE", default_value = "error", value_parser = ["error", "conceal"])]
    pub decode_errors: String,
    /// Encoded inputs: threads for each input's decoder (frame and slice
    /// threads; 1 to 64), or 0: as many as the host has cores
    /// (libavcodec's own count).
    #[arg(long = "decode-threads", value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=i64::from(MAX_DECODE_THREADS)))]
    pub decode_threads: u16,
    /// Where H.264 is decoded: `gpu` (Vulkan Video, any container; needs the
    /// `vulkan-video` build and a GPU that decodes H.264; frames stay on the
    /// GPU), `cpu` (FFmpeg), or `auto`: the CPU, unless vkssim has no CPU
    /// decoder (built without FFmpeg: `.h264` then goes to the GPU).
    #[arg(long = "decode", value_name = "WHERE", default_value = "auto", value_parser = ["auto", "gpu", "cpu"])]
    pub decode_on: String,
    /// Encoded distorted inputs of another size than the reference: scale each
    /// frame to the reference's size with libswscale, as `ffmpeg -vf
    /// scale=W:H:flags=ALGO` (default: different sizes are an error).
    #[arg(long = "resize-distorted", value_name = "ALGO", value_parser = ["bicubic", "bilinear", "lanczos", "spline", "neighbor", "area"])]
    pub resize_distorted: Option<String>,
    /// Print help.
    #[arg(long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
    /// How messages name the options: the flags (a front end that builds
    /// these arguments from its own options says its own names).
    #[arg(skip)]
    pub spelling: Spelling,
}

impl ScoreArgs {
    /// The arguments of `vkssim score -r REFERENCE -d DISTORTED` and no
    /// other flag: every option at its default, for a front end that sets
    /// its options as typed values rather than flags.
    pub fn pair(reference: PathBuf, distorted: PathBuf) -> Self {
        Self {
            reference,
            distorted: vec![distorted],
            width: None,
            height: None,
            pixel_format: None,
            bitdepth: None,
            feature: Vec::new(),
            output: None,
            output_dir: None,
            xml: false,
            json: false,
            csv: false,
            sub: false,
            frame_cnt: 0,
            frame_skip_ref: 0,
            frame_skip_dist: 0,
            subsample: 0,
            quiet: false,
            no_prediction: false,
            model: vec![crate::feature::DEFAULT_MODEL.to_string()],
            motion_version: MotionVersion::default(),
            cpumask: None,
            aom_ctc: None,
            engine: EngineArgs::default(),
            precision: Precision::default(),
            allow_length_mismatch: false,
            stream: Vec::new(),
            reference_stream: None,
            decode_errors: "error".into(),
            decode_threads: 0,
            decode_on: "auto".into(),
            resize_distorted: None,
            help: None,
            spelling: Spelling::Flags,
        }
    }

    /// How encoded inputs are decoded (`--decode-errors`, `--decode-threads`;
    /// the streams are each input's, [`crate::plan::Inputs`]).
    pub fn decode(&self) -> vkssim::io::DecodeOptions {
        vkssim::io::DecodeOptions {
            stream: None,
            errors: match self.decode_errors.as_str() {
                "conceal" => vkssim::io::DecodeErrors::Conceal,
                _ => vkssim::io::DecodeErrors::Error,
            },
            threads: usize::from(self.decode_threads),
            resize: None,
        }
    }

    /// The output format the flags select (the last one given wins, as in `vmaf`).
    pub fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else if self.csv {
            Format::Csv
        } else if self.sub {
            Format::Sub
        } else {
            Format::Xml
        }
    }
}

/// `vkssim bench`.
#[derive(Debug, Args)]
#[command(disable_help_flag = true)]
pub struct BenchArgs {
    /// Frames per timed run, 3 to 1000000; time per frame is
    /// (t(N) - t(2)) / (N - 2).
    #[arg(long = "frames", default_value_t = 22, value_parser = clap::value_parser!(u64).range(3..=MAX_BENCH_FRAMES))]
    pub frames: u64,
    /// Reference file (raw YUV or Y4M); without -r/-d the frames are generated.
    #[arg(
        short = 'r',
        long = "reference",
        value_name = "PATH",
        requires = "distorted"
    )]
    pub reference: Option<PathBuf>,
    /// Distorted file.
    #[arg(
        short = 'd',
        long = "distorted",
        value_name = "PATH",
        requires = "reference"
    )]
    pub distorted: Option<PathBuf>,
    /// Width of the generated frames, or of raw YUV files.
    #[arg(short = 'w', long = "width", default_value_t = 3840)]
    pub width: u32,
    /// Height of the generated frames, or of raw YUV files.
    #[arg(short = 'h', long = "height", default_value_t = 2160)]
    pub height: u32,
    /// Bit depth of the generated frames, or of raw YUV files: 8, 10, 12 or 16.
    #[arg(short = 'b', long = "bitdepth", default_value_t = 8)]
    pub bitdepth: u32,
    /// Chroma layout of raw YUV files and of --write-yuv: 420, 422, 444, 411, 444alpha or mono (also 400, gray).
    #[arg(
        short = 'p',
        long = "pixel_format",
        visible_alias = "pixel-format",
        default_value = "420"
    )]
    pub pixel_format: String,
    /// Skip the CPU backend's timing (and the ratio).
    #[arg(long = "no-cpu")]
    pub no_cpu: bool,
    /// Write the generated pair as raw YUV files `PREFIX_ref.yuv` and
    /// `PREFIX_dist.yuv` (`--frames` frames, chroma at 128) and exit.
    #[arg(
        long = "write-yuv",
        value_name = "PREFIX",
        conflicts_with_all = ["reference", "distorted", "ladder"]
    )]
    pub write_yuv: Option<PathBuf>,
    /// Print help.
    #[arg(long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
    /// The metrics timed, as for `score` (float_ssim, psnr, float_ms_ssim, and
    /// VMAF's vif, adm, motion alone); without --feature or -m, float_ssim.
    #[arg(long = "feature", value_name = "SPEC")]
    pub feature: Vec<String>,
    /// A VMAF model to time, as for `score` (`version=vmaf_v0.6.1`): its
    /// extractors run on the backend chosen (Vulkan or the CPU twin), and the
    /// mean of its score is reported. Without it (or with -n), no model: the
    /// default stays float_ssim on the Vulkan engine.
    #[arg(short = 'm', long = "model", value_name = "PARAMS")]
    pub model: Vec<String>,
    /// Runs no VMAF model (`-m/--model` is ignored), as in `score`.
    #[arg(short = 'n', long = "no_prediction", visible_alias = "no-prediction")]
    pub no_prediction: bool,
    /// Which libvmaf's motion to compute, as for `score`: 2.3.1 (the
    /// default) or 3.2.0.
    #[arg(
        long = "motion-version",
        value_name = "VERSION",
        default_value = "2.3.1"
    )]
    pub motion_version: MotionVersion,
    /// The scoring engine.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Print the result as JSON.
    #[arg(long = "json")]
    pub json: bool,
    /// Time a ladder: one reference against K distorted inputs (the generated
    /// distorted frame, or the -d file, K times), the reference read once,
    /// against K separate single-pair runs at once, scoring the --feature
    /// list.
    #[arg(long = "ladder", value_name = "K", value_parser = clap::value_parser!(u64).range(1..=64))]
    pub ladder: Option<u64>,
    /// Timed repetitions of each run; the median is reported.
    #[arg(long = "repeat", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    pub repeat: u64,
}

/// Parses the process arguments. A first argument that is a flag other than
/// `--help`/`--version` means `score`, so `vkssim -r ref.y4m -d dist.y4m` works as
/// `vmaf` does.
pub fn parse() -> Cli {
    Cli::parse_from(with_default_subcommand(std::env::args_os().collect()))
}

/// Inserts `score` after the program name when the first argument is a flag
/// meant for it.
pub fn with_default_subcommand(mut args: Vec<OsString>) -> Vec<OsString> {
    if let Some(first) = args.get(1).and_then(|a| a.to_str()) {
        let top_level = matches!(first, "--help" | "-V" | "--version");
        if first.starts_with('-') && !top_level {
            args.insert(1, "score".into());
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        Cli::try_parse_from(with_default_subcommand(args))
    }

    fn score(line: &str) -> ScoreArgs {
        match parse(line).unwrap().command {
            Command::Score(s) => *s,
            c => panic!("not score: {c:?}"),
        }
    }

    #[test]
    fn vmaf_style_line_without_subcommand() {
        let s = score("vkssim -r a.yuv -d b.yuv -w 64 -h 48 -p 420 -b 10 --json -o out.json --no_prediction --threads 2");
        assert_eq!(s.width, Some(64));
        assert_eq!(s.height, Some(48));
        assert_eq!(s.bitdepth, Some(10));
        assert_eq!(s.pixel_format.as_deref(), Some("420"));
        assert_eq!(s.format(), Format::Json);
        assert_eq!(s.engine.threads, 2);
        assert_eq!(s.engine.backend, Backend::Auto);
    }

    #[test]
    fn a_pair_is_the_flags_defaults() {
        let parsed = score("vkssim score -r a.y4m -d b.y4m");
        let built = ScoreArgs::pair("a.y4m".into(), "b.y4m".into());
        assert_eq!(format!("{parsed:?}"), format!("{built:?}"));
    }

    #[test]
    fn decode_threads_are_bounded() {
        assert_eq!(score("vkssim score -r a -d b").decode().threads, 0);
        assert_eq!(
            score("vkssim score -r a -d b --decode-threads 8")
                .decode()
                .threads,
            8
        );
        assert!(parse("vkssim score -r a -d b --decode-threads 65").is_err());
        assert!(parse("vkssim score -r a -d b --decode-threads -1").is_err());
    }

    #[test]
    fn last_format_flag_wins() {
        assert_eq!(
            score("vkssim score -r a -d b --json --csv").format(),
            Format::Csv
        );
        assert_eq!(
            score("vkssim score -r a -d b --csv --json").format(),
            Format::Json
        );
        assert_eq!(score("vkssim score -r a -d b").format(), Format::Xml);
    }

    #[test]
    fn precision_flag() {
        assert_eq!(
            score("vkssim score -r a -d b --precision max").precision,
            Precision::Max
        );
        assert_eq!(
            score("vkssim score -r a -d b --precision 3").precision,
            Precision::Fixed(3)
        );
        assert!(parse("vkssim score -r a -d b --precision lots").is_err());
    }

    #[test]
    fn bench_defaults() {
        match parse("vkssim bench").unwrap().command {
            Command::Bench(b) => {
                assert_eq!(
                    (b.frames, b.width, b.height, b.bitdepth),
                    (22, 3840, 2160, 8)
                );
            }
            c => panic!("not bench: {c:?}"),
        }
        assert!(parse("vkssim bench --frames 2").is_err());
        assert!(parse("vkssim bench --frames 1000000").is_ok());
        assert!(parse("vkssim bench --frames 1000001").is_err());
        assert!(parse("vkssim bench --frames 18446744073709551615").is_err());
    }

    #[test]
    fn counts_are_bounded() {
        let engine = |line: &str| score(line).engine;
        assert_eq!(engine("vkssim -r a -d b --threads 1024").threads, 1024);
        assert_eq!(
            engine("vkssim -r a -d b --read-threads 256").read_threads,
            256
        );
        assert_eq!(
            engine("vkssim -r a -d b --frames-in-flight 1024").frames_in_flight,
            1024
        );
        for bad in [
            "--threads 1025",
            "--threads 100000",
            "--read-threads 257",
            "--frames-in-flight 1025",
            "--threads -1",
        ] {
            assert!(
                parse(&format!("vkssim -r a -d b {bad}")).is_err(),
                "{bad} accepted"
            );
        }
    }

    #[test]
    fn command_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
