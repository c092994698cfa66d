//! Stage 6: the frame means. Every per-pixel term is added to an fp64 sum that
//! starts at 0.0, in raster order (row by row, left to right); each mean is
//! `f32(sum / f64(width * height))` over the valid region, as libvmaf returns it.

use super::lcs_map::{LcsTerms, PixelTerms};

/// Running fp64 sums of the per-pixel terms, added in raster order.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TermSums {
    /// Sum of `(l * c) * s`.
    pub ssim: f64,
    /// Sum of the luminance terms.
    pub l: f64,
    /// Sum of the contrast terms.
    pub c: f64,
    /// Sum of the structure terms.
    pub s: f64,
}

impl TermSums {
    /// Adds the next pixel (in raster order).
    #[inline]
    pub fn add(&mut self, t: PixelTerms) {
        self.ssim += t.ssim;
        self.l += t.l;
        self.c += t.c;
        self.s += t.s;
    }

    /// The fp32 means over a `width` x `height` valid region.
    pub fn means(&self, width: u32, height: u32) -> FrameMeans {
        let n = (width as u64 * height as u64) as f64;
        FrameMeans {
            ssim: (self.ssim / n) as f32,
            l: (self.l / n) as f32,
            c: (self.c / n) as f32,
            s: (self.s / n) as f32,
        }
    }
}

/// A frame's fp32 means, as libvmaf returns them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameMeans {
    /// The SSIM score.
    pub ssim: f32,
    /// Mean luminance term.
    pub l: f32,
    /// Mean contrast term.
    pub c: f32,
    /// Mean structure term.
    pub s: f32,
}

/// The frame means of a plane of per-pixel terms.
pub fn frame_means(terms: &LcsTerms) -> FrameMeans {
    let mut sums = TermSums::default();
    for i in 0..terms.ssim.len() {
        sums.add(PixelTerms {
            ssim: terms.ssim[i],
            l: terms.l[i],
            c: terms.c[i],
            s: terms.s[i],
        });
    }
    sums.means(terms.width, terms.height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_run_in_raster_order_then_round_to_fp32() {
        // 1e16 + 1 + 1 in order loses both ones; a reordered sum would keep 2.
        let terms = LcsTerms {
            width: 3,
            height: 1,
            ssim: vec![1e16, 1.0, 1.0],
            l: vec![1.0, 2.0, 3.0],
            c: vec![0.1, 0.2, 0.3],
            s: vec![1.0; 3],
        };
        let m = frame_means(&terms);
        assert_eq!(m.ssim, (1e16f64 / 3.0) as f32);
        assert_eq!(m.l, 2.0);
        assert_eq!(m.c, ((0.1f64 + 0.2 + 0.3) / 3.0) as f32);
        assert_eq!(m.s, 1.0);
    }
}
