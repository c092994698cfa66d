//! Stage 3: box decimation by the scale factor, as libvmaf's `iqa_decimate`
//! with its `scale x scale` low-pass kernel does it.
//!
//! Output (x, y) filters the source around (x * s, y * s) with offsets
//! `-s/2 ..= s/2 - (s even)` in each direction, mirroring outside the plane
//! (`i < 0 -> -1 - i`, `i >= n -> 2n - 1 - i`). Each term is the fp32 product
//! `f32(sample * tap)` with `tap = f32(1 / (s * s))`, added to an fp64 sum that
//! starts at 0.0, rows outer and columns inner; the result is one fp32 rounding
//! of that sum.
//!
//! This is the literal fp64 sum in libvmaf's order for every pixel and any
//! scale (for scale <= 128 the sum is exact, so any order would give the same
//! value; above that the literal order is what makes it equal to libvmaf). Speed
//! comes from working a whole output row at once: for each source row of the
//! window (in order) the fp32 products of the entire mirror-padded row are formed
//! in one vectorised loop, then each output pixel adds its window's products to
//! its running sum in column order. Pixels' sums are independent, so they overlap.

use super::samples::{check_view, convert_row, sample_divisor};
use super::scale::checked_scaled_size;
use super::Plane;
use crate::{LumaView, Result};

/// The fp32 tap libvmaf's low-pass kernel holds: `1.0f / (scale * scale)`.
pub fn decimation_tap(scale: u32) -> f32 {
    1.0f32 / ((scale as u64 * scale as u64) as f32)
}

/// libvmaf's symmetric boundary: one reflection about each edge (`-1 -> 0`,
/// `n -> n - 1`). Every index a checked decimation uses is within one reflection;
/// anything further is clamped rather than read out of bounds.
#[inline]
pub fn mirror(i: i64, n: usize) -> usize {
    let n = n as i64;
    let m = if i < 0 {
        -1 - i
    } else if i >= n {
        2 * n - 1 - i
    } else {
        i
    };
    m.clamp(0, (n - 1).max(0)) as usize
}

/// Decimates a plane by `scale` (a copy at scale 1).
///
/// Fails with [`crate::Error::PlaneTooSmall`] when the result would be smaller
/// than the 11 x 11 SSIM window, before doing any work.
pub fn decimate(plane: &Plane, scale: u32) -> Result<Plane> {
    plane.check()?;
    checked_scaled_size(plane.width, plane.height, scale)?;
    if scale <= 1 {
        return Ok(plane.clone());
    }
    Ok(decimate_rows(
        plane.width,
        plane.height,
        scale,
        |y, dst: &mut [f32]| dst.copy_from_slice(plane.row(y)),
    ))
}

/// Converts a luma view to fp32 and decimates it by `scale` in one pass, without
/// materialising the full-size fp32 plane. Gives exactly
/// `decimate(&luma_to_plane(view)?, scale)`.
pub fn decimate_luma(view: &LumaView<'_>, scale: u32) -> Result<Plane> {
    check_view(view)?;
    let divisor = sample_divisor(view.bit_depth)?;
    checked_scaled_size(view.width, view.height, scale)?;
    let width = view.width;
    let height = view.height;
    if scale <= 1 {
        let mut plane = Plane::zeroed(width, height);
        for y in 0..height as usize {
            convert_row(view, y, divisor, plane.row_mut(y));
        }
        return Ok(plane);
    }
    Ok(decimate_rows(width, height, scale, |y, dst: &mut [f32]| {
        convert_row(view, y, divisor, dst)
    }))
}

/// The decimation proper, on a `width` x `height` source whose row `y` the
/// closure writes into a `width`-long slice. The caller has checked that the
/// result is at least 11 x 11 (so `width >= 10 * scale` and every mirrored index
/// is one reflection away).
fn decimate_rows(
    width: u32,
    height: u32,
    scale: u32,
    mut read_row: impl FnMut(usize, &mut [f32]),
) -> Plane {
    let (sw, sh) = super::scale::scaled_size(width, height, scale);
    let s = scale as usize;
    let w = width as usize;
    let h = height as usize;
    let sw_us = sw as usize;
    let off = (s / 2) as i64;
    let tap = decimation_tap(scale);

    // Padded column i is source column mirror(i - s/2), so the window of output
    // x is padded columns x * s .. x * s + s.
    let padded_len = sw_us * s;
    let cols: Vec<usize> = (0..padded_len).map(|i| mirror(i as i64 - off, w)).collect();
    // Padded columns [left, right) are source columns [0, right - left): a plain
    // copy. Only the few columns outside it (at most s/2 on each side) mirror.
    let left = (off as usize).min(padded_len);
    let right = (off as usize + w).min(padded_len);
    let mut line = vec![0.0f32; w];
    let mut products = vec![0.0f64; padded_len];
    let mut acc = vec![0.0f64; sw_us];
    let mut out = Plane::zeroed(sw, sh);

    for y in 0..sh as usize {
        acc.fill(0.0);
        for dy in 0..s {
            let src_y = mirror((y * s) as i64 - off + dy as i64, h);
            read_row(src_y, &mut line);
            // The fp32 products of the whole (mirror-padded) row, widened, then
            // each window's terms added to its pixel's sum in column order.
            row_products(&line, &cols, left, right, tap, &mut products);
            add_windows(&products, &mut acc, s);
        }
        // libvmaf returns (float)(sum * 1.0); multiplying by one changes nothing.
        for (o, &a) in out.row_mut(y).iter_mut().zip(&acc) {
            *o = a as f32;
        }
    }
    out
}

