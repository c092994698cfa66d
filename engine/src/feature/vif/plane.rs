//! The pictures VIF works on: a plane of 16-bit samples (the luma as read at
//! scale 0, then each decimated scale) and libvmaf's reflect-101 border.

use crate::feature::rows::Rows;
use crate::frame::bytes_per_sample;
use crate::LumaView;

/// `height` rows of `width` samples, packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plane {
    /// Samples per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The samples, row after row.
    pub samples: Vec<u16>,
}

impl Plane {
    /// The samples of a luma view (one byte each at 8 bits, two
    /// little-endian bytes above), as they are.
    pub fn from_view(view: &LumaView<'_>) -> Self {
        let (width, height) = (view.width as usize, view.height as usize);
        let bytes = bytes_per_sample(view.bit_depth);
        let mut samples = Vec::with_capacity(width * height);
        for y in 0..height {
            let row = &view.bytes[y * view.row_stride..][..width * bytes];
            if bytes == 1 {
                samples.extend(row.iter().map(|&b| u16::from(b)));
            } else {
                samples.extend(
                    row.chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]])),
                );
            }
        }
        Self {
            width,
            height,
            samples,
        }
    }

    /// An empty plane, for a decimation to fill.
    pub fn empty() -> Self {
        Self {
            width: 0,
            height: 0,
            samples: Vec::new(),
        }
    }

    /// Row `y`.
    #[cfg(test)]
    pub fn row(&self, y: usize) -> &[u16] {
        &self.samples[y * self.width..][..self.width]
    }

    /// The plane's rows, as the filters read them.
    pub fn rows(&self) -> Rows<'_, u16> {
        Rows {
            samples: &self.samples,
            stride: self.width,
            width: self.width,
            height: self.height,
        }
    }
}

/// Index `i` (which may lie up to `n - 1` outside `0..n`) mirrored into
/// `0..n` about the edge samples, which are not repeated (reflect-101:
/// -1 reads 1, n reads n - 2).
pub(crate) fn reflect_101(i: isize, n: usize) -> usize {
    let n = n as isize;
    let j = if i < 0 {
        -i
    } else if i >= n {
        2 * (n - 1) - i
    } else {
        i
    };
    debug_assert!(
        (0..n).contains(&j),
        "index {i} reaches past a border of {n}"
    );
    j as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflect_101_skips_the_edge_sample() {
        let got: Vec<usize> = (-3..8).map(|i| reflect_101(i, 5)).collect();
        assert_eq!(got, [3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1]);
    }

    #[test]
    fn reads_little_endian_rows_with_a_stride() {
        let bytes = [1, 0, 0, 1, 9, 9, 2, 0, 255, 255, 9, 9];
        let view = LumaView::new(2, 2, 10, 6, &bytes).unwrap();
        let p = Plane::from_view(&view);
        assert_eq!(p.samples, [1, 256, 2, 65535]);
        assert_eq!(p.row(1), [2, 65535]);
    }
}
