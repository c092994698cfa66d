//! `motion` as an [`Extractor`]: a temporal metric. A frame job carries the
//! previous frame's reference ([`Needs::previous_reference`]), so each frame
//! gives its own `integer_motion` on any worker ([`frame_outputs`]);
//! `integer_motion2` needs the next frame's motion too, so a frame reports
//! it as NaN and a run's collector fills it ([`Extractor::finish_run`]) once the
//! next frame (or the end of the run) is in.
//!
//! With [`MotionVersion::V3_2_0`] a frame gives 3.2.0's SAD score (and
//! `integer_motion` with `debug`), and the run fills `integer_motion2` and
//! `integer_motion3`, which 3.2.0 writes after every other extractor's
//! outputs ([`Extractor::flushed_names`]).

use super::{blur, check_size, motion2, motion_score, v32, MotionOptions, MotionVersion, FEATURE};
use crate::io::Chroma;
use crate::metric::extractor::{bool_text, Columns, Extractor, Needs, OutputName};
use crate::metric::MetricOutputs;
use crate::{LumaView, Result};

impl Extractor for MotionOptions {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn keys(&self) -> &'static [&'static str] {
        MotionOptions::keys(self)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        MotionOptions::set(self, key, value)
    }

    fn non_default(&self) -> Vec<String> {
        let d = MotionOptions::for_version(self.version);
        let mut v = Vec::new();
        if self.force_zero != d.force_zero {
            v.push(format!("motion_force_zero={}", bool_text(self.force_zero)));
        }
        if self.debug != d.debug {
            v.push(format!("debug={}", bool_text(self.debug)));
        }
        let numbers = [
            (self.blend_factor, d.blend_factor),
            (self.blend_offset, d.blend_offset),
            (self.fps_weight, d.fps_weight),
            (self.max_val, d.max_val),
        ];
        for (key, (value, default)) in MotionOptions::KEYS_V3_2_0[2..].iter().zip(numbers) {
            if value != default {
                v.push(format!("{key}={value}"));
            }
        }
        v
    }

    fn output_names(&self, _chroma: Chroma) -> Vec<OutputName> {
        MotionOptions::output_names(self)
            .into_iter()
            .map(Into::into)
            .collect()
    }

    fn check_frame(&self, width: u32, height: u32, bit_depth: u32, _chroma: Chroma) -> Result<()> {
        check_size(width, height, bit_depth, self)
    }

    fn needs(&self) -> Needs {
        Needs {
            previous_reference: true,
            vulkan: true,
            ..Needs::default()
        }
    }

    fn collected_names(&self, chroma: Chroma) -> Vec<OutputName> {
        if self.version == MotionVersion::V3_2_0 {
            return Extractor::output_names(self, chroma);
        }
        let (motion2_name, motion_name) = names(self);
        vec![motion2_name.into(), motion_name.into()]
    }

    fn frames_after(&self) -> usize {
        1
    }

    /// The frame's per-frame values as a stream's first frame's: those of
    /// `outputs_from_sad` with no previous frame (motion 0); the values the
    /// run fills (NaN until then) are left as they are.
    fn restart(&self, outputs: &mut MetricOutputs, size: (u32, u32)) {
        for (name, value) in outputs_from_sad(None, size, self).iter() {
            if !value.is_nan() {
                outputs.set(name, value);
            }
        }
    }

    fn flushed_names(&self, chroma: Chroma) -> Vec<OutputName> {
        match self.version {
            MotionVersion::V2_3_1 => Vec::new(),
            // motion2 and motion3, the last two.
            MotionVersion::V3_2_0 => {
                let mut names = Extractor::output_names(self, chroma);
                names.split_off(names.len() - 2)
            }
        }
    }

    fn finish_run(&self, columns: &mut Columns) {
        if self.version == MotionVersion::V3_2_0 {
            let opts = self.v32();
            let names = opts.output_names();
            if let Some(motion) = columns.get(&names[0]) {
                let starts = columns.starts_run();
                let (m2, m3): (Vec<f64>, Vec<f64>) = v32::motion2_motion3(motion, &opts, starts)
                    .into_iter()
                    .unzip();
                let last = names.len() - 1;
                columns.set(&names[last - 1], m2);
                columns.set(&names[last], m3);
            }
            return;
        }
        let (motion2_name, motion_name) = names(self);
        if let Some(raw) = columns.get(&motion_name) {
            let finished = motion2(raw);
            columns.set(&motion2_name, finished);
        }
    }
}

