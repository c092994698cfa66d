//! [`Scorer`]: frame pairs of one geometry and one set of options in, one
//! [`FrameScore`] per pair out, in submission order; pairs from host memory or
//! from the host's own imported Vulkan buffers and images ([`super::Pair`]),
//! scored on an [`Engine`]'s device or on the CPU twin ([`Scorer::cpu`]).

use std::num::{NonZeroU64, NonZeroUsize};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use super::engine::Engine;
use super::queue::ScoreQueue;
use super::refused::Refusals;
use super::slots::Returned;
use super::stream::{Raw, Stream};
use super::submit::Pair;
use crate::vk::shared_plane::SharedPlanes;

use crate::cpu::CpuScorer;
use crate::io::Chroma;
use crate::metric::{MetricConfig, MetricSet, Models, MotionVersion};
use crate::vk::context::Gpu;
use crate::vk::{ArithVariant, HostStats, UploadPath, VkOptions, VkScorer};
use crate::{Error, FrameScore, FrameScorer, Result};

/// What a [`Scorer`] scores: the geometry, the metrics and their options,
/// the chroma layout (for metrics that read chroma) and how many pairs it
/// works on at once.
///
/// ```no_run
/// use vkssim::api::ScorerDesc;
/// use vkssim::metric::MetricConfig;
/// use vkssim::SsimOptions;
/// let ssim = SsimOptions { enable_lcs: true, ..SsimOptions::default() };
/// let desc = ScorerDesc::new(3840, 2160, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
/// # let _ = desc;
/// ```
///
/// Several metrics at once, as the `vmaf` command line's `--feature`s:
///
/// ```
/// use vkssim::api::ScorerDesc;
/// use vkssim::io::Chroma;
/// use vkssim::metric::config::parse_list;
/// let metrics = parse_list(&["float_ssim", "psnr=enable_mse=true", "float_ms_ssim"])?;
/// let desc = ScorerDesc::new(1920, 1080, 10)
///     .with_metrics(metrics)
///     .with_chroma(Chroma::C420);
/// assert_eq!(desc.metric_set()?.output_names().len(), 8);
/// # Ok::<(), vkssim::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ScorerDesc {
    /// Luma width in samples.
    pub width: u32,
    /// Luma height in rows.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// The metrics and their options, in the order their values are
    /// reported; empty: `float_ssim` alone with its default options. Each at
    /// most once.
    pub metrics: Vec<MetricConfig>,
    /// The VMAF models run on each frame's values (none: no prediction):
    /// their extractors are scored first, then [`ScorerDesc::metrics`], and
    /// each result carries the models' outputs (`vmaf`, ...) after the
    /// metrics' ([`ScorerDesc::with_models`]).
    pub models: Models,
    /// Which libvmaf's `motion` the models' extractors compute (libvmaf
    /// 2.3.1's by default; [`ScorerDesc::with_motion_version`]). A `motion`
    /// among [`ScorerDesc::metrics`] says its own version, which must be
    /// this one when a model also runs motion.
    pub motion_version: MotionVersion,
    /// The chroma layout of the frames, for metrics that read chroma
    /// (`psnr` with `enable_chroma`); `None`: not given (luma only).
    pub chroma: Option<Chroma>,
    /// Pairs in flight; `None` picks ([`super::in_flight`]: the engine's
    /// option, else enough for [`ScorerDesc::reader_threads`], else
    /// [`super::DEFAULT_FRAMES_IN_FLIGHT`]; a float_ssim-only Vulkan scorer
    /// deepens its ring to [`super::DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT`]
    /// on its first device-resident pair).
    pub frames_in_flight: Option<NonZeroUsize>,
    /// How many threads will fill this scorer's frame slots at once, a hint
    /// for the frames in flight it picks (`None`: no hint).
    pub reader_threads: Option<NonZeroUsize>,
    /// How many pairs this scorer will score, at most, a hint for the frames
    /// in flight a Vulkan scorer picks: a short run gets a shorter ring,
    /// since each slot's device memory costs its allocation and release once
    /// per run ([`super::in_flight::for_run_length`]; `None`: no hint).
    /// [`super::MultiScorer::new`] gives each engine its share.
    pub expected_pairs: Option<NonZeroU64>,
}

