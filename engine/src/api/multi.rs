//! [`MultiScorer`]: one stream of frame pairs spread over several engines
//! (several GPUs), one [`Scorer`] per engine, pairs dealt round robin and
//! results given back in submission order, each bit-identical to what one
//! engine gives (every engine runs the same exact passes). Pairs can also be
//! filled in place from reader threads ([`MultiSlots`], over each scorer's
//! [`FrameSlots`]).

use std::collections::VecDeque;

use super::engine::Engine;
use super::queue::ScoreQueue;
use super::scorer::{Scorer, ScorerDesc};
use super::slots::{FrameSlot, FrameSlots};
use super::stream::Stream;
use super::submit::Pair;
use crate::vk::shared_plane::SharedPlanes;
use crate::{Error, FrameScore, Result};

/// Scores pairs of one geometry on several engines at once. Pair `k` goes to
/// engine `k % n`; results come back in the order the pairs were submitted,
/// through [`MultiScorer::poll`](crate::api::ScoreQueue::poll) and [`MultiScorer::wait`](crate::api::ScoreQueue::wait). An error from one
/// engine (a lost device, say) is given back in that pair's place, naming the
/// engine's device ([`Error::OnDevice`]); the results before it are not lost.
///
/// ```no_run
/// use vkssim::api::{Engine, HostPlane, MultiScorer, Pair, ScoreQueue, ScorerDesc};
/// use vkssim::vk::VkOptions;
/// let engines = (0..2)
///     .map(|i| Engine::new(&VkOptions::default().with_device_index(Some(i))))
///     .collect::<Result<Vec<_>, _>>()?;
/// let mut scorer = MultiScorer::new(&engines, &ScorerDesc::new(64, 64, 8))?;
/// let (r, d) = (vec![16u8; 64 * 64], vec![17u8; 64 * 64]);
/// scorer.submit(Pair::new(HostPlane::u8(&r, 64), HostPlane::u8(&d, 64)))?;
/// while let Some(score) = scorer.wait() {
///     println!("{}", score?.float_ssim());
/// }
/// # Ok::<(), vkssim::Error>(())
/// ```
pub struct MultiScorer {
    scorers: Vec<Scorer>,
    devices: Vec<String>,
    /// The engine and index of each pair submitted and not yet given back,
    /// oldest first.
    order: VecDeque<(usize, u64)>,
    /// Pairs submitted: the index the next pair gets.
    submitted: u64,
    /// Results on their way out (values that need later frames, models).
    stream: Stream,
}

impl MultiScorer {
    /// One scorer per engine, all for `desc`. Refuses an empty list
    /// ([`Error::InvalidOption`]); a scorer that cannot be created is an error
    /// naming its device.
    pub fn new(engines: &[Engine], desc: &ScorerDesc) -> Result<Self> {
        let devices: Vec<String> = engines
            .iter()
            .enumerate()
            .map(|(i, e)| format!("Vulkan device {i} ({})", e.device_name()))
            .collect();
        let scorers = engines
            .iter()
            .zip(&devices)
            .map(|(e, name)| e.scorer(desc).map_err(|e| on_device(name, e)))
            .collect::<Result<Vec<_>>>()?;
        Self::from_scorers(scorers, devices)
    }

