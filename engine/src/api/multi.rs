//! [`MultiScorer`]: one stream of frame pairs spread over several engines
//! (several GPUs), one [`Scorer`] per engine, pairs dealt round robin (runs
//! of pairs with a temporal metric: below) and
//! results given back in submission order, each bit-identical to what one
//! engine gives (every engine runs the same exact passes). Pairs can also be
//! filled in place from reader threads ([`MultiSlots`], over each scorer's
//! [`FrameSlots`]).
//!
//! # Temporal metrics
//!
//! A temporal metric (`motion`) reads the previous frame's reference with
//! each frame (libvmaf's `PREV_REF`). One engine carries it itself from
//! frame to frame (the CPU twin's job holds the last reference; a Vulkan
//! scorer keeps motion's blurred plane on the device). Several engines get
//! contiguous runs of pairs instead of single pairs ([`Dealing`]: as many
//! as the smallest engine's queue holds), so each engine carries the
//! previous reference itself within a run, and only a run's first pair
//! needs it from elsewhere: the multi-scorer keeps the luma of each run's
//! last reference in host memory (a host pair's plane packed, or a frame
//! slot's reference written to host memory and copied into the slot:
//! `FrameSlot::keep_reference`) and hands it to the next engine with the
//! next pair ([`super::Pair::with_previous_reference`]), which the CPU twin
//! puts in the job and a Vulkan scorer uploads and blurs into the kept
//! plane before the pair's own passes (`crate::vk::scorer`'s `previous`).
//! Every frame then reads exactly the previous reference one engine would
//! have read: the same bits, results in submission order. Without a
//! temporal metric, or on one engine, pairs are dealt one by one as before
//! and nothing is carried.

use std::collections::VecDeque;
use std::sync::Arc;

use super::engine::Engine;
use super::queue::ScoreQueue;
use super::scorer::{Scorer, ScorerDesc};
use super::slots::{FrameSlot, FrameSlots};
use super::stream::{Raw, Stream};
use super::submit::Pair;
use crate::vk::shared_plane::SharedPlanes;
use crate::{Error, FrameScore, LumaFrame, Result, SampleAt};

/// How pairs are dealt to the engines (see the module docs): runs of `run`
/// consecutive pairs per engine, in turn (1: one by one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Dealing {
    engines: u64,
    run: u64,
    /// Whether a run's first pair carries its previous reference (a
    /// temporal metric on several engines).
    carries: bool,
}

impl Dealing {
    /// The dealing of `scorers` (one geometry and metric set).
    fn of(scorers: &[Scorer]) -> Self {
        let engines = scorers.len().max(1) as u64;
        let carries = engines > 1
            && scorers
                .first()
                .is_some_and(|s| s.metrics().needs_previous_reference());
        let run = match carries {
            true => scorers.iter().map(Scorer::queue_depth).min().unwrap_or(1),
            false => 1,
        };
        Self {
            engines,
            run: run.max(1) as u64,
            carries,
        }
    }

    /// The engine pair `k` goes to.
    fn engine(&self, k: u64) -> usize {
        ((k / self.run) % self.engines) as usize
    }

    /// Whether pair `k` (not a stream's first) reads a previous reference
    /// its engine did not score.
    fn starts_run(&self, k: u64) -> bool {
        self.carries && k % self.run == 0
    }

    /// Whether pair `k`'s reference is the previous reference of the next
    /// engine's first pair.
    fn ends_run(&self, k: u64) -> bool {
        self.carries && (k + 1) % self.run == 0
    }

    /// Pairs that may be in the engines' queues at once: each engine's
    /// queue, or with runs as many runs as engines (so that no engine is
    /// asked for more slots at once than its queue holds).
    fn depth(&self, each: impl Iterator<Item = usize>) -> usize {
        match self.carries {
            true => (self.engines * self.run) as usize,
            false => each.sum(),
        }
    }
}

/// The reference luma a run's last pair left for the next run's first:
/// (that pair's index, the plane).
type Carried = Option<(u64, Arc<LumaFrame>)>;

/// The previous reference pair `k` carries: none unless it starts a run
/// (and not a stream, which starts at `stream_start`), else the one carried
/// from pair `k - 1`, an error when there is none (that pair's reference was
/// not in host memory).
fn previous_for(
    dealing: &Dealing,
    k: u64,
    stream_start: u64,
    carried: &Carried,
    given: bool,
) -> Result<Option<Arc<LumaFrame>>> {
    if given || !dealing.starts_run(k) || k <= stream_start {
        return Ok(None);
    }
    match carried {
        Some((j, plane)) if j + 1 == k => Ok(Some(Arc::clone(plane))),
        _ => Err(Error::InvalidOption(format!(
            "frame {k}: a temporal metric reads the previous frame's reference, which another              engine scored and which is not in host memory (a shared or imported plane): give              it with the pair (Pair::with_previous_reference)"
        ))),
    }
}