super::simd::dispatch_avx2! {
    /// `products[i] = f64(f32(padded[i] * tap))` for the mirror-padded row
    /// (see [`row_products_portable`]), on the widest vectors the CPU has.
    fn row_products / row_products_avx2 => row_products_portable(
        line: &[f32],
        cols: &[usize],
        left: usize,
        right: usize,
        tap: f32,
        products: &mut [f64],
    )
}

/// The portable kernel of [`row_products`]: padded columns below `left` and from
/// `right` on read `line[cols[i]]` (mirrored), the rest read `line[i - left]`.
#[inline(always)]
fn row_products_portable(
    line: &[f32],
    cols: &[usize],
    left: usize,
    right: usize,
    tap: f32,
    products: &mut [f64],
) {
    for (p, &c) in products[..left].iter_mut().zip(&cols[..left]) {
        *p = (line[c] * tap) as f64;
    }
    for (p, &v) in products[left..right].iter_mut().zip(&line[..right - left]) {
        *p = (v * tap) as f64;
    }
    for (p, &c) in products[right..].iter_mut().zip(&cols[right..]) {
        *p = (line[c] * tap) as f64;
    }
}

super::simd::dispatch_avx2! {
    /// Adds each window's terms to its pixel's sum (see
    /// [`add_windows_portable`]), on the widest vectors the CPU has.
    fn add_windows / add_windows_avx2 => add_windows_portable(products: &[f64], acc: &mut [f64], s: usize)
}

/// Adds window `x` of `products` (`s` consecutive terms, in order) to `acc[x]`
/// for every output pixel `x` of the row. The per-pixel chains are independent,
/// so they overlap; common scales get a loop the compiler fully unrolls.
#[inline(always)]
fn add_windows_portable(products: &[f64], acc: &mut [f64], s: usize) {
    match s {
        2 => add_windows_const::<2>(products, acc),
        3 => add_windows_const::<3>(products, acc),
        4 => add_windows_const::<4>(products, acc),
        5 => add_windows_const::<5>(products, acc),
        6 => add_windows_const::<6>(products, acc),
        7 => add_windows_const::<7>(products, acc),
        8 => add_windows_const::<8>(products, acc),
        _ => {
            for (a, win) in acc.iter_mut().zip(products.chunks_exact(s)) {
                let mut v = *a;
                for &p in win {
                    v += p;
                }
                *a = v;
            }
        }
    }
}

