//! The end of every run: the [`Report`] of the frames it scored, written to
//! its output in the plan's format, or printed as a summary.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use vkssim::FrameScore;

use super::files;
use crate::output::{Format, Report, ScoredFrame};
use crate::plan::ScorePlan;

/// The report of a run of `plan` that scored `frames` of `width` x `height`
/// at `fps`.
pub fn report(
    plan: &ScorePlan,
    (width, height): (u32, u32),
    fps: f64,
    frames: &[(u64, FrameScore)],
) -> Report {
    let features = &plan.features;
    Report {
        version: super::VERSION.to_string(),
        width,
        height,
        fps,
        subsample: plan.selection.subsample,
        metrics: features.names(),
        frames: frames
            .iter()
            .map(|(index, score)| ScoredFrame {
                index: *index,
                values: features.values(score),
            })
            .collect(),
        precision: plan.outputs.precision,
    }
}

/// Writes `report` (to `output` in `format`, or as a summary) and gives the
/// exit status; with `error`, the frames scored before it are kept as
/// [`super`] says and the error is returned.
pub fn write_scores(
    output: Option<&Path>,
    format: Format,
    report: Report,
    error: Option<anyhow::Error>,
) -> Result<ExitCode> {
    let scored = report.frames.len();
    match (output, error) {
        (Some(path), error) => files::write_output(path, &report.render(format), scored, error),
        (None, None) => {
            crate::stdio::print(&report.summary())?;
            Ok(ExitCode::SUCCESS)
        }
        (None, Some(e)) => {
            if scored > 0 {
                crate::stdio::note(format!(
                    "vkssim: {scored} frame{} scored before the error (not printed: pass -o to keep partial scores)",
                    if scored == 1 { " was" } else { "s were" }
                ));
            }
            Err(e)
        }
    }
}
