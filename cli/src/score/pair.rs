//! `vkssim score` on one pair of decoded inputs (Y4M or raw YUV, files or
//! streams): reader threads fill the scorer's frame slots
//! ([`crate::pipeline`]), and the scores go to the one output. The run is
//! two steps, [`prepare`] (open and check the inputs, start the engine) and
//! [`Prepared::score`] (the pipeline, then the report), which a front end
//! other than the command line takes too ([`crate::embed`]).

use std::process::ExitCode;

use anyhow::Result;
use vkssim::io::{LumaReader, VideoFormat};
use vkssim::metric::MetricSet;

use super::open::{self, check_geometry, check_lengths, start_engine};
use super::report::{report, write_scores};
use super::y4m_mono::as_vmaf_reads;
use crate::backend;
use crate::output::Report;
use crate::pipeline::{self, Input, Selection};
use crate::plan::BackendPlan;
use crate::plan::ScorePlan;
use crate::progress::Progress;

/// Scores the pair of `plan` (its preflight made).
pub fn run(plan: &ScorePlan) -> Result<ExitCode> {
    let prepared = prepare(plan)?;
    let progress = Progress::new(plan.quiet, prepared.to_score);
    let scored = prepared.score(&|n| {
        progress.set_scored(n);
        Ok(())
    });
    progress.finish();
    let output = plan.outputs.targets[0].as_deref();
    let _span = tracing::debug_span!("end: output").entered();
    write_scores(output, plan.outputs.format, scored.report?, scored.error)
}

/// A pair opened, checked and primed, with its engine started: ready to score.
pub struct Prepared<'p> {
    plan: &'p ScorePlan,
    reference: Box<dyn LumaReader>,
    distorted: Box<dyn LumaReader>,
    sel: Selection,
    chroma: bool,
    format: VideoFormat,
    read_threads: usize,
    engine: backend::Engine,
    /// The metrics, checked for the inputs' frames.
    pub metrics: MetricSet,
    /// How many frames will be scored, when it is known (for progress).
    pub to_score: Option<u64>,
}

/// What a run scored: its report, and the error that stopped it early (the
/// report then holds the frames scored before it).
pub struct Scored {
    /// The report of the frames scored (an error only if a model cannot
    /// read a frame's features).
    pub report: Result<Report>,
    /// The error that stopped the run, if any.
    pub error: Option<anyhow::Error>,
}

/// Opens and checks the pair of `plan` and starts its engine.
pub fn prepare(plan: &ScorePlan) -> Result<Prepared<'_>> {
    let inputs = &plan.inputs;
    let reference = as_vmaf_reads(open::reference(inputs)?, &plan.features);
    let distorted = open::distorted(inputs, 0, reference.format())?;
    let distorted = as_vmaf_reads(distorted, &plan.features);
    let (rf, df) = (reference.format(), distorted.format());
    let opened = [(inputs.reference.as_path(), rf), (inputs.dist(), df)];
    super::raw_flags::check_used(inputs.raw(), &opened, plan.spelling)?;
    check_geometry(&inputs.reference, rf, &*distorted)?;
    open::check_chroma(&plan.features, &inputs.reference, rf, inputs.dist(), df)?;
    open::note_ranges(plan.quiet, &*reference, &*distorted);
    let y4m = reference.is_y4m() || distorted.is_y4m();
    let metrics = open::metric_set(&plan.features, rf, y4m)?;
    let known = check_lengths(&*reference, &*distorted, &plan.selection)?;
    let to_score =
        known.or_else(|| crate::progress::estimate(&*reference, &*distorted, &plan.selection));
    // The pairs the pipeline scores at most (the inputs' lengths, else
    // --frame_cnt; every frame with a temporal or aggregate metric), which
    // sizes the Vulkan ring (a short run, a short ring).
    let run = open::run_selection(plan.selection, &metrics);
    let run_known = if run == plan.selection {
        known
    } else {
        check_lengths(&*reference, &*distorted, &run)?
    };
    let most =
        run_known.or((run.frame_cnt > 0).then(|| run.frame_cnt.div_ceil(run.subsample.max(1))));
    let backend = BackendPlan {
        expected_pairs: most,
        ..plan.backend.clone()
    };
    // A stream's skip and first frame are read before the engine takes memory
    // sized by the geometry (its header alone proves nothing).
    let chroma = metrics.needs_chroma();
    let (reference, distorted, sel) =
        pipeline::prime(reference, distorted, plan.selection, chroma)?;
    // Reader threads fill the scorer's frame slots (crate::pipeline); regular
    // files, read by position on several threads, want more frames in flight.
    // Threads and frames in flight are sized per device (--device N,M / all).
    let (devices, read_threads) = backend::read_threads(&plan.backend);
    let indexed = reference.frame_index().is_some() && distorted.frame_index().is_some();
    let readers = if indexed {
        read_threads.div_ceil(devices)
    } else {
        0
    };
    let engine = start_engine(&backend, &metrics, rf, readers, plan.quiet)?;
    Ok(Prepared {
        plan,
        reference,
        distorted,
        sel,
        chroma,
        format: rf,
        read_threads,
        engine,
        metrics,
        to_score,
    })
}

impl Prepared<'_> {
    /// Runs the pipeline; `on_score` sees the number of frames scored so far,
    /// and an error it returns stops the run (as a failed frame would).
    pub fn score(mut self, on_score: &dyn Fn(u64) -> Result<()>) -> Scored {
        let chroma = self.chroma;
        let outcome = pipeline::run(
            Input::open("reference", self.reference, self.sel.skip_ref).with_chroma(chroma),
            Input::open("distorted", self.distorted, self.sel.skip_dist).with_chroma(chroma),
            open::run_selection(self.sel, &self.metrics),
            &mut self.engine.scorer,
            self.read_threads,
            on_score,
        );
        let fps = outcome.pairs_read as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
        let size = (self.format.width, self.format.height);
        Scored {
            report: report(self.plan, &self.metrics, size, fps, &outcome.frames),
            error: outcome.error,
        }
    }
}
