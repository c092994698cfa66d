//! VIF's low-pass filters and the step from one scale to the next: filter
//! with the next scale's taps, vertically then horizontally, with libvmaf's
//! integer rounding, and keep the even rows and columns.

use super::kernels::{Rows, Sample, LANES};
use super::plane::{reflect_101, Plane};

/// The symmetric 16-bit filter of each scale (libvmaf's `vif_filter1d_table`);
/// every set sums to 65536.
pub(crate) const TAPS: [&[u32]; 4] = [
    &[
        489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640,
        935, 489,
    ],
    &[1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244],
    &[3571, 16004, 26386, 16004, 3571],
    &[10904, 43728, 10904],
];

/// How many samples a scale's filter reaches on each side of its centre.
pub(crate) fn radius(scale: usize) -> usize {
    TAPS[scale].len() / 2
}

/// The plane of scale `scale` (1 to 3) from that of scale `scale - 1`:
/// low-passed with `TAPS[scale]` and decimated to `floor(w/2) x floor(h/2)`.
///
/// Vertical pass: `(Σ tap·p + 2^(s-1)) >> s` in 32 bits, with `s` = 8 for
/// 8-bit input at scale 1, `bit_depth` for deeper input at scale 1, and 16
/// afterwards; this puts every bit depth on one 16-bit scale. Horizontal
/// pass: `(Σ tap·v + 32768) >> 16`. Borders are reflect-101 on both axes.
/// Every sum stays below `65536 · 65535 + 32768 < 2^32`.
#[inline(always)]
fn decimate_generic<S: Sample>(src: &Rows<'_, S>, scale: usize, bit_depth: u32, out: &mut Plane) {
    let shift = match (scale, bit_depth) {
        (1, 8) => 8,
        (1, depth) => depth,
        _ => 16,
    };
    match TAPS[scale].len() {
        9 => decimate_n::<S, 9>(src, scale, shift, out),
        5 => decimate_n::<S, 5>(src, scale, shift, out),
        _ => decimate_n::<S, 3>(src, scale, shift, out),
    }
}

/// [`decimate_generic`] with the `N` taps of `scale`.
#[inline(always)]
fn decimate_n<S: Sample, const N: usize>(
    src: &Rows<'_, S>,
    scale: usize,
    shift: u32,
    out: &mut Plane,
) {
    let taps: &[u32; N] = TAPS[scale].try_into().expect("a scale's taps");
    let r = N / 2;
    let half = 1u32 << (shift - 1);
    let (width, height) = (src.width / 2, src.height / 2);
    out.width = width;
    out.height = height;
    out.samples.clear();
    out.samples.resize(width * height, 0);
    // The vertically filtered row, padded by `r` reflect-101 columns each
    // side, then split into its even and odd padded columns.
    let mut line = vec![0u16; src.width + 2 * r];
    let mut even = vec![0u16; line.len().div_ceil(2)];
    let mut odd = vec![0u16; line.len() / 2];
    for (y, dst) in out.samples.chunks_exact_mut(width).enumerate() {
        let at = |k: usize| reflect_101(2 * y as isize + k as isize - r as isize, src.height);
        let rows: [&[S]; N] = std::array::from_fn(|k| src.row(at(k)));
        let body = src.width - src.width % LANES;
        for x in (0..body).step_by(LANES) {
            vertical_lanes::<S, N, LANES>(taps, &rows, x, (half, shift), &mut line[r..]);
        }
        for x in body..src.width {
            vertical_lanes::<S, N, 1>(taps, &rows, x, (half, shift), &mut line[r..]);
        }
        let n = src.width;
        for i in 1..=r {
            line[r - i] = line[r + i];
            line[r + n - 1 + i] = line[r + n - 1 - i];
        }
        for (i, pair) in line.chunks_exact(2).enumerate() {
            even[i] = pair[0];
            odd[i] = pair[1];
        }
        if line.len() % 2 == 1 {
            even[line.len() / 2] = line[line.len() - 1];
        }
        let body = width - width % LANES;
        for x in (0..body).step_by(LANES) {
            horizontal_lanes::<N, LANES>(taps, &even, &odd, x, dst);
        }
        for x in body..width {
            horizontal_lanes::<N, 1>(taps, &even, &odd, x, dst);
        }
    }
}