/// Scores pairs of one geometry on several engines at once. Pair `k` goes to
/// engine `k % n` (with a temporal metric, runs of pairs go to each engine
/// in turn: see the module docs); results come back in the order the pairs were submitted,
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
    /// How pairs go to the engines.
    dealing: Dealing,
    /// The previous reference the next run's first pair carries.
    carried: Carried,
    /// The index of the current stream's first pair.
    stream_start: u64,
}

impl MultiScorer {
    /// One scorer per engine, all for `desc` (each with its share of
    /// [`ScorerDesc::expected_pairs`]). Refuses an empty list
    /// ([`Error::InvalidOption`]); a scorer that cannot be created is an error
    /// naming its device.
    pub fn new(engines: &[Engine], desc: &ScorerDesc) -> Result<Self> {
        let desc = &desc.for_engines(engines.len());
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
    /// name count that differs). With a temporal metric (`motion`: a frame
    /// reads the previous frame's reference) several engines get runs of
    /// pairs (see the module docs).
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
        let stream = Stream::new(m0, &d0.models);
        let dealing = Dealing::of(&scorers);
        Ok(Self {
            scorers,
            devices,
            order: VecDeque::new(),
            submitted: 0,
            stream,
            dealing,
            carried: None,
            stream_start: 0,
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
            dealing: self.dealing,
            carried: &mut self.carried,
            stream_start: &mut self.stream_start,
        }
    }

    /// The engines' devices as `position (name)`, in dealing order.
    pub fn devices(&self) -> &[String] {
        &self.devices
    }

    /// The engine the next pair goes to.
    pub fn next_engine(&self) -> usize {
        self.dealing.engine(self.submitted)
    }

    /// Whether the next pair must carry its previous frame's reference
    /// ([`super::Pair::with_previous_reference`]) because a temporal metric
    /// reads it, another engine scored the pair before, and that pair's
    /// reference was not a host plane (the multi-scorer carries a host
    /// plane itself; see the module docs).
    pub fn needs_previous_reference(&self) -> bool {
        previous_for(
            &self.dealing,
            self.submitted,
            self.stream_start,
            &self.carried,
            false,
        )
        .is_err()
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
            dealing: self.dealing,
        })
    }
}

/// Pairs dealt over the engines (one by one, or runs with a temporal
/// metric), results in submission order; an engine's error names its device
/// ([`Error::OnDevice`]).
impl ScoreQueue for MultiScorer {
    type Input<'p> = Pair<'p>;

    /// Queues a pair on the next engine (see [`Scorer::submit`](crate::api::ScoreQueue::submit): host planes,
    /// or a shared reference from that engine's pool, [`MultiScorer::shared_planes`]);
    /// blocks while that engine's queue is full.
    fn submit(&mut self, pair: Pair<'_>) -> Result<()> {
        let (i, e) = (self.submitted, self.next_engine());
        let given = pair.carries_previous_reference();
        let previous = previous_for(&self.dealing, i, self.stream_start, &self.carried, given)?;
        let d = self.desc();
        let kept = self
            .dealing
            .ends_run(i)
            .then(|| pair.host_reference_luma((d.width, d.height, d.bit_depth)))
            .flatten();
        self.scorers[e]
            .submit_pair_carrying(pair, previous)
            .map_err(|err| on_device(&self.devices[e], err))?;
        if let Some(luma) = kept {
            self.carried = Some((i, Arc::new(luma)));
        }
        self.order.push_back((e, self.submitted));
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
        (self.stream_start, self.carried) = (self.submitted, None);
    }

    fn submitted(&self) -> u64 {
        self.submitted
    }

    fn in_flight(&self) -> usize {
        self.order.len() + self.stream.len()
    }

