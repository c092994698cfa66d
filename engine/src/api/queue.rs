//! [`ScoreQueue`]: the one way pairs go in and results come out, the same on
//! every queue of the API: a [`super::Scorer`] and a [`super::MultiScorer`]
//! (pairs, [`super::Pair`]) and their frame slots filled in place,
//! [`super::FrameSlots`] and [`super::MultiSlots`] ([`super::FrameSlot`]).

use crate::{FrameScore, Result};

/// A queue of frame pairs being scored: [`ScoreQueue::submit`] puts a pair
/// in, [`ScoreQueue::poll`] and [`ScoreQueue::wait`] take results out, one
/// per pair, **in submission order**, whatever order the work finishes in.
///
/// Each pair gets an index when it is submitted (0 for the first, counting
/// the pairs given through the queue's frame slots too): the
/// [`ScoreQueue::submitted`] count at that moment, which the `_indexed`
/// forms give back with its result.
///
/// ```
/// use vkssim::api::{HostPlane, Pair, ScoreQueue, Scorer, ScorerDesc};
/// let mut scorer = Scorer::cpu(&ScorerDesc::new(16, 16, 8), 1)?;
/// let (r, d) = (vec![16u8; 16 * 16], vec![17u8; 16 * 16]);
/// for _ in 0..3 {
///     scorer.submit(Pair::new(HostPlane::u8(&r, 16), HostPlane::u8(&d, 16)))?;
/// }
/// assert_eq!((scorer.submitted(), scorer.in_flight()), (3, 3));
/// let mut indices = Vec::new();
/// while let Some((index, score)) = scorer.wait_indexed() {
///     score?;
///     indices.push(index);
/// }
/// assert_eq!(indices, [0, 1, 2]);
/// # Ok::<(), vkssim::Error>(())
/// ```
pub trait ScoreQueue {
    /// What one submission takes: a [`super::Pair`] for a scorer, a filled
    /// [`super::FrameSlot`] for frame slots.
    type Input<'p>;

    /// Queues `input` as the next pair. Blocks while
    /// [`ScoreQueue::queue_depth`] pairs are being scored.
    ///
    /// Errors: what each queue's implementation lists (an input it does not
    /// take, samples above the bit depth checked on the host, device
    /// errors); a refused input takes no index.
    fn submit(&mut self, input: Self::Input<'_>) -> Result<()>;

    /// The oldest result if it is ready, without blocking, with its pair's
    /// index; `None` when it is not ready or nothing is queued.
    fn poll_indexed(&mut self) -> Option<(u64, Result<FrameScore>)>;

    /// The oldest result, waiting for it, with its pair's index; `None` when
    /// nothing is queued.
    fn wait_indexed(&mut self) -> Option<(u64, Result<FrameScore>)>;

    /// As [`ScoreQueue::poll_indexed`], without the index.
    fn poll(&mut self) -> Option<Result<FrameScore>> {
        self.poll_indexed().map(|(_, r)| r)
    }

    /// As [`ScoreQueue::wait_indexed`], without the index.
    fn wait(&mut self) -> Option<Result<FrameScore>> {
        self.wait_indexed().map(|(_, r)| r)
    }

    /// Pairs submitted so far: the index the next pair gets.
    fn submitted(&self) -> u64;

    /// Pairs submitted whose result has not been taken yet.
    fn in_flight(&self) -> usize;

    /// Pairs the queue works on at once (for frame slots: the slots that
    /// may be handed out at once).
    fn queue_depth(&self) -> usize;
}
