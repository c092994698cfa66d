//! What a host enabled on the device it hands to [`super::Engine::import`],
//! taken the way libplacebo (`pl_vulkan_import_params::features`) and
//! wgpu-hal (`Adapter::device_from_raw`) take it: the
//! `VkPhysicalDeviceFeatures2` chain the device was created with, read once
//! into an owned [`EnabledFeatures`], and the enabled extension lists
//! ([`super::ImportDesc::device_extensions`] and `instance_extensions`).

use std::ffi::{CStr, CString};

use ash::vk;

/// The device features a host enabled that vkssim looks at, owned (no
/// pointers into the host's chain are kept).
///
/// ```no_run
/// use ash::vk;
/// use vkssim::api::EnabledFeatures;
/// let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
/// let chain = vk::PhysicalDeviceFeatures2::default()
///     .features(vk::PhysicalDeviceFeatures::default().shader_int64(true))
///     .push_next(&mut v12);
/// // SAFETY: a well-formed chain of Vulkan structs.
/// let features = unsafe { EnabledFeatures::from_chain(&chain) };
/// assert!(features.timeline_semaphore);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default)]
pub struct EnabledFeatures {
    /// The Vulkan 1.0 features (`shaderInt64` required, `shaderFloat64` used).
    pub core: vk::PhysicalDeviceFeatures,
    /// `timelineSemaphore` (`VkPhysicalDeviceVulkan12Features` or
    /// `VkPhysicalDeviceTimelineSemaphoreFeatures`): timeline values in
    /// [`super::SemaphoreRef`] are accepted only with it.
    pub timeline_semaphore: bool,
    /// `samplerYcbcrConversion` (`VkPhysicalDeviceVulkan11Features` or
    /// `VkPhysicalDeviceSamplerYcbcrConversionFeatures`): reported, not needed
    /// (vkssim copies multi-planar images, it does not sample them).
    pub sampler_ycbcr_conversion: bool,
}

impl EnabledFeatures {
    /// Only the Vulkan 1.0 features `core`.
    ///
    /// ```no_run
    /// let f = vkssim::api::EnabledFeatures::new(vkssim::api::required_features());
    /// # let _ = f;
    /// ```
    pub fn new(core: vk::PhysicalDeviceFeatures) -> Self {
        Self {
            core,
            ..Self::default()
        }
    }

    /// The same, with `timelineSemaphore` as `on` says.
    ///
    /// ```no_run
    /// # let f = vkssim::api::EnabledFeatures::default();
    /// let f = f.with_timeline_semaphore(true);
    /// # let _ = f;
    /// ```
    pub fn with_timeline_semaphore(mut self, on: bool) -> Self {
        self.timeline_semaphore = on;
        self
    }

    /// What `chain` (the `VkPhysicalDeviceFeatures2` the host passed as
    /// `VkDeviceCreateInfo::pNext`) enables: its core features and, from the
    /// structs in its `pNext` chain, the Vulkan 1.1/1.2 and extension feature
    /// structs vkssim knows; other structs are skipped.
    ///
    /// # Safety
    /// `chain.p_next` must be null or point to a well-formed chain of Vulkan
    /// structs (each starting with `sType`, `pNext`), valid for this call.
    ///
    /// ```no_run
    /// # let chain = ash::vk::PhysicalDeviceFeatures2::default();
    /// // SAFETY: the chain the host built for vkCreateDevice.
    /// let f = unsafe { vkssim::api::EnabledFeatures::from_chain(&chain) };
    /// # let _ = f;
    /// ```
    pub unsafe fn from_chain(chain: &vk::PhysicalDeviceFeatures2<'_>) -> Self {
        let mut out = Self::new(chain.features);
        let mut next = chain.p_next as *const vk::BaseInStructure<'_>;
        // SAFETY: per the contract, each pointer of the chain is null or a
        // valid struct whose `s_type` says its type.
        while let Some(base) = unsafe { next.as_ref() } {
            match base.s_type {
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_1_FEATURES => {
                    // SAFETY: the sType names this struct.
                    let f = unsafe { &*(next as *const vk::PhysicalDeviceVulkan11Features<'_>) };
                    out.sampler_ycbcr_conversion |= f.sampler_ycbcr_conversion == vk::TRUE;
                }
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => {
                    // SAFETY: the sType names this struct.
                    let f = unsafe { &*(next as *const vk::PhysicalDeviceVulkan12Features<'_>) };
                    out.timeline_semaphore |= f.timeline_semaphore == vk::TRUE;
                }
                vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES => {
                    // SAFETY: the sType names this struct.
                    let f = unsafe {
                        &*(next as *const vk::PhysicalDeviceTimelineSemaphoreFeatures<'_>)
                    };
                    out.timeline_semaphore |= f.timeline_semaphore == vk::TRUE;
                }
                vk::StructureType::PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES => {
                    // SAFETY: the sType names this struct.
                    let f = unsafe {
                        &*(next as *const vk::PhysicalDeviceSamplerYcbcrConversionFeatures<'_>)
                    };
                    out.sampler_ycbcr_conversion |= f.sampler_ycbcr_conversion == vk::TRUE;
                }
                _ => {}
            }
            next = base.p_next;
        }
        out
    }
}

/// Extension names as owned C strings, for [`super::ImportDesc`]'s lists.
///
/// ```no_run
/// let exts = vkssim::api::extension_names(&[ash::khr::timeline_semaphore::NAME]);
/// assert_eq!(exts.len(), 1);
/// ```
pub fn extension_names(names: &[&CStr]) -> Vec<CString> {
    names.iter().map(|n| CString::from(*n)).collect()
}

/// Whether `list` holds `name`.
pub(crate) fn has(list: &[CString], name: &CStr) -> bool {
    list.iter().any(|n| n.as_c_str() == name)
}
