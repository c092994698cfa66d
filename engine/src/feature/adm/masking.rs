//! Contrast masking, the numerator: each restored detail coefficient, weighted
//! and reduced by a threshold from the impairment around it, cubed and summed
//! (with libvmaf's per-pixel and per-row roundings), then the cube root.

use super::csf::{Weighted, NEG_HALF_Q32};
use super::dwt::mirror;
use super::factors::ScaleFactors;
use super::window::{ceil_log2, round_shift_i64, Window};

/// A pixel's own term in its masking threshold, from its weighted value
/// `c`: `|c| / 15` (scale 0: `(8738·|c| + 2048) >> 12` held in int16;
/// scales 1 to 3: `(286331153·|c| - 2^31) >> 32`).
#[inline(always)]
pub(super) fn centre_term(c: i32, scale0: bool) -> i64 {
    let centre = i64::from(c).abs();
    if scale0 {
        i64::from(((8738 * centre + 2048) >> 12) as i16)
    } else {
        (286331153 * centre + NEG_HALF_Q32) >> 32
    }
}

#[cfg(test)]
/// The masking threshold at (`i`, `j`): over h, v and d, the 8 neighbours of
/// the flattened band (rows and columns mirrored: -1 reads 1, n reads n - 1)
/// plus the centre's `|csf| / 15` (scale 0: `(8738·|c| + 2048) >> 12` held
/// in int16; scales 1 to 3: `(286331153·|c| - 2^31) >> 32`).
pub(super) fn threshold(
    w: &Weighted,
    width: usize,
    height: usize,
    i: usize,
    j: usize,
    scale0: bool,
) -> i64 {
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

/// The masking thresholds of one row of the window. Per row the flattened
/// bands are summed over the three rows and the three bands, for each
/// column of the window and one mirrored column each side; a pixel's
/// threshold adds three neighbouring column sums, less its own flattened
/// values, plus its [`centre_term`]s: the sum of [`threshold`]'s terms in
/// another order (int64 sums, exact).
struct Thresholds {
    /// The window's columns with one more each side, mirrored.
    columns: Vec<usize>,
    column_sums: Vec<i64>,
    /// The row's thresholds, from the window's left column.
    values: Vec<i64>,
}

impl Thresholds {
    fn new(win: &Window, width: usize) -> Self {
        let columns: Vec<usize> = (win.left as isize - 1..win.right as isize + 1)
            .map(|j| mirror(j, width))
            .collect();
        Self {
            column_sums: vec![0; columns.len()],
            columns,
            values: vec![0; win.right - win.left],
        }
    }

    /// The thresholds of row `i`.
    fn fill(
        &mut self,
        w: &Weighted,
        (width, height): (usize, usize),
        win: &Window,
        i: usize,
        scale0: bool,
    ) {
        let rows = [
            mirror(i as isize - 1, height),
            i,
            mirror(i as isize + 1, height),
        ];
        self.column_sums.fill(0);
        for flat in &w.flat {
            for r in rows {
                let row = &flat[r * width..][..width];
                for (sum, &c) in self.column_sums.iter_mut().zip(&self.columns) {
                    *sum += i64::from(row[c]);
                }
            }
        }
        for (t, sums) in self.values.iter_mut().zip(self.column_sums.windows(3)) {
            *t = sums[0] + sums[1] + sums[2];
        }
        let at = i * width + win.left..i * width + win.right;
        for b in 0..3 {
            let own = w.flat[b][at.clone()].iter().zip(&w.csf[b][at.clone()]);
            for (t, (&flat, &csf)) in self.values.iter_mut().zip(own) {
                *t += centre_term(csf, scale0) - i64::from(flat);
            }
        }
    }
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

/// The shifts `c` (per pixel, h, v, d) and `r` (per row) of one scale's
/// numerator on `width x height` bands.
fn shifts((width, height): (usize, usize), scale: usize) -> ([u32; 3], u32) {
    let scale0 = scale == 0;
    let c_hv = if scale0 {
        ceil_log2(width) - 4
    } else {
        ceil_log2(width)
    };
    let c = [c_hv, c_hv, if scale0 { c_hv + 1 } else { c_hv }];
    (c, ceil_log2(height))
}

/// The per-pixel shifts `c` of the h, v and d cubes of one scale's numerator
/// (the device passes take them as push constants).
pub(super) fn cube_shifts(size: (usize, usize), scale: usize) -> [u32; 3] {
    shifts(size, scale).0
}

/// Each row of the active window's sums of the h, v and d cubes (int64,
/// wrapping as libvmaf's sums do), top row first: the numerator's integer
/// part. `restored` are the decoupled bands, `weighted` the weighted
/// impairment, both `width x height`.
pub(super) fn numerator_rows(
    restored: &[Vec<i32>; 3],
    weighted: &Weighted,
    factors: &ScaleFactors,
    (width, height): (usize, usize),
    scale: usize,
) -> Vec<[i64; 3]> {
    let win = Window::of(width, height);
    let scale0 = scale == 0;
    let (c, _) = shifts((width, height), scale);
    let mut thresholds = Thresholds::new(&win, width);
    let mut rows = Vec::with_capacity(win.bottom - win.top);
    for i in win.top..win.bottom {
        thresholds.fill(weighted, (width, height), &win, i, scale0);
        let thresholds = &thresholds.values;
        let at = i * width + win.left..i * width + win.right;
        let mut row = [0i64; 3];
        for b in 0..3 {
            let restored = &restored[b][at.clone()];
            row[b] = restored
                .iter()
                .zip(thresholds)
                .map(|(&rst, &thr)| {
                    if scale0 {
                        cube_scale0(rst, factors.fixed[b], thr, b, c[b])
                    } else {
                        cube_s123(rst, factors.fixed[b], thr, c[b])
                    }
                })
                .fold(0i64, i64::wrapping_add);
        }
        rows.push(row);
    }
    rows
}

/// The numerator of one scale from its [`numerator_rows`]: each row rounded
/// off by `r` and summed, then Σ over h, v, d of `powf(sum, 1/3) +
/// powf(area / 32, 1/3)` in binary32.
pub(super) fn numerator_from_rows(
    rows: &[[i64; 3]],
    (width, height): (usize, usize),
    scale: usize,
) -> f32 {
    let win = Window::of(width, height);
    let (c, r) = shifts((width, height), scale);
    let mut acc = [0i64; 3];
    for row in rows {
        for b in 0..3 {
            acc[b] += round_shift_i64(row[b], r);
        }
    }
    let third = (1.0f64 / 3.0) as f32;
    let area_term = ((win.area() as f64 / 32.0) as f32).powf(third);
    let mut total = 0.0f32;
    for b in 0..3 {
        let value = if scale == 0 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The row thresholds equal the per-pixel sums, borders included
        /// (a window reaching the edges mirrors).
        #[test]
        fn row_thresholds_equal_per_pixel_sums(
            width in 3usize..30,
            height in 3usize..20,
            seed: u64,
            scale0: bool,
            big: bool,
        ) {
            let mut s = seed | 1;
            let mut band = || -> Vec<i32> {
                (0..width * height)
                    .map(|_| {
                        s ^= s << 13;
                        s ^= s >> 7;
                        s ^= s << 17;
                        let v = (s >> 16) as i32;
                        if big { v } else { v >> 16 }
                    })
                    .collect()
            };
            let w = Weighted {
                csf: std::array::from_fn(|_| band()),
                flat: std::array::from_fn(|_| band()),
            };
            let full = Window { top: 0, bottom: height, left: 0, right: width };
            for win in [full, Window::of(width, height)] {
                let mut t = Thresholds::new(&win, width);
                for i in win.top..win.bottom {
                    t.fill(&w, (width, height), &win, i, scale0);
                    for j in win.left..win.right {
                        prop_assert_eq!(t.values[j - win.left], threshold(&w, width, height, i, j, scale0));
                    }
                }
            }
        }
    }
}
