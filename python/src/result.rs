//! `_native.Report`: the scores of one run, as the command line's report
//! holds them (frames, pooled values as libvmaf pools them, aggregate
//! values), and its files as the command line writes them
//! ([`Report::render`]).

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use vkssim_cli::embed::{Format, Report};
use vkssim_cli::output::pool;

/// The scores of one run (wrapped by `vkssim.Result`).
#[pyclass(module = "vkssim._native", name = "Report", frozen)]
pub struct PyReport {
    report: Report,
}

impl PyReport {
    /// Wraps `report`.
    pub fn new(report: Report) -> Self {
        Self { report }
    }
}

#[pymethods]
impl PyReport {
    /// The output names, in the files' order (libvmaf's names).
    #[getter]
    fn metrics(&self) -> Vec<String> {
        self.report.metrics.clone()
    }

    /// Luma width.
    #[getter]
    fn width(&self) -> u32 {
        self.report.width
    }

    /// Luma height.
    #[getter]
    fn height(&self) -> u32 {
        self.report.height
    }

    /// Frames read per second of scoring (as the files write it).
    #[getter]
    fn fps(&self) -> f64 {
        self.report.fps
    }

    /// One dict per frame kept: `frameNum` and each output by name.
    fn frames<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for f in &self.report.frames {
            let d = PyDict::new(py);
            d.set_item("frameNum", f.index)?;
            for (name, x) in self.report.metrics.iter().zip(&f.values) {
                d.set_item(name.as_str(), *x)?;
            }
            list.append(d)?;
        }
        Ok(list)
    }

    /// `{output: numpy float64 array}`: each output's value per frame kept,
    /// in frame order (the same fp64 values as `frames`), outputs in the
    /// files' order.
    fn scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (m, name) in self.report.metrics.iter().enumerate() {
            let column: Vec<f64> = self
                .report
                .frames
                .iter()
                .map(|f| f.values.get(m).copied().unwrap_or(f64::NAN))
                .collect();
            out.set_item(name.as_str(), PyArray1::from_vec(py, column))?;
        }
        Ok(out)
    }

    /// `{output: {"min", "max", "mean", "harmonic_mean"}}`, pooled as
    /// libvmaf's files pool them (empty when no frame was scored).
    fn pooled<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (m, name) in self.report.metrics.iter().enumerate() {
            if let Some(p) = pool(&self.report, m) {
                let d = PyDict::new(py);
                for (method, x) in p.named() {
                    d.set_item(method, x)?;
                }
                out.set_item(name.as_str(), d)?;
            }
        }
        Ok(out)
    }

    /// The values reported once for the run (`apsnr_*`), by name.
    fn aggregate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, x) in &self.report.aggregate {
            out.set_item(name.as_str(), *x)?;
        }
        Ok(out)
    }

    /// The command line's file in `format` (`xml`, `json`, `csv` or `sub`).
    fn render(&self, format: &str) -> PyResult<String> {
        let format = match format {
            "xml" => Format::Xml,
            "json" => Format::Json,
            "csv" => Format::Csv,
            "sub" => Format::Sub,
            other => {
                return Err(crate::errors::OptionError::new_err(format!(
                    "unknown output format {other:?}: xml, json, csv or sub"
                )))
            }
        };
        Ok(self.report.render(format))
    }

    /// Frames kept.
    fn __len__(&self) -> usize {
        self.report.frames.len()
    }
}
