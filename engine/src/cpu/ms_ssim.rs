//! The exact CPU twin of libvmaf's `float_ms_ssim`: the fp32 samples (as
//! [`super::luma_to_plane`] gives them), the five-scale pyramid of 9 x 9
//! low-pass decimations ([`lowpass_decimate`], [`pyramid`]), `float_ssim`'s
//! SSIM stage on every scale (as [`super::ssim_means`] runs it: the same code)
//! and the metric's fp64 combine ([`crate::metric::ms_ssim::frame_outputs`]).
//!
//! The decimation, from `docs/metrics.md`: output (x, y) is centred on source
//! (2x, 2y), offsets -4..4, rows outer and columns inner; each term
//! `f32(src * tap)` is added to an fp64 sum from 0.0 in that order and the
//! result is `f32(sum)`; positions outside the plane mirror once
//! (`-1 - i`, `2n - 1 - i`). The sums are not exact (the taps are arbitrary
//! fp32 values), so this is the literal order for every pixel: the source rows
//! are split into even and odd columns, so that each tap reads a contiguous
//! run, and pixels are summed many at a time (the kernel in `cpu/runs.rs`,
//! shared with the Gaussian). Scale 0 is never held as fp32 planes: its SSIM
//! stage and its decimation convert the samples row by row. A CPU worker keeps
//! every buffer of a frame for the next.

use super::decimate::mirror;
use super::runs::weighted_runs;
use super::samples::{check_view, convert_row, sample_divisor};
use super::stream::SsimScratch;
use super::{FrameMeans, Plane};
use crate::frame::PlaneGeometry;
use crate::metric::ms_ssim::{
    check_size, frame_outputs, MsSsimOptions, LOWPASS, LOWPASS_LEN, SCALES,
};
use crate::metric::outputs::MetricOutputs;
use crate::metric::scale::WINDOW;
use crate::{LumaView, Result};

/// Half the low-pass kernel: the offsets run -4..=4.
const HALF: usize = LOWPASS_LEN / 2;

/// Taps of the 9 x 9 table, rows outer, columns inner: the order of the sum.
const TAPS: usize = LOWPASS_LEN * LOWPASS_LEN;

/// [`LOWPASS`] flattened in summation order.
const LOWPASS_FLAT: [f32; TAPS] = {
    let mut flat = [0.0f32; TAPS];
    let mut i = 0;
    while i < TAPS {
        flat[i] = LOWPASS[i / LOWPASS_LEN][i % LOWPASS_LEN];
        i += 1;
    }
    flat
};

/// Split source rows kept at once: more than the 9 distinct rows one output
/// row reads, which are consecutive (after mirroring), so they never share
/// a slot.
const SPLIT_RING: usize = 16;

/// Source rows mirror-padded by 4 on the left and split by column parity:
/// padded column `i` is source column `mirror(i - 4)`; a split row's
/// `even[j]` holds padded column `2j`, `odd[j]` padded column `2j + 1`, so
/// that each tap of the decimation reads a contiguous run. Only the last
/// [`SPLIT_RING`] rows are kept (source row `y` in slot `y % SPLIT_RING`),
/// each split once, when first read; the buffers are kept between frames
/// ([`MsSsimWork`]).
#[derive(Debug, Default)]
struct SplitRows {
    even: Vec<f32>,
    odd: Vec<f32>,
    /// Values per split row.
    len: usize,
    /// The source row each slot holds.
    held: [Option<usize>; SPLIT_RING],
    /// One source row, as `fill` writes it.
    row: Vec<f32>,
}

impl SplitRows {
    /// Starts a decimation of a plane to `out_width` columns: output x reads
    /// padded columns 2x ..= 2x + 8, that is `even[x ..= x + 4]` and
    /// `odd[x ..= x + 3]`.
    fn reset(&mut self, width: usize, out_width: usize) {
        let len = out_width + HALF;
        self.len = len;
        self.row.resize(width, 0.0);
        self.even.resize(len * SPLIT_RING, 0.0);
        self.odd.resize(len * SPLIT_RING, 0.0);
        self.held = [None; SPLIT_RING];
    }

    /// Splits source row `y` (as `fill(y, row)` writes it) into its slot
    /// unless it is there.
    fn load(&mut self, y: usize, fill: &mut impl FnMut(usize, &mut [f32])) {
        let slot = y % SPLIT_RING;
        if self.held[slot] != Some(y) {
            fill(y, &mut self.row);
            let range = slot * self.len..(slot + 1) * self.len;
            split_row(
                &self.row,
                &mut self.even[range.clone()],
                &mut self.odd[range],
            );
            self.held[slot] = Some(y);
        }
    }

