//! Mapping of Vulkan and gpu-allocator failures into [`crate::Error`].
//!
//! `vk_error` handles `VK_ERROR_DEVICE_LOST` ([`Error::DeviceLost`]),
//! `VK_ERROR_OUT_OF_DEVICE_MEMORY` ([`Error::OutOfDeviceMemory`]) and gives
//! every other code as [`Error::Vulkan`] with what vkssim was doing.
//! `alloc_error` maps gpu-allocator's out-of-memory to
//! [`Error::OutOfDeviceMemory`] and the rest to [`Error::Allocation`], with the
//! allocator's error as its source.

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
        other => Error::Allocation {
            what: name.to_string(),
            source: std::sync::Arc::new(other),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_allocator::AllocationError as A;

    #[test]
    fn allocator_failures_keep_the_allocators_error() {
        assert!(matches!(
            alloc_error(A::OutOfMemory, "ring"),
            Error::OutOfDeviceMemory(what) if what == "allocating ring"
        ));
        let e = alloc_error(A::FailedToMap("no".into()), "plane 3");
        match &e {
            Error::Allocation { what, source } => {
                assert_eq!(what, "plane 3");
                assert!(matches!(**source, A::FailedToMap(_)));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            e.to_string(),
            "allocating plane 3: Failed to map memory: no"
        );
        let source = std::error::Error::source(&e).expect("the allocator's error as source");
        assert_eq!(source.to_string(), "Failed to map memory: no");
    }
}
