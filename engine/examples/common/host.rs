//! A host application that holds its frames in `VkImage`s (for the
//! `image_frames` example): its instance (validation with synchronization
//! validation when asked, and a messenger collecting every warning), a device
//! with a queue of the engine's family and one of another family that owns the
//! images where the device has one (the frames themselves: `super::frames`).

use std::ffi::{c_void, CStr};
use std::sync::Mutex;

use super::frames::Frame;
use ash::vk;
use vkssim::api::{extension_names, EnabledFeatures, SemaphoreRef};

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Every validation message collected so far.
pub fn messages() -> Vec<String> {
    MESSAGES.lock().map(|m| m.clone()).unwrap_or_default()
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data with a NUL-terminated message.
    let text = unsafe { data.as_ref() }
        .filter(|d| !d.p_message.is_null())
        .map(|d| {
            // SAFETY: `p_message` is a NUL-terminated string (checked non-null).
            unsafe { CStr::from_ptr(d.p_message) }
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    if let Ok(mut m) = MESSAGES.lock() {
        m.push(format!("{severity:?}: {text}"));
    }
    vk::FALSE
}

/// A debug-utils messenger and the instance functions that destroy it.
pub type Messenger = (ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT);

/// What [`instance`] gives: the loader, the instance, its messenger and the
/// instance's API version.
pub type HostInstance = (ash::Entry, ash::Instance, Option<Messenger>, u32);

/// The loader, an instance named `app` (Vulkan 1.2 where the loader has it,
/// returned as the last value) and, with `validation`, the Khronos layer with
/// synchronization validation and a messenger collecting into [`messages`].
///
/// # Safety
/// The loader must be sound.
pub unsafe fn instance(
    app: &CStr,
    validation: bool,
) -> Result<HostInstance, Box<dyn std::error::Error>> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let entry = ash::Entry::load()?;
        let version = entry
            .try_enumerate_instance_version()?
            .unwrap_or(vk::API_VERSION_1_0)
            .min(vk::API_VERSION_1_2);
        let app = vk::ApplicationInfo::default()
            .application_name(app)
            .api_version(version);
        let layers = [c"VK_LAYER_KHRONOS_validation".as_ptr()];
        let exts = [
            ash::ext::debug_utils::NAME.as_ptr(),
            ash::ext::validation_features::NAME.as_ptr(),
        ];
        let sync = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&sync);
        let mut info = vk::InstanceCreateInfo::default().application_info(&app);
        if validation {
            info = info
                .enabled_layer_names(&layers)
                .enabled_extension_names(&exts)
                .push_next(&mut features);
        }
        let instance = entry.create_instance(&info, None)?;
        if !validation {
            return Ok((entry, instance, None, version));
        }
        let m = collect_messages(&entry, &instance)?;
        Ok((entry, instance, Some(m), version))
    }
}

/// A debug-utils messenger on `instance` (created with `VK_EXT_debug_utils`)
/// collecting every warning and error into [`messages`].
///
/// # Safety
/// `instance` must be a live instance of `entry` with `VK_EXT_debug_utils`
/// enabled; the messenger must be destroyed before it.
pub unsafe fn collect_messages(
    entry: &ash::Entry,
    instance: &ash::Instance,
) -> Result<Messenger, vk::Result> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let du = ash::ext::debug_utils::Instance::new(entry, instance);
        let m = du.create_debug_utils_messenger(
            &vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(on_message)),
            None,
        )?;
        Ok((du, m))
    }
}

/// The host's Vulkan objects.
pub struct Host {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    messenger: Option<Messenger>,
    names: Option<ash::ext::debug_utils::Device>,
    pub physical_device: vk::PhysicalDevice,
    pub device: ash::Device,
    pub name: String,
    /// The first compute family: the engine's.
    pub engine_family: u32,
    /// Another family that can copy, where the device has one; else the same.
    pub image_family: u32,
    pub image_queue: vk::Queue,
    /// What the device was created with (for `ImportDesc`).
    pub features: EnabledFeatures,
    pub timeline: bool,
    /// The instance extensions enabled (for `ImportDesc`).
    pub instance_extensions: Vec<std::ffi::CString>,
    ycbcr: bool,
}

