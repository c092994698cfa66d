//! [`Collector`]: the results of a run in submission order. Scores are kept
//! until the first failed frame (so the kept frames never have a gap); the
//! first error of the run is remembered.

use std::collections::VecDeque;

use anyhow::anyhow;
use vkssim::FrameScore;

/// See the module documentation.
#[derive(Default)]
pub struct Collector {
    /// Indices submitted whose result has not come back.
    pub submitted: VecDeque<u64>,
    /// Scores kept, in order.
    pub frames: Vec<(u64, FrameScore)>,
    /// A frame failed: later scores are dropped.
    broken: bool,
    /// The first error of the run.
    pub error: Option<anyhow::Error>,
}

impl Collector {
    /// Records the run's error (the first one wins).
    pub fn fail(&mut self, e: anyhow::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Records the next result; an error from `on_score` stops the run.
    pub fn take(
        &mut self,
        res: vkssim::Result<FrameScore>,
        on_score: &dyn Fn(u64) -> anyhow::Result<()>,
    ) {
        let index = self.submitted.pop_front().unwrap_or(u64::MAX);
        match res {
            Ok(s) if !self.broken => {
                self.frames.push((index, s));
                if let Err(e) = on_score(self.frames.len() as u64) {
                    // The caller stops the run: the frames so far are kept.
                    self.broken = true;
                    self.fail(e);
                }
            }
            Ok(_) => {}
            Err(e) => {
                self.broken = true;
                self.fail(anyhow!(e).context(format!("scoring frame {index}")));
            }
        }
    }
}