    /// Pairs all engines work on at once.
    fn queue_depth(&self) -> usize {
        self.dealing
            .depth(self.scorers.iter().map(Scorer::queue_depth))
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
/// slot `k` handed out by [`MultiSlots::acquire`] comes from the engine
/// pair `k` goes to ([`MultiScorer::next_engine`]: engine `k % n`, or with
/// a temporal metric runs of pairs per engine), and slots must be submitted
/// in the order they were handed out (the order pairs are scored in);
/// results come back in that order.
pub struct MultiSlots<'s> {
    slots: Vec<FrameSlots<'s>>,
    devices: &'s [String],
    order: &'s mut VecDeque<(usize, u64)>,
    stream: &'s mut Stream,
    submitted: &'s mut u64,
    /// Slots handed out so far (the next one comes from the engine pair
    /// `acquired` goes to).
    acquired: u64,
    dealing: Dealing,
    carried: &'s mut Carried,
    stream_start: &'s mut u64,
}

impl<'s> MultiSlots<'s> {
    /// The next free slot, from the next engine in turn (see
    /// [`FrameSlots::acquire`]).
    pub fn acquire(&mut self) -> Result<FrameSlot<'s>> {
        let e = self.dealing.engine(self.acquired);
        let mut slot = self.slots[e]
            .acquire()
            .map_err(|err| on_device(&self.devices[e], err))?;
        if self.dealing.ends_run(self.acquired) {
            // The next engine's first pair carries this reference.
            slot.keep_reference();
        }
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
        let i = *self.submitted;
        let e = self.dealing.engine(i);
        let previous = previous_for(&self.dealing, i, *self.stream_start, self.carried, false)?;
        let kept = self.slots[e]
            .submit_with(slot, previous, self.dealing.ends_run(i))
            .map_err(|err| on_device(&self.devices[e], err))?;
        if let Some(luma) = kept {
            *self.carried = Some((i, luma));
        }
        self.order.push_back((e, i));
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
        (*self.stream_start, *self.carried) = (*self.submitted, None);
    }

    fn submitted(&self) -> u64 {
        *self.submitted
    }

    fn in_flight(&self) -> usize {
        self.order.len() + self.stream.len()
    }

    /// Slots that may be handed out at once, over all engines.
    fn queue_depth(&self) -> usize {
        self.dealing
            .depth(self.slots.iter().map(FrameSlots::queue_depth))
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
    mut take: impl FnMut(usize) -> Option<Raw>,
) -> Option<(u64, Raw)> {
    let &(k, index) = order.front()?;
    let raw = match take(k) {
        Some(raw) => raw,
        None if blocking => Raw::of(Err(Error::Internal(format!(
            "engine {} had no result queued for a submitted pair",
            devices[k]
        )))),
        None => return None,
    };
    order.pop_front();
    let result = raw
        .result
        .map_err(|e| on_device(&devices[k], numbered(e, index)));
    Some((index, Raw { result, ..raw }))
}

/// `error` with the multi-scorer's index of its pair, `index`, where it
/// names a pair by its engine's own count (a sample range found in a pair
/// handed over, not in a file, which names its own frames).
fn numbered(mut error: Error, index: u64) -> Error {
    if let Error::SampleRange { at, frame, .. } = &mut error {
        if !matches!(at, SampleAt::File(_)) {
            *frame = index;
        }
    }
    error
}

/// Shared reference planes, one pool per engine of a [`MultiScorer`], with
/// the rule by which it deals pairs to its engines
/// ([`MultiScorer::shared_planes`]).
#[derive(Clone)]
pub struct DealtPlanes {
    pools: Vec<SharedPlanes>,
    /// The multi-scorer's pair count when the dealing starts.
    first: u64,
    dealing: Dealing,
}

impl DealtPlanes {
    /// The pool of the engine that the `k`-th pair from the start of the
    /// dealing goes to.
    pub fn pool_for(&self, k: u64) -> &SharedPlanes {
        &self.pools[self.dealing.engine(self.first + k)]
    }

    /// Whether the `k`-th pair's reference is carried to the next engine's
    /// first pair (a temporal metric on several engines, and the last pair
    /// of a run: see [`MultiScorer`]'s module docs). Give it from host
    /// memory, not as a shared plane: the multi-scorer keeps a host copy of
    /// it, where it cannot read a shared plane back.
    pub fn reference_carried(&self, k: u64) -> bool {
        self.dealing.ends_run(self.first + k)
    }

    /// The same pools, dealt from `scorer`'s next pair (for a later run of
    /// the same multi-scorer).
    pub fn dealt_from(&self, scorer: &MultiScorer) -> DealtPlanes {
        DealtPlanes {
            pools: self.pools.clone(),
            first: scorer.submitted,
            dealing: self.dealing,
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
            dealing: self.dealing,
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
