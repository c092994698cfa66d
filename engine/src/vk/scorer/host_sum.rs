//! A frame's score: the means from the device's fixed-point partial sums
//! where they settle them ([`crate::vk::reduce`]), else from the host's
//! raster-order fp64 sum of the per-pixel terms (the fallback, docs/exactness.md
//! §5), for which the terms are copied back from device memory; and how many
//! threads do the deciding.

use super::slots::Sizes;
use crate::cpu::{FrameMeans, TermSums};
use crate::metric::ssim;
use crate::vk::reduce;
use crate::{FrameScore, SsimOptions};

/// Host threads deciding frames at once (at most; fewer on small hosts);
/// [`crate::vk::EngineOptions::sum_threads`] overrides it.
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

/// Little-endian 64-bit word `at` of `bytes`.
fn word(bytes: &[u8], at: usize) -> u64 {
    let c = &bytes[at * 8..at * 8 + 8];
    u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
}

/// The fixed-point sums of ssim, l, c and s over `n` terms from the terms
/// pass's `groups` per-workgroup records in `partials`; `None` when a term
/// could not be converted (the host must sum).
pub(super) fn fixed_sums(
    partials: &[u8],
    groups: u64,
    n: u64,
) -> Option<[reduce::FixedSum; reduce::METRICS]> {
    let mut fixed = [reduce::FixedSum {
        n,
        ..Default::default()
    }; reduce::METRICS];
    let mut bad = 0u64;
    for g in 0..groups as usize {
        let at = g * reduce::WORDS_PER_GROUP;
        for (k, f) in fixed.iter_mut().enumerate() {
            f.sum += word(partials, at + k) as i64 as i128;
            f.abs_sum += word(partials, at + reduce::METRICS + k) as i64 as i128;
        }
        bad += word(partials, at + 2 * reduce::METRICS);
    }
    (bad == 0).then_some(fixed)
}

/// libvmaf's raster-order fp64 sum of plane `k` of `n` binary64 terms
/// (little-endian) in `terms`.
pub(super) fn plane_sum(terms: &[u8], k: usize, n: usize) -> f64 {
    let mut sum = 0.0f64;
    for c in terms[k * n * 8..(k + 1) * n * 8].chunks_exact(8) {
        sum += f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    }
    sum
}

/// A frame's score from the terms pass's per-workgroup fixed-point partial
/// sums (`partials`: [`reduce::WORDS_PER_GROUP`] little-endian words per
/// workgroup) when they settle every mean ([`reduce::decide`]); `None` when the
/// host must sum the per-pixel terms in raster order ([`score_terms`]), and
/// always under `force_host`.
pub(super) fn score_partials(
    partials: &[u8],
    sizes: &Sizes,
    opts: &SsimOptions,
    force_host: bool,
) -> Option<FrameScore> {
    if force_host {
        return None;
    }
    let fixed = fixed_sums(partials, sizes.term_groups(), sizes.valid_len())?;
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
    Some(ssim::frame_score(&means, &sizes.geometry, opts))
}

/// A frame's score from its per-pixel terms (`terms`: binary64,
/// little-endian; the ssim plane, then l, c and s with `enable_lcs`), copied
/// back from the device: libvmaf's raster-order fp64 sums (docs/exactness.md §5),
/// then the CPU twin's means and dB.
pub(super) fn score_terms(terms: &[u8], sizes: &Sizes, opts: &SsimOptions) -> FrameScore {
    let n = sizes.valid_len() as usize;
    let plane_sum = |k: usize| plane_sum(terms, k, n);
    let mut sums = TermSums {
        ssim: plane_sum(0),
        ..TermSums::default()
    };
    if opts.enable_lcs {
        sums.l = plane_sum(1);
        sums.c = plane_sum(2);
        sums.s = plane_sum(3);
    }
    let means = sums.means(sizes.hw, sizes.hh);
    ssim::frame_score(&means, &sizes.geometry, opts)
}
