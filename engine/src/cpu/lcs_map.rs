//! Stage 5: per-pixel variances and the luminance, contrast and structure terms,
//! with libvmaf's exact mix of fp32 and fp64 (its default path in
//! `iqa_ssim`):
//!
//! - `sr = max(0, f32(s_rr - f32(mu_r * mu_r)))`, `sc` likewise,
//!   `sb = f32(s_rc - f32(mu_r * mu_c))` (not clamped);
//! - `srsc = f32(sqrt_f64(f32(sr * sc)))`;
//! - `l = (f64(2 * mu_r) * mu_c + C1) / f32(f32(mu_r^2) + f32(mu_c^2)) + C1)`, fp64;
//! - `c = (2 * srsc + C2) / f32(f32(sr + sc) + C2)`, fp64;
//! - `s = f32(f32(sb' + C3) / f32(srsc + C3))` where `sb' = 0` if `sb < 0` and
//!   `srsc <= 0`, an fp32 division widened to fp64;
//! - `ssim = (l * c) * s`, fp64.
//!
//! Rust never contracts `a * b + c` into an FMA, and `f64::sqrt` is IEEE, so the
//! expressions below round exactly where libvmaf's do.

use super::gaussian::FilteredPlanes;

pub use crate::metric::ssim::SsimConstants;

/// The variances and covariance of one pixel, fp32.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sigmas {
    /// Reference variance, clamped at 0.
    pub sr: f32,
    /// Distorted variance, clamped at 0.
    pub sc: f32,
    /// Covariance, not clamped.
    pub sb: f32,
}

/// The per-pixel terms libvmaf sums (each fp64).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelTerms {
    /// `(l * c) * s`.
    pub ssim: f64,
    /// Luminance term.
    pub l: f64,
    /// Contrast term.
    pub c: f64,
    /// Structure term (an fp32 value).
    pub s: f64,
}

/// libvmaf's `MAX(0.0, x)` written back to fp32: `0.0 > x ? 0.0 : x` (so -0.0
/// and NaN pass through unchanged, unlike `f32::max`).
#[inline]
fn clamp_nonnegative(x: f32) -> f32 {
    if 0.0f64 > x as f64 {
        0.0
    } else {
        x
    }
}

/// The variances of one pixel from its filtered values.
#[inline]
pub fn sigmas(mu_r: f32, mu_c: f32, s_rr: f32, s_cc: f32, s_rc: f32) -> Sigmas {
    Sigmas {
        sr: clamp_nonnegative(s_rr - mu_r * mu_r),
        sc: clamp_nonnegative(s_cc - mu_c * mu_c),
        sb: s_rc - mu_r * mu_c,
    }
}

/// The l, c, s and SSIM terms of one pixel from its filtered values.
#[inline]
pub fn pixel_terms(
    k: &SsimConstants,
    mu_r: f32,
    mu_c: f32,
    s_rr: f32,
    s_cc: f32,
    s_rc: f32,
) -> PixelTerms {
    let Sigmas { sr, sc, sb } = sigmas(mu_r, mu_c, s_rr, s_cc, s_rc);
    let srsc = (((sr * sc) as f64).sqrt()) as f32;
    let l_num = 2.0f64 * mu_r as f64 * mu_c as f64 + k.c1 as f64;
    let l_den = mu_r * mu_r + mu_c * mu_c + k.c1;
    let l = l_num / l_den as f64;
    let c_num = 2.0f64 * srsc as f64 + k.c2 as f64;
    let c_den = sr + sc + k.c2;
    let c = c_num / c_den as f64;
    let sb_clamped = if sb < 0.0f32 && srsc <= 0.0f32 {
        0.0f32
    } else {
        sb
    };
    let s = ((sb_clamped + k.c3) / (srsc + k.c3)) as f64;
    PixelTerms {
        ssim: l * c * s,
        l,
        c,
        s,
    }
}

