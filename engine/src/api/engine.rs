//! [`Engine`]: a Vulkan device vkssim scores on, its own ([`Engine::new`]) or
//! borrowed from the host application ([`Engine::import`]), and what a host
//! must enable for an import ([`REQUIRED_FEATURES`] and friends).

use std::ffi::{CStr, CString};
use std::sync::Arc;

use ash::vk;

use super::import::{self, EnabledFeatures};
use super::plane::HostPlane;
use super::queue::ScoreQueue;
use super::scorer::{Scorer, ScorerDesc};
use crate::vk::context::{Gpu, QueueLock};
use crate::vk::device;
use crate::vk::instance::Instance;
use crate::vk::shared_plane::SharedPlanes;
use crate::vk::{ArithVariant, ContextCounts, VkOptions};
use crate::{Error, FrameScore, Result};

/// Device features vkssim cannot work without (Vulkan's names). An import
/// whose enabled features lack one is refused with [`Error::MissingFeature`].
///
/// ```no_run
/// for f in vkssim::api::REQUIRED_FEATURES {
///     println!("enable {f}");
/// }
/// ```
pub const REQUIRED_FEATURES: &[&str] = &["shaderInt64"];

/// Device features vkssim uses when enabled: `shaderFloat64` (the native fp64
/// path; without it an exact software fp64 is used) and `timelineSemaphore`
/// (Vulkan 1.2; only for timeline values in [`super::SemaphoreRef`]).
///
/// ```no_run
/// assert!(vkssim::api::OPTIONAL_FEATURES.contains(&"shaderFloat64"));
/// ```
pub const OPTIONAL_FEATURES: &[&str] = &["shaderFloat64", "timelineSemaphore"];

/// Device extensions vkssim needs: none.
///
/// ```no_run
/// let extensions: Vec<*const std::ffi::c_char> =
///     vkssim::api::REQUIRED_DEVICE_EXTENSIONS.iter().map(|e| e.as_ptr()).collect();
/// # let _ = extensions;
/// ```
pub const REQUIRED_DEVICE_EXTENSIONS: &[&CStr] = &[];

/// The lowest Vulkan version the device must support (1.1).
///
/// ```no_run
/// let app = ash::vk::ApplicationInfo::default().api_version(vkssim::api::MIN_API_VERSION);
/// # let _ = app;
/// ```
pub const MIN_API_VERSION: u32 = vk::API_VERSION_1_1;

/// [`REQUIRED_FEATURES`] and `shaderFloat64` as a `vk::PhysicalDeviceFeatures`
/// to merge into the host's device creation (`shaderFloat64` is optional: drop
/// it if the device lacks it).
///
/// ```no_run
/// let features = vkssim::api::required_features();
/// assert_eq!(features.shader_int64, ash::vk::TRUE);
/// ```
pub fn required_features() -> vk::PhysicalDeviceFeatures {
    vk::PhysicalDeviceFeatures::default()
        .shader_int64(true)
        .shader_float64(true)
}

/// A host application's Vulkan objects for [`Engine::import`]. vkssim borrows
/// them: it never destroys them, and creates only its own objects (pipelines,
/// buffers, command pools, fences) on the device, all destroyed when the last
/// [`Engine`] and [`Scorer`] using them drop. What the host enabled comes as
/// libplacebo and wgpu-hal take it: the `VkPhysicalDeviceFeatures2` chain
/// (read into [`EnabledFeatures`]) and the enabled extension lists.
#[non_exhaustive]
pub struct ImportDesc {
    /// The loader entry the instance was created through.
    pub entry: ash::Entry,
    /// The host's instance.
    pub instance: ash::Instance,
    /// The physical device the host's device was created on.
    pub physical_device: vk::PhysicalDevice,
    /// The host's device.
    pub device: ash::Device,
    /// Queue family vkssim submits to (it needs compute).
    pub queue_family: u32,
    /// Queue index within that family.
    pub queue_index: u32,
    /// The features the host enabled when it created the device (at least
    /// [`REQUIRED_FEATURES`]); [`EnabledFeatures::from_chain`] reads them from
    /// its `VkPhysicalDeviceFeatures2` chain.
    pub features: EnabledFeatures,
    /// The device extensions the host enabled (at least
    /// [`REQUIRED_DEVICE_EXTENSIONS`]; `VK_KHR_timeline_semaphore` counts for
    /// timeline semaphores on a Vulkan 1.1 device).
    pub device_extensions: Vec<CString>,
    /// The instance extensions the host enabled: with `VK_EXT_debug_utils`
    /// vkssim names its objects on the device, as on its own.
    pub instance_extensions: Vec<CString>,
    /// The host's lock on the queue, when other threads of the host submit to
    /// it too; `None` when vkssim is the queue's only user at the times it
    /// submits.
    pub queue_lock: Option<Arc<dyn QueueLock>>,
    /// Engine options; `device_index` and `validation` are ignored (the host
    /// chose the device and the layers).
    pub options: VkOptions,
}

