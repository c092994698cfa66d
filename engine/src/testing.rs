//! Hooks for vkssim's own tests, benchmarks and examples, kept out of the
//! documented API (no stability promise): the scorers behind
//! [`crate::api::Scorer`] driven directly, so that the pass-by-pass and
//! parity tests can reach each pass, and the constants they check against.
//! Applications use [`crate::api`].

pub use crate::cpu::pool::CpuScorer;
pub use crate::scorer::FrameScorer;
pub use crate::vk::pipeline::PASSES;
pub use crate::vk::scorer::{DebugFrame, UploadSlot, VkScorer};
pub use crate::vk::shaders::soft_f64_available;