/// Per-pixel terms of a whole plane, `width` x `height` each, raster order.
#[derive(Debug, Clone, PartialEq)]
pub struct LcsTerms {
    /// Values per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `(l * c) * s` per pixel.
    pub ssim: Vec<f64>,
    /// Luminance term per pixel.
    pub l: Vec<f64>,
    /// Contrast term per pixel.
    pub c: Vec<f64>,
    /// Structure term per pixel.
    pub s: Vec<f64>,
}

/// Calls `each` with every pixel's terms in raster order (row by row, left to
/// right), the order libvmaf sums them in.
///
/// Panics if the five planes differ in size (never for planes from
/// [`super::gaussian_filter_all`]).
#[cfg(test)]
#[inline]
pub fn for_each_term(f: &FilteredPlanes, mut each: impl FnMut(PixelTerms)) {
    f.assert_consistent();
    let k = SsimConstants::libvmaf();
    let n = f.mu_r.data.len();
    let (mu_r, mu_c) = (&f.mu_r.data[..n], &f.mu_c.data[..n]);
    let (s_rr, s_cc, s_rc) = (&f.s_rr.data[..n], &f.s_cc.data[..n], &f.s_rc.data[..n]);
    for i in 0..n {
        each(pixel_terms(&k, mu_r[i], mu_c[i], s_rr[i], s_cc[i], s_rc[i]));
    }
}

super::simd::dispatch_avx2! {
    /// The terms of a run of pixels (see [`terms_run_portable`]), on the widest
    /// vectors the CPU has.
    fn terms_run_dispatch / terms_run_avx2 => terms_run_portable(
        inputs: [&[f32]; 5],
        out_ssim: &mut [f64],
        out_l: &mut [f64],
        out_c: &mut [f64],
        out_s: &mut [f64],
    )
}

/// The terms of a run of pixels: `out_*[i]` from the five filtered values at
/// `i` (`inputs` are mu_r, mu_c, s_rr, s_cc, s_rc). All slices have the same
/// length. A separate loop from the (sequential) frame sums, so the per-pixel
/// arithmetic vectorises.
#[inline]
pub(crate) fn terms_run(
    inputs: [&[f32]; 5],
    out_ssim: &mut [f64],
    out_l: &mut [f64],
    out_c: &mut [f64],
    out_s: &mut [f64],
) {
    terms_run_dispatch(inputs, out_ssim, out_l, out_c, out_s)
}

/// The portable kernel of [`terms_run`].
#[inline(always)]
fn terms_run_portable(
    inputs: [&[f32]; 5],
    out_ssim: &mut [f64],
    out_l: &mut [f64],
    out_c: &mut [f64],
    out_s: &mut [f64],
) {
    let k = SsimConstants::libvmaf();
    let n = out_ssim.len();
    let [mu_r, mu_c, s_rr, s_cc, s_rc] = inputs.map(|p| &p[..n]);
    let (out_l, out_c, out_s) = (&mut out_l[..n], &mut out_c[..n], &mut out_s[..n]);
    for i in 0..n {
        let t = pixel_terms(&k, mu_r[i], mu_c[i], s_rr[i], s_cc[i], s_rc[i]);
        out_ssim[i] = t.ssim;
        out_l[i] = t.l;
        out_c[i] = t.c;
        out_s[i] = t.s;
    }
}

