//! Keyword options into typed values: each keyword of `vkssim.score` and
//! `vkssim.Scorer` read from its Python value (type, range, choices checked
//! here, each error an `OptionError` naming the keyword and the value, as
//! `decode_threads=65: out of range (0 to 64)`) and set on the command
//! line's [`ScoreArgs`], which the command line's own checks resolve into
//! its plan ([`embed::plan`]) with messages that name keywords, never flags.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyString};
use vkssim::io::{ScaleAlgorithm, PIXEL_FORMATS};
use vkssim::metric::MotionVersion;
use vkssim_cli::embed::{
    self, Backend, DeviceChoice, Precision, ScoreArgs, ScorePlan, Spelling, Upload,
    MAX_DECODE_THREADS, MAX_DEVICES, MAX_FRAMES_IN_FLIGHT, MAX_READ_THREADS, MAX_THREADS,
};

use crate::errors::{to_py, OptionError, Stage};

/// The plan of a run of `reference` against `distorted` with `options`
/// (keyword to value; a value of None is unset).
pub fn plan(
    reference: PathBuf,
    distorted: PathBuf,
    options: &Bound<'_, PyDict>,
) -> PyResult<ScorePlan> {
    let args = score_args(reference, distorted, options)?;
    embed::plan(args).map_err(|e| to_py(&e, Stage::Options))
}

/// [`ScoreArgs`] of `options`, each keyword checked.
fn score_args(
    reference: PathBuf,
    distorted: PathBuf,
    options: &Bound<'_, PyDict>,
) -> PyResult<ScoreArgs> {
    let mut a = ScoreArgs::pair(reference, distorted);
    a.spelling = Spelling::Keywords;
    for (key, obj) in options.iter() {
        if obj.is_none() {
            continue;
        }
        let key: String = key.extract()?;
        let v = Keyword {
            key: &key,
            obj: &obj,
        };
        match key.as_str() {
            "features" => a.feature = v.features()?,
            "model" => a.model = v.models()?,
            "motion_version" => {
                a.motion_version = v.choice(&[
                    ("2.3.1", MotionVersion::V2_3_1),
                    ("3.2.0", MotionVersion::V3_2_0),
                ])?
            }
            "backend" => {
                a.engine.backend = v.choice(&[
                    ("auto", Backend::Auto),
                    ("vulkan", Backend::Vulkan),
                    ("cpu", Backend::Cpu),
                ])?
            }
            "device" => a.engine.device = Some(v.device()?),
            "threads" => a.engine.threads = v.count(MAX_THREADS)? as usize,
            "upload" => {
                a.engine.upload = v.choice(&[
                    ("auto", Upload::Auto),
                    ("direct", Upload::Direct),
                    ("staging", Upload::Staging),
                ])?
            }
            "frames_in_flight" => {
                a.engine.frames_in_flight = v.count(MAX_FRAMES_IN_FLIGHT)? as usize
            }
            "read_threads" => a.engine.read_threads = v.count(MAX_READ_THREADS)? as usize,
            "precision" => a.precision = v.precision()?,
            "frame_skip_ref" => a.frame_skip_ref = v.count(u64::MAX)?,
            "frame_skip_dist" => a.frame_skip_dist = v.count(u64::MAX)?,
            "frame_cnt" => a.frame_cnt = v.count(u64::MAX)?,
            "subsample" => a.subsample = v.count(u64::MAX)?,
            "allow_length_mismatch" => a.allow_length_mismatch = v.switch()?,
            "width" => a.width = Some(v.count(u32::MAX.into())? as u32),
            "height" => a.height = Some(v.count(u32::MAX.into())? as u32),
            "pix_fmt" => a.pixel_format = Some(v.word(&PIXEL_FORMATS)?.into()),
            "bitdepth" => a.bitdepth = Some(v.count(u32::MAX.into())? as u32),
            "stream" => a.stream = vec![v.count(u32::MAX.into())? as usize],
            "reference_stream" => a.reference_stream = Some(v.count(u32::MAX.into())? as usize),
            "decode_errors" => a.decode_errors = v.word(&["error", "conceal"])?.into(),
            "decode" => a.decode_on = v.word(&["auto", "cpu", "gpu"])?.into(),
            "decode_threads" => a.decode_threads = v.count(MAX_DECODE_THREADS.into())? as u16,
            "resize_distorted" => {
                let names = ScaleAlgorithm::ALL.map(ScaleAlgorithm::name);
                a.resize_distorted = Some(v.word(&names)?.into());
            }
            other => {
                return Err(OptionError::new_err(format!("{other}: no such option")));
            }
        }
    }
    Ok(a)
}

/// One keyword and its value.
pub struct Keyword<'a, 'py> {
    /// The keyword (for messages).
    pub key: &'a str,
    /// Its value.
    pub obj: &'a Bound<'py, PyAny>,
}

