//! Pooling a model's per-frame outputs over a run, as libvmaf pools every
//! metric: [`crate::pool::pool`] (min, max, mean and harmonic mean, summed
//! in frame order).

use crate::pool::{pool, Pooled};

/// The pooled values of each output: `frames[i][j]` is output `j` of frame
/// `i` (every frame the same outputs); one [`Pooled`] per output, `None`
/// when there is no frame.
pub fn pool_outputs(frames: &[Vec<f64>]) -> Option<Vec<Pooled>> {
    let width = frames.first()?.len();
    (0..width)
        .map(|j| {
            let column: Vec<f64> = frames.iter().map(|f| f[j]).collect();
            pool(&column)
        })
        .collect()
}
