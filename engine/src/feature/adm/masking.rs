//! Contrast masking, the numerator: each restored detail coefficient, weighted
//! and reduced by a threshold from the impairment around it, cubed and summed
//! (with libvmaf's per-pixel and per-row roundings), then the cube root.

use super::csf::{Weighted, NEG_HALF_Q32};
use super::dwt::mirror;
use super::factors::ScaleFactors;
use super::window::{ceil_log2, round_shift_i64, Window};

/// The masking threshold at (`i`, `j`): over h, v and d, the 8 neighbours of
/// the flattened band (rows and columns mirrored: -1 reads 1, n reads n - 1)
/// plus the centre's `|csf| / 15` (scale 0: `(8738·|c| + 2048) >> 12` held
/// in int16; scales 1 to 3: `(286331153·|c| - 2^31) >> 32`).
fn threshold(w: &Weighted, width: usize, height: usize, i: usize, j: usize, scale0: bool) -> i64 {
    let rows = [
        mirror(i as isize - 1, height),
        i,
        mirror(i as isize + 1, height),
    ];
    let cols = [
        mirror(j as isize - 1, width),
        j,
        mirror(j as isize + 1, width),
    ];
    let mut sum = 0i64;
    for b in 0..3 {
        for (ri, &r) in rows.iter().enumerate() {
            for (ci, &c) in cols.iter().enumerate() {
                if ri != 1 || ci != 1 {
                    sum += i64::from(w.flat[b][r * width + c]);
                }
            }
        }
        let centre = i64::from(w.csf[b][i * width + j]).abs();
        sum += if scale0 {
            i64::from(((8738 * centre + 2048) >> 12) as i16)
        } else {
            (286331153 * centre + NEG_HALF_Q32) >> 32
        };
    }
    sum
}

/// The cube of one masked coefficient at scale 0 (band `b`): `x = rst·i_rf`
/// less `thr << 10` (d: `thr << 12`) in int32, clamped at 0; then
/// `x2 = (x·x + 2^28) >> 29` (d: `+ 2^29`, `>> 30`) and the cube
/// `(x2·x + 2^(c-1)) >> c`.
fn cube_scale0(rst: i32, fixed: u32, thr: i64, b: usize, c: u32) -> i64 {
    let x = rst.wrapping_mul(fixed as i32);
    let thr_shift = if b == 2 { 12 } else { 10 };
    let x = i64::from(
        x.wrapping_abs()
            .wrapping_sub((thr as i32).wrapping_shl(thr_shift))
            .max(0),
    );
    let (add, shift) = if b == 2 {
        (1i64 << 29, 30)
    } else {
        (1i64 << 28, 29)
    };
    let x2 = (x * x + add) >> shift;
    round_shift_i64(x2.wrapping_mul(x), c)
}

/// The cube of one masked coefficient at scales 1 to 3: `x = (rst·rf +
/// 2^27) >> 28` less `thr`, clamped at 0; then `x2 = (x·x + 2^29) >> 30` and
/// the cube `(x2·x + 2^(c-1)) >> c`.
fn cube_s123(rst: i32, fixed: u32, thr: i64, c: u32) -> i64 {
    let x = (i64::from(rst) * i64::from(fixed) + (1 << 27)) >> 28;
    let x = (x.abs() - thr).max(0);
    let x2 = (x.wrapping_mul(x) + (1 << 29)) >> 30;
    round_shift_i64(x2.wrapping_mul(x), c)
}

/// The exponent `E` of the final `2^(E - c - r)` divisor at scales 1, 2, 3.
const S123_EXPONENT: [i32; 3] = [45, 39, 36];

/// The numerator of one scale: Σ over h, v, d of `powf(sum, 1/3) +
/// powf(area / 32, 1/3)` in binary32. `restored` are the decoupled bands,
/// `weighted` the weighted impairment, both `width x height`.
pub(super) fn numerator(
    restored: &[Vec<i32>; 3],
    weighted: &Weighted,
    factors: &ScaleFactors,
    (width, height): (usize, usize),
    scale: usize,
) -> f32 {
    let win = Window::of(width, height);
    let scale0 = scale == 0;
    let c_hv = if scale0 {
        ceil_log2(width) - 4
    } else {
        ceil_log2(width)
    };
    let c = [c_hv, c_hv, if scale0 { c_hv + 1 } else { c_hv }];
    let r = ceil_log2(height);
    let mut acc = [0i64; 3];
    for i in win.top..win.bottom {
        let mut row = [0i64; 3];
        for j in win.left..win.right {
            let thr = threshold(weighted, width, height, i, j, scale0);
            for b in 0..3 {
                let rst = restored[b][i * width + j];
                row[b] += if scale0 {
                    cube_scale0(rst, factors.fixed[b], thr, b, c[b])
                } else {
                    cube_s123(rst, factors.fixed[b], thr, c[b])
                };
            }
        }
        for b in 0..3 {
            acc[b] += round_shift_i64(row[b], r);
        }
    }
    let third = (1.0f64 / 3.0) as f32;
    let area_term = ((win.area() as f64 / 32.0) as f32).powf(third);
    let mut total = 0.0f32;
    for b in 0..3 {
        let value = if scale0 {
            let exponent = if b == 2 { 57 } else { 52 } - c[b] as i32 - r as i32;
            (acc[b] as f64 / 2f64.powi(exponent)) as f32
        } else {
            let exponent = S123_EXPONENT[scale - 1] - c[b] as i32 - r as i32;
            acc[b] as f32 / 2f32.powi(exponent)
        };
        total += value.powf(third) + area_term;
    }
    total
}
