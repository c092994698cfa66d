//! The exact CPU twin of libvmaf's `float_ssim`, one module per stage, written
//! from `docs/exactness.md`:
//!
//! 1. [`samples`]: raw luma to fp32 ([`luma_to_plane`]);
//! 2. [`scale`]: the decimation factor and the decimated size;
//! 3. [`decimate`]: the box decimation ([`decimate::decimate`]);
//! 4. [`gaussian`]: the separable 11-tap Gaussian of r, c, r², c², r·c
//!    ([`gaussian_filter_all`]);
//! 5. [`lcs_map`]: per-pixel variances and l, c, s terms ([`lcs_terms`]);
//! 6. [`means`]: the raster-order fp64 sums and fp32 means ([`frame_means`]);
//! 7. [`db`]: `enable_db` and `clip_db`.
//!
//! The other metrics reuse these stages: [`ms_ssim`] (libvmaf's
//! `float_ms_ssim`: a 9 x 9 low-pass pyramid, then the SSIM stage on each of
//! its five scales through [`ssim_means`]) and [`psnr`] (integer sums of
//! squared errors per plane, chroma included).
//!
//! [`score_metrics`] runs every metric of a [`crate::metric::MetricSet`]
//! on one pair. [`score_frame`] chains the SSIM stages for one pair, with [`stream`] fusing 4 to 6 row
//! by row (no full-size intermediate planes, same values); [`CpuScorer`] scores
//! many pairs in parallel across frames. The hot loops also run on AVX2 where the
//! CPU has it (same values). The stage functions are public so the Vulkan engine
//! and the parity tests can compare pass by pass.

pub mod db;
pub mod decimate;
pub mod gaussian;
pub mod lcs_map;
pub mod means;
pub mod metrics;
pub mod ms_ssim;
mod plane;
pub(crate) mod pool;
pub mod psnr;
pub(crate) mod runs;
pub mod samples;
pub(crate) mod simd;
pub mod stream;

pub use gaussian::gaussian_filter_all;
pub use lcs_map::{lcs_terms, PixelTerms};
pub use means::{frame_means, FrameMeans, TermSums};
pub use metrics::score_metrics;
pub use plane::Plane;
pub(crate) use pool::CpuScorer;
pub use samples::luma_to_plane;
// The metric's parameters and per-frame finish, kept reachable here.
pub use crate::metric::scale;
pub use crate::metric::ssim::{check_geometry, check_pair, frame_score};

use crate::{FrameScore, LumaView, Result, SsimOptions};

/// The SSIM stage on two (decimated) planes of the same size: filter, per-pixel
/// terms summed in raster order, fp32 means, streamed row by row
/// (`stream::ssim_sums`). Gives exactly
/// `frame_means(&lcs_terms(&gaussian_filter_all(r, c)?))`.
pub fn ssim_means(r: &Plane, c: &Plane) -> Result<FrameMeans> {
    let sums = stream::ssim_sums(r, c)?;
    Ok(sums.means(
        r.width - (scale::WINDOW - 1),
        r.height - (scale::WINDOW - 1),
    ))
}

/// libvmaf's `float_ssim` (and `_l`, `_c`, `_s`, and the dB figure with
/// `enable_db`) for one reference / distorted pair, bit for bit.
///
/// Errors: [`crate::Error::GeometryMismatch`] when the two differ in size or bit depth,
/// [`crate::Error::PlaneTooSmall`] when the decimated plane is below 11 x 11,
/// [`crate::Error::Unsupported`] / [`crate::Error::BufferSize`] / [`crate::Error::InvalidOption`] for a
/// view that does not hold what it claims.
pub fn score_frame(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &SsimOptions,
) -> Result<FrameScore> {
    let geometry = check_pair(reference, distorted, opts)?;
    let r = decimate::decimate_luma(reference, geometry.scale)?;
    let c = decimate::decimate_luma(distorted, geometry.scale)?;
    let means = ssim_means(&r, &c)?;
    Ok(frame_score(&means, &geometry, opts))
}