impl ImportDesc {
    /// The host's objects with queue 0 of family 0, no extensions listed, no
    /// queue lock and default options (set the fields that differ).
    pub fn new(
        entry: ash::Entry,
        instance: ash::Instance,
        physical_device: vk::PhysicalDevice,
        device: ash::Device,
        features: EnabledFeatures,
    ) -> Self {
        Self {
            entry,
            instance,
            physical_device,
            device,
            queue_family: 0,
            queue_index: 0,
            features,
            device_extensions: Vec::new(),
            instance_extensions: Vec::new(),
            queue_lock: None,
            options: VkOptions::default(),
        }
    }
}

/// The Vulkan objects behind an [`Engine`] ([`Engine::device_handles`]):
/// borrowed, never to be destroyed by the caller.
#[derive(Clone)]
pub struct DeviceHandles {
    /// The loader entry.
    pub entry: ash::Entry,
    /// The instance.
    pub instance: ash::Instance,
    /// The physical device.
    pub physical_device: vk::PhysicalDevice,
    /// The device.
    pub device: ash::Device,
    /// The queue family vkssim submits to.
    pub queue_family: u32,
    /// The queue vkssim submits to (submit through [`Engine::queue_submit`]).
    pub queue: vk::Queue,
}

/// A Vulkan device vkssim scores on (see the module documentation).
///
/// Cloning gives a second handle to the same device (nothing is copied).
///
/// `Send` and `Sync`: every method takes `&self`; the device's queue
/// submissions go through one lock (and the host's [`QueueLock`] for an
/// imported device), its memory allocator sits behind a mutex, and the rest is
/// immutable Vulkan handles, which Vulkan lets any thread use.
#[derive(Clone)]
pub struct Engine {
    gpu: Arc<Gpu>,
    options: VkOptions,
    timeline: bool,
}

impl Engine {
    /// An engine on vkssim's own instance and device, chosen as `options`
    /// says (`device_index`, `validation`; shared by every engine of the
    /// process with the same choice).
    ///
    /// Errors: [`Error::NoVulkan`], [`Error::NoDevice`], [`Error::NoSuchDevice`],
    /// [`Error::MissingFeature`], [`Error::InvalidOption`] (a count above its
    /// limit, see [`VkOptions::check`]), [`Error::Vulkan`].
    ///
    /// ```no_run
    /// let engine = vkssim::api::Engine::new(&vkssim::vk::VkOptions::default())?;
    /// println!("scoring on {}", engine.device_name());
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn new(options: &VkOptions) -> Result<Self> {
        options.check()?;
        let gpu = Gpu::shared(
            options.device.index,
            options.device.validation,
            options.debug.pipeline_statistics,
        )?;
        Ok(Self {
            timeline: gpu.device.timeline,
            gpu,
            options: options.clone(),
        })
    }

