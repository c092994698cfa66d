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

/// The raster-order sums of every valid pixel's terms, for two (decimated)
/// planes of the same size, at least 11 x 11.
pub fn ssim_sums(r: &Plane, c: &Plane) -> Result<TermSums> {
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
    let w = r.width as usize;
    let dw = w - (WINDOW as usize - 1);

    // ring[p][slot]: horizontal result of plane p (r, c, rr, cc, rc) for the
    // input row whose index is slot modulo RING.
    let mut ring = vec![vec![vec![0.0f32; dw]; RING]; 5];
    let mut prod = [vec![0.0f32; w], vec![0.0f32; w], vec![0.0f32; w]];
    let mut filtered = [
        vec![0.0f32; dw],
        vec![0.0f32; dw],
        vec![0.0f32; dw],
        vec![0.0f32; dw],
        vec![0.0f32; dw],
    ];
    let mut terms = [
        vec![0.0f64; dw],
        vec![0.0f64; dw],
        vec![0.0f64; dw],
        vec![0.0f64; dw],
    ];
    let mut sums = TermSums::default();

    for y in 0..r.height as usize {
        let (rr_row, cc_row, rc_row) = (r.row(y), c.row(y), &mut prod);
        let [rr, cc, rc] = rc_row;
        for x in 0..w {
            let (a, b) = (rr_row[x], cc_row[x]);
            rr[x] = a * a;
            cc[x] = b * b;
            rc[x] = a * b;
        }
        let slot = y % RING;
        let inputs: [&[f32]; 5] = [rr_row, cc_row, rr, cc, rc];
        for (plane, input) in ring.iter_mut().zip(inputs) {
            let taps: [&[f32]; 11] = std::array::from_fn(|u| &input[u..u + dw]);
            fir11(&taps, &mut plane[slot]);
        }
        if y + 1 < RING {
            continue;
        }
        // Output row y - 10 takes the horizontal rows y - 10 ..= y, in order.
        let top = y + 1 - RING;
        for (out, plane) in filtered.iter_mut().zip(&ring) {
            let taps: [&[f32]; 11] = std::array::from_fn(|v| plane[(top + v) % RING].as_slice());
            fir11(&taps, out);
        }
        let [t_ssim, t_l, t_c, t_s] = &mut terms;
        let [mu_r, mu_c, s_rr, s_cc, s_rc] = &filtered;
        terms_run([mu_r, mu_c, s_rr, s_cc, s_rc], t_ssim, t_l, t_c, t_s);
        for x in 0..dw {
            sums.add(PixelTerms {
                ssim: t_ssim[x],
                l: t_l[x],
                c: t_c[x],
                s: t_s[x],
            });
        }
    }
    Ok(sums)
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
