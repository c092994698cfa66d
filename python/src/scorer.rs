//! `_native.Scorer`: the streaming scorer, one pair of planes at a time
//! from Python (wrapped by `vkssim.Scorer`), on the engine the keyword
//! options pick; results in submission order, each with the frame
//! number the library gives it. Submitting and waiting release the GIL; a
//! wait checks for Ctrl-C between results, and a result is handed out only
//! once no Ctrl-C is pending (else it stays first in line). A scorer is for
//! one thread at a time: a call while another thread's is under way raises
//! `vkssim.Error` rather than wait. With a model or the `motion` feature a
//! frame's result waits for the next frame's (`integer_motion2`, the
//! models' scores); a blocking call with only such results left ends the
//! stream (the library's `finish`), so the last frame comes out.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Instant;
use vkssim::api::ScoreQueue;

use numpy::PyUntypedArrayMethods;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use vkssim::io::{Chroma, VideoFormat};
use vkssim::metric::MetricSet;
use vkssim::{Component, FrameScore, PlaneRole};
use vkssim_cli::embed::{self, Engine, ScorePlan};

use crate::arrays::{self, Sample};
use crate::errors::{from_lib, to_py, Error, InputError, OptionError, Stage};
use crate::options;
use crate::result::PyReport;

/// A streaming scorer for frames of one geometry.
#[pyclass(module = "vkssim._native", name = "Scorer", frozen)]
pub struct PyScorer {
    plan: ScorePlan,
    metrics: MetricSet,
    /// A frame's output names: the metrics', then the models'.
    names: Vec<String>,
    format: VideoFormat,
    chroma: bool,
    /// What changes, for one caller at a time ([`PyScorer::state`]).
    state: Mutex<State>,
}

/// A scorer's engine and its results.
struct State {
    /// The engine (None once closed).
    engine: Option<Engine>,
    /// Results come back (frame number from the library), not yet handed
    /// out by `next`.
    ready: VecDeque<(u64, FrameScore)>,
    /// The results `next` or `take_ready` handed out last, until the next
    /// such call: `restore` puts them back first in line (Ctrl-C landed
    /// before Python had them).
    lent: Vec<(u64, FrameScore)>,
    /// Every frame scored.
    scored: Vec<(u64, FrameScore)>,
    /// Pairs submitted (the library's count, kept once the engine is gone).
    submitted: u64,
    started: Option<Instant>,
    /// The scorer failed: the message of its error (later calls raise it).
    broken: Option<String>,
}

#[pymethods]
impl PyScorer {
    /// A scorer of `width` x `height` frames at `bit_depth` with `options`
    /// (`vkssim.Scorer`'s keywords: features, backend, device, threads,
    /// precision, ...; None is unset); `chroma` ("420", "422", "444") when
    /// the pairs carry Cb and Cr planes.
    #[new]
    #[pyo3(signature = (width, height, bit_depth, options, chroma=None))]
    fn new(
        py: Python<'_>,
        width: u32,
        height: u32,
        bit_depth: u32,
        options: &Bound<'_, PyDict>,
        chroma: Option<&str>,
    ) -> PyResult<Self> {
        let plan = options::plan("<frames>".into(), "<frames>".into(), options)?;
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
            .detach(|| embed::start_streaming(&plan, &metrics, format))
            .map_err(|e| to_py(&e, Stage::Run))?;
        let models = engine.scorer.desc().models.output_names();
        let names = (metrics.output_names().iter().map(|n| n.to_string()))
            .chain(models)
            .collect();
        Ok(Self {
            names,
            chroma: layout.is_some(),
            plan,
            metrics,
            format,
            state: Mutex::new(State {
                engine: Some(engine),
                ready: VecDeque::new(),
                lent: Vec::new(),
                scored: Vec::new(),
                submitted: 0,
                started: None,
                broken: None,
            }),
        })
    }

    /// Queues the pair `reference`, `distorted` (each a 2-d array, or a
    /// tuple of luma, Cb and Cr); returns its frame number. Blocks while the
    /// engine's queue is full.
    fn submit(
        &self,
        py: Python<'_>,
        reference: Bound<'_, PyAny>,
        distorted: Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        if self.format.bit_depth == 8 {
            self.submit_typed::<u8>(py, &reference, &distorted)
        } else {
            self.submit_typed::<u16>(py, &reference, &distorted)
        }
    }