    /// An engine on the host application's instance, device and queue
    /// (compare wgpu-hal's `Device::device_from_raw` and libplacebo's
    /// `pl_vulkan_import`). Refused, with an error naming what is missing, when
    /// the enabled features lack one of [`REQUIRED_FEATURES`], the device is
    /// older than [`MIN_API_VERSION`], the queue family has no compute or the
    /// queue index is out of range.
    ///
    /// # Safety
    /// Every handle in `desc` must be valid and belong together (the instance
    /// created with `apiVersion` 1.1 or later, the device created on
    /// `physical_device` of `instance`, with queue `queue_index` of
    /// `queue_family`, and `features` and the extension lists what was
    /// enabled), and the host
    /// must keep the instance and device alive until this engine and every
    /// [`Scorer`] made from it have dropped. When other threads use the queue,
    /// `queue_lock` must be given.
    pub unsafe fn import(desc: ImportDesc) -> Result<Self> {
        // SAFETY: the caller guarantees the instance is valid and outlives us.
        let instance = unsafe { Instance::from_raw(desc.entry, desc.instance) };
        let devices = device::enumerate(&instance)?;
        let mut info = devices
            .into_iter()
            .find(|d| d.raw == desc.physical_device)
            .ok_or_else(|| {
                Error::NoDevice(
                    "the imported physical device is not one of the imported instance's".into(),
                )
            })?;
        if info.properties.api_version < MIN_API_VERSION {
            return Err(Error::Unsupported(format!(
                "imported device {}: Vulkan {}.{}; vkssim needs 1.1",
                info.name,
                vk::api_version_major(info.properties.api_version),
                vk::api_version_minor(info.properties.api_version)
            )));
        }
        if desc.features.core.shader_int64 != vk::TRUE {
            return Err(Error::MissingFeature {
                device: info.name.clone(),
                feature: "shaderInt64 (not enabled on the imported device; enable it when \
                          creating the device, see vkssim::api::REQUIRED_FEATURES)",
            });
        }
        let family = info
            .families
            .get(desc.queue_family as usize)
            .ok_or_else(|| {
                Error::InvalidOption(format!(
                    "imported queue family {} does not exist on {} ({} families)",
                    desc.queue_family,
                    info.name,
                    info.families.len()
                ))
            })?;
        if !family.queue_flags.contains(vk::QueueFlags::COMPUTE) {
            return Err(Error::InvalidOption(format!(
                "imported queue family {} of {} has no compute capability; vkssim needs a compute queue",
                desc.queue_family, info.name
            )));
        }
        if desc.queue_index >= family.queue_count {
            return Err(Error::InvalidOption(format!(
                "imported queue index {} is out of range: family {} of {} has {} queues",
                desc.queue_index, desc.queue_family, info.name, family.queue_count
            )));
        }
        // What the host enabled, not what the device offers.
        info.int64 = true;
        info.float64 = desc.features.core.shader_float64 == vk::TRUE;
        if let Some(missing) = REQUIRED_DEVICE_EXTENSIONS
            .iter()
            .find(|e| !import::has(&desc.device_extensions, e))
        {
            return Err(Error::Unsupported(format!(
                "imported device {}: extension {} is not among the enabled ones",
                info.name,
                missing.to_string_lossy()
            )));
        }
        // Timeline semaphores: the feature, on Vulkan 1.2 or with the extension.
        let timeline = desc.features.timeline_semaphore
            && (info.properties.api_version >= vk::API_VERSION_1_2
                || import::has(&desc.device_extensions, ash::khr::timeline_semaphore::NAME));
        let debug_utils = import::has(&desc.instance_extensions, ash::ext::debug_utils::NAME);
        // SAFETY: forwarded from the caller's guarantees.
        let mut gpu = unsafe {
            Gpu::from_raw(
                instance,
                desc.device,
                info,
                desc.queue_family,
                desc.queue_index,
                desc.queue_lock,
            )
        }?;
        if debug_utils {
            // Object names on the host's device, as on vkssim's own.
            gpu.device.debug_utils = Some(ash::ext::debug_utils::Device::new(
                &gpu.instance.raw,
                &gpu.device.raw,
            ));
        }
        Ok(Self {
            gpu: Arc::new(gpu),
            options: desc.options,
            timeline,
        })
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        self.gpu.device_name()
    }

    /// How often the engine's device built `variant`'s pipelines and ran its
    /// self-test: at most once each, however many scorers it made.
    #[doc(hidden)]
    pub fn context_counts(&self, variant: ArithVariant) -> ContextCounts {
        self.gpu.context_counts(variant)
    }

    /// Whether the device is the host's ([`Engine::import`]).
    pub fn is_imported(&self) -> bool {
        self.gpu.is_imported()
    }

    /// Validation-layer warnings and errors collected so far on vkssim's own
    /// instance (always empty for an imported one: the host's messenger sees
    /// them).
    pub fn validation_messages(&self) -> Vec<String> {
        self.gpu.validation_messages()
    }

