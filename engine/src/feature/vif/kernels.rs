//! The row kernels of VIF's integer filters, written so that the compiler
//! vectorises them: every pass works on [`LANES`] neighbouring columns at a
//! time with its sums in registers, over rows held as plain slices, with no
//! per-sample bounds checks and no reflect arithmetic inside the loops (the
//! borders are padded once per row). Integer sums are exact, so the order in
//! which these kernels add is free; the values are those of the plain
//! per-pixel loops (`reference.rs` keeps them, and the tests compare).

pub(crate) use crate::feature::rows::{Rows, Sample, LANES};

/// The sum of one second moment down a column: `u32` where it provably fits
/// (8-bit samples: `Σ tap·p² ≤ 65536·255² < 2^32`), `u64` otherwise.
pub(crate) trait Moment: Copy + Default {
    /// Adds `tap · v` (`v` a product of two samples, below 2^32).
    fn mac(&mut self, tap: u32, v: u32);
    /// `(sum + round) >> shift`, which every caller knows to fit in 32 bits.
    fn finish(self, round: u64, shift: u32) -> u32;
}

impl Moment for u32 {
    #[inline(always)]
    fn mac(&mut self, tap: u32, v: u32) {
        *self += tap * v;
    }

    #[inline(always)]
    fn finish(self, round: u64, shift: u32) -> u32 {
        ((u64::from(self) + round) >> shift) as u32
    }
}

impl Moment for u64 {
    #[inline(always)]
    fn mac(&mut self, tap: u32, v: u32) {
        *self += u64::from(tap) * u64::from(v);
    }

    #[inline(always)]
    fn finish(self, round: u64, shift: u32) -> u32 {
        ((self + round) >> shift) as u32
    }
}

/// The five column statistics of one output row after the vertical pass,
/// `[μ1, μ2]` and `[xx, yy, xy]`, each `width + 2·radius` long: column `x`
/// at `x + radius`, the borders reflect-101 copies.
pub(crate) struct ColumnStats {
    pub mu: [Vec<u32>; 2],
    pub moments: [Vec<u32>; 3],
    pub radius: usize,
}

impl ColumnStats {
    /// Buffers for rows of `width` samples and a filter of `radius`.
    pub fn new(width: usize, radius: usize) -> Self {
        let n = width + 2 * radius;
        Self {
            mu: std::array::from_fn(|_| vec![0; n]),
            moments: std::array::from_fn(|_| vec![0; n]),
            radius,
        }
    }

    /// Copies the reflect-101 borders of every statistic from its interior.
    fn pad(&mut self) {
        let r = self.radius;
        for v in self.mu.iter_mut().chain(self.moments.iter_mut()) {
            let width = v.len() - 2 * r;
            for i in 1..=r {
                v[r - i] = v[r + i];
                v[r + width - 1 + i] = v[r + width - 1 - i];
            }
        }
    }
}

/// The (round, shift) pairs of the vertical pass: means, then moments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VerticalRounding {
    pub mean: (u64, u32),
    pub moment: (u64, u32),
}

/// The vertical pass of `L` columns from `x`: `refs` and `dis` are the
/// filter's `N` source rows (reflect-101 already applied), top first.
#[inline(always)]
fn vertical_lanes<S: Sample, M: Moment, const N: usize, const L: usize>(
    taps: &[u32; N],
    refs: &[&[S]; N],
    dis: &[&[S]; N],
    x: usize,
    rounding: VerticalRounding,
    out: &mut ColumnStats,
) {
    let mut mu = [[0u32; L]; 2];
    let mut mom = [[M::default(); L]; 3];
    for k in 0..N {
        let t = taps[k];
        let p: &[S; L] = refs[k][x..x + L].try_into().unwrap();
        let q: &[S; L] = dis[k][x..x + L].try_into().unwrap();
        for l in 0..L {
            let (p, q) = (p[l].wide(), q[l].wide());
            mu[0][l] += t * p;
            mu[1][l] += t * q;
            mom[0][l].mac(t, p * p);
            mom[1][l].mac(t, q * q);
            mom[2][l].mac(t, p * q);
        }
    }
    let at = x + out.radius;
    let (mean_round, mean_shift) = rounding.mean;
    let (moment_round, moment_shift) = rounding.moment;
    for (dst, sums) in out.mu.iter_mut().zip(&mu) {
        let dst: &mut [u32; L] = (&mut dst[at..at + L]).try_into().unwrap();
        for l in 0..L {
            dst[l] = ((u64::from(sums[l]) + mean_round) >> mean_shift) as u32;
        }
    }
    for (dst, sums) in out.moments.iter_mut().zip(&mom) {
        let dst: &mut [u32; L] = (&mut dst[at..at + L]).try_into().unwrap();
        for l in 0..L {
            dst[l] = sums[l].finish(moment_round, moment_shift);
        }
    }
}

