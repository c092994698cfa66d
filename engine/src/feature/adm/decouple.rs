//! Decoupling the distorted detail bands into a part restored from the
//! reference (`rst = clamp(t / o, 0, 1) · o`, with the enhancement gain where
//! the two point the same way) and the additive impairment `a = t - rst`.

use std::sync::OnceLock;

use super::dwt::Bands;
use super::pool;
use crate::feature::rows::LANES;

/// The reciprocal table: entry `32768 + i` is `±(int32)(2^30 / |i|)` (sign of
/// `i`), for `i` in `-32768..=32768`; entry 32768 (`i = 0`) is unused (0).
fn reciprocals() -> &'static [i32; 65537] {
    static TABLE: OnceLock<Box<[i32; 65537]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0i32; 65537]);
        for (k, entry) in t.iter_mut().enumerate() {
            let i = k as i64 - 32768;
            if i != 0 {
                *entry = (i.signum() * ((1i64 << 30) / i.abs())) as i32;
            }
        }
        t
    })
}

/// [`reciprocals`]' entry for `i` in `-32768..=32768`.
#[inline(always)]
fn reciprocal(table: &[i32; 65537], i: i32) -> i64 {
    i64::from(table[(i + 32768) as usize])
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
#[inline(always)]
pub(super) fn ratio_q15(table: &[i32; 65537], o: i32, t: i32, scale0: bool) -> i64 {
    if o == 0 {
        return 32768;
    }
    let k = if scale0 {
        (reciprocal(table, o) * i64::from(t) + 16384) >> 15
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
        (reciprocal(table, mantissa as i32) * i64::from(t) * sign + (1i64 << (14 + shift)))
            >> (15 + shift)
    };
    k.clamp(0, 32768)
}

/// One sample's restored value: `(k·o + 16384) >> 15`, then, where the angle
/// test passed, the enhancement gain: `min(rst · egl, t)` when `k·o > 0`,
/// `max(rst · egl, t)` when `k·o < 0` (binary64, truncated back).
#[inline(always)]
fn restore(table: &[i32; 65537], o: i32, t: i32, flag: bool, scale0: bool, egl: f64) -> i32 {
    let k = ratio_q15(table, o, t, scale0);
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
    let mut out = Decoupled {
        restored: std::array::from_fn(|_| pool::filled_later(n)),
        additive: std::array::from_fn(|_| pool::filled_later(n)),
    };
    if scale0 {
        decouple_scale0(&reference.hvd, &distorted.hvd, egl, &mut out);
    } else {
        decouple_plain(&reference.hvd, &distorted.hvd, false, egl, &mut out);
    }
    out
}

/// Decouples pixel by pixel with [`angle_flag`] and [`restore`] (any scale).
pub(super) fn decouple_plain(
    o: &[Vec<i32>; 3],
    t: &[Vec<i32>; 3],
    scale0: bool,
    egl: f64,
    out: &mut Decoupled,
) {
    let n = o[0].len();
    let flags: Vec<bool> = (0..n)
        .map(|p| {
            angle_flag(
                [o[0][p].into(), o[1][p].into()],
                [t[0][p].into(), t[1][p].into()],
            )
        })
        .collect();
    let table = reciprocals();
    for b in 0..3 {
        let bands = o[b].iter().zip(&t[b]).zip(&flags);
        let dst = out.restored[b].iter_mut().zip(&mut out.additive[b]);
        for (((&o, &t), &flag), (rst_out, a_out)) in bands.zip(dst) {
            let rst = restore(table, o, t, flag, scale0, egl);
            let a = t.wrapping_sub(rst);
            *rst_out = rst;
            *a_out = if scale0 { i32::from(a as i16) } else { a };
        }
    }
}

/// Scale 0's decoupling of `L` pixels from `p`, without branches: the
/// bands hold int16 values, so the angle test's products and sums are exact
/// in binary64 (each rounded once to binary32 as libvmaf's int64 values
/// are), `k·o` fits in int32, and the reciprocal's index needs no check.
#[inline(always)]
fn scale0_lanes<const L: usize>(
    table: &[i32; 65537],
    o: &[Vec<i32>; 3],
    t: &[Vec<i32>; 3],
    p: usize,
    egl: f64,
    out: &mut Decoupled,
) {
    let o: [&[i32; L]; 3] = std::array::from_fn(|b| o[b][p..p + L].try_into().unwrap());
    let t: [&[i32; L]; 3] = std::array::from_fn(|b| t[b][p..p + L].try_into().unwrap());
    let mut flag = [false; L];
    for l in 0..L {
        let f = |v: i32| f64::from(v);
        let as_double = |v: f64| f64::from(v as f32) / 4096.0;
        let dot = f(o[0][l]) * f(t[0][l]) + f(o[1][l]) * f(t[1][l]);
        let o_mag = f(o[0][l]) * f(o[0][l]) + f(o[1][l]) * f(o[1][l]);
        let t_mag = f(t[0][l]) * f(t[0][l]) + f(t[1][l]) * f(t[1][l]);
        let (dp, om, tm) = (as_double(dot), as_double(o_mag), as_double(t_mag));
        flag[l] = dp >= 0.0 && dp * dp >= f64::from(cos_1deg_sq()) * om * tm;
    }
    for b in 0..3 {
        let rst_out: &mut [i32; L] = (&mut out.restored[b][p..p + L]).try_into().unwrap();
        let mut rst = [0i32; L];
        for l in 0..L {
            let (o, t) = (o[b][l], t[b][l]);
            let recip = i64::from(table[(o + 32768) as usize & 0xffff]);
            let k = ((recip * i64::from(t) + 16384) >> 15).clamp(0, 32768) as i32;
            let k = if o == 0 { 32768 } else { k };
            let ko = k * o;
            let plain = i32::from(((ko + 16384) >> 15) as i16);
            let gained = f64::from(plain) * egl;
            let toward = if ko > 0 {
                gained.min(f64::from(t))
            } else {
                gained.max(f64::from(t))
            } as i32;
            rst[l] = if flag[l] && ko != 0 { toward } else { plain };
        }
        *rst_out = rst;
        let a_out: &mut [i32; L] = (&mut out.additive[b][p..p + L]).try_into().unwrap();
        for l in 0..L {
            a_out[l] = i32::from(t[b][l].wrapping_sub(rst[l]) as i16);
        }
    }
}

/// Scale 0's decoupling, on [`LANES`] pixels at a time.
#[inline(always)]
fn decouple_scale0_portable(o: &[Vec<i32>; 3], t: &[Vec<i32>; 3], egl: f64, out: &mut Decoupled) {
    let table = reciprocals();
    let n = o[0].len();
    let body = n - n % LANES;
    for p in (0..body).step_by(LANES) {
        scale0_lanes::<LANES>(table, o, t, p, egl, out);
    }
    for p in body..n {
        scale0_lanes::<1>(table, o, t, p, egl, out);
    }
}

crate::cpu::simd::dispatch_avx2! {
    /// Scale 0's decoupling, on the widest vectors the CPU has.
    fn decouple_scale0 / decouple_scale0_avx2 => decouple_scale0_portable(
        o: &[Vec<i32>; 3],
        t: &[Vec<i32>; 3],
        egl: f64,
        out: &mut Decoupled,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ratio_is_clamped_and_rounded() {
        assert_eq!(ratio_q15(reciprocals(), 0, 5, true), 32768);
        assert_eq!(ratio_q15(reciprocals(), 10, 5, true), 16384);
        assert_eq!(ratio_q15(reciprocals(), 10, -5, true), 0);
        assert_eq!(ratio_q15(reciprocals(), 10, 50, true), 32768);
        assert_eq!(ratio_q15(reciprocals(), 1 << 20, 1 << 19, false), 16384);
    }

    /// Scale 0's lanes against the per-pixel branches, on int16 bands
    /// drawn to reach each case: zero, opposite and nearly parallel
    /// vectors, the int16 extremes, gains both sides of the limit.
    fn compare_scale0(o: [Vec<i32>; 3], t: [Vec<i32>; 3], egl: f64) {
        let n = o[0].len();
        let empty = || Decoupled {
            restored: std::array::from_fn(|_| vec![0; n]),
            additive: std::array::from_fn(|_| vec![0; n]),
        };
        let (mut got, mut want) = (empty(), empty());
        decouple_scale0(&o, &t, egl, &mut got);
        decouple_plain(&o, &t, true, egl, &mut want);
        assert_eq!(got, want);
    }

    #[test]
    fn scale0_lanes_equal_per_pixel_branches_at_the_extremes() {
        let edges = [-32768, -32767, -4096, -1, 0, 1, 3, 4096, 32767];
        let mut o: [Vec<i32>; 3] = Default::default();
        let mut t: [Vec<i32>; 3] = Default::default();
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    o[0].push(a);
                    o[1].push(b);
                    o[2].push(c);
                    t[0].push(b);
                    t[1].push(c);
                    t[2].push(a);
                    o[0].push(a);
                    o[1].push(b);
                    o[2].push(c);
                    t[0].push(a / 2 + c / 8);
                    t[1].push(b / 2);
                    t[2].push(c.saturating_mul(3).clamp(-32768, 32767));
                }
            }
        }
        compare_scale0(o.clone(), t.clone(), 100.0);
        compare_scale0(o, t, 1.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn scale0_lanes_equal_per_pixel_branches(
            pixels in prop::collection::vec(
                (prop::array::uniform3(-32768i32..32768), prop::array::uniform3(-200i32..200), 0i32..4),
                1..80,
            ),
            egl in prop::sample::select(vec![1.0f64, 1.3, 100.0]),
        ) {
            let mut o: [Vec<i32>; 3] = Default::default();
            let mut t: [Vec<i32>; 3] = Default::default();
            for (ov, noise, mode) in pixels {
                for b in 0..3 {
                    // Distorted values near a multiple of the reference.
                    let v = match mode { 0 => ov[b] / 2, 1 => -ov[b], 2 => ov[b] >> 6, _ => ov[b] };
                    o[b].push(ov[b] >> (mode * 3));
                    t[b].push((v + noise[b]).clamp(-32768, 32767));
                }
            }
            compare_scale0(o, t, egl);
        }
    }

    #[test]
    fn parallel_vectors_pass_the_angle_test() {
        assert!(angle_flag([100, 200], [50, 100]));
        assert!(!angle_flag([100, 200], [-50, -100]));
        assert!(!angle_flag([100, 0], [0, 100]));
    }
}
