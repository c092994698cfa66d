//! The C API of vkssim, for C video tools (FFmpeg, GStreamer, libplacebo
//! users): create an engine on vkssim's own Vulkan device or import the host's,
//! create a scorer for one geometry, submit pairs from host memory or from the
//! host's `VkBuffer`s and `VkImage`s (`image`), poll or wait for results in
//! submission order, destroy.
//! The header, `include/vkssim.h`, is generated from this file by cbindgen.
//!
//! Every function returns a [`VkssimStatus`]; on an error the message is kept
//! per thread for [`vkssim_last_error`]. Every body runs under
//! `catch_unwind`, so no panic unwinds into C (it becomes
//! [`VkssimStatus::VkssimErrorPanic`]).

#![allow(clippy::missing_safety_doc)] // each function's doc has a "Safety" paragraph

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ash::vk;
use ash::vk::Handle;
use vkssim::api::{
    extension_names, DevicePlane, EnabledFeatures, Engine, HostPlane, ImportDesc, QueueLock,
    SampleFormat, Scorer, ScorerDesc,
};

mod image;
mod import;
pub use image::{
    vkssim_device_source_buffer, vkssim_device_source_image, vkssim_scorer_submit_sources,
    VkssimDeviceSource, VKSSIM_QUEUE_FAMILY_IGNORED, VKSSIM_SOURCE_BUFFER, VKSSIM_SOURCE_IMAGE,
};
pub use import::{vkssim_engine_import2, VkssimImportDesc2};
use vkssim::vk::{UploadPath, VkOptions};
use vkssim::{Error, FrameScore, SsimOptions};

/// What a call did.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VkssimStatus {
    /// Success (for poll and wait: a result was written).
    VkssimOk = 0,
    /// Poll: the oldest result is not ready yet.
    VkssimNotReady = 1,
    /// Poll or wait: nothing is queued.
    VkssimEmpty = 2,
    /// A null pointer, a bad value or a frame that does not match the scorer.
    VkssimErrorInvalidArgument = -1,
    /// No Vulkan loader, or no usable instance.
    VkssimErrorNoVulkan = -2,
    /// No usable Vulkan device.
    VkssimErrorNoDevice = -3,
    /// The device lacks (or the import did not enable) a required feature.
    VkssimErrorMissingFeature = -4,
    /// The device was lost.
    VkssimErrorDeviceLost = -5,
    /// The device ran out of memory.
    VkssimErrorOutOfDeviceMemory = -6,
    /// Another Vulkan failure.
    VkssimErrorVulkan = -7,
    /// Something vkssim does not support (bit depth, scale, options).
    VkssimErrorUnsupported = -8,
    /// The device failed vkssim's arithmetic self-test.
    VkssimErrorSelfTest = -9,
    /// A bug in vkssim (a Rust panic was caught at the boundary).
    VkssimErrorPanic = -10,
    /// Any other error.
    VkssimErrorOther = -11,
}

/// Options of an engine on vkssim's own device.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimEngineOptions {
    /// Device index as `vkssim devices` lists them; -1 picks the best device.
    pub device_index: i32,
    /// Pairs in flight per scorer; 0 for the default.
    pub frames_in_flight: u32,
    /// Use the exact software fp64 path even where shaderFloat64 exists.
    pub no_fp64: bool,
    /// Enable the Khronos validation layer (for tests).
    pub validation: bool,
    /// Upload path of host pairs: 0 auto, 1 direct, 2 staging.
    pub upload: u32,
}

/// A host's lock/unlock callback for a queue it shares across threads.
pub type VkssimQueueLockFn =
    Option<unsafe extern "C" fn(user: *mut c_void, queue_family: u32, queue_index: u32)>;

/// `vkGetInstanceProcAddr` as a plain C function pointer.
pub type VkssimGetInstanceProcAddr =
    Option<unsafe extern "C" fn(instance: *mut c_void, name: *const c_char) -> *mut c_void>;

