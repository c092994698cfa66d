//! The pooled values of a report's metric, as libvmaf's writers pool them:
//! [`vkssim::testing::pool_indexed`] over the frames written, at the report's
//! subsample.

pub use vkssim::testing::Pooled;

use super::Report;

/// Pools metric number `metric` of `report` the way libvmaf does; `None` when no
/// frame was scored (libvmaf then writes no pooled values).
pub fn pool(report: &Report, metric: usize) -> Option<Pooled> {
    vkssim::testing::pool_indexed(report.frames.len() as u64, report.subsample, |i| {
        report.value_at(metric, i)
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn subsampled_runs_pool_like_libvmaf() {
        // 10 frames at subsample 2: frames 0, 2, 4, 6, 8 are written (n = 5),
        // and libvmaf pools indices 0, 2 and 4 only.
        let r = sample(2, 10, false);
        let p = pool(&r, 0).unwrap();
        let v = |i: u64| r.value_at(0, i).unwrap();
        assert_eq!(p.mean, (v(0) + v(2) + v(4)) / 3.0);
        assert_eq!(p.max, v(4));
    }

    #[test]
    fn nothing_scored_pools_nothing() {
        let r = sample(0, 0, false);
        assert_eq!(pool(&r, 0), None);
    }
}
