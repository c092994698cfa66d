//! The C API of vkssim, for C video tools (FFmpeg, GStreamer, libplacebo
//! users): create an engine on vkssim's own Vulkan device or import the host's,
//! create a scorer for one geometry, submit pairs from host memory or from the
//! host's `VkBuffer`s and `VkImage`s (`image`), or against a reference plane
//! uploaded once and shared by the scorers of an encoding ladder (`shared`),
//! poll or wait for results in submission order, destroy.
//! The header, `include/vkssim.h`, is generated from this crate by cbindgen;
//! the functions live in `engine`, `scorer`, `shared`, `image` and `import`.
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
    extension_names, EnabledFeatures, Engine, HostPlane, ImportDesc, Pair, QueueLock, Scorer,
    ScorerDesc,
};

mod engine;
mod frame;
mod image;
mod import;
mod metrics;
mod multi;
mod scorer;
mod shared;
mod submit;
pub use engine::*;
pub use frame::*;
// The deprecated submit shorthands stay exported for C callers.
#[allow(deprecated)]
pub use image::{
    vkssim_device_source_buffer, vkssim_device_source_image, vkssim_scorer_submit_sources,
    VkssimDeviceSource, VKSSIM_QUEUE_FAMILY_IGNORED, VKSSIM_SOURCE_BUFFER, VKSSIM_SOURCE_IMAGE,
};
pub use import::{vkssim_engine_import2, VkssimImportDesc2};
#[allow(deprecated)]
pub use metrics::{vkssim_score_value, vkssim_scorer_submit_host_planes};
pub use multi::*;
pub use scorer::*;
pub use shared::*;
pub use submit::*;
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

/// A scorer's geometry, its metrics (float_ssim with the options below,
/// unless `features` lists others or `models` names VMAF models), the
/// frames' chroma layout and its VMAF models.
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
    /// Ignored (kept for the layout): every scorer of an engine takes
    /// device-resident pairs.
    pub device_frames: bool,
    /// Pairs in flight; 0 for the engine's default.
    pub frames_in_flight: u32,
    /// The metrics, as the vmaf command line's `--feature` values
    /// (`"psnr=enable_mse=true"`, `"float_ms_ssim"`, ...), in output order:
    /// `n_features` NUL-terminated strings, read during the call. NULL (or
    /// `n_features` 0): float_ssim with the options above.
    pub features: *const *const c_char,
    /// How many strings `features` holds.
    pub n_features: usize,
    /// The frames' chroma layout, for metrics that read chroma (psnr): 420,
    /// 422, 444 or 400 (luma only); 0: not given.
    pub chroma: u32,
    /// VMAF models, as the vmaf command line's `-m/--model` values
    /// (`"version=vmaf_v0.6.1"`, `"path=model.json:name=mine"`): `n_models`
    /// NUL-terminated strings, read during the call; NULL (or `n_models` 0):
    /// none. Their extractors are scored first, then `features` (then
    /// float_ssim is not added unless listed), and each result carries the
    /// models' outputs (`vmaf`, ...: `vkssim_score_value`). A frame's result
    /// then waits for the next frame's (motion), and the last for
    /// `vkssim_scorer_finish`.
    pub models: *const *const c_char,
    /// How many strings `models` holds.
    pub n_models: usize,
    /// Which libvmaf's `motion` the models' extractors and a `"motion"` of
    /// `features` compute, as the vmaf command line's `--motion-version`: a
    /// NUL-terminated `"2.3.1"` or `"3.2.0"`, read during the call; NULL:
    /// libvmaf 2.3.1's (the default). libvmaf 3.2.0's blurs the frame
    /// difference, so its `integer_motion2`, and every model's score, differ
    /// from 2.3.1's; its results also carry
    /// `VMAF_integer_feature_motion_sad_score` and `integer_motion3`.
    /// (Added after `n_models`: a caller built against an older header must
    /// be rebuilt.)
    pub motion_version: *const c_char,
}

/// One value of a frame's result: its libvmaf name (a static string, valid
/// for the life of the process) and its value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimOutput {
    /// libvmaf's name (`psnr_y`, `float_ms_ssim`, ...).
    pub name: *const c_char,
    /// The value (NaN where libvmaf reports one).
    pub value: f64,
}

/// Most values a `VkssimScore` holds. A scorer whose frames carry more
/// (VMAF with several features and models) gives its results as frames
/// (`vkssim_scorer_wait_frame`: any number of values); its poll and wait into
/// a `VkssimScore` are refused, before a result is taken.
pub const VKSSIM_MAX_OUTPUTS: usize = 40;

/// One frame's result in a fixed struct: float_ssim's fields (kept for the
/// callers written before the other metrics; without float_ssim, `ssim` and
/// `float_ssim` are NaN and the others 0), then
/// every value of every metric by name, in the vmaf command line's order
/// (`outputs`; see also `vkssim_score_value`), at most
/// `VKSSIM_MAX_OUTPUTS`. `VkssimFrame` holds any number.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
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
    /// How many of `outputs` hold values.
    pub n_outputs: u32,
    /// Every value the scorer's metrics report, in output order.
    pub outputs: [VkssimOutput; VKSSIM_MAX_OUTPUTS],
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
    /// The engine it runs on (`None`: the CPU twin), for the imports of the
    /// shorthand device submissions.
    engine: Option<Engine>,
    /// Device sources imported by those shorthands, kept while the scorer
    /// lives (their contract).
    imports: std::collections::HashMap<VkssimDeviceSource, vkssim::api::ImportedPlane>,
    /// The most values a result carries (`metrics::values_per_frame`).
    values_per_frame: usize,
}

impl VkssimScorer {
    /// `scorer` as a C handle.
    fn boxed(scorer: Scorer, engine: Option<Engine>) -> *mut VkssimScorer {
        let values_per_frame = metrics::values_per_frame(scorer.desc());
        Box::into_raw(Box::new(VkssimScorer {
            scorer,
            engine,
            imports: Default::default(),
            values_per_frame,
        }))
    }
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
        Error::Vulkan { .. } | Error::Allocation { .. } | Error::NotMapped(_) => VkssimErrorVulkan,
        Error::Unsupported(_) | Error::ValidationLayerMissing => VkssimErrorUnsupported,
        Error::SelfTestFailed(_) => VkssimErrorSelfTest,
        Error::InvalidOption(_)
        | Error::BufferSize { .. }
        | Error::SampleRange { .. }
        | Error::GeometryMismatch(_)
        | Error::PlaneTooSmall { .. }
        | Error::FrameTooSmall { .. } => VkssimErrorInvalidArgument,
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

impl Default for VkssimScore {
    fn default() -> Self {
        VkssimScore {
            ssim: 0.0,
            float_ssim: 0.0,
            ..score_out(&FrameScore::empty())
        }
    }
}

fn score_out(s: &FrameScore) -> VkssimScore {
    VkssimScore {
        ssim: s.ssim(),
        l: s.l().unwrap_or(0.0),
        c: s.c().unwrap_or(0.0),
        s: s.s().unwrap_or(0.0),
        db: s.db().unwrap_or(0.0),
        has_db: s.db().is_some(),
        float_ssim: s.float_ssim(),
        n_outputs: s.outputs.len() as u32,
        outputs: metrics::outputs_of(s),
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