/// The host's Vulkan objects for [`vkssim_engine_import`]. vkssim borrows them
/// and never destroys them.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimImportDesc {
    /// `vkGetInstanceProcAddr` of the loader the instance came from.
    pub get_instance_proc_addr: VkssimGetInstanceProcAddr,
    /// The host's `VkInstance`.
    pub instance: *mut c_void,
    /// The host's `VkPhysicalDevice`.
    pub physical_device: *mut c_void,
    /// The host's `VkDevice`.
    pub device: *mut c_void,
    /// Queue family vkssim submits to (needs compute).
    pub queue_family: u32,
    /// Queue index in that family.
    pub queue_index: u32,
    /// Whether the host enabled shaderInt64 (required: an import without it is
    /// refused with `VKSSIM_ERROR_MISSING_FEATURE`).
    pub shader_int64: bool,
    /// Whether the host enabled shaderFloat64.
    pub shader_float64: bool,
    /// Whether the host enabled timelineSemaphore (Vulkan 1.2).
    pub timeline_semaphore: bool,
    /// Called before each vkssim submission to the queue (may be NULL).
    pub lock_queue: VkssimQueueLockFn,
    /// Called after each vkssim submission to the queue (may be NULL).
    pub unlock_queue: VkssimQueueLockFn,
    /// Passed to `lock_queue` and `unlock_queue`.
    pub lock_user: *mut c_void,
    /// Pairs in flight per scorer; 0 for the default.
    pub frames_in_flight: u32,
    /// Use the exact software fp64 path even where shaderFloat64 is enabled.
    pub no_fp64: bool,
}

/// A scorer's geometry and float_ssim options.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimScorerDesc {
    /// Luma width.
    pub width: u32,
    /// Luma height.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// Decimation factor; 0 picks it as libvmaf does.
    pub scale: u32,
    /// Also compute float_ssim_l, _c and _s.
    pub enable_lcs: bool,
    /// Report float_ssim in dB.
    pub enable_db: bool,
    /// With enable_db, cap the dB figure as libvmaf's clip_db does.
    pub clip_db: bool,
    /// Pairs will come from the host's VkBuffers (vkssim_scorer_submit_buffers).
    pub device_frames: bool,
    /// Pairs in flight; 0 for the engine's default.
    pub frames_in_flight: u32,
}

/// One frame's result: libvmaf's fp32 values, held exactly in doubles.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct VkssimScore {
    /// The SSIM mean.
    pub ssim: f64,
    /// Mean luminance term (with enable_lcs; 0 otherwise).
    pub l: f64,
    /// Mean contrast term.
    pub c: f64,
    /// Mean structure term.
    pub s: f64,
    /// The SSIM in dB (valid when has_db).
    pub db: f64,
    /// Whether db holds a value (enable_db).
    pub has_db: bool,
    /// What libvmaf reports as float_ssim: db with enable_db, else ssim.
    pub float_ssim: f64,
}

/// A luma plane in one of the host's VkBuffers on the engine's device. Samples
/// are 1 byte (8-bit) or 2 little-endian bytes (above 8 bits), as the scorer's
/// bit depth says.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimDevicePlane {
    /// The `VkBuffer` (STORAGE_BUFFER and TRANSFER_SRC usage).
    pub buffer: u64,
    /// Bytes from the buffer's start to the first sample.
    pub offset: u64,
    /// Bytes between the starts of consecutive rows.
    pub row_pitch: u64,
}

/// A semaphore to wait on or signal: binary, or timeline at `value`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimSemaphore {
    /// The `VkSemaphore`.
    pub semaphore: u64,
    /// Whether it is a timeline semaphore.
    pub timeline: bool,
    /// The timeline value to wait for or to set (ignored for binary ones).
    pub value: u64,
}

/// An engine: a Vulkan device vkssim scores on. Opaque. Its functions may be
/// called from several threads at once (vkssim serialises its queue
/// submissions and memory allocations).
pub struct VkssimEngine {
    engine: Engine,
}

