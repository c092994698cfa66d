//! `_native.score_arrays`: frames in numpy arrays, `(frames, rows, columns)`
//! per plane (read through their strides), scored on the engine the keyword
//! options pick, with the command line's frame selection, checks and report;
//! the GIL released.

use std::collections::VecDeque;
use std::time::Instant;
use vkssim::api::ScoreQueue;

use anyhow::anyhow;
use numpy::{PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use vkssim::frame::PlaneGeometry;
use vkssim::io::{Chroma, VideoFormat};
use vkssim::{Error, FrameScore};
use vkssim_cli::embed::{self, ScorePlan};

use crate::arrays::{self, Sample};
use crate::errors::{from_lib, to_py, InputError, Stage};
use crate::options::{self, Keyword};
use crate::result::PyReport;
use crate::run::finish;
use crate::watch::Watch;

/// Scores `reference` against `distorted` (each a list of planes: luma, or
/// luma, Cb and Cr; uint8, or uint16 with `bitdepth`) with `options`
/// (`vkssim.score`'s keywords that arrays take; None is unset);
/// `progress(done, total)` after frames.
#[pyfunction]
#[pyo3(signature = (reference, distorted, options, bitdepth=None, progress=None))]
pub fn score_arrays(
    py: Python<'_>,
    reference: Vec<Bound<'_, PyAny>>,
    distorted: Vec<Bound<'_, PyAny>>,
    options: &Bound<'_, PyDict>,
    bitdepth: Option<Bound<'_, PyAny>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyReport> {
    let plan = options::plan("<arrays>".into(), "<arrays>".into(), options)?;
    let bit_depth = bitdepth
        .map(|obj| {
            let key = Keyword {
                key: "bitdepth",
                obj: &obj,
            };
            key.count(u32::MAX.into()).map(|b| b as u32)
        })
        .transpose()?;
    let is_u8 = reference
        .first()
        .is_some_and(|a| a.extract::<PyReadonlyArray3<'_, u8>>().is_ok());
    if is_u8 {
        score_typed::<u8>(py, &reference, &distorted, &plan, bit_depth, progress)
    } else {
        score_typed::<u16>(py, &reference, &distorted, &plan, bit_depth, progress)
    }
}

/// The checked planes of one input (`role`: reference or distorted).
fn input<'py, T: Sample>(
    planes: &[Bound<'py, PyAny>],
    role: &str,
) -> PyResult<Vec<PyReadonlyArray3<'py, T>>> {
    if planes.is_empty() {
        return Err(InputError::new_err(format!("the {role}: no planes")));
    }
    let names = ["luma", "Cb", "Cr"];
    let arrays = planes
        .iter()
        .enumerate()
        .map(|(k, p)| {
            arrays::video::<T>(
                p,
                &format!("the {role}'s {} plane", names.get(k).unwrap_or(&"extra")),
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    let frames = arrays[0].shape()[0];
    if let Some(a) = arrays.iter().find(|a| a.shape()[0] != frames) {
        return Err(InputError::new_err(format!(
            "the {role}: its luma array has {frames} frames but a chroma array has {}",
            a.shape()[0]
        )));
    }
    Ok(arrays)
}

/// Luma (width, height), the chroma layout and the frame count of `planes`.
fn layout<T: Sample>(
    planes: &[PyReadonlyArray3<'_, T>],
    role: &str,
) -> PyResult<((usize, usize), Option<Chroma>, usize)> {
    let s = planes[0].shape();
    let luma = (s[2], s[1]);
    let chroma: Vec<(usize, usize)> = planes[1..]
        .iter()
        .map(|p| (p.shape()[2], p.shape()[1]))
        .collect();
    Ok((
        luma,
        arrays::chroma_of(luma, &chroma, &format!("the {role}"))?,
        s[0],
    ))
}

fn score_typed<T: Sample>(
    py: Python<'_>,
    reference: &[Bound<'_, PyAny>],
    distorted: &[Bound<'_, PyAny>],
    plan: &ScorePlan,
    bit_depth: Option<u32>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyReport> {
    let depth = arrays::bit_depth::<T>(bit_depth)?;
    let r = input::<T>(reference, "reference")?;
    let d = input::<T>(distorted, "distorted")?;
    let (rl, rc, nr) = layout(&r, "reference")?;
    let (dl, dc, nd) = layout(&d, "distorted")?;
    let g = |(w, h): (usize, usize)| PlaneGeometry::new(w as u32, h as u32, depth);
    g(rl)
        .expect_same("reference array", g(dl), "distorted array")
        .map_err(|e| from_lib(&e))?;
    if rc != dc {
        return Err(InputError::new_err(format!(
            "the reference's chroma is {} but the distorted's is {}",
            rc.map_or("absent".into(), |c| c.to_string()),
            dc.map_or("absent".into(), |c| c.to_string())
        )));
    }
    let format = VideoFormat::new(rl.0 as u32, rl.1 as u32, depth, rc.unwrap_or(Chroma::Mono))
        .map_err(|e| from_lib(&e))?;
    let metrics = embed::metric_set(plan, format).map_err(|e| to_py(&e, Stage::Run))?;
    let sel = embed::run_selection(plan, &metrics);
    let positions = positions(nr, nd, &sel).map_err(|e| from_lib(&e))?;
    let (r, d): (Vec<_>, Vec<_>) = (
        r.iter().map(arrays::strided).collect(),
        d.iter().map(arrays::strided).collect(),
    );
    let watch = Watch::new(progress, Some(positions.div_ceil(sel.subsample.max(1))));
    watch.start(py)?;
    let outcome = py.detach(|| -> anyhow::Result<_> {
        let mut engine = embed::start_engine(plan, &metrics, format)?;
        let scorer = &mut engine.scorer;
        let step = sel.subsample.max(1);
        let mut run = Collected::default();
        let start = Instant::now();
        let mut read = 0u64;
        let mut refused = None;
        for pos in (0..positions).step_by(step as usize) {
            let ri = (sel.skip_ref + pos) as usize;
            let di = (sel.skip_dist + pos) as usize;
            let (rp, dp) = (arrays::frame(&r, ri), arrays::frame(&d, di));
            if let Err(e) = scorer.submit(arrays::pair(&rp, &dp)) {
                // The pairs before it are still collected.
                refused = Some(anyhow!(e).context(format!("scoring frame {pos}")));
                break;
            }
            read = pos + 1;
            run.submitted.push_back(pos);
            while let Some(res) = scorer.poll() {
                run.take(res, &watch);
            }
            if run.error.is_some() {
                break;
            }
        }
        scorer.finish();
        while let Some(res) = scorer.wait() {
            run.take(res, &watch);
        }
        if let Some(e) = refused {
            run.fail(e);
        }
        if run.error.is_none() {
            read = positions;
        }
        let fps = read as f64 / start.elapsed().as_secs_f64().max(1e-9);
        Ok((run, fps))
    });
    let (run, fps) = outcome.map_err(|e| to_py(&e, Stage::Run))?;
    let report = embed::report(
        plan,
        &metrics,
        (format.width, format.height),
        fps,
        &run.frames,
    )
    .map_err(|e| to_py(&e, Stage::Run))?;
    let raised = watch.finish();
    finish(py, report, raised, run.error)
}

/// The results of a run in submission order (the frames before the first
/// failure or stop, and its error).
#[derive(Default)]
struct Collected {
    submitted: VecDeque<u64>,
    frames: Vec<(u64, FrameScore)>,
    error: Option<anyhow::Error>,
}

impl Collected {
    fn fail(&mut self, e: anyhow::Error) {
        self.error.get_or_insert(e);
    }

    fn take(&mut self, res: vkssim::Result<FrameScore>, watch: &Watch) {
        let pos = self.submitted.pop_front().unwrap_or(u64::MAX);
        match res {
            Ok(s) if self.error.is_none() => {
                self.frames.push((pos, s));
                if let Err(e) = watch.frame(self.frames.len() as u64) {
                    self.fail(e);
                }
            }
            Ok(_) => {}
            Err(e) => self.fail(anyhow!(e).context(format!("scoring frame {pos}"))),
        }
    }
}

/// The pair positions a run of `nr` reference and `nd` distorted frames
/// covers with `sel`, checked as the command line checks files of known
/// length: no pair is [`Error::NoFrames`], different lengths
/// [`Error::LengthMismatch`] unless allowed.
fn positions(nr: usize, nd: usize, sel: &embed::Selection) -> vkssim::Result<u64> {
    let ar = (nr as u64).saturating_sub(sel.skip_ref);
    let ad = (nd as u64).saturating_sub(sel.skip_dist);
    let cap = if sel.frame_cnt == 0 {
        u64::MAX
    } else {
        sel.frame_cnt
    };
    let (pr, pd) = (ar.min(cap), ad.min(cap));
    let pairs = pr.min(pd);
    if pairs == 0 {
        return Err(Error::NoFrames(format!(
            "the arrays (the reference has {ar} frames after skipping {}, the distorted {ad} after skipping {})",
            sel.skip_ref, sel.skip_dist
        )));
    }
    if pr != pd && !sel.allow_length_mismatch {
        return Err(Error::LengthMismatch {
            reference: ar,
            distorted: ad,
            common: pairs,
        });
    }
    Ok(pairs)
}
