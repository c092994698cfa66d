//! How an encoded input is decoded ([`DecodeOptions`]): which video stream,
//! what a damaged frame does, how many decoder threads, and a size to scale
//! it to ([`Resize`]). The options exist with
//! or without the `ffmpeg` feature, so callers build the same either way;
//! without it, inputs are Y4M or raw YUV and only [`DecodeOptions::stream`] is
//! looked at (a stream other than the first is refused).

/// What a frame that the decoder reports as damaged does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum DecodeErrors {
    /// The read fails with [`crate::Error::Decode`], naming the file, the
    /// frame and the decoder's message (the default: a concealed frame is
    /// never scored silently).
    #[default]
    Error,
    /// The decoder's concealment is accepted, as `ffmpeg` does: a packet it
    /// cannot decode is dropped and a frame it patched up is kept, each with a
    /// warning through `tracing`.
    Conceal,
}

/// How an encoded input is decoded (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DecodeOptions {
    /// Which video stream, counting the input's video streams from 0 (cover
    /// art excluded); `None`: the first, as `ffmpeg -map 0:v:0`.
    pub stream: Option<usize>,
    /// What a damaged frame does.
    pub errors: DecodeErrors,
    /// Decoder threads; 0: as many as the host has cores (libavcodec's
    /// automatic count). Frame and slice threading, as the codec allows.
    pub threads: usize,
    /// Resize every frame to this size (encoded inputs only; an input of
    /// another kind whose size differs is [`crate::Error::Unsupported`]).
    pub resize: Option<Resize>,
}

/// A libswscale scaling algorithm, by the name of `ffmpeg`'s `scale` filter
/// flag (`flags=bicubic`, ...).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ScaleAlgorithm {
    /// `bicubic` (ffmpeg's default).
    #[default]
    Bicubic,
    /// `bilinear`.
    Bilinear,
    /// `lanczos`.
    Lanczos,
    /// `spline`.
    Spline,
    /// `neighbor` (nearest neighbour).
    Neighbor,
    /// `area` (averaging area).
    Area,
}

impl ScaleAlgorithm {
    /// Every algorithm, in the order the messages list them.
    pub const ALL: [ScaleAlgorithm; 6] = [
        ScaleAlgorithm::Bicubic,
        ScaleAlgorithm::Bilinear,
        ScaleAlgorithm::Lanczos,
        ScaleAlgorithm::Spline,
        ScaleAlgorithm::Neighbor,
        ScaleAlgorithm::Area,
    ];

    /// The `scale` filter's name of the flag.
    pub fn name(self) -> &'static str {
        match self {
            ScaleAlgorithm::Bicubic => "bicubic",
            ScaleAlgorithm::Bilinear => "bilinear",
            ScaleAlgorithm::Lanczos => "lanczos",
            ScaleAlgorithm::Spline => "spline",
            ScaleAlgorithm::Neighbor => "neighbor",
            ScaleAlgorithm::Area => "area",
        }
    }
}

impl std::fmt::Display for ScaleAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ScaleAlgorithm {
    type Err = crate::Error;

    /// One of [`ScaleAlgorithm::ALL`]'s names.
    fn from_str(s: &str) -> crate::Result<Self> {
        Self::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                crate::Error::Unsupported(format!(
                    "scaling algorithm {s:?} (vkssim has {})",
                    Self::ALL.map(Self::name).join(", ")
                ))
            })
    }
}

/// Frames resized to `width x height` with libswscale, as `ffmpeg -vf
/// scale=W:H:flags=ALGO` does (feature `ffmpeg`, encoded inputs only); a
/// frame of that size already is left as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Resize {
    /// Width after resizing.
    pub width: u32,
    /// Height after resizing.
    pub height: u32,
    /// The scaling algorithm.
    pub algorithm: ScaleAlgorithm,
}
