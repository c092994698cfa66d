//! The Vulkan engine: libvmaf's float_ssim on any Vulkan 1.1 device with
//! `shaderInt64`, bit for bit. Its public face is [`VkOptions`] (what an
//! engine is told), [`list_devices`] ([`DeviceReport`]: what each device
//! offers and the path vkssim would take) and the statistics types; scoring
//! goes through [`crate::api`].
//!
//! # Design
//! - One private module per concern: `instance` (loader, validation, debug
//!   messenger), `device` (choice, queues, [`DeviceReport`]), `context` (the
//!   instance, device and allocator, destroyed in reverse order), `memory`
//!   (named buffers), `pipeline` (the passes and their push constants),
//!   `commands` (pools, sync objects, barriers), `errors` (Vulkan results into
//!   [`crate::Error`]), `selftest` (the start-up arithmetic check),
//!   `pipeline_cache` (each device's self-tested pipelines, built once and
//!   shared by its scorers), `shaders` (the build-time SPIR-V) and `scorer`
//!   (the Vulkan scorer behind [`crate::api::Scorer`]).
//! - A frame is three compute passes in one pre-recorded command buffer:
//!   `decimate` (raw samples to fp32, box decimation in int64 fixed point, and
//!   the sample range check), `hfilter` (the horizontal half of the separable
//!   Gaussian of r, c, r², c², r·c, fp64 sums of fp32 products), `terms` (the
//!   vertical half, then per-pixel sigma, l, c, s and ssim terms as binary64
//!   bits, and their per-workgroup fixed-point sums). The host decides the
//!   means from those sums where they settle them (`reduce`), else sums the
//!   terms in raster order in fp64, exactly as libvmaf does, and rounds the
//!   means to fp32 with the CPU twin's functions.
//! - A scorer made with a metric list (`VkScorer::with_metrics`) records the
//!   other metrics' passes after those three in the same command buffer:
//!   `psnr` (integer per-row sums of squared errors of luma and, when psnr
//!   reads it, chroma, which is then uploaded after luma) and `float_ms_ssim`
//!   (the scale-0 samples by `decimate` at scale 1, the 9 x 9 low-pass
//!   pyramid by `lowpass`, then `hfilter` and `terms` on each of the five
//!   scales through descriptor sets of their own); the host finishes them
//!   with the metric layer's functions.
//! - Every fp64 operation goes through `glsl/include/arith.glsl`, built twice:
//!   native `double` and a software binary64 on `uint64_t` for devices without
//!   `shaderFloat64`. A start-up self-test picks one or refuses.
//! - Memory is allocated once per geometry; a ring of slots keeps several frames
//!   in flight. Unified-memory devices take samples straight into device memory;
//!   others go through a staging buffer and a copy (on a transfer-only queue,
//!   with an ownership transfer, where the device has one).
//! - [`DeviceOptions::validation`] turns on the Khronos validation layer with
//!   synchronization validation; its messages are collected so tests fail on
//!   any.
//! - The library reads no environment variable: everything it can be told is a
//!   field of [`VkOptions`] (the `vkssim` command line maps its `VKSSIM_*`
//!   variables onto them).

pub(crate) mod commands;
pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod errors;
pub(crate) mod image_input;
pub(crate) mod import_hold;
pub(crate) mod instance;
pub(crate) mod memory;
pub(crate) mod pipeline;
pub(crate) mod pipeline_cache;
mod pipeline_stats;
pub(crate) mod reduce;
pub(crate) mod scorer;
pub(crate) mod selftest;
pub(crate) mod shader_consts;
pub(crate) mod shaders;
pub(crate) mod shared_plane;
mod video_caps;
pub(crate) mod workers;

pub use device::{list_devices, DeviceReport, MemoryModel, QueueFamilyReport};
pub use pipeline_cache::ContextCounts;
pub use scorer::HostStats;
pub(crate) use scorer::{UploadSlot, VkScorer};
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

/// The most host threads [`EngineOptions::sum_threads`] may ask for.
pub const MAX_SUM_THREADS: usize = 1024;
/// The most frames in flight [`EngineOptions::frames_in_flight`] may ask for.
pub const MAX_FRAMES_IN_FLIGHT: usize = 1024;

/// Options of the Vulkan engine, in three groups: which device
/// ([`DeviceOptions`]), how the engine scores on it ([`EngineOptions`]) and,
/// hidden from the documentation, switches for tests and measurements that
/// give the same results. Built with [`VkOptions::default`] and the `with_*`
/// methods.
///
/// ```
/// use vkssim::vk::{UploadPath, VkOptions};
/// let opts = VkOptions::default().with_device_index(Some(1)).with_upload(UploadPath::Staging);
/// assert_eq!(opts.device.index, Some(1));
/// assert_eq!(opts.engine.upload, UploadPath::Staging);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VkOptions {
    /// Which device, and whether the validation layer watches it.
    pub device: DeviceOptions,
    /// How the engine scores.
    pub engine: EngineOptions,
    /// Switches for tests and measurements (the results are the same).
    #[doc(hidden)]
    pub debug: DebugOptions,
}

/// Which Vulkan device an engine opens ([`VkOptions::device`]).
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceOptions {
    /// Device index (`vkssim devices` order); `None` picks the best device.
    pub index: Option<usize>,
    /// Khronos validation with synchronization validation (the layer must be
    /// installed; [`crate::Error::ValidationLayerMissing`] otherwise).
    pub validation: bool,
}

