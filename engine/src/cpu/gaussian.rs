//! Stage 4: the separable 11-tap Gaussian, "valid" positions only, as libvmaf's
//! 1-D `iqa_convolve` computes it, applied to r, c, r*r, c*c and r*c.
//!
//! Horizontal pass: for every row and valid column, an fp64 sum (from 0.0, taps
//! in order) of the fp32 products `f32(in[y][x + u] * g[u])`, stored as fp32.
//! Vertical pass on that result, the same with `tmp[y + v][x]`. A `w` x `h`
//! input gives `(w - 10)` x `(h - 10)`. The loops run across a whole row for each
//! tap, so the per-pixel sums are independent and vectorise; each pixel's terms
//! are still added in libvmaf's order.

use super::Plane;
use crate::metric::scale::WINDOW;
use crate::{Error, Result};

pub(crate) use crate::metric::ssim::GAUSSIAN_TAPS;

/// The five filtered planes SSIM needs, each `(w - 10)` x `(h - 10)`.
#[derive(Debug, Clone, PartialEq)]
pub struct FilteredPlanes {
    /// Gaussian mean of the reference.
    pub mu_r: Plane,
    /// Gaussian mean of the distorted.
    pub mu_c: Plane,
    /// Gaussian mean of the reference squared (`f32(r * r)` per pixel).
    pub s_rr: Plane,
    /// Gaussian mean of the distorted squared.
    pub s_cc: Plane,
    /// Gaussian mean of the product `f32(r * c)`.
    pub s_rc: Plane,
}

impl FilteredPlanes {
    /// Panics, naming the sizes, unless all five planes hold `width * height`
    /// values of one size (a caller bug: [`gaussian_filter_all`] always
    /// returns consistent planes).
    pub(crate) fn assert_consistent(&self) {
        let planes = [&self.mu_r, &self.mu_c, &self.s_rr, &self.s_cc, &self.s_rc];
        let first = (self.mu_r.width, self.mu_r.height);
        assert!(
            planes
                .iter()
                .all(|p| (p.width, p.height) == first && p.check().is_ok()),
            "FilteredPlanes of different or inconsistent sizes: {:?}",
            planes.map(|p| (p.width, p.height, p.data.len()))
        );
    }
}

/// The error for a plane with no valid 11 x 11 position.
fn too_small(plane: &Plane) -> Error {
    Error::PlaneTooSmall {
        width: plane.width,
        height: plane.height,
        scale: 1,
        scaled_width: plane.width,
        scaled_height: plane.height,
    }
}

fn check_window(plane: &Plane) -> Result<()> {
    plane.check()?;
    if plane.width < WINDOW || plane.height < WINDOW {
        return Err(too_small(plane));
    }
    Ok(())
}

/// The horizontal pass: `(w - 10)` x `h`. Needs `w >= 11`.
pub fn horizontal(src: &Plane) -> Result<Plane> {
    src.check()?;
    if src.width < WINDOW {
        return Err(too_small(src));
    }
    let dw = src.width - (WINDOW - 1);
    let n = dw as usize;
    let mut out = Plane::zeroed(dw, src.height);
    for y in 0..src.height as usize {
        let row = src.row(y);
        let taps: [&[f32]; 11] = std::array::from_fn(|u| &row[u..u + n]);
        fir11(&taps, out.row_mut(y));
    }
    Ok(out)
}

/// One row of either Gaussian pass: `out[x] = f32(sum over u of
/// f64(f32(srcs[u][x] * g[u])))`, the sum from 0.0 in tap order, for every
/// `x` ([`super::runs::weighted_runs`]). Each `srcs[u]` is at least
/// `out.len()` long.
#[inline]
pub(crate) fn fir11(srcs: &[&[f32]; 11], out: &mut [f32]) {
    super::runs::weighted_runs(srcs, &GAUSSIAN_TAPS, out)
}

/// The vertical pass: `w` x `(h - 10)`. Needs `h >= 11`.
pub fn vertical(tmp: &Plane) -> Result<Plane> {
    tmp.check()?;
    if tmp.height < WINDOW {
        return Err(too_small(tmp));
    }
    let dh = tmp.height - (WINDOW - 1);
    let mut out = Plane::zeroed(tmp.width, dh);
    for y in 0..dh as usize {
        let taps: [&[f32]; 11] = std::array::from_fn(|v| tmp.row(y + v));
        fir11(&taps, out.row_mut(y));
    }
    Ok(out)
}

/// Both passes: the valid `(w - 10)` x `(h - 10)` Gaussian of `src`, or
/// [`Error::PlaneTooSmall`] below 11 x 11.
pub fn filter(src: &Plane) -> Result<Plane> {
    check_window(src)?;
    vertical(&horizontal(src)?)
}