    /// Over scorers made elsewhere (one per device, or a single one), named
    /// by `devices` in errors (`on NAME: ...`, so a name says what the engine
    /// is: `Vulkan device 0 (name)`, `the CPU twin`). They must share one geometry and one set of
    /// options ([`Error::InvalidOption`] otherwise, and for an empty list or a
    /// name count that differs). A temporal metric (`motion`: a frame reads
    /// the previous frame's reference) takes one scorer
    /// ([`Error::Unsupported`] for several).
    pub fn from_scorers(scorers: Vec<Scorer>, devices: Vec<String>) -> Result<Self> {
        let Some(first) = scorers.first() else {
            return Err(Error::InvalidOption(
                "a multi-engine scorer needs at least one engine".into(),
            ));
        };
        if devices.len() != scorers.len() {
            return Err(Error::InvalidOption(format!(
                "{} scorers but {} device names",
                scorers.len(),
                devices.len()
            )));
        }
        let (d0, m0) = (first.desc(), first.metrics());
        if let Some(other) = scorers.iter().find(|s| {
            let d = s.desc();
            (d.width, d.height, d.bit_depth) != (d0.width, d0.height, d0.bit_depth)
                || s.metrics() != m0
                || d.models != d0.models
        }) {
            return Err(Error::InvalidOption(format!(
                "the scorers differ: {:?} and {:?}",
                d0,
                other.desc()
            )));
        }
        if scorers.len() > 1 && m0.needs_previous_reference() {
            return Err(Error::Unsupported(format!(
                "{} engines for a temporal metric: each frame reads the previous frame's \
                 reference, which only one engine holds; score on one engine",
                scorers.len()
            )));
        }
        let stream = Stream::new(m0, &d0.models);
        Ok(Self {
            scorers,
            devices,
            order: VecDeque::new(),
            submitted: 0,
            stream,
        })
    }

    /// What every scorer was created for.
    pub fn desc(&self) -> &ScorerDesc {
        self.scorers[0].desc()
    }

    /// The metrics every scorer computes, checked.
    pub fn metrics(&self) -> &crate::metric::MetricSet {
        self.scorers[0].metrics()
    }

    /// The scorers, in dealing order (for their accessors).
    pub fn scorers(&self) -> &[Scorer] {
        &self.scorers
    }

    /// The scorers, to change their state (e.g. to reset statistics). Pairs
    /// submitted to them directly are not tracked here: submit through the
    /// multi-scorer.
    pub fn scorers_mut(&mut self) -> &mut [Scorer] {
        &mut self.scorers
    }

    /// Lends every scorer out to be filled in place (see [`MultiSlots`]).
    /// Results of pairs submitted before stay queued in order.
    pub fn slots(&mut self) -> MultiSlots<'_> {
        MultiSlots {
            slots: self.scorers.iter_mut().map(Scorer::slots).collect(),
            devices: &self.devices,
            order: &mut self.order,
            stream: &mut self.stream,
            // The turn goes on from the pairs submitted before (the slots
            // of an earlier borrow are all submitted or back in their rings).
            acquired: self.submitted,
            submitted: &mut self.submitted,
        }
    }

    /// The engines' devices as `position (name)`, in dealing order.
    pub fn devices(&self) -> &[String] {
        &self.devices
    }

    /// The engine the next pair goes to.
    pub fn next_engine(&self) -> usize {
        (self.submitted % self.scorers.len() as u64) as usize
    }

    /// One pool of shared reference planes per engine, dealt as this
    /// multi-scorer deals its next pairs: [`DealtPlanes::pool_for`]`(k)` is
    /// the pool of the engine that the `k`-th pair from now goes to, so that
    /// a reference plane written there is on the device that scores it.
    ///
    /// Errors: [`Error::InvalidOption`] on the CPU twin; device memory.
    pub fn shared_planes(&self) -> Result<DealtPlanes> {
        let pools = self
            .scorers
            .iter()
            .zip(&self.devices)
            .map(|(s, name)| s.shared_planes().map_err(|e| on_device(name, e)))
            .collect::<Result<Vec<_>>>()?;
        Ok(DealtPlanes {
            pools,
            first: self.submitted,
        })
    }
}

/// Pairs dealt round robin over the engines, results in submission order;
/// an engine's error names its device ([`Error::OnDevice`]).
impl ScoreQueue for MultiScorer {
    type Input<'p> = Pair<'p>;

    /// Queues a pair on the next engine (see [`Scorer::submit`](crate::api::ScoreQueue::submit): host planes,
    /// or a shared reference from that engine's pool, [`MultiScorer::shared_planes`]);
    /// blocks while that engine's queue is full.
    fn submit(&mut self, pair: Pair<'_>) -> Result<()> {
        let k = self.next_engine();
        self.scorers[k]
            .submit(pair)
            .map_err(|e| on_device(&self.devices[k], e))?;
        self.order.push_back((k, self.submitted));
        self.submitted += 1;
        Ok(())
    }