    /// The engine's Vulkan objects, so that a host can create its buffers and
    /// semaphores on vkssim's own device (for [`Engine::import_buffer`]). They
    /// stay vkssim's: never destroy them, and submit to the queue only through
    /// [`Engine::queue_submit`] (vkssim submits to it from other threads).
    pub fn device_handles(&self) -> DeviceHandles {
        let d = &self.gpu.device;
        DeviceHandles {
            entry: self.gpu.instance.entry.clone(),
            instance: self.gpu.instance.raw.clone(),
            physical_device: d.info.raw,
            device: d.raw.clone(),
            queue_family: d.compute_family,
            queue: d.compute_queue,
        }
    }

    /// Submits the host's own work to the engine's queue, serialised with
    /// vkssim's submissions (and holding the host's [`QueueLock`] for an
    /// imported device).
    ///
    /// # Safety
    /// As `vkQueueSubmit`: the submit infos and fence must be valid for the
    /// engine's device and queue family.
    pub unsafe fn queue_submit(
        &self,
        submits: &[vk::SubmitInfo<'_>],
        fence: vk::Fence,
    ) -> Result<()> {
        // SAFETY: the submit infos are valid for this device (this function's
        // contract).
        unsafe {
            self.gpu
                .submit(self.gpu.device.compute_queue, submits, fence)
        }
        .map_err(|r| crate::vk::errors::vk_error(r, "submitting the host's work"))
    }

    /// Whether timeline values may be used in [`super::SemaphoreRef`]: on an
    /// import, what the host said it enabled; on vkssim's own device, whether
    /// the device offers `VK_KHR_timeline_semaphore` (then enabled; the host
    /// creates and waits on timeline semaphores through that extension's
    /// functions, e.g. `ash::khr::timeline_semaphore::Device`).
    pub fn supports_timeline_semaphores(&self) -> bool {
        self.timeline
    }

    /// The engine's device.
    pub(super) fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// A scorer for one geometry and set of options (see [`Scorer`]).
    /// Allocates every buffer; the device's first scorer of an arithmetic
    /// variant also builds its pipelines and runs its self-test, which later
    /// scorers (and [`Engine::score_pair`]) reuse.
    ///
    /// Errors: [`Error::PlaneTooSmall`], [`Error::Unsupported`] (bit depth,
    /// scale above 128), [`Error::SelfTestFailed`],
    /// [`Error::OutOfDeviceMemory`], [`Error::Vulkan`].
    pub fn scorer(&self, desc: &ScorerDesc) -> Result<Scorer> {
        Scorer::new(self, Arc::clone(&self.gpu), &self.options, desc)
    }

    /// A pool of reference planes of `desc`'s geometry on this engine's
    /// device, each uploaded once and read by any number of this device's
    /// scorers (an encoding ladder: one reference frame, many encodes; see
    /// [`crate::api::FrameSlot::share_reference`]). The pool grows to the
    /// planes in use at once; a plane goes back to it when its last pair is
    /// done. When `desc`'s metrics read chroma (psnr with `enable_chroma` on
    /// frames with chroma) each plane holds the whole picture (luma, Cb, Cr:
    /// [`SharedPlanes::upload_picture`]), else the luma plane
    /// ([`SharedPlanes::upload`]).
    ///
    /// Errors: the metric list's own ([`ScorerDesc::metric_set`]: an
    /// option, a frame a metric cannot score), and the plane's geometry as
    /// [`crate::io::VideoFormat::new`] checks it.
    pub fn shared_planes(&self, desc: &ScorerDesc) -> Result<SharedPlanes> {
        let metrics = desc.metric_set()?;
        SharedPlanes::new(
            Arc::clone(&self.gpu),
            (desc.width, desc.height, desc.bit_depth),
            metrics.needs_chroma().then(|| metrics.chroma_plane_size()),
        )
    }

    /// Scores one pair from host memory and returns its result: a one-off
    /// scorer with one frame in flight, dropped afterwards (the pipelines and
    /// self-test result stay with the engine's device). For many pairs, keep
    /// a [`Scorer`].
    pub fn score_pair(
        &self,
        desc: &ScorerDesc,
        reference: HostPlane<'_>,
        distorted: HostPlane<'_>,
    ) -> Result<FrameScore> {
        let mut one = desc.clone();
        one.frames_in_flight = std::num::NonZeroUsize::new(1);
        let mut scorer = self.scorer(&one)?;
        scorer.submit(super::Pair::new(reference, distorted))?;
        scorer
            .wait()
            .unwrap_or_else(|| Err(Error::Internal("score_pair: no result came back".into())))
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("device", &self.device_name())
            .field("imported", &self.is_imported())
            .finish()
    }
}
