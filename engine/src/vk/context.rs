//! [`Gpu`]: the instance, the device and the memory allocator, owned together
//! and destroyed in reverse order (allocator, device, instance) after waiting
//! for the device to go idle; and the process-wide cache of open devices.
//!
//! Scorers share one [`Gpu`] per (device, validation) for the life of the
//! process ([`Gpu::shared`]): NVIDIA's driver (580.x on the H200) answers
//! `ERROR_INCOMPATIBLE_DRIVER` to the 31st instance-and-device created in one
//! process even when every earlier one was destroyed. Queue submissions go
//! through `Gpu::submit`, which serialises them (Vulkan requires external
//! synchronisation of a queue).

use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex};

use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::AllocatorDebugSettings;

use super::device::{self, Device};
use super::instance::{Instance, MessageLog};
use super::pipeline::Pipelines;
use super::pipeline_cache::{ContextCounts, PipelineCache};
use super::shaders::ArithVariant;
use crate::{Error, Result};

/// A host application's lock on its queues, for an imported device
/// (`crate::api::Engine::import`): Vulkan requires a queue's users to
/// synchronise externally, and hosts often share a queue across threads. vkssim
/// calls `lock` before and `unlock` after each of its submissions to the queue,
/// from whatever thread submits.
///
/// ```no_run
/// use std::sync::atomic::{AtomicBool, Ordering};
/// /// The host's queue lock, as a spin lock.
/// struct HostLock(AtomicBool);
/// impl vkssim::api::QueueLock for HostLock {
///     fn lock(&self, _family: u32, _index: u32) {
///         while self.0.swap(true, Ordering::Acquire) {
///             std::hint::spin_loop();
///         }
///     }
///     fn unlock(&self, _family: u32, _index: u32) {
///         self.0.store(false, Ordering::Release);
///     }
/// }
/// ```
pub trait QueueLock: Send + Sync {
    /// Takes the host's lock on queue `index` of `family`.
    fn lock(&self, family: u32, index: u32);
    /// Releases it.
    fn unlock(&self, family: u32, index: u32);
}

/// An open Vulkan device with its allocator.
pub struct Gpu {
    /// The allocator; dropped by hand before the device.
    pub(crate) allocator: ManuallyDrop<Mutex<Allocator>>,
    /// The device (dropped after the allocator, before the instance).
    pub(crate) device: Device,
    /// The instance (dropped last).
    pub(crate) instance: Arc<Instance>,
    /// Held while submitting to any queue of the device.
    queue_lock: Mutex<()>,
    /// For an imported device: the host's queue lock and the queue's (family,
    /// index); `Some` also means the device and instance are borrowed.
    host_lock: Option<HostQueue>,
    /// The self-tested pipelines of each arithmetic variant, shared by every
    /// scorer on this device (see [`super::pipeline_cache`]).
    pipelines: PipelineCache,
}

/// An imported device's queue: the host's lock (if any), family, index.
type HostQueue = (Option<Arc<dyn QueueLock>>, u32, u32);

/// Open devices, by (device index, validation, pipeline statistics), kept
/// for the process.
type GpuCache = Mutex<Vec<((Option<usize>, bool, bool), Arc<Gpu>)>>;

/// gpu-allocator's allocator for `device`, logging leaked allocations by name
/// at shutdown. `where_` completes the error message (e.g. " on the imported
/// device").
fn new_allocator(instance: &Instance, device: &Device, where_: &str) -> Result<Allocator> {
    Allocator::new(&AllocatorCreateDesc {
        instance: instance.raw.clone(),
        device: device.raw.clone(),
        physical_device: device.info.raw,
        debug_settings: AllocatorDebugSettings {
            log_leaks_on_shutdown: true,
            ..Default::default()
        },
        buffer_device_address: false,
        allocation_sizes: Default::default(),
    })
    .map_err(|e| Error::Vulkan {
        result: ash::vk::Result::ERROR_INITIALIZATION_FAILED,
        context: format!("creating the memory allocator{where_}: {e}"),
    })
}

impl Gpu {
    /// Opens device `index` (or the default choice) with validation on or
    /// off, and with the driver's pipeline statistics logged where
    /// `statistics` (and offered: [`super::pipeline_stats`]).
    pub fn new(device_index: Option<usize>, validation: bool, statistics: bool) -> Result<Self> {
        let instance = Instance::shared(validation)?;
        let devices = device::enumerate(&instance)?;
        let info = device::choose(&devices, device_index)?;
        let device = {
            let _span = tracing::debug_span!("start: vulkan device").entered();
            Device::new(&instance, info, statistics)?
        };
        let allocator = new_allocator(&instance, &device, "")?;
        tracing::info!(
            device = %device.info.name,
            driver = %device.info.driver,
            memory = %device.info.memory_model(),
            validation,
            "opened Vulkan device"
        );
        Ok(Self {
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            device,
            instance,
            queue_lock: Mutex::new(()),
            host_lock: None,
            pipelines: PipelineCache::default(),
        })
    }

