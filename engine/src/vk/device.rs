//! Physical device choice and the logical device: which device vkssim uses
//! (discrete, then integrated, virtual, CPU; or the index asked for), what it
//! offers ([`DeviceReport`], for `vkssim devices`), and the queues it gets (a
//! compute queue, plus a transfer-only queue for uploads where one exists).

use std::fmt;

use ash::vk;

use super::errors::vk_ctx;
use super::instance::Instance;
use super::shaders::{soft_f64_available, ArithVariant};
use crate::{Error, Result};

/// How host data reaches device-local memory on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryModel {
    /// Every device-local memory type is host-visible (integrated GPUs, CPUs).
    Unified,
    /// A device-local, host-visible type spans the largest device-local heap
    /// (a discrete GPU with resizable BAR).
    ResizableBar,
    /// Host-visible memory is separate: uploads go through a staging copy.
    Staging,
}

impl fmt::Display for MemoryModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MemoryModel::Unified => "unified",
            MemoryModel::ResizableBar => "resizable BAR",
            MemoryModel::Staging => "staging",
        })
    }
}

/// One queue family of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueFamilyReport {
    /// Family index.
    pub index: u32,
    /// Capabilities, e.g. `graphics+compute+transfer`.
    pub capabilities: String,
    /// Number of queues.
    pub count: u32,
    /// Valid bits of timestamps (0: no timestamps).
    pub timestamp_valid_bits: u32,
}

/// What `vkssim devices` prints about one device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceReport {
    /// Index for `--device N` (the loader's enumeration order).
    pub index: usize,
    /// Device name.
    pub name: String,
    /// discrete, integrated, virtual, CPU or other.
    pub device_type: String,
    /// Driver name and information.
    pub driver: String,
    /// Vulkan API version, e.g. `1.3.230`.
    pub api_version: String,
    /// `shaderInt64` (required).
    pub shader_int64: bool,
    /// `shaderFloat64` (native fp64 path).
    pub shader_float64: bool,
    /// How uploads reach the device.
    pub memory_model: MemoryModel,
    /// Queue families.
    pub queue_families: Vec<QueueFamilyReport>,
    /// Whether Vulkan Video decodes H.264 on it (`yes, queue family F (N
    /// queues)` or `no (what is missing)`).
    pub video_decode_h264: String,
    /// Whether vkssim would pick this device without `--device`.
    pub default_choice: bool,
    /// What vkssim would do on this device (arithmetic path and upload), or why
    /// it cannot use it.
    pub path: String,
}

impl fmt::Display for DeviceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "[{}] {} ({}){}",
            self.index,
            self.name,
            self.device_type,
            if self.default_choice {
                " (default)"
            } else {
                ""
            }
        )?;
        writeln!(f, "    driver: {}", self.driver)?;
        writeln!(f, "    Vulkan: {}", self.api_version)?;
        writeln!(
            f,
            "    shaderInt64: {}, shaderFloat64: {}",
            yes_no(self.shader_int64),
            yes_no(self.shader_float64)
        )?;
        writeln!(f, "    memory: {}", self.memory_model)?;
        for q in &self.queue_families {
            writeln!(
                f,
                "    queue family {}: {} x{} (timestamp bits {})",
                q.index, q.capabilities, q.count, q.timestamp_valid_bits
            )?;
        }
        writeln!(
            f,
            "    Vulkan Video H.264 decode: {}",
            self.video_decode_h264
        )?;
        write!(f, "    vkssim path: {}", self.path)
    }
}

