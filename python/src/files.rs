//! `_native.score_files`: one pair of inputs read as the command line reads
//! them (`vkssim score`'s plan, from keyword options, and its pipeline),
//! with the GIL released.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use vkssim_cli::embed::{self, Mode};

use crate::errors::{to_py, OptionError, Stage};
use crate::options;
use crate::result::PyReport;
use crate::run::finish;
use crate::watch::Watch;

/// Scores `distorted` against `reference` with `options` (`vkssim.score`'s
/// keywords; None is unset); `progress(done, total)` after frames.
#[pyfunction]
#[pyo3(signature = (reference, distorted, options, progress=None))]
pub fn score_files(
    py: Python<'_>,
    reference: PathBuf,
    distorted: PathBuf,
    options: &Bound<'_, PyDict>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyReport> {
    let plan = options::plan(reference, distorted, options)?;
    if plan.mode != Mode::Pair {
        return Err(OptionError::new_err(
            "one distorted input per run here (a list of inputs is scored one by one)",
        ));
    }
    let run = py.detach(|| {
        let prepared = embed::prepare(&plan)?;
        let watch = Watch::new(progress, prepared.to_score);
        Python::attach(|py| watch.start(py)).map_err(|e| anyhow::anyhow!(Stopped(e)))?;
        let scored = prepared.score(&|n| watch.frame(n));
        Ok::<_, anyhow::Error>((scored, watch))
    });
    let (scored, watch) = match run {
        Ok(r) => r,
        Err(e) => {
            return Err(match e.downcast::<Stopped>() {
                Ok(Stopped(py_err)) => py_err,
                Err(e) => to_py(&e, Stage::Run),
            })
        }
    };
    let raised = watch.finish();
    let report = scored.report.map_err(|e| to_py(&e, Stage::Run))?;
    finish(py, report, raised, scored.error)
}

/// A Python exception carried through an `anyhow` error.
#[derive(Debug)]
struct Stopped(PyErr);

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Stopped {}
