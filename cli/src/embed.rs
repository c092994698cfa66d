//! `vkssim score` for a front end other than the command line (the Python
//! package, `python/`): the flags after `score` parsed by the same parser
//! into the same [`ScorePlan`], the same checks, engine choice and pipeline,
//! and the same [`Report`], returned instead of written; its
//! [`Report::render`] is the text of the command line's file.
//!
//! Frames the front end holds in memory are scored on the engine the plan
//! starts ([`start_engine`]) and reported by the same [`report`].

use std::ffi::OsString;

use anyhow::{anyhow, Result};
use vkssim::io::VideoFormat;
use vkssim::metric::MetricSet;
use vkssim::FrameScore;

pub use crate::backend::Engine;
pub use crate::output::{Format, Report, ScoredFrame};
pub use crate::pipeline::Selection;
pub use crate::plan::{Mode, ScorePlan};
pub use crate::score::pair::{prepare, Prepared, Scored};

/// The plan of `vkssim score ARGS` (`args`: the flags after `score`), as
/// the command line resolves it, with the `VKSSIM_*` variables it reads. A
/// flag clap refuses is an error with clap's message (without its usage
/// lines).
pub fn plan(args: &[OsString]) -> Result<ScorePlan> {
    let mut argv = vec![OsString::from("vkssim"), OsString::from("score")];
    argv.extend(args.iter().cloned());
    let cli = <crate::args::Cli as clap::Parser>::try_parse_from(argv)
        .map_err(|e| anyhow!(clap_message(&e)))?;
    let crate::args::Command::Score(mut score) = cli.command else {
        return Err(anyhow!("not a score command"));
    };
    score.engine.env = crate::env_vars::read()?;
    ScorePlan::resolve(&score, None)
}

/// clap's message for `e`: its lines up to the first blank one, without the
/// leading `error: `.
fn clap_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let head: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).collect();
    head.join("\n")
        .trim_start_matches("error: ")
        .trim()
        .to_string()
}

/// The metrics of `plan` checked for frames of `format` (not from a Y4M
/// file), as a run of files checks them.
pub fn metric_set(plan: &ScorePlan, format: VideoFormat) -> Result<MetricSet> {
    crate::score::open::metric_set(&plan.features, format, false)
}

/// The frame selection a run of `plan` with `metrics` scores (every frame
/// when a metric has an aggregate value and the plan subsamples).
pub fn run_selection(plan: &ScorePlan, metrics: &MetricSet) -> Selection {
    crate::score::open::run_selection(plan.selection, metrics)
}

/// Starts the engine `plan` asks for (`--backend`, `--device`, ...) for
/// `metrics` on frames of `format`, as a run of files does.
pub fn start_engine(plan: &ScorePlan, metrics: &MetricSet, format: VideoFormat) -> Result<Engine> {
    crate::score::open::start_engine(&plan.backend, metrics, format, 0, true)
}

/// The report of `frames` (pair index and score, in order) scored at `fps`
/// on frames of `size` with `metrics`, as a run of files reports them.
pub fn report(
    plan: &ScorePlan,
    metrics: &MetricSet,
    size: (u32, u32),
    fps: f64,
    frames: &[(u64, FrameScore)],
) -> anyhow::Result<Report> {
    crate::score::report::report(plan, metrics, size, fps, frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_is_the_command_lines() {
        let args: Vec<OsString> = ["-r", "a.y4m", "-d", "b.y4m", "--feature", "psnr"]
            .iter()
            .map(OsString::from)
            .collect();
        let plan = plan(&args).unwrap();
        assert_eq!(plan.mode, Mode::Pair);
        assert_eq!(plan.features.configs().len(), 1);
    }

    #[test]
    fn a_refused_flag_keeps_clap_message_only() {
        let args: Vec<OsString> = ["-r", "a", "-d", "b", "--backend", "gpu"]
            .iter()
            .map(OsString::from)
            .collect();
        let e = plan(&args).unwrap_err().to_string();
        assert!(e.starts_with("invalid value 'gpu' for '--backend"), "{e}");
        assert!(!e.contains("For more information"), "{e}");
    }
}
