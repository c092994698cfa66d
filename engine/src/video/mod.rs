//! H.264 Annex B streams decoded on the GPU by Vulkan Video (the `gpu-video`
//! crate, on ash and wgpu) and scored through the image path
//! ([`crate::api::Engine::import_image`], [`Scorer::submit`](crate::api::ScoreQueue::submit)) without a frame leaving the device
//! (feature `vulkan-video`). [`VideoDevice`] owns the decoder's device and a
//! vkssim [`Engine`] imported on it; [`VideoDevice::score_streams`] decodes the
//! two streams on their own threads (each decoder's submissions go to the
//! decode queues in turn) and scores the pairs in display order.
//!
//! What gpu-video hands over, and how it is taken: each decoded frame is a new
//! `G8_B8R8_2PLANE_420_UNORM` (NV12) image of the stream's cropped size with
//! `TRANSFER_SRC` usage, created in `CONCURRENT` sharing between gpu-video's
//! transfer family and wgpu's queue family, and left in `GENERAL` layout once
//! gpu-video has copied the decoded picture into it and waited on the host for
//! that copy (its timeline semaphore). vkssim's engine submits on wgpu's queue
//! (one of the image's families, so no ownership transfer), reads plane 0 from
//! `GENERAL` and leaves it in `GENERAL`; no semaphore is needed because the
//! copy is complete before the texture is returned. Nothing submits through
//! wgpu's queue here (gpu-video's decoder uses its transfer and decode queues),
//! so vkssim is that queue's only user and takes no host lock.

mod decode;
mod score;

use std::sync::Arc;

use ash::vk;
use gpu_video::parameters::{VulkanAdapterDescriptor, VulkanDeviceDescriptor};

use crate::api::{extension_names, EnabledFeatures, Engine, ImportDesc};
use crate::vk::VkOptions;
use crate::{Error, Result};

pub use score::{StreamPair, VideoFrame, VideoRun};

/// What is missing where no device can decode H.264 with Vulkan Video.
pub const NO_DECODE_DEVICE: &str = "no Vulkan Video H.264 decode device: no Vulkan device \
     offers a queue family with VIDEO_DECODE and the H.264 decode operation \
     (VK_KHR_video_queue, VK_KHR_video_decode_queue, VK_KHR_video_decode_h264, \
     VK_KHR_video_maintenance1 and synchronization2 are needed)";

/// A Vulkan Video decoding device (gpu-video's, with its wgpu device) and a
/// vkssim engine imported on it.
pub struct VideoDevice {
    // Declared first: dropped before the device it borrows.
    engine: Engine,
    device: Arc<gpu_video::VulkanDevice>,
    _instance: Arc<gpu_video::VulkanInstance>,
    name: String,
}

impl VideoDevice {
    /// Opens the first device gpu-video finds with H.264 decode (decode only:
    /// devices without video encode, such as the H200, qualify), with
    /// `shaderInt64` (and `shaderFloat64` where offered) enabled through the
    /// wgpu device descriptor, and imports it into vkssim with `options`.
    ///
    /// Errors: [`Error::NoDevice`] with [`NO_DECODE_DEVICE`] when no device
    /// decodes H.264; [`Error::NoVulkan`] without a loader; the import's errors.
    ///
    /// ```no_run
    /// let video = vkssim::video::VideoDevice::open(&vkssim::vk::VkOptions::default())?;
    /// println!("decoding and scoring on {}", video.name());
    /// # Ok::<(), vkssim::Error>(())
    /// ```
    pub fn open(options: &VkOptions) -> Result<Self> {
        let instance = gpu_video::VulkanInstance::new().map_err(init_error)?;
        let int64 = wgpu::Features::SHADER_INT64;
        let f64 = wgpu::Features::SHADER_F64;
        // Without shaderFloat64 vkssim uses its exact software fp64.
        let device = create_device(&instance, int64 | f64).or_else(|e| match e {
            Error::NoDevice(_) => Err(e),
            _ => create_device(&instance, int64),
        })?;
        let wgpu_device = device.wgpu_device();
        let enabled = wgpu_device.features();
        // SAFETY: the wgpu device was created by gpu-video on the Vulkan backend.
        let hal = unsafe { wgpu_device.as_hal::<wgpu::hal::api::Vulkan>() }
            .ok_or_else(|| Error::Internal("gpu-video's wgpu device is not a Vulkan one".into()))?;
        let shared = hal.shared_instance();
        let core = vk::PhysicalDeviceFeatures::default()
            .shader_int64(enabled.contains(int64))
            .shader_float64(enabled.contains(f64));
        let mut desc = ImportDesc::new(
            shared.entry().clone(),
            shared.raw_instance().clone(),
            hal.raw_physical_device(),
            hal.raw_device().clone(),
            EnabledFeatures::new(core),
        );
        desc.queue_family = hal.queue_family_index();
        desc.queue_index = hal.queue_index();
        desc.device_extensions = extension_names(hal.enabled_device_extensions());
        desc.instance_extensions = extension_names(shared.extensions());
        desc.options = options.clone();
        drop(hal);
        // SAFETY: the handles are gpu-video's live instance and device, with
        // the features and extensions listed; `device` and `instance` are
        // kept in this struct and dropped after the engine. The queue is
        // wgpu's, which nothing else submits to (module docs).
        let engine = unsafe { Engine::import(desc) }?;
        Ok(Self {
            name: engine.device_name().to_string(),
            engine,
            device,
            _instance: instance,
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The vkssim engine on the decoder's device.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// gpu-video's device (its wgpu device, queue and adapter).
    pub(crate) fn device(&self) -> &Arc<gpu_video::VulkanDevice> {
        &self.device
    }
}

/// gpu-video's device on the first H.264-decoding adapter, with `features`.
fn create_device(
    instance: &gpu_video::VulkanInstance,
    features: wgpu::Features,
) -> Result<Arc<gpu_video::VulkanDevice>> {
    let adapter = instance
        .create_adapter(&VulkanAdapterDescriptor {
            supports_decoding: true,
            supports_encoding: false,
            compatible_surface: None,
        })
        .map_err(init_error)?;
    let name = adapter.info().name.clone();
    adapter
        .create_device(&VulkanDeviceDescriptor {
            wgpu_features: features,
            ..Default::default()
        })
        .map_err(|e| {
            Error::Unsupported(format!(
                "creating the Vulkan Video device on {name} with {features:?}: {e}"
            ))
        })
}

fn init_error(e: gpu_video::VulkanInitError) -> Error {
    match e {
        gpu_video::VulkanInitError::NoDevice => Error::NoDevice(NO_DECODE_DEVICE.into()),
        gpu_video::VulkanInitError::LoadingError(e) => Error::NoVulkan(e.to_string()),
        e => Error::Unsupported(format!("starting Vulkan Video: {e}")),
    }
}
