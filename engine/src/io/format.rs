//! The layout of a planar video frame: geometry, bit depth and chroma subsampling
//! ([`VideoFormat`], [`Chroma`]), and the byte counts the readers derive from it.

use std::fmt;
use std::str::FromStr;

use crate::frame::bytes_per_sample;
use crate::words::article;
use crate::{Error, Result};

/// Largest width or height the readers accept. Larger values are almost always a
/// corrupt header, and would ask for gigabyte buffers.
pub const MAX_DIMENSION: u32 = 1 << 16;

/// How the chroma planes that follow luma are subsampled. Only their size matters
/// here: the readers skip them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chroma {
    /// 4:2:0: two planes of `ceil(w/2) x ceil(h/2)`.
    C420,
    /// 4:2:2: two planes of `ceil(w/2) x h`.
    C422,
    /// 4:4:4: two planes of `w x h`.
    C444,
    /// 4:1:1 (Y4M `C411` only): two planes of `ceil(w/4) x h`.
    C411,
    /// 4:4:4 plus an alpha plane (Y4M `C444alpha` only): three planes of `w x h`.
    C444Alpha,
    /// Luma only (Y4M `Cmono`): no other plane.
    Mono,
}

impl Chroma {
    /// Every subsampling, in declaration order.
    pub const ALL: [Chroma; 6] = [
        Chroma::C420,
        Chroma::C422,
        Chroma::C444,
        Chroma::C411,
        Chroma::C444Alpha,
        Chroma::Mono,
    ];

    /// Size in samples of one of the planes that follow luma, for a `width x height`
    /// luma plane; `(0, 0)` for [`Chroma::Mono`].
    pub fn plane_size(self, width: u32, height: u32) -> (u32, u32) {
        let half_w = width.div_ceil(2);
        match self {
            Chroma::C420 => (half_w, height.div_ceil(2)),
            Chroma::C422 => (half_w, height),
            Chroma::C444 | Chroma::C444Alpha => (width, height),
            Chroma::C411 => (width.div_ceil(4), height),
            Chroma::Mono => (0, 0),
        }
    }

    /// How many planes follow luma (2, 3 with alpha, 0 for mono).
    pub fn extra_planes(self) -> u32 {
        match self {
            Chroma::C444Alpha => 3,
            Chroma::Mono => 0,
            _ => 2,
        }
    }
}

impl fmt::Display for Chroma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Chroma::C420 => "420",
            Chroma::C422 => "422",
            Chroma::C444 => "444",
            Chroma::C411 => "411",
            Chroma::C444Alpha => "444alpha",
            Chroma::Mono => "mono",
        })
    }
}

/// Every pixel format name [`Chroma`]'s parser takes, in the order the
/// messages list them.
pub const PIXEL_FORMATS: [&str; 8] = [
    "420", "422", "444", "411", "444alpha", "mono", "400", "gray",
];

impl FromStr for Chroma {
    type Err = Error;

    /// Parses a pixel format as the `vmaf` CLI's `--pixel_format` spells it
    /// (`420`, `422`, `444`), plus `411`, `444alpha` and `mono` (also `400`, `gray`):
    /// [`PIXEL_FORMATS`].
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "420" => Chroma::C420,
            "422" => Chroma::C422,
            "444" => Chroma::C444,
            "411" => Chroma::C411,
            "444alpha" => Chroma::C444Alpha,
            "mono" | "400" | "gray" => Chroma::Mono,
            _ => {
                return Err(Error::Unsupported(format!(
                    "pixel format {s:?} (vkssim reads {})",
                    PIXEL_FORMATS.join(", ")
                )));
            }
        })
    }
}

/// The layout of every frame of a planar video: luma first, then the chroma planes
/// (skipped), each plane `width`-sample rows packed with no padding, samples of one
/// byte at 8 bits and two little-endian bytes above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VideoFormat {
    /// Luma samples per row.
    pub width: u32,
    /// Luma rows.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// Chroma subsampling.
    pub chroma: Chroma,
}

impl VideoFormat {
    /// A format, checked with [`VideoFormat::validate`].
    pub fn new(width: u32, height: u32, bit_depth: u32, chroma: Chroma) -> Result<Self> {
        let format = Self {
            width,
            height,
            bit_depth,
            chroma,
        };
        format.validate()?;
        Ok(format)
    }

    /// Checks that the width and height are in 1..=[`MAX_DIMENSION`] and the bit
    /// depth is 8, 10, 12 or 16.
    pub fn validate(&self) -> Result<()> {
        if !matches!(self.bit_depth, 8 | 10 | 12 | 16) {
            return Err(Error::Unsupported(format!(
                "bit depth {} (vkssim reads 8, 10, 12 and 16-bit samples)",
                self.bit_depth
            )));
        }
        for (name, v) in [("width", self.width), ("height", self.height)] {
            if v == 0 {
                return Err(Error::InvalidOption(format!("{name} is 0")));
            }
            if v > MAX_DIMENSION {
                return Err(Error::Unsupported(format!(
                    "{name} {v} (at most {MAX_DIMENSION})"
                )));
            }
        }
        Ok(())
    }

