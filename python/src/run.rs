//! The end of a run, files or arrays alike: its report, or the exception
//! that stopped it with the report of the frames scored before it as the
//! exception's `result` (Ctrl-C: [`Interrupted`], a KeyboardInterrupt).

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use vkssim_cli::embed::Report;

use crate::errors::{to_py, Interrupted, Stage};
use crate::result::PyReport;

/// The run's report, or its exception: `raised` (a Python exception a frame
/// raised: Ctrl-C or the progress callback's) before `error` (the run's).
pub fn finish(
    py: Python<'_>,
    report: Report,
    raised: Option<PyErr>,
    error: Option<anyhow::Error>,
) -> PyResult<PyReport> {
    let scored = report.frames.len();
    let err = match (raised, error) {
        (None, None) => return Ok(PyReport::new(report)),
        (Some(e), _) if e.is_instance_of::<PyKeyboardInterrupt>(py) => {
            Interrupted::new_err(format!(
                "interrupted: {scored} frame{} scored before it (in this exception's result)",
                if scored == 1 { " was" } else { "s were" }
            ))
        }
        (Some(e), _) => e,
        (None, Some(e)) => to_py(&e, Stage::Run),
    };
    err.value(py)
        .setattr("result", Py::new(py, PyReport::new(report))?)?;
    Err(err)
}