/// The per-pixel fp32 products `(f32(r*r), f32(c*c), f32(r*c))`.
pub fn products(r: &Plane, c: &Plane) -> Result<(Plane, Plane, Plane)> {
    same_size(r, c)?;
    let mut rr = Plane::zeroed(r.width, r.height);
    let mut cc = rr.clone();
    let mut rc = rr.clone();
    for i in 0..r.data.len() {
        let (a, b) = (r.data[i], c.data[i]);
        rr.data[i] = a * a;
        cc.data[i] = b * b;
        rc.data[i] = a * b;
    }
    Ok((rr, cc, rc))
}

fn same_size(r: &Plane, c: &Plane) -> Result<()> {
    r.check()?;
    c.check()?;
    if r.width != c.width || r.height != c.height {
        return Err(Error::GeometryMismatch(format!(
            "reference plane is {}x{}, distorted plane is {}x{}",
            r.width, r.height, c.width, c.height
        )));
    }
    Ok(())
}

/// The five Gaussian-filtered planes of a (decimated) reference `r` and
/// distorted `c` of the same size, at least 11 x 11.
pub fn gaussian_filter_all(r: &Plane, c: &Plane) -> Result<FilteredPlanes> {
    same_size(r, c)?;
    check_window(r)?;
    let (rr, cc, rc) = products(r, c)?;
    Ok(FilteredPlanes {
        mu_r: filter(r)?,
        mu_c: filter(c)?,
        s_rr: filter(&rr)?,
        s_cc: filter(&cc)?,
        s_rc: filter(&rc)?,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cpu::decimate::tests::pattern;

    /// The 2-D valid convolution written per pixel, horizontal then vertical, as
    /// the reference description states it.
    pub(crate) fn filter_literal(p: &Plane) -> Plane {
        let (w, h) = (p.width as usize, p.height as usize);
        let dw = w - 10;
        let dh = h - 10;
        let mut tmp = vec![0.0f32; dw * h];
        for y in 0..h {
            for x in 0..dw {
                let mut sum = 0.0f64;
                for (u, &g) in GAUSSIAN_TAPS.iter().enumerate() {
                    sum += (p.get(x + u, y) * g) as f64;
                }
                tmp[y * dw + x] = (sum * 1.0) as f32;
            }
        }
        let mut out = Plane::zeroed(dw as u32, dh as u32);
        for x in 0..dw {
            for y in 0..dh {
                let mut sum = 0.0f64;
                for (v, &g) in GAUSSIAN_TAPS.iter().enumerate() {
                    sum += (tmp[(y + v) * dw + x] * g) as f64;
                }
                out.data[y * dw + x] = (sum * 1.0) as f32;
            }
        }
        out
    }

    #[test]
    fn output_is_the_valid_region() {
        let p = pattern(11, 11, 3);
        let f = filter(&p).unwrap();
        assert_eq!((f.width, f.height), (1, 1));
        let p = pattern(30, 17, 3);
        let f = filter(&p).unwrap();
        assert_eq!((f.width, f.height), (20, 7));
    }

    #[test]
    fn row_version_equals_per_pixel_version() {
        for (w, h, seed) in [(11, 11, 1), (12, 40, 2), (61, 33, 3), (480, 30, 4)] {
            let p = pattern(w, h, seed);
            // Squares reach 65 k, as s_rr does.
            let (sq, _, _) = products(&p, &p).unwrap();
            for input in [&p, &sq] {
                assert_eq!(
                    filter(input).unwrap().to_le_bytes(),
                    filter_literal(input).to_le_bytes(),
                    "{w}x{h}"
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(64))]

        /// Random sizes (widths on both sides of the 8-pixel blocks) and values.
        #[test]
        fn blocked_version_equals_per_pixel_version(
            w in 11u32..60,
            h in 11u32..30,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let p = pattern(w, h, seed);
            let (sq, _, _) = products(&p, &p).unwrap();
            for input in [&p, &sq] {
                proptest::prop_assert_eq!(
                    filter(input).unwrap().to_le_bytes(),
                    filter_literal(input).to_le_bytes()
                );
            }
        }
    }

    #[test]
    fn too_small_planes_are_refused() {
        assert!(matches!(
            filter(&pattern(10, 20, 1)),
            Err(Error::PlaneTooSmall { width: 10, .. })
        ));
        assert!(matches!(
            filter(&pattern(20, 10, 1)),
            Err(Error::PlaneTooSmall { height: 10, .. })
        ));
        assert!(horizontal(&pattern(10, 20, 1)).is_err());
        assert!(vertical(&pattern(20, 10, 1)).is_err());
    }

    #[test]
    fn mismatched_planes_are_refused() {
        assert!(matches!(
            gaussian_filter_all(&pattern(20, 20, 1), &pattern(21, 20, 1)),
            Err(Error::GeometryMismatch(_))
        ));
    }
}
