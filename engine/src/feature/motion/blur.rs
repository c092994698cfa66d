//! The per-frame blur of libvmaf 2.3.1's motion: a separable 5-tap integer
//! low-pass of one reference luma plane, on a common 16-bit scale.

use super::{check_size, MotionOptions};
use crate::feature::rows::{rows_8, widen_16, Rows, Sample, LANES};
use crate::{LumaView, Result};

/// The blur's taps, in 1/65536 (they sum to 65536).
pub const FILTER: [u32; 5] = [3571, 16004, 26386, 16004, 3571];

/// One reference frame after [`blur`]: `width * height` samples, row by row.
/// An 8-bit sample p of flat content blurs to p << 8, a 10-bit one to p << 6:
/// every bit depth lands on the same 16-bit scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlurredPlane {
    /// Samples per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The blurred samples, row after row, no padding.
    pub samples: Vec<u16>,
}

/// The index libvmaf reads for `i`, up to 2 outside `0..n`: before the start
/// it mirrors without repeating the edge (-1 reads 1, -2 reads 2); past the
/// end it mirrors repeating it (n reads n-1, n+1 reads n-2). `n >= 3`.
#[inline]
fn mirror(i: isize, n: usize) -> usize {
    if i < 0 {
        (-i) as usize
    } else if i as usize >= n {
        2 * n - i as usize - 1
    } else {
        i as usize
    }
}

/// Blurs one reference luma plane as libvmaf 2.3.1's motion does:
/// - vertically, each sample becomes Σ tap·pixel over rows y-2..=y+2
///   (mirrored at the edges, see below) in 32 bits, plus 2^(bpc-1), shifted
///   right by bpc (8 for 8-bit), kept as a 16-bit value;
/// - horizontally, over those values in columns x-2..=x+2, Σ tap·value plus
///   32768, shifted right by 16, kept as a 16-bit value.
///
/// Both passes mirror alike: index -1 reads 1 and -2 reads 2; index n reads
/// n-1 and n+1 reads n-2 (2n - i - 1). [`Error::Unsupported`](crate::Error)
/// for a frame [`check_size`] refuses.
pub fn blur(reference: &LumaView<'_>) -> Result<BlurredPlane> {
    let (w, h, bpc) = (reference.width, reference.height, reference.bit_depth);
    check_size(w, h, bpc, &MotionOptions::default())?;
    let mut samples = vec![0u16; w as usize * h as usize];
    if bpc == 8 {
        blur_8(&rows_8(reference), bpc, &mut samples);
    } else {
        let mut wide = Vec::new();
        widen_16(reference, &mut wide);
        let rows = Rows {
            samples: &wide,
            stride: w as usize,
            width: w as usize,
            height: h as usize,
        };
        blur_16(&rows, bpc, &mut samples);
    }
    Ok(BlurredPlane {
        width: w,
        height: h,
        samples,
    })
}

/// [`blur`] of the rows `src` into `out` (`width * height` samples), on
/// [`LANES`] columns at a time. Every sum stays below
/// `65536 · 65535 + 32768 < 2^32`.
#[inline(always)]
fn blur_rows<S: Sample>(src: &Rows<'_, S>, bpc: u32, out: &mut [u16]) {
    let (w, h) = (src.width, src.height);
    let round_v = 1u32 << (bpc - 1);
    // The vertical pass of one row, with two mirrored columns each side.
    let mut line = vec![0u16; w + 4];
    let body = w - w % LANES;
    for (y, dst) in out.chunks_exact_mut(w).enumerate() {
        let rows: [&[S]; 5] =
            std::array::from_fn(|k| src.row(mirror(y as isize + k as isize - 2, h)));
        for x in (0..body).step_by(LANES) {
            vertical_lanes::<S, LANES>(&rows, x, (round_v, bpc), &mut line[2..]);
        }
        for x in body..w {
            vertical_lanes::<S, 1>(&rows, x, (round_v, bpc), &mut line[2..]);
        }
        for i in 1..=2 {
            line[2 - i] = line[2 + mirror(-(i as isize), w)];
            line[2 + w - 1 + i] = line[2 + mirror((w - 1 + i) as isize, w)];
        }
        for x in (0..body).step_by(LANES) {
            horizontal_lanes::<LANES>(&line, x, dst);
        }
        for x in body..w {
            horizontal_lanes::<1>(&line, x, dst);
        }
    }
}

/// The vertical pass of `L` columns from `x` into `line[x..]`:
/// `(Σ tap·p + round) >> shift`.
#[inline(always)]
fn vertical_lanes<S: Sample, const L: usize>(
    rows: &[&[S]; 5],
    x: usize,
    (round, shift): (u32, u32),
    line: &mut [u16],
) {
    let mut sums = [0u32; L];
    for (row, tap) in rows.iter().zip(FILTER) {
        let src: &[S; L] = row[x..x + L].try_into().unwrap();
        for l in 0..L {
            sums[l] += tap * src[l].wide();
        }
    }
    let dst: &mut [u16; L] = (&mut line[x..x + L]).try_into().unwrap();
    for l in 0..L {
        dst[l] = ((sums[l] + round) >> shift) as u16;
    }
}

