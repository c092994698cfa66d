//! The library API for video tools: an [`Engine`] on vkssim's own Vulkan device
//! ([`Engine::new`]) or on the host application's ([`Engine::import`]), and
//! [`Scorer`]s that score frame pairs of one geometry, each given as a
//! [`Pair`] to [`Scorer::submit`](crate::api::ScoreQueue::submit): planes in host memory ([`HostPlane`]), or
//! the host's own `vk::Buffer`s ([`DevicePlane`], no host round trip) and
//! images ([`ImagePlane`]: NV12, P010 and single-plane luma, with queue-family
//! ownership transfers), each imported once ([`Engine::import_buffer`],
//! [`Engine::import_image`]: an [`ImportedPlane`]), with results in
//! submission order. A [`Scorer`] can also run on the exact CPU twin
//! ([`Scorer::cpu`]), and be filled in place from reader threads through
//! [`FrameSlots`]. [`MultiScorer`] spreads one stream of pairs over several
//! engines (several GPUs).
//!
//! ```no_run
//! use vkssim::api::{Engine, HostPlane, ScorerDesc};
//! use vkssim::vk::VkOptions;
//!
//! # fn main() -> vkssim::Result<()> {
//! let engine = Engine::new(&VkOptions::default())?;
//! let desc = ScorerDesc::new(1920, 1080, 8);
//! let reference = vec![16u8; 1920 * 1080];
//! let distorted = vec![17u8; 1920 * 1080];
//! let score = engine.score_pair(
//!     &desc,
//!     HostPlane::u8(&reference, 1920),
//!     HostPlane::u8(&distorted, 1920),
//! )?;
//! println!("float_ssim = {}", score.float_ssim());
//! # Ok(())
//! # }
//! ```
//!
//! What the host must enable on an imported device is listed in
//! [`REQUIRED_FEATURES`], [`OPTIONAL_FEATURES`], [`REQUIRED_DEVICE_EXTENSIONS`]
//! and [`MIN_API_VERSION`] ([`required_features`] gives them as a
//! `vk::PhysicalDeviceFeatures`).

mod engine;
mod image;
mod import;
mod imported;
pub mod in_flight;
mod multi;
mod plane;
mod queue;
mod refused;
mod scorer;
mod slots;
mod stream;
mod submit;

pub use crate::vk::context::QueueLock;
pub use crate::vk::shared_plane::{PlaneWriter, SharedPlane, SharedPlanes};
pub use crate::vk::{ArithVariant, ContextCounts, UploadPath, VkOptions};
pub use crate::{Error, FrameScore, Result, SsimOptions};
pub use engine::{
    required_features, DeviceHandles, Engine, ImportDesc, MIN_API_VERSION, OPTIONAL_FEATURES,
    REQUIRED_DEVICE_EXTENSIONS, REQUIRED_FEATURES,
};
pub use image::{image_format_supported, ImagePlane};
pub use import::{extension_names, EnabledFeatures};
pub use imported::ImportedPlane;
pub use in_flight::{DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT, DEFAULT_FRAMES_IN_FLIGHT};
pub use multi::{usable_devices, DealtPlanes, MultiScorer, MultiSlots};
pub use plane::{DevicePlane, HostPlane, HostSamples, SampleFormat, SemaphoreRef};
pub use queue::ScoreQueue;
pub use scorer::{Diagnostics, Scorer, ScorerDesc};
pub use slots::{FrameSlot, FrameSlots};
pub use submit::{Pair, Source};
