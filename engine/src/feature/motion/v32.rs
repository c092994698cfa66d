//! libvmaf 3.2.0's motion (the second, selectable target; 3.2.0 and master
//! agree): the blur runs on the *difference* of two consecutive reference
//! frames, mirrors with reflect-101, and finishes in double; it reports the
//! SAD score under its long name, `integer_motion2` and `integer_motion3`
//! (a blend of motion2), and `integer_motion` only with `debug`.
//!
//! Per frame n > 0, from the luma of frames n-1 (`previous`) and n:
//! 1. d = previous - current per sample, in 32 bits;
//! 2. vertically, (Σ tap·d + 2^(bpc-1)) >> bpc (an arithmetic shift, 64-bit
//!    sums), then horizontally (Σ tap·v + 32768) >> 16, with the taps of
//!    [`FILTER`](super::FILTER) and reflect-101 at every edge (-1 reads 1,
//!    n reads n-2);
//! 3. SAD = Σ |result|, per row in 32 bits (wrapping), over rows in 64;
//! 4. motion = min(SAD / 256 / (width·height) · fps_weight, max_val), in
//!    double. Frame 0 scores 0.
//!
//! Over the stream (libvmaf computes these at flush, from every frame's
//! motion): motion2 is libvmaf 2.3.1's min rule ([`super::motion2`]), and
//! motion3\[n\] = blend(motion2\[n\]) for n > 0, but motion3\[0\] =
//! blend(motion\[1\]) (0 for a one-frame stream), where blend(x) =
//! factor·x + (1 - factor)·min(x, offset). The rules of motion3 were found
//! by measuring a libvmaf 3.2.0 `vmaf` CLI, not read from its source.
//!
//! Options measured on that CLI (their names; bounds where it refused a value):
//! `motion_force_zero` (false), `debug` (false), `motion_fps_weight` (1,
//! from 0 to 5), `motion_max_val` (10000 is the largest it takes, and
//! clipping at the default was never seen), `motion_blend_factor` (1, from
//! 0 to 1), `motion_blend_offset` (40). `motion_moving_average` and
//! `motion_five_frame_window` are not reproduced here: [`check_options`]
//! refuses them.

use super::FILTER;
use crate::model::features::format_g;
use crate::{Error, LumaView, Result};

/// The SAD score's output name (3.2.0 prints it unaliased).
pub const SAD: &str = "VMAF_integer_feature_motion_sad_score";

/// The blended motion2 output.
pub const MOTION3: &str = "integer_motion3";

/// libvmaf 3.2.0's motion options (the `Default` is libvmaf's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion32Options {
    /// `motion_force_zero`: every output is 0 (names get `_force_0`).
    pub force_zero: bool,
    /// `debug`: also report `integer_motion` (default false from 3.2.0).
    pub debug: bool,
    /// `motion_fps_weight`: multiplies every motion (default 1).
    pub fps_weight: f64,
    /// `motion_max_val`: every motion is clipped to it (default 10000).
    pub max_val: f64,
    /// `motion_blend_factor` of motion3's blend (default 1: no blend).
    pub blend_factor: f64,
    /// `motion_blend_offset` of motion3's blend (default 40).
    pub blend_offset: f64,
    /// `motion_moving_average` (not reproduced; must stay false).
    pub moving_average: bool,
    /// `motion_five_frame_window` (not reproduced; must stay false).
    pub five_frame_window: bool,
}

impl Default for Motion32Options {
    fn default() -> Self {
        Self {
            force_zero: false,
            debug: false,
            fps_weight: 1.0,
            max_val: 10000.0,
            blend_factor: 1.0,
            blend_offset: 40.0,
            moving_average: false,
            five_frame_window: false,
        }
    }
}

impl Motion32Options {
    /// The per-frame output names in libvmaf 3.2.0's order: the SAD score,
    /// `integer_motion` (with `debug`), `integer_motion2`, `integer_motion3`,
    /// each with [`Motion32Options::name_suffix`].
    pub fn output_names(&self) -> Vec<String> {
        let suffix = self.name_suffix();
        let mut names = vec![SAD.to_string()];
        if self.debug {
            names.push(super::MOTION.to_string());
        }
        names.extend([super::MOTION2, MOTION3].map(String::from));
        names.into_iter().map(|n| n + &suffix).collect()
    }

    /// What 3.2.0 appends to every output name (measured on its `vmaf`):
    /// `_force_0` under `force_zero`, then for each number option that is
    /// not its default, in this order, `_mbf_`, `_mbo_`, `_mfw_`, `_mmxv_`
    /// and the value as C's `%g` prints it (`_mfw_1.7`, `_mmxv_1e-07`).
    pub fn name_suffix(&self) -> String {
        let d = Self::default();
        let mut suffix = String::new();
        if self.force_zero {
            suffix += super::FORCE_ZERO_SUFFIX;
        }
        let values = [
            (self.blend_factor, d.blend_factor),
            (self.blend_offset, d.blend_offset),
            (self.fps_weight, d.fps_weight),
            (self.max_val, d.max_val),
        ];
        for (key, (value, default)) in super::version::NUMBER_KEYS.iter().zip(values) {
            if value != default {
                suffix += &format!("_{}_{}", key.alias, format_g(value));
            }
        }
        suffix
    }
}

