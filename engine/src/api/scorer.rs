//! [`Scorer`]: frame pairs of one geometry and one set of options in, one
//! [`FrameScore`] per pair out, in submission order; pairs from host memory or
//! from the host's own Vulkan buffers.

use std::sync::Arc;

use super::engine::Engine;
use super::plane::{DevicePlane, HostPlane, SemaphoreRef};
use crate::vk::context::Gpu;
use crate::vk::scorer::ExternalRing;
use crate::vk::{ArithVariant, UploadPath, VkOptions, VkScorer};
use crate::{FrameScore, FrameScorer, LumaFrame, Result, SsimOptions};

/// What a [`Scorer`] scores: the geometry, the metric options, where frames
/// come from and how many pairs it works on at once.
///
/// ```no_run
/// use vkssim::api::ScorerDesc;
/// let mut desc = ScorerDesc::new(3840, 2160, 8);
/// desc.ssim.enable_lcs = true;
/// desc.device_frames = true;
/// # let _ = desc;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScorerDesc {
    /// Luma width in samples.
    pub width: u32,
    /// Luma height in rows.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// libvmaf's `float_ssim` options.
    pub ssim: SsimOptions,
    /// Whether pairs will come from the host's buffers
    /// ([`Scorer::submit_device`]). Such a scorer writes host pairs straight
    /// into device memory (the direct upload path) whatever the engine's
    /// options say; host pairs are accepted too.
    pub device_frames: bool,
    /// Pairs in flight; 0 takes the engine's `frames_in_flight` (default 3).
    pub frames_in_flight: usize,
}

impl ScorerDesc {
    /// `width` x `height` at `bit_depth`, default options, host frames.
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
            ssim: SsimOptions::default(),
            device_frames: false,
            frames_in_flight: 0,
        }
    }
}

/// Scores pairs of one geometry and one set of options on an [`Engine`]'s
/// device, several in flight; results come back in submission order through
/// [`Scorer::poll`] (non-blocking) and [`Scorer::wait`] (blocking). Each result
/// is bit-identical to libvmaf's `float_ssim` (and to [`crate::cpu`]).
///
/// `Send` (a scorer can move to another thread): it owns its Vulkan objects,
/// which Vulkan lets any thread use as long as one at a time, and `&mut self`
/// on every method that touches them gives exactly that; its device is shared
/// through the same synchronised handle as [`Engine`]'s. Not promised `Sync`:
/// nothing is gained by sharing `&Scorer` (every useful method takes
/// `&mut self`), and the engine's internals may hold thread-bound parts.
///
/// ```no_run
/// use vkssim::api::{Engine, HostPlane, ScorerDesc};
/// # let engine: Engine = unimplemented!();
/// # let frames: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
/// let mut scorer = engine.scorer(&ScorerDesc::new(1920, 1080, 8))?;
/// for (r, d) in &frames {
///     scorer.submit_host(HostPlane::u8(r, 1920), HostPlane::u8(d, 1920))?;
///     while let Some(score) = scorer.poll() {
///         println!("{}", score?.ssim);
///     }
/// }
/// while let Some(score) = scorer.wait() {
///     println!("{}", score?.ssim);
/// }
/// # Ok::<(), vkssim::Error>(())
/// ```
pub struct Scorer {
    pub(super) inner: VkScorer,
    pub(super) ring: Option<ExternalRing>,
    desc: ScorerDesc,
    pub(super) timeline: bool,
    pub(super) submitted: u64,
    /// The engine's queue family and the device's number of families.
    pub(super) families: (u32, u32),
}

impl Scorer {
    pub(crate) fn new(
        engine: &Engine,
        gpu: Arc<Gpu>,
        options: &VkOptions,
        desc: &ScorerDesc,
    ) -> Result<Self> {
        let mut vk_opts = options.clone();
        if desc.frames_in_flight != 0 {
            vk_opts.frames_in_flight = desc.frames_in_flight;
        }
        if desc.device_frames {
            vk_opts.upload = UploadPath::Direct;
        }
        let families = (
            gpu.device.compute_family,
            gpu.device.info.families.len() as u32,
        );
        let inner = VkScorer::with_gpu(
            gpu,
            desc.width,
            desc.height,
            desc.bit_depth,
            &desc.ssim,
            &vk_opts,
        )?;
        let ring = if desc.device_frames {
            Some(inner.external_ring()?)
        } else {
            None
        };
        Ok(Self {
            families,
            inner,
            ring,
            desc: *desc,
            timeline: engine.supports_timeline_semaphores(),
            submitted: 0,
        })
    }

