//! What the C API's tests share: the calling thread's last error message,
//! assertions on a call's status, a scorer description, an engine.

use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};

use vkssim_capi::{
    vkssim_engine_create, vkssim_engine_options_default, vkssim_last_error, VkssimEngine,
    VkssimScorerDesc, VkssimStatus,
};

/// A C description of `(width, height, bit_depth)` with the metrics `features`
/// (kept alive by the caller) and `chroma` (420, 422, 444; 0: not given).
pub fn c_desc(
    (width, height, bit_depth): (u32, u32, u32),
    features: &[*const c_char],
    chroma: u32,
) -> VkssimScorerDesc {
    VkssimScorerDesc {
        width,
        height,
        bit_depth,
        scale: 0,
        enable_lcs: false,
        enable_db: false,
        clip_db: false,
        device_frames: false,
        frames_in_flight: 0,
        features: features.as_ptr(),
        n_features: features.len(),
        chroma,
        models: std::ptr::null(),
        n_models: 0,
        motion_version: std::ptr::null(),
    }
}

/// The calling thread's last C API error message.
pub fn last_error() -> String {
    // SAFETY: vkssim_last_error returns a NUL-terminated string valid until
    // the next call on this thread; it is copied at once.
    unsafe { CStr::from_ptr(vkssim_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Asserts that a C API call succeeded.
pub fn ok(status: VkssimStatus, what: &str) {
    assert_eq!(status, VkssimStatus::VkssimOk, "{what}: {}", last_error());
}

/// Asserts that a C API call was refused as an invalid argument with a
/// message holding every one of `words`.
pub fn refused(status: VkssimStatus, what: &str, words: &[&str]) {
    let msg = last_error();
    assert_eq!(
        status,
        VkssimStatus::VkssimErrorInvalidArgument,
        "{what} was not refused as an invalid argument (message: {msg})"
    );
    for w in words {
        assert!(msg.contains(w), "{what}: the message lacks `{w}`: {msg}");
    }
}

/// An engine on vkssim's own device with validation on.
pub fn engine_with_validation() -> *mut VkssimEngine {
    let mut options = vkssim_engine_options_default();
    options.validation = true;
    let mut engine = std::ptr::null_mut();
    // SAFETY: valid options and out pointer.
    ok(
        unsafe { vkssim_engine_create(&options, &mut engine) },
        "engine",
    );
    engine
}

/// The capi crate's directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding `libvkssim_capi.so`: the test binary sits in
/// `target/<profile>/deps`, the library in `target/<profile>`.
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory");
    for dir in [deps, deps.parent().expect("profile directory")] {
        if dir.join("libvkssim_capi.so").exists() {
            return dir.to_path_buf();
        }
    }
    panic!(
        "libvkssim_capi.so not found next to {} (cargo builds it with the tests)",
        deps.display()
    );
}

/// `LD_LIBRARY_PATH` with `lib` first, so that the C program loads the
/// library it was linked with: cargo's `LD_LIBRARY_PATH` (which outranks the
/// rpath) may name `target/<profile>` first, where the library is the last
/// `cargo build`'s, older than the one built with the test.
pub fn library_path_first(lib: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default();
    let dirs = std::iter::once(lib.to_path_buf()).chain(std::env::split_paths(&rest));
    std::env::join_paths(dirs).expect("LD_LIBRARY_PATH")
}
