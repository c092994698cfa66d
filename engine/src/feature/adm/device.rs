//! What the device passes of `adm` (`glsl/adm_*.comp`,
//! `engine/src/vk/scorer/metric/adm.rs`) take from the CPU twin: each scale's
//! sizes, active window and fixed-point constants ([`scale_plans`]), and the
//! host's per-frame finish from the integer row sums the passes write
//! ([`scores_from_rows`]), the same functions the CPU twin finishes with.

use super::factors::{scale_factors, ScaleFactors};
use super::window::Window;
use super::{denominator, finish, masking, AdmOptions, AdmScores};

/// One scale's constants for the device passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ScalePlan {
    /// The bands' width and height.
    pub size: (u32, u32),
    /// The wavelet's input: the picture (scale 0) or the scale before's
    /// approximation band.
    pub source: (u32, u32),
    /// The active window: top, bottom, left, right (half-open).
    pub window: [u32; 4],
    /// The contrast sensitivity factors of h, v and d: the fixed-point ones
    /// the passes multiply by, the binary32 ones the host's finish cubes.
    pub factors: ScaleFactors,
    /// The numerator's per-pixel cube shifts of h, v and d.
    pub numerator_shifts: [u32; 3],
    /// The denominator's per-pixel square and cube shifts (scales 1 to 3;
    /// zero at scale 0, whose cubes are exact).
    pub denominator_shifts: (u32, u32),
}

/// The four scales' plans for `width x height` pictures (checked by the
/// caller) and options `opts`.
pub(crate) fn scale_plans(width: u32, height: u32, opts: &AdmOptions) -> [ScalePlan; 4] {
    let factors = scale_factors(opts.norm_view_dist, opts.ref_display_height);
    let mut source = (width, height);
    std::array::from_fn(|scale| {
        let size = (source.0.div_ceil(2), source.1.div_ceil(2));
        let (w, h) = (size.0 as usize, size.1 as usize);
        let win = Window::of(w, h);
        let plan = ScalePlan {
            size,
            source,
            window: [win.top, win.bottom, win.left, win.right].map(|v| v as u32),
            factors: factors[scale],
            numerator_shifts: masking::cube_shifts((w, h), scale),
            denominator_shifts: if scale == 0 {
                (0, 0)
            } else {
                denominator::cube_shifts(w, scale)
            },
        };
        source = size;
        plan
    })
}

/// Rows of the active window of a scale.
impl ScalePlan {
    pub(crate) fn window_rows(&self) -> u32 {
        self.window[1] - self.window[0]
    }
}

/// One scale's row sums: the numerator's h, v, d cubes (int64) and the
/// denominator's (uint64), one entry per active-window row, top first.
pub(crate) type ScaleRows = (Vec<[i64; 3]>, Vec<[u64; 3]>);

/// One frame's scores from each scale's row sums of the numerator's and the
/// denominator's cubes (active-window rows, top first), as the CPU twin
/// finishes them.
pub(crate) fn scores_from_rows(
    plans: &[ScalePlan; 4],
    rows: &[ScaleRows; 4],
    (width, height): (u32, u32),
) -> AdmScores {
    let mut num = [0f32; 4];
    let mut den = [0f32; 4];
    for (scale, (plan, (n, d))) in plans.iter().zip(rows).enumerate() {
        let size = (plan.size.0 as usize, plan.size.1 as usize);
        num[scale] = masking::numerator_from_rows(n, size, scale);
        den[scale] = denominator::denominator_from_rows(d, size, &plan.factors, scale);
    }
    finish(num, den, width, height)
}