impl ScorerDesc {
    /// `width` x `height` at `bit_depth`, default options.
    ///
    /// ```no_run
    /// let desc = vkssim::api::ScorerDesc::new(1920, 1080, 10);
    /// # let _ = desc;
    /// ```
    pub fn new(width: u32, height: u32, bit_depth: u32) -> Self {
        Self {
            width,
            height,
            bit_depth,
            metrics: Vec::new(),
            models: Models::default(),
            motion_version: MotionVersion::default(),
            chroma: None,
            frames_in_flight: None,
            reader_threads: None,
            expected_pairs: None,
        }
    }

    /// The same description computing `metrics` (in this order; see
    /// [`ScorerDesc::metrics`]): the one way to choose the metrics and their
    /// options.
    pub fn with_metrics(mut self, metrics: Vec<MetricConfig>) -> Self {
        self.metrics = metrics;
        self
    }

    /// The same description running the VMAF `models` (see
    /// [`ScorerDesc::models`]; parsed from `vmaf`'s `--model` syntax by
    /// [`Models::parse`]). A frame's model scores need the next frame's
    /// values (motion), so a queue hands out each result once the next
    /// pair's is in, the last one after [`ScoreQueue::finish`](super::ScoreQueue::finish).
    ///
    /// ```
    /// use vkssim::api::ScorerDesc;
    /// use vkssim::metric::Models;
    /// let desc = ScorerDesc::new(64, 64, 8).with_models(Models::default_model()?);
    /// // The model's extractors (vif, adm, motion) are scored; each result
    /// // also carries the model's score.
    /// let names = desc.metric_set()?.output_names();
    /// assert!(names.iter().any(|n| n == "integer_vif_scale0"));
    /// assert_eq!(desc.models.output_names(), ["vmaf"]);
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn with_models(mut self, models: Models) -> Self {
        self.models = models;
        self
    }

    /// The same description whose models compute libvmaf `version`'s
    /// `motion` (libvmaf 3.2.0's blurs the frame difference, and its
    /// `integer_motion2` moves every model's score; see
    /// [`ScorerDesc::motion_version`]). A `motion` among the metrics is
    /// made for the same version ([`MetricConfig::parse_with_motion`],
    /// [`Models::metrics_with_motion`]).
    ///
    /// ```
    /// use vkssim::api::ScorerDesc;
    /// use vkssim::metric::{Models, MotionVersion};
    /// let desc = ScorerDesc::new(64, 64, 8)
    ///     .with_models(Models::default_model()?)
    ///     .with_motion_version(MotionVersion::V3_2_0);
    /// let names = desc.metric_set()?.output_names();
    /// assert!(names.iter().any(|n| n == "integer_motion3"));
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn with_motion_version(mut self, version: MotionVersion) -> Self {
        self.motion_version = version;
        self
    }

    /// Every metric the description computes, in output order: the models'
    /// extractors (motion of [`ScorerDesc::motion_version`]), then
    /// [`ScorerDesc::metrics`] ([`Models::with_metrics_and_motion`]); empty
    /// when there are neither.
    pub fn configs(&self) -> Result<Vec<MetricConfig>> {
        self.models
            .with_metrics_and_motion(&self.metrics, self.motion_version)
    }

    /// The same description for frames of chroma layout `chroma` (their Cb
    /// and Cr planes are read when a metric needs them:
    /// [`super::Pair::with_chroma`], [`super::FrameSlot::frames_mut`]).
    pub fn with_chroma(mut self, chroma: Chroma) -> Self {
        self.chroma = Some(chroma);
        self
    }

    /// The metrics checked against the geometry (see [`MetricSet::new`]):
    /// the models' extractors and [`ScorerDesc::metrics`]
    /// ([`Models::with_metrics`]), or `float_ssim` with its default options
    /// when there are none.
    pub fn metric_set(&self) -> Result<MetricSet> {
        let mut configs = self.configs()?;
        if configs.is_empty() {
            configs.push(MetricConfig::default());
        }
        MetricSet::new(
            &configs,
            self.width,
            self.height,
            self.bit_depth,
            self.chroma,
        )
    }

    /// The same description with `frames_in_flight` pairs in flight (0: pick,
    /// see [`ScorerDesc::frames_in_flight`]).
    ///
    /// ```no_run
    /// let desc = vkssim::api::ScorerDesc::new(1920, 1080, 8).with_frames_in_flight(16);
    /// # let _ = desc;
    /// ```
    pub fn with_frames_in_flight(mut self, frames_in_flight: usize) -> Self {
        self.frames_in_flight = NonZeroUsize::new(frames_in_flight);
        self
    }

