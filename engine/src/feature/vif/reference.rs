//! The plain per-pixel VIF filters the vectorised kernels replaced, kept
//! for the tests: every pixel's sums straight from the definitions, with
//! u64 arithmetic throughout and reflect-101 indexing inside the loops. The
//! tests check that the kernels give the same planes and the same sums on
//! random pictures of every bit depth and odd sizes.

use super::filters::{radius, TAPS};
use super::info::{GAIN_EPS, SIGMA_NSQ};
use super::log2::{log2_32, log2_64, LOG2_NSQ};
use super::plane::{reflect_101, Plane};
use super::stats::{Input, ScaleSums};

/// Adds one pixel's statistics (σ1², σ2² clamped at 0, σ12).
pub(super) fn add_pixel(
    sums: &mut ScaleSums,
    sigma1_sq: i32,
    sigma2_sq: i32,
    sigma12: i32,
    gain_limit: f64,
) {
    if sigma1_sq < SIGMA_NSQ {
        sums.num_non_log += i64::from(sigma2_sq);
        sums.den_non_log += 1;
        return;
    }
    sums.den_log += log2_32((sigma1_sq + SIGMA_NSQ) as u32) - LOG2_NSQ;
    if sigma12 > 0 && sigma2_sq > 0 {
        let gain = f64::from(sigma12) / (f64::from(sigma1_sq) + GAIN_EPS);
        // Truncation toward zero, as C's conversion to int32.
        let sv_sq = ((f64::from(sigma2_sq) - gain * f64::from(sigma12)) as i32).max(0);
        let gain = gain.min(gain_limit);
        let numer1 = sv_sq as u32 + SIGMA_NSQ as u32;
        let total = ((gain * gain) * f64::from(sigma1_sq)) as i64 + i64::from(numer1);
        sums.num_log += log2_64(total as u64) - log2_64(u64::from(numer1));
    }
}

/// The vertical pass of one output row: per column, the two means and the
/// three second moments (`[μ1, μ2, xx, yy, xy]`), filtered down the column
/// with reflect-101 rows, then padded left and right by the filter's radius
/// with reflect-101 columns (libvmaf's `PADDING_SQ_DATA`).
struct Columns {
    /// `width + 2 * radius` entries; column `x` is at `x + radius`.
    padded: Vec<[u64; 5]>,
    radius: usize,
}

impl Columns {
    fn new(width: usize, scale: usize) -> Self {
        let radius = radius(scale);
        Self {
            padded: vec![[0; 5]; width + 2 * radius],
            radius,
        }
    }

    /// Fills the columns for output row `y`.
    fn filter_rows(
        &mut self,
        reference: &Plane,
        distorted: &Plane,
        y: usize,
        scale: usize,
        input: Input,
    ) {
        let (r, width) = (self.radius, reference.width);
        let columns = &mut self.padded[r..r + width];
        columns.fill([0; 5]);
        for (k, &tap) in TAPS[scale].iter().enumerate() {
            let row_at = reflect_101(y as isize + k as isize - r as isize, reference.height);
            let tap = u64::from(tap);
            let rows = reference.row(row_at).iter().zip(distorted.row(row_at));
            for (c, (&p, &q)) in columns.iter_mut().zip(rows) {
                let (p, q) = (u64::from(p), u64::from(q));
                let (tp, tq) = (tap * p, tap * q);
                c[0] += tp;
                c[1] += tq;
                c[2] += tp * p;
                c[3] += tq * q;
                c[4] += tp * q;
            }
        }
        let (mean_round, mean_shift) = input.mean_rounding();
        let (moment_round, moment_shift) = input.moment_rounding();
        for c in columns.iter_mut() {
            c[0] = (c[0] + mean_round) >> mean_shift;
            c[1] = (c[1] + mean_round) >> mean_shift;
            for m in &mut c[2..] {
                *m = (*m + moment_round) >> moment_shift;
            }
        }
        for i in 1..=r {
            self.padded[r - i] = self.padded[r + i];
            self.padded[r + width - 1 + i] = self.padded[r + width - 1 - i];
        }
    }
}

