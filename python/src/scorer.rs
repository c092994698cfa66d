//! `_native.Scorer`: the streaming scorer, one pair of planes at a time
//! from Python (wrapped by `vkssim.Scorer`), on the engine the command
//! line's flags pick; results in submission order. Submitting and waiting
//! release the GIL; a wait checks for Ctrl-C between results.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use numpy::PyUntypedArrayMethods;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use vkssim::io::{Chroma, VideoFormat};
use vkssim::metric::MetricSet;
use vkssim::FrameScore;
use vkssim_cli::embed::{self, Engine, ScorePlan};

use crate::arrays::{self, Sample};
use crate::errors::{from_lib, to_py, Error, InputError, OptionError, Stage};
use crate::result::PyReport;
use crate::run::plan;

/// A streaming scorer for frames of one geometry.
#[pyclass(module = "vkssim._native", name = "Scorer")]
pub struct PyScorer {
    /// The engine (None once closed); in a mutex, as a Python class is
    /// shared between threads and the engine's queues are not.
    engine: Mutex<Option<Engine>>,
    plan: ScorePlan,
    metrics: MetricSet,
    format: VideoFormat,
    chroma: bool,
    /// Frame numbers submitted whose result has not come back.
    in_flight: VecDeque<u64>,
    /// Results come back, not yet handed out by `next`.
    ready: VecDeque<(u64, FrameScore)>,
    /// Every frame scored.
    scored: Vec<(u64, FrameScore)>,
    submitted: u64,
    started: Option<Instant>,
    /// The scorer failed: the message of its error (later calls raise it).
    broken: Option<String>,
}

#[pymethods]
impl PyScorer {
    /// A scorer of `width` x `height` frames at `bit_depth` with the
    /// command line's flags `args` (features, backend, device, threads,
    /// precision); `chroma` ("420", "422", "444") when the pairs carry Cb
    /// and Cr planes.
    #[new]
    #[pyo3(signature = (width, height, bit_depth, args, chroma=None))]
    fn new(
        py: Python<'_>,
        width: u32,
        height: u32,
        bit_depth: u32,
        args: Vec<String>,
        chroma: Option<&str>,
    ) -> PyResult<Self> {
        let plan = plan(args)?;
        let layout = match chroma {
            None => None,
            Some(c @ ("420" | "422" | "444")) => {
                Some(c.parse::<Chroma>().map_err(|e| from_lib(&e))?)
            }
            Some(other) => {
                return Err(OptionError::new_err(format!(
                    "chroma={other:?}: \"420\", \"422\", \"444\" or None (luma only)"
                )))
            }
        };
        let format = VideoFormat::new(width, height, bit_depth, layout.unwrap_or(Chroma::Mono))
            .map_err(|e| from_lib(&e))?;
        let metrics = embed::metric_set(&plan, format).map_err(|e| to_py(&e, Stage::Run))?;
        let engine = py
            .detach(|| embed::start_engine(&plan, &metrics, format))
            .map_err(|e| to_py(&e, Stage::Run))?;
        Ok(Self {
            engine: Mutex::new(Some(engine)),
            chroma: layout.is_some(),
            plan,
            metrics,
            format,
            in_flight: VecDeque::new(),
            ready: VecDeque::new(),
            scored: Vec::new(),
            submitted: 0,
            started: None,
            broken: None,
        })
    }

    /// Queues the pair `reference`, `distorted` (each a 2-d array, or a
    /// tuple of luma, Cb and Cr); returns its frame number. Blocks while the
    /// engine's queue is full.
    fn submit(
        &mut self,
        py: Python<'_>,
        reference: Bound<'_, PyAny>,
        distorted: Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        self.check()?;
        if self.format.bit_depth == 8 {
            self.submit_typed::<u8>(py, &reference, &distorted)
        } else {
            self.submit_typed::<u16>(py, &reference, &distorted)
        }
    }

    /// The next result in order as a dict (`frameNum` and each output), or
    /// None when none is left; `block`: wait for one in flight (else only
    /// what has come back).
    #[pyo3(signature = (block=true))]
    fn next<'py>(&mut self, py: Python<'py>, block: bool) -> PyResult<Option<Bound<'py, PyDict>>> {
        if self.ready.is_empty() {
            self.collect(py, block)?;
        }
        match self.ready.pop_front() {
            Some((i, s)) => Ok(Some(frame_dict(py, &self.metrics, i, &s)?)),
            None => {
                self.check()?;
                Ok(None)
            }
        }
    }

    /// Waits for every pair in flight (checking for Ctrl-C between results).
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        while !self.in_flight.is_empty() {
            self.collect(py, true)?;
            py.check_signals()?;
        }
        self.check()
    }

    /// Pairs submitted whose results have not come back.
    #[getter]
    fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Pairs submitted.
    #[getter]
    fn submitted(&self) -> u64 {
        self.submitted
    }

    /// The engine: e.g. `cpu (2 threads)` or the Vulkan device.
    #[getter]
    fn backend(&self) -> String {
        self.engine()
            .as_ref()
            .map_or_else(|| "closed".into(), |e| e.description.clone())
    }

    /// The report of every frame scored so far (the pairs still in flight
    /// are not waited for).
    fn report(&self) -> PyReport {
        let secs = self.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let fps = self.scored.len() as f64 / secs.max(1e-9);
        let size = (self.format.width, self.format.height);
        PyReport::new(embed::report(
            &self.plan,
            &self.metrics,
            size,
            fps,
            &self.scored,
        ))
    }

    /// Waits for the pairs in flight and releases the engine.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let flushed = self.flush(py);
        let engine = self.engine().take();
        if let Some(engine) = engine {
            py.detach(|| drop(engine));
        }
        flushed
    }
}

