//! The fused SSIM stage [`super::score_frame`] runs: the Gaussian filters, the
//! per-pixel terms and the raster-order sums in one pass over the rows, keeping
//! only the last 11 horizontally filtered rows of each of the five planes.
//!
//! It calls the same row kernels as [`super::gaussian`], [`super::lcs_map`] and
//! [`super::means`], on the same values in the same order, so its sums equal
//! `sum_terms(&gaussian_filter_all(r, c)?)` exactly; it only avoids holding
//! fifteen full-size planes (about 500 MB for a 4K frame at scale 1).

use super::gaussian::{fir11, GAUSSIAN_TAPS};
use super::lcs_map::terms_run;
use super::means::TermSums;
use super::scale::WINDOW;
use super::{PixelTerms, Plane};
use crate::{Error, Result};

/// Rows of horizontal results kept: one Gaussian window.
const RING: usize = GAUSSIAN_TAPS.len();

/// Pixels whose terms are computed before they are summed.
const TERMS_RUN: usize = 64;

/// The raster-order sums of every valid pixel's terms, for two (decimated)
/// planes of the same size, at least 11 x 11.
pub fn ssim_sums(r: &Plane, c: &Plane) -> Result<TermSums> {
    SsimScratch::default().sums(r, c)
}

/// The rows [`ssim_sums`] works in, kept between calls (by a CPU worker, from
/// frame to frame and scale to scale) so that they are allocated once.
#[derive(Debug, Default)]
pub(crate) struct SsimScratch {
    /// Horizontal results of the five planes (r, c, rr, cc, rc), `RING` rows
    /// each: plane p's row for input row y is at `(p * RING + y % RING) * dw`.
    ring: Vec<f32>,
    /// One input row of each plane.
    rows: Vec<f32>,
    /// The products rr, cc, rc of one input row.
    prod: Vec<f32>,
    /// The five vertically filtered rows of one output row.
    filtered: Vec<f32>,
    /// The four per-pixel terms of one output row.
    terms: Vec<f64>,
}

impl SsimScratch {
    /// [`ssim_sums`] in these buffers (the values do not depend on what they
    /// held).
    pub(crate) fn sums(&mut self, r: &Plane, c: &Plane) -> Result<TermSums> {
        r.check()?;
        c.check()?;
        if (r.width, r.height) != (c.width, c.height) {
            return Err(Error::GeometryMismatch(format!(
                "reference plane is {}x{}, distorted plane is {}x{}",
                r.width, r.height, c.width, c.height
            )));
        }
        if r.width < WINDOW || r.height < WINDOW {
            return Err(Error::PlaneTooSmall {
                width: r.width,
                height: r.height,
                scale: 1,
                scaled_width: r.width,
                scaled_height: r.height,
            });
        }
        Ok(
            self.sums_of_rows(r.width as usize, r.height as usize, |y, r_row, c_row| {
                r_row.copy_from_slice(r.row(y));
                c_row.copy_from_slice(c.row(y));
            }),
        )
    }