    /// The same description with the hint that `threads` threads will fill
    /// its frame slots at once (0: no hint; see [`ScorerDesc::reader_threads`]).
    ///
    /// ```
    /// let desc = vkssim::api::ScorerDesc::new(1920, 1080, 8).with_reader_threads(6);
    /// assert_eq!(desc.reader_threads.map(|n| n.get()), Some(6));
    /// ```
    pub fn with_reader_threads(mut self, threads: usize) -> Self {
        self.reader_threads = NonZeroUsize::new(threads);
        self
    }

    /// The same description with the hint that the run will score `pairs`
    /// pairs (`None` or 0: no hint; see [`ScorerDesc::expected_pairs`]).
    ///
    /// ```
    /// let desc = vkssim::api::ScorerDesc::new(3840, 2160, 8).with_expected_pairs(Some(400));
    /// assert_eq!(desc.expected_pairs.map(|n| n.get()), Some(400));
    /// ```
    pub fn with_expected_pairs(mut self, pairs: Option<u64>) -> Self {
        self.expected_pairs = pairs.and_then(NonZeroU64::new);
        self
    }

    /// The same description for each of `engines` engines that share its
    /// pairs: [`ScorerDesc::expected_pairs`] divided among them, rounded up.
    ///
    /// ```
    /// let desc = vkssim::api::ScorerDesc::new(64, 48, 8).with_expected_pairs(Some(1_100));
    /// assert_eq!(desc.for_engines(2).expected_pairs.map(|n| n.get()), Some(550));
    /// ```
    pub fn for_engines(&self, engines: usize) -> Self {
        let share = |n: NonZeroU64| n.get().div_ceil(engines.max(1) as u64);
        self.clone()
            .with_expected_pairs(self.expected_pairs.map(share))
    }
}

/// What scores a [`Scorer`]'s pairs: one backend (the Vulkan one keeps the
/// ring of device-resident pairs inside, made on the first such pair).
pub(super) enum Inner {
    /// The Vulkan engine.
    Vk(Box<VkScorer>),
    /// The CPU twin.
    Cpu(CpuScorer),
}

impl Inner {
    fn scorer(&mut self) -> &mut dyn FrameScorer {
        match self {
            Inner::Vk(v) => &mut **v,
            Inner::Cpu(c) => c,
        }
    }

    fn scorer_ref(&self) -> &dyn FrameScorer {
        match self {
            Inner::Vk(v) => &**v,
            Inner::Cpu(c) => c,
        }
    }
}

/// Where a Vulkan scorer's time went and what it runs on
/// ([`Scorer::diagnostics`]), for benchmarks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Diagnostics {
    /// The device's name.
    pub device: String,
    /// The device's driver (name and version).
    pub driver: String,
    /// Where the upload and terms buffers live (memory types).
    pub memory_path: String,
    /// Frames in flight (the ring's slots).
    pub frames_in_flight: usize,
    /// Host threads summing frames' terms.
    pub sum_threads: usize,
    /// Bytes uploaded per pair.
    pub bytes_per_frame: u64,
    /// GPU time of each pass of the last frame scored (pass name,
    /// nanoseconds, in dispatch order), when the queue has timestamps.
    pub pass_ns: Option<Vec<(String, f64)>>,
    /// The submitting thread's and the GPU's time since the scorer was made
    /// or [`Scorer::reset_stats`] was called.
    pub host: HostStats,
}

/// Scores pairs of one geometry and one set of options on an [`Engine`]'s
/// device, several in flight; results come back in submission order through
/// [`Scorer::poll`](crate::api::ScoreQueue::poll) (non-blocking) and [`Scorer::wait`](crate::api::ScoreQueue::wait) (blocking). Each result
/// is bit-identical to libvmaf's `float_ssim` (and to the exact CPU twin).
///
/// `Send` (a scorer can move to another thread): it owns its Vulkan objects,
/// which Vulkan lets any thread use as long as one at a time, and `&mut self`
/// on every method that touches them gives exactly that; its device is shared
/// through the same synchronised handle as [`Engine`]'s. Not promised `Sync`:
/// nothing is gained by sharing `&Scorer` (every useful method takes
/// `&mut self`), and the engine's internals may hold thread-bound parts.
pub struct Scorer {
    pub(super) inner: Inner,
    desc: ScorerDesc,
    /// The metrics it computes, checked.
    pub(super) metrics: MetricSet,
    pub(super) timeline: bool,
    /// Pairs submitted: the index the next pair gets.
    pub(super) submitted: u64,
    /// Results handed out: the index of the next one (results come back in
    /// submission order, one per pair submitted).
    returned: u64,
    /// Results on their way out: values that need later frames, models
    /// ([`Stream`]).
    pub(super) stream: Stream,
    /// Pairs refused on submission whose results are not out yet
    /// ([`super::refused`]).
    pub(super) refusals: Refusals,
    /// Frame slots dropped unsubmitted come back here ([`super::FrameSlot`]).
    pub(super) returns: (Sender<Returned>, Receiver<Returned>),
    /// Host-memory slots handed out (the CPU twin's).
    pub(super) host_slots: usize,
    /// This scorer's identity, for [`FrameSlots::submit`](crate::api::ScoreQueue::submit)'s check.
    pub(super) id: u64,
}

