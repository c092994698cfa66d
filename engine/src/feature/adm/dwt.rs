//! The four-level integer Daubechies-2 wavelet: scale 0 from the picture
//! (results stored as int16), scales 1 to 3 from the previous scale's
//! approximation band (int64 sums stored as int32), with libvmaf's asymmetric
//! border mirror.

use crate::LumaView;

/// The low-pass taps (sum 46342, about 2^15.5).
const LO: [i64; 4] = [15826, 27411, 7345, -4240];
/// The high-pass taps.
const HI: [i64; 4] = [-4240, -7345, 27411, -15826];
/// The low-pass taps' sum: the DC gain removed from scale 0's vertical pass.
const LO_SUM: i64 = 46342;

/// The four sub-bands of one scale, row-major, `width x height` each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Bands {
    /// Samples per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The approximation (low-low) band: the next scale's input.
    pub a: Vec<i32>,
    /// The detail bands `[h, v, d]`: h is vertically high-passed and
    /// horizontally low-passed, v the other way round, d high-passed both ways.
    pub hvd: [Vec<i32>; 3],
}

/// Where input `index` (from `2i - 1` to `2i + 2`) reads in a line of `n`
/// samples: `-1` reads 1, `n` reads `n - 1` and `n + 1` reads `n - 2`.
#[inline]
pub(super) fn mirror(index: isize, n: usize) -> usize {
    if index < 0 {
        index.unsigned_abs()
    } else if index as usize >= n {
        2 * n - index as usize - 1
    } else {
        index as usize
    }
}

/// The four input indices of output sample `i` in a line of `n` samples.
#[inline]
fn taps_at(i: usize, n: usize) -> [usize; 4] {
    std::array::from_fn(|k| mirror(2 * i as isize - 1 + k as isize, n))
}

/// `Σ taps[k] · line(at[k])` in int64.
#[inline]
fn filter(taps: &[i64; 4], at: &[usize; 4], line: impl Fn(usize) -> i64) -> i64 {
    taps.iter().zip(at).map(|(t, &i)| t * line(i)).sum()
}

/// Rounds `sum` off by `shift` bits with `add` (libvmaf's `(sum + add) >> shift`).
#[inline]
fn round_shift(sum: i64, add: i64, shift: u32) -> i64 {
    (sum + add) >> shift
}

/// The horizontal pass shared by every scale: from the vertically filtered
/// rows `lo` and `hi` (each `width` wide) to one output row of each band.
/// `store` turns a rounded int64 into the stored value (int16 or int32 wrap).
#[allow(clippy::too_many_arguments)] // one output row of four bands and the rounding
fn horizontal(
    lo: &[i64],
    hi: &[i64],
    out_row: usize,
    bands: &mut Bands,
    add: i64,
    shift: u32,
    store: fn(i64) -> i32,
) {
    let n = lo.len();
    for j in 0..bands.width {
        let at = taps_at(j, n);
        let o = out_row * bands.width + j;
        bands.a[o] = store(round_shift(filter(&LO, &at, |i| lo[i]), add, shift));
        bands.hvd[1][o] = store(round_shift(filter(&HI, &at, |i| lo[i]), add, shift));
        bands.hvd[0][o] = store(round_shift(filter(&LO, &at, |i| hi[i]), add, shift));
        bands.hvd[2][o] = store(round_shift(filter(&HI, &at, |i| hi[i]), add, shift));
    }
}

/// Empty bands of half (rounded up) the given size.
fn half_size(width: usize, height: usize) -> Bands {
    let (w, h) = (width.div_ceil(2), height.div_ceil(2));
    Bands {
        width: w,
        height: h,
        a: vec![0; w * h],
        hvd: std::array::from_fn(|_| vec![0; w * h]),
    }
}

/// A value stored as int16 (C's wrapping conversion).
#[inline]
fn store_i16(v: i64) -> i32 {
    i32::from(v as i16)
}

/// A value stored as int32 (C's wrapping conversion).
#[inline]
fn store_i32(v: i64) -> i32 {
    v as i32
}

/// Scale 0 from the picture at `bpc` bits: vertical int32 sums (the low band
/// less `46342 · 2^(bpc-1)`), `(+2^(bpc-1)) >> bpc` to int16; horizontal
/// `(+32768) >> 16` to int16.
pub(super) fn scale0(picture: &LumaView<'_>) -> Bands {
    let (w, h) = (picture.width as usize, picture.height as usize);
    let bpc = picture.bit_depth;
    let half = 1i64 << (bpc - 1);
    let mut bands = half_size(w, h);
    let mut lo = vec![0i64; w];
    let mut hi = vec![0i64; w];
    for i in 0..bands.height {
        let rows = taps_at(i, h);
        for x in 0..w {
            let px = |y: usize| i64::from(picture.sample(x, y));
            // int32 sums in C; wrap as it does (only 16-bit input can overflow).
            let l = (filter(&LO, &rows, px) - LO_SUM * half) as i32;
            let g = filter(&HI, &rows, px) as i32;
            lo[x] = store_i16(((l.wrapping_add(half as i32)) >> bpc).into()).into();
            hi[x] = store_i16(((g.wrapping_add(half as i32)) >> bpc).into()).into();
        }
        horizontal(&lo, &hi, i, &mut bands, 32768, 16, store_i16);
    }
    bands
}

/// The vertical and horizontal `(add, shift)` of scales 1, 2 and 3.
const S123_ROUNDING: [((i64, u32), (i64, u32)); 3] = [
    ((0, 0), (16384, 15)),
    ((32768, 16), (32768, 16)),
    ((32768, 16), (16384, 15)),
];

/// Scale `scale` (1 to 3) from the previous scale's approximation band.
pub(super) fn scale123(prev: &Bands, scale: usize) -> Bands {
    let ((v_add, v_shift), (h_add, h_shift)) = S123_ROUNDING[scale - 1];
    let (w, h) = (prev.width, prev.height);
    let mut bands = half_size(w, h);
    let mut lo = vec![0i64; w];
    let mut hi = vec![0i64; w];
    for i in 0..bands.height {
        let rows = taps_at(i, h);
        for x in 0..w {
            let px = |y: usize| i64::from(prev.a[y * w + x]);
            lo[x] = store_i32(round_shift(filter(&LO, &rows, px), v_add, v_shift)).into();
            hi[x] = store_i32(round_shift(filter(&HI, &rows, px), v_add, v_shift)).into();
        }
        horizontal(&lo, &hi, i, &mut bands, h_add, h_shift, store_i32);
    }
    bands
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_is_asymmetric() {
        assert_eq!(mirror(-1, 10), 1);
        assert_eq!(mirror(0, 10), 0);
        assert_eq!(mirror(9, 10), 9);
        assert_eq!(mirror(10, 10), 9);
        assert_eq!(mirror(11, 10), 8);
    }

    #[test]
    fn flat_picture_has_no_detail() {
        let bytes = vec![200u8; 40 * 36];
        let view = LumaView::new(40, 36, 8, 40, &bytes).unwrap();
        let b = scale0(&view);
        assert_eq!((b.width, b.height), (20, 18));
        assert!(b.hvd.iter().all(|band| band.iter().all(|&v| v == 0)));
    }
}
