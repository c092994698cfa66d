//! The Vulkan engine: libvmaf's float_ssim on any Vulkan 1.1 device with
//! `shaderInt64`, bit for bit.
//!
//! # Design
//! - One file per concern: [`instance`] (loader, validation, debug messenger),
//!   [`device`] (choice, queues, [`DeviceReport`]), [`context`] ([`Gpu`]: instance,
//!   device and allocator, destroyed in reverse order), [`memory`] (named
//!   buffers), [`pipeline`] (the passes and their push constants), [`commands`]
//!   (pools, sync objects, barriers), [`errors`] (Vulkan results into
//!   [`crate::Error`]), [`selftest`] (the start-up arithmetic check), [`shaders`]
//!   (the build-time SPIR-V) and [`scorer`] ([`VkScorer`]).
//! - A frame is four compute passes in one pre-recorded command buffer:
//!   `decimate` (raw samples to fp32, box decimation in int64 fixed point),
//!   `hfilter` and `vfilter` (the separable Gaussian of r, c, r², c², r·c, fp64
//!   sums of fp32 products), `terms` (per-pixel sigma, l, c, s and ssim terms as
//!   binary64 bits). The host sums the terms in raster order in fp64, exactly as
//!   libvmaf does, and rounds the means to fp32 with the CPU twin's functions.
//! - Every fp64 operation goes through `glsl/include/arith.glsl`, built twice:
//!   native `double` and a software binary64 on `uint64_t` for devices without
//!   `shaderFloat64`. A start-up self-test ([`selftest`]) picks one or refuses.
//! - Memory is allocated once per geometry; a ring of slots keeps several frames
//!   in flight. Unified-memory devices take samples straight into device memory;
//!   others go through a staging buffer and a copy (on a transfer-only queue,
//!   with an ownership transfer, where the device has one).
//! - `VKSSIM_VALIDATION=1` turns on the Khronos validation layer with
//!   synchronization validation; its messages are collected
//!   ([`VkScorer::validation_messages`]) so tests fail on any.

pub mod commands;
pub mod context;
pub mod device;
pub mod errors;
pub mod instance;
pub mod memory;
pub mod pipeline;
pub mod reduce;
pub mod scorer;
pub mod selftest;
pub mod shaders;
pub mod workers;

pub use context::Gpu;
pub use device::{list_devices, DeviceReport, MemoryModel, QueueFamilyReport};
pub use scorer::{DebugFrame, HostStats, UploadSlot, VkScorer};
pub use shaders::ArithVariant;

/// How raw samples reach the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UploadPath {
    /// Direct on unified-memory devices, staging otherwise.
    #[default]
    Auto,
    /// Write samples straight into host-visible device memory.
    Direct,
    /// Write into a host-visible staging buffer, then copy on the device.
    Staging,
}

/// Options of the Vulkan engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VkOptions {
    /// Device index (`vkssim devices` order); `None` picks the best device.
    pub device_index: Option<usize>,
    /// Upload path.
    pub upload: UploadPath,
    /// Force the software fp64 path even on devices with `shaderFloat64`.
    pub no_fp64: bool,
    /// Frames in flight (0: the default, 3).
    pub frames_in_flight: usize,
    /// Khronos validation with synchronization validation.
    pub validation: bool,
}

impl Default for VkOptions {
    /// Auto everything; validation when `VKSSIM_VALIDATION=1`.
    fn default() -> Self {
        Self {
            device_index: None,
            upload: UploadPath::Auto,
            no_fp64: false,
            frames_in_flight: 0,
            validation: instance::validation_from_env(),
        }
    }
}
