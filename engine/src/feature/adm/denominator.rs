//! The denominator: the reference's detail bands, cubed and summed over the
//! active window (libvmaf's per-row roundings), weighted by the cube of the
//! contrast sensitivity factor, then the cube root.

use super::dwt::Bands;
use super::factors::ScaleFactors;
use super::window::{ceil_log2, round_shift_u64, Window};

/// The per-pixel shift `s` of `((|b|² + 2^s) >> s) · |b|` at scales 1, 2, 3.
const S123_SQUARE_SHIFT: [u32; 3] = [31, 30, 31];
/// The exponent `E` of the final `2^(E - c - r)` divisor at scales 1, 2, 3.
const S123_EXPONENT: [i32; 3] = [32, 27, 23];

/// A reference detail coefficient's cube at scale 0, `|b|³` (uint64).
#[inline]
fn cube_scale0(v: i32) -> u64 {
    let a = u64::from(v.unsigned_abs());
    a * a * a
}

/// A reference detail coefficient's cube at scales 1 to 3: `((|b|² + 2^s)
/// >> s) · |b|` (the "rounding" constant equals the divisor), rounded off by
/// `c`.
#[inline]
fn cube_s123(v: i32, s: u32, c: u32) -> u64 {
    let a = u64::from(v.unsigned_abs());
    round_shift_u64(((a * a + (1u64 << s)) >> s).wrapping_mul(a), c)
}

/// The per-pixel shifts `(s, c)` of the cubes at scale `scale` (1 to 3) on
/// bands `width` wide (the device passes take them as push constants).
pub(super) fn cube_shifts(width: usize, scale: usize) -> (u32, u32) {
    (S123_SQUARE_SHIFT[scale - 1], ceil_log2(width))
}

/// Each row of the active window's sums of the reference's h, v and d cubes
/// (uint64, wrapping), top row first: the denominator's integer part.
pub(super) fn denominator_rows(reference: &Bands, scale: usize) -> Vec<[u64; 3]> {
    let (width, height) = (reference.width, reference.height);
    let win = Window::of(width, height);
    (win.top..win.bottom)
        .map(|i| {
            std::array::from_fn(|b| {
                let row = &reference.hvd[b][i * width + win.left..i * width + win.right];
                if scale == 0 {
                    row.iter()
                        .map(|&v| cube_scale0(v))
                        .fold(0, u64::wrapping_add)
                } else {
                    let (s, c) = cube_shifts(width, scale);
                    row.iter()
                        .map(|&v| cube_s123(v, s, c))
                        .fold(0, u64::wrapping_add)
                }
            })
        })
        .collect()
}

/// The denominator of one scale from its [`denominator_rows`] on
/// `width x height` bands: each row rounded off (scale 0 by
/// `max(ceil(log2(area)) - 20, 0)`, scales 1 to 3 by `ceil(log2(height))`) and
/// summed, then Σ over h, v, d of `powf(sum · rf³, 1/3) + powf(area / 32,
/// 1/3)` in binary32.
pub(super) fn denominator_from_rows(
    rows: &[[u64; 3]],
    (width, height): (usize, usize),
    factors: &ScaleFactors,
    scale: usize,
) -> f32 {
    let win = Window::of(width, height);
    let third = (1.0f64 / 3.0) as f32;
    let area_term = ((win.area() as f64 / 32.0) as f32).powf(third);
    let shift0 = (ceil_log2(win.area()) as i32 - 20).max(0) as u32;
    let (c, r) = (ceil_log2(width), ceil_log2(height));
    let mut total = 0.0f32;
    for b in 0..3 {
        let round = if scale == 0 { shift0 } else { r };
        let acc: u64 = rows.iter().map(|row| round_shift_u64(row[b], round)).sum();
        let scaled = if scale == 0 {
            acc as f64 / 2f64.powi(18 - shift0 as i32)
        } else {
            acc as f64 / 2f64.powi(S123_EXPONENT[scale - 1] - c as i32 - r as i32)
        };
        let csf = scaled * f64::from(factors.float[b]).powf(3.0);
        total += (csf as f32).powf(third) + area_term;
    }
    total
}
