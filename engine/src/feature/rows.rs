//! Pictures as the vectorised filters of the VMAF extractors read them:
//! rows as plain slices ([`Rows`]) of 8 or 16-bit samples ([`Sample`]), and
//! the width of the lane blocks the kernels work on ([`LANES`]).

use crate::LumaView;

/// Columns a kernel works on at once (one 256-bit register of u32).
pub(crate) const LANES: usize = 8;

/// A sample type the passes read: 8-bit luma straight from the picture, or
/// 16-bit samples (deeper luma, decimated scales).
pub(crate) trait Sample: Copy {
    /// The sample as an unsigned 32-bit value.
    fn wide(self) -> u32;
}

impl Sample for u8 {
    #[inline(always)]
    fn wide(self) -> u32 {
        u32::from(self)
    }
}

impl Sample for u16 {
    #[inline(always)]
    fn wide(self) -> u32 {
        u32::from(self)
    }
}

/// `height` rows of `width` samples, `stride` samples apart, borrowed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rows<'a, S> {
    /// The samples; row `y` starts at `y * stride`.
    pub samples: &'a [S],
    /// Samples from one row's start to the next.
    pub stride: usize,
    /// Samples per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

impl<'a, S> Rows<'a, S> {
    /// Row `y`.
    #[inline(always)]
    pub fn row(&self, y: usize) -> &'a [S] {
        &self.samples[y * self.stride..][..self.width]
    }
}

/// The rows of an 8-bit luma view, read in place.
pub(crate) fn rows_8<'a>(view: &LumaView<'a>) -> Rows<'a, u8> {
    debug_assert_eq!(view.bit_depth, 8);
    Rows {
        samples: view.bytes,
        stride: view.row_stride,
        width: view.width as usize,
        height: view.height as usize,
    }
}

/// The samples of a luma view deeper than 8 bits (two little-endian bytes
/// each), packed into `out` row after row: the rows of [`Rows`] over `out`
/// with a stride of the width.
pub(crate) fn widen_16(view: &LumaView<'_>, out: &mut Vec<u16>) {
    let (width, height) = (view.width as usize, view.height as usize);
    out.clear();
    out.reserve(width * height);
    for y in 0..height {
        let row = &view.bytes[y * view.row_stride..][..2 * width];
        out.extend(
            row.chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]])),
        );
    }
}
