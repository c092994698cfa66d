//! The inputs of a `vkssim score` run: the reference, the distorted inputs
//! (in `-d` order), and how they are read (Y4M or raw YUV in the `-w -h -p -b`
//! layout, or H.264 Annex B streams). Resolving them checks, once, which
//! combinations can be scored together.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use vkssim::io::{Chroma, RawFormat};

use super::{Opt, Spelling};
use crate::args::{Backend, ScoreArgs};

/// The inputs of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// The reference (`-`: standard input).
    pub reference: PathBuf,
    /// The distorted inputs, at least one, in `-d` order.
    pub distorted: Vec<PathBuf>,
    /// How both are read.
    pub kind: InputKind,
    /// How encoded inputs are decoded (`--decode-errors`,
    /// `--decode-threads`; no stream: each input has its own).
    pub decode: vkssim::io::DecodeOptions,
    /// `--reference-stream`: the reference's video stream (`None`: the first).
    pub reference_stream: Option<usize>,
    /// `--stream`: each distorted input's video stream, in `-d` order.
    pub streams: Vec<Option<usize>>,
    /// `--resize-distorted`: distorted inputs scaled to the reference's size.
    pub resize: Option<vkssim::io::ScaleAlgorithm>,
}

/// How a run's inputs are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// Decoded frames: Y4M, or raw YUV in this layout (`None`: none given).
    Frames {
        /// The layout `-w -h -p -b` give.
        raw: Option<RawFormat>,
    },
    /// H.264 Annex B streams (`.h264`/`.264`), decoded by Vulkan Video.
    H264,
}

impl Inputs {
    /// The (first) distorted input.
    pub fn dist(&self) -> &Path {
        &self.distorted[0]
    }

    /// How the reference is decoded: [`Inputs::decode`], its own stream.
    pub fn decode_reference(&self) -> vkssim::io::DecodeOptions {
        vkssim::io::DecodeOptions {
            stream: self.reference_stream,
            ..self.decode
        }
    }

    /// How distorted input `k` is decoded: [`Inputs::decode`], its own
    /// stream, resized to `reference`'s size with `--resize-distorted`.
    pub fn decode_distorted(
        &self,
        k: usize,
        reference: vkssim::io::VideoFormat,
    ) -> vkssim::io::DecodeOptions {
        vkssim::io::DecodeOptions {
            stream: self.streams.get(k).copied().flatten(),
            resize: self.resize.map(|algorithm| vkssim::io::Resize {
                width: reference.width,
                height: reference.height,
                algorithm,
            }),
            ..self.decode
        }
    }

    /// The raw YUV layout given (`None` for Y4M and H.264 inputs).
    pub fn raw(&self) -> Option<RawFormat> {
        match self.kind {
            InputKind::Frames { raw } => raw,
            InputKind::H264 => None,
        }
    }

    /// Every input with its role for messages: the reference, then each
    /// distorted input.
    pub fn named(&self) -> Vec<(&'static str, &Path)> {
        std::iter::once(("reference", self.reference.as_path()))
            .chain(
                self.distorted
                    .iter()
                    .map(|p| ("distorted input", p.as_path())),
            )
            .collect()
    }

    /// Whether an input is standard input.
    pub fn reads_stdin(&self) -> bool {
        self.named().iter().any(|(_, p)| *p == Path::new("-"))
    }
}

/// Whether `path` names an H.264 Annex B stream (`.h264` or `.264`).
pub fn is_h264(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("h264") || e.eq_ignore_ascii_case("264"))
}