    /// Wraps a host application's instance and device (borrowed: nothing of
    /// theirs is destroyed when the `Gpu` drops; only vkssim's own allocator and
    /// objects are). `queue_lock`, when given, is held around every submission.
    ///
    /// # Safety
    /// `instance` and `device` must be valid, `device` created on `info.raw`
    /// with queue `queue_index` of `family`, and both must outlive the `Gpu`.
    pub(crate) unsafe fn from_raw(
        instance: Instance,
        device: ash::Device,
        info: device::PhysicalInfo,
        family: u32,
        queue_index: u32,
        queue_lock: Option<Arc<dyn QueueLock>>,
    ) -> Result<Self> {
        // SAFETY: forwarded from the caller.
        let device = unsafe { Device::from_raw(device, info, family, queue_index) };
        let allocator = new_allocator(&instance, &device, " on the imported device")?;
        Ok(Self {
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            device,
            instance: Arc::new(instance),
            queue_lock: Mutex::new(()),
            host_lock: Some((queue_lock, family, queue_index)),
            pipelines: PipelineCache::default(),
        })
    }

    /// Whether the instance and device are borrowed from a host application.
    pub fn is_imported(&self) -> bool {
        self.host_lock.is_some()
    }

    /// The process-wide [`Gpu`] for device `index` (or the default choice) with
    /// validation on or off and pipeline statistics logged or not
    /// ([`Gpu::new`]), opened on first use (see the module documentation).
    pub fn shared(
        device_index: Option<usize>,
        validation: bool,
        statistics: bool,
    ) -> Result<Arc<Self>> {
        static CACHE: GpuCache = Mutex::new(Vec::new());
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        let key = (device_index, validation, statistics);
        if let Some((_, gpu)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(gpu));
        }
        let gpu = Arc::new(Self::new(device_index, validation, statistics)?);
        cache.push((key, Arc::clone(&gpu)));
        Ok(gpu)
    }

    /// Submits `submits` to `queue` (a queue of this device), serialised with
    /// every other submission to this device.
    ///
    /// # Safety
    /// Everything `submits` names must be of this device and valid for
    /// `vkQueueSubmit`: command buffers executable and not pending, wait
    /// semaphores that will be signalled, signal semaphores and `fence`
    /// unsignalled, and all of them alive until the work completes.
    pub(crate) unsafe fn submit(
        &self,
        queue: ash::vk::Queue,
        submits: &[ash::vk::SubmitInfo<'_>],
        fence: ash::vk::Fence,
    ) -> std::result::Result<(), ash::vk::Result> {
        let _guard = self.queue_lock.lock().unwrap_or_else(|p| p.into_inner());
        let host = self
            .host_lock
            .as_ref()
            .and_then(|(l, f, i)| Some((l.as_ref()?, *f, *i)));
        if let Some((lock, family, index)) = host {
            lock.lock(family, index);
        }
        // SAFETY: the queue belongs to this device and the lock gives the
        // external synchronisation Vulkan requires; the submit infos are valid
        // (this function's contract).
        let result = unsafe { self.device.raw.queue_submit(queue, submits, fence) };
        if let Some((lock, family, index)) = host {
            lock.unlock(family, index);
        }
        result
    }

    /// Validation messages collected so far (always empty without validation).
    pub fn validation_messages(&self) -> Vec<String> {
        self.log().lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The shared message log.
    pub(crate) fn log(&self) -> MessageLog {
        self.instance.messages()
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        self.device.device_name()
    }

    /// The self-tested pipelines of the arithmetic path to use (native fp64
    /// unless `no_fp64` or the device lacks it, else the software path), built
    /// and self-tested on this device's first request for that variant only.
    pub(crate) fn tested_pipelines(&self, no_fp64: bool) -> Result<Arc<Pipelines>> {
        self.pipelines.choose(self, no_fp64)
    }

    /// How often this device built `variant`'s pipelines and ran its
    /// self-test (see [`ContextCounts`]).
    pub fn context_counts(&self, variant: ArithVariant) -> ContextCounts {
        self.pipelines.counts(variant)
    }

    /// Waits until the device is idle.
    pub(crate) fn wait_idle(&self) -> Result<()> {
        let _guard = self.queue_lock.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the device is valid; the lock keeps every queue from being used
        // concurrently.
        unsafe { self.device.raw.device_wait_idle() }
            .map_err(super::errors::vk_ctx("waiting for the device to go idle"))
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        let _span = tracing::debug_span!("end: pipelines and allocator").entered();
        // An imported device's queues are the host's: waiting for the whole
        // device would race with them. Every vkssim object waited for its own
        // work before this point (scorers wait on their fences).
        if !self.is_imported() {
            let _ = self.wait_idle();
        }
        self.pipelines.destroy(self);
        // SAFETY: dropped exactly once, here, before the device it allocates from;
        // every allocation was freed by its owner before.
        unsafe { ManuallyDrop::drop(&mut self.allocator) };
    }
}