/// A scorer for one geometry and set of options. Opaque. It may move between
/// threads, but only one thread at a time may call its functions.
pub struct VkssimScorer {
    scorer: Scorer,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: String) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn status_of(e: &Error) -> VkssimStatus {
    use VkssimStatus::*;
    match e {
        Error::NoVulkan(_) => VkssimErrorNoVulkan,
        Error::NoDevice(_) | Error::NoSuchDevice { .. } => VkssimErrorNoDevice,
        Error::MissingFeature { .. } => VkssimErrorMissingFeature,
        Error::DeviceLost(_) => VkssimErrorDeviceLost,
        Error::OutOfDeviceMemory(_) => VkssimErrorOutOfDeviceMemory,
        Error::Vulkan { .. } => VkssimErrorVulkan,
        Error::Unsupported(_) | Error::ValidationLayerMissing => VkssimErrorUnsupported,
        Error::SelfTestFailed(_) => VkssimErrorSelfTest,
        Error::InvalidOption(_)
        | Error::BufferSize { .. }
        | Error::SampleRange { .. }
        | Error::GeometryMismatch(_)
        | Error::PlaneTooSmall { .. } => VkssimErrorInvalidArgument,
        _ => VkssimErrorOther,
    }
}

/// Runs `f`, turning an error or a panic into a status and a message.
fn guard(f: impl FnOnce() -> Result<VkssimStatus, Error>) -> VkssimStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            let s = status_of(&e);
            set_error(e.to_string());
            s
        }
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_error(format!("internal error (a bug in vkssim): panic: {what}"));
            VkssimStatus::VkssimErrorPanic
        }
    }
}

fn null_arg(what: &str) -> Error {
    Error::InvalidOption(format!("{what} is NULL"))
}

fn score_out(s: &FrameScore) -> VkssimScore {
    VkssimScore {
        ssim: s.ssim,
        l: s.l.unwrap_or(0.0),
        c: s.c.unwrap_or(0.0),
        s: s.s.unwrap_or(0.0),
        db: s.db.unwrap_or(0.0),
        has_db: s.db.is_some(),
        float_ssim: s.float_ssim(),
    }
}