    fn even(&self, y: usize) -> &[f32] {
        let slot = y % SPLIT_RING;
        &self.even[slot * self.len..(slot + 1) * self.len]
    }

    fn odd(&self, y: usize) -> &[f32] {
        let slot = y % SPLIT_RING;
        &self.odd[slot * self.len..(slot + 1) * self.len]
    }
}

/// One row of [`SplitRows::load`].
fn split_row(row: &[f32], even: &mut [f32], odd: &mut [f32]) {
    let w = row.len();
    let len = even.len();
    let padded = |i: usize| row[mirror(i as i64 - HALF as i64, w)];
    // Split columns j >= 2 with 2j - 3 < w read the pair row[2j - 4 ..= 2j - 3]
    // inside the row; only the few others mirror.
    let inner_end = len.min((w + 2) / 2 + 1).max(2);
    for j in (0..2).chain(inner_end..len) {
        even[j] = padded(2 * j);
        odd[j] = padded(2 * j + 1);
    }
    let pairs = row.chunks_exact(2);
    let inner = even[2..inner_end].iter_mut().zip(&mut odd[2..inner_end]);
    for ((e, o), pair) in inner.zip(pairs) {
        *e = pair[0];
        *o = pair[1];
    }
}

/// The 9 x 9 low-pass decimation of `src` into `out`, through `split`.
fn lowpass_into(src: &Plane, split: &mut SplitRows, out: &mut Plane) {
    lowpass_of_rows(
        src.width,
        src.height,
        |y, row| row.copy_from_slice(src.row(y)),
        split,
        out,
    )
}

/// The decimation of a `w` x `h` plane whose row `y` `fill(y, row)` writes
/// (a plane's row, or samples converted as they are read).
fn lowpass_of_rows(
    w: u32,
    h: u32,
    mut fill: impl FnMut(usize, &mut [f32]),
    split: &mut SplitRows,
    out: &mut Plane,
) {
    let (sw, sh) = (w / 2 + (w & 1), h / 2 + (h & 1));
    let ow = sw as usize;
    split.reset(w as usize, ow);
    out.width = sw;
    out.height = sh;
    out.data.resize(ow * sh as usize, 0.0);
    for (y, row) in out.data.chunks_exact_mut(ow).enumerate() {
        let rows: [usize; LOWPASS_LEN] =
            std::array::from_fn(|v| mirror((2 * y + v) as i64 - HALF as i64, h as usize));
        for &r in &rows {
            split.load(r, &mut fill);
        }
        // Tap (v, u) reads even[x + u / 2] (u even) or odd[x + u / 2] of
        // source row `rows[v]`: one contiguous run of `ow` values.
        let runs: [&[f32]; TAPS] = std::array::from_fn(|i| {
            let (v, u) = (i / LOWPASS_LEN, i % LOWPASS_LEN);
            let half = if u % 2 == 0 {
                split.even(rows[v])
            } else {
                split.odd(rows[v])
            };
            &half[u / 2..u / 2 + ow]
        });
        weighted_runs(&runs, &LOWPASS_FLAT, row);
    }
}

