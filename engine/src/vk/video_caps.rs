//! Whether a device decodes H.264 with Vulkan Video, for `vkssim devices`:
//! the decode extensions (`VK_KHR_video_queue`, `VK_KHR_video_decode_queue`,
//! `VK_KHR_video_decode_h264`) and a queue family with `VIDEO_DECODE` whose
//! video codec operations include H.264 decode. Needs no decoder library.

use std::ffi::CStr;

use ash::vk;

/// The extensions H.264 decoding needs.
const EXTENSIONS: [&CStr; 3] = [
    ash::khr::video_queue::NAME,
    ash::khr::video_decode_queue::NAME,
    ash::khr::video_decode_h264::NAME,
];

/// `yes, queue family F (N queues)` or `no: <what is missing>` for `pd`.
pub(crate) fn h264_decode(instance: &ash::Instance, pd: vk::PhysicalDevice) -> String {
    // SAFETY: `pd` belongs to `instance`, valid for this call.
    let extensions = match unsafe { instance.enumerate_device_extension_properties(pd) } {
        Ok(e) => e,
        Err(e) => return format!("unknown (listing the device extensions failed: {e})"),
    };
    let has = |name: &CStr| {
        extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(name))
    };
    let missing: Vec<_> = EXTENSIONS
        .iter()
        .filter(|n| !has(n))
        .map(|n| n.to_string_lossy())
        .collect();
    if !missing.is_empty() {
        return format!("no ({} missing)", missing.join(", "));
    }
    // SAFETY: as above.
    let n = unsafe { instance.get_physical_device_queue_family_properties2_len(pd) };
    let mut video = vec![vk::QueueFamilyVideoPropertiesKHR::default(); n];
    let mut families: Vec<_> = video
        .iter_mut()
        .map(|v| vk::QueueFamilyProperties2::default().push_next(v))
        .collect();
    // SAFETY: the device has VK_KHR_video_queue, so the video properties
    // struct may extend the queue family properties; `families` has `n` items.
    unsafe { instance.get_physical_device_queue_family_properties2(pd, &mut families) };
    let found = families.iter().enumerate().find_map(|(i, f)| {
        let p = f.queue_family_properties;
        // SAFETY: `p_next` points into `video`, alive and filled in above.
        let ops = unsafe { (f.p_next as *const vk::QueueFamilyVideoPropertiesKHR<'_>).as_ref() }
            .map(|v| v.video_codec_operations)
            .unwrap_or_default();
        (p.queue_flags.contains(vk::QueueFlags::VIDEO_DECODE_KHR)
            && ops.contains(vk::VideoCodecOperationFlagsKHR::DECODE_H264))
        .then_some((i, p.queue_count))
    });
    match found {
        Some((family, count)) => format!("yes, queue family {family} ({count} queues)"),
        None => "no (no queue family with VIDEO_DECODE and the H.264 decode operation)".into(),
    }
}