/// Every pixel's terms, for pass-by-pass comparisons.
///
/// Panics if the five planes differ in size (never for planes from
/// [`super::gaussian_filter_all`]).
pub fn lcs_terms(f: &FilteredPlanes) -> LcsTerms {
    f.assert_consistent();
    let n = f.mu_r.data.len();
    let mut t = LcsTerms {
        width: f.mu_r.width,
        height: f.mu_r.height,
        ssim: vec![0.0; n],
        l: vec![0.0; n],
        c: vec![0.0; n],
        s: vec![0.0; n],
    };
    terms_run(
        [
            &f.mu_r.data,
            &f.mu_c.data,
            &f.s_rr.data,
            &f.s_cc.data,
            &f.s_rc.data,
        ],
        &mut t.ssim,
        &mut t.l,
        &mut t.c,
        &mut t.s,
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_round_in_fp32() {
        let k = SsimConstants::libvmaf();
        // f32(0.01f * 255) = 2.55 rounded to fp32; its fp32 square.
        let k1l = (0.01f32 as f64 * 255.0) as f32;
        assert_eq!(k.c1, ((k1l as f64) * (k1l as f64)) as f32);
        let k2l = (0.03f32 as f64 * 255.0) as f32;
        assert_eq!(k.c2, ((k2l as f64) * (k2l as f64)) as f32);
        assert_eq!(k.c3 * 2.0, k.c2);
    }

    #[test]
    fn identical_windows_have_structure_exactly_one() {
        let k = SsimConstants::libvmaf();
        // s divides two equal fp32 values (sqrt(f32(x * x)) is x again), so it
        // is exactly 1 for identical windows. l and c divide an fp64 numerator by
        // an fp32-rounded denominator, so they are 1 only when that rounding is
        // exact: for a black window, and for sums that fit in fp32.
        for (mu, sq) in [
            (0.0f32, 0.0f32),
            (17.5, 400.0),
            (100.25, 10050.0625),
            (255.0, 65025.0),
        ] {
            let t = pixel_terms(&k, mu, mu, sq, sq, sq);
            assert_eq!(t.s, 1.0, "mu {mu}");
        }
        let t = pixel_terms(&k, 0.0, 0.0, 0.0, 0.0, 0.0);
        assert_eq!((t.l, t.c, t.s, t.ssim), (1.0, 1.0, 1.0, 1.0));
        // mu = 17.5: the luminance denominator f32(612.5 + C1) is rounded, the
        // numerator 612.5 + C1 is not.
        let t = pixel_terms(&k, 17.5, 17.5, 400.0, 400.0, 400.0);
        let exact = 612.5f64 + k.c1 as f64;
        assert_eq!(t.l, exact / (exact as f32) as f64);
    }

    #[test]
    fn flat_window_with_negative_covariance_is_clamped() {
        let k = SsimConstants::libvmaf();
        // s_rc slightly below mu_r * mu_c while both variances are 0: libvmaf
        // treats sb as 0, so s is exactly 1.
        let mu = 3.0f32;
        let sq = mu * mu;
        let below = f32::from_bits(sq.to_bits() - 1);
        let t = pixel_terms(&k, mu, mu, sq, sq, below);
        assert_eq!(t.s, 1.0);
        // With variance present, a negative covariance is kept: sr = sc = 4,
        // srsc = 4, sb = -4.
        let t = pixel_terms(&k, mu, mu, sq + 4.0, sq + 4.0, sq - 4.0);
        assert_eq!(t.s, ((-4.0f32 + k.c3) / (4.0f32 + k.c3)) as f64);
        assert!(t.s < 1.0);
    }

    #[test]
    fn lcs_terms_equal_the_per_pixel_terms() {
        use crate::cpu::decimate::tests::pattern;
        let r = pattern(40, 30, 1);
        let c = pattern(40, 30, 2);
        let f = crate::cpu::gaussian_filter_all(&r, &c).unwrap();
        let t = lcs_terms(&f);
        let mut i = 0;
        for_each_term(&f, |p| {
            assert_eq!(
                [t.ssim[i], t.l[i], t.c[i], t.s[i]].map(f64::to_bits),
                [p.ssim, p.l, p.c, p.s].map(f64::to_bits)
            );
            i += 1;
        });
        assert_eq!(i, 30 * 20);
    }

    #[test]
    fn variances_clamp_at_zero() {
        let s = sigmas(10.0, 10.0, 99.0, 101.0, 100.0);
        assert_eq!((s.sr, s.sc, s.sb), (0.0, 1.0, 0.0));
        let s = sigmas(10.0, 10.0, 100.0, 100.0, 99.0);
        assert_eq!(s.sb, -1.0);
    }
}
