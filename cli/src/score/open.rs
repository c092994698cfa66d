//! The steps every run of decoded frames takes before it scores: opening an
//! input, checking a distorted input against the reference (geometry,
//! lengths; a note when their colour ranges differ), and starting the engine
//! for the reference's frames.

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use vkssim::frame::PlaneGeometry;
use vkssim::io::{open_input_with, ranges_differ, Chroma, DeclaredRange, LumaReader, VideoFormat};
use vkssim::metric::MetricSet;
use vkssim::Error;

use crate::backend;
use crate::feature::Features;
use crate::pipeline::{nothing_to_score, Selection, Tally};
use crate::plan::{BackendPlan, Inputs};

/// Opens the reference of `inputs`; the reader's errors name the file (and
/// frame), the context says which input.
pub fn reference(inputs: &Inputs) -> Result<Box<dyn LumaReader>> {
    open_input_with(&inputs.reference, inputs.raw(), &inputs.decode_reference())
        .context("cannot read the reference")
}

/// Opens distorted input `k` of `inputs` (its own stream; resized to the
/// `reference` format's size with `--resize-distorted`).
pub fn distorted(inputs: &Inputs, k: usize, reference: VideoFormat) -> Result<Box<dyn LumaReader>> {
    let path = &inputs.distorted[k];
    open_input_with(path, inputs.raw(), &inputs.decode_distorted(k, reference))
        .context("cannot read the distorted input")
}

/// "`psnr` reads" (or "`a` and `b` read"): the metrics of `features` that
/// read chroma, for a message.
fn readers(features: &Features) -> String {
    let names: Vec<&str> = features
        .chroma_readers()
        .iter()
        .map(|m| m.feature())
        .collect();
    let verb = if names.len() == 1 { "reads" } else { "read" };
    format!("{} {verb}", and_list(&names))
}

/// `a`, `a and b`, `a, b and c`.
fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

/// For metrics that read chroma: refuses a distorted input whose chroma
/// layout differs from the reference's.
pub fn check_chroma(
    features: &Features,
    reference: &Path,
    rf: VideoFormat,
    distorted: &Path,
    df: VideoFormat,
) -> Result<()> {
    if features.needs_chroma() && rf.chroma != df.chroma {
        anyhow::bail!(
            "{} chroma, but the reference {} is {} and the distorted {} is {}",
            readers(features),
            reference.display(),
            rf.chroma,
            distorted.display(),
            df.chroma
        );
    }
    Ok(())
}

/// Says on standard error (unless `quiet`) when the two inputs' declared
/// colour ranges differ ([`ranges_differ`]): both are scored as stored, as
/// libvmaf scores them.
pub fn note_ranges(quiet: bool, reference: &dyn LumaReader, distorted: &dyn LumaReader) {
    let (r, d) = (reference.color_range(), distorted.color_range());
    if quiet || !ranges_differ(r.as_ref(), d.as_ref()) {
        return;
    }
    let says = |range: Option<DeclaredRange>| match range {
        Some(range) => format!("is {range}"),
        None => "declares no range (limited, by convention)".to_string(),
    };
    crate::stdio::note(format!(
        "vkssim: note: the reference {} {} and the distorted {} {}; both are scored as \
         stored (no range conversion), as libvmaf does",
        reference.path().display(),
        says(r),
        distorted.path().display(),
        says(d)
    ));
}

/// Refuses a distorted input whose geometry differs from the reference's;
/// a resized one (`--resize-distorted`) is named by its own size, the size
/// it was resized to beside it.
pub fn check_geometry(reference: &Path, rf: VideoFormat, distorted: &dyn LumaReader) -> Result<()> {
    let g = |f: VideoFormat| PlaneGeometry::new(f.width, f.height, f.bit_depth);
    let (df, stored) = (distorted.format(), distorted.stored_format());
    if g(rf) == g(df) {
        return Ok(());
    }
    let resized = if (df.width, df.height) != (stored.width, stored.height) {
        format!(" (resized to {}x{})", df.width, df.height)
    } else {
        String::new()
    };
    Err(Error::GeometryMismatch(format!(
        "reference {} is {} but distorted {} is {}{resized}",
        reference.display(),
        g(rf),
        distorted.path().display(),
        g(stored)
    ))
    .into())
}