impl Keyword<'_, '_> {
    /// `key=repr(value)`.
    fn given(&self) -> String {
        let repr = self
            .obj
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into());
        format!("{}={repr}", self.key)
    }

    /// The value's type name (for messages).
    fn type_name(&self) -> String {
        self.obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into())
    }

    /// Whether the value is a bool (Python's or numpy's).
    fn is_bool(&self) -> bool {
        let name = self.type_name();
        name == "bool" || name == "bool_"
    }

    /// A refusal: `key=value: why`.
    fn refuse(&self, why: impl std::fmt::Display) -> PyErr {
        OptionError::new_err(format!("{}: {why}", self.given()))
    }

    /// An integer from 0 to `max` (a Python int or a numpy integer; a bool,
    /// a float or a string is refused).
    pub fn count(&self, max: u64) -> PyResult<u64> {
        let integral = !self.is_bool()
            && !self.obj.is_instance_of::<PyFloat>()
            && (self.obj.is_instance_of::<PyInt>() || self.obj.hasattr("__index__")?);
        if !integral {
            return Err(self.refuse(format!("expected an integer, got {}", self.type_name())));
        }
        let range = if max == u64::MAX {
            "0 or more".to_string()
        } else {
            format!("0 to {max}")
        };
        match self.obj.extract::<i128>() {
            Ok(n) if (0..=i128::from(max)).contains(&n) => Ok(n as u64),
            _ => Err(self.refuse(format!("out of range ({range})"))),
        }
    }

    /// True or False (Python's or numpy's bool).
    fn switch(&self) -> PyResult<bool> {
        if !self.is_bool() {
            return Err(self.refuse(format!("expected True or False, got {}", self.type_name())));
        }
        self.obj.is_truthy()
    }

    /// One of `names` (a string).
    fn word<'n>(&self, names: &[&'n str]) -> PyResult<&'n str> {
        let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        let expected = match quoted.as_slice() {
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
            [] => String::new(),
        };
        let Ok(text) = self.obj.cast::<PyString>() else {
            return Err(self.refuse(format!(
                "expected a string ({expected}), got {}",
                self.type_name()
            )));
        };
        let text = text.to_cow()?;
        names
            .iter()
            .find(|n| **n == text)
            .copied()
            .ok_or_else(|| self.refuse(format!("expected {expected}")))
    }

    /// One of `choices`, by name.
    fn choice<T: Copy>(&self, choices: &[(&str, T)]) -> PyResult<T> {
        let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
        let name = self.word(&names)?;
        Ok(choices
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .expect("a name of the choices"))
    }

    /// `features`: a spec (`NAME` or `NAME=OPTION=VALUE:...`) or an
    /// iterable of them, at least one.
    fn features(&self) -> PyResult<Vec<String>> {
        let specs = self.texts("a feature spec ('NAME')", "'NAME=OPTION=VALUE'")?;
        if specs.is_empty() {
            return Err(OptionError::new_err(format!(
                "{}: name at least one ({})",
                self.key,
                vkssim::metric::MetricConfig::names().join(", ")
            )));
        }
        Ok(specs)
    }

    /// `model`: a VMAF model spec in vmaf's `-m/--model` syntax
    /// (`"version=vmaf_v0.6.1"`, `"path=model.json:name=mine"`) or an
    /// iterable of them (empty: no model).
    fn models(&self) -> PyResult<Vec<String>> {
        self.texts(
            "a model such as 'version=vmaf_v0.6.1'",
            "'version=vmaf_v0.6.1'",
        )
    }

    /// A string or an iterable of strings; `what` and `example` say what
    /// one is in the messages.
    fn texts(&self, what: &str, example: &str) -> PyResult<Vec<String>> {
        if let Ok(one) = self.obj.cast::<PyString>() {
            return Ok(vec![one.to_cow()?.into_owned()]);
        }
        let Ok(items) = self.obj.try_iter() else {
            return Err(self.refuse(format!(
                "expected {what} or a list of them, got {}",
                self.type_name()
            )));
        };
        let mut specs = Vec::new();
        for item in items {
            let item = item?;
            match item.cast::<PyString>() {
                Ok(s) => specs.push(s.to_cow()?.into_owned()),
                Err(_) => {
                    return Err(OptionError::new_err(format!(
                        "{}: {} is not a string such as {example}",
                        self.key,
                        item.repr()?
                    )));
                }
            }
        }
        Ok(specs)
    }

    /// `device`: an index, an iterable of them, or `"all"`.
    fn device(&self) -> PyResult<DeviceChoice> {
        if let Ok(text) = self.obj.cast::<PyString>() {
            if text.to_cow()? == "all" {
                return Ok(DeviceChoice::All);
            }
            return Err(self.refuse("expected a device index, a list of them, or 'all'"));
        }
        let index = |obj: &Bound<'_, PyAny>| {
            Keyword { key: self.key, obj }
                .count(u32::MAX.into())
                .map(|n| n as usize)
        };
        let Ok(items) = self.obj.try_iter() else {
            return Ok(DeviceChoice::List(vec![index(self.obj)?]));
        };
        let list = items
            .map(|item| index(&item?))
            .collect::<PyResult<Vec<_>>>()?;
        if list.is_empty() {
            return Err(self.refuse("name at least one device index, or 'all'"));
        }
        if list.len() > MAX_DEVICES {
            return Err(self.refuse(format!(
                "at most {MAX_DEVICES} devices, {} given",
                list.len()
            )));
        }
        Ok(DeviceChoice::List(list))
    }

    /// `precision`: digits after the point (0 to 40) or `"max"`.
    fn precision(&self) -> PyResult<Precision> {
        let max = Precision::MAX_DIGITS;
        if let Ok(text) = self.obj.cast::<PyString>() {
            return text.to_cow()?.parse::<Precision>().map_err(|_| {
                self.refuse(format!("expected a number of digits (0 to {max}) or 'max'"))
            });
        }
        Ok(Precision::Fixed(self.count(max as u64)? as usize))
    }
}
