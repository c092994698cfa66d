//! The end of every run: the [`Report`] of the frames it scored, written to
//! its output in the plan's format, or printed as a summary.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use vkssim::metric::{MetricSet, Summary};
use vkssim::FrameScore;

use super::files;
use crate::output::{Format, Report, ScoredFrame};
use crate::plan::ScorePlan;

/// The report of a run of `plan` that scored `frames` of `width` x `height`
/// at `fps` with `metrics`: every output by name of the frames `--subsample`
/// keeps, and the run's aggregate values over every frame scored (with an
/// aggregate value the run scores every frame: [`super::open::run_selection`]).
pub fn report(
    plan: &ScorePlan,
    metrics: &MetricSet,
    (width, height): (u32, u32),
    fps: f64,
    frames: &[(u64, FrameScore)],
) -> Result<Report> {
    let mut summary = Summary::with_models(metrics, &plan.features.models()?);
    for (_, score) in frames {
        summary.add(score);
    }
    // The collector's columns: values that need later frames filled, the
    // models run on every frame.
    let columns = summary.columns()?;
    let step = plan.selection.subsample.max(1);
    Ok(Report {
        version: super::VERSION.to_string(),
        width,
        height,
        fps,
        subsample: plan.selection.subsample,
        frames: frames
            .iter()
            .enumerate()
            .filter(|(_, (index, _))| index % step == 0)
            .map(|(row, (index, _))| ScoredFrame {
                index: *index,
                values: columns.iter().map(|(_, c)| c[row]).collect(),
            })
            .collect(),
        metrics: columns.iter().map(|(n, _)| n.to_string()).collect(),
        aggregate: summary
            .aggregate()?
            .iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect(),
        precision: plan.outputs.precision,
    })
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
