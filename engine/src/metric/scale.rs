//! The decimation factor of `float_ssim` (stage 2 of the CPU twin) and the
//! size it leads to.
//!
//! libvmaf picks `max(1, round(f32(min(w, h)) / 256))`, with its own rounding
//! (`a - (int)a >= 0.5` rounds up); libvmaf 3.1's `scale=N` option forces `N`, and
//! `scale=0` means auto. Decimation by `s` gives `w / s + (w & 1)` columns and
//! `h / s + (h & 1)` rows. SSIM needs at least 11 x 11 of them.

use crate::{Error, Result, SsimOptions};

/// Side of the Gaussian window; the smallest plane SSIM can score.
pub(crate) const WINDOW: u32 = 11;

/// libvmaf's automatic decimation factor for a `width` x `height` plane.
pub fn auto_scale(width: u32, height: u32) -> u32 {
    let a = width.min(height) as f32 / 256.0f32;
    // libvmaf's rounding: truncate, then add one if the fraction (computed in
    // fp32, compared in fp64) is at least one half. `a` is never negative here.
    let t = a as i64;
    let rounded = if (a - t as f32) as f64 >= 0.5 {
        t + 1
    } else {
        t
    };
    rounded.max(1) as u32
}

/// The factor a frame of this size is decimated by under `opts` (`scale = 0`:
/// auto, otherwise that factor).
pub fn resolve_scale(opts: &SsimOptions, width: u32, height: u32) -> u32 {
    if opts.scale == 0 {
        auto_scale(width, height)
    } else {
        opts.scale
    }
}

/// The plane size after decimating `width` x `height` by `scale` (unchanged at
/// scale 1). An odd side gains one, an even side drops its remainder.
pub fn scaled_size(width: u32, height: u32, scale: u32) -> (u32, u32) {
    if scale <= 1 {
        (width, height)
    } else {
        (width / scale + (width & 1), height / scale + (height & 1))
    }
}

/// The decimated size, or [`Error::PlaneTooSmall`] when it is below the
/// 11 x 11 window (so nothing is computed for a plane that cannot be scored).
pub fn checked_scaled_size(width: u32, height: u32, scale: u32) -> Result<(u32, u32)> {
    let (sw, sh) = scaled_size(width, height, scale);
    if sw < WINDOW || sh < WINDOW {
        return Err(Error::PlaneTooSmall {
            width,
            height,
            scale,
            scaled_width: sw,
            scaled_height: sh,
        });
    }
    Ok((sw, sh))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_scale_matches_libvmaf_examples() {
        // (short side, factor) pairs from docs/exactness.md section 2.
        for (side, want) in [
            (640, 3),
            (1080, 4),
            (720, 3),
            (480, 2),
            (324, 1),
            (1440, 6),
            (2160, 8),
            (4320, 17),
        ] {
            assert_eq!(auto_scale(side * 2, side), want, "short side {side}");
            assert_eq!(auto_scale(side, side + 1), want, "short side {side}");
        }
    }

    #[test]
    fn auto_scale_rounds_half_up_and_never_below_one() {
        assert_eq!(auto_scale(1, 1), 1);
        assert_eq!(auto_scale(383, 1000), 1); // 1.496
        assert_eq!(auto_scale(384, 1000), 2); // exactly 1.5
        assert_eq!(auto_scale(639, 1000), 2); // 2.496
        assert_eq!(auto_scale(640, 1000), 3); // 2.5
    }

    #[test]
    fn resolve_scale_zero_is_auto() {
        let mut o = SsimOptions::default();
        assert_eq!(resolve_scale(&o, 1920, 1080), 4);
        o.scale = 3;
        assert_eq!(resolve_scale(&o, 1920, 1080), 3);
    }

    #[test]
    fn scaled_size_formula_with_odd_sides() {
        assert_eq!(scaled_size(1920, 1080, 4), (480, 270));
        assert_eq!(scaled_size(1921, 1081, 4), (481, 271));
        assert_eq!(scaled_size(1923, 1079, 4), (481, 270));
        assert_eq!(scaled_size(101, 100, 3), (34, 33));
        assert_eq!(scaled_size(101, 100, 1), (101, 100));
    }

    #[test]
    fn too_small_planes_are_refused() {
        assert_eq!(checked_scaled_size(11, 11, 1).unwrap(), (11, 11));
        let e = checked_scaled_size(10, 40, 1).unwrap_err();
        assert!(matches!(
            e,
            Error::PlaneTooSmall {
                scaled_width: 10,
                scaled_height: 40,
                ..
            }
        ));
        // 43 / 4 = 10, plus one for the odd width: 11 columns, but 40 / 4 = 10 rows.
        assert_eq!(checked_scaled_size(43, 44, 4).unwrap(), (11, 11));
        assert!(checked_scaled_size(43, 40, 4).is_err());
        assert!(e.to_string().contains("smaller than the 11x11"));
    }
}