/// [`Error::Unsupported`] for the options this twin does not reproduce
/// (`motion_moving_average`, `motion_five_frame_window`).
pub fn check_options(opts: &Motion32Options) -> Result<()> {
    if opts.moving_average || opts.five_frame_window {
        return Err(Error::Unsupported(
            "motion (libvmaf 3.2.0): motion_moving_average and motion_five_frame_window".into(),
        ));
    }
    Ok(())
}

/// libvmaf 3.2.0's mirror: reflect-101 on both sides (-1 reads 1, n reads
/// n-2). `n >= 3`.
#[inline]
fn reflect101(i: isize, n: usize) -> usize {
    if i < 0 {
        (-i) as usize
    } else if i as usize >= n {
        2 * n - i as usize - 2
    } else {
        i as usize
    }
}

/// The SAD of frame `current` against the frame read before it
/// (`previous`): the blur of their difference, summed in absolute value
/// (steps 1 to 3 of the module's list). [`Error::Unsupported`] for a frame
/// [`super::check_size`] refuses, [`Error::InvalidOption`] when the two
/// frames' geometries differ.
pub fn sad(previous: &LumaView<'_>, current: &LumaView<'_>) -> Result<u64> {
    let (w, h, bpc) = (current.width, current.height, current.bit_depth);
    super::check_size(w, h, bpc, &super::MotionOptions::default())?;
    if (previous.width, previous.height, previous.bit_depth) != (w, h, bpc) {
        return Err(Error::InvalidOption(format!(
            "motion: the previous frame is {}x{} {}-bit, the current one {w}x{h} {bpc}-bit",
            previous.width, previous.height, previous.bit_depth
        )));
    }
    let (w, h) = (w as usize, h as usize);
    let round_v = 1i64 << (bpc - 1);
    let mut vertical = vec![0i64; w];
    let mut total = 0u64;
    for y in 0..h {
        let rows = [-2isize, -1, 0, 1, 2].map(|d| reflect101(y as isize + d, h));
        for (x, out) in vertical.iter_mut().enumerate() {
            let sum = rows.iter().zip(FILTER).fold(0i64, |acc, (&r, tap)| {
                let d = previous.sample(x, r) as i32 - current.sample(x, r) as i32;
                acc + tap as i64 * d as i64
            });
            *out = (sum + round_v) >> bpc;
        }
        let mut row = 0u32;
        for x in 0..w {
            let sum = FILTER.iter().enumerate().fold(0i64, |acc, (k, &tap)| {
                acc + tap as i64 * vertical[reflect101(x as isize + k as isize - 2, w)]
            });
            row = row.wrapping_add(((sum + 32768) >> 16).unsigned_abs() as u32);
        }
        total += row as u64;
    }
    Ok(total)
}

/// The motion of a frame of `width`x`height` from its [`sad`] (`None` for
/// frame 0, or under `force_zero`: 0): step 4 of the module's list.
pub fn motion_from_sad(sad: Option<u64>, width: u32, height: u32, opts: &Motion32Options) -> f64 {
    match sad.filter(|_| !opts.force_zero) {
        None => 0.0,
        Some(sad) => {
            let m = sad as f64 / 256.0 / (width as f64 * height as f64) * opts.fps_weight;
            if m > opts.max_val {
                opts.max_val
            } else {
                m
            }
        }
    }
}

/// motion3's blend of one value: factor·x + (1 - factor)·min(x, offset).
fn blend(x: f64, opts: &Motion32Options) -> f64 {
    let low = if x < opts.blend_offset {
        x
    } else {
        opts.blend_offset
    };
    opts.blend_factor * x + (1.0 - opts.blend_factor) * low
}

/// Every frame's `(integer_motion2, integer_motion3)` from every frame's
/// motion ([`motion_from_sad`]), in frame order: what libvmaf 3.2.0
/// computes at flush, for the whole stream when `starts_stream`, else for
/// frames of a stream from a later frame on (a streaming queue's window,
/// each of whose frames but the last has the next frame's motion after it).
pub fn motion2_motion3(
    motion: &[f64],
    opts: &Motion32Options,
    starts_stream: bool,
) -> Vec<(f64, f64)> {
    let motion2 = super::motion2(motion);
    motion2
        .iter()
        .enumerate()
        .map(|(n, &m2)| {
            let m3 = match n {
                0 if starts_stream => blend(motion.get(1).copied().unwrap_or(0.0), opts),
                _ => blend(m2, opts),
            };
            (m2, m3)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflect101_mirrors_without_repeating_edges() {
        let got: Vec<usize> = (-2..7).map(|i| reflect101(i, 5)).collect();
        assert_eq!(got, [2, 1, 0, 1, 2, 3, 4, 3, 2]);
    }

    #[test]
    fn motion3_rules() {
        let d = Motion32Options::default();
        assert_eq!(
            motion2_motion3(&[0.0, 5.0, 3.0], &d, true),
            [(0.0, 5.0), (3.0, 3.0), (3.0, 3.0)]
        );
        assert_eq!(motion2_motion3(&[0.0], &d, true), [(0.0, 0.0)]);
        // A window from frame 1 on finishes frame 1 as the whole stream does.
        assert_eq!(
            motion2_motion3(&[5.0, 3.0], &d, false),
            [(3.0, 3.0), (3.0, 3.0)]
        );
        let half = Motion32Options {
            blend_factor: 0.5,
            ..d
        };
        assert_eq!(blend(100.0, &half), 70.0);
        assert_eq!(
            Motion32Options::default().output_names(),
            [SAD, "integer_motion2", "integer_motion3"]
        );
    }
}