impl Host {
    /// The instance, the first device with `shaderInt64` and a compute family,
    /// and its queues.
    ///
    /// # Safety
    /// The loader must be sound.
    pub unsafe fn new(validation: bool) -> Result<Self, Box<dyn std::error::Error>> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let (entry, instance, messenger, version) =
                instance(c"vkssim image_frames example", validation)?;
            for pd in instance.enumerate_physical_devices()? {
                let supported = instance.get_physical_device_features(pd);
                let families = instance.get_physical_device_queue_family_properties(pd);
                let can = |f: &vk::QueueFamilyProperties, flags| f.queue_flags.intersects(flags);
                let Some(engine_family) = families
                    .iter()
                    .position(|f| can(f, vk::QueueFlags::COMPUTE))
                else {
                    continue;
                };
                if supported.shader_int64 != vk::TRUE {
                    continue;
                }
                let other = |flags| {
                    (0..families.len()).find(|&i| i != engine_family && can(&families[i], flags))
                };
                let image_family = other(vk::QueueFlags::COMPUTE)
                    .or_else(|| other(vk::QueueFlags::TRANSFER | vk::QueueFlags::GRAPHICS))
                    .unwrap_or(engine_family);
                let props = instance.get_physical_device_properties(pd);
                let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
                let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
                let api12 =
                    props.api_version >= vk::API_VERSION_1_2 && version >= vk::API_VERSION_1_2;
                let mut query = vk::PhysicalDeviceFeatures2::default().push_next(&mut v11);
                if api12 {
                    query = query.push_next(&mut v12);
                }
                instance.get_physical_device_features2(pd, &mut query);
                let timeline = api12 && v12.timeline_semaphore == vk::TRUE;
                let ycbcr = v11.sampler_ycbcr_conversion == vk::TRUE;
                let features = vk::PhysicalDeviceFeatures::default()
                    .shader_int64(true)
                    .shader_float64(supported.shader_float64 == vk::TRUE);
                let mut enable11 =
                    vk::PhysicalDeviceVulkan11Features::default().sampler_ycbcr_conversion(ycbcr);
                let mut enable12 =
                    vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(timeline);
                let priorities = [1.0f32];
                let mut queues = vec![vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(engine_family as u32)
                    .queue_priorities(&priorities)];
                if image_family != engine_family {
                    queues.push(
                        vk::DeviceQueueCreateInfo::default()
                            .queue_family_index(image_family as u32)
                            .queue_priorities(&priorities),
                    );
                }
                let mut chain = vk::PhysicalDeviceFeatures2::default().features(features);
                if api12 {
                    chain = chain.push_next(&mut enable11).push_next(&mut enable12);
                }
                let info = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .push_next(&mut chain);
                let device = instance.create_device(pd, &info, None)?;
                // What the engine is told: the chain the device was created with.
                let features = EnabledFeatures::from_chain(&chain);
                let names =
                    validation.then(|| ash::ext::debug_utils::Device::new(&instance, &device));
                let image_queue = device.get_device_queue(image_family as u32, 0);
                let name = props
                    .device_name_as_c_str()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                return Ok(Host {
                    entry,
                    instance,
                    messenger,
                    names,
                    physical_device: pd,
                    device,
                    name,
                    engine_family: engine_family as u32,
                    image_family: image_family as u32,
                    image_queue,
                    features,
                    timeline,
                    ycbcr: ycbcr && api12,
                    instance_extensions: if validation {
                        extension_names(&[ash::ext::debug_utils::NAME])
                    } else {
                        Vec::new()
                    },
                });
            }
            Err("no Vulkan device with shaderInt64 and a compute queue".into())
        }
    }

    /// Names `handle` for the validation layer's messages.
    ///
    /// # Safety
    /// `handle` must be an object of this host's device.
    pub unsafe fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            if let Some(du) = &self.names {
                let name = std::ffi::CString::new(name).unwrap_or_default();
                let info = vk::DebugUtilsObjectNameInfoEXT::default()
                    .object_handle(handle)
                    .object_name(&name);
                let _ = du.set_debug_utils_object_name(&info);
            }
        }
    }

    /// `None` when images of `format` cannot be copied to and from (or need
    /// the Y'CbCr feature the device lacks); else whether they can be sampled.
    ///
    /// # Safety
    /// The host's instance must be alive.
    pub unsafe fn image_support(&self, format: vk::Format) -> Option<bool> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            if multi_planar(format) && !self.ycbcr {
                return None;
            }
            let props = self
                .instance
                .get_physical_device_format_properties(self.physical_device, format);
            let copy = vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST;
            if !props.optimal_tiling_features.contains(copy) {
                return None;
            }
            let sampled = props
                .optimal_tiling_features
                .contains(vk::FormatFeatureFlags::SAMPLED_IMAGE);
            self.instance
                .get_physical_device_image_format_properties(
                    self.physical_device,
                    format,
                    vk::ImageType::TYPE_2D,
                    vk::ImageTiling::OPTIMAL,
                    usage(sampled),
                    vk::ImageCreateFlags::empty(),
                )
                .ok()
                .map(|_| sampled)
        }
    }

    /// Submits `frame`'s fill on the image family's queue, signalling `done`.
    ///
    /// # Safety
    /// `frame` must have been recorded on this host's device and `done` be one
    /// of its semaphores, unsignalled (binary) or below its value (timeline).
    pub unsafe fn submit_fill(&self, frame: &Frame, done: SemaphoreRef) -> Result<(), vk::Result> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let cmds = [frame.fill];
            let sems = [done.semaphore];
            let values = [done.value.unwrap_or(0)];
            let mut tl =
                vk::TimelineSemaphoreSubmitInfo::default().signal_semaphore_values(&values);
            let mut submit = vk::SubmitInfo::default()
                .command_buffers(&cmds)
                .signal_semaphores(&sems);
            if done.value.is_some() {
                submit = submit.push_next(&mut tl);
            }
            self.device
                .queue_submit(self.image_queue, &[submit], vk::Fence::null())
        }
    }

    /// Submits `frame`'s return (the acquire back, when the families differ)
    /// after `scored`.
    ///
    /// # Safety
    /// `frame` must have been recorded on this host's device and `scored` be
    /// signalled by work submitted before.
    pub unsafe fn submit_return(
        &self,
        frame: &Frame,
        scored: SemaphoreRef,
    ) -> Result<(), vk::Result> {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            let cmds = [frame.back];
            let sems = [scored.semaphore];
            let values = [scored.value.unwrap_or(0)];
            let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
            let mut tl = vk::TimelineSemaphoreSubmitInfo::default().wait_semaphore_values(&values);
            let mut submit = vk::SubmitInfo::default()
                .command_buffers(&cmds)
                .wait_semaphores(&sems)
                .wait_dst_stage_mask(&stages);
            if scored.value.is_some() {
                submit = submit.push_next(&mut tl);
            }
            self.device
                .queue_submit(self.image_queue, &[submit], vk::Fence::null())
        }
    }

    /// Destroys the device and instance (after [`Images::destroy`]).
    ///
    /// # Safety
    /// The device must be idle and every object made on it destroyed
    /// ([`super::frames::Images::destroy`]).
    pub unsafe fn destroy(self) {
        // SAFETY: the caller upholds this function's `# Safety` contract.
        unsafe {
            self.device.destroy_device(None);
            if let Some((du, m)) = &self.messenger {
                du.destroy_debug_utils_messenger(*m, None);
            }
            self.instance.destroy_instance(None);
        }
    }

    /// Whether the image family differs from the engine's (ownership moves).
    pub fn transfers(&self) -> bool {
        self.image_family != self.engine_family
    }
}

/// The usage of the example's images.
pub fn usage(sampled: bool) -> vk::ImageUsageFlags {
    let copy = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    if sampled {
        copy | vk::ImageUsageFlags::SAMPLED
    } else {
        copy
    }
}

/// Whether `format` is one of the example's multi-planar formats (the others
/// are its single-plane ones).
pub fn multi_planar(format: vk::Format) -> bool {
    !matches!(
        format,
        vk::Format::R8_UNORM
            | vk::Format::R16_UNORM
            | vk::Format::R10X6_UNORM_PACK16
            | vk::Format::R12X4_UNORM_PACK16
    )
}