/// The message of the last error on the calling thread ("" if none). Valid
/// until the next vkssim call on this thread.
#[no_mangle]
pub extern "C" fn vkssim_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A static name for a status value, e.g. "VKSSIM_ERROR_NO_DEVICE"
/// ("VKSSIM_UNKNOWN_STATUS" for a value that is none).
#[no_mangle]
// Byte strings, not `c""` literals: Debian 12's cbindgen (0.24) cannot parse those.
#[allow(clippy::manual_c_str_literals)]
pub extern "C" fn vkssim_status_name(status: i32) -> *const c_char {
    use VkssimStatus::*;
    let all = [
        VkssimOk,
        VkssimNotReady,
        VkssimEmpty,
        VkssimErrorInvalidArgument,
        VkssimErrorNoVulkan,
        VkssimErrorNoDevice,
        VkssimErrorMissingFeature,
        VkssimErrorDeviceLost,
        VkssimErrorOutOfDeviceMemory,
        VkssimErrorVulkan,
        VkssimErrorUnsupported,
        VkssimErrorSelfTest,
        VkssimErrorPanic,
        VkssimErrorOther,
    ];
    let Some(&status) = all.iter().find(|s| **s as i32 == status) else {
        return b"VKSSIM_UNKNOWN_STATUS\0".as_ptr() as *const c_char;
    };
    let s: &'static [u8] = match status {
        VkssimOk => b"VKSSIM_OK\0",
        VkssimNotReady => b"VKSSIM_NOT_READY\0",
        VkssimEmpty => b"VKSSIM_EMPTY\0",
        VkssimErrorInvalidArgument => b"VKSSIM_ERROR_INVALID_ARGUMENT\0",
        VkssimErrorNoVulkan => b"VKSSIM_ERROR_NO_VULKAN\0",
        VkssimErrorNoDevice => b"VKSSIM_ERROR_NO_DEVICE\0",
        VkssimErrorMissingFeature => b"VKSSIM_ERROR_MISSING_FEATURE\0",
        VkssimErrorDeviceLost => b"VKSSIM_ERROR_DEVICE_LOST\0",
        VkssimErrorOutOfDeviceMemory => b"VKSSIM_ERROR_OUT_OF_DEVICE_MEMORY\0",
        VkssimErrorVulkan => b"VKSSIM_ERROR_VULKAN\0",
        VkssimErrorUnsupported => b"VKSSIM_ERROR_UNSUPPORTED\0",
        VkssimErrorSelfTest => b"VKSSIM_ERROR_SELF_TEST\0",
        VkssimErrorPanic => b"VKSSIM_ERROR_PANIC\0",
        VkssimErrorOther => b"VKSSIM_ERROR_OTHER\0",
    };
    s.as_ptr() as *const c_char
}

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
        let vk_opts = VkOptions {
            device_index: usize::try_from(o.device_index).ok(),
            upload,
            no_fp64: o.no_fp64,
            frames_in_flight: o.frames_in_flight as usize,
            validation: o.validation,
            ..VkOptions::default()
        };
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
unsafe fn import_engine(
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
        let options = VkOptions {
            no_fp64: d.no_fp64,
            frames_in_flight: d.frames_in_flight as usize,
            upload: UploadPath::Auto,
            device_index: None,
            validation: false,
            ..VkOptions::default()
        };
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

/// Creates a scorer for one geometry and set of options.
///
/// # Safety
/// `engine` must be a live engine, `desc` a valid struct, `out` a valid
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_create(
    engine: *const VkssimEngine,
    desc: *const VkssimScorerDesc,
    out: *mut *mut VkssimScorer,
) -> VkssimStatus {
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        // SAFETY: per the contract.
        let d = unsafe { desc.as_ref() }.ok_or_else(|| null_arg("desc"))?;
        let mut sd = ScorerDesc::new(d.width, d.height, d.bit_depth);
        sd.ssim = SsimOptions {
            scale: d.scale,
            enable_lcs: d.enable_lcs,
            enable_db: d.enable_db,
            clip_db: d.clip_db,
        };
        sd.device_frames = d.device_frames;
        sd.frames_in_flight = d.frames_in_flight as usize;
        let scorer = e.engine.scorer(&sd)?;
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = Box::into_raw(Box::new(VkssimScorer { scorer })) };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Queues a pair from host memory, copied before the call returns. Samples are
/// `uint8_t` at 8 bits, `uint16_t` (native values, not shifted) above; strides
/// are in bytes and must be multiples of the sample size. Blocks while the
/// scorer's ring is full.
///
/// # Safety
/// `scorer` must be a live scorer; each plane must hold `height` rows of
/// `stride` bytes (the last one at least a row), suitably aligned for its
/// sample type.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_host(
    scorer: *mut VkssimScorer,
    reference: *const c_void,
    reference_stride: usize,
    distorted: *const c_void,
    distorted_stride: usize,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        if reference.is_null() || distorted.is_null() {
            return Err(null_arg("reference or distorted"));
        }
        let desc = *s.scorer.desc();
        let wide = desc.bit_depth > 8;
        let bps = if wide { 2 } else { 1 };
        let row = desc.width as usize * bps;
        let plane = |ptr: *const c_void,
                     stride: usize,
                     which: &str|
         -> Result<HostPlane<'_>, Error> {
            if stride < row || stride % bps != 0 {
                return Err(Error::InvalidOption(format!(
                    "{which} stride {stride} bytes: must be at least a row ({row} bytes) and a multiple of {bps}"
                )));
            }
            if wide && (ptr as usize) % 2 != 0 {
                return Err(Error::InvalidOption(format!(
                    "{which} plane is not 2-byte aligned"
                )));
            }
            let h = desc.height as usize;
            let len = if h == 0 { 0 } else { stride * (h - 1) + row };
            // SAFETY: the caller guarantees `len` readable bytes, aligned.
            Ok(unsafe {
                if wide {
                    HostPlane::u16(
                        std::slice::from_raw_parts(ptr as *const u16, len / 2),
                        stride / 2,
                    )
                } else {
                    HostPlane::u8(std::slice::from_raw_parts(ptr as *const u8, len), stride)
                }
            })
        };
        let r = plane(reference, reference_stride, "reference")?;
        let d = plane(distorted, distorted_stride, "distorted")?;
        s.scorer.submit_host(r, d)?;
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Queues a pair already on the device in the host's VkBuffers (zero-copy
/// when rows are packed and the offset aligned; otherwise copied on the
/// device). The pair's work waits for `waits` and signals `signals`. Needs a
/// scorer created with `device_frames`.
///
/// # Safety
/// `scorer` must be a live scorer; the buffers and semaphores valid objects of
/// the engine's device, holding the planes, not written until the pair is
/// done, and alive until the scorer is destroyed; `waits`/`signals` must point
/// to `n_waits`/`n_signals` structs (or be NULL with a count of 0).
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_buffers(
    scorer: *mut VkssimScorer,
    reference: *const VkssimDevicePlane,
    distorted: *const VkssimDevicePlane,
    waits: *const VkssimSemaphore,
    n_waits: usize,
    signals: *const VkssimSemaphore,
    n_signals: usize,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        // SAFETY: per the contract.
        let (r, d) = unsafe { (reference.as_ref(), distorted.as_ref()) };
        let (r, d) = r.zip(d).ok_or_else(|| null_arg("reference or distorted"))?;
        let format = if s.scorer.desc().bit_depth > 8 {
            SampleFormat::U16
        } else {
            SampleFormat::U8
        };
        let plane = |p: &VkssimDevicePlane| {
            DevicePlane::new(vk::Buffer::from_raw(p.buffer), p.row_pitch, format)
                .with_offset(p.offset)
        };
        // SAFETY: per the contract.
        let w = unsafe { image::semaphores(waits, n_waits, "waits") }?;
        // SAFETY: per the contract.
        let sg = unsafe { image::semaphores(signals, n_signals, "signals") }?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { s.scorer.submit_device(plane(r), plane(d), &w, &sg) }?;
        Ok(VkssimStatus::VkssimOk)
    })
}