/// How an engine scores ([`VkOptions::engine`]).
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// Upload path.
    pub upload: UploadPath,
    /// Force the software fp64 path even on devices with `shaderFloat64`.
    pub no_fp64: bool,
    /// Frames in flight (0: the default, [`crate::api::in_flight`]);
    /// at most [`MAX_FRAMES_IN_FLIGHT`].
    pub frames_in_flight: usize,
    /// Host threads summing a frame's per-pixel terms in raster order when the
    /// device's fixed-point sums do not settle its means (0: the cores, at most
    /// 4); at most [`MAX_SUM_THREADS`].
    pub sum_threads: usize,
    /// Slots a float_ssim-only scorer's ring grows to on its first
    /// device-resident pair (0: `frames_in_flight`); set by
    /// [`crate::api::Scorer`] from [`crate::api::in_flight`]'s policy.
    pub(crate) device_resident_frames_in_flight: usize,
}

/// Switches for tests and measurements ([`VkOptions::debug`]): the results
/// are the same with any of them.
#[doc(hidden)]
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DebugOptions {
    /// Always form the means from the host's raster-order sum of the per-pixel
    /// terms, never from the device's fixed-point sums.
    pub force_host_sum: bool,
    /// Copy a frame's terms out of mapped memory in one block before summing
    /// them: `Some(true)` always, `Some(false)` never, `None` when that memory
    /// is not host-cached.
    pub copy_terms: Option<bool>,
    /// Reduce the sums of the passes built in a subgroup variant without
    /// subgroup operations even where the device has them.
    pub no_subgroups: bool,
    /// Run each dispatch alone (a barrier before it) with a timestamp after
    /// it, so that the per-pass GPU times name single passes; the passes then
    /// no longer run side by side, and the first pass's time includes the
    /// end of the frame before it.
    pub time_each_pass: bool,
    /// Open the device with `VK_KHR_pipeline_executable_properties` where
    /// offered and log each pipeline's statistics as it is made (register
    /// count, binary size: whatever the driver reports), at info level under
    /// the target `vkssim::pipeline_stats`.
    pub pipeline_statistics: bool,
}

impl VkOptions {
    /// The same options on device `index` (`None`: the best).
    pub fn with_device_index(mut self, index: Option<usize>) -> Self {
        self.device.index = index;
        self
    }

    /// The same options with the validation layer on or off.
    pub fn with_validation(mut self, on: bool) -> Self {
        self.device.validation = on;
        self
    }

    /// The same options with `upload` as the upload path.
    pub fn with_upload(mut self, upload: UploadPath) -> Self {
        self.engine.upload = upload;
        self
    }

    /// The same options with the software fp64 path forced or not.
    pub fn with_no_fp64(mut self, on: bool) -> Self {
        self.engine.no_fp64 = on;
        self
    }

    /// The same options with `n` frames in flight (0: the default).
    pub fn with_frames_in_flight(mut self, n: usize) -> Self {
        self.engine.frames_in_flight = n;
        self
    }

    /// The same options with `n` host summing threads (0: the default).
    pub fn with_sum_threads(mut self, n: usize) -> Self {
        self.engine.sum_threads = n;
        self
    }

    /// The same options with [`DebugOptions::force_host_sum`].
    #[doc(hidden)]
    pub fn with_force_host_sum(mut self, on: bool) -> Self {
        self.debug.force_host_sum = on;
        self
    }

    /// The same options with [`DebugOptions::time_each_pass`].
    #[doc(hidden)]
    pub fn with_time_each_pass(mut self, on: bool) -> Self {
        self.debug.time_each_pass = on;
        self
    }

    /// The same options with [`DebugOptions::pipeline_statistics`].
    #[doc(hidden)]
    pub fn with_pipeline_statistics(mut self, on: bool) -> Self {
        self.debug.pipeline_statistics = on;
        self
    }

    /// The same options with [`DebugOptions::copy_terms`].
    #[doc(hidden)]
    pub fn with_copy_terms(mut self, copy: Option<bool>) -> Self {
        self.debug.copy_terms = copy;
        self
    }

    /// The same options with [`DebugOptions::no_subgroups`].
    #[doc(hidden)]
    pub fn with_no_subgroups(mut self, on: bool) -> Self {
        self.debug.no_subgroups = on;
        self
    }
}

impl VkOptions {
    /// [`crate::Error::InvalidOption`] when a count is above its limit
    /// ([`MAX_SUM_THREADS`], [`MAX_FRAMES_IN_FLIGHT`]).
    pub fn check(&self) -> crate::Result<()> {
        let limits = [
            ("sum_threads", self.engine.sum_threads, MAX_SUM_THREADS),
            (
                "frames_in_flight",
                self.engine.frames_in_flight,
                MAX_FRAMES_IN_FLIGHT,
            ),
        ];
        for (name, value, max) in limits {
            if value > max {
                return Err(crate::Error::InvalidOption(format!(
                    "{name} = {value}: at most {max}"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_above_their_limit_are_refused() {
        assert!(VkOptions::default().check().is_ok());
        let at_limit = VkOptions::default()
            .with_sum_threads(MAX_SUM_THREADS)
            .with_frames_in_flight(MAX_FRAMES_IN_FLIGHT);
        assert!(at_limit.check().is_ok());
        for o in [
            VkOptions::default().with_sum_threads(MAX_SUM_THREADS + 1),
            VkOptions::default().with_frames_in_flight(100_000),
        ] {
            let e = o.check().unwrap_err().to_string();
            assert!(
                e.starts_with("invalid option: ") && e.contains("at most"),
                "{e}"
            );
        }
    }

    #[test]
    fn defaults_turn_nothing_on() {
        let o = VkOptions::default();
        assert!(!o.device.validation && !o.debug.force_host_sum);
        assert_eq!((o.engine.sum_threads, o.debug.copy_terms), (0, None));
    }
}