    /// The sums of [`ssim_sums`] for a `w` x `h` pair (at least 11 x 11)
    /// whose rows `fill(y, r_row, c_row)` writes, in order, each once: the
    /// rows of two planes, or samples converted as they are read, so that a
    /// full-resolution pair need not be held as fp32 planes.
    pub(crate) fn sums_of_rows(
        &mut self,
        w: usize,
        h: usize,
        mut fill: impl FnMut(usize, &mut [f32], &mut [f32]),
    ) -> TermSums {
        let dw = w - (WINDOW as usize - 1);
        self.ring.resize(5 * RING * dw, 0.0);
        self.rows.resize(2 * w, 0.0);
        self.prod.resize(3 * w, 0.0);
        self.filtered.resize(5 * dw, 0.0);
        self.terms.resize(4 * dw, 0.0);
        let mut sums = TermSums::default();

        for y in 0..h {
            let (r_row, c_row) = self.rows.split_at_mut(w);
            fill(y, r_row, c_row);
            let (r_row, c_row) = (&*r_row, &*c_row);
            let (rr, rest) = self.prod.split_at_mut(w);
            let (cc, rc) = rest.split_at_mut(w);
            for (((&a, &b), (rr, cc)), rc) in r_row
                .iter()
                .zip(c_row)
                .zip(rr.iter_mut().zip(cc.iter_mut()))
                .zip(rc.iter_mut())
            {
                *rr = a * a;
                *cc = b * b;
                *rc = a * b;
            }
            let slot = y % RING;
            let inputs: [&[f32]; 5] = [r_row, c_row, rr, cc, rc];
            for (plane, input) in self.ring.chunks_exact_mut(RING * dw).zip(inputs) {
                let taps: [&[f32]; 11] = std::array::from_fn(|u| &input[u..u + dw]);
                fir11(&taps, &mut plane[slot * dw..(slot + 1) * dw]);
            }
            if y + 1 < RING {
                continue;
            }
            // Output row y - 10 takes the horizontal rows y - 10 ..= y, in order.
            let top = y + 1 - RING;
            for (out, plane) in self
                .filtered
                .chunks_exact_mut(dw)
                .zip(self.ring.chunks_exact(RING * dw))
            {
                let taps: [&[f32]; 11] = std::array::from_fn(|v| {
                    let slot = (top + v) % RING;
                    &plane[slot * dw..(slot + 1) * dw]
                });
                fir11(&taps, out);
            }
            let mut t = self.terms.chunks_exact_mut(dw);
            let mut f = self.filtered.chunks_exact(dw);
            let [t_ssim, t_l, t_c, t_s] =
                std::array::from_fn(|_| t.next().expect("four term rows"));
            let inputs: [&[f32]; 5] =
                std::array::from_fn(|_| f.next().expect("five filtered rows"));
            // A run's terms (divisions: throughput-bound), then its sums in
            // order (one dependent add per pixel: latency-bound); short runs
            // let the processor overlap the two.
            for start in (0..dw).step_by(TERMS_RUN) {
                let end = (start + TERMS_RUN).min(dw);
                let run = start..end;
                terms_run(
                    inputs.map(|p| &p[run.clone()]),
                    &mut t_ssim[run.clone()],
                    &mut t_l[run.clone()],
                    &mut t_c[run.clone()],
                    &mut t_s[run.clone()],
                );
                for x in run {
                    sums.add(PixelTerms {
                        ssim: t_ssim[x],
                        l: t_l[x],
                        c: t_c[x],
                        s: t_s[x],
                    });
                }
            }
        }
        sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::decimate::tests::pattern;
    use crate::cpu::gaussian_filter_all;
    use crate::cpu::means::sum_terms;

    fn pair(w: u32, h: u32, seed: u64) -> (Plane, Plane) {
        let r = pattern(w, h, seed);
        let mut c = pattern(w, h, seed + 1);
        for (v, x) in c.data.iter_mut().zip(&r.data) {
            *v = (*v + 3.0 * *x) * 0.25;
        }
        (r, c)
    }

    #[test]
    fn streaming_sums_equal_the_staged_sums() {
        for (w, h, seed) in [(11, 11, 1), (12, 30, 2), (57, 23, 3), (300, 41, 4)] {
            let (r, c) = pair(w, h, seed);
            let staged = sum_terms(&gaussian_filter_all(&r, &c).unwrap());
            assert_eq!(ssim_sums(&r, &c).unwrap(), staged, "{w}x{h}");
        }
    }

    #[test]
    fn bad_planes_are_refused() {
        let (r, c) = pair(10, 30, 1);
        assert!(matches!(
            ssim_sums(&r, &c),
            Err(Error::PlaneTooSmall { .. })
        ));
        let (r, _) = pair(20, 30, 1);
        let (_, c) = pair(21, 30, 1);
        assert!(matches!(ssim_sums(&r, &c), Err(Error::GeometryMismatch(_))));
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(48))]

        #[test]
        fn streaming_equals_staged_on_random_planes(
            w in 11u32..70,
            h in 11u32..40,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let (r, c) = pair(w, h, seed);
            let staged = sum_terms(&gaussian_filter_all(&r, &c).unwrap());
            proptest::prop_assert_eq!(ssim_sums(&r, &c).unwrap(), staged);
        }
    }
}