impl Scorer {
    pub(crate) fn new(
        engine: &Engine,
        gpu: Arc<Gpu>,
        options: &VkOptions,
        desc: &ScorerDesc,
    ) -> Result<Self> {
        let metrics = desc.metric_set()?;
        let mut vk_opts = options.clone();
        let heap = gpu.device.info.device_local_bytes();
        vk_opts.engine.frames_in_flight = super::in_flight::vulkan(desc, options, heap);
        vk_opts.engine.device_resident_frames_in_flight =
            super::in_flight::device_resident(desc, options);
        let geometry = (desc.width, desc.height, desc.bit_depth);
        // Every metric's passes in the frame's one command buffer.
        let inner = VkScorer::with_gpu_and_metrics(
            gpu,
            geometry,
            metrics.chroma(),
            metrics.configs(),
            &vk_opts,
        )?;
        Ok(Self {
            inner: Inner::Vk(Box::new(inner)),
            desc: desc.clone(),
            stream: Stream::new(&metrics, &desc.models),
            refusals: Refusals::new(&metrics),
            metrics,
            timeline: engine.supports_timeline_semaphores(),
            submitted: 0,
            returned: 0,
            returns: channel(),
            host_slots: 0,
            id: crate::identity::next(),
        })
    }

    /// A scorer on the exact CPU twin (libvmaf's code, bit for bit) instead of
    /// a Vulkan device, with `threads` worker threads (0: one per core). It takes host
    /// pairs only ([`Scorer::submit`](crate::api::ScoreQueue::submit) with host planes, [`Scorer::slots`]); its
    /// results are bit-identical to the Vulkan engine's.
    ///
    /// It computes every metric vkssim has ([`crate::metric::MetricConfig::names`]; the VMAF extractors on the CPU twin only, so far).
    ///
    /// Errors: what [`ScorerDesc::metric_set`] refuses ([`Error::PlaneTooSmall`],
    /// [`Error::FrameTooSmall`], [`Error::Unsupported`] for a bit depth it
    /// does not read, [`Error::InvalidOption`]).
    ///
    /// ```no_run
    /// let scorer = vkssim::api::Scorer::cpu(&vkssim::api::ScorerDesc::new(1920, 1080, 8), 0)?;
    /// assert!(scorer.is_cpu());
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn cpu(desc: &ScorerDesc, threads: usize) -> Result<Self> {
        let metrics = desc.metric_set()?;
        let mut cpu = CpuScorer::new(metrics.clone(), threads)?;
        cpu.set_queue_depth(super::in_flight::cpu(desc, cpu.threads()));
        Ok(Self {
            inner: Inner::Cpu(cpu),
            desc: desc.clone(),
            stream: Stream::new(&metrics, &desc.models),
            refusals: Refusals::new(&metrics),
            metrics,
            timeline: false,
            submitted: 0,
            returned: 0,
            returns: channel(),
            host_slots: 0,
            id: crate::identity::next(),
        })
    }

    /// Whether this scorer runs on the CPU twin ([`Scorer::cpu`]).
    pub fn is_cpu(&self) -> bool {
        matches!(self.inner, Inner::Cpu(_))
    }

    /// A pool of shared reference planes on this scorer's device, for its
    /// geometry (see [`super::Engine::shared_planes`]); each holds a whole
    /// picture (luma, Cb, Cr: [`SharedPlanes::upload_picture`]) when the
    /// scorer's metrics read chroma.
    ///
    /// Errors: [`Error::InvalidOption`] on the CPU twin (it has no device).
    pub fn shared_planes(&self) -> Result<SharedPlanes> {
        match &self.inner {
            Inner::Vk(v) => SharedPlanes::new(
                Arc::clone(v.gpu()),
                (self.desc.width, self.desc.height, self.desc.bit_depth),
                self.metrics
                    .needs_chroma()
                    .then(|| self.metrics.chroma_plane_size()),
            ),
            Inner::Cpu(_) => Err(Error::InvalidOption(
                "a CPU scorer has no device to keep shared planes on".into(),
            )),
        }
    }

