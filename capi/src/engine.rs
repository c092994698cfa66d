//! The engine's C functions: default options, creating an engine on vkssim's
//! own device or importing the host's (with the host's queue lock), its
//! device's name and handles, submitting on its queue, validation messages,
//! destroying it.

use super::*;

/// Options with every default: best device, default frames in flight, native
/// fp64 where available, no validation, automatic upload path.
#[no_mangle]
pub extern "C" fn vkssim_engine_options_default() -> VkssimEngineOptions {
    VkssimEngineOptions {
        device_index: -1,
        frames_in_flight: 0,
        no_fp64: false,
        validation: false,
        upload: 0,
    }
}

/// Creates an engine on vkssim's own instance and device.
///
/// # Safety
/// `options` (NULL for the defaults) must point to a valid struct; `out` must
/// be a valid pointer, which receives the engine on success.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_create(
    options: *const VkssimEngineOptions,
    out: *mut *mut VkssimEngine,
) -> VkssimStatus {
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: the caller passes NULL or a valid struct.
        let o = unsafe { options.as_ref() }
            .copied()
            .unwrap_or_else(|| vkssim_engine_options_default());
        let upload = match o.upload {
            0 => UploadPath::Auto,
            1 => UploadPath::Direct,
            2 => UploadPath::Staging,
            u => {
                return Err(Error::InvalidOption(format!(
                    "upload {u} (0 auto, 1 direct, 2 staging)"
                )))
            }
        };
        let vk_opts = VkOptions::default()
            .with_device_index(usize::try_from(o.device_index).ok())
            .with_upload(upload)
            .with_no_fp64(o.no_fp64)
            .with_frames_in_flight(o.frames_in_flight as usize)
            .with_validation(o.validation);
        let engine = Engine::new(&vk_opts)?;
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = Box::into_raw(Box::new(VkssimEngine { engine })) };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// The host's C queue lock callbacks as a [`QueueLock`].
struct CQueueLock {
    lock: VkssimQueueLockFn,
    unlock: VkssimQueueLockFn,
    user: *mut c_void,
}

// SAFETY: the host promises (vkssim_engine_import's contract) that its
// callbacks may be called from any thread with its `user` pointer.
unsafe impl Send for CQueueLock {}
// SAFETY: as above.
unsafe impl Sync for CQueueLock {}

impl QueueLock for CQueueLock {
    fn lock(&self, family: u32, index: u32) {
        if let Some(f) = self.lock {
            // SAFETY: the host's callback, per its contract.
            unsafe { f(self.user, family, index) }
        }
    }
    fn unlock(&self, family: u32, index: u32) {
        if let Some(f) = self.unlock {
            // SAFETY: as above.
            unsafe { f(self.user, family, index) }
        }
    }
}

/// Creates an engine on the host's instance, device and queue (borrowed, never
/// destroyed). Refused when shader_int64 is false
/// (`VKSSIM_ERROR_MISSING_FEATURE`, the message names shaderInt64), or the
/// queue family has no compute.
///
/// # Safety
/// Every handle must be valid and belong together (the instance created
/// with apiVersion 1.1 or later), the feature flags must be
/// what the host enabled, the objects must outlive the engine and every scorer
/// made from it, and `lock_queue`/`unlock_queue` (if any) must be callable from
/// any thread. `out` must be a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_import(
    desc: *const VkssimImportDesc,
    out: *mut *mut VkssimEngine,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: the caller passes a valid struct or NULL.
        let d = unsafe { desc.as_ref() }.ok_or_else(|| null_arg("desc"))?;
        let features = EnabledFeatures::new(
            vk::PhysicalDeviceFeatures::default()
                .shader_int64(d.shader_int64)
                .shader_float64(d.shader_float64),
        )
        .with_timeline_semaphore(d.timeline_semaphore);
        let mut device_extensions = Vec::new();
        if d.timeline_semaphore {
            // The flag says the feature is on: on Vulkan 1.1 through the extension.
            device_extensions = extension_names(&[ash::khr::timeline_semaphore::NAME]);
        }
        // SAFETY: forwarded from the caller's contract.
        unsafe { import_engine(d, features, device_extensions, Vec::new(), out) }
    })
}

