//! `vkssim score` on one pair of decoded inputs (Y4M or raw YUV, files or
//! streams): reader threads fill the scorer's frame slots
//! ([`crate::pipeline`]), and the scores go to the one output.

use std::process::ExitCode;

use anyhow::Result;

use super::open::{self, check_geometry, check_lengths, start_engine};
use super::report::{report, write_scores};
use crate::backend;
use crate::pipeline::{self, Input};
use crate::plan::ScorePlan;
use crate::progress::Progress;

/// Scores the pair of `plan` (its preflight made).
pub fn run(plan: &ScorePlan) -> Result<ExitCode> {
    let inputs = &plan.inputs;
    let reference = open::reference(inputs)?;
    let distorted = open::distorted(inputs, inputs.dist(), reference.format())?;
    let (rf, df) = (reference.format(), distorted.format());
    check_geometry(&inputs.reference, rf, inputs.dist(), df)?;
    open::check_chroma(&plan.features, &inputs.reference, rf, inputs.dist(), df)?;
    let y4m = reference.is_y4m() || distorted.is_y4m();
    let metrics = open::metric_set(&plan.features, rf, y4m)?;
    let to_score = check_lengths(&*reference, &*distorted, &plan.selection)?
        .or_else(|| crate::progress::estimate(&*reference, &*distorted, &plan.selection));
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
    let mut engine = start_engine(&plan.backend, &metrics, rf, readers, plan.quiet)?;

    let progress = Progress::new(plan.quiet, to_score);
    let outcome = pipeline::run(
        Input::open("reference", reference, sel.skip_ref).with_chroma(chroma),
        Input::open("distorted", distorted, sel.skip_dist).with_chroma(chroma),
        open::run_selection(sel, &metrics),
        &mut engine.scorer,
        read_threads,
        &|n| progress.set_scored(n),
    );
    progress.finish();

    let fps = outcome.pairs_read as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
    let size = (rf.width, rf.height);
    let report = report(plan, &metrics, size, fps, &outcome.frames);
    let output = plan.outputs.targets[0].as_deref();
    write_scores(output, plan.outputs.format, report, outcome.error)
}
