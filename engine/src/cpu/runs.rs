//! The one kernel under both FIR filters of the CPU twin (the 11-tap Gaussian
//! and the 9 x 9 MS-SSIM low-pass): for every output pixel `x`,
//! `out[x] = f32(sum over i of f64(f32(runs[i][x] * taps[i])))`, the sum in fp64
//! from 0.0 in the order of `i`. Each tap reads a contiguous run, so pixels are
//! independent and are done many at a time; each pixel's terms are still added
//! one by one in libvmaf's order (`docs/exactness.md` §4).
//!
//! On x86-64 with AVX2 the kernel is written out with intrinsics: four fp32
//! products in a 128-bit multiply, widened exactly to four fp64 values and added
//! to a 256-bit accumulator (no 256-bit multiply and lane extract: on the
//! machines measured that is the cheaper form, as the conversion is the
//! bottleneck). IEEE multiply, add and the conversions round the same at any
//! width, and no FMA is used, so the values equal the portable loop's.

/// Output pixels whose sums are held in registers at once.
const BLOCK: usize = 16;

/// The weighted sums of `N` runs into `out` (see the module note). Every run
/// holds at least `out.len()` values.
///
/// Panics if a run is shorter than `out` (an internal indexing error).
#[inline]
pub(crate) fn weighted_runs<const N: usize>(runs: &[&[f32]; N], taps: &[f32; N], out: &mut [f32]) {
    let n = out.len();
    assert!(
        runs.iter().all(|r| r.len() >= n),
        "a run shorter than its {n} outputs"
    );
    #[cfg(target_arch = "x86_64")]
    if super::simd::has_avx2() {
        // SAFETY: AVX2 was checked at run time just above, and every run holds
        // at least `out.len()` values (asserted above).
        unsafe { avx2::weighted_runs(runs, taps, out) };
        return;
    }
    weighted_runs_portable(runs, taps, out, 0)
}

/// The portable kernel: pixels `start..` of [`weighted_runs`], `BLOCK` at a
/// time so the compiler can vectorise across them.
#[inline(always)]
fn weighted_runs_portable<const N: usize>(
    runs: &[&[f32]; N],
    taps: &[f32; N],
    out: &mut [f32],
    start: usize,
) {
    let n = out.len();
    let runs: [&[f32]; N] = std::array::from_fn(|i| &runs[i][..n]);
    let mut x = start;
    while x + BLOCK <= n {
        let mut acc = [0.0f64; BLOCK];
        for (run, &t) in runs.iter().zip(taps) {
            let s = &run[x..x + BLOCK];
            for k in 0..BLOCK {
                acc[k] += (s[k] * t) as f64;
            }
        }
        for (o, a) in out[x..x + BLOCK].iter_mut().zip(acc) {
            *o = a as f32;
        }
        x += BLOCK;
    }
    for (i, o) in out.iter_mut().enumerate().skip(x) {
        let mut acc = 0.0f64;
        for (run, &t) in runs.iter().zip(taps) {
            acc += (run[i] * t) as f64;
        }
        *o = acc as f32;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::BLOCK;
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_cvtpd_ps, _mm256_cvtps_pd, _mm256_setzero_pd, _mm_loadu_ps,
        _mm_mul_ps, _mm_set1_ps, _mm_storeu_ps,
    };

    /// [`super::weighted_runs`] with AVX2 intrinsics on whole blocks, the
    /// portable loop on the last `out.len() % BLOCK` pixels.
    ///
    /// # Safety
    /// The CPU must support AVX2, and every run must hold at least
    /// `out.len()` values.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn weighted_runs<const N: usize>(
        runs: &[&[f32]; N],
        taps: &[f32; N],
        out: &mut [f32],
    ) {
        let n = out.len();
        let ptrs: [*const f32; N] = std::array::from_fn(|i| runs[i].as_ptr());
        let dst = out.as_mut_ptr();
        let mut x = 0;
        while x + BLOCK <= n {
            let mut a0 = _mm256_setzero_pd();
            let mut a1 = _mm256_setzero_pd();
            let mut a2 = _mm256_setzero_pd();
            let mut a3 = _mm256_setzero_pd();
            for (p, &t) in ptrs.iter().zip(taps) {
                let t = _mm_set1_ps(t);
                // SAFETY: x + BLOCK <= n and every run holds n values, so the
                // 16 values read from p + x are inside the run.
                let (s0, s1, s2, s3) = unsafe {
                    let p = p.add(x);
                    (
                        _mm_loadu_ps(p),
                        _mm_loadu_ps(p.add(4)),
                        _mm_loadu_ps(p.add(8)),
                        _mm_loadu_ps(p.add(12)),
                    )
                };
                a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_mul_ps(s0, t)));
                a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_mul_ps(s1, t)));
                a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm_mul_ps(s2, t)));
                a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm_mul_ps(s3, t)));
            }
            // SAFETY: x + BLOCK <= n = out.len(): the 16 stores are inside out.
            unsafe {
                let d = dst.add(x);
                _mm_storeu_ps(d, _mm256_cvtpd_ps(a0));
                _mm_storeu_ps(d.add(4), _mm256_cvtpd_ps(a1));
                _mm_storeu_ps(d.add(8), _mm256_cvtpd_ps(a2));
                _mm_storeu_ps(d.add(12), _mm256_cvtpd_ps(a3));
            }
            x += BLOCK;
        }
        super::weighted_runs_portable(runs, taps, out, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal per-pixel sum.
    fn literal<const N: usize>(runs: &[&[f32]; N], taps: &[f32; N], n: usize) -> Vec<u32> {
        (0..n)
            .map(|x| {
                let mut acc = 0.0f64;
                for (run, &t) in runs.iter().zip(taps) {
                    acc += (run[x] * t) as f64;
                }
                (acc as f32).to_bits()
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(64))]

        /// Both kernels against the literal sum, on lengths on both sides of
        /// a block, values of any sign and size.
        #[test]
        fn kernels_equal_the_literal_sum(
            n in 0usize..70,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mut st = seed | 1;
            let mut next = || {
                st ^= st << 13;
                st ^= st >> 7;
                st ^= st << 17;
                f32::from_bits(((st >> 20) as u32 & 0x3fff_ffff) | ((st as u32 & 1) << 31))
            };
            let data: Vec<f32> = (0..n + 12).map(|_| next()).collect();
            let taps: [f32; 11] = std::array::from_fn(|_| next());
            let runs: [&[f32]; 11] = std::array::from_fn(|i| &data[i..i + n]);
            let want = literal(&runs, &taps, n);
            for portable in [false, true] {
                crate::cpu::simd::FORCE_PORTABLE.with(|f| f.set(portable));
                let mut out = vec![0.0f32; n];
                weighted_runs(&runs, &taps, &mut out);
                crate::cpu::simd::FORCE_PORTABLE.with(|f| f.set(false));
                let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
                proptest::prop_assert_eq!(&got, &want);
            }
        }
    }
}
