//! What the SSIM stage's means are made from, for the metrics that run it:
//! the terms pass's per-workgroup fixed-point partial sums
//! ([`crate::vk::reduce`]) and the host's raster-order fp64 sum of the
//! per-pixel terms (the fallback, docs/exactness.md §5); and how many
//! threads decide frames ([`super::metric::GpuMetric::reduce`]).

use crate::vk::reduce;

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
