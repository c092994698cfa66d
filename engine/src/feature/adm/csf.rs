//! The contrast sensitivity weighting of the additive impairment bands, and
//! their "flattened" copies `|csf| / 30` that the masking threshold sums.

use super::factors::ScaleFactors;
use super::pool;

/// libvmaf's `1u << 31` held in an int32: `-2^31`, so `(x + r) >> 32` is
/// `floor(x / 2^32 - 1/2)` (issue #955).
pub(super) const NEG_HALF_Q32: i64 = i32::MIN as i64;

/// The weighted bands `[h, v, d]` and their flattened copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Weighted {
    /// `csf_a`: the additive band times the factor.
    pub csf: [Vec<i32>; 3],
    /// `flt`: `|csf_a| / 30` in the masking's fixed point.
    pub flat: [Vec<i32>; 3],
}

/// Scale 0: h and v `(i_rf · a + 16384) >> 15`, d `(i_rf · a + 65535) >> 17`,
/// to int16; flat `(4369 · |csf| + 2048) >> 12` to int16.
fn weigh_scale0(a: i32, fixed: u32, band: usize) -> (i32, i32) {
    let (add, shift) = if band == 2 { (65535, 17) } else { (16384, 15) };
    let product = (fixed as i32).wrapping_mul(a);
    let csf = i32::from((product.wrapping_add(add) >> shift) as i16);
    let flat = i32::from(((4369 * csf.abs() + 2048) >> 12) as i16);
    (csf, flat)
}

/// Scales 1 to 3: `(rf · a + 2^27) >> 28`; flat
/// `(143165577 · |csf| - 2^31) >> 32` (the int32-held rounding constant).
fn weigh_s123(a: i32, fixed: u32) -> (i32, i32) {
    let csf = ((i64::from(fixed) * i64::from(a) + (1 << 27)) >> 28) as i32;
    let flat = ((143165577 * i64::from(csf).abs() + NEG_HALF_Q32) >> 32) as i32;
    (csf, flat)
}

/// Weighs the additive bands of one scale.
pub(super) fn weigh(additive: &[Vec<i32>; 3], factors: &ScaleFactors, scale0: bool) -> Weighted {
    let mut csf: [Vec<i32>; 3] = std::array::from_fn(|b| pool::filled_later(additive[b].len()));
    let mut flat: [Vec<i32>; 3] = std::array::from_fn(|b| pool::filled_later(additive[b].len()));
    for b in 0..3 {
        for (p, &a) in additive[b].iter().enumerate() {
            let (c, f) = if scale0 {
                weigh_scale0(a, factors.fixed[b], b)
            } else {
                weigh_s123(a, factors.fixed[b])
            };
            csf[b][p] = c;
            flat[b][p] = f;
        }
    }
    Weighted { csf, flat }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_flattens_to_minus_one_at_scales_1_to_3() {
        assert_eq!(weigh_s123(0, 1 << 27), (0, -1));
        assert_eq!(weigh_scale0(0, 36453, 0), (0, 0));
    }
}
