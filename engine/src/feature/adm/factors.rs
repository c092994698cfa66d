//! The contrast sensitivity factors: Watson's DWT quantisation step for each
//! scale and orientation, computed with libvmaf's mix of binary32 and binary64
//! steps, and the fixed-point factors the integer stages multiply by.

/// Watson's Daubechies 9/7 basis function amplitudes, by level (0..=3) and
/// orientation (0 = LL, 1 = LH, 2 = HH, 3 = HL), as binary32.
const BASIS_AMPLITUDES: [[f32; 4]; 4] = [
    [0.62171, 0.67234, 0.72709, 0.67234],
    [0.34537, 0.41317, 0.49428, 0.41317],
    [0.18004, 0.22727, 0.28688, 0.22727],
    [0.091401, 0.11792, 0.15214, 0.11792],
];

/// Watson's luma model: amplitude `a`, width `k`, minimum frequency `f0` and the
/// per-orientation frequency gains `g`, as binary32.
const MODEL_A: f32 = 0.495;
const MODEL_K: f32 = 0.466;
const MODEL_F0: f32 = 0.401;
const MODEL_G: [f32; 4] = [1.501, 1.0, 0.534, 1.0];

/// Orientation index of the h and v bands in Watson's tables.
pub(super) const THETA_HV: usize = 1;
/// Orientation index of the d (diagonal) band.
pub(super) const THETA_D: usize = 2;

/// The quantisation step Q for `level` and `theta` at a viewing distance of
/// `view_dist` display heights on a display `display_height` pixels high:
/// `2 a 10^(k t^2) / A` with `t = log10(2^(level+1) f0 g / r)` and `r` the
/// display's pixels per degree. `r`, `t`, `k t t` and Q round to binary32,
/// the rest is binary64 (libvmaf's mix; the default factors depend on it).
pub(super) fn quant_step(level: usize, theta: usize, view_dist: f64, display_height: i32) -> f32 {
    let r = (view_dist * f64::from(display_height) * std::f64::consts::PI / 180.0) as f32;
    let freq = f64::from(1u32 << (level + 1)) * f64::from(MODEL_F0) * f64::from(MODEL_G[theta]);
    let t = (freq / f64::from(r)).log10() as f32;
    let exponent = MODEL_K * t * t;
    let q = 2.0 * f64::from(MODEL_A) * 10f64.powf(f64::from(exponent))
        / f64::from(BASIS_AMPLITUDES[level][theta]);
    q as f32
}

/// The binary32 contrast sensitivity factor `1 / Q`.
pub(super) fn rfactor(level: usize, theta: usize, view_dist: f64, display_height: i32) -> f32 {
    1.0f32 / quant_step(level, theta, view_dist, display_height)
}

/// The factors of one scale, by orientation: `[h, v, d]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ScaleFactors {
    /// The binary32 factors `1 / Q` (the denominator's `pow(rf, 3)`).
    pub float: [f32; 3],
    /// The fixed-point factors of the integer stages: at scale 0 `1/Q` in
    /// Q21 (h, v) and Q23 (d); at scales 1 to 3 `1/Q` in Q32 (truncated).
    pub fixed: [u32; 3],
}

/// libvmaf's hard-coded scale-0 fixed-point factors (h, v, d) for the default
/// viewing conditions (any distance times height of 3 x 1080, e.g. 4 x 810);
/// recomputing them would give 36451 and 49414. Other conditions use `1/Q`
/// truncated to Q21 (h, v) and Q23 (d).
const SCALE0_DEFAULT_FIXED: [u32; 3] = [36453, 36453, 49417];

/// The factors of the four scales for a viewing distance and display height.
pub(super) fn scale_factors(view_dist: f64, display_height: i32) -> [ScaleFactors; 4] {
    std::array::from_fn(|scale| {
        let hv = rfactor(scale, THETA_HV, view_dist, display_height);
        let d = rfactor(scale, THETA_D, view_dist, display_height);
        let float = [hv, hv, d];
        let fixed = if scale == 0 {
            if view_dist * f64::from(display_height) == 3240.0 {
                SCALE0_DEFAULT_FIXED
            } else {
                let q21 = (f64::from(hv) * 2097152.0) as u32;
                [q21, q21, (f64::from(d) * 8388608.0) as u32]
            }
        } else {
            float.map(|f| (f64::from(f) * 4294967296.0) as u32)
        };
        ScaleFactors { float, fixed }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default (3 heights, 1080 lines) factors of scales 1 to 3 are the
    /// binary32 values libvmaf uses.
    #[test]
    fn default_factors_match_libvmaf_bits() {
        let expected: [(usize, usize, u32); 6] = [
            (1, THETA_HV, 0x3d030286),
            (1, THETA_D, 0x3c6a46a3),
            (2, THETA_HV, 0x3d31a788),
            (2, THETA_D, 0x3cc7dc06),
            (3, THETA_HV, 0x3d3b140b),
            (3, THETA_D, 0x3d0041c9),
        ];
        for (level, theta, bits) in expected {
            assert_eq!(
                rfactor(level, theta, 3.0, 1080).to_bits(),
                bits,
                "{level} {theta}"
            );
        }
    }
}