/// The vertical pass of output row `y` (every column), then the padding.
#[inline(always)]
pub(crate) fn vertical_row<S: Sample, M: Moment, const N: usize>(
    taps: &[u32; N],
    reference: &Rows<'_, S>,
    distorted: &Rows<'_, S>,
    y: usize,
    rounding: VerticalRounding,
    out: &mut ColumnStats,
) {
    let r = N / 2;
    let at = |k: usize| {
        super::plane::reflect_101(y as isize + k as isize - r as isize, reference.height)
    };
    let refs: [&[S]; N] = std::array::from_fn(|k| reference.row(at(k)));
    let dis: [&[S]; N] = std::array::from_fn(|k| distorted.row(at(k)));
    let width = reference.width;
    let body = width - width % LANES;
    for x in (0..body).step_by(LANES) {
        vertical_lanes::<S, M, N, LANES>(taps, &refs, &dis, x, rounding, out);
    }
    for x in body..width {
        vertical_lanes::<S, M, N, 1>(taps, &refs, &dis, x, rounding, out);
    }
    out.pad();
}

/// One row's per-pixel statistics: σ1², σ2² (clamped at 0) and σ12.
pub(crate) struct Sigmas {
    pub sigma1_sq: Vec<i32>,
    pub sigma2_sq: Vec<i32>,
    pub sigma12: Vec<i32>,
}

impl Sigmas {
    /// Buffers for rows of `width` samples.
    pub fn new(width: usize) -> Self {
        Self {
            sigma1_sq: vec![0; width],
            sigma2_sq: vec![0; width],
            sigma12: vec![0; width],
        }
    }
}

/// The horizontal pass of `L` outputs from `x`, and their variances and
/// covariance: means `(μ·μ + 2^31) >> 32`, moments `(Σ + 32768) >> 16`,
/// differences in wrapping 32-bit arithmetic as libvmaf's.
#[inline(always)]
fn horizontal_lanes<const N: usize, const L: usize>(
    taps: &[u32; N],
    cols: &ColumnStats,
    x: usize,
    out: &mut Sigmas,
) {
    let mut mu = [[0u32; L]; 2];
    let mut mom = [[0u64; L]; 3];
    for k in 0..N {
        let t = taps[k];
        for (sums, src) in mu.iter_mut().zip(&cols.mu) {
            let src: &[u32; L] = src[x + k..x + k + L].try_into().unwrap();
            for l in 0..L {
                sums[l] += t * src[l];
            }
        }
        for (sums, src) in mom.iter_mut().zip(&cols.moments) {
            let src: &[u32; L] = src[x + k..x + k + L].try_into().unwrap();
            for l in 0..L {
                sums[l] += u64::from(t) * u64::from(src[l]);
            }
        }
    }
    let s1: &mut [i32; L] = (&mut out.sigma1_sq[x..x + L]).try_into().unwrap();
    for l in 0..L {
        let mu1 = u64::from(mu[0][l]);
        let xx = (mom[0][l] + 32768) >> 16;
        s1[l] = xx.wrapping_sub((mu1 * mu1 + (1 << 31)) >> 32) as i32;
    }
    let s2: &mut [i32; L] = (&mut out.sigma2_sq[x..x + L]).try_into().unwrap();
    for l in 0..L {
        let mu2 = u64::from(mu[1][l]);
        let yy = (mom[1][l] + 32768) >> 16;
        s2[l] = (yy.wrapping_sub((mu2 * mu2 + (1 << 31)) >> 32) as i32).max(0);
    }
    let s12: &mut [i32; L] = (&mut out.sigma12[x..x + L]).try_into().unwrap();
    for l in 0..L {
        let (mu1, mu2) = (u64::from(mu[0][l]), u64::from(mu[1][l]));
        let xy = (mom[2][l] + 32768) >> 16;
        s12[l] = xy.wrapping_sub((mu1 * mu2 + (1 << 31)) >> 32) as i32;
    }
}

/// The horizontal pass of one row of padded column statistics.
#[inline(always)]
pub(crate) fn horizontal_row<const N: usize>(
    taps: &[u32; N],
    cols: &ColumnStats,
    out: &mut Sigmas,
) {
    let width = out.sigma1_sq.len();
    let body = width - width % LANES;
    for x in (0..body).step_by(LANES) {
        horizontal_lanes::<N, LANES>(taps, cols, x, out);
    }
    for x in body..width {
        horizontal_lanes::<N, 1>(taps, cols, x, out);
    }
}
