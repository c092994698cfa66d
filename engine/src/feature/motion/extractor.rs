//! `motion` as an [`Extractor`]: a temporal metric. A frame job carries the
//! previous frame's reference ([`Needs::previous_reference`]), so each frame
//! gives its own `integer_motion` on any worker ([`frame_outputs`]);
//! `integer_motion2` needs the next frame's motion too, so a frame reports
//! it as NaN and a run's collector fills it ([`Extractor::finish_run`]) once the
//! next frame (or the end of the run) is in.

use super::{blur, check_size, motion2, motion_score, MotionOptions, FEATURE};
use crate::io::Chroma;
use crate::metric::extractor::{bool_text, Columns, Extractor, Needs, OutputName};
use crate::metric::MetricOutputs;
use crate::{LumaView, Result};

impl Extractor for MotionOptions {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn keys(&self) -> &'static [&'static str] {
        &Self::KEYS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        MotionOptions::set(self, key, value)
    }

    fn non_default(&self) -> Vec<String> {
        let d = MotionOptions::default();
        let mut v = Vec::new();
        if self.force_zero != d.force_zero {
            v.push(format!("motion_force_zero={}", bool_text(self.force_zero)));
        }
        if self.debug != d.debug {
            v.push(format!("debug={}", bool_text(self.debug)));
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
            ..Needs::default()
        }
    }

    fn collected_names(&self, _chroma: Chroma) -> Vec<OutputName> {
        let (motion2_name, motion_name) = names(self);
        vec![motion2_name.into(), motion_name.into()]
    }

    fn finish_run(&self, columns: &mut Columns) {
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

/// `motion`'s CPU twin: [`frame_outputs`] on the luma planes.
impl crate::cpu::metrics::OutputsTwin for MotionOptions {
    fn outputs(&self, pair: &crate::cpu::metrics::TwinPair<'_, '_>) -> Result<MetricOutputs> {
        let (r, _) = pair.luma();
        frame_outputs(pair.previous, r, self)
    }
}