/// The integer sums of one scale: `reference` and `distorted` (the same
/// size) filtered with `TAPS[scale]`, the samples scaled as `input` says.
pub(super) fn scale_sums(
    reference: &Plane,
    distorted: &Plane,
    scale: usize,
    input: Input,
    gain_limit: f64,
) -> ScaleSums {
    let (width, height) = (reference.width, reference.height);
    let taps = TAPS[scale];
    let mut columns = Columns::new(width, scale);
    let mut sums = ScaleSums::default();
    for y in 0..height {
        columns.filter_rows(reference, distorted, y, scale, input);
        for window in columns.padded.windows(taps.len()) {
            let mut f = [0u64; 5];
            for (&tap, c) in taps.iter().zip(window) {
                let tap = u64::from(tap);
                for (acc, &v) in f.iter_mut().zip(c) {
                    *acc += tap * v;
                }
            }
            let [mu1, mu2, xx, yy, xy] = f;
            let mu1_sq = (mu1 * mu1 + (1 << 31)) >> 32;
            let mu2_sq = (mu2 * mu2 + (1 << 31)) >> 32;
            let mu1_mu2 = (mu1 * mu2 + (1 << 31)) >> 32;
            let xx = (xx + 32768) >> 16;
            let yy = (yy + 32768) >> 16;
            let xy = (xy + 32768) >> 16;
            // int32 differences, wrapping as libvmaf's do.
            let sigma1_sq = xx.wrapping_sub(mu1_sq) as i32;
            let sigma2_sq = (yy.wrapping_sub(mu2_sq) as i32).max(0);
            let sigma12 = xy.wrapping_sub(mu1_mu2) as i32;
            add_pixel(&mut sums, sigma1_sq, sigma2_sq, sigma12, gain_limit);
        }
    }
    sums
}

