//! Mapping of Vulkan and gpu-allocator failures into [`crate::Error`].
//!
//! `vk_error` handles `VK_ERROR_DEVICE_LOST` ([`Error::DeviceLost`]),
//! `VK_ERROR_OUT_OF_DEVICE_MEMORY` ([`Error::OutOfDeviceMemory`]) and gives
//! every other code as [`Error::Vulkan`] with what vkssim was doing.
//! `alloc_error` maps gpu-allocator's out-of-memory to
//! [`Error::OutOfDeviceMemory`] and the rest to [`Error::Vulkan`].

use ash::vk;

use crate::Error;

/// The library error for a failed Vulkan call made while doing `context`.
pub(crate) fn vk_error(result: vk::Result, context: impl Into<String>) -> Error {
    let context = context.into();
    match result {
        vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost(context),
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => Error::OutOfDeviceMemory(context),
        result => Error::Vulkan { result, context },
    }
}

/// A closure for `map_err` on a Vulkan call made while doing `context`.
pub(crate) fn vk_ctx(context: &'static str) -> impl Fn(vk::Result) -> Error {
    move |r| vk_error(r, context)
}

/// The library error for a failed gpu-allocator call on the allocation `name`.
pub(crate) fn alloc_error(e: gpu_allocator::AllocationError, name: &str) -> Error {
    use gpu_allocator::AllocationError as A;
    match e {
        A::OutOfMemory => Error::OutOfDeviceMemory(format!("allocating {name}")),
        other => Error::Vulkan {
            result: vk::Result::ERROR_UNKNOWN,
            context: format!("allocating {name}: {other}"),
        },
    }
}
