//! `vkssim score` for a front end other than the command line (the Python
//! package, `python/`): the front end's options set as typed values on
//! [`ScoreArgs`] (no argument list, no parser; its own range and type checks
//! made before), resolved into the same [`ScorePlan`] by the same checks,
//! each error naming the option as [`ScoreArgs::spelling`] says (the Python
//! keyword, never a flag); the same engine choice and pipeline, and the same
//! [`Report`], returned instead of written; its [`Report::render`] is the
//! text of the command line's file.
//!
//! Frames the front end holds in memory are scored on the engine the plan
//! starts ([`start_engine`]) and reported by the same [`report`].

use anyhow::Result;
use vkssim::io::VideoFormat;
use vkssim::metric::MetricSet;
use vkssim::FrameScore;

pub use crate::args::{
    Backend, DeviceChoice, ScoreArgs, Upload, MAX_DECODE_THREADS, MAX_DEVICES,
    MAX_FRAMES_IN_FLIGHT, MAX_READ_THREADS, MAX_THREADS,
};
pub use crate::backend::Engine;
pub use crate::output::{Format, Precision, Report, ScoredFrame};
pub use crate::pipeline::Selection;
pub use crate::plan::{Mode, Opt, ScorePlan, Spelling};
pub use crate::score::pair::{prepare, Prepared, Scored};

/// The plan of `args` (a front end's options, set as typed values), as the
/// command line resolves its flags, with the `VKSSIM_*` variables it reads.
pub fn plan(mut args: ScoreArgs) -> Result<ScorePlan> {
    args.engine.env = crate::env_vars::read()?;
    ScorePlan::resolve(&args, None)
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

/// [`start_engine`] for frames handed out as they are scored: each result
/// also carries the plan's model outputs (`vmaf`, ...) and the values that
/// need the next frame (`integer_motion2`), the last frame's after
/// `finish()`.
pub fn start_streaming(
    plan: &ScorePlan,
    metrics: &MetricSet,
    format: VideoFormat,
) -> Result<Engine> {
    let size = (format.width, format.height, format.bit_depth);
    let models = plan.features.models()?;
    let models = (&models, plan.features.motion_version());
    crate::backend::start_with_models(&plan.backend, metrics, models, size, 0, true)
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
        let mut args = ScoreArgs::pair("a.y4m".into(), "b.y4m".into());
        args.feature = vec!["float_ssim".into()];
        args.model.clear();
        let plan = plan(args).unwrap();
        assert_eq!(plan.mode, Mode::Pair);
        assert_eq!(plan.features.configs().len(), 1);
    }

    #[test]
    fn errors_name_the_options_as_the_front_end_does() {
        let mut args = ScoreArgs::pair("a".into(), "b".into());
        args.engine.backend = Backend::Cpu;
        args.engine.device = Some(DeviceChoice::List(vec![1]));
        args.spelling = Spelling::Keywords;
        let e = plan(args.clone()).unwrap_err().to_string();
        assert!(
            e.starts_with("device=1 picks a Vulkan device, and backend='cpu'"),
            "{e}"
        );
        args.engine.device = None;
        args.feature = vec!["vmaf".into()];
        let e = plan(args).unwrap_err().to_string();
        assert!(e.starts_with("features: 'vmaf': "), "{e}");
    }
}
