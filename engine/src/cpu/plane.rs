//! [`Plane`]: the fp32 image every CPU stage reads and writes (samples,
//! decimated planes, Gaussian-filtered planes), tightly packed in raster order.

use crate::{Error, Result};

/// A `width` x `height` plane of fp32 values, row after row, no padding.
///
/// The fields are public for reading; every stage function that takes a plane
/// first checks (with [`Plane::check`]) that `data` holds exactly
/// `width * height` values.
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

    /// A plane of the given size from its values, checking the length.
    pub fn new(width: u32, height: u32, data: Vec<f32>) -> Result<Self> {
        let plane = Self {
            width,
            height,
            data,
        };
        plane.check()?;
        Ok(plane)
    }

    /// Checks that `data` holds exactly `width * height` values
    /// ([`Error::BufferSize`] otherwise).
    pub fn check(&self) -> Result<()> {
        let needed = self.width as usize * self.height as usize;
        if self.data.len() != needed {
            return Err(Error::BufferSize {
                what: format!(
                    "{} {}x{} fp32 plane (it holds {} values)",
                    crate::words::article(self.width as u64),
                    self.width,
                    self.height,
                    self.data.len()
                ),
                needed: needed * 4,
                actual: self.data.len() * 4,
            });
        }
        Ok(())
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

    #[test]
    fn inconsistent_planes_are_errors() {
        assert!(Plane::new(2, 2, vec![0.0; 4]).is_ok());
        let e = Plane::new(2, 2, vec![0.0; 3]).unwrap_err();
        assert!(matches!(
            e,
            Error::BufferSize {
                needed: 16,
                actual: 12,
                ..
            }
        ));
        let bad = Plane {
            width: 20,
            height: 20,
            data: vec![0.0; 399],
        };
        let good = Plane::zeroed(20, 20);
        assert!(crate::cpu::decimate::decimate(&bad, 1).is_err());
        assert!(crate::cpu::gaussian::filter(&bad).is_err());
        assert!(crate::cpu::gaussian_filter_all(&good, &bad).is_err());
        assert!(crate::cpu::gaussian_filter_all(&bad, &good).is_err());
        assert!(crate::cpu::ssim_means(&good, &bad).is_err());
    }
}
