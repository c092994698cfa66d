//! [`ScoreQueue`]: the one way pairs go in and results come out, the same on
//! every queue of the API: a [`super::Scorer`] and a [`super::MultiScorer`]
//! (pairs, [`super::Pair`]) and their frame slots filled in place,
//! [`super::FrameSlots`] and [`super::MultiSlots`] ([`super::FrameSlot`]).

use crate::{FrameScore, Result};

/// A queue of frame pairs being scored: [`ScoreQueue::submit`] puts a pair
/// in, [`ScoreQueue::poll`] and [`ScoreQueue::wait`] take results out, one
/// per pair, **in submission order**, whatever order the work finishes in.
///
/// A value that needs later frames (the `motion` feature's
/// `integer_motion2`: the next frame's motion) and the VMAF models run on a
/// frame's values ([`super::ScorerDesc::with_models`]: `vmaf`, ...) are in
/// each result: such a queue holds a frame's result until the next pair's
/// is in, and the last one until the stream ends, [`ScoreQueue::finish`]
/// (libvmaf's flush). Without a temporal metric or a model, each result is
/// handed out as soon as it is scored.
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

    /// Ends the stream of pairs (libvmaf's flush): the results held for a
    /// later frame (a temporal metric's or a model's: the last pair's)
    /// complete as at the end of a run, the last frame keeping its own
    /// motion, and come out through [`ScoreQueue::poll`] and
    /// [`ScoreQueue::wait`] once every pair's result is in. Does not block.
    /// A pair submitted after it starts a new stream: a first frame, with no
    /// previous frame (motion 0), as a new run. Without it such a queue's
    /// [`ScoreQueue::wait`] gives `None` while only held results remain.
    fn finish(&mut self);

    /// Pairs submitted so far: the index the next pair gets.
    fn submitted(&self) -> u64;

    /// Pairs submitted whose result has not been taken yet (held results
    /// too: see [`ScoreQueue::finish`]).
    fn in_flight(&self) -> usize;

    /// Pairs the queue works on at once (for frame slots: the slots that
    /// may be handed out at once).
    fn queue_depth(&self) -> usize;
}
