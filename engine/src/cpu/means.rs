//! Stage 6: the frame means. Every per-pixel term is added to an fp64 sum that
//! starts at 0.0, in raster order (row by row, left to right); each mean is
//! `f32(sum / f64(width * height))` over the valid region, as libvmaf returns it.

#[cfg(test)]
use super::gaussian::FilteredPlanes;
#[cfg(test)]
use super::lcs_map::terms_run;
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
///
/// Panics if a term vector does not hold `width * height` values (never for
/// terms from [`super::lcs_terms`]).
pub fn frame_means(terms: &LcsTerms) -> FrameMeans {
    let n = terms.width as usize * terms.height as usize;
    assert!(
        [&terms.ssim, &terms.l, &terms.c, &terms.s]
            .iter()
            .all(|v| v.len() == n),
        "LcsTerms of {}x{} with term vectors of other lengths",
        terms.width,
        terms.height
    );
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

/// Pixels whose terms are computed together before being summed in order.
#[cfg(test)]
const RUN: usize = 256;

/// The raster-order sums of every pixel's terms, straight from the filtered
/// planes (the per-pixel terms are computed a run at a time, then added one by
/// one in raster order, exactly as [`frame_means`] of
/// [`super::lcs_map::lcs_terms`] would).
///
/// Panics if the five planes differ in size (never for planes from
/// [`super::gaussian_filter_all`]).
#[cfg(test)]
pub fn sum_terms(f: &FilteredPlanes) -> TermSums {
    f.assert_consistent();
    let n = f.mu_r.data.len();
    let mut sums = TermSums::default();
    let mut buf = [[0.0f64; RUN]; 4];
    let mut start = 0;
    while start < n {
        let end = (start + RUN).min(n);
        let len = end - start;
        let [ssim, l, c, s] = &mut buf;
        terms_run(
            [
                &f.mu_r.data[start..end],
                &f.mu_c.data[start..end],
                &f.s_rr.data[start..end],
                &f.s_cc.data[start..end],
                &f.s_rc.data[start..end],
            ],
            &mut ssim[..len],
            &mut l[..len],
            &mut c[..len],
            &mut s[..len],
        );
        for i in 0..len {
            sums.add(PixelTerms {
                ssim: ssim[i],
                l: l[i],
                c: c[i],
                s: s[i],
            });
        }
        start = end;
    }
    sums
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

    #[test]
    fn run_sums_equal_the_per_pixel_sums() {
        use crate::cpu::decimate::tests::pattern;
        use crate::cpu::{gaussian_filter_all, lcs_terms};
        // 700 valid pixels per row: several runs, a partial last one.
        let r = pattern(710, 23, 5);
        let mut c = pattern(710, 23, 6);
        for (v, w) in c.data.iter_mut().zip(&r.data) {
            *v = (*v + *w) * 0.5;
        }
        let f = gaussian_filter_all(&r, &c).unwrap();
        let terms = lcs_terms(&f);
        let mut by_pixel = TermSums::default();
        for i in 0..terms.ssim.len() {
            by_pixel.add(PixelTerms {
                ssim: terms.ssim[i],
                l: terms.l[i],
                c: terms.c[i],
                s: terms.s[i],
            });
        }
        assert_eq!(sum_terms(&f), by_pixel);
        assert_eq!(
            sum_terms(&f).means(terms.width, terms.height),
            frame_means(&terms)
        );
    }
}