    /// The CPU twin's worker threads; `None` on a Vulkan device.
    pub fn cpu_threads(&self) -> Option<usize> {
        match &self.inner {
            Inner::Cpu(c) => Some(c.threads()),
            Inner::Vk(_) => None,
        }
    }

    /// The Vulkan device's name; `None` on the CPU twin.
    pub fn device_name(&self) -> Option<&str> {
        match &self.inner {
            Inner::Vk(v) => Some(v.device_name()),
            Inner::Cpu(_) => None,
        }
    }

    /// The Vulkan scorer's device, buffers and time so far (for benchmarks);
    /// `None` on the CPU twin.
    pub fn diagnostics(&self) -> Option<Diagnostics> {
        let Inner::Vk(v) = &self.inner else {
            return None;
        };
        Some(Diagnostics {
            device: v.device_name().to_string(),
            driver: v.driver().to_string(),
            memory_path: v.memory_path(),
            frames_in_flight: v.slots(),
            sum_threads: v.sum_threads(),
            bytes_per_frame: v.bytes_per_frame(),
            pass_ns: v.last_pass_ns(),
            host: v.stats(),
        })
    }

    /// Starts [`Diagnostics::host`] afresh.
    #[doc(hidden)]
    pub fn reset_stats(&mut self) {
        if let Inner::Vk(v) = &mut self.inner {
            v.reset_stats();
        }
    }

    /// What this scorer was created for.
    pub fn desc(&self) -> &ScorerDesc {
        &self.desc
    }

    /// Submits the device-resident pairs queued so far. Pairs of imported
    /// planes without semaphores are queued and go to the device together,
    /// in one submission (half the ring's slots at a time), which saves the
    /// device's time between pairs; [`Scorer::poll`](crate::api::ScoreQueue::poll), [`Scorer::wait`](crate::api::ScoreQueue::wait), a
    /// pair with semaphores and a host pair submit them too. Call this when
    /// no result will be asked for a while. Nothing to do on the CPU twin.
    ///
    /// Errors: device errors.
    pub fn flush(&mut self) -> Result<()> {
        match &mut self.inner {
            Inner::Vk(v) => v.flush_batch(),
            Inner::Cpu(_) => Ok(()),
        }
    }

    /// The metrics it computes, checked (their output names, whether frames'
    /// chroma is read).
    pub fn metrics(&self) -> &MetricSet {
        &self.metrics
    }

    /// The backend's next result in submission order, with its pair's index,
    /// waiting for it when `blocking`: before the [`Stream`] (values that
    /// need later frames not filled, no model output).
    pub(super) fn next_raw(&mut self, blocking: bool) -> Option<(u64, Raw)> {
        raw_result(
            &mut self.inner,
            &mut self.returned,
            &mut self.refusals,
            blocking,
        )
    }

    /// Makes the backend's next pair a first frame (no previous reference).
    pub(super) fn end_backend_stream(&mut self) {
        match &mut self.inner {
            Inner::Cpu(c) => c.end_stream(),
            Inner::Vk(v) => v.end_stream(),
        }
    }

    /// The next complete result (see [`ScoreQueue`]), waiting for the pairs
    /// in flight when `blocking`.
    pub(super) fn next_complete(&mut self, blocking: bool) -> Option<(u64, Result<FrameScore>)> {
        let (inner, returned, refusals) = (&mut self.inner, &mut self.returned, &mut self.refusals);
        self.stream
            .next(|| raw_result(inner, returned, refusals, blocking))
    }

    /// The arithmetic path the device's self-test chose; on the CPU twin,
    /// [`ArithVariant::Fp64`] (the host's own fp64).
    pub fn arithmetic(&self) -> ArithVariant {
        match &self.inner {
            Inner::Vk(v) => v.arithmetic(),
            Inner::Cpu(_) => ArithVariant::Fp64,
        }
    }

