//! [`Gpu`]: the instance, the device and the memory allocator, owned together
//! and destroyed in reverse order (allocator, device, instance) after waiting
//! for the device to go idle.

use std::mem::ManuallyDrop;
use std::sync::Mutex;

use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::AllocatorDebugSettings;

use super::device::{self, Device};
use super::instance::{Instance, MessageLog};
use crate::{Error, Result};

/// An open Vulkan device with its allocator.
pub struct Gpu {
    /// The allocator; dropped by hand before the device.
    pub(crate) allocator: ManuallyDrop<Mutex<Allocator>>,
    /// The device (dropped after the allocator, before the instance).
    pub(crate) device: Device,
    /// The instance (dropped last).
    pub(crate) instance: Instance,
}

impl Gpu {
    /// Opens device `index` (or the default choice) with validation on or off.
    pub fn new(device_index: Option<usize>, validation: bool) -> Result<Self> {
        let instance = Instance::new(validation)?;
        let devices = device::enumerate(&instance)?;
        let info = device::choose(&devices, device_index)?;
        let device = Device::new(&instance, info)?;
        let allocator = Allocator::new(&AllocatorCreateDesc {
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
            context: format!("creating the memory allocator: {e}"),
        })?;
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
        })
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

    /// Waits until the device is idle.
    pub(crate) fn wait_idle(&self) -> Result<()> {
        // SAFETY: the device is valid; no queue is used concurrently (&self is
        // only shared within one scorer).
        unsafe { self.device.raw.device_wait_idle() }
            .map_err(super::errors::vk_ctx("waiting for the device to go idle"))
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        let _ = self.wait_idle();
        // SAFETY: dropped exactly once, here, before the device it allocates from;
        // every allocation was freed by its owner before.
        unsafe { ManuallyDrop::drop(&mut self.allocator) };
    }
}
