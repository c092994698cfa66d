//! The plan of a `vkssim score` run: its flags ([`ScoreArgs`]) resolved once
//! into checked, typed parts, which the rest of the run takes instead of the
//! flags: the inputs ([`Inputs`]), the frame selection ([`Selection`]), the
//! metrics ([`Features`]), the outputs ([`Outputs`]) and the engine
//! ([`BackendPlan`]). Every check that needs only the flags is made here, once,
//! in this order: the refused `vmaf` flags, `--feature` and `-m` (at least
//! one metric: `-n` alone is refused), the inputs (H.264, standard input),
//! the outputs (an `-o` pattern), `-w -h -p -b`, the engine (VMAF on the CPU
//! twin).
//! The checks that look at the files (which paths are one file, whether an
//! output can be written) are the preflight's ([`crate::score`]), made before
//! any input is read.

mod backend;
mod inputs;
mod outputs;
mod spelling;
#[cfg(test)]
pub(crate) mod tests;

pub use backend::BackendPlan;
#[cfg(all(feature = "vulkan-video", feature = "ffmpeg"))]
pub use inputs::is_h264;
pub use inputs::{InputKind, Inputs};
pub use outputs::Outputs;
pub use spelling::{Opt, Spelling};

use std::path::Path;

use anyhow::{bail, Result};

use crate::args::ScoreArgs;
use crate::feature::Features;
use crate::pipeline::Selection;
use vkssim::metric::MotionVersion;

/// How a run goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One reference, one distorted input, one output.
    Pair,
    /// One reference read once against each distorted input, each with its
    /// own output (several `-d`, `--output-dir` or an `-o` pattern).
    Ladder,
    /// One pair of H.264 streams, decoded and scored on the GPU.
    H264,
}

/// A checked `vkssim score` run.
#[derive(Debug, Clone, PartialEq)]
pub struct ScorePlan {
    /// How it goes.
    pub mode: Mode,
    /// What it reads.
    pub inputs: Inputs,
    /// Which frames it scores.
    pub selection: Selection,
    /// What it computes.
    pub features: Features,
    /// What it writes.
    pub outputs: Outputs,
    /// What it scores on.
    pub backend: BackendPlan,
    /// No progress display and no notes.
    pub quiet: bool,
    /// How its messages name the options.
    pub spelling: Spelling,
}

impl ScorePlan {
    /// Resolves and checks `args` (and `--trace-chrome`'s `trace`); its
    /// messages name the options as `args.spelling` says.
    pub fn resolve(args: &ScoreArgs, trace: Option<&Path>) -> Result<Self> {
        if let Some(ctc) = &args.aom_ctc {
            bail!("--aom_ctc {ctc}: the AOM CTC presets need two features vkssim does not compute (ciede2000 and the HVS-weighted one); ask for the parts it does with -m and --feature (README, \"Where vkssim differs from vmaf on purpose\")");
        }
        let spelling = args.spelling;
        // As in vmaf, -n/--no_prediction runs no model; without -m the
        // default model runs (clap's default for -m).
        let models: &[String] = if args.no_prediction { &[] } else { &args.model };
        if models.is_empty() && args.feature.is_empty() {
            bail!("{}", nothing_to_score(spelling));
        }
        let features =
            Features::parse_with_motion(&args.feature, models, spelling, args.motion_version)?;
        if args.motion_version == MotionVersion::V3_2_0 && args.subsample > 1 {
            // Measured: 3.2.0 pools over every frame it writes.
            bail!(
                "{} with {}: libvmaf 3.2.0 pools a subsampled run over every frame it writes, \
                 where 2.3.1, whose pooling vkssim follows, pools the frames whose index is below \
                 their count; not reproduced",
                spelling.number(Opt::Subsample, args.subsample),
                spelling.word(Opt::MotionVersion, MotionVersion::V3_2_0.name())
            );
        }
        let ladder = outputs::per_input(args);
        let mut inputs = inputs::resolve(args, ladder)?;
        let mode = match (ladder, inputs.kind) {
            (true, _) => Mode::Ladder,
            (false, InputKind::H264) => Mode::H264,
            (false, InputKind::Frames { .. }) => Mode::Pair,
        };
        let outputs = outputs::resolve(args, ladder, trace)?;
        if let InputKind::Frames { raw } = &mut inputs.kind {
            *raw = inputs::raw_format(args)?;
        }
        let backend = BackendPlan::resolve(&args.engine, spelling)?;
        Ok(Self {
            mode,
            inputs,
            selection: Selection {
                skip_ref: args.frame_skip_ref,
                skip_dist: args.frame_skip_dist,
                frame_cnt: args.frame_cnt,
                subsample: args.subsample,
                allow_length_mismatch: args.allow_length_mismatch,
                spelling,
            },
            features,
            outputs,
            backend,
            quiet: args.quiet,
            spelling,
        })
    }
}

/// The refusal of a run with no model and no feature (`vmaf -n` alone
/// writes a file without scores).
fn nothing_to_score(spelling: Spelling) -> String {
    // The features, from the registry.
    let names: Vec<&str> = vkssim::metric::MetricConfig::all()
        .iter()
        .map(|m| m.feature())
        .collect();
    match spelling {
        Spelling::Flags => format!(
            "-n/--no_prediction runs no model and no --feature is given: nothing to score; \
             add --feature NAME ({}), or drop -n to run the default model ({})",
            names.join(", "),
            crate::feature::DEFAULT_MODEL
        ),
        Spelling::Keywords => format!(
            "model=None and no features: nothing to score; give features ({}) or a model",
            names
                .iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
