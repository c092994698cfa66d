//! The exact CPU twin of libvmaf's `float_ms_ssim`: the fp32 sample plane
//! ([`super::luma_to_plane`]), the five-scale pyramid of 9 x 9 low-pass
//! decimations ([`lowpass_decimate`], [`pyramid`]), `float_ssim`'s SSIM stage
//! on every scale ([`super::ssim_means`], the same code `float_ssim` runs) and
//! the metric's fp64 combine ([`crate::metric::ms_ssim::frame_outputs`]).
//!
//! The decimation, from `docs/metrics.md`: output (x, y) is centred on source
//! (2x, 2y), offsets -4..4, rows outer and columns inner; each term
//! `f32(src * tap)` is added to an fp64 sum from 0.0 in that order and the
//! result is `f32(sum)`; positions outside the plane mirror once
//! (`-1 - i`, `2n - 1 - i`). The sums are not exact (the taps are arbitrary
//! fp32 values), so this is the literal order for every pixel: the source rows
//! are split into even and odd columns, so that each tap reads a contiguous
//! run, and pixels are summed `BLOCK` at a time in registers.

use super::decimate::mirror;
use super::{luma_to_plane, ssim_means, FrameMeans, Plane};
use crate::frame::PlaneGeometry;
use crate::metric::ms_ssim::{
    check_size, frame_outputs, MsSsimOptions, LOWPASS, LOWPASS_LEN, SCALES,
};
use crate::metric::outputs::MetricOutputs;
use crate::{LumaView, Result};

/// Half the low-pass kernel: the offsets run -4..=4.
const HALF: usize = LOWPASS_LEN / 2;

/// Output pixels summed together by the decimation kernel.
const BLOCK: usize = 16;

/// A source row mirror-padded by 4 on the left and split by column parity:
/// padded column `i` is source column `mirror(i - 4)`; `even[j]` holds padded
/// column `2j`, `odd[j]` padded column `2j + 1`.
struct SplitRow {
    even: Vec<f32>,
    odd: Vec<f32>,
}

fn split_row(row: &[f32], out_width: usize) -> SplitRow {
    // Output x reads padded columns 2x ..= 2x + 8: even[x ..= x + 4] and
    // odd[x ..= x + 3].
    let len = out_width + HALF;
    let w = row.len();
    // Padded columns HALF .. HALF + w are the row itself; only the few
    // outside it mirror.
    let mut padded = vec![0.0f32; 2 * len];
    for (i, p) in padded.iter_mut().enumerate() {
        if i < HALF || i >= HALF + w {
            *p = row[mirror(i as i64 - HALF as i64, w)];
        }
    }
    let inner = (2 * len).min(HALF + w) - HALF;
    padded[HALF..HALF + inner].copy_from_slice(&row[..inner]);
    SplitRow {
        even: padded.iter().step_by(2).copied().collect(),
        odd: padded.iter().skip(1).step_by(2).copied().collect(),
    }
}

/// The 9 x 9 low-pass decimation by 2 of a plane of at least 5 x 5 (a
/// checked MS-SSIM pyramid's planes are at least 11 x 11):
/// `w / 2 + (w & 1)` x `h / 2 + (h & 1)`.
pub fn lowpass_decimate(src: &Plane) -> Result<Plane> {
    src.check()?;
    let (w, h) = (src.width, src.height);
    let (sw, sh) = (w / 2 + (w & 1), h / 2 + (h & 1));
    let ow = sw as usize;
    let rows: Vec<SplitRow> = (0..h as usize).map(|y| split_row(src.row(y), ow)).collect();
    let mut out = Plane::zeroed(sw, sh);
    for y in 0..sh as usize {
        let window: [&SplitRow; LOWPASS_LEN] =
            std::array::from_fn(|v| &rows[mirror((2 * y + v) as i64 - HALF as i64, h as usize)]);
        lowpass_row(&window, out.row_mut(y));
    }
    Ok(out)
}