#[inline(always)]
fn add_windows_const<const S: usize>(products: &[f64], acc: &mut [f64]) {
    for (a, win) in acc.iter_mut().zip(products.chunks_exact(S)) {
        let mut v = *a;
        for &p in win {
            v += p;
        }
        *a = v;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Error;

    /// A straightforward per-pixel decimation, written to mirror the reference
    /// description line by line, to check the row-at-a-time version against.
    pub(crate) fn decimate_literal(p: &Plane, scale: u32) -> Plane {
        let (sw, sh) = crate::cpu::scale::scaled_size(p.width, p.height, scale);
        let s = scale as i64;
        let tap = decimation_tap(scale);
        let lo = -(s / 2);
        let hi = s / 2 - if s % 2 == 0 { 1 } else { 0 };
        let mut out = Plane::zeroed(sw, sh);
        for y in 0..sh as i64 {
            for x in 0..sw as i64 {
                let mut sum = 0.0f64;
                for v in lo..=hi {
                    for u in lo..=hi {
                        let sx = mirror(x * s + u, p.width as usize);
                        let sy = mirror(y * s + v, p.height as usize);
                        sum += (p.get(sx, sy) * tap) as f64;
                    }
                }
                out.data[(y * sw as i64 + x) as usize] = (sum * 1.0) as f32;
            }
        }
        out
    }

    /// A deterministic plane of 8-bit-like samples with high-bit-depth fractions.
    pub(crate) fn pattern(width: u32, height: u32, seed: u64) -> Plane {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let data = (0..width as usize * height as usize)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % 65536) as f32 / 256.0
            })
            .collect();
        Plane {
            width,
            height,
            data,
        }
    }

    #[test]
    fn taps_are_fp32_reciprocals() {
        assert_eq!(decimation_tap(2), 0.25);
        assert_eq!(decimation_tap(4), 0.0625);
        assert_eq!(decimation_tap(3), 1.0f32 / 9.0f32);
    }

    #[test]
    fn mirror_reflects_once_about_each_edge() {
        assert_eq!(mirror(-1, 10), 0);
        assert_eq!(mirror(-3, 10), 2);
        assert_eq!(mirror(0, 10), 0);
        assert_eq!(mirror(9, 10), 9);
        assert_eq!(mirror(10, 10), 9);
        assert_eq!(mirror(12, 10), 7);
        // Beyond one reflection (never used by a checked decimation): clamped.
        assert_eq!(mirror(-30, 10), 9);
        assert_eq!(mirror(5, 0), 0);
    }

    #[test]
    fn row_version_equals_literal_for_many_scales_and_odd_sizes() {
        for scale in [2u32, 3, 4, 5, 6, 7, 8, 9, 10, 13, 16, 17] {
            for (dw, dh) in [(0, 0), (1, 0), (0, 1), (1, 1), (3, 2)] {
                let w = 11 * scale + dw;
                let h = 11 * scale + dh;
                let p = pattern(w, h, (scale * 100 + dw * 10 + dh) as u64);
                let fast = decimate(&p, scale).unwrap();
                let slow = decimate_literal(&p, scale);
                assert_eq!(fast.width, slow.width);
                assert_eq!(fast.height, slow.height);
                assert_eq!(
                    fast.to_le_bytes(),
                    slow.to_le_bytes(),
                    "scale {scale}, {w}x{h}"
                );
            }
        }
    }

    #[test]
    fn mirrored_edges_use_reflected_samples() {
        // Scale 4 on a plane whose column 0 is 100 and the rest 0: output column
        // 0 reads source columns -2, -1, 0, 1, mirrored to 1, 0, 0, 1, so two of
        // its four columns are column 0, in each of its four rows.
        let mut p = Plane::zeroed(44, 44);
        for y in 0..44 {
            p.data[y * 44] = 100.0;
        }
        let d = decimate(&p, 4).unwrap();
        assert_eq!(d.get(0, 0), 2.0 * 4.0 * (100.0 * 0.0625));
        assert_eq!(d.get(1, 0), 0.0);
    }

    #[test]
    fn flat_planes_stay_flat() {
        let p = Plane {
            width: 70,
            height: 57,
            data: vec![37.25; 70 * 57],
        };
        for scale in [2, 4, 5] {
            let d = decimate(&p, scale).unwrap();
            let expect = decimate_literal(&p, scale);
            assert_eq!(d, expect);
        }
        // Power-of-two taps are exact: a flat plane stays exactly flat.
        assert!(decimate(&p, 4).unwrap().data.iter().all(|&v| v == 37.25));
    }

    #[test]
    fn luma_path_equals_plane_path() {
        for depth in [8u32, 10, 16] {
            let (w, h) = (67u32, 49u32);
            let bps = if depth == 8 { 1 } else { 2 };
            let mut bytes = vec![0u8; (w * h) as usize * bps];
            let mut st = 12345u32 + depth;
            for b in bytes.iter_mut() {
                st = st.wrapping_mul(1_103_515_245).wrapping_add(12345);
                *b = (st >> 16) as u8;
            }
            if depth == 10 {
                for pair in bytes.chunks_exact_mut(2) {
                    pair[1] &= 3;
                }
            }
            let view = LumaView::new(w, h, depth, w as usize * bps, &bytes).unwrap();
            let full = crate::cpu::samples::luma_to_plane(&view).unwrap();
            for scale in [1, 2, 3, 4] {
                assert_eq!(
                    decimate_luma(&view, scale).unwrap(),
                    decimate(&full, scale).unwrap(),
                    "depth {depth} scale {scale}"
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(64))]

        /// Random planes of random size at random scales (odd and even sides,
        /// scales with inexact taps, scales above 8 on the generic path).
        #[test]
        fn row_version_equals_literal_on_random_planes(
            scale in 2u32..24,
            extra_w in 0u32..40,
            extra_h in 0u32..40,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let w = 10 * scale + extra_w;
            let h = 10 * scale + extra_h;
            let p = pattern(w, h, seed);
            match decimate(&p, scale) {
                Ok(fast) => proptest::prop_assert_eq!(
                    fast.to_le_bytes(),
                    decimate_literal(&p, scale).to_le_bytes()
                ),
                Err(Error::PlaneTooSmall { scaled_width, scaled_height, .. }) => {
                    proptest::prop_assert!(scaled_width < 11 || scaled_height < 11)
                }
                Err(e) => proptest::prop_assert!(false, "unexpected error {e}"),
            }
        }
    }

    #[test]
    fn too_small_results_are_refused() {
        let p = pattern(40, 80, 1);
        assert!(matches!(
            decimate(&p, 4),
            Err(Error::PlaneTooSmall {
                scaled_width: 10,
                scaled_height: 20,
                ..
            })
        ));
    }
}