    fn poll_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.next_complete(false)
    }

    fn wait_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.next_complete(true)
    }

    fn finish(&mut self) {
        self.stream.finish(self.submitted);
        self.scorers.iter_mut().for_each(Scorer::end_backend_stream);
    }

    fn submitted(&self) -> u64 {
        self.submitted
    }

    fn in_flight(&self) -> usize {
        self.order.len() + self.stream.len()
    }

    /// Pairs all engines work on at once.
    fn queue_depth(&self) -> usize {
        self.scorers.iter().map(Scorer::queue_depth).sum()
    }
}

impl MultiScorer {
    /// The next complete result, waiting for the pairs in flight when
    /// `blocking`.
    fn next_complete(&mut self, blocking: bool) -> Option<(u64, Result<FrameScore>)> {
        let (scorers, order, devices) = (&mut self.scorers, &mut self.order, &self.devices);
        self.stream.next(|| {
            next_in_order(order, devices, blocking, |k| {
                scorers[k].next_raw(blocking).map(|(_, r)| r)
            })
        })
    }
}

impl std::fmt::Debug for MultiScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiScorer")
            .field("devices", &self.devices)
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

/// Every scorer of a [`MultiScorer`] lent out to fill frame slots in place:
/// slot `k` handed out by [`MultiSlots::acquire`] comes from engine
/// `k % n`, and slots must be submitted in the order they were handed out
/// (the order pairs are scored in); results come back in that order.
pub struct MultiSlots<'s> {
    slots: Vec<FrameSlots<'s>>,
    devices: &'s [String],
    order: &'s mut VecDeque<(usize, u64)>,
    stream: &'s mut Stream,
    submitted: &'s mut u64,
    /// Slots handed out so far (the next one comes from `acquired % n`).
    acquired: u64,
}

impl<'s> MultiSlots<'s> {
    /// The next free slot, from the next engine in turn (see
    /// [`FrameSlots::acquire`]).
    pub fn acquire(&mut self) -> Result<FrameSlot<'s>> {
        let k = (self.acquired % self.slots.len() as u64) as usize;
        let slot = self.slots[k]
            .acquire()
            .map_err(|e| on_device(&self.devices[k], e))?;
        self.acquired += 1;
        Ok(slot)
    }

    /// The first scorer, for the read-only accessors every scorer shares
    /// (geometry, options).
    pub fn scorer(&self) -> &Scorer {
        self.slots[0].scorer()
    }

    /// The next complete result, waiting for the pairs in flight when
    /// `blocking`.
    fn next_complete(&mut self, blocking: bool) -> Option<(u64, Result<FrameScore>)> {
        let (slots, order, devices) = (&mut self.slots, &mut *self.order, self.devices);
        self.stream.next(|| {
            next_in_order(order, devices, blocking, |k| {
                slots[k].next_raw(blocking).map(|(_, r)| r)
            })
        })
    }
}

/// Frame slots of every engine, submitted in the order they were handed
/// out; results and indices are the [`MultiScorer`]'s.
impl<'s> ScoreQueue for MultiSlots<'s> {
    type Input<'p> = FrameSlot<'s>;

    /// Scores `slot` as the next pair: it must be the oldest slot handed out
    /// and not yet submitted (a slot from another engine is refused, see
    /// [`FrameSlots::submit`](crate::api::ScoreQueue::submit)). A slot dropped unsubmitted returns to its
    /// ring, but the slots after it then come from the engines in a shifted
    /// turn: submit every slot you take, in order.
    fn submit(&mut self, slot: FrameSlot<'s>) -> Result<()> {
        let k = (*self.submitted % self.slots.len() as u64) as usize;
        self.slots[k]
            .submit(slot)
            .map_err(|e| on_device(&self.devices[k], e))?;
        self.order.push_back((k, *self.submitted));
        *self.submitted += 1;
        Ok(())
    }

