//! vkssim: libvmaf's `float_ssim`, `psnr` and `float_ms_ssim` video quality
//! metrics, alone or together in one pass, bit for bit, on the CPU (an exact
//! twin of libvmaf's code) and on any Vulkan GPU with `shaderInt64`.
//!
//! The crate owns everything below the command line: the frame types
//! ([`frame`]), the metrics ([`metric`]) and their options ([`options`]), the
//! video readers ([`io`]; encoded files with the `ffmpeg` feature), the CPU
//! twin of every pass (crate-private; its stages reach vkssim's own tests
//! through the hidden `testing` module) and the one error enum ([`Error`]).
//!
//! Video tools start at [`api`]: an engine on vkssim's own Vulkan device or on
//! theirs, and scorers fed from host memory or from their own `VkBuffer`s.

#![deny(missing_docs)]

pub mod api;
mod cpu;
pub mod error;
pub(crate) mod feature;
pub mod frame;
mod identity;
pub mod io;
pub mod metric;
pub(crate) mod model;
pub mod options;
mod pool;
mod reorder;
mod scorer;
mod softfloat;
#[doc(hidden)]
pub mod testing;
#[cfg(feature = "vulkan-video")]
pub mod video;
pub mod vk;
pub mod words;

pub use error::{Component, Error, PlaneRole, Result, SampleAt};
pub use frame::{FrameScore, LumaFrame, LumaView};
pub use options::SsimOptions;
pub(crate) use scorer::FrameScorer;
