//! The four-level integer Daubechies-2 wavelet: scale 0 from the picture
//! (results stored as int16), scales 1 to 3 from the previous scale's
//! approximation band (int64 sums stored as int32), with libvmaf's asymmetric
//! border mirror.

use super::pool;
use crate::feature::rows::{rows_8, widen_16, Rows, Sample, LANES};
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

impl Bands {
    /// Gives the bands' buffers back for reuse.
    pub fn recycle(self) {
        let [h, v, d] = self.hvd;
        pool::give([self.a, h, v, d]);
    }
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
pub(super) fn taps_at(i: usize, n: usize) -> [usize; 4] {
    std::array::from_fn(|k| mirror(2 * i as isize - 1 + k as isize, n))
}

/// Bands of half (rounded up) the given size, their values unspecified
/// (the passes write every one).
pub(super) fn half_size(width: usize, height: usize) -> Bands {
    let (w, h) = (width.div_ceil(2), height.div_ceil(2));
    Bands {
        width: w,
        height: h,
        a: pool::filled_later(w * h),
        hvd: std::array::from_fn(|_| pool::filled_later(w * h)),
    }
}

/// A vertically filtered line mirrored one sample before its start and two
/// past its end (`pad[i + 1]` reads input `i`, for `i` from -1 to `n + 1`),
/// split into its even and odd padded positions: output `j`'s four taps read
/// `even[j]`, `odd[j]`, `even[j + 1]`, `odd[j + 1]`.
struct Split<T> {
    pad: Vec<T>,
    even: Vec<T>,
    odd: Vec<T>,
}

impl<T: Copy + Default> Split<T> {
    /// Buffers for lines of `n` samples.
    fn new(n: usize) -> Self {
        let outputs = n.div_ceil(2);
        Self {
            pad: vec![T::default(); n + 3],
            even: vec![T::default(); outputs + 1],
            odd: vec![T::default(); outputs + 1],
        }
    }

