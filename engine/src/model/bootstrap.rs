//! A bootstrap collection's per-frame outputs (`vmaf_b_v0.6.3`), as
//! libvmaf's `vmaf_predict_score_at_index_model_collection`: every member's
//! own score, and from the members' raw scores (no transform, no clip) their
//! mean (`bagging`), population standard deviation and 95% interval, each put
//! through the first model's transform and clip.

use super::predict::{ModelFlags, SvmModel};

/// Suffixes of the collection outputs after the members' own scores.
pub(crate) const SUMMARY: [&str; 4] = ["bagging", "stddev", "ci_p95_lo", "ci_p95_hi"];

/// The linear interpolation at percentile `p` of the ascending `sorted`:
/// at `pos = p·(n−1)/100`, `sorted[i]·(1 − f) + sorted[i+1]·f` with `i` its
/// whole and `f` its fractional part (this form, not `a + f·(b − a)`, gives
/// libvmaf's bits).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let pos = p * (n - 1) as f64 / 100.0;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let frac = pos - lo as f64;
    sorted[lo] * (1.0 - frac) + sorted[hi] * frac
}

/// The collection outputs for one frame: each member's score (with `flags`),
/// then bagging, stddev, ci_p95_lo and ci_p95_hi. `members` pairs each
/// member with its feature values; `first` is the collection's entry 0,
/// whose transform and clip the summary values take.
pub(crate) fn collection_scores<'a>(
    first: &SvmModel,
    members: impl ExactSizeIterator<Item = (&'a SvmModel, Vec<f64>)>,
    flags: ModelFlags,
) -> Vec<f64> {
    let mut out = Vec::with_capacity(members.len() + SUMMARY.len());
    let mut raw = Vec::with_capacity(members.len());
    for (m, f) in members {
        let r = m.raw(&f);
        raw.push(r);
        out.push(m.finish(r, flags));
    }
    let n = raw.len() as f64;
    let mut sum = 0.0f64;
    for r in &raw {
        sum += r;
    }
    let mean = sum / n;
    let mut ss = 0.0f64;
    for r in &raw {
        let d = r - mean;
        ss += d * d;
    }
    let stddev = (ss / n).sqrt();
    let mut sorted = raw.clone();
    sorted.sort_by(f64::total_cmp);
    let lo = percentile(&sorted, 2.5);
    let hi = percentile(&sorted, 97.5);
    let t = |s: f64| first.finish(s, flags);
    let slope = (t(mean + 0.01) - t(mean - 0.01)) / 0.02;
    out.extend([t(mean), stddev * slope, t(lo), t(hi)]);
    out
}