/// `float_ssim`'s CPU twin: [`score_frame`] on the luma planes.
impl metrics::CpuTwin for SsimOptions {
    fn score(
        &self,
        pair: &metrics::TwinPair<'_, '_>,
        _work: &mut metrics::TwinWork,
        out: &mut FrameScore,
    ) -> Result<()> {
        let (r, d) = pair.luma();
        out.extend(&score_frame(r, d, self)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, LumaFrame};

    fn frame(width: u32, height: u32, bit_depth: u32, seed: u32) -> LumaFrame {
        let mut f = LumaFrame::zeroed(width, height, bit_depth);
        let mut st = seed.wrapping_mul(2_654_435_761) | 1;
        let max = (1u32 << bit_depth) - 1;
        let bps = if bit_depth == 8 { 1 } else { 2 };
        for i in 0..(width * height) as usize {
            st ^= st << 13;
            st ^= st >> 17;
            st ^= st << 5;
            let v = st % (max + 1);
            f.bytes[i * bps] = v as u8;
            if bps == 2 {
                f.bytes[i * bps + 1] = (v >> 8) as u8;
            }
        }
        f
    }

    #[test]
    fn stage_functions_compose_to_score_frame() {
        for (w, h, depth, scale) in [(64, 48, 8, 0), (97, 61, 10, 2), (80, 80, 16, 3)] {
            let a = frame(w, h, depth, 1);
            let b = frame(w, h, depth, 2);
            let opts = SsimOptions {
                scale,
                enable_lcs: true,
                ..Default::default()
            };
            let got = score_frame(&a.view(), &b.view(), &opts).unwrap();
            let g = check_geometry(w, h, depth, &opts).unwrap();
            let r = decimate::decimate(&luma_to_plane(&a.view()).unwrap(), g.scale).unwrap();
            let c = decimate::decimate(&luma_to_plane(&b.view()).unwrap(), g.scale).unwrap();
            let means = frame_means(&lcs_terms(&gaussian_filter_all(&r, &c).unwrap()));
            assert_eq!(got, frame_score(&means, &g, &opts));
            assert!(got.ssim() > -1.0 && got.ssim() < 1.0, "{got:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(48))]

        /// score_frame (fused conversion and decimation, run-wise sums) against
        /// the stage functions composed one by one, on random small frames.
        #[test]
        fn score_frame_equals_the_composed_stages(
            w in 11u32..90,
            h in 11u32..90,
            depth_index in 0usize..4,
            scale in 0u32..5,
            seed in 0u32..1_000_000,
        ) {
            let depth = [8, 10, 12, 16][depth_index];
            let a = frame(w, h, depth, seed);
            let b = frame(w, h, depth, seed ^ 0x55);
            let opts = SsimOptions { scale, enable_lcs: true, enable_db: seed % 2 == 0, clip_db: seed % 3 == 0 };
            let got = score_frame(&a.view(), &b.view(), &opts);
            match check_geometry(w, h, depth, &opts) {
                Err(_) => {
                    let too_small = matches!(got, Err(Error::PlaneTooSmall { .. }));
                    proptest::prop_assert!(too_small, "expected PlaneTooSmall, got {:?}", got)
                }
                Ok(g) => {
                    let r = decimate::decimate(&luma_to_plane(&a.view()).unwrap(), g.scale).unwrap();
                    let c = decimate::decimate(&luma_to_plane(&b.view()).unwrap(), g.scale).unwrap();
                    let means = frame_means(&lcs_terms(&gaussian_filter_all(&r, &c).unwrap()));
                    proptest::prop_assert_eq!(got.unwrap(), frame_score(&means, &g, &opts));
                }
            }
        }
    }

    #[test]
    fn portable_and_avx2_kernels_agree() {
        // On a CPU without AVX2 both runs take the portable path.
        for (w, h, depth, scale) in [
            (333, 201, 8, 0),
            (1100, 620, 10, 0),
            (90, 77, 16, 1),
            (200, 150, 12, 3),
        ] {
            let a = frame(w, h, depth, 11);
            let b = frame(w, h, depth, 12);
            let opts = SsimOptions {
                scale,
                enable_lcs: true,
                ..Default::default()
            };
            // Every plane, term and mean as raw bits (so -0.0 and 0.0 differ).
            let run = || {
                let g = check_geometry(w, h, depth, &opts).unwrap();
                let r = decimate::decimate_luma(&a.view(), g.scale).unwrap();
                let c = decimate::decimate_luma(&b.view(), g.scale).unwrap();
                let f = gaussian_filter_all(&r, &c).unwrap();
                let t = lcs_terms(&f);
                let s = score_frame(&a.view(), &b.view(), &opts).unwrap();
                let mut bytes = Vec::new();
                for p in [&r, &c, &f.mu_r, &f.mu_c, &f.s_rr, &f.s_cc, &f.s_rc] {
                    bytes.extend(p.to_le_bytes());
                }
                for v in [&t.ssim, &t.l, &t.c, &t.s] {
                    bytes.extend(v.iter().flat_map(|x| x.to_le_bytes()));
                }
                let lcs = s.lcs().expect("enable_lcs");
                for x in [s.ssim(), lcs[0], lcs[1], lcs[2]] {
                    bytes.extend(x.to_le_bytes());
                }
                bytes
            };
            let wide = run();
            simd::FORCE_PORTABLE.with(|f| f.set(true));
            let portable = run();
            simd::FORCE_PORTABLE.with(|f| f.set(false));
            assert!(wide == portable, "{w}x{h} {depth}-bit scale {scale}");
        }
    }

    #[test]
    fn identical_black_frames_score_exactly_one() {
        let a = LumaFrame::zeroed(64, 64, 8);
        let s = score_frame(&a.view(), &a.view(), &SsimOptions::default()).unwrap();
        assert_eq!((s.ssim(), s.lcs()), (1.0, None));
        assert_eq!(s.db(), None);
        let lcs = SsimOptions {
            enable_lcs: true,
            ..Default::default()
        };
        let s = score_frame(&a.view(), &a.view(), &lcs).unwrap();
        assert_eq!((s.ssim(), s.lcs()), (1.0, Some([1.0, 1.0, 1.0])));
        let opts = SsimOptions {
            enable_db: true,
            clip_db: true,
            ..Default::default()
        };
        let s = score_frame(&a.view(), &a.view(), &opts).unwrap();
        assert_eq!(s.db(), Some(db::max_db(64, 64, 8, true)));
        assert_eq!(s.float_ssim(), s.db().unwrap());
    }

    #[test]
    fn identical_frames_have_structure_exactly_one() {
        for depth in [8, 10, 12, 16] {
            let a = frame(96, 72, depth, depth);
            let opts = SsimOptions {
                enable_lcs: true,
                ..Default::default()
            };
            let s = score_frame(&a.view(), &a.view(), &opts).unwrap();
            assert_eq!(s.s(), Some(1.0), "{depth}-bit");
        }
    }

    #[test]
    fn mismatched_pairs_are_refused() {
        let a = frame(64, 48, 8, 1);
        let b = frame(64, 49, 8, 1);
        let e = score_frame(&a.view(), &b.view(), &SsimOptions::default()).unwrap_err();
        assert!(matches!(e, Error::GeometryMismatch(_)), "{e}");
        assert!(e.to_string().contains("64x48") && e.to_string().contains("64x49"));
        let c = frame(64, 48, 10, 1);
        let e = score_frame(&a.view(), &c.view(), &SsimOptions::default()).unwrap_err();
        assert!(e.to_string().contains("8-bit") && e.to_string().contains("10-bit"));
    }

    #[test]
    fn too_small_planes_are_errors_not_scores() {
        let a = frame(10, 100, 8, 1);
        assert!(matches!(
            score_frame(&a.view(), &a.view(), &SsimOptions::default()),
            Err(Error::PlaneTooSmall { .. })
        ));
        // 100x100 forced to scale 10 decimates to 10x10.
        let b = frame(100, 100, 8, 1);
        let opts = SsimOptions {
            scale: 10,
            ..Default::default()
        };
        assert!(matches!(
            score_frame(&b.view(), &b.view(), &opts),
            Err(Error::PlaneTooSmall {
                scale: 10,
                scaled_width: 10,
                ..
            })
        ));
        assert!(check_geometry(1920, 1080, 8, &SsimOptions::default()).is_ok());
        assert!(matches!(
            check_geometry(1920, 1080, 9, &SsimOptions::default()),
            Err(Error::Unsupported(_))
        ));
    }
}