/// [`vkssim_engine_import`]'s work, with what the host enabled given apart
/// (also used by `vkssim_engine_import2`).
///
/// # Safety
/// As [`vkssim_engine_import`].
pub(crate) unsafe fn import_engine(
    d: &VkssimImportDesc,
    features: EnabledFeatures,
    device_extensions: Vec<CString>,
    instance_extensions: Vec<CString>,
    out: *mut *mut VkssimEngine,
) -> Result<VkssimStatus, Error> {
    {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        let gipa = d
            .get_instance_proc_addr
            .ok_or_else(|| null_arg("desc->get_instance_proc_addr"))?;
        if d.instance.is_null() || d.physical_device.is_null() || d.device.is_null() {
            return Err(null_arg("desc->instance, physical_device or device"));
        }
        // SAFETY: vkGetInstanceProcAddr's C signature; "system" is "C" on the
        // platforms Vulkan runs on with this ABI.
        let gipa: vk::PFN_vkGetInstanceProcAddr = unsafe { std::mem::transmute(gipa) };
        let static_fn = ash::StaticFn {
            get_instance_proc_addr: gipa,
        };
        // SAFETY: the host's loader entry point and handles, per the contract.
        let (entry, instance, device) = unsafe {
            let entry = ash::Entry::from_static_fn(static_fn.clone());
            let instance =
                ash::Instance::load(&static_fn, vk::Instance::from_raw(d.instance as u64));
            let device =
                ash::Device::load(instance.fp_v1_0(), vk::Device::from_raw(d.device as u64));
            (entry, instance, device)
        };
        if d.lock_queue.is_some() != d.unlock_queue.is_some() {
            return Err(Error::InvalidOption(
                "desc->lock_queue and desc->unlock_queue: give both or neither".into(),
            ));
        }
        let lock: Option<Arc<dyn QueueLock>> = if d.lock_queue.is_some() || d.unlock_queue.is_some()
        {
            Some(Arc::new(CQueueLock {
                lock: d.lock_queue,
                unlock: d.unlock_queue,
                user: d.lock_user,
            }))
        } else {
            None
        };
        let options = VkOptions::default()
            .with_no_fp64(d.no_fp64)
            .with_frames_in_flight(d.frames_in_flight as usize)
            .with_upload(UploadPath::Auto)
            .with_device_index(None)
            .with_validation(false);
        let physical_device = vk::PhysicalDevice::from_raw(d.physical_device as u64);
        let mut import = ImportDesc::new(entry, instance, physical_device, device, features);
        import.queue_family = d.queue_family;
        import.queue_index = d.queue_index;
        import.device_extensions = device_extensions;
        import.instance_extensions = instance_extensions;
        import.queue_lock = lock;
        import.options = options;
        // SAFETY: forwarded from the caller's contract.
        let engine = unsafe { Engine::import(import) }?;
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = Box::into_raw(Box::new(VkssimEngine { engine })) };
        Ok(VkssimStatus::VkssimOk)
    }
}

/// Copies the engine's device name (NUL-terminated, truncated to `len`) into
/// `buf`.
///
/// # Safety
/// `engine` must be a live engine; `buf` must hold `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_device_name(
    engine: *const VkssimEngine,
    buf: *mut c_char,
    len: usize,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        if buf.is_null() || len == 0 {
            return Err(null_arg("buf (or len 0)"));
        }
        let name = e.engine.device_name().as_bytes();
        let n = name.len().min(len - 1);
        // SAFETY: `buf` holds `len` bytes and `n < len`.
        unsafe {
            std::ptr::copy_nonoverlapping(name.as_ptr(), buf as *mut u8, n);
            *buf.add(n) = 0;
        }
        Ok(VkssimStatus::VkssimOk)
    })
}

