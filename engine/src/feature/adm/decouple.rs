//! Decoupling the distorted detail bands into a part restored from the
//! reference (`rst = clamp(t / o, 0, 1) · o`, with the enhancement gain where
//! the two point the same way) and the additive impairment `a = t - rst`.

use super::dwt::Bands;

/// The reciprocal table: entry `32768 + i` is `±(int32)(2^30 / |i|)` (sign of
/// `i`), for `i` in `-32768..=32768`; entry 32768 (`i = 0`) is unused.
fn reciprocal(i: i32) -> i64 {
    if i == 0 {
        0
    } else {
        i64::from(i.signum()) * ((1i64 << 30) / i64::from(i.unsigned_abs()))
    }
}

/// cos²(1°) as libvmaf's binary32 constant (bits 0x3f7fec0a).
fn cos_1deg_sq() -> f32 {
    f32::from_bits(0x3f7f_ec0a)
}

/// The restored and additive detail bands `[h, v, d]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Decoupled {
    /// `rst`: what of the distorted band the reference explains.
    pub restored: [Vec<i32>; 3],
    /// `a = t - rst`: the additive impairment.
    pub additive: [Vec<i32>; 3],
}

/// The 1-degree angle test of a pixel's (h, v) vectors: the dot product and
/// the squared magnitudes (int64) each rounded to binary32, then compared in
/// binary64: `dp ≥ 0` and `dp² ≥ cos²(1°) · |o|² · |t|²`.
pub(super) fn angle_flag(o: [i64; 2], t: [i64; 2]) -> bool {
    let dot = o[0]
        .wrapping_mul(t[0])
        .wrapping_add(o[1].wrapping_mul(t[1]));
    let o_mag = o[0]
        .wrapping_mul(o[0])
        .wrapping_add(o[1].wrapping_mul(o[1]));
    let t_mag = t[0]
        .wrapping_mul(t[0])
        .wrapping_add(t[1].wrapping_mul(t[1]));
    let as_double = |v: i64| f64::from(v as f32) / 4096.0;
    let (dp, om, tm) = (as_double(dot), as_double(o_mag), as_double(t_mag));
    dp >= 0.0 && dp * dp >= f64::from(cos_1deg_sq()) * om * tm
}

/// The ratio `k = t / o` in Q15, clamped to `[0, 32768]`. Scale 0 (int16
/// `o`) looks `o` up directly; scales 1 to 3 round `|o| ≥ 32768` to a
/// 15-bit mantissa and shift back.
pub(super) fn ratio_q15(o: i32, t: i32, scale0: bool) -> i64 {
    if o == 0 {
        return 32768;
    }
    let k = if scale0 {
        (reciprocal(o) * i64::from(t) + 16384) >> 15
    } else {
        let abs = o.unsigned_abs();
        let shift = if abs >= 32768 {
            17 - abs.leading_zeros()
        } else {
            0
        };
        let mantissa = if shift > 0 {
            (abs + (1 << (shift - 1))) >> shift
        } else {
            abs
        };
        let sign = i64::from(o.signum());
        (reciprocal(mantissa as i32) * i64::from(t) * sign + (1i64 << (14 + shift))) >> (15 + shift)
    };
    k.clamp(0, 32768)
}

/// One sample's restored value: `(k·o + 16384) >> 15`, then, where the angle
/// test passed, the enhancement gain: `min(rst · egl, t)` when `k·o > 0`,
/// `max(rst · egl, t)` when `k·o < 0` (binary64, truncated back).
fn restore(o: i32, t: i32, flag: bool, scale0: bool, egl: f64) -> i32 {
    let k = ratio_q15(o, t, scale0);
    let ko = k * i64::from(o);
    let mut rst = ((ko + 16384) >> 15) as i32;
    if scale0 {
        rst = i32::from(rst as i16);
    }
    if flag {
        let gained = f64::from(rst) * egl;
        if ko > 0 {
            rst = gained.min(f64::from(t)) as i32;
        } else if ko < 0 {
            rst = gained.max(f64::from(t)) as i32;
        }
    }
    rst
}

/// Decouples the distorted bands from the reference bands (same size).
pub(super) fn decouple(reference: &Bands, distorted: &Bands, scale0: bool, egl: f64) -> Decoupled {
    let n = reference.width * reference.height;
    let mut restored: [Vec<i32>; 3] = std::array::from_fn(|_| vec![0; n]);
    let mut additive: [Vec<i32>; 3] = std::array::from_fn(|_| vec![0; n]);
    let (o, t) = (&reference.hvd, &distorted.hvd);
    for p in 0..n {
        let flag = angle_flag(
            [o[0][p].into(), o[1][p].into()],
            [t[0][p].into(), t[1][p].into()],
        );
        for b in 0..3 {
            let rst = restore(o[b][p], t[b][p], flag, scale0, egl);
            let a = t[b][p].wrapping_sub(rst);
            restored[b][p] = rst;
            additive[b][p] = if scale0 { i32::from(a as i16) } else { a };
        }
    }
    Decoupled { restored, additive }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_is_clamped_and_rounded() {
        assert_eq!(ratio_q15(0, 5, true), 32768);
        assert_eq!(ratio_q15(10, 5, true), 16384);
        assert_eq!(ratio_q15(10, -5, true), 0);
        assert_eq!(ratio_q15(10, 50, true), 32768);
        assert_eq!(ratio_q15(1 << 20, 1 << 19, false), 16384);
    }

    #[test]
    fn parallel_vectors_pass_the_angle_test() {
        assert!(angle_flag([100, 200], [50, 100]));
        assert!(!angle_flag([100, 200], [-50, -100]));
        assert!(!angle_flag([100, 0], [0, 100]));
    }
}
