//! Pooling of per-frame values into one figure per metric ([`Pooled`]: `min`,
//! `max`, `mean`, `harmonic_mean`), computed exactly as libvmaf 2.3.1's
//! `vmaf_feature_score_pooled`: the same summation order (frame order) and the
//! same harmonic mean `n / sum(1 / (x + 1)) - 1`.
//!
//! libvmaf's writers pool over frame indices `0 ..= n - 1`, where `n` is the
//! number of frames written, skipping indices that its `subsample` leaves out.
//! With `subsample` above 1 that range covers only the first scored frames;
//! [`pool_indexed`] reproduces this so that files written with it equal
//! libvmaf's.

/// The four pooled values of one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
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
    ///
    /// ```
    /// let p = vkssim::testing::pool(&[0.5, 1.0]).unwrap();
    /// assert_eq!(p.named()[2], ("mean", 0.75));
    /// ```
    pub fn named(&self) -> [(&'static str, f64); 4] {
        [
            ("min", self.min),
            ("max", self.max),
            ("mean", self.mean),
            ("harmonic_mean", self.harmonic_mean),
        ]
    }
}

/// Pools `values` (one per frame, in frame order); `None` when there is none.
///
/// ```
/// let p = vkssim::testing::pool(&[0.5, 0.25, 1.0]).unwrap();
/// assert_eq!((p.min, p.max), (0.25, 1.0));
/// ```
pub fn pool(values: &[f64]) -> Option<Pooled> {
    pool_indexed(values.len() as u64, 1, |i| values.get(i as usize).copied())
}

/// Pools as libvmaf's writers do when `n` frames were written at `subsample`:
/// the values at frame indices `0 ..= n - 1` that `subsample` keeps (every
/// index when it is 0 or 1), from `value_at`. `None` when `n` is 0 or an
/// index in range has no value (libvmaf then fails the whole pool).
///
/// ```
/// // 10 frames at subsample 2: frames 0, 2, 4, 6, 8 written (n = 5);
/// // libvmaf pools indices 0, 2 and 4 only.
/// let values = [0.1, 0.0, 0.2, 0.0, 0.3, 0.0, 0.4, 0.0, 0.5, 0.0];
/// let p = vkssim::testing::pool_indexed(5, 2, |i| Some(values[i as usize])).unwrap();
/// assert_eq!(p.max, 0.3);
/// ```
pub fn pool_indexed(
    n: u64,
    subsample: u64,
    mut value_at: impl FnMut(u64) -> Option<f64>,
) -> Option<Pooled> {
    if n == 0 {
        return None;
    }
    let mut count = 0u64;
    let (mut min, mut max, mut sum, mut inv_sum) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        if subsample > 1 && i % subsample != 0 {
            continue;
        }
        let s = value_at(i)?;
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
    use super::*;

    #[test]
    fn pools_in_order() {
        let p = pool(&[0.5, 0.25, 1.0]).unwrap();
        assert_eq!(p.min, 0.25);
        assert_eq!(p.max, 1.0);
        assert_eq!(p.mean, (0.5 + 0.25 + 1.0) / 3.0);
        assert_eq!(
            p.harmonic_mean,
            3.0 / (1.0 / 1.5 + 1.0 / 1.25 + 1.0 / 2.0) - 1.0
        );
    }

    #[test]
    fn a_missing_index_fails_the_pool() {
        assert_eq!(pool_indexed(3, 1, |i| (i != 1).then_some(0.5)), None);
    }

    #[test]
    fn nothing_pools_nothing() {
        assert_eq!(pool(&[]), None);
    }
}