    /// Mirrors and splits `line`.
    #[inline(always)]
    fn fill(&mut self, line: &[T]) {
        let n = line.len();
        self.pad[1..=n].copy_from_slice(line);
        for i in [-1isize, n as isize, n as isize + 1] {
            self.pad[(i + 1) as usize] = line[mirror(i, n)];
        }
        let pairs = self
            .pad
            .chunks_exact(2)
            .zip(self.even.iter_mut().zip(&mut self.odd));
        for (pair, (e, o)) in pairs {
            *e = pair[0];
            *o = pair[1];
        }
    }
}

/// The arithmetic of one scale's passes: scale 0 in (wrapping) int32, whose
/// sums fit, scales 1 to 3 in int64.
trait Arith: Copy + Default {
    /// `self + tap · v`.
    fn mac(self, tap: i64, v: Self) -> Self;
}

impl Arith for i32 {
    #[inline(always)]
    fn mac(self, tap: i64, v: i32) -> i32 {
        self.wrapping_add((tap as i32).wrapping_mul(v))
    }
}

impl Arith for i64 {
    #[inline(always)]
    fn mac(self, tap: i64, v: i64) -> i64 {
        self + tap * v
    }
}

/// The horizontal pass of `L` outputs from `j`: each band's sum through
/// `finish` (round, shift, store), into `bands` from index `at`.
#[inline(always)]
fn horizontal_lanes<T: Arith, const L: usize>(
    lo: &Split<T>,
    hi: &Split<T>,
    j: usize,
    at: usize,
    bands: &mut Bands,
    finish: impl Fn(T) -> i32,
) {
    let (lo, hi) = (window::<T, L>(lo, j), window::<T, L>(hi, j));
    // a, v, h, d: LO and HI over the low line, LO and HI over the high line.
    let mut sums = [[T::default(); L]; 4];
    for k in 0..4 {
        for l in 0..L {
            sums[0][l] = sums[0][l].mac(LO[k], lo[k][l]);
            sums[1][l] = sums[1][l].mac(HI[k], lo[k][l]);
            sums[2][l] = sums[2][l].mac(LO[k], hi[k][l]);
            sums[3][l] = sums[3][l].mac(HI[k], hi[k][l]);
        }
    }
    let [h, v, d] = &mut bands.hvd;
    for (band, sums) in [&mut bands.a, v, h, d].into_iter().zip(&sums) {
        let dst: &mut [i32; L] = (&mut band[at..at + L]).try_into().unwrap();
        for l in 0..L {
            dst[l] = finish(sums[l]);
        }
    }
}

/// The four tap windows of `L` outputs from `j`.
#[inline(always)]
fn window<T, const L: usize>(line: &Split<T>, j: usize) -> [&[T; L]; 4] {
    [
        line.even[j..j + L].try_into().unwrap(),
        line.odd[j..j + L].try_into().unwrap(),
        line.even[j + 1..j + 1 + L].try_into().unwrap(),
        line.odd[j + 1..j + 1 + L].try_into().unwrap(),
    ]
}

/// The horizontal pass of output row `i` from the split lines.
#[inline(always)]
fn horizontal_row<T: Arith>(
    lo: &Split<T>,
    hi: &Split<T>,
    i: usize,
    bands: &mut Bands,
    finish: impl Fn(T) -> i32 + Copy,
) {
    let w = bands.width;
    let body = w - w % LANES;
    for j in (0..body).step_by(LANES) {
        horizontal_lanes::<T, LANES>(lo, hi, j, i * w + j, bands, finish);
    }
    for j in body..w {
        horizontal_lanes::<T, 1>(lo, hi, j, i * w + j, bands, finish);
    }
}

/// The vertical pass of `L` columns from `x`: the four source rows' samples
/// (top first, read through `load`) filtered with LO and HI, each sum then
/// through `finish`.
#[inline(always)]
fn vertical_lanes<S: Copy, T: Arith, const L: usize>(
    rows: &[&[S]; 4],
    x: usize,
    (load, finish): (impl Fn(S) -> T, impl Fn(T, bool) -> T),
    lo: &mut [T],
    hi: &mut [T],
) {
    let mut sums = [[T::default(); L]; 2];
    for k in 0..4 {
        let src: &[S; L] = rows[k][x..x + L].try_into().unwrap();
        for l in 0..L {
            let p = load(src[l]);
            sums[0][l] = sums[0][l].mac(LO[k], p);
            sums[1][l] = sums[1][l].mac(HI[k], p);
        }
    }
    let lo: &mut [T; L] = (&mut lo[x..x + L]).try_into().unwrap();
    let hi: &mut [T; L] = (&mut hi[x..x + L]).try_into().unwrap();
    for l in 0..L {
        lo[l] = finish(sums[0][l], true);
        hi[l] = finish(sums[1][l], false);
    }
}

/// [`vertical_lanes`] over a whole row.
#[inline(always)]
fn vertical_row<S: Copy, T: Arith>(
    rows: &[&[S]; 4],
    pass: (impl Fn(S) -> T + Copy, impl Fn(T, bool) -> T + Copy),
    lo: &mut [T],
    hi: &mut [T],
) {
    let w = lo.len();
    let body = w - w % LANES;
    for x in (0..body).step_by(LANES) {
        vertical_lanes::<S, T, LANES>(rows, x, pass, lo, hi);
    }
    for x in body..w {
        vertical_lanes::<S, T, 1>(rows, x, pass, lo, hi);
    }
}

/// A value stored as int16 (C's wrapping conversion).
#[inline(always)]
fn store_i16(v: i32) -> i32 {
    i32::from(v as i16)
}

/// Scale 0 from the picture at `bpc` bits: vertical int32 sums (the low band
/// less `46342 · 2^(bpc-1)`, wrapping as C's int32 does: only 16-bit input
/// can overflow), `(+2^(bpc-1)) >> bpc` to int16; horizontal
/// `(+32768) >> 16` to int16 (those sums of int16 values fit in int32).
pub(super) fn scale0(picture: &LumaView<'_>) -> Bands {
    let (w, h) = (picture.width as usize, picture.height as usize);
    let mut bands = half_size(w, h);
    if picture.bit_depth == 8 {
        scale0_8(&rows_8(picture), picture.bit_depth, &mut bands);
    } else {
        let mut wide = Vec::new();
        widen_16(picture, &mut wide);
        let rows = Rows {
            samples: &wide,
            stride: w,
            width: w,
            height: h,
        };
        scale0_16(&rows, picture.bit_depth, &mut bands);
    }
    bands
}

/// [`scale0`] of the rows `src` into `bands`.
#[inline(always)]
fn scale0_rows<S: Sample>(src: &Rows<'_, S>, bpc: u32, bands: &mut Bands) {
    let (w, h) = (src.width, src.height);
    let half = 1i32 << (bpc - 1);
    let offset = (LO_SUM as i32).wrapping_mul(half);
    let (mut lo, mut hi) = (vec![0i32; w], vec![0i32; w]);
    let (mut lo_split, mut hi_split) = (Split::new(w), Split::new(w));
    for i in 0..bands.height {
        let rows = taps_at(i, h).map(|r| src.row(r));
        let load = |p: S| p.wide() as i32;
        // The low band less the DC gain, then both rounded to int16.
        let finish = |s: i32, low: bool| {
            let s = if low { s.wrapping_sub(offset) } else { s };
            store_i16(s.wrapping_add(half) >> bpc)
        };
        vertical_row(&rows, (load, finish), &mut lo, &mut hi);
        lo_split.fill(&lo);
        hi_split.fill(&hi);
        horizontal_row(&lo_split, &hi_split, i, bands, |s: i32| {
            store_i16((s + 32768) >> 16)
        });
    }
}

/// The vertical and horizontal `(add, shift)` of scales 1, 2 and 3.
const S123_ROUNDING: [((i64, u32), (i64, u32)); 3] = [
    ((0, 0), (16384, 15)),
    ((32768, 16), (32768, 16)),
    ((32768, 16), (16384, 15)),
];

/// Scale `scale` (1 to 3) from the previous scale's approximation band:
/// int64 sums, rounded, stored as int32 (C's wrapping conversion).
#[inline(always)]
fn scale123_portable(prev: &Bands, scale: usize, bands: &mut Bands) {
    let ((v_add, v_shift), (h_add, h_shift)) = S123_ROUNDING[scale - 1];
    let (w, h) = (prev.width, prev.height);
    let mut lo = vec![0i64; w];
    let mut hi = vec![0i64; w];
    let (mut lo_split, mut hi_split) = (Split::new(w), Split::new(w));
    for i in 0..bands.height {
        let rows = taps_at(i, h).map(|r| &prev.a[r * w..][..w]);
        let load = i64::from;
        let finish = |s: i64, _: bool| i64::from(((s + v_add) >> v_shift) as i32);
        vertical_row(&rows, (load, finish), &mut lo, &mut hi);
        lo_split.fill(&lo);
        hi_split.fill(&hi);
        horizontal_row(&lo_split, &hi_split, i, bands, |s: i64| {
            ((s + h_add) >> h_shift) as i32
        });
    }
}

/// Scale `scale` (1 to 3) from the previous scale's approximation band.
pub(super) fn scale123(prev: &Bands, scale: usize) -> Bands {
    let mut bands = half_size(prev.width, prev.height);
    scale123_dispatch(prev, scale, &mut bands);
    bands
}

/// [`scale0_rows`] of 8-bit samples.
#[inline(always)]
fn scale0_8_portable(src: &Rows<'_, u8>, bpc: u32, bands: &mut Bands) {
    scale0_rows(src, bpc, bands);
}

/// [`scale0_rows`] of 16-bit samples.
#[inline(always)]
fn scale0_16_portable(src: &Rows<'_, u16>, bpc: u32, bands: &mut Bands) {
    scale0_rows(src, bpc, bands);
}

crate::cpu::simd::dispatch_avx2! {
    /// Scale 0 of 8-bit rows, on the widest vectors the CPU has.
    fn scale0_8 / scale0_8_avx2 => scale0_8_portable(src: &Rows<'_, u8>, bpc: u32, bands: &mut Bands)
}

crate::cpu::simd::dispatch_avx2! {
    /// Scale 0 of 16-bit rows, on the widest vectors the CPU has.
    fn scale0_16 / scale0_16_avx2 => scale0_16_portable(src: &Rows<'_, u16>, bpc: u32, bands: &mut Bands)
}

crate::cpu::simd::dispatch_avx2! {
    /// Scales 1 to 3, on the widest vectors the CPU has.
    fn scale123_dispatch / scale123_avx2 => scale123_portable(prev: &Bands, scale: usize, bands: &mut Bands)
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