impl PyScorer {
    /// The engine, locked.
    fn engine(&self) -> MutexGuard<'_, Option<Engine>> {
        self.engine.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Raises the error that broke the scorer.
    fn check(&self) -> PyResult<()> {
        match &self.broken {
            Some(m) => Err(Error::new_err(format!(
                "the scorer stopped at an earlier error: {m}"
            ))),
            None => Ok(()),
        }
    }

    fn submit_typed<T: Sample>(
        &mut self,
        py: Python<'_>,
        reference: &Bound<'_, PyAny>,
        distorted: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        let r = self.planes::<T>(reference, "reference")?;
        let d = self.planes::<T>(distorted, "distorted")?;
        let (rv, dv) = (arrays::planes2(&r), arrays::planes2(&d));
        let index = self.submitted;
        self.started.get_or_insert_with(Instant::now);
        let mut guard = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        let Some(engine) = guard.as_mut() else {
            return Err(Error::new_err("the scorer is closed"));
        };
        let scorer = &mut engine.scorer;
        let (submitted, results) = py.detach(|| {
            let submitted = scorer.submit(arrays::pair(&rv, &dv));
            let mut results = Vec::new();
            while let Some(res) = scorer.poll() {
                results.push(res);
            }
            (submitted, results)
        });
        drop(guard);
        let taken = self.take(results);
        if let Err(e) = submitted {
            let err = from_lib(&e);
            return Err(err);
        }
        self.in_flight.push_back(index);
        self.submitted += 1;
        taken.map(|()| index)
    }

    /// The planes of one frame (`role` names it), checked against the
    /// scorer's geometry and chroma.
    fn planes<'py, T: Sample>(
        &self,
        obj: &Bound<'py, PyAny>,
        role: &str,
    ) -> PyResult<Vec<numpy::PyReadonlyArray2<'py, T>>> {
        let objs: Vec<Bound<'py, PyAny>> = if obj.is_instance_of::<pyo3::types::PyTuple>() {
            obj.extract()?
        } else {
            vec![obj.clone()]
        };
        let want = if self.chroma { 3 } else { 1 };
        if objs.len() != want {
            return Err(InputError::new_err(format!(
                "the {role}: this scorer takes {} per frame, got {} planes",
                if self.chroma {
                    "(luma, Cb, Cr)"
                } else {
                    "a luma plane"
                },
                objs.len()
            )));
        }
        let names = ["luma", "Cb", "Cr"];
        let mut out = Vec::new();
        for (k, o) in objs.iter().enumerate() {
            let what = format!("the {role}'s {} plane", names[k]);
            let a = arrays::plane::<T>(o, &what).map_err(|e| {
                if self.format.bit_depth == 8 {
                    e
                } else {
                    InputError::new_err(format!(
                        "{} (this scorer is {}-bit: uint16 samples)",
                        e.value(o.py()),
                        self.format.bit_depth
                    ))
                }
            })?;
            let (w, h) = (self.format.width, self.format.height);
            let (ew, eh) = if k == 0 {
                (w, h)
            } else {
                self.format.chroma.plane_size(w, h)
            };
            let (aw, ah) = (a.shape()[1], a.shape()[0]);
            if (aw, ah) != (ew as usize, eh as usize) {
                return Err(crate::errors::GeometryError::new_err(format!(
                    "{what} is {aw}x{ah} but the scorer takes {ew}x{eh}"
                )));
            }
            out.push(a);
        }
        Ok(out)
    }

    /// Takes results (in order) into the ready queue; a failed one breaks
    /// the scorer and is raised.
    fn take(&mut self, results: Vec<vkssim::Result<FrameScore>>) -> PyResult<()> {
        let mut first = None;
        for res in results {
            let index = self.in_flight.pop_front().unwrap_or(u64::MAX);
            match res {
                Ok(s) if self.broken.is_none() => {
                    self.ready.push_back((index, s));
                    self.scored.push((index, s));
                }
                Ok(_) => {}
                Err(e) => {
                    let e = anyhow::anyhow!(e).context(format!("scoring frame {index}"));
                    if self.broken.is_none() {
                        self.broken = Some(vkssim_cli::error_chain(&e));
                        first = Some(to_py(&e, Stage::Run));
                    }
                }
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Takes the results that are back; `block`: waits for one if none is.
    fn collect(&mut self, py: Python<'_>, block: bool) -> PyResult<()> {
        if self.in_flight.is_empty() {
            return Ok(());
        }
        let mut guard = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        let Some(engine) = guard.as_mut() else {
            return Ok(());
        };
        let scorer = &mut engine.scorer;
        let results = py.detach(|| {
            let mut results = Vec::new();
            while let Some(res) = scorer.poll() {
                results.push(res);
            }
            if results.is_empty() && block {
                results.extend(scorer.wait());
            }
            results
        });
        drop(guard);
        self.take(results)
    }
}

/// `{"frameNum": index, output: value, ...}` of one frame.
pub fn frame_dict<'py>(
    py: Python<'py>,
    metrics: &MetricSet,
    index: u64,
    score: &FrameScore,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("frameNum", index)?;
    for name in metrics.output_names() {
        d.set_item(name, score.value(name).unwrap_or(f64::NAN))?;
    }
    Ok(d)
}
