//! FFmpeg pixel formats as [`VideoFormat`]s: the planar little-endian YUV and
//! gray formats whose bytes are what vkssim's raw layout is (luma plane, then
//! the chroma planes, samples in the low bits of little-endian words above 8
//! bits). Everything else (RGB, packed YUV, semi-planar NV12 and P010, 9 and
//! 14-bit, big-endian, 4:4:0, 4:2:0 with alpha) is refused: converting it
//! would score something other than the decoded samples. A frame's declared
//! colour range: [`declared_range`].

use ffmpeg_next::format::Pixel;
use ffmpeg_next::frame;
use ffmpeg_next::util::color::Range;

use crate::io::{Chroma, ColorRange, DeclaredRange, VideoFormat};

/// The chroma layout and bit depth of `pixel`, or `None` when vkssim does not
/// read it.
pub(super) fn layout(pixel: Pixel) -> Option<(Chroma, u32)> {
    use Pixel as P;
    Some(match pixel {
        P::YUV420P | P::YUVJ420P => (Chroma::C420, 8),
        P::YUV422P | P::YUVJ422P => (Chroma::C422, 8),
        P::YUV444P | P::YUVJ444P => (Chroma::C444, 8),
        P::YUV411P | P::YUVJ411P => (Chroma::C411, 8),
        P::YUVA444P => (Chroma::C444Alpha, 8),
        P::GRAY8 => (Chroma::Mono, 8),
        P::YUV420P10LE => (Chroma::C420, 10),
        P::YUV422P10LE => (Chroma::C422, 10),
        P::YUV444P10LE => (Chroma::C444, 10),
        P::YUVA444P10LE => (Chroma::C444Alpha, 10),
        P::GRAY10LE => (Chroma::Mono, 10),
        P::YUV420P12LE => (Chroma::C420, 12),
        P::YUV422P12LE => (Chroma::C422, 12),
        P::YUV444P12LE => (Chroma::C444, 12),
        P::GRAY12LE => (Chroma::Mono, 12),
        P::YUV420P16LE => (Chroma::C420, 16),
        P::YUV422P16LE => (Chroma::C422, 16),
        P::YUV444P16LE => (Chroma::C444, 16),
        P::YUVA444P16LE => (Chroma::C444Alpha, 16),
        P::GRAY16LE => (Chroma::Mono, 16),
        _ => return None,
    })
}

/// FFmpeg's name of `pixel` (`yuv420p10le`), for messages.
pub(super) fn name(pixel: Pixel) -> String {
    pixel
        .descriptor()
        .map_or_else(|| format!("{pixel:?}"), |d| d.name().to_string())
}

/// The range `frame` declares: full for a `yuvj` pixel format (FFmpeg's
/// full-range formats, as MJPEG decodes to), else its `color_range` (`pc`
/// full, `tv` limited); `None` when unspecified.
pub(super) fn declared_range(frame: &frame::Video) -> Option<DeclaredRange> {
    use Pixel as P;
    let pixel = frame.format();
    let (range, declared_by) = match (pixel, frame.color_range()) {
        (P::YUVJ420P | P::YUVJ422P | P::YUVJ444P | P::YUVJ411P | P::YUVJ440P, _) => {
            (ColorRange::Full, format!("pixel format {}", name(pixel)))
        }
        (_, Range::JPEG) => (ColorRange::Full, "color_range pc".to_string()),
        (_, Range::MPEG) => (ColorRange::Limited, "color_range tv".to_string()),
        _ => return None,
    };
    Some(DeclaredRange { range, declared_by })
}

/// The [`VideoFormat`] of `width x height` frames of `pixel`; the message
/// saying why not when vkssim does not read it.
pub(super) fn video_format(
    pixel: Pixel,
    width: u32,
    height: u32,
) -> std::result::Result<VideoFormat, String> {
    let Some((chroma, bit_depth)) = layout(pixel) else {
        return Err(format!(
            "the decoder gives {} frames; vkssim reads planar YUV 4:2:0, 4:2:2, 4:4:4 \
             and 4:1:1 (and gray) at 8, 10, 12 and 16 bits, little-endian",
            name(pixel)
        ));
    };
    let format = VideoFormat {
        width,
        height,
        bit_depth,
        chroma,
    };
    format.validate().map_err(|e| e.to_string())?;
    Ok(format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planar_formats_map_and_others_are_refused() {
        assert_eq!(layout(Pixel::YUV420P10LE), Some((Chroma::C420, 10)));
        assert_eq!(layout(Pixel::GRAY8), Some((Chroma::Mono, 8)));
        for refused in [Pixel::NV12, Pixel::P010LE, Pixel::RGB24, Pixel::YUV420P10BE] {
            assert_eq!(layout(refused), None, "{refused:?}");
            let e = video_format(refused, 16, 16).unwrap_err();
            assert!(e.contains(&name(refused)), "{e}");
        }
        assert_eq!(name(Pixel::YUV420P10LE), "yuv420p10le");
    }
}