impl DeviceReport {
    /// Whether the device is a CPU implementation of Vulkan
    /// (`VK_PHYSICAL_DEVICE_TYPE_CPU`: lavapipe, SwiftShader), on which the
    /// CPU twin ([`crate::cpu::CpuScorer`]) scores faster.
    pub fn is_cpu(&self) -> bool {
        self.device_type == type_name(vk::PhysicalDeviceType::CPU)
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// What vkssim knows about one physical device.
#[derive(Clone)]
pub(crate) struct PhysicalInfo {
    pub(crate) raw: vk::PhysicalDevice,
    pub(crate) index: usize,
    pub(crate) name: String,
    pub(crate) properties: vk::PhysicalDeviceProperties,
    pub(crate) driver: String,
    pub(crate) memory: vk::PhysicalDeviceMemoryProperties,
    pub(crate) families: Vec<vk::QueueFamilyProperties>,
    pub(crate) int64: bool,
    pub(crate) float64: bool,
    /// Subgroup arithmetic in compute shaders, subgroups of at least 4
    /// invocations (the reductions of the `*_subgroup` shader builds,
    /// [`crate::vk::shaders::ShaderName::subgroup_build`]).
    pub(crate) subgroup_reduce: bool,
}

impl PhysicalInfo {
    fn type_rank(&self) -> u32 {
        match self.properties.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => 0,
            vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
            vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
            vk::PhysicalDeviceType::CPU => 3,
            _ => 4,
        }
    }

    /// The memory model of this device.
    pub(crate) fn memory_model(&self) -> MemoryModel {
        memory_model(&self.memory)
    }

    /// Bytes of its largest device-local memory heap (0 without one).
    pub(crate) fn device_local_bytes(&self) -> u64 {
        let heaps = &self.memory.memory_heaps[..self.memory.memory_heap_count as usize];
        heaps
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0)
    }

    /// The compute queue family: the first with compute, preferring one with
    /// timestamps.
    pub(crate) fn compute_family(&self) -> Option<u32> {
        let compute = |f: &vk::QueueFamilyProperties| {
            f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.queue_count > 0
        };
        self.families
            .iter()
            .position(|f| compute(f) && f.timestamp_valid_bits > 0)
            .or_else(|| self.families.iter().position(compute))
            .map(|i| i as u32)
    }

    /// A transfer-only queue family (no graphics, no compute), if any.
    pub(crate) fn transfer_family(&self) -> Option<u32> {
        self.families
            .iter()
            .position(|f| {
                f.queue_flags.contains(vk::QueueFlags::TRANSFER)
                    && !f
                        .queue_flags
                        .intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
                    && f.queue_count > 0
            })
            .map(|i| i as u32)
    }
}

/// The memory model implied by a device's memory types and heaps.
pub(crate) fn memory_model(mem: &vk::PhysicalDeviceMemoryProperties) -> MemoryModel {
    let types = &mem.memory_types[..mem.memory_type_count as usize];
    let heaps = &mem.memory_heaps[..mem.memory_heap_count as usize];
    let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
    let visible = vk::MemoryPropertyFlags::HOST_VISIBLE;
    let local_types: Vec<_> = types
        .iter()
        .filter(|t| t.property_flags.contains(local))
        .collect();
    if !local_types.is_empty()
        && local_types
            .iter()
            .all(|t| t.property_flags.contains(visible))
    {
        return MemoryModel::Unified;
    }
    let largest_local_heap = heaps
        .iter()
        .enumerate()
        .filter(|(_, h)| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .max_by_key(|(_, h)| h.size)
        .map(|(i, _)| i as u32);
    let bar = types.iter().any(|t| {
        t.property_flags.contains(local | visible) && Some(t.heap_index) == largest_local_heap
    });
    if bar {
        MemoryModel::ResizableBar
    } else {
        MemoryModel::Staging
    }
}

fn type_name(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete GPU",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated GPU",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual GPU",
        vk::PhysicalDeviceType::CPU => "CPU",
        _ => "other",
    }
}

fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