/// When both inputs know their length up front (regular files), checks it now,
/// before any work: no pair to score is an error saying how many frames each
/// input has after its skip (with `--allow-length-mismatch` too), different
/// lengths [`Error::LengthMismatch`] unless `--allow-length-mismatch`. Returns
/// how many frames will be scored, when known (for the progress bar).
pub fn check_lengths(
    reference: &dyn LumaReader,
    distorted: &dyn LumaReader,
    sel: &Selection,
) -> Result<Option<u64>> {
    let avail = |r: &dyn LumaReader, skip: u64| {
        r.frame_count()
            .map(|n| n.saturating_sub(r.frames_read()).saturating_sub(skip))
    };
    let (Some(nr), Some(nd)) = (
        avail(reference, sel.skip_ref),
        avail(distorted, sel.skip_dist),
    ) else {
        return Ok(None);
    };
    let cap = if sel.frame_cnt == 0 {
        u64::MAX
    } else {
        sel.frame_cnt
    };
    let (pr, pd) = (nr.min(cap), nd.min(cap));
    let pairs = pr.min(pd);
    if pairs == 0 {
        return Err(nothing_to_score(
            &Tally::known(reference, sel.skip_ref),
            &Tally::known(distorted, sel.skip_dist),
            sel.spelling,
        ));
    }
    if pr != pd && !sel.allow_length_mismatch {
        return Err(anyhow!(Error::LengthMismatch {
            reference: nr,
            distorted: nd,
            common: pairs,
        }));
    }
    let step = sel.subsample.max(1);
    Ok(Some(pairs.div_ceil(step)))
}

/// The metrics of `features` checked for `format`'s frames, before any work
/// (a size a metric cannot take names the metric and the size). A Y4M input
/// (`y4m`) of a chroma layout that the `vmaf` command line converts before
/// scoring (4:2:2, 4:1:1) is refused for a metric that reads chroma:
/// vkssim does not reproduce that conversion (mono's it does: `y4m_mono`).
pub fn metric_set(features: &Features, format: VideoFormat, y4m: bool) -> Result<MetricSet> {
    let converted = matches!(format.chroma, Chroma::C422 | Chroma::C411);
    if y4m && converted && features.needs_chroma() {
        let readers = features.chroma_readers();
        let names: Vec<&str> = readers.iter().map(|m| m.feature()).collect();
        // The outputs that read chroma: those a luma-only picture lacks.
        let outputs: Vec<String> = readers
            .iter()
            .flat_map(|m| {
                let luma = m.output_names(Chroma::Mono);
                m.output_names(format.chroma)
                    .into_iter()
                    .filter(move |n| !luma.contains(n))
            })
            .map(String::from)
            .collect();
        let off: String = readers
            .iter()
            .filter(|m| m.extractor().keys().contains(&"enable_chroma"))
            .map(|m| format!("--feature {}=enable_chroma=false, ", m.feature()))
            .collect();
        anyhow::bail!(
            "{} on a Y4M input of {} chroma: the vmaf command line's Y4M reader converts \
             {} chroma before scoring, and vkssim does not reproduce that conversion, so its \
             {} would differ from vmaf's; use {off}or raw YUV input",
            and_list(&names),
            format.chroma,
            format.chroma,
            and_list(&outputs),
        );
    }
    MetricSet::new(
        features.configs(),
        format.width,
        format.height,
        format.bit_depth,
        Some(format.chroma),
    )
    .with_context(|| {
        format!(
            "cannot score {}x{} {}-bit frames",
            format.width, format.height, format.bit_depth
        )
    })
}

/// The selection the pipeline runs for `sel` with `metrics`: with
/// `--subsample` and an aggregate value (`psnr=enable_apsnr=true`), every
/// frame, since the `vmaf` command line's `apsnr` sums every frame read
/// while it writes only the subsampled ones (the report keeps those:
/// [`super::report::report`]); likewise with a temporal metric (`motion`),
/// whose values libvmaf computes from every frame read.
pub fn run_selection(sel: Selection, metrics: &MetricSet) -> Selection {
    let every_frame = !metrics.aggregate_names().is_empty() || metrics.needs_previous_reference();
    if sel.subsample > 1 && every_frame {
        Selection {
            subsample: 1,
            ..sel
        }
    } else {
        sel
    }
}

/// Starts the scoring engine `plan` asks for, for `metrics` on `format`'s
/// frames, `readers` threads filling each device's frame slots (0: no hint;
/// see [`backend::start`]; `quiet`: no notes).
pub fn start_engine(
    plan: &BackendPlan,
    metrics: &MetricSet,
    format: VideoFormat,
    readers: usize,
    quiet: bool,
) -> Result<backend::Engine> {
    let size = (format.width, format.height, format.bit_depth);
    let engine = backend::start(plan, metrics, size, readers, quiet)?;
    tracing::info!(backend = %engine.description, "scoring");
    Ok(engine)
}