fn take(scorer: *mut VkssimScorer, out: *mut VkssimScore, blocking: bool) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the callers' contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        let next = if blocking {
            s.scorer.wait()
        } else {
            s.scorer.poll()
        };
        match next {
            Some(r) => {
                let score = r?;
                // SAFETY: `out` is valid per the contract.
                unsafe { *out = score_out(&score) };
                Ok(VkssimStatus::VkssimOk)
            }
            None if s.scorer.in_flight() == 0 => Ok(VkssimStatus::VkssimEmpty),
            None => Ok(VkssimStatus::VkssimNotReady),
        }
    })
}

/// The oldest result if ready, without blocking: `VKSSIM_OK` (written to
/// `out`), `VKSSIM_NOT_READY`, or `VKSSIM_EMPTY` when nothing is queued.
///
/// # Safety
/// `scorer` must be a live scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_poll(
    scorer: *mut VkssimScorer,
    out: *mut VkssimScore,
) -> VkssimStatus {
    take(scorer, out, false)
}

/// The oldest result, waiting for it: `VKSSIM_OK` (written to `out`) or
/// `VKSSIM_EMPTY` when nothing is queued.
///
/// # Safety
/// `scorer` must be a live scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_wait(
    scorer: *mut VkssimScorer,
    out: *mut VkssimScore,
) -> VkssimStatus {
    take(scorer, out, true)
}

/// Pairs submitted whose result has not been taken (0 for NULL).
///
/// # Safety
/// `scorer` must be NULL or a live scorer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_in_flight(scorer: *const VkssimScorer) -> usize {
    // SAFETY: per the contract.
    unsafe { scorer.as_ref() }.map_or(0, |s| s.scorer.in_flight())
}

/// Destroys a scorer after its work finished (NULL is ignored); results not
/// taken are dropped.
///
/// # Safety
/// `scorer` must be NULL or a live scorer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_destroy(scorer: *mut VkssimScorer) {
    if !scorer.is_null() {
        // SAFETY: created by Box::into_raw, destroyed once per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(scorer) })));
    }
}