pub(super) fn decimate(src: &Plane, scale: usize, bit_depth: u32) -> Plane {
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
    use crate::feature::rows::rows_8;
    use crate::feature::vif::filters::{decimate_16, decimate_8};
    use crate::feature::vif::info::RowTerms;
    use crate::feature::vif::kernels::Sigmas;
    use crate::feature::vif::stats::{scale_sums_16, scale_sums_8};
    use crate::LumaFrame;
    use proptest::prelude::*;

    /// A random picture of `bits` bits whose samples stay within `spread`
    /// of a random level (smooth and noisy pictures both).
    fn picture(width: u32, height: u32, bits: u32, seed: u64, spread: u32) -> LumaFrame {
        let mut f = LumaFrame::zeroed(width, height, bits);
        let max = (1u64 << bits) - 1;
        let mut s = seed | 1;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let level = next() % (max + 1);
        let bytes = if bits == 8 { 1 } else { 2 };
        for px in f.bytes.chunks_exact_mut(bytes) {
            let d = next() % (2 * u64::from(spread) + 1);
            let v = (level + d).saturating_sub(u64::from(spread)).min(max);
            px.copy_from_slice(&v.to_le_bytes()[..bytes]);
        }
        f
    }

    /// Every scale's sums and decimated planes, by the kernels and by the
    /// plain loops.
    fn compare(width: u32, height: u32, bits: u32, seed: u64, spread: u32, egl: f64) {
        let a = picture(width, height, bits, seed, spread);
        let b = picture(width, height, bits, seed ^ 0x5555, spread);
        let (pa, pb) = (Plane::from_view(&a.view()), Plane::from_view(&b.view()));
        let input = if bits == 8 {
            Input::Bits8
        } else {
            Input::Deep(bits)
        };
        let want = scale_sums(&pa, &pb, 0, input, egl);
        let mut got = ScaleSums::default();
        let (mut da, mut db) = (Plane::empty(), Plane::empty());
        if bits == 8 {
            let (ra, rb) = (rows_8(&a.view()), rows_8(&b.view()));
            scale_sums_8(&ra, &rb, egl, &mut got);
            decimate_8(&ra, 1, bits, &mut da);
            decimate_8(&rb, 1, bits, &mut db);
        } else {
            scale_sums_16(&pa.rows(), &pb.rows(), 0, input, egl, &mut got);
            decimate_16(&pa.rows(), 1, bits, &mut da);
            decimate_16(&pb.rows(), 1, bits, &mut db);
        }
        assert_eq!(got, want, "scale 0");
        let (mut wa, mut wb) = (decimate(&pa, 1, bits), decimate(&pb, 1, bits));
        for scale in 1..4 {
            assert_eq!((&da, &db), (&wa, &wb), "scale {scale}");
            let want = scale_sums(&wa, &wb, scale, Input::Decimated, egl);
            let mut got = ScaleSums::default();
            scale_sums_16(
                &da.rows(),
                &db.rows(),
                scale,
                Input::Decimated,
                egl,
                &mut got,
            );
            assert_eq!(got, want, "scale {scale}");
            if scale < 3 {
                let (mut na, mut nb) = (Plane::empty(), Plane::empty());
                decimate_16(&da.rows(), scale + 1, bits, &mut na);
                decimate_16(&db.rows(), scale + 1, bits, &mut nb);
                (da, db) = (na, nb);
                (wa, wb) = (
                    decimate(&wa, scale + 1, bits),
                    decimate(&wb, scale + 1, bits),
                );
            }
        }
    }

    /// A row's terms by [`RowTerms::add_row`] and by [`add_pixel`], on
    /// statistics drawn to reach every branch: σ1² about σ_nsq, σ12 of
    /// either sign and above σ1² (gains over the limit), σ2² from 0, and the
    /// int32 extremes.
    fn compare_terms(stats: &[(i32, i32, i32)], egl: f64) {
        let mut sigmas = Sigmas::new(stats.len());
        for (x, &(s1, s2, s12)) in stats.iter().enumerate() {
            sigmas.sigma1_sq[x] = s1;
            sigmas.sigma2_sq[x] = s2;
            sigmas.sigma12[x] = s12;
        }
        let mut got = ScaleSums::default();
        RowTerms::new(stats.len()).add_row(&sigmas, egl, &mut got);
        let mut want = ScaleSums::default();
        for &(s1, s2, s12) in stats {
            add_pixel(&mut want, s1, s2, s12, egl);
        }
        assert_eq!(got, want);
    }

    #[test]
    fn row_terms_equal_per_pixel_branches_at_the_extremes() {
        let edges = [
            i32::MIN,
            -1,
            0,
            1,
            SIGMA_NSQ - 1,
            SIGMA_NSQ,
            1 << 24,
            i32::MAX - (1 << 17),
        ];
        let mut stats = Vec::new();
        for &s1 in &edges {
            for &s2 in &[0, 1, 1 << 20, i32::MAX] {
                for &s12 in &edges {
                    stats.push((s1, s2, s12));
                }
            }
        }
        compare_terms(&stats, 100.0);
        compare_terms(&stats, 1.0);
    }

    #[test]
    fn kernels_equal_plain_loops_at_the_extremes() {
        for bits in [8, 10, 12, 16] {
            compare(37, 29, bits, 7, 1 << bits, 100.0);
            compare(40, 16, bits, 9, 0, 1.0);
            compare(16, 33, bits, 11, 3, 100.0);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn row_terms_equal_per_pixel_branches(
            stats in prop::collection::vec(
                (0i32..1 << 22, 0i32..1 << 22, -(1i32 << 22)..1 << 22)
                    .prop_map(|(s1, s2, s12)| (s1 >> (s1 % 13), s2 >> (s2 % 11), s12 >> (s12.rem_euclid(9)))),
                1..70,
            ),
            egl in prop::sample::select(vec![1.0f64, 1.7, 100.0]),
        ) {
            compare_terms(&stats, egl);
        }

        #[test]
        fn kernels_equal_plain_loops(
            width in 16u32..90,
            height in 16u32..60,
            bits in prop::sample::select(vec![8u32, 10, 12, 16]),
            seed: u64,
            spread in 0u32..300,
            egl in prop::sample::select(vec![1.0f64, 1.7, 100.0]),
        ) {
            compare(width, height, bits, seed, spread, egl);
        }
    }
}
