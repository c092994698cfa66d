//! The per-frame blur of libvmaf 2.3.1's motion: a separable 5-tap integer
//! low-pass of one reference luma plane, on a common 16-bit scale.

use super::{check_size, MotionOptions};
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
    Ok(BlurredPlane {
        width: w as u32,
        height: h as u32,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LumaFrame;

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

    #[test]
    fn too_small_is_refused() {
        let f = LumaFrame::zeroed(2, 9, 8);
        assert!(blur(&f.view()).is_err());
    }
}
