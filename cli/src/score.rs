//! `vkssim score` over its [`ScorePlan`]: the preflight of the files it
//! writes ([`files`]), then one of three runs: a pair ([`pair`]), a ladder
//! ([`ladder`]), or an H.264 pair ([`video`]); each opens its inputs, checks
//! that they can be compared, runs the pipeline, and writes the scores (a
//! file in libvmaf's format with `-o`, a summary on standard output
//! otherwise). On an error mid-run the frames scored so far are still
//! written, and the command then fails.

mod files;
mod ladder;
pub(crate) mod open;
pub(crate) mod pair;
mod paths;
mod raw_flags;
pub(crate) mod report;
mod video;
mod y4m_mono;

pub(crate) use files::preflight_outputs;

use std::process::ExitCode;

use anyhow::Result;

use crate::chrome_trace::TraceGuard;
use crate::plan::{Mode, ScorePlan};

/// What vkssim writes where libvmaf writes its version.
pub const VERSION: &str = concat!("vkssim ", env!("CARGO_PKG_VERSION"));

/// Runs `vkssim score` as `plan` says. A `--trace-chrome` that names an input
/// or an output is refused and taken out of `trace`.
pub fn run(plan: &ScorePlan, trace: &mut Option<TraceGuard>) -> Result<ExitCode> {
    files::preflight(plan, trace)?;
    if plan.inputs.reads_stdin() {
        if let Some(size) = crate::pipe_size::enlarge_stdin() {
            tracing::debug!(size, "standard input's pipe buffer raised");
        }
    }
    match plan.mode {
        Mode::Pair => pair::run(plan),
        Mode::Ladder => ladder::run(plan),
        Mode::H264 => video::run(plan),
    }
}