super::simd::dispatch_avx2! {
    /// One output row of the decimation (see [`lowpass_row_portable`]), on the
    /// widest vectors the CPU has.
    fn lowpass_row / lowpass_row_avx2 => lowpass_row_portable(window: &[&SplitRow; LOWPASS_LEN], out: &mut [f32])
}

/// The portable kernel of [`lowpass_row`]: `out[x]` sums, for rows v = 0..9
/// of `window` and then columns u = 0..9, `f64(f32(padded_v[2x + u] * LOWPASS[v][u]))`
/// from 0.0, and is stored as fp32.
#[inline(always)]
fn lowpass_row_portable(window: &[&SplitRow; LOWPASS_LEN], out: &mut [f32]) {
    let n = out.len();
    // Column u of the window reads even[x + u / 2] (u even) or odd[x + u / 2]:
    // one contiguous run of n values per (v, u).
    let runs: [[&[f32]; LOWPASS_LEN]; LOWPASS_LEN] = std::array::from_fn(|v| {
        std::array::from_fn(|u| {
            let row = window[v];
            let half = if u % 2 == 0 { &row.even } else { &row.odd };
            &half[u / 2..u / 2 + n]
        })
    });
    let mut x = 0;
    while x + BLOCK <= n {
        let mut acc = [0.0f64; BLOCK];
        for (row, taps) in runs.iter().zip(&LOWPASS) {
            for (run, &t) in row.iter().zip(taps) {
                let s = &run[x..x + BLOCK];
                for k in 0..BLOCK {
                    acc[k] += (s[k] * t) as f64;
                }
            }
        }
        for (o, a) in out[x..x + BLOCK].iter_mut().zip(acc) {
            *o = (a * 1.0) as f32;
        }
        x += BLOCK;
    }
    for (i, o) in out.iter_mut().enumerate().skip(x) {
        let mut acc = 0.0f64;
        for (row, taps) in runs.iter().zip(&LOWPASS) {
            for (run, &t) in row.iter().zip(taps) {
                acc += (run[i] * t) as f64;
            }
        }
        *o = (acc * 1.0) as f32;
    }
}

/// The five planes of the pyramid: `plane` itself, then four decimations.
pub fn pyramid(plane: Plane) -> Result<Vec<Plane>> {
    let mut planes = Vec::with_capacity(SCALES);
    planes.push(plane);
    for k in 1..SCALES {
        let next = lowpass_decimate(&planes[k - 1])?;
        planes.push(next);
    }
    Ok(planes)
}

/// The fp32 means of `float_ssim`'s SSIM stage on every scale of the two
/// pyramids (each a plane of at least 176 x 176 at scale 0, checked).
pub fn scale_means(reference: &Plane, distorted: &Plane) -> Result<[FrameMeans; SCALES]> {
    reference.check()?;
    distorted.check()?;
    let geometry = |p: &Plane| PlaneGeometry::new(p.width, p.height, 8);
    geometry(reference).expect_same("the reference plane", geometry(distorted), "the distorted")?;
    check_size(reference.width, reference.height, 8)?;
    let r = pyramid(reference.clone())?;
    let c = pyramid(distorted.clone())?;
    let mut means = Vec::with_capacity(SCALES);
    for (a, b) in r.iter().zip(&c) {
        means.push(ssim_means(a, b)?);
    }
    Ok(means.try_into().expect("five scales"))
}

