//! The pooled values (`min`, `max`, `mean`, `harmonic_mean`), computed exactly as
//! libvmaf 2.3.1's `vmaf_feature_score_pooled`: the same summation order and the
//! same harmonic mean `n / sum(1 / (x + 1)) - 1`.
//!
//! libvmaf's writers pool over frame indices `0 ..= n - 1`, where `n` is the
//! number of frames written, skipping indices that `--subsample` leaves out. With
//! `--subsample` above 1 that range covers only the first scored frames; vkssim
//! reproduces this so its files equal `vmaf`'s.

use super::Report;

/// The four pooled values of one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pooled {
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean, summed in frame order.
    pub mean: f64,
    /// `n / sum(1 / (x + 1)) - 1`.
    pub harmonic_mean: f64,
}

impl Pooled {
    /// The values with libvmaf's names, in libvmaf's order.
    pub fn named(&self) -> [(&'static str, f64); 4] {
        [
            ("min", self.min),
            ("max", self.max),
            ("mean", self.mean),
            ("harmonic_mean", self.harmonic_mean),
        ]
    }
}

/// Pools metric number `metric` of `report` the way libvmaf does; `None` when no
/// frame was scored (libvmaf then writes no pooled values).
pub fn pool(report: &Report, metric: usize) -> Option<Pooled> {
    let n = report.frames.len() as u64;
    if n == 0 {
        return None;
    }
    let mut count = 0u64;
    let (mut min, mut max, mut sum, mut inv_sum) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        if report.subsample > 1 && i % report.subsample != 0 {
            continue;
        }
        // libvmaf fails the whole pool when an index in range has no score.
        let s = report.value_at(metric, i)?;
        count += 1;
        sum += s;
        inv_sum += 1.0 / (s + 1.0);
        if i == 0 || s < min {
            min = s;
        }
        if i == 0 || s > max {
            max = s;
        }
    }
    Some(Pooled {
        min,
        max,
        mean: sum / count as f64,
        harmonic_mean: count as f64 / inv_sum - 1.0,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn pools_in_order() {
        let mut r = sample(0, 3, false);
        r.frames[0].values[0] = 0.5;
        r.frames[1].values[0] = 0.25;
        r.frames[2].values[0] = 1.0;
        let p = pool(&r, 0).unwrap();
        assert_eq!(p.min, 0.25);
        assert_eq!(p.max, 1.0);
        assert_eq!(p.mean, (0.5 + 0.25 + 1.0) / 3.0);
        assert_eq!(
            p.harmonic_mean,
            3.0 / (1.0 / 1.5 + 1.0 / 1.25 + 1.0 / 2.0) - 1.0
        );
    }

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