/// Every physical device the instance sees, in the loader's order.
pub(crate) fn enumerate(instance: &Instance) -> Result<Vec<PhysicalInfo>> {
    let raw = &instance.raw;
    // SAFETY: the instance is valid for the whole function.
    let devices =
        unsafe { raw.enumerate_physical_devices() }.map_err(vk_ctx("listing Vulkan devices"))?;
    let mut out = Vec::new();
    for (index, pd) in devices.into_iter().enumerate() {
        // SAFETY: `pd` came from this instance.
        let properties = unsafe { raw.get_physical_device_properties(pd) };
        // SAFETY: as above.
        let features = unsafe { raw.get_physical_device_features(pd) };
        // SAFETY: as above.
        let memory = unsafe { raw.get_physical_device_memory_properties(pd) };
        // SAFETY: as above.
        let families = unsafe { raw.get_physical_device_queue_family_properties(pd) };
        let name = properties
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "unnamed device".into());
        let mut subgroup_reduce = false;
        if properties.api_version >= vk::API_VERSION_1_1 {
            let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sub);
            // SAFETY: the device supports Vulkan 1.1, so the subgroup
            // properties struct is a valid extension of properties2.
            unsafe { raw.get_physical_device_properties2(pd, &mut props2) };
            subgroup_reduce = sub.supported_stages.contains(vk::ShaderStageFlags::COMPUTE)
                && sub
                    .supported_operations
                    .contains(vk::SubgroupFeatureFlags::ARITHMETIC)
                && sub.subgroup_size >= 4;
        }
        let mut driver = format!("version {:#x}", properties.driver_version);
        if properties.api_version >= vk::API_VERSION_1_2 {
            let mut driver_props = vk::PhysicalDeviceDriverProperties::default();
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver_props);
            // SAFETY: the device supports Vulkan 1.2, so the driver properties
            // struct is a valid extension of properties2.
            unsafe { raw.get_physical_device_properties2(pd, &mut props2) };
            let dn = c_chars(&driver_props.driver_name);
            let di = c_chars(&driver_props.driver_info);
            driver = format!("{dn} {di}").trim().to_string();
        }
        out.push(PhysicalInfo {
            raw: pd,
            index,
            name,
            properties,
            driver,
            memory,
            families,
            int64: features.shader_int64 == vk::TRUE,
            float64: features.shader_float64 == vk::TRUE,
            subgroup_reduce,
        });
    }
    Ok(out)
}

