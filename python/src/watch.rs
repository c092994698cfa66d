//! What a run does between frames while the GIL is released: every scored
//! frame takes the GIL back briefly to run Python's signal handlers (so
//! Ctrl-C stops the run within a frame or so) and the caller's progress
//! callback; either one raising stops the run, and the exception is kept to
//! be raised once the frames scored so far are collected.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// The progress callback (`callback(done, total)`, `total` None when not
/// known) and the first exception a frame raised.
pub struct Watch {
    callback: Option<Py<PyAny>>,
    total: Option<u64>,
    raised: Mutex<Option<PyErr>>,
    /// When the callback last ran (it runs at most every 50 ms, and for the
    /// last frame).
    last: Mutex<Option<Instant>>,
}

/// The least time between two progress calls.
const EVERY: Duration = Duration::from_millis(50);

impl Watch {
    /// Calls `callback` (if any) for runs of `total` frames.
    pub fn new(callback: Option<Py<PyAny>>, total: Option<u64>) -> Self {
        Self {
            callback,
            total,
            raised: Mutex::new(None),
            last: Mutex::new(None),
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
            py.check_signals()?;
            if let Some(cb) = &self.callback {
                let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
                let due = last.is_none_or(|t| t.elapsed() >= EVERY) || Some(done) == self.total;
                if due {
                    *last = Some(Instant::now());
                    cb.call1(py, (done, self.total))?;
                }
            }
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

    /// Says the run ended after `done` frames (the callback's last call),
    /// with the GIL held; the exception a frame raised, if any.
    pub fn finish(&self, py: Python<'_>, done: u64) -> Option<PyErr> {
        let raised = self.raised.lock().unwrap_or_else(|p| p.into_inner()).take();
        if raised.is_none() {
            if let Some(cb) = &self.callback {
                if let Err(e) = cb.call1(py, (done, self.total)) {
                    return Some(e);
                }
            }
        }
        raised
    }
}