    /// The next result in order as a dict (`frameNum` and each output), or
    /// None when none is left; `block`: wait for one in flight (else only
    /// what has come back). A pending Ctrl-C raises before a result is
    /// handed out (it stays first in line).
    #[pyo3(signature = (block=true))]
    fn next<'py>(&self, py: Python<'py>, block: bool) -> PyResult<Option<Bound<'py, PyDict>>> {
        let mut st = self.state()?;
        st.lent.clear();
        if st.ready.is_empty() {
            st.collect(py, block)?;
        }
        py.check_signals()?;
        match st.ready.pop_front() {
            Some((i, s)) => {
                st.lent.push((i, s.clone()));
                Ok(Some(frame_dict(py, &self.names, i, &s)?))
            }
            None => {
                st.check()?;
                Ok(None)
            }
        }
    }

    /// Every result back so far and not yet handed out, in order, as
    /// `next`'s dicts (no waiting). A pending Ctrl-C raises before they are
    /// handed out (they stay in line).
    fn take_ready<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let mut st = self.state()?;
        st.lent.clear();
        st.collect(py, false)?;
        py.check_signals()?;
        let taken: Vec<_> = st.ready.drain(..).collect();
        let dicts = taken
            .iter()
            .map(|(i, s)| frame_dict(py, &self.names, *i, s))
            .collect::<PyResult<Vec<_>>>()?;
        st.lent = taken;
        Ok(dicts)
    }

    /// Puts the results `next` or `take_ready` handed out last back first in
    /// line: for a caller whose Ctrl-C landed after the call returned and
    /// before it had them. Nothing to do when neither has been called
    /// since, or they handed out nothing.
    fn restore(&self) -> PyResult<()> {
        let mut st = self.state()?;
        let lent = std::mem::take(&mut st.lent);
        for frame in lent.into_iter().rev() {
            st.ready.push_front(frame);
        }
        Ok(())
    }

    /// Waits for every pair in flight (checking for Ctrl-C between results).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.state()?.flush(py)
    }

    /// Pairs submitted whose results have not come back.
    #[getter]
    fn in_flight(&self) -> PyResult<usize> {
        Ok(self
            .state()?
            .engine
            .as_ref()
            .map_or(0, |e| e.scorer.in_flight()))
    }

    /// Pairs submitted.
    #[getter]
    fn submitted(&self) -> PyResult<u64> {
        Ok(self.state()?.submitted)
    }

    /// The engine: e.g. `cpu (2 threads)` or the Vulkan device.
    #[getter]
    fn backend(&self) -> PyResult<String> {
        Ok(self
            .state()?
            .engine
            .as_ref()
            .map_or_else(|| "closed".into(), |e| e.description.clone()))
    }

    /// The report of every frame scored so far (the pairs still in flight
    /// are not waited for).
    fn report(&self) -> PyResult<PyReport> {
        let st = self.state()?;
        let secs = st.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let fps = st.scored.len() as f64 / secs.max(1e-9);
        let size = (self.format.width, self.format.height);
        let report = embed::report(&self.plan, &self.metrics, size, fps, &st.scored)
            .map_err(|e| crate::errors::to_py(&e, crate::errors::Stage::Run))?;
        Ok(PyReport::new(report))
    }

    /// Waits for the pairs in flight and releases the engine.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut st = self.state()?;
        let flushed = st.flush(py);
        if let Some(engine) = st.engine.take() {
            py.detach(|| drop(engine));
        }
        flushed
    }
}