/// The horizontal pass of `L` outputs from `x` over the padded `line`
/// (column `c` at `c + 2`): `(Σ tap·v + 32768) >> 16`.
#[inline(always)]
fn horizontal_lanes<const L: usize>(line: &[u16], x: usize, dst: &mut [u16]) {
    let mut sums = [0u32; L];
    for (k, tap) in FILTER.into_iter().enumerate() {
        let src: &[u16; L] = line[x + k..x + k + L].try_into().unwrap();
        for l in 0..L {
            sums[l] += tap * u32::from(src[l]);
        }
    }
    let dst: &mut [u16; L] = (&mut dst[x..x + L]).try_into().unwrap();
    for l in 0..L {
        dst[l] = ((sums[l] + 32768) >> 16) as u16;
    }
}

/// [`blur_rows`] of 8-bit samples.
#[inline(always)]
fn blur_8_portable(src: &Rows<'_, u8>, bpc: u32, out: &mut [u16]) {
    blur_rows(src, bpc, out);
}

/// [`blur_rows`] of 16-bit samples.
#[inline(always)]
fn blur_16_portable(src: &Rows<'_, u16>, bpc: u32, out: &mut [u16]) {
    blur_rows(src, bpc, out);
}

crate::cpu::simd::dispatch_avx2! {
    /// Blurs 8-bit rows, on the widest vectors the CPU has.
    fn blur_8 / blur_8_avx2 => blur_8_portable(src: &Rows<'_, u8>, bpc: u32, out: &mut [u16])
}

crate::cpu::simd::dispatch_avx2! {
    /// Blurs 16-bit rows, on the widest vectors the CPU has.
    fn blur_16 / blur_16_avx2 => blur_16_portable(src: &Rows<'_, u16>, bpc: u32, out: &mut [u16])
}

/// The plain per-sample blur [`blur`] replaced, kept to test it against.
#[cfg(test)]
fn blur_reference(reference: &LumaView<'_>) -> BlurredPlane {
    let (w, h, bpc) = (reference.width, reference.height, reference.bit_depth);
    let (w, h) = (w as usize, h as usize);
    let round_v = 1u32 << (bpc - 1);
    let mut vertical = vec![0u16; w];
    let mut samples = Vec::with_capacity(w * h);
    for y in 0..h {
        let rows = [-2isize, -1, 0, 1, 2].map(|d| mirror(y as isize + d, h));
        for (x, out) in vertical.iter_mut().enumerate() {
            let sum = rows
                .iter()
                .zip(FILTER)
                .fold(0u32, |acc, (&r, tap)| acc + tap * reference.sample(x, r));
            *out = ((sum + round_v) >> bpc) as u16;
        }
        for x in 0..w {
            let sum = FILTER.iter().enumerate().fold(0u32, |acc, (k, &tap)| {
                let column = mirror(x as isize + k as isize - 2, w);
                acc + tap * vertical[column] as u32
            });
            samples.push(((sum + 32768) >> 16) as u16);
        }
    }
    BlurredPlane {
        width: w as u32,
        height: h as u32,
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LumaFrame;
    use proptest::prelude::*;

    #[test]
    fn mirror_matches_libvmaf() {
        let n = 5;
        let got: Vec<usize> = (-2..7).map(|i| mirror(i, n)).collect();
        assert_eq!(got, [2, 1, 0, 1, 2, 3, 4, 4, 3]);
    }

    #[test]
    fn flat_planes_land_on_the_16_bit_scale() {
        for (bpc, p, want) in [
            (8, 200u32, 200u16 << 8),
            (10, 700, 700 << 6),
            (16, 65535, 65535),
        ] {
            let mut f = LumaFrame::zeroed(7, 4, bpc);
            let bytes = if bpc == 8 { 1 } else { 2 };
            for s in f.bytes.chunks_exact_mut(bytes) {
                s.copy_from_slice(&p.to_le_bytes()[..bytes]);
            }
            let b = blur(&f.view()).unwrap();
            assert!(
                b.samples.iter().all(|&s| s == want),
                "{bpc}: {:?}",
                b.samples
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn lanes_equal_the_plain_blur(
            width in 3u32..40,
            height in 3u32..20,
            bpc in prop::sample::select(vec![8u32, 10, 12, 16]),
            seed: u64,
        ) {
            let mut f = LumaFrame::zeroed(width, height, bpc);
            let bytes = if bpc == 8 { 1 } else { 2 };
            let mut s = seed | 1;
            for px in f.bytes.chunks_exact_mut(bytes) {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let v = s % (1 << bpc);
                px.copy_from_slice(&v.to_le_bytes()[..bytes]);
            }
            prop_assert_eq!(blur(&f.view()).unwrap(), blur_reference(&f.view()));
        }
    }

    #[test]
    fn too_small_is_refused() {
        let f = LumaFrame::zeroed(2, 9, 8);
        assert!(blur(&f.view()).is_err());
    }
}
