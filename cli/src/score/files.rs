//! The files `vkssim score` writes. Before any input is read: the inputs are not
//! one stream given twice, `-o` and `--trace-chrome` are not one of the inputs,
//! and `-o` can be written (see [`Target::open`]). At the end: the scores, or
//! after an error the frames scored before it, in `FILE.partial` so that the
//! previous `FILE` stays as it was (or, for standard output, a device or a FIFO,
//! in `FILE` itself, said to be partial on stderr).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::paths::{check_distinct_inputs, check_output_is_not_an_input};
use super::plural;
use crate::args::ScoreArgs;
use crate::chrome_trace::TraceGuard;
use crate::output::target::Target;

/// The checks made before any input is read. A `--trace-chrome` that names an
/// input is refused and dropped, so that nothing is written over the input.
pub fn preflight(args: &ScoreArgs, trace: &mut Option<TraceGuard>) -> Result<()> {
    check_distinct_inputs(&args.reference, args.dist())?;
    let inputs = [
        ("reference", args.reference.as_path()),
        ("distorted input", args.dist()),
    ];
    let outputs: Vec<&Path> = args.output.as_deref().into_iter().collect();
    preflight_outputs(&outputs, &inputs, trace)
}

/// The checks on the files a run writes (`outputs`, `-o`'s, and
/// `--trace-chrome`) against its `inputs` (role and path), before any input
/// is read.
pub fn preflight_outputs(
    outputs: &[&Path],
    inputs: &[(&str, &Path)],
    trace: &mut Option<TraceGuard>,
) -> Result<()> {
    if let Some(guard) = trace {
        if let Err(e) = check_output_is_not_an_input("--trace-chrome", guard.path(), inputs) {
            if let Some(guard) = trace.take() {
                guard.discard();
            }
            return Err(e);
        }
    }
    for out in outputs {
        check_output_is_not_an_input("-o", out, inputs)?;
        check_output_is_not_an_input("-o", &partial_path(out), inputs)?;
        Target::open(out).context("-o")?;
    }
    Ok(())
}

/// Writes `text`, the scores of a run that ended with `error` (if any) after
/// scoring `scored` frames, to the `-o` path; returns the run's status.
pub fn write_output(
    path: &Path,
    text: &str,
    scored: usize,
    error: Option<anyhow::Error>,
) -> Result<ExitCode> {
    let Some(error) = error else {
        Target::open(path)?.write(text.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    };
    if scored > 0 {
        if let Err(e) = write_partial(path, text, scored) {
            eprintln!(
                "vkssim: could not write the {scored} frame{} scored before the error: {e:#}",
                plural(scored)
            );
        }
    }
    Err(error)
}

/// Writes the scores of an unfinished run: to `PATH.partial` when `path` is a
/// file (which is left as it was), to `path` itself otherwise.
fn write_partial(path: &Path, text: &str, scored: usize) -> Result<()> {
    let target = Target::open(path)?;
    let frames = format!("{scored} frame{}", plural(scored));
    if target.is_file() {
        let partial = partial_path(path);
        Target::open(&partial)?.write(text.as_bytes())?;
        eprintln!(
            "vkssim: wrote the {frames} scored before the error to {} ({} is left as it was)",
            partial.display(),
            path.display()
        );
    } else {
        target.write(text.as_bytes())?;
        let name = if path == Path::new("-") {
            "standard output".to_string()
        } else {
            path.display().to_string()
        };
        eprintln!("vkssim: wrote the {frames} scored before the error to {name}: the document there is partial");
    }
    Ok(())
}

/// `PATH.partial`.
fn partial_path(path: &Path) -> PathBuf {
    let mut p = OsString::from(path.as_os_str());
    p.push(".partial");
    PathBuf::from(p)
}
