//! The Vulkan engine (work in progress).
pub mod shaders;
