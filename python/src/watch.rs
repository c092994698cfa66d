//! What a run does between frames while the GIL is released: every scored
//! frame takes the GIL back briefly to run Python's signal handlers (so
//! Ctrl-C stops the run within a frame or so) and the caller's progress
//! callback; either one raising stops the run, and the exception is kept to
//! be raised once the frames scored so far are collected.

use std::sync::Mutex;

use pyo3::prelude::*;

/// The progress callback (`callback(done, total)`, `total` None when not
/// known) and the first exception a frame raised.
pub struct Watch {
    callback: Option<Py<PyAny>>,
    total: Option<u64>,
    raised: Mutex<Option<PyErr>>,
}

impl Watch {
    /// Calls `callback` (if any) for runs of `total` frames.
    pub fn new(callback: Option<Py<PyAny>>, total: Option<u64>) -> Self {
        Self {
            callback,
            total,
            raised: Mutex::new(None),
        }
    }

    /// Says the run starts (`callback(0, total)`); with the GIL held.
    pub fn start(&self, py: Python<'_>) -> PyResult<()> {
        if let Some(cb) = &self.callback {
            cb.call1(py, (0u64, self.total))?;
        }
        Ok(())
    }

    /// After `done` frames (without the GIL): signals, then progress.
    /// An error stops the run; the exception is kept for [`Watch::finish`].
    pub fn frame(&self, done: u64) -> anyhow::Result<()> {
        let result = Python::attach(|py| {
            // Every frame: a call costs about a microsecond, and a bar
            // (tqdm) limits its own redrawing. Signals after it, so that one
            // raised during the callback is seen at once.
            if let Some(cb) = &self.callback {
                cb.call1(py, (done, self.total))?;
            }
            py.check_signals()?;
            Ok::<(), PyErr>(())
        });
        match result {
            Ok(()) => Ok(()),
            Err(e) => {
                let mut raised = self.raised.lock().unwrap_or_else(|p| p.into_inner());
                raised.get_or_insert(e);
                Err(anyhow::anyhow!("stopped by an exception raised in Python"))
            }
        }
    }

    /// The exception a frame raised, if any.
    pub fn finish(&self) -> Option<PyErr> {
        self.raised.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}
