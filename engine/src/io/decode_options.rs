//! How an encoded input is decoded ([`DecodeOptions`]): which video stream,
//! what a damaged frame does, how many decoder threads. The options exist with
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
}