    /// How host pairs reach the device (never `Auto`); `None` on the CPU twin
    /// (pairs stay in host memory).
    pub fn upload_path(&self) -> Option<UploadPath> {
        match &self.inner {
            Inner::Vk(v) => Some(v.upload_path()),
            Inner::Cpu(_) => None,
        }
    }

    /// The mean GPU time of each pass per pair (pass name, nanoseconds, in
    /// dispatch order) over the pairs scored since the last call (or since
    /// creation), from timestamps around each dispatch; `None` when the queue
    /// has no timestamps, no pair was scored, or on the CPU twin. Restarts
    /// the count. For
    /// benchmarks: with pairs in flight, one pair's pass may overlap another's.
    #[doc(hidden)]
    pub fn take_gpu_pass_ns(&mut self) -> Option<Vec<(String, f64)>> {
        match &mut self.inner {
            Inner::Vk(v) => v.take_mean_pass_ns(),
            Inner::Cpu(_) => None,
        }
    }
}

/// Pairs from host memory, shared planes or imported device planes
/// ([`Pair`]); [`Scorer::flush`] sends queued device-resident pairs early.
impl ScoreQueue for Scorer {
    type Input<'p> = Pair<'p>;

    /// Queues a pair (see [`Pair`] for the planes a pair may have). Host
    /// planes are copied before this returns; blocks while
    /// [`ScoreQueue::queue_depth`] pairs are already on the device (their results
    /// then wait in the queue for [`ScoreQueue::poll`]).
    ///
    /// Errors: a host plane of the wrong sample type, too short for the
    /// geometry, or with a stride shorter than a row
    /// ([`Error::InvalidOption`], [`Error::BufferSize`]); a plane of another geometry
    /// ([`Error::GeometryMismatch`]), of another device, one that does not fit
    /// the scorer's bit depth or width, the same image layer as both planes,
    /// a combination of sources listed as not taken in [`Pair`], device
    /// planes or semaphores on the CPU twin, for metrics that read chroma a
    /// pair without its Cb and Cr planes, with the reference's beside a
    /// shared reference (which holds them), or of imported planes, a shared
    /// reference of luma only or of another chroma layout
    /// ([`Error::InvalidOption`]);
    /// timeline values without timeline semaphores ([`Error::Unsupported`]);
    /// device errors.
    ///
    /// A sample above the bit depth, in any plane and whichever path finds
    /// it (the host's check of a host plane, or the device's), refuses the
    /// pair but not its submission: the pair keeps its place in the stream
    /// and its result is [`Error::SampleRange`]. Refused for its distorted picture alone, the stream goes on
    /// through its reference, which is valid: the frames around it get
    /// libvmaf's values on the stream with that pair in it (motion reads
    /// only references; the frame before gets `integer_motion2` from the
    /// refused frame's motion, the next compares against its reference).
    /// Refused for its reference, the stream ends before the pair, as at
    /// [`ScoreQueue::finish`], and the next frame starts another (motion 0).
    /// Either way no value is given that libvmaf would not give.
    fn submit(&mut self, pair: Pair<'_>) -> Result<()> {
        self.submit_pair(pair)
    }

    fn poll_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.next_complete(false)
    }

    fn wait_indexed(&mut self) -> Option<(u64, Result<FrameScore>)> {
        self.next_complete(true)
    }

    fn finish(&mut self) {
        self.stream.finish(self.submitted);
        self.end_backend_stream();
    }

    fn submitted(&self) -> u64 {
        self.submitted
    }

    fn in_flight(&self) -> usize {
        self.inner.scorer_ref().in_flight() + self.stream.len()
    }

    /// The scorer's ring of frame slots.
    fn queue_depth(&self) -> usize {
        self.inner.scorer_ref().queue_depth()
    }
}

/// `inner`'s next result in submission order (waiting for it when
/// `blocking`), numbered from `returned`, as the stream takes it (a refused
/// pair's error, with what it keeps: [`Refusals::raw`]).
fn raw_result(
    inner: &mut Inner,
    returned: &mut u64,
    refusals: &mut Refusals,
    blocking: bool,
) -> Option<(u64, Raw)> {
    let result = if blocking {
        inner.scorer().wait_next()
    } else {
        inner.scorer().poll_next()
    }?;
    let index = *returned;
    *returned += 1;
    Some((index, refusals.raw(index, result, inner)))
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorer")
            .field("desc", &self.desc)
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

/// Compile-time proof of the `Send`/`Sync` claims in the docs.
#[allow(dead_code)]
fn assert_thread_safety() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Engine>();
    send::<Scorer>();
}