/// Whether the pair is decoded on the GPU by Vulkan Video (`--decode`):
/// `gpu`; or `auto` with a `.h264` input in a build without FFmpeg (no CPU
/// decoder: the GPU path says what it needs). `gpu` in a build without
/// `vulkan-video` and `cpu` on `.h264` in a build without FFmpeg are errors.
fn decodes_on_gpu(args: &ScoreArgs, named: &[(&'static str, &Path)]) -> Result<bool> {
    let h264 = named.iter().any(|(_, p)| is_h264(p));
    let decode = |on: &str| args.spelling.word(Opt::Decode, on);
    match args.decode_on.as_str() {
        "gpu" if !cfg!(feature = "vulkan-video") => bail!(
            "{} needs vkssim built with the vulkan-video feature (cargo build \
             --release -p vkssim-cli --features vulkan-video) and a GPU with Vulkan Video \
             H.264 decode (see `vkssim devices`)",
            decode("gpu")
        ),
        "gpu" => Ok(true),
        "cpu" if h264 && !cfg!(feature = "ffmpeg") => bail!(
            "{}: .h264 inputs are decoded on the CPU by FFmpeg, and this vkssim is \
             built without it (the ffmpeg feature); decode them first \
             (ffmpeg -i IN.h264 -f yuv4mpegpipe - | vkssim score -d - ...)",
            decode("cpu")
        ),
        "cpu" => Ok(false),
        _ => Ok(h264 && !cfg!(feature = "ffmpeg")),
    }
}

/// The inputs `args` give, for a ladder (`ladder`: several `-d`, or outputs
/// per input) or a single pair, their raw layout still unread ([`raw_format`]
/// reads it). Refuses H.264 in a ladder, an H.264 input
/// paired with another kind, the flags that do not apply to H.264, and
/// standard input given twice.
pub fn resolve(args: &ScoreArgs, ladder: bool) -> Result<Inputs> {
    let inputs = Inputs {
        reference: args.reference.clone(),
        distorted: args.distorted.clone(),
        kind: InputKind::Frames { raw: None },
        decode: args.decode(),
        reference_stream: args.reference_stream,
        streams: streams(args)?,
        resize: args
            .resize_distorted
            .as_deref()
            .map(str::parse)
            .transpose()
            .context(args.spelling.name(Opt::ResizeDistorted))?,
    };
    let named = inputs.named();
    let stdin = named.iter().filter(|(_, p)| *p == Path::new("-")).count();
    let gpu = decodes_on_gpu(args, &named)?;
    if ladder {
        if gpu {
            bail!("several -d (or --output-dir, or an -o pattern) take inputs decoded on the CPU; score inputs decoded on the GPU (--decode gpu, .h264) one pair at a time");
        }
        if stdin > 1 {
            bail!("standard input (-) can be only one of the inputs");
        }
    } else if gpu {
        check_h264(args, &inputs)?;
        return Ok(Inputs {
            kind: InputKind::H264,
            ..inputs
        });
    } else if stdin > 1 {
        bail!("the reference and the distorted input cannot both be standard input (-)");
    }
    Ok(inputs)
}

/// An H.264 pair: both inputs H.264, and none of the flags that only make
/// sense for decoded frames (raw geometry, skips, subsampling, the CPU
/// backend, a device).
fn check_h264(args: &ScoreArgs, inputs: &Inputs) -> Result<()> {
    let s: Spelling = args.spelling;
    for (which, path) in [
        ("reference", inputs.reference.as_path()),
        ("distorted", inputs.dist()),
    ] {
        if path == Path::new("-") {
            bail!(
                "the {which} input is standard input, which the GPU's decoder does not read; \
                 give it as a file, or decode it on the CPU ({})",
                s.word(Opt::Decode, "cpu")
            );
        }
        // With FFmpeg, libavformat demuxes any container (the codec is
        // checked when it is opened); without it, only .h264 files.
        if !cfg!(feature = "ffmpeg") && !is_h264(path) {
            bail!(
                "the {which} input {} is not an H.264 Annex B stream (.h264/.264) but the other \
                 input is; give both as .h264, or decode both (ffmpeg -i IN -f yuv4mpegpipe OUT.y4m)",
                path.display()
            );
        }
    }
    let refused: [(bool, String); 12] = [
        (args.width.is_some(), s.name(Opt::Width).into()),
        (args.height.is_some(), s.name(Opt::Height).into()),
        (args.pixel_format.is_some(), s.name(Opt::PixelFormat).into()),
        (args.bitdepth.is_some(), s.name(Opt::Bitdepth).into()),
        (args.frame_skip_ref != 0, s.name(Opt::FrameSkipRef).into()),
        (args.frame_skip_dist != 0, s.name(Opt::FrameSkipDist).into()),
        (args.subsample > 1, s.name(Opt::Subsample).into()),
        (
            args.engine.backend == Backend::Cpu,
            s.word(Opt::Backend, "cpu"),
        ),
        (args.engine.device.is_some(), s.name(Opt::Device).into()),
        (!args.stream.is_empty(), s.name(Opt::Stream).into()),
        (
            args.reference_stream.is_some(),
            s.name(Opt::ReferenceStream).into(),
        ),
        (
            args.resize_distorted.is_some(),
            s.name(Opt::ResizeDistorted).into(),
        ),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        bail!(
            "{flag} does not apply to H.264 inputs, which are decoded and scored on the GPU's \
             Vulkan Video decoder (the first device that has one); decode them first \
             (ffmpeg -i IN.h264 -f yuv4mpegpipe - | vkssim score -d - ...) to use it"
        );
    }
    Ok(())
}

/// Each distorted input's stream from `--stream`: none given, every input's
/// first; one, every input's; else one per `-d`, in order (another count is
/// an error saying so).
fn streams(args: &ScoreArgs) -> Result<Vec<Option<usize>>> {
    let n = args.distorted.len();
    match args.stream.as_slice() {
        [] => Ok(vec![None; n]),
        [one] => Ok(vec![Some(*one); n]),
        list if list.len() == n => Ok(list.iter().copied().map(Some).collect()),
        list => bail!(
            "--stream {}: {} streams for {n} distorted input{}; give one stream for every -d, \
             or one per -d in order",
            list.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(","),
            list.len(),
            if n == 1 { "" } else { "s" }
        ),
    }
}

/// The raw YUV layout from `-w -h -p -b`, `None` when none is given (Y4M input).
pub fn raw_format(args: &ScoreArgs) -> Result<Option<RawFormat>> {
    if args.width.is_none()
        && args.height.is_none()
        && args.pixel_format.is_none()
        && args.bitdepth.is_none()
    {
        return Ok(None);
    }
    let chroma = args
        .pixel_format
        .as_deref()
        .map(|p| p.parse::<Chroma>())
        .transpose()
        .context(args.spelling.name(Opt::PixelFormat))?;
    Ok(Some(RawFormat {
        width: args.width,
        height: args.height,
        chroma,
        bit_depth: args.bitdepth,
    }))
}
