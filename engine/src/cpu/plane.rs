//! [`Plane`]: the fp32 image every CPU stage reads and writes (samples,
//! decimated planes, Gaussian-filtered planes), tightly packed in raster order.

/// A `width` x `height` plane of fp32 values, row after row, no padding.
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    /// Values per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width * height` values in raster order.
    pub data: Vec<f32>,
}

impl Plane {
    /// A plane of zeros.
    pub fn zeroed(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            data: vec![0.0; width as usize * height as usize],
        }
    }

    /// Row `y` as a slice of `width` values.
    ///
    /// Panics if `y >= height` (an internal indexing error, never bad input).
    #[inline]
    pub fn row(&self, y: usize) -> &[f32] {
        let w = self.width as usize;
        &self.data[y * w..(y + 1) * w]
    }

    /// Row `y` as a mutable slice of `width` values.
    #[inline]
    pub fn row_mut(&mut self, y: usize) -> &mut [f32] {
        let w = self.width as usize;
        &mut self.data[y * w..(y + 1) * w]
    }

    /// The value at (`x`, `y`).
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width as usize + x]
    }

    /// The values as little-endian bytes, e.g. to compare with a GPU buffer
    /// byte for byte.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        self.data.iter().flat_map(|v| v.to_le_bytes()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_index_raster_order() {
        let p = Plane {
            width: 3,
            height: 2,
            data: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        };
        assert_eq!(p.row(1), &[3.0, 4.0, 5.0]);
        assert_eq!(p.get(2, 0), 2.0);
        assert_eq!(p.to_le_bytes().len(), 24);
        assert_eq!(&p.to_le_bytes()[4..8], &1.0f32.to_le_bytes());
    }
}
