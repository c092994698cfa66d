//! Resizing decoded frames with libswscale ([`Scaler`]), as `ffmpeg -vf
//! scale=W:H:flags=ALGO` does: the same pixel format in and out, the
//! algorithm's flag alone (no accurate rounding, no full chroma
//! interpolation, libswscale's default parameters), the whole frame scaled
//! (so that each plane goes through the same code as in the filter) and the
//! planes then copied as the decoder's are.

use ffmpeg_next::format::Pixel;
use ffmpeg_next::frame;
use ffmpeg_next::software::scaling::{Context, Flags};

use crate::io::{Resize, ScaleAlgorithm, VideoFormat};
use crate::{Error, Result};

/// A libswscale context and the frame it scales into.
pub(super) struct Scaler {
    context: Context,
    out: frame::Video,
}

// SAFETY: the scaling context is owned by this value alone and only used
// through `&mut self`; libswscale contexts may move between threads.
unsafe impl Send for Scaler {}

/// The libswscale flag of `algorithm`.
fn flags(algorithm: ScaleAlgorithm) -> Flags {
    match algorithm {
        ScaleAlgorithm::Bicubic => Flags::BICUBIC,
        ScaleAlgorithm::Bilinear => Flags::BILINEAR,
        ScaleAlgorithm::Lanczos => Flags::LANCZOS,
        ScaleAlgorithm::Spline => Flags::SPLINE,
        ScaleAlgorithm::Neighbor => Flags::POINT,
        ScaleAlgorithm::Area => Flags::AREA,
    }
}

impl Scaler {
    /// A scaler from `source` frames of `pixel` to `resize`'s size; `None`
    /// when the sizes are equal (frames pass as they are, as in the filter).
    /// Returns the format of the frames it gives.
    pub(super) fn new(
        pixel: Pixel,
        source: VideoFormat,
        resize: &Resize,
    ) -> Result<Option<(Self, VideoFormat)>> {
        if (resize.width, resize.height) == (source.width, source.height) {
            return Ok(None);
        }
        let target =
            VideoFormat::new(resize.width, resize.height, source.bit_depth, source.chroma)?;
        let context = Context::get(
            pixel,
            source.width,
            source.height,
            pixel,
            target.width,
            target.height,
            flags(resize.algorithm),
        )
        .map_err(|e| {
            Error::Unsupported(format!(
                "libswscale cannot scale {source} to {target} with {}: {e}",
                resize.algorithm
            ))
        })?;
        let out = frame::Video::new(pixel, target.width, target.height);
        Ok(Some((Self { context, out }, target)))
    }

    /// `frame` scaled.
    pub(super) fn run(&mut self, frame: &frame::Video) -> Result<&frame::Video> {
        self.context
            .run(frame, &mut self.out)
            .map_err(|e| Error::Internal(format!("libswscale failed on a frame: {e}")))?;
        Ok(&self.out)
    }
}