    /// Bytes per sample: 1 at 8 bits, 2 above.
    pub fn bytes_per_sample(&self) -> usize {
        bytes_per_sample(self.bit_depth)
    }

    /// Bytes of the luma plane (what [`crate::io::LumaReader::read`] with
    /// [`crate::io::Planes::Luma`] fills).
    pub fn luma_bytes(&self) -> usize {
        (self.width as usize)
            .saturating_mul(self.height as usize)
            .saturating_mul(self.bytes_per_sample())
    }

    /// Refuses a `dst` shorter than a luma plane ([`Error::BufferSize`]);
    /// gives [`VideoFormat::luma_bytes`].
    pub(crate) fn check_luma_dst(&self, dst: &[u8]) -> Result<usize> {
        let luma = self.luma_bytes();
        if dst.len() < luma {
            return Err(Error::BufferSize {
                what: format!("{} {self} luma plane", article(self.width.into())),
                needed: luma,
                actual: dst.len(),
            });
        }
        Ok(luma)
    }

    /// The bytes of a frame's luma and chroma planes
    /// ([`VideoFormat::planes_bytes`]) when `dst` holds them, else
    /// [`Error::BufferSize`].
    pub(crate) fn check_planes_dst(&self, dst: &[u8]) -> Result<usize> {
        let len = self.planes_bytes();
        if dst.len() < len {
            return Err(Error::BufferSize {
                what: format!(
                    "{} {self} frame's luma and chroma planes",
                    article(self.width.into())
                ),
                needed: len,
                actual: dst.len(),
            });
        }
        Ok(len)
    }

    /// Bytes of the planes after luma in one frame (chroma, and alpha if any).
    pub fn chroma_bytes(&self) -> u64 {
        let (cw, ch) = self.chroma.plane_size(self.width, self.height);
        (cw as u64)
            .saturating_mul(ch as u64)
            .saturating_mul(self.chroma.extra_planes() as u64)
            .saturating_mul(self.bytes_per_sample() as u64)
    }

    /// Bytes of one chroma plane (0 without chroma).
    pub fn chroma_plane_bytes(&self) -> usize {
        let (cw, ch) = self.chroma.plane_size(self.width, self.height);
        (cw as usize)
            .saturating_mul(ch as usize)
            .saturating_mul(self.bytes_per_sample())
    }

    /// Bytes of a frame's luma, Cb and Cr planes, packed (what
    /// [`crate::io::LumaReader::read`] with [`crate::io::Planes::All`]
    /// fills): the frame without an alpha plane; the luma plane alone
    /// without chroma.
    pub fn planes_bytes(&self) -> usize {
        let planes = if self.chroma == Chroma::Mono { 0 } else { 2 };
        self.luma_bytes()
            .saturating_add(planes * self.chroma_plane_bytes())
    }

    /// Bytes of one whole frame: luma and every following plane (without a Y4M
    /// `FRAME` line).
    pub fn frame_bytes(&self) -> u64 {
        (self.luma_bytes() as u64).saturating_add(self.chroma_bytes())
    }
}

impl fmt::Display for VideoFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}x{} {} {}-bit",
            self.width, self.height, self.chroma, self.bit_depth
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_sizes_round_up() {
        assert_eq!(Chroma::C420.plane_size(5, 3), (3, 2));
        assert_eq!(Chroma::C422.plane_size(5, 3), (3, 3));
        assert_eq!(Chroma::C444.plane_size(5, 3), (5, 3));
        assert_eq!(Chroma::C411.plane_size(5, 3), (2, 3));
        assert_eq!(Chroma::Mono.plane_size(5, 3), (0, 0));
    }

    #[test]
    fn byte_counts() {
        let f = VideoFormat::new(5, 3, 10, Chroma::C420).unwrap();
        assert_eq!(f.luma_bytes(), 30);
        assert_eq!(f.chroma_bytes(), 2 * 3 * 2 * 2);
        assert_eq!(f.frame_bytes(), 54);
        let f = VideoFormat::new(4, 2, 8, Chroma::C444Alpha).unwrap();
        assert_eq!(f.frame_bytes(), 32);
        let f = VideoFormat::new(7, 1, 16, Chroma::Mono).unwrap();
        assert_eq!(f.frame_bytes(), 14);
    }

    #[test]
    fn validate_rejects_bad_values() {
        assert!(matches!(
            VideoFormat::new(4, 4, 9, Chroma::C420),
            Err(Error::Unsupported(_))
        ));
        assert!(matches!(
            VideoFormat::new(0, 4, 8, Chroma::C420),
            Err(Error::InvalidOption(_))
        ));
        assert!(matches!(
            VideoFormat::new(4, MAX_DIMENSION + 1, 8, Chroma::C420),
            Err(Error::Unsupported(_))
        ));
    }

    #[test]
    fn pixel_format_names_round_trip() {
        for c in Chroma::ALL {
            assert_eq!(c.to_string().parse::<Chroma>().unwrap(), c);
        }
        assert!("420p".parse::<Chroma>().is_err());
    }
}
