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

/// Scale 0's sum of `|b|³` over the window of band `band`: per row in
/// uint64, each row rounded off by `shift`.
fn sum_cubes_scale0(band: &[i32], width: usize, win: &Window, shift: u32) -> u64 {
    let mut acc = 0u64;
    for i in win.top..win.bottom {
        let row: u64 = band[i * width + win.left..i * width + win.right]
            .iter()
            .map(|&v| {
                let a = u64::from(v.unsigned_abs());
                a * a * a
            })
            .sum();
        acc += round_shift_u64(row, shift);
    }
    acc
}

/// Scales 1 to 3: per pixel `((|b|² + 2^s) >> s) · |b|` (the "rounding"
/// constant equals the divisor), rounded off by `c`; per row rounded off by `r`.
fn sum_cubes_s123(band: &[i32], width: usize, win: &Window, s: u32, c: u32, r: u32) -> u64 {
    let mut acc = 0u64;
    for i in win.top..win.bottom {
        let row: u64 = band[i * width + win.left..i * width + win.right]
            .iter()
            .map(|&v| {
                let a = u64::from(v.unsigned_abs());
                round_shift_u64(((a * a + (1u64 << s)) >> s) * a, c)
            })
            .sum();
        acc += round_shift_u64(row, r);
    }
    acc
}

/// The denominator of one scale from the reference's bands: Σ over h, v, d
/// of `powf(sum · rf³, 1/3) + powf(area / 32, 1/3)` in binary32.
pub(super) fn denominator(reference: &Bands, factors: &ScaleFactors, scale: usize) -> f32 {
    let (width, height) = (reference.width, reference.height);
    let win = Window::of(width, height);
    let third = (1.0f64 / 3.0) as f32;
    let area_term = ((win.area() as f64 / 32.0) as f32).powf(third);
    let mut total = 0.0f32;
    for b in 0..3 {
        let band = &reference.hvd[b];
        let scaled = if scale == 0 {
            let shift = (ceil_log2(win.area()) as i32 - 20).max(0) as u32;
            let acc = sum_cubes_scale0(band, width, &win, shift);
            acc as f64 / 2f64.powi(18 - shift as i32)
        } else {
            let (c, r) = (ceil_log2(width), ceil_log2(height));
            let s = S123_SQUARE_SHIFT[scale - 1];
            let acc = sum_cubes_s123(band, width, &win, s, c, r);
            acc as f64 / 2f64.powi(S123_EXPONENT[scale - 1] - c as i32 - r as i32)
        };
        let csf = scaled * f64::from(factors.float[b]).powf(3.0);
        total += (csf as f32).powf(third) + area_term;
    }
    total
}