/// The 9 x 9 low-pass decimation by 2 of a plane of at least 5 x 5 (a
/// checked MS-SSIM pyramid's planes are at least 11 x 11):
/// `w / 2 + (w & 1)` x `h / 2 + (h & 1)`. Each output (x, y) sums, for rows
/// v = 0..9 and then columns u = 0..9 of the window centred on source
/// (2x, 2y), `f64(f32(src * LOWPASS[v][u]))` from 0.0, stored as fp32.
pub fn lowpass_decimate(src: &Plane) -> Result<Plane> {
    src.check()?;
    let mut out = Plane::zeroed(0, 0);
    lowpass_into(src, &mut SplitRows::default(), &mut out);
    Ok(out)
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

/// The buffers one MS-SSIM frame needs (the pyramids' scales 1 to 4, the
/// split rows, the SSIM stage's rows), kept by a CPU worker from frame to
/// frame so that a frame neither allocates nor faults in fresh pages. Scale 0
/// is never held as fp32 planes: its SSIM stage and its decimation convert
/// the samples row by row as they read them.
#[derive(Debug)]
pub(crate) struct MsSsimWork {
    /// Scales 1 to 4 of each pyramid.
    reference: [Plane; SCALES - 1],
    distorted: [Plane; SCALES - 1],
    split: SplitRows,
    ssim: SsimScratch,
}

impl Default for MsSsimWork {
    fn default() -> Self {
        Self {
            reference: std::array::from_fn(|_| Plane::zeroed(0, 0)),
            distorted: std::array::from_fn(|_| Plane::zeroed(0, 0)),
            split: SplitRows::default(),
            ssim: SsimScratch::default(),
        }
    }
}

impl MsSsimWork {
    /// The per-scale means of a `w` x `h` pair (same size, at least
    /// 176 x 176, checked) whose scale-0 rows `reference(y, row)` and
    /// `distorted(y, row)` write.
    fn scale_means(
        &mut self,
        w: u32,
        h: u32,
        mut reference: impl FnMut(usize, &mut [f32]),
        mut distorted: impl FnMut(usize, &mut [f32]),
    ) -> [FrameMeans; SCALES] {
        let means_of =
            |sums: super::TermSums, w: u32, h: u32| sums.means(w - (WINDOW - 1), h - (WINDOW - 1));
        let mut means = [means_of(Default::default(), WINDOW, WINDOW); SCALES];
        let sums = self.ssim.sums_of_rows(w as usize, h as usize, |y, r, c| {
            reference(y, r);
            distorted(y, c);
        });
        means[0] = means_of(sums, w, h);
        lowpass_of_rows(
            w,
            h,
            &mut reference,
            &mut self.split,
            &mut self.reference[0],
        );
        lowpass_of_rows(
            w,
            h,
            &mut distorted,
            &mut self.split,
            &mut self.distorted[0],
        );
        for k in 1..SCALES {
            if k > 1 {
                for planes in [&mut self.reference, &mut self.distorted] {
                    let (done, next) = planes.split_at_mut(k - 1);
                    lowpass_into(&done[k - 2], &mut self.split, &mut next[0]);
                }
            }
            let (r, c) = (&self.reference[k - 1], &self.distorted[k - 1]);
            let sums = self
                .ssim
                .sums_of_rows(r.width as usize, r.height as usize, |y, rr, cr| {
                    rr.copy_from_slice(r.row(y));
                    cr.copy_from_slice(c.row(y));
                });
            means[k] = means_of(sums, r.width, r.height);
        }
        means
    }
}

/// The fp32 means of `float_ssim`'s SSIM stage on every scale of the two
/// pyramids (each a plane of at least 176 x 176 at scale 0, checked).
pub fn scale_means(reference: &Plane, distorted: &Plane) -> Result<[FrameMeans; SCALES]> {
    reference.check()?;
    distorted.check()?;
    let geometry = |p: &Plane| PlaneGeometry::new(p.width, p.height, 8);
    geometry(reference).expect_same("the reference plane", geometry(distorted), "the distorted")?;
    check_size(reference.width, reference.height, 8)?;
    Ok(MsSsimWork::default().scale_means(
        reference.width,
        reference.height,
        |y, row| row.copy_from_slice(reference.row(y)),
        |y, row| row.copy_from_slice(distorted.row(y)),
    ))
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
    score_ms_ssim_in(reference, distorted, opts, &mut MsSsimWork::default())
}

/// [`score_ms_ssim`] in the buffers of `work` (a CPU worker's, reused from
/// frame to frame; the values do not depend on what they held).
pub(crate) fn score_ms_ssim_in(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &MsSsimOptions,
    work: &mut MsSsimWork,
) -> Result<MetricOutputs> {
    let geometry = |v: &LumaView<'_>| PlaneGeometry::new(v.width, v.height, v.bit_depth);
    geometry(reference).expect_same("the reference", geometry(distorted), "the distorted")?;
    check_size(reference.width, reference.height, reference.bit_depth)?;
    check_view(reference)?;
    check_view(distorted)?;
    let divisor = sample_divisor(reference.bit_depth)?;
    let means = work.scale_means(
        reference.width,
        reference.height,
        |y, row| convert_row(reference, y, divisor, row),
        |y, row| convert_row(distorted, y, divisor, row),
    );
    frame_outputs(
        &means,
        reference.width,
        reference.height,
        reference.bit_depth,
        opts,
    )
}

/// `float_ms_ssim`'s CPU twin: [`score_ms_ssim`] on the luma planes, in
/// the worker's [`MsSsimWork`].
impl super::metrics::CpuTwin for MsSsimOptions {
    fn score(
        &self,
        pair: &super::metrics::TwinPair<'_, '_>,
        work: &mut super::metrics::TwinWork,
        out: &mut crate::FrameScore,
    ) -> Result<()> {
        let (r, d) = pair.luma();
        let work = super::metrics::work_of::<MsSsimWork>(work);
        out.outputs.extend(&score_ms_ssim_in(r, d, self, work)?);
        Ok(())
    }
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
