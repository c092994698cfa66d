//! The backend-neutral scoring interface: a queue of frame pairs in, one
//! [`FrameScore`] per pair out, in submission order. The CPU twin
//! ([`crate::cpu`]) and the Vulkan engine both implement it; the public
//! [`crate::api::Scorer`] (which the command line uses too) drives either
//! through it.

use crate::{FrameScore, LumaFrame, Result};

/// Scores frame pairs of one geometry with one set of options, possibly several
/// at a time. Results come back in the order the pairs were submitted.
pub trait FrameScorer {
    /// Queues one pair. May block while the scorer's queue is full.
    fn submit(&mut self, reference: LumaFrame, distorted: LumaFrame) -> Result<()>;

    /// The oldest result if it is ready, without blocking.
    fn poll_next(&mut self) -> Option<Result<FrameScore>>;

    /// The oldest result, waiting for it; `None` when nothing is queued.
    fn wait_next(&mut self) -> Option<Result<FrameScore>>;

    /// Pairs submitted whose result has not been taken yet.
    fn in_flight(&self) -> usize;

    /// How many pairs the scorer works on at once; callers keep about this many
    /// submitted to keep it busy.
    fn queue_depth(&self) -> usize;
}