    fn poll_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.next_complete(false)
    }

    fn wait_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.next_complete(true)
    }

    fn finish(&mut self) {
        self.stream.finish(*self.submitted);
        self.slots
            .iter_mut()
            .for_each(FrameSlots::end_backend_stream);
    }

    fn submitted(&self) -> u64 {
        *self.submitted
    }

    fn in_flight(&self) -> usize {
        self.order.len() + self.stream.len()
    }

    /// Slots that may be handed out at once, over all engines.
    fn queue_depth(&self) -> usize {
        self.slots.iter().map(FrameSlots::queue_depth).sum()
    }
}

/// The oldest result of pairs dealt over several engines, in submission
/// order, with its pair's index: `order` holds each pair's engine and index,
/// oldest first, and `take(k)` gives engine `k`'s oldest result (waiting for
/// it when `blocking`). `None` when nothing is queued or, without
/// `blocking`, the oldest is not ready; an engine with no result for a pair
/// it was given is an internal error. Errors name the engine's device.
fn next_in_order(
    order: &mut VecDeque<(usize, u64)>,
    devices: &[String],
    blocking: bool,
    mut take: impl FnMut(usize) -> Option<Result<FrameScore>>,
) -> Option<(u64, Result<FrameScore>)> {
    let &(k, index) = order.front()?;
    let result = match take(k) {
        Some(result) => result,
        None if blocking => Err(Error::Internal(format!(
            "engine {} had no result queued for a submitted pair",
            devices[k]
        ))),
        None => return None,
    };
    order.pop_front();
    Some((index, result.map_err(|e| on_device(&devices[k], e))))
}

/// Shared reference planes, one pool per engine of a [`MultiScorer`], with
/// the rule by which it deals pairs to its engines
/// ([`MultiScorer::shared_planes`]).
#[derive(Clone)]
pub struct DealtPlanes {
    pools: Vec<SharedPlanes>,
    /// The multi-scorer's pair count when the dealing starts.
    first: u64,
}

impl DealtPlanes {
    /// The pool of the engine that the `k`-th pair from the start of the
    /// dealing goes to.
    pub fn pool_for(&self, k: u64) -> &SharedPlanes {
        let n = self.pools.len() as u64;
        &self.pools[((self.first + k) % n) as usize]
    }

    /// The same pools, dealt from `scorer`'s next pair (for a later run of
    /// the same multi-scorer).
    pub fn dealt_from(&self, scorer: &MultiScorer) -> DealtPlanes {
        DealtPlanes {
            pools: self.pools.clone(),
            first: scorer.submitted,
        }
    }

    /// The same pools, each making at most `max` planes (see
    /// [`SharedPlanes::with_max_planes`]).
    pub fn with_max_planes(self, max: usize) -> DealtPlanes {
        DealtPlanes {
            pools: self
                .pools
                .into_iter()
                .map(|p| p.with_max_planes(max))
                .collect(),
            first: self.first,
        }
    }

    /// Planes the pools have made so far.
    pub fn planes_made(&self) -> usize {
        self.pools.iter().map(SharedPlanes::planes_made).sum()
    }
}

/// The devices "all" means, in `vkssim devices` order: every device that can
/// score (has shaderInt64 and a compute queue), leaving out CPU
/// implementations (lavapipe) when a GPU is present.
///
/// Errors: [`Error::NoVulkan`], [`Error::NoDevice`] when no device can score.
pub fn usable_devices(validation: bool) -> Result<Vec<usize>> {
    let devices = crate::vk::list_devices(validation)?;
    let usable: Vec<_> = devices
        .iter()
        .filter(|d| !d.path.starts_with("unusable"))
        .collect();
    let gpus: Vec<usize> = usable
        .iter()
        .filter(|d| !d.is_cpu())
        .map(|d| d.index)
        .collect();
    let all = if gpus.is_empty() {
        usable.iter().map(|d| d.index).collect()
    } else {
        gpus
    };
    if all.is_empty() {
        return Err(Error::NoDevice(format!(
            "none of the {} Vulkan devices can score",
            devices.len()
        )));
    }
    Ok(all)
}

/// `error` as having happened on engine `device`.
fn on_device(device: &str, error: Error) -> Error {
    Error::OnDevice {
        device: device.to_string(),
        source: Box::new(error),
    }
}