/// The names of `integer_motion2` and `integer_motion` for `opts`.
fn names(opts: &MotionOptions) -> (String, String) {
    let mut all = MotionOptions {
        debug: true,
        ..*opts
    }
    .output_names()
    .into_iter();
    let motion2 = all.next().unwrap_or_default();
    (motion2, all.next().unwrap_or_default())
}

/// One frame's `motion` outputs on the CPU twin: `integer_motion2` as NaN
/// (it needs the next frame: [`Extractor::finish_run`]) and `integer_motion`, the
/// SAD of this frame's blurred reference against `previous`'s (0 for the
/// first frame, `None`). `integer_motion` is reported even without `debug`:
/// the collector needs it (the output files list only the options' names).
pub(crate) fn frame_outputs(
    previous: Option<&LumaView<'_>>,
    reference: &LumaView<'_>,
    opts: &MotionOptions,
) -> Result<MetricOutputs> {
    if opts.version == MotionVersion::V3_2_0 {
        return frame_outputs_v32(previous, reference, opts);
    }
    let motion = if opts.force_zero {
        0.0
    } else {
        let current = blur(reference)?;
        let previous = previous.map(blur).transpose()?;
        motion_score(previous.as_ref(), &current, opts)?
    };
    let (motion2_name, motion_name) = names(opts);
    let mut out = MetricOutputs::new();
    out.push(motion2_name, f64::NAN);
    out.push(motion_name, motion);
    Ok(out)
}

/// One frame's outputs of libvmaf 3.2.0's motion: the SAD score of this
/// frame's reference against `previous`'s ([`v32::sad`]; 0 for the first
/// frame), `integer_motion` (the same value) with `debug`, and
/// `integer_motion2` and `integer_motion3` as NaN (the run fills them).
fn frame_outputs_v32(
    previous: Option<&LumaView<'_>>,
    reference: &LumaView<'_>,
    opts: &MotionOptions,
) -> Result<MetricOutputs> {
    let sad = match previous {
        Some(p) if !opts.force_zero => Some(v32::sad(p, reference)?),
        _ => None,
    };
    Ok(outputs_from_sad_v32(
        sad,
        (reference.width, reference.height),
        opts,
    ))
}

/// One frame's outputs of libvmaf 3.2.0's motion as [`frame_outputs`] gives
/// them, from the frame's [`v32::sad`] (`None` for the first frame) of a
/// `width` x `height` plane: the SAD score ([`v32::motion_from_sad`]),
/// `integer_motion` with `debug`, and `integer_motion2` and
/// `integer_motion3` as NaN (the run fills them).
fn outputs_from_sad_v32(
    sad: Option<u64>,
    (width, height): (u32, u32),
    opts: &MotionOptions,
) -> MetricOutputs {
    let v = opts.v32();
    let motion = v32::motion_from_sad(sad, width, height, &v);
    let names = v.output_names();
    let late = names.len() - 2;
    let mut out = MetricOutputs::new();
    for (k, name) in names.into_iter().enumerate() {
        out.push(name, if k < late { motion } else { f64::NAN });
    }
    out
}

/// One frame's `motion` outputs as [`frame_outputs`] gives them, for the
/// Vulkan engine, whose passes give the frame's sum `sad` against the
/// previous frame (`None` for the first frame) of a `width` x `height`
/// plane, each row's sum modulo 2^32, added in 64 bits: for libvmaf
/// 2.3.1's motion the sum of absolute differences of the blurred planes,
/// as [`motion_score`] forms it, then its float finish; for 3.2.0's
/// [`v32::sad`], then [`v32::motion_from_sad`].
pub(crate) fn outputs_from_sad(
    sad: Option<u64>,
    (width, height): (u32, u32),
    opts: &MotionOptions,
) -> MetricOutputs {
    if opts.version == MotionVersion::V3_2_0 {
        return outputs_from_sad_v32(sad, (width, height), opts);
    }
    let motion = sad
        .filter(|_| !opts.force_zero)
        .map_or(0.0, |sad| super::score::score_from_sad(sad, width, height));
    let (motion2_name, motion_name) = names(opts);
    let mut out = MetricOutputs::new();
    out.push(motion2_name, f64::NAN);
    out.push(motion_name, motion);
    out
}

/// `motion`'s CPU twin: [`frame_outputs`] on the luma planes.
impl crate::cpu::metrics::OutputsTwin for MotionOptions {
    fn outputs(&self, pair: &crate::cpu::metrics::TwinPair<'_, '_>) -> Result<MetricOutputs> {
        let (r, _) = pair.luma();
        frame_outputs(pair.previous, r, self)
    }
}