    /// What this scorer was created for.
    ///
    /// ```no_run
    /// # let scorer: vkssim::api::Scorer = unimplemented!();
    /// assert_eq!(scorer.desc().bit_depth, 8);
    /// ```
    pub fn desc(&self) -> &ScorerDesc {
        &self.desc
    }

    /// Queues a pair from host memory (copied before this returns). Blocks
    /// while [`Scorer::queue_depth`] pairs are already on the device (their
    /// results then wait in the queue for [`Scorer::poll`]).
    ///
    /// Errors: a plane of the wrong sample type, too short for the geometry,
    /// with a stride shorter than a row, or with a sample above the bit depth
    /// ([`crate::Error::InvalidOption`], [`crate::Error::BufferSize`],
    /// [`crate::Error::SampleRange`]); device errors.
    ///
    /// ```no_run
    /// # let mut scorer: vkssim::api::Scorer = unimplemented!();
    /// # let (r, d) = (vec![0u8; 64 * 64], vec![0u8; 64 * 64]);
    /// scorer.submit_host(vkssim::api::HostPlane::u8(&r, 64), vkssim::api::HostPlane::u8(&d, 64))?;
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn submit_host(
        &mut self,
        reference: HostPlane<'_>,
        distorted: HostPlane<'_>,
    ) -> Result<()> {
        let g = (self.desc.width, self.desc.height, self.desc.bit_depth);
        let frame = self.submitted;
        let mut r = LumaFrame::zeroed(0, 0, self.desc.bit_depth);
        let mut d = LumaFrame::zeroed(0, 0, self.desc.bit_depth);
        reference.pack_into(&mut r, g, "reference", frame)?;
        distorted.pack_into(&mut d, g, "distorted", frame)?;
        match self.ring.as_mut() {
            Some(ring) => self.inner.submit_host_with_ring(ring, r, d)?,
            None => self.inner.submit(r, d)?,
        }
        self.submitted += 1;
        Ok(())
    }

    /// Queues a pair that is already on the device, in the host's own buffers
    /// (see [`DevicePlane`] for layout, usage and ownership): no host upload.
    /// The pair's work waits for every semaphore in `waits` and signals every
    /// one in `signals` when its results are written, so it can chain after
    /// the host's decoder without a CPU wait. Needs a scorer created with
    /// [`ScorerDesc::device_frames`]. Blocks while [`Scorer::queue_depth`]
    /// pairs are on the device.
    ///
    /// # Safety
    /// The buffers and semaphores must be valid objects of the engine's device;
    /// each buffer must hold its plane (`offset + row_pitch * (height - 1)` plus
    /// one row, rounded up to 4 bytes when read in place) with the usage
    /// [`DevicePlane`] asks for; nothing may write the planes until the pair is
    /// done; binary wait semaphores must have a signal pending. The buffers must
    /// stay alive until the scorer drops or [`Scorer::forget_device_buffers`]
    /// is called (the scorer keeps its descriptors pointing at them to avoid
    /// re-recording).
    ///
    /// ```no_run
    /// use vkssim::api::{DevicePlane, SampleFormat, SemaphoreRef};
    /// # let mut scorer: vkssim::api::Scorer = unimplemented!();
    /// # let (ref_buf, dist_buf, decoded) = (ash::vk::Buffer::null(), ash::vk::Buffer::null(), ash::vk::Semaphore::null());
    /// let plane = |buffer| DevicePlane { buffer, offset: 0, row_pitch: 3840, format: SampleFormat::U8 };
    /// // SAFETY: the decoder's buffers hold 3840x2160 planes and stay untouched until the score is back.
    /// unsafe {
    ///     scorer.submit_device(
    ///         plane(ref_buf),
    ///         plane(dist_buf),
    ///         &[SemaphoreRef { semaphore: decoded, value: Some(7) }],
    ///         &[],
    ///     )
    /// }?;
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub unsafe fn submit_device(
        &mut self,
        reference: DevicePlane,
        distorted: DevicePlane,
        waits: &[SemaphoreRef],
        signals: &[SemaphoreRef],
    ) -> Result<()> {
        // SAFETY: forwarded from the caller's contract.
        unsafe { self.submit_sources(reference.into(), distorted.into(), waits, signals) }
    }