/// libvmaf's `float_ms_ssim` (and with `enable_lcs` its 15 per-scale means)
/// for one reference / distorted pair, bit for bit.
///
/// Errors, before any work: [`crate::Error::GeometryMismatch`] when the two
/// differ in size or bit depth, [`crate::Error::FrameTooSmall`] below
/// 176 x 176, [`crate::Error::Unsupported`] / [`crate::Error::BufferSize`]
/// for a view that does not hold what it claims; then
/// [`crate::Error::MetricFailed`] where libvmaf fails the frame (an infinite
/// product).
pub fn score_ms_ssim(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &MsSsimOptions,
) -> Result<MetricOutputs> {
    let geometry = |v: &LumaView<'_>| PlaneGeometry::new(v.width, v.height, v.bit_depth);
    geometry(reference).expect_same("the reference", geometry(distorted), "the distorted")?;
    check_size(reference.width, reference.height, reference.bit_depth)?;
    let r = luma_to_plane(reference)?;
    let c = luma_to_plane(distorted)?;
    let means = scale_means(&r, &c)?;
    frame_outputs(
        &means,
        reference.width,
        reference.height,
        reference.bit_depth,
        opts,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::decimate::tests::pattern;
    use crate::Error;

    /// The decimation written per pixel, as the description states it.
    fn decimate_literal(p: &Plane) -> Plane {
        let (w, h) = (p.width as usize, p.height as usize);
        let (sw, sh) = (w / 2 + (w & 1), h / 2 + (h & 1));
        let mut out = Plane::zeroed(sw as u32, sh as u32);
        for y in 0..sh {
            for x in 0..sw {
                let mut sum = 0.0f64;
                for v in 0..9i64 {
                    for u in 0..9i64 {
                        let sx = mirror(2 * x as i64 + u - 4, w);
                        let sy = mirror(2 * y as i64 + v - 4, h);
                        sum += (p.get(sx, sy) * LOWPASS[v as usize][u as usize]) as f64;
                    }
                }
                out.data[y * sw + x] = (sum * 1.0) as f32;
            }
        }
        out
    }

    #[test]
    fn blocked_decimation_equals_the_literal_one() {
        for (w, h, seed) in [
            (11, 11, 1),
            (12, 13, 2),
            (45, 33, 3),
            (177, 40, 4),
            (64, 64, 5),
        ] {
            let p = pattern(w, h, seed);
            let fast = lowpass_decimate(&p).unwrap();
            let slow = decimate_literal(&p);
            assert_eq!((fast.width, fast.height), (slow.width, slow.height));
            assert_eq!(fast.to_le_bytes(), slow.to_le_bytes(), "{w}x{h}");
            // Again on arbitrary fp32 values (a decimated plane), as at scales 2..4.
            let again = lowpass_decimate(&fast).unwrap();
            assert_eq!(again.to_le_bytes(), decimate_literal(&fast).to_le_bytes());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(32))]

        #[test]
        fn decimation_equals_literal_on_random_planes(
            w in 11u32..80,
            h in 11u32..40,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let p = pattern(w, h, seed);
            proptest::prop_assert_eq!(
                lowpass_decimate(&p).unwrap().to_le_bytes(),
                decimate_literal(&p).to_le_bytes()
            );
        }
    }

    #[test]
    fn portable_and_avx2_agree() {
        let p = pattern(301, 45, 9);
        let wide = lowpass_decimate(&p).unwrap();
        crate::cpu::simd::FORCE_PORTABLE.with(|f| f.set(true));
        let portable = lowpass_decimate(&p).unwrap();
        crate::cpu::simd::FORCE_PORTABLE.with(|f| f.set(false));
        assert_eq!(wide.to_le_bytes(), portable.to_le_bytes());
    }

    #[test]
    fn identical_frames_score_one() {
        let f = crate::LumaFrame {
            width: 180,
            height: 177,
            bit_depth: 8,
            bytes: (0..180 * 177).map(|i| (i * 7 % 251) as u8).collect(),
        };
        let out = score_ms_ssim(&f.view(), &f.view(), &MsSsimOptions::default()).unwrap();
        assert_eq!(out.get("float_ms_ssim"), Some(1.0));
    }

    #[test]
    fn small_and_mismatched_frames_are_refused() {
        let a = crate::LumaFrame::zeroed(175, 200, 8);
        let e = score_ms_ssim(&a.view(), &a.view(), &MsSsimOptions::default()).unwrap_err();
        assert!(
            matches!(
                e,
                Error::FrameTooSmall {
                    width: 175,
                    height: 200,
                    ..
                }
            ),
            "{e}"
        );
        let b = crate::LumaFrame::zeroed(176, 200, 8);
        let e = score_ms_ssim(&a.view(), &b.view(), &MsSsimOptions::default()).unwrap_err();
        assert!(matches!(e, Error::GeometryMismatch(_)), "{e}");
    }
}