impl PyScorer {
    /// The scorer's state, or the error for a call while another thread's
    /// is under way (a scorer is for one thread at a time).
    fn state(&self) -> PyResult<MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(st) => Ok(st),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(TryLockError::WouldBlock) => Err(Error::new_err(
                "this vkssim.Scorer is in use by another thread: a Scorer is for one thread \
                 at a time (give each thread its own, or hand the pairs to one thread)",
            )),
        }
    }

    fn submit_typed<T: Sample>(
        &self,
        py: Python<'_>,
        reference: &Bound<'_, PyAny>,
        distorted: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        let r = self.planes::<T>(reference, "reference")?;
        let d = self.planes::<T>(distorted, "distorted")?;
        let (rv, dv) = (arrays::planes2(&r), arrays::planes2(&d));
        let mut st = self.state()?;
        st.check()?;
        st.started.get_or_insert_with(Instant::now);
        let Some(engine) = st.engine.as_mut() else {
            return Err(Error::new_err("the scorer is closed"));
        };
        let scorer = &mut engine.scorer;
        let (submitted, results) = py.detach(|| {
            let index = scorer.submitted();
            // A sample above the bit depth refuses the pair here, before it
            // takes a frame number, and the scorer goes on (the library would
            // queue it and make its result the error, which breaks a Python
            // scorer). Checked with the GIL released, as the copy is.
            let submitted = self
                .check_range(&rv, &dv, index)
                .and_then(|()| scorer.submit(arrays::pair(&rv, &dv)))
                .map(|()| index);
            let mut results = Vec::new();
            while let Some(res) = scorer.poll_indexed() {
                results.push(res);
            }
            (submitted, results)
        });
        let count = scorer.submitted();
        st.submitted = count;
        let taken = st.take(results);
        let index = submitted.map_err(|e| from_lib(&e))?;
        taken.map(|()| index)
    }

    /// The library's range check of every plane of the pair, alone
    /// (`HostPlane::check_range`), for frame `frame`.
    fn check_range<T: Sample>(
        &self,
        reference: &[arrays::PlaneRef<'_, T>],
        distorted: &[arrays::PlaneRef<'_, T>],
        frame: u64,
    ) -> vkssim::Result<()> {
        let (w, h, bits) = (self.format.width, self.format.height, self.format.bit_depth);
        let components = [Component::Luma, Component::Cb, Component::Cr];
        for (role, planes) in [
            (PlaneRole::Reference, reference),
            (PlaneRole::Distorted, distorted),
        ] {
            for (k, plane) in planes.iter().enumerate() {
                let (pw, ph) = if k == 0 {
                    (w, h)
                } else {
                    self.format.chroma.plane_size(w, h)
                };
                plane
                    .host()
                    .check_range((pw, ph, bits), (role, components[k]), frame)?;
            }
        }
        Ok(())
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
}

impl State {
    /// Raises the error that broke the scorer.
    fn check(&self) -> PyResult<()> {
        match &self.broken {
            Some(m) => Err(Error::new_err(format!(
                "the scorer stopped at an earlier error: {m}"
            ))),
            None => Ok(()),
        }
    }

    /// Takes results (in order, each with its frame number) into the ready
    /// queue; a failed one breaks the scorer and is raised.
    fn take(&mut self, results: Vec<(u64, vkssim::Result<FrameScore>)>) -> PyResult<()> {
        let mut first = None;
        for (index, res) in results {
            match res {
                Ok(s) if self.broken.is_none() => {
                    self.ready.push_back((index, s.clone()));
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

    /// Takes the results that are back; `block`: waits for one if none is
    /// (ending the stream when only results held for a later frame are
    /// left).
    fn collect(&mut self, py: Python<'_>, block: bool) -> PyResult<()> {
        let Some(engine) = self.engine.as_mut() else {
            return Ok(());
        };
        let scorer = &mut engine.scorer;
        let results = py.detach(|| {
            let mut results = Vec::new();
            while let Some(res) = scorer.poll_indexed() {
                results.push(res);
            }
            if results.is_empty() && block {
                results.extend(scorer.wait_indexed());
                if results.is_empty() && scorer.in_flight() > 0 {
                    scorer.finish();
                    results.extend(scorer.wait_indexed());
                }
            }
            results
        });
        self.take(results)
    }

    /// Waits for every pair in flight (checking for Ctrl-C between results).
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        while self
            .engine
            .as_ref()
            .is_some_and(|e| e.scorer.in_flight() > 0)
        {
            self.collect(py, true)?;
            py.check_signals()?;
        }
        self.check()
    }
}

/// `{"frameNum": index, output: value, ...}` of one frame, for the output
/// `names`.
pub fn frame_dict<'py>(
    py: Python<'py>,
    names: &[String],
    index: u64,
    score: &FrameScore,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("frameNum", index)?;
    for name in names {
        d.set_item(name, score.value(name).unwrap_or(f64::NAN))?;
    }
    Ok(d)
}