/// The Vulkan objects behind an engine ([`vkssim_engine_device_handles`]):
/// borrowed, never to be destroyed by the caller.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimDeviceHandles {
    /// `vkGetInstanceProcAddr` of the loader vkssim uses.
    pub get_instance_proc_addr: VkssimGetInstanceProcAddr,
    /// The `VkInstance`.
    pub instance: *mut c_void,
    /// The `VkPhysicalDevice`.
    pub physical_device: *mut c_void,
    /// The `VkDevice`.
    pub device: *mut c_void,
    /// The queue family vkssim submits to.
    pub queue_family: u32,
    /// The `VkQueue` vkssim submits to: submit to it only through
    /// [`vkssim_engine_queue_submit`].
    pub queue: *mut c_void,
}

/// The engine's Vulkan objects, so that a host can create buffers and
/// semaphores on vkssim's own device for [`vkssim_scorer_submit_buffers`].
///
/// # Safety
/// `engine` must be a live engine and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_device_handles(
    engine: *const VkssimEngine,
    out: *mut VkssimDeviceHandles,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        let h = e.engine.device_handles();
        let gipa = h.entry.static_fn().get_instance_proc_addr;
        // SAFETY: the same function seen through its C signature ("system" is
        // "C" where this ABI is used).
        let gipa: unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void =
            unsafe { std::mem::transmute(gipa) };
        // SAFETY: `out` is valid per the contract.
        unsafe {
            *out = VkssimDeviceHandles {
                get_instance_proc_addr: Some(gipa),
                instance: h.instance.handle().as_raw() as *mut c_void,
                physical_device: h.physical_device.as_raw() as *mut c_void,
                device: h.device.handle().as_raw() as *mut c_void,
                queue_family: h.queue_family,
                queue: h.queue.as_raw() as *mut c_void,
            }
        };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Submits the host's own work to the engine's queue (`vkQueueSubmit` with
/// `submit_count` `VkSubmitInfo`s at `submits` and `fence`, 0 for none),
/// serialised with vkssim's submissions.
///
/// # Safety
/// `engine` must be a live engine; `submits` must point to `submit_count`
/// valid `VkSubmitInfo`s for the engine's device and queue family.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_queue_submit(
    engine: *const VkssimEngine,
    submit_count: u32,
    submits: *const c_void,
    fence: u64,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        if submits.is_null() && submit_count > 0 {
            return Err(null_arg("submits"));
        }
        let infos: &[vk::SubmitInfo<'_>] = if submit_count == 0 {
            &[]
        } else {
            // SAFETY: `submit_count` VkSubmitInfos per the contract; ash's
            // SubmitInfo is the C struct.
            unsafe {
                std::slice::from_raw_parts(
                    submits as *const vk::SubmitInfo<'_>,
                    submit_count as usize,
                )
            }
        };
        // SAFETY: forwarded from the caller's contract.
        unsafe { e.engine.queue_submit(infos, vk::Fence::from_raw(fence)) }?;
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Number of validation messages the engine's own instance collected (0 for
/// an imported one, or without validation).
///
/// # Safety
/// `engine` must be a live engine.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_validation_message_count(
    engine: *const VkssimEngine,
) -> usize {
    let r = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: per the contract.
        unsafe { engine.as_ref() }.map_or(0, |e| e.engine.validation_messages().len())
    }));
    r.unwrap_or(0)
}

/// Destroys an engine (NULL is ignored). Scorers made from it stay usable; the
/// device objects go when the last of them is destroyed too.
///
/// # Safety
/// `engine` must be NULL or a live engine, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_destroy(engine: *mut VkssimEngine) {
    if !engine.is_null() {
        // SAFETY: created by Box::into_raw, destroyed once per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(engine) })));
    }
}
