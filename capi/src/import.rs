//! The import that takes what the host enabled the way libplacebo's
//! `pl_vulkan_import` does: the `VkPhysicalDeviceFeatures2` chain the device
//! was created with and the enabled device and instance extension names
//! ([`VkssimImportDesc2`], versioned by `struct_size`;
//! [`vkssim_engine_import2`]).

use std::ffi::{c_char, c_void, CStr, CString};

use ash::vk;
use vkssim::api::EnabledFeatures;
use vkssim::Error;

use crate::{guard, import_engine, null_arg, VkssimEngine, VkssimImportDesc, VkssimStatus};

/// The host's Vulkan objects and what it enabled, for
/// [`vkssim_engine_import2`]. Versioned: set `struct_size` to
/// `sizeof(VkssimImportDesc2)`; later versions only append fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimImportDesc2 {
    /// `sizeof(VkssimImportDesc2)`.
    pub struct_size: usize,
    /// The handles, queue, lock and options; its `shader_int64`,
    /// `shader_float64` and `timeline_semaphore` flags are ignored (the
    /// features come from `features2`).
    pub base: VkssimImportDesc,
    /// The `VkPhysicalDeviceFeatures2` (with its pNext chain:
    /// `VkPhysicalDeviceVulkan11Features`, `...Vulkan12Features`,
    /// `...TimelineSemaphoreFeatures`, others skipped) the device was created
    /// with; read during the call only.
    pub features2: *const c_void,
    /// The enabled device extensions (`ppEnabledExtensionNames`).
    pub device_extensions: *const *const c_char,
    /// How many.
    pub device_extension_count: u32,
    /// The enabled instance extensions (with `VK_EXT_debug_utils` vkssim
    /// names its objects).
    pub instance_extensions: *const *const c_char,
    /// How many.
    pub instance_extension_count: u32,
}

/// `n` C strings at `p` (NULL allowed when `n` is 0).
///
/// # Safety
/// `p` must point to `n` valid NUL-terminated strings when `n` is not 0.
unsafe fn names(p: *const *const c_char, n: u32, what: &str) -> Result<Vec<CString>, Error> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(null_arg(what));
    }
    // SAFETY: per the contract.
    let all = unsafe { std::slice::from_raw_parts(p, n as usize) };
    all.iter()
        .map(|&s| {
            if s.is_null() {
                Err(null_arg(what))
            } else {
                // SAFETY: per the contract.
                Ok(CString::from(unsafe { CStr::from_ptr(s) }))
            }
        })
        .collect()
}

/// Creates an engine on the host's instance, device and queue (borrowed, never
/// destroyed), with the features read from `desc->features2` and the
/// extension lists. Refused like `vkssim_engine_import` (shaderInt64 not in
/// the chain: `VKSSIM_ERROR_MISSING_FEATURE`), and when `struct_size` is
/// smaller than this version's.
///
/// # Safety
/// As `vkssim_engine_import` for `desc->base`; `features2` must point to a
/// `VkPhysicalDeviceFeatures2` whose pNext chain is well-formed; the extension
/// arrays must hold their counts of valid strings. `out` must be a valid
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_import2(
    desc: *const VkssimImportDesc2,
    out: *mut *mut VkssimEngine,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: the caller passes a valid struct or NULL.
        let d = unsafe { desc.as_ref() }.ok_or_else(|| null_arg("desc"))?;
        let size = std::mem::size_of::<VkssimImportDesc2>();
        if d.struct_size < size {
            return Err(Error::InvalidOption(format!(
                "VkssimImportDesc2 has struct_size {} (this vkssim needs at least {size}: \
                 set it to sizeof(VkssimImportDesc2))",
                d.struct_size
            )));
        }
        // SAFETY: per the contract, a VkPhysicalDeviceFeatures2 (or NULL).
        let chain = unsafe { (d.features2 as *const vk::PhysicalDeviceFeatures2<'_>).as_ref() }
            .ok_or_else(|| null_arg("desc->features2"))?;
        if chain.s_type != vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 {
            return Err(Error::InvalidOption(format!(
                "desc->features2 has sType {:?}, not VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2",
                chain.s_type
            )));
        }
        // SAFETY: the chain is well-formed per the contract.
        let features = unsafe { EnabledFeatures::from_chain(chain) };
        // SAFETY: per the contract.
        let device_extensions = unsafe {
            names(
                d.device_extensions,
                d.device_extension_count,
                "desc->device_extensions",
            )
        }?;
        // SAFETY: per the contract.
        let instance_extensions = unsafe {
            names(
                d.instance_extensions,
                d.instance_extension_count,
                "desc->instance_extensions",
            )
        }?;
        // SAFETY: forwarded from the caller's contract.
        unsafe {
            import_engine(
                &d.base,
                features,
                device_extensions,
                instance_extensions,
                out,
            )
        }
    })
}