/// The vertical pass of `L` columns from `x` into `line[x..]`.
#[inline(always)]
fn vertical_lanes<S: Sample, const N: usize, const L: usize>(
    taps: &[u32; N],
    rows: &[&[S]; N],
    x: usize,
    (half, shift): (u32, u32),
    line: &mut [u16],
) {
    let mut sums = [0u32; L];
    for k in 0..N {
        let src: &[S; L] = rows[k][x..x + L].try_into().unwrap();
        for l in 0..L {
            sums[l] += taps[k] * src[l].wide();
        }
    }
    let dst: &mut [u16; L] = (&mut line[x..x + L]).try_into().unwrap();
    for l in 0..L {
        dst[l] = ((sums[l] + half) >> shift) as u16;
    }
}

/// The horizontal pass of `L` outputs from `x`: output `x` is centred on
/// padded column `2x + r`, whose taps read `even` and `odd` alternately.
#[inline(always)]
fn horizontal_lanes<const N: usize, const L: usize>(
    taps: &[u32; N],
    even: &[u16],
    odd: &[u16],
    x: usize,
    dst: &mut [u16],
) {
    let mut sums = [0u32; L];
    for k in 0..N {
        let half = if k % 2 == 0 { even } else { odd };
        let src: &[u16; L] = half[x + k / 2..x + k / 2 + L].try_into().unwrap();
        for l in 0..L {
            sums[l] += taps[k] * u32::from(src[l]);
        }
    }
    let dst: &mut [u16; L] = (&mut dst[x..x + L]).try_into().unwrap();
    for l in 0..L {
        dst[l] = ((sums[l] + 32768) >> 16) as u16;
    }
}

/// [`decimate_generic`] of 8-bit samples (scale 1 of an 8-bit picture).
#[inline(always)]
fn decimate_8_portable(src: &Rows<'_, u8>, scale: usize, bit_depth: u32, out: &mut Plane) {
    decimate_generic(src, scale, bit_depth, out);
}

/// [`decimate_generic`] of 16-bit samples.
#[inline(always)]
fn decimate_16_portable(src: &Rows<'_, u16>, scale: usize, bit_depth: u32, out: &mut Plane) {
    decimate_generic(src, scale, bit_depth, out);
}

crate::cpu::simd::dispatch_avx2! {
    /// Decimates 8-bit samples into `out`, on the widest vectors the CPU has.
    pub(crate) fn decimate_8 / decimate_8_avx2 => decimate_8_portable(
        src: &Rows<'_, u8>,
        scale: usize,
        bit_depth: u32,
        out: &mut Plane,
    )
}

crate::cpu::simd::dispatch_avx2! {
    /// Decimates 16-bit samples into `out`, on the widest vectors the CPU has.
    pub(crate) fn decimate_16 / decimate_16_avx2 => decimate_16_portable(
        src: &Rows<'_, u16>,
        scale: usize,
        bit_depth: u32,
        out: &mut Plane,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_filter_sums_to_one_in_q16() {
        for taps in TAPS {
            assert_eq!(taps.iter().sum::<u32>(), 65536);
            assert!(taps.iter().eq(taps.iter().rev()));
        }
    }

    #[test]
    fn a_flat_plane_decimates_onto_the_16_bit_scale() {
        for (depth, p, want) in [
            (8, 200, 200 << 8),
            (10, 1000, 1000 << 6),
            (12, 4095, 4095 << 4),
        ] {
            let src = Plane {
                width: 21,
                height: 19,
                samples: vec![p; 21 * 19],
            };
            let mut out = Plane::empty();
            decimate_16(&src.rows(), 1, depth, &mut out);
            assert_eq!((out.width, out.height), (10, 9));
            assert!(out.samples.iter().all(|&v| v == want));
            let mut next = Plane::empty();
            decimate_16(&out.rows(), 2, depth, &mut next);
            assert_eq!((next.width, next.height), (5, 4));
            assert!(next.samples.iter().all(|&v| v == want));
        }
    }
}
