//! Stage 7: `enable_db` and `clip_db`. The dB figure is
//! `min(-10 * log10(1 - score), max_db)` in fp64; with `clip_db`,
//! `max_db = ceil(10 * log10(peak^2 / (0.5 / (W * H))))` for `peak = 2^bpc - 1`
//! and the ORIGINAL (not decimated) luma size; without it, +inf.

/// The dB ceiling for a `width` x `height` luma plane of `bit_depth` bits
/// (`+inf` unless `clip_db`).
pub fn max_db(width: u32, height: u32, bit_depth: u32, clip_db: bool) -> f64 {
    if !clip_db {
        return f64::INFINITY;
    }
    let peak = (1u32 << bit_depth.min(16)) - 1;
    // libvmaf multiplies in unsigned 32-bit arithmetic; `wrapping_mul` keeps its
    // value for every size (only sizes above 4 G pixels would wrap).
    let mse = 0.5 / width.wrapping_mul(height) as f64;
    (10.0 * ((peak * peak) as f64 / mse).log10()).ceil()
}

/// The SSIM score in dB, capped at `max_db` (libvmaf's `MIN`: the cap is also
/// what a NaN turns into).
pub fn to_db(score: f64, max_db: f64) -> f64 {
    let db = -10.0 * (1.0 - score).log10();
    if db < max_db {
        db
    } else {
        max_db
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_frames_hit_the_ceiling() {
        assert_eq!(to_db(1.0, f64::INFINITY), f64::INFINITY);
        let m = max_db(1920, 1080, 8, true);
        assert_eq!(to_db(1.0, m), m);
    }

    #[test]
    fn ceiling_grows_with_size_and_depth() {
        let m8 = max_db(1920, 1080, 8, true);
        let m10 = max_db(1920, 1080, 10, true);
        assert!(m8.fract() == 0.0 && m10.fract() == 0.0);
        assert!(m10 > m8);
        assert!(max_db(3840, 2160, 8, true) > m8);
        assert_eq!(max_db(1920, 1080, 8, false), f64::INFINITY);
    }

    #[test]
    fn db_is_minus_ten_log10_of_the_error() {
        assert_eq!(to_db(0.9, f64::INFINITY), -10.0 * (1.0f64 - 0.9).log10());
        assert_eq!(to_db(0.0, f64::INFINITY), 0.0);
    }
}
