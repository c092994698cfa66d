//! A frame's score from its terms buffer: the means from the device's
//! fixed-point partial sums where they settle them ([`crate::vk::reduce`]),
//! else the host's raster-order fp64 sum of the per-pixel terms (the
//! fallback, exactness.md §5); and how many threads do the summing.

use super::slots::Sizes;
use crate::cpu::{FrameMeans, TermSums};
use crate::metric::ssim;
use crate::vk::reduce;
use crate::{FrameScore, SsimOptions};

/// Host threads summing frames' terms at once (at most; fewer on small hosts);
/// [`crate::vk::VkOptions::sum_threads`] overrides it (the sums limit 1080p throughput on
/// the H200, see BENCHMARKS.md).
pub(super) const REDUCE_THREADS: usize = 4;

/// Summing threads: `asked` if positive, else the cores up to
/// [`REDUCE_THREADS`].
pub(super) fn sum_threads(asked: usize) -> usize {
    if asked > 0 {
        return asked;
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(REDUCE_THREADS)
}

/// A read-only pointer and length that may cross threads (see
/// [`super::VkScorer::dispatch`] for why the memory stays valid).
pub(super) struct SendConst(pub(super) *const u8, pub(super) usize);

// SAFETY: only used for a mapped buffer that nothing writes or frees while the
// receiving thread reads it (see `VkScorer::dispatch`).
unsafe impl Send for SendConst {}

/// A frame's score from its per-pixel terms (binary64, little-endian; the ssim
/// plane, then l, c and s with `enable_lcs`, then the workgroups' fixed-point
/// partial sums): the means of libvmaf's raster-order fp64 sums (exactness.md
/// §5), from the partial sums where they settle them ([`reduce::decide`]),
/// else (or always with `force_host`) from the host's own sum; then the CPU
/// twin's dB. Also whether the host had to sum. With `copy` the host copies the
/// term planes out of mapped memory in one block before summing them.
pub(super) fn score_terms(
    bytes: &[u8],
    sizes: &Sizes,
    opts: &SsimOptions,
    force_host: bool,
    copy: bool,
) -> (FrameScore, bool) {
    let n = sizes.valid_len() as usize;
    let word = |at: usize| -> u64 {
        let c = &bytes[at * 8..at * 8 + 8];
        u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
    };
    let plane_sum = |bytes: &[u8], k: usize| -> f64 {
        let mut sum = 0.0f64;
        for c in bytes[k * n * 8..(k + 1) * n * 8].chunks_exact(8) {
            sum += f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        }
        sum
    };
    let planes = if opts.enable_lcs { 4 } else { 1 };
    let fast = (!force_host)
        .then(|| {
            let base = planes * n;
            let mut fixed = [reduce::FixedSum {
                n: n as u64,
                ..Default::default()
            }; reduce::METRICS];
            let mut bad = 0u64;
            for g in 0..sizes.term_groups() as usize {
                let at = base + g * reduce::WORDS_PER_GROUP;
                for (k, f) in fixed.iter_mut().enumerate() {
                    f.sum += word(at + k) as i64 as i128;
                    f.abs_sum += word(at + reduce::METRICS + k) as i64 as i128;
                }
                bad += word(at + 2 * reduce::METRICS);
            }
            if bad != 0 {
                return None;
            }
            let mut means = FrameMeans {
                ssim: reduce::decide(&fixed[0])?,
                l: 0.0,
                c: 0.0,
                s: 0.0,
            };
            if opts.enable_lcs {
                means.l = reduce::decide(&fixed[1])?;
                means.c = reduce::decide(&fixed[2])?;
                means.s = reduce::decide(&fixed[3])?;
            }
            Some(means)
        })
        .flatten();
    let fell_back = fast.is_none();
    let means = fast.unwrap_or_else(|| {
        let local;
        let bytes = if copy {
            local = bytes[..planes * n * 8].to_vec();
            &local[..]
        } else {
            bytes
        };
        let mut sums = TermSums {
            ssim: plane_sum(bytes, 0),
            ..TermSums::default()
        };
        if opts.enable_lcs {
            sums.l = plane_sum(bytes, 1);
            sums.c = plane_sum(bytes, 2);
            sums.s = plane_sum(bytes, 3);
        }
        sums.means(sizes.hw, sizes.hh)
    });
    (ssim::frame_score(&means, &sizes.geometry, opts), fell_back)
}