fn c_chars(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The device vkssim uses: `index` if given (which must exist and have
/// `shaderInt64`), else the best-ranked device with `shaderInt64` and a compute
/// queue.
pub(crate) fn choose(devices: &[PhysicalInfo], index: Option<usize>) -> Result<PhysicalInfo> {
    if devices.is_empty() {
        return Err(Error::NoDevice(
            "the Vulkan loader lists no device; install a Vulkan driver \
             (mesa-vulkan-drivers, or the GPU vendor's)"
                .into(),
        ));
    }
    let usable = |d: &PhysicalInfo| -> Result<()> {
        if !d.int64 {
            return Err(Error::MissingFeature {
                device: d.name.clone(),
                feature: "shaderInt64",
            });
        }
        if d.compute_family().is_none() {
            return Err(Error::MissingFeature {
                device: d.name.clone(),
                feature: "a compute queue",
            });
        }
        Ok(())
    };
    if let Some(i) = index {
        let d = devices.get(i).ok_or(Error::NoSuchDevice {
            index: i,
            count: devices.len(),
        })?;
        usable(d)?;
        return Ok(d.clone());
    }
    let mut sorted: Vec<&PhysicalInfo> = devices.iter().collect();
    sorted.sort_by_key(|d| (d.type_rank(), d.index));
    let mut first_error = None;
    for d in sorted {
        match usable(d) {
            Ok(()) => return Ok(d.clone()),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| Error::NoDevice("no device is usable".into())))
}

/// The arithmetic variant a device would start with (before the self-test).
pub(crate) fn planned_variant(d: &PhysicalInfo, no_fp64: bool) -> Option<ArithVariant> {
    if d.float64 && !no_fp64 {
        Some(ArithVariant::Fp64)
    } else if soft_f64_available() {
        Some(ArithVariant::SoftF64)
    } else {
        None
    }
}

/// Lists every Vulkan device with what vkssim would do on it (`vkssim devices`),
/// with the Khronos validation layer on when `validation`.
pub fn list_devices(validation: bool) -> Result<Vec<DeviceReport>> {
    let instance = Instance::shared(validation)?;
    let devices = enumerate(&instance)?;
    let default = choose(&devices, None).ok().map(|d| d.index);
    Ok(devices
        .iter()
        .map(|d| {
            let model = d.memory_model();
            let upload = match model {
                MemoryModel::Unified => "direct upload into device-local memory".to_string(),
                // Measured faster than staging on the H200 (BENCHMARKS.md).
                MemoryModel::ResizableBar => {
                    "direct upload into device-local memory through the BAR".to_string()
                }
                _ => match d.transfer_family() {
                    Some(f) => format!("staging upload, copies on transfer queue family {f}"),
                    None => "staging upload, copies on the compute queue".to_string(),
                },
            };
            let path = if !d.int64 {
                "unusable: no shaderInt64".to_string()
            } else if d.compute_family().is_none() {
                "unusable: no compute queue".to_string()
            } else {
                match planned_variant(d, false) {
                    Some(ArithVariant::Fp64) => {
                        format!("native fp64 arithmetic (after a start-up self-test), {upload}")
                    }
                    Some(ArithVariant::SoftF64) => {
                        format!("software fp64 on int64 (after a start-up self-test), {upload}")
                    }
                    None => "unusable: no shaderFloat64 and the software fp64 path is not built"
                        .to_string(),
                }
            };
            DeviceReport {
                index: d.index,
                name: d.name.clone(),
                device_type: type_name(d.properties.device_type).into(),
                driver: d.driver.clone(),
                api_version: version_string(d.properties.api_version),
                shader_int64: d.int64,
                shader_float64: d.float64,
                memory_model: model,
                queue_families: d
                    .families
                    .iter()
                    .enumerate()
                    .map(|(i, f)| QueueFamilyReport {
                        index: i as u32,
                        capabilities: queue_caps(f.queue_flags),
                        count: f.queue_count,
                        timestamp_valid_bits: f.timestamp_valid_bits,
                    })
                    .collect(),
                video_decode_h264: super::video_caps::h264_decode(&instance.raw, d.raw),
                default_choice: default == Some(d.index),
                path,
            }
        })
        .collect())
}

fn queue_caps(flags: vk::QueueFlags) -> String {
    let mut parts = Vec::new();
    for (flag, name) in [
        (vk::QueueFlags::GRAPHICS, "graphics"),
        (vk::QueueFlags::COMPUTE, "compute"),
        (vk::QueueFlags::TRANSFER, "transfer"),
        (vk::QueueFlags::SPARSE_BINDING, "sparse"),
        (vk::QueueFlags::from_raw(0x20), "video-decode"),
        (vk::QueueFlags::from_raw(0x40), "video-encode"),
        (vk::QueueFlags::from_raw(0x100), "optical-flow"),
    ] {
        if flags.contains(flag) {
            parts.push(name);
        }
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join("+")
    }
}

/// Whether the device lists the extension `name`.
fn offers_extension(instance: &Instance, info: &PhysicalInfo, name: &std::ffi::CStr) -> bool {
    // SAFETY: the physical device belongs to the instance.
    let extensions = unsafe { instance.raw.enumerate_device_extension_properties(info.raw) };
    extensions.is_ok_and(|e| {
        e.iter()
            .any(|p| p.extension_name_as_c_str().is_ok_and(|n| n == name))
    })
}

/// Whether the device offers extension `name` with the feature that
/// `enabled` reads from its feature struct `features` (filled in by
/// `vkGetPhysicalDeviceFeatures2`).
fn offers_feature<F: vk::ExtendsPhysicalDeviceFeatures2>(
    (instance, info): (&Instance, &PhysicalInfo),
    name: &std::ffi::CStr,
    mut features: F,
    enabled: impl Fn(&F) -> bool,
) -> bool {
    if !offers_extension(instance, info, name) {
        return false;
    }
    {
        let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut features);
        // SAFETY: Vulkan 1.1 instance; the device offers the extension whose
        // feature struct is chained.
        unsafe {
            instance
                .raw
                .get_physical_device_features2(info.raw, &mut features2)
        };
    }
    enabled(&features)
}

/// Whether the device offers `VK_KHR_timeline_semaphore` with its
/// `timelineSemaphore` feature.
fn timeline_supported(instance: &Instance, info: &PhysicalInfo) -> bool {
    offers_feature(
        (instance, info),
        ash::khr::timeline_semaphore::NAME,
        vk::PhysicalDeviceTimelineSemaphoreFeatures::default(),
        |f| f.timeline_semaphore == vk::TRUE,
    )
}

/// Whether the device offers `VK_KHR_pipeline_executable_properties` with
/// its `pipelineExecutableInfo` feature ([`super::pipeline_stats`]).
fn statistics_supported(instance: &Instance, info: &PhysicalInfo) -> bool {
    offers_feature(
        (instance, info),
        ash::khr::pipeline_executable_properties::NAME,
        vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default(),
        |f| f.pipeline_executable_info == vk::TRUE,
    )
}

/// The logical device and its queues.
pub struct Device {
    /// The device.
    pub(crate) raw: ash::Device,
    /// What the physical device offers.
    pub(crate) info: PhysicalInfo,
    /// The compute queue family and its first queue.
    pub(crate) compute_family: u32,
    /// Every frame is submitted on it: several queues of the family were
    /// measured on the H200 and made scoring slower (issue 9, item 4).
    pub(crate) compute_queue: vk::Queue,
    /// The transfer-only family and queue, when the device has one.
    pub(crate) transfer: Option<(u32, vk::Queue)>,
    /// debug-utils device functions, for object names.
    pub(crate) debug_utils: Option<ash::ext::debug_utils::Device>,
    /// Whether timeline semaphores are enabled (`VK_KHR_timeline_semaphore`
    /// on vkssim's own device where offered; what the host says on an import).
    pub(crate) timeline: bool,
    /// `VK_KHR_pipeline_executable_properties`, enabled only on a device
    /// opened for pipeline statistics where offered
    /// ([`super::pipeline_stats`]).
    pub(crate) executable_properties: Option<ash::khr::pipeline_executable_properties::Device>,
    /// Borrowed from a host application ([`Device::from_raw`]): never destroyed.
    borrowed: bool,
}

impl Device {
    /// Creates the logical device on `info` with `shaderInt64` (and
    /// `shaderFloat64` where offered), and with pipeline statistics where
    /// `statistics` asks for them and the device offers them.
    pub(crate) fn new(instance: &Instance, info: PhysicalInfo, statistics: bool) -> Result<Self> {
        let compute_family = info.compute_family().ok_or_else(|| Error::MissingFeature {
            device: info.name.clone(),
            feature: "a compute queue",
        })?;
        let transfer_family = info.transfer_family();
        let priorities = [1.0f32];
        let mut queues = vec![vk::DeviceQueueCreateInfo::default()
            .queue_family_index(compute_family)
            .queue_priorities(&priorities)];
        if let Some(t) = transfer_family {
            queues.push(
                vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(t)
                    .queue_priorities(&priorities),
            );
        }
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_float64(info.float64);
        // Timeline semaphores, for library hosts that chain on them
        // (`crate::api`): through the KHR extension, since the instance is 1.1.
        let timeline = timeline_supported(instance, &info);
        let statistics = statistics && {
            let offered = statistics_supported(instance, &info);
            if !offered {
                tracing::warn!(
                    device = %info.name,
                    "no pipeline statistics: the device does not offer \
                     VK_KHR_pipeline_executable_properties"
                );
            }
            offered
        };
        let mut extensions = Vec::new();
        if timeline {
            extensions.push(ash::khr::timeline_semaphore::NAME.as_ptr());
        }
        if statistics {
            extensions.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
        }
        let mut timeline_features =
            vk::PhysicalDeviceTimelineSemaphoreFeatures::default().timeline_semaphore(true);
        let mut statistics_features =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        let mut create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&features)
            .enabled_extension_names(&extensions);
        if timeline {
            create = create.push_next(&mut timeline_features);
        }
        if statistics {
            create = create.push_next(&mut statistics_features);
        }
        // SAFETY: the physical device belongs to the instance; the create info
        // points at locals that outlive the call.
        let raw = unsafe { instance.raw.create_device(info.raw, &create, None) }
            .map_err(vk_ctx("creating the Vulkan device"))?;
        // SAFETY: queue 0 of the compute family was requested at creation.
        let compute_queue = unsafe { raw.get_device_queue(compute_family, 0) };
        // SAFETY: as above.
        let transfer = transfer_family.map(|f| (f, unsafe { raw.get_device_queue(f, 0) }));
        let debug_utils = instance
            .debug_utils
            .as_ref()
            .map(|_| ash::ext::debug_utils::Device::new(&instance.raw, &raw));
        let executable_properties = statistics
            .then(|| ash::khr::pipeline_executable_properties::Device::new(&instance.raw, &raw));
        let device = Self {
            raw,
            info,
            compute_family,
            compute_queue,
            transfer,
            debug_utils,
            timeline,
            executable_properties,
            borrowed: false,
        };
        device.name(device.compute_queue, "vkssim compute queue");
        if let Some((_, q)) = device.transfer {
            device.name(q, "vkssim transfer queue");
        }
        Ok(device)
    }

    /// Wraps a host application's device without taking ownership (dropping the
    /// wrapper destroys nothing): `info` describes its physical device, with
    /// `int64`/`float64` set to what the host *enabled*; work goes to queue
    /// `queue_index` of `family`; no transfer queue is used.
    ///
    /// # Safety
    /// `raw` must be a valid device created on `info.raw` with that queue, and
    /// must outlive the wrapper and everything created from it.
    pub(crate) unsafe fn from_raw(
        raw: ash::Device,
        info: PhysicalInfo,
        family: u32,
        queue_index: u32,
    ) -> Self {
        // SAFETY: the caller guarantees the queue was created with the device.
        let compute_queue = unsafe { raw.get_device_queue(family, queue_index) };
        Self {
            raw,
            info,
            compute_family: family,
            compute_queue,
            transfer: None,
            debug_utils: None,
            timeline: false,
            executable_properties: None,
            borrowed: true,
        }
    }

    /// Gives `handle` a debug-utils name (no-op without debug-utils).
    pub(crate) fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(du) = &self.debug_utils else { return };
        let Ok(cname) = std::ffi::CString::new(name) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&cname);
        // SAFETY: the handle belongs to this device; naming has no other effect.
        let _ = unsafe { du.set_debug_utils_object_name(&info) };
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.info.name
    }

    /// Nanoseconds per timestamp tick.
    pub(crate) fn timestamp_period(&self) -> f32 {
        self.info.properties.limits.timestamp_period
    }

    /// Whether the compute queue writes timestamps.
    pub(crate) fn has_timestamps(&self) -> bool {
        self.info.families[self.compute_family as usize].timestamp_valid_bits > 0
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        if self.borrowed {
            return;
        }
        let _span = tracing::debug_span!("end: vulkan device").entered();
        // SAFETY: the owner destroyed every child object first; waiting idle then
        // destroying is the required order.
        unsafe {
            let _ = self.raw.device_wait_idle();
            self.raw.destroy_device(None);
        }
    }
}
