//! Frame types shared by every backend: a borrowed luma plane ([`LumaView`]), an
//! owned one ([`LumaFrame`]), a frame's result ([`FrameScore`]), and the one
//! check that two planes have the same geometry ([`PlaneGeometry`]).
//!
//! Samples are kept as the raw bytes of the file: one byte per sample at 8 bits,
//! two little-endian bytes above. Backends convert on their side (the GPU uploads
//! these bytes as they are).

use crate::metric::outputs::MetricOutputs;
use crate::metric::SideValues;
use crate::{Error, Result};

/// Bytes one sample takes at `bit_depth` (1 at 8 bits, 2 for 9 to 16 bits).
pub fn bytes_per_sample(bit_depth: u32) -> usize {
    if bit_depth <= 8 {
        1
    } else {
        2
    }
}

/// The width, height and bit depth of a luma plane: what two planes must share
/// to be compared, or a plane and the scorer it is given to.
///
/// ```
/// use vkssim::frame::PlaneGeometry;
/// let a = PlaneGeometry::new(1920, 1080, 10);
/// assert_eq!(a.to_string(), "1920x1080 10-bit");
/// let e = a.expect_same("the reference", PlaneGeometry::new(1920, 1088, 10), "the distorted")
///     .unwrap_err();
/// assert!(e.to_string().contains("the reference is 1920x1080 10-bit but the distorted is 1920x1088 10-bit"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlaneGeometry {
    /// Samples per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
}

impl PlaneGeometry {
    /// `width` x `height` at `bit_depth`.
    pub fn new(width: u32, height: u32, bit_depth: u32) -> Self {
        Self {
            width,
            height,
            bit_depth,
        }
    }

    /// [`Error::GeometryMismatch`] unless `other` has this geometry, naming
    /// both (`what` is this plane, `other_what` the other: "the reference",
    /// "this scorer's planes").
    pub fn expect_same(self, what: &str, other: PlaneGeometry, other_what: &str) -> Result<()> {
        if self == other {
            return Ok(());
        }
        Err(Error::GeometryMismatch(format!(
            "{what} is {self} but {other_what} is {other}"
        )))
    }
}

impl std::fmt::Display for PlaneGeometry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{} {}-bit", self.width, self.height, self.bit_depth)
    }
}

/// A borrowed luma plane: `height` rows of `width` samples, rows `row_stride`
/// bytes apart.
#[derive(Debug, Clone, Copy)]
pub struct LumaView<'a> {
    /// Samples per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// Bytes from the start of one row to the start of the next.
    pub row_stride: usize,
    /// The samples, little-endian above 8 bits.
    pub bytes: &'a [u8],
}

impl<'a> LumaView<'a> {
    /// A view of a plane, checking that `bytes` holds every row.
    pub fn new(
        width: u32,
        height: u32,
        bit_depth: u32,
        row_stride: usize,
        bytes: &'a [u8],
    ) -> Result<Self> {
        if !matches!(bit_depth, 8 | 10 | 12 | 16) {
            return Err(Error::Unsupported(format!(
                "bit depth {bit_depth} (vkssim reads 8, 10, 12 and 16-bit samples)"
            )));
        }
        let row_bytes = width as usize * bytes_per_sample(bit_depth);
        if row_stride < row_bytes {
            return Err(Error::InvalidOption(format!(
                "row stride {row_stride} is shorter than a row of {width} samples ({row_bytes} bytes)"
            )));
        }
        let needed = if height == 0 {
            0
        } else {
            row_stride * (height as usize - 1) + row_bytes
        };
        if bytes.len() < needed {
            return Err(Error::BufferSize {
                what: format!(
                    "{} {width}x{height} {bit_depth}-bit luma plane",
                    crate::words::article(width.into())
                ),
                needed,
                actual: bytes.len(),
            });
        }
        Ok(Self {
            width,
            height,
            bit_depth,
            row_stride,
            bytes,
        })
    }

    /// The raw sample at (`x`, `y`) as an integer.
    #[inline]
    pub fn sample(&self, x: usize, y: usize) -> u32 {
        let row = y * self.row_stride;
        if self.bit_depth <= 8 {
            self.bytes[row + x] as u32
        } else {
            let i = row + 2 * x;
            u16::from_le_bytes([self.bytes[i], self.bytes[i + 1]]) as u32
        }
    }
}

/// An owned, tightly packed luma plane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LumaFrame {
    /// Samples per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// `width * height` samples, little-endian above 8 bits.
    pub bytes: Vec<u8>,
}

impl LumaFrame {
    /// A zeroed plane of the given geometry.
    pub fn zeroed(width: u32, height: u32, bit_depth: u32) -> Self {
        let len = width as usize * height as usize * bytes_per_sample(bit_depth);
        Self {
            width,
            height,
            bit_depth,
            bytes: vec![0; len],
        }
    }

    /// Bytes in one row.
    pub fn row_bytes(&self) -> usize {
        self.width as usize * bytes_per_sample(self.bit_depth)
    }

    /// A borrowed view of this plane.
    pub fn view(&self) -> LumaView<'_> {
        LumaView {
            width: self.width,
            height: self.height,
            bit_depth: self.bit_depth,
            row_stride: self.row_bytes(),
            bytes: &self.bytes,
        }
    }
}

/// One frame's result: every value the scorer's metrics report, by libvmaf
/// name and in the `vmaf` command line's order ([`FrameScore::outputs`],
/// [`FrameScore::value`], [`FrameScore::iter`]), and what the metrics keep
/// of the frame for their end-of-run values ([`SideValues`]). Each metric's
/// module adds its own accessors (`float_ssim`'s [`FrameScore::ssim`],
/// [`FrameScore::db`], [`FrameScore::lcs`], ...).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameScore {
    /// Every value of every metric the scorer computes, by libvmaf name, in
    /// the order the `vmaf` command line writes them (the metrics in the order
    /// they were given, each metric's values in libvmaf's order).
    pub outputs: MetricOutputs,
    /// What the metrics keep of the frame beside its outputs, for a run's
    /// collector ([`crate::metric::Summary`]).
    pub(crate) side: SideValues,
}

impl FrameScore {
    /// A score of no metric yet (no value), for scorers to fill.
    pub fn empty() -> Self {
        Self {
            outputs: MetricOutputs::new(),
            side: SideValues::default(),
        }
    }

    /// What the metrics keep of the frame beside its outputs (see
    /// [`SideValues`]).
    pub fn side(&self) -> &SideValues {
        &self.side
    }

    /// The value reported under libvmaf's name `name` (`psnr_y`,
    /// `float_ms_ssim_s_scale2`, ...), if the scorer reports it. A value
    /// that needs the next frame (motion's `integer_motion2`) is NaN here;
    /// a run's collector ([`crate::metric::Summary`]) fills it.
    ///
    /// ```
    /// let s = vkssim::FrameScore::empty();
    /// assert_eq!(s.value("psnr_y"), None);
    /// ```
    pub fn value(&self, name: &str) -> Option<f64> {
        self.outputs.get(name)
    }

    /// Appends `other`'s outputs and side values after these (one metric's
    /// values of the frame after the previous metrics').
    pub(crate) fn extend(&mut self, other: &FrameScore) {
        self.outputs.extend(&other.outputs);
        self.side.extend(&other.side);
    }

    /// `(name, value)` of every output, in the `vmaf` command line's order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        self.outputs.iter()
    }
}
