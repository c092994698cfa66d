//! The plain per-sample wavelet the vectorised passes of `dwt` replaced,
//! kept for the tests: int64 sums straight from the definitions, with the
//! mirror inside the loops. The tests check that both give the same bands on
//! random pictures of every bit depth and of odd sizes.

use super::dwt::{half_size, taps_at, Bands};
use crate::LumaView;

/// The low-pass taps (sum 46342, about 2^15.5).
const LO: [i64; 4] = [15826, 27411, 7345, -4240];
/// The high-pass taps.
const HI: [i64; 4] = [-4240, -7345, 27411, -15826];
/// The low-pass taps' sum: the DC gain removed from scale 0's vertical pass.
const LO_SUM: i64 = 46342;

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
    use crate::feature::adm::dwt;
    use crate::LumaFrame;
    use proptest::prelude::*;

    /// Both wavelets of a random picture, every scale.
    fn compare(width: u32, height: u32, bits: u32, seed: u64) {
        let mut f = LumaFrame::zeroed(width, height, bits);
        let bytes = if bits == 8 { 1 } else { 2 };
        let mut s = seed | 1;
        for px in f.bytes.chunks_exact_mut(bytes) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let v = s % (1 << bits);
            px.copy_from_slice(&v.to_le_bytes()[..bytes]);
        }
        let (mut got, mut want) = (dwt::scale0(&f.view()), scale0(&f.view()));
        assert_eq!(got, want, "scale 0");
        for scale in 1..4 {
            (got, want) = (dwt::scale123(&got, scale), scale123(&want, scale));
            assert_eq!(got, want, "scale {scale}");
        }
    }

    #[test]
    fn passes_equal_plain_loops_at_full_scale() {
        for bits in [8, 10, 12, 16] {
            compare(67, 35, bits, 3);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn passes_equal_plain_loops(
            width in 33u32..90,
            height in 33u32..60,
            bits in prop::sample::select(vec![8u32, 10, 12, 16]),
            seed: u64,
        ) {
            compare(width, height, bits, seed);
        }
    }
}