    /// Waits for the pairs in flight, then forgets which host buffers the
    /// scorer reads, so that the host may destroy them; later pairs rebind.
    /// Results stay queued for [`Scorer::poll`] and [`Scorer::wait`].
    ///
    /// ```no_run
    /// # let mut scorer: vkssim::api::Scorer = unimplemented!();
    /// scorer.forget_device_buffers();
    /// // now the host may destroy the buffers it submitted
    /// ```
    pub fn forget_device_buffers(&mut self) {
        if let Some(ring) = self.ring.as_mut() {
            self.inner.forget_external(ring);
        }
    }

    /// The oldest result if it is ready, without blocking; `None` when it is
    /// not ready or nothing is queued.
    ///
    /// ```no_run
    /// # let mut scorer: vkssim::api::Scorer = unimplemented!();
    /// if let Some(score) = scorer.poll() {
    ///     println!("{}", score?.float_ssim());
    /// }
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn poll(&mut self) -> Option<Result<FrameScore>> {
        self.inner.poll_next()
    }

    /// The oldest result, waiting for it; `None` when nothing is queued.
    ///
    /// ```no_run
    /// # let mut scorer: vkssim::api::Scorer = unimplemented!();
    /// while let Some(score) = scorer.wait() {
    ///     println!("{}", score?.float_ssim());
    /// }
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn wait(&mut self) -> Option<Result<FrameScore>> {
        self.inner.wait_next()
    }

    /// Pairs submitted whose result has not been taken yet.
    ///
    /// ```no_run
    /// # let scorer: vkssim::api::Scorer = unimplemented!();
    /// println!("{} pairs in flight", scorer.in_flight());
    /// ```
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }

    /// Pairs the scorer works on at once (its ring of frame slots).
    ///
    /// ```no_run
    /// # let scorer: vkssim::api::Scorer = unimplemented!();
    /// println!("{} slots", scorer.queue_depth());
    /// ```
    pub fn queue_depth(&self) -> usize {
        self.inner.queue_depth()
    }

    /// The arithmetic path the device's self-test chose.
    ///
    /// ```no_run
    /// # let scorer: vkssim::api::Scorer = unimplemented!();
    /// println!("{}", scorer.arithmetic().name());
    /// ```
    pub fn arithmetic(&self) -> ArithVariant {
        self.inner.arithmetic()
    }

    /// How host pairs reach the device (never `Auto`).
    ///
    /// ```no_run
    /// # let scorer: vkssim::api::Scorer = unimplemented!();
    /// println!("{:?}", scorer.upload_path());
    /// ```
    pub fn upload_path(&self) -> UploadPath {
        self.inner.upload_path()
    }

    /// The mean GPU time of each pass per pair (pass name, nanoseconds, in
    /// dispatch order) over the pairs scored since the last call (or since
    /// creation), from timestamps around each dispatch; `None` when the queue
    /// has no timestamps or no pair was scored. Restarts the count. For
    /// benchmarks: with pairs in flight, one pair's pass may overlap another's.
    ///
    /// ```no_run
    /// # let mut scorer: vkssim::api::Scorer = unimplemented!();
    /// for (pass, ns) in scorer.take_gpu_pass_ns().unwrap_or_default() {
    ///     println!("{pass}: {:.1} us", ns / 1e3);
    /// }
    /// ```
    pub fn take_gpu_pass_ns(&mut self) -> Option<Vec<(&'static str, f64)>> {
        self.inner.take_mean_pass_ns()
    }
}

impl Drop for Scorer {
    fn drop(&mut self) {
        if let Some(ring) = self.ring.take() {
            self.inner.destroy_external_ring(ring);
        }
    }
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
