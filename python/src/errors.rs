//! The exceptions: `vkssim.Error` and its subclasses, one per kind of
//! failure, each mapped from the library's typed error (`vkssim::Error`)
//! found in an error's chain, and each also deriving from the builtin
//! exception of its kind, as PyAV's do (`InputError(Error, OSError)`;
//! `OptionError`, `GeometryError`, `LengthError`, `UnsupportedError` are
//! ValueErrors; `DeviceError(Error, RuntimeError)`); the message is the
//! command line's (the chain on one line), naming keywords where the command
//! line names flags.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use vkssim::Error as E;

create_exception!(
    vkssim,
    Error,
    PyException,
    "Every error vkssim raises (its subclasses say which kind)."
);
create_exception!(
    vkssim,
    Interrupted,
    PyKeyboardInterrupt,
    "Ctrl-C while scoring: a KeyboardInterrupt whose `result` holds the frames scored before it."
);

/// A subclass of [`Error`] that also derives from a builtin exception (as
/// PyAV's errors do), so that `except OSError` or `except ValueError` catch
/// it too: `class Name(Error, Builtin)`, made once per interpreter.
macro_rules! subclass {
    ($name:ident, $builtin:ty, $doc:expr) => {
        #[doc = $doc]
        pub struct $name;

        impl $name {
            /// The class, made on first use.
            pub fn class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
                static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
                CLASS
                    .get_or_try_init(py, || {
                        subclass(py, stringify!($name), py.get_type::<$builtin>(), $doc)
                    })
                    .map(|c| c.bind(py))
            }

            /// The exception carrying `message`.
            pub fn new_err(message: impl Into<String>) -> PyErr {
                let message = message.into();
                Python::attach(|py| match Self::class(py) {
                    Ok(class) => PyErr::from_type(class.clone(), message),
                    Err(e) => e,
                })
            }
        }
    };
}

subclass!(
    InputError,
    PyOSError,
    "An input cannot be read or is not what it claims: a missing or truncated file, a bad Y4M header, a sample above the bit depth, an array of the wrong dtype or shape. Also an OSError."
);
subclass!(
    GeometryError,
    PyValueError,
    "The frames cannot be scored together or at all: the reference and distorted sizes or bit depths differ, or a frame is too small for a feature. Also a ValueError."
);
subclass!(
    LengthError,
    PyValueError,
    "The reference and distorted inputs differ in length (pass allow_length_mismatch=True to score their common frames). Also a ValueError."
);
subclass!(
    OptionError,
    PyValueError,
    "An option or feature is refused: an unknown feature or option, a value of the wrong type or out of range, options that cannot go together; the message names the keyword. Also a ValueError."
);
subclass!(
    UnsupportedError,
    PyValueError,
    "A format or combination vkssim does not score (and says so rather than give a different number). Also a ValueError."
);
subclass!(
    DeviceError,
    PyRuntimeError,
    "The Vulkan device cannot score: no Vulkan, no such device, a missing feature, a lost device, out of device memory. Also a RuntimeError."
);

/// `class name(Error, builtin)` in module `vkssim`, documented by `doc`.
fn subclass(
    py: Python<'_>,
    name: &str,
    builtin: Bound<'_, PyType>,
    doc: &str,
) -> PyResult<Py<PyType>> {
    let bases = PyTuple::new(py, [py.get_type::<Error>(), builtin])?;
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "vkssim")?;
    namespace.set_item("__doc__", doc)?;
    let class = py
        .get_type::<PyType>()
        .call1((name, bases, namespace))?
        .cast_into::<PyType>()?;
    Ok(class.unbind())
}

/// Where an error came from: resolving the options (before any input is
/// read) or the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Parsing and checking the options.
    Options,
    /// Opening, checking and scoring the inputs.
    Run,
}

/// The exception for `e`: the class of the first library error in its
/// chain (an untyped error of the options is an [`OptionError`], of the run
/// an [`Error`]), with the command line's message.
pub fn to_py(e: &anyhow::Error, stage: Stage) -> PyErr {
    let mut message = vkssim_cli::error_chain(e);
    let typed = e.chain().find_map(|c| c.downcast_ref::<E>());
    if let Some(E::LengthMismatch { common, .. }) = typed {
        message.push_str(&format!(
            "; pass allow_length_mismatch=True to score the {}",
            vkssim::words::count(*common, "common frame")
        ));
    }
    let no_device = e
        .chain()
        .any(|c| c.is::<vkssim_cli::backend::NoSuchDevice>());
    match typed {
        Some(t) => from_kind(t, message),
        None if no_device => DeviceError::new_err(message),
        None if stage == Stage::Options => OptionError::new_err(message),
        None => Error::new_err(message),
    }
}

/// The exception for a library error `e`.
pub fn from_lib(e: &E) -> PyErr {
    to_py(&anyhow::anyhow!(e.clone()), Stage::Run)
}

/// The class of `e`, carrying `message`.
fn from_kind(e: &E, message: String) -> PyErr {
    match e {
        E::Io { .. }
        | E::TruncatedFrame { .. }
        | E::EmptyInput { .. }
        | E::Y4mHeader { .. }
        | E::Y4mFrame { .. }
        | E::SampleRange { .. }
        | E::NoFrames(_)
        | E::BufferSize { .. }
        | E::VideoDecode { .. }
        | E::Demux { .. }
        | E::NoVideoStream { .. }
        | E::NoSuchStream { .. }
        | E::UnsupportedCodec { .. }
        | E::CutShort { .. }
        | E::StreamChange { .. }
        | E::Decode { .. } => InputError::new_err(message),
        E::GeometryMismatch(_) | E::PlaneTooSmall { .. } | E::FrameTooSmall { .. } => {
            GeometryError::new_err(message)
        }
        E::LengthMismatch { .. } => LengthError::new_err(message),
        E::InvalidOption(_) => OptionError::new_err(message),
        E::Unsupported(_) => UnsupportedError::new_err(message),
        E::NoVulkan(_)
        | E::NoDevice(_)
        | E::NoSuchDevice { .. }
        | E::ValidationLayerMissing
        | E::MissingFeature { .. }
        | E::DeviceLost(_)
        | E::OutOfDeviceMemory(_)
        | E::Allocation { .. }
        | E::NotMapped(_)
        | E::Vulkan { .. }
        | E::SelfTestFailed(_) => DeviceError::new_err(message),
        // Which device says where, not what: the cause's class.
        E::OnDevice { source, .. } => from_kind(source, message),
        _ => Error::new_err(message),
    }
}

/// Adds the exception classes to the module `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("InputError", InputError::class(py)?)?;
    m.add("GeometryError", GeometryError::class(py)?)?;
    m.add("LengthError", LengthError::class(py)?)?;
    m.add("OptionError", OptionError::class(py)?)?;
    m.add("UnsupportedError", UnsupportedError::class(py)?)?;
    m.add("DeviceError", DeviceError::class(py)?)?;
    m.add("Interrupted", py.get_type::<Interrupted>())?;
    Ok(())
}
