//! VIF's low-pass filters and the step from one scale to the next: filter
//! with the next scale's taps, vertically then horizontally, with libvmaf's
//! integer rounding, and keep the even rows and columns.

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
pub(crate) fn decimate(src: &Plane, scale: usize, bit_depth: u32) -> Plane {
    let taps = TAPS[scale];
    let r = radius(scale) as isize;
    let shift = match (scale, bit_depth) {
        (1, 8) => 8,
        (1, depth) => depth,
        _ => 16,
    };
    let half = 1u32 << (shift - 1);
    let (width, height) = (src.width / 2, src.height / 2);
    let mut samples = Vec::with_capacity(width * height);
    let mut sums = vec![0u32; src.width];
    let mut line = vec![0u16; src.width];
    for y in 0..height {
        let centre = 2 * y as isize;
        sums.fill(0);
        for (k, &tap) in taps.iter().enumerate() {
            let row = src.row(reflect_101(centre + k as isize - r, src.height));
            for (sum, &p) in sums.iter_mut().zip(row) {
                *sum += tap * u32::from(p);
            }
        }
        for (v, sum) in line.iter_mut().zip(&sums) {
            *v = ((sum + half) >> shift) as u16;
        }
        for x in 0..width {
            let centre = 2 * x as isize;
            let sum: u32 = taps
                .iter()
                .enumerate()
                .map(|(k, &tap)| {
                    tap * u32::from(line[reflect_101(centre + k as isize - r, src.width)])
                })
                .sum();
            samples.push(((sum + 32768) >> 16) as u16);
        }
    }
    Plane {
        width,
        height,
        samples,
    }
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
            let out = decimate(&src, 1, depth);
            assert_eq!((out.width, out.height), (10, 9));
            assert!(out.samples.iter().all(|&v| v == want));
            let next = decimate(&out, 2, depth);
            assert_eq!((next.width, next.height), (5, 4));
            assert!(next.samples.iter().all(|&v| v == want));
        }
    }
}
