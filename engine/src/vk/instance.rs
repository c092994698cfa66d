//! The Vulkan instance: the loader, the optional Khronos validation layer with
//! synchronization validation, and a debug-utils messenger that collects every
//! warning and error so that tests can fail on any of them.

use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex, OnceLock};

use ash::{ext, vk};

use super::errors::vk_ctx;
use crate::{Error, Result};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Validation messages collected by the debug messenger (warnings and errors).
pub type MessageLog = Arc<Mutex<Vec<String>>>;

/// The Vulkan loader, loaded once per process and never unloaded: NVIDIA's
/// driver (580.x, H200) answers `ERROR_INCOMPATIBLE_DRIVER` after the loader has
/// been loaded and unloaded a few dozen times in one process.
fn loader() -> Result<ash::Entry> {
    static LOADER: OnceLock<std::result::Result<ash::Entry, String>> = OnceLock::new();
    LOADER
        .get_or_init(|| {
            // SAFETY: loading the system's libvulkan runs its initialisers; that is
            // the documented way to use the loader, and it is done once.
            unsafe { ash::Entry::load() }.map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| Error::NoVulkan(format!("cannot load the Vulkan loader ({e})")))
}

/// The error for a loader call made while `doing`, before any device exists:
/// running out of host memory or failing to initialise there means the
/// loader's configuration is broken (a malformed driver or layer manifest makes
/// Debian 12's loader answer `ERROR_OUT_OF_HOST_MEMORY`), which is
/// [`Error::NoVulkan`].
fn loader_error(result: vk::Result, doing: &str) -> Error {
    match result {
        vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_INITIALIZATION_FAILED => {
            Error::NoVulkan(format!(
                "the Vulkan loader failed while {doing} ({result:?}); a driver or layer \
                 manifest (JSON) may be malformed (VK_LOADER_DEBUG=error shows the \
                 loader's messages)"
            ))
        }
        r => super::errors::vk_error(r, doing),
    }
}

/// An owned Vulkan instance with its optional debug messenger.
pub struct Instance {
    /// The loader's entry points (kept alive as long as the instance).
    pub(crate) entry: ash::Entry,
    /// The instance.
    pub(crate) raw: ash::Instance,
    /// debug-utils, when the extension is enabled (object names, messenger).
    pub(crate) debug_utils: Option<ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    /// Boxed so the pointer given to the messenger stays valid.
    log: Box<MessageLog>,
    /// Borrowed from a host application ([`Instance::from_raw`]): never destroyed.
    borrowed: bool,
}

impl Instance {
    /// Loads libvulkan and creates an instance (Vulkan 1.1). With `validation`,
    /// enables `VK_LAYER_KHRONOS_validation` with synchronization validation and
    /// fails if the layer is not installed.
    pub fn new(validation: bool) -> Result<Self> {
        // Start-up phases are spans, so a trace shows where start-up goes.
        let _span = tracing::debug_span!("start: vulkan instance").entered();
        let entry = loader()?;
        // SAFETY: the entry is valid; the call has no preconditions.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(vk_ctx("asking the Vulkan loader's version"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_1 {
            return Err(Error::NoVulkan(format!(
                "the Vulkan loader supports only {}.{}; vkssim needs Vulkan 1.1",
                vk::api_version_major(version),
                vk::api_version_minor(version)
            )));
        }
        // SAFETY: as above.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }
            .map_err(|r| loader_error(r, "listing Vulkan layers"))?;
        let has_layer = layers
            .iter()
            .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
        if validation && !has_layer {
            return Err(Error::ValidationLayerMissing);
        }
        // SAFETY: as above.
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(|r| loader_error(r, "listing Vulkan instance extensions"))?;
        let has_ext = |name: &CStr| {
            extensions
                .iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };
        let debug_utils = has_ext(ext::debug_utils::NAME) || validation;
        let mut enabled_ext = Vec::new();
        if debug_utils {
            enabled_ext.push(ext::debug_utils::NAME.as_ptr());
        }
        let mut enabled_layers = Vec::new();
        if validation {
            enabled_layers.push(VALIDATION_LAYER.as_ptr());
            enabled_ext.push(ext::validation_features::NAME.as_ptr());
        }

        let log: Box<MessageLog> = Box::new(Arc::new(Mutex::new(Vec::new())));
        let user_data = &*log as *const MessageLog as *mut c_void;
        let messenger_info = || {
            vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(debug_callback))
                .user_data(user_data)
        };
        // A messenger in the instance's chain reports instance creation itself.
        let mut creation_messenger = messenger_info();
        let enabled_features = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation_features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_features);

        let app = vk::ApplicationInfo::default()
            .application_name(c"vkssim")
            .engine_name(c"vkssim")
            .api_version(vk::API_VERSION_1_1);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&enabled_layers)
            .enabled_extension_names(&enabled_ext);
        if validation {
            info = info
                .push_next(&mut validation_features)
                .push_next(&mut creation_messenger);
        }
        // SAFETY: every pointer in `info` refers to locals that outlive the call;
        // the messenger's user data points into `log`, which the instance owns.
        let raw = unsafe { entry.create_instance(&info, None) }.map_err(|r| match r {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::NoDevice(
                "the Vulkan loader found no compatible driver (ERROR_INCOMPATIBLE_DRIVER); \
                 install a Vulkan driver (mesa-vulkan-drivers, or the GPU vendor's)"
                    .into(),
            ),
            r => loader_error(r, "creating the Vulkan instance"),
        })?;

        let (debug_utils, messenger) = if debug_utils {
            let du = ext::debug_utils::Instance::new(&entry, &raw);
            let messenger = if validation {
                // SAFETY: the instance is valid and `messenger_info`'s user data
                // (the boxed log) lives as long as the instance.
                match unsafe { du.create_debug_utils_messenger(&messenger_info(), None) } {
                    Ok(m) => m,
                    Err(r) => {
                        // SAFETY: nothing was created from the instance yet.
                        unsafe { raw.destroy_instance(None) };
                        return Err(super::errors::vk_error(
                            r,
                            "creating the debug-utils messenger",
                        ));
                    }
                }
            } else {
                vk::DebugUtilsMessengerEXT::null()
            };
            (Some(du), messenger)
        } else {
            (None, vk::DebugUtilsMessengerEXT::null())
        };
        Ok(Self {
            entry,
            raw,
            debug_utils,
            messenger,
            log,
            borrowed: false,
        })
    }

    /// Wraps a host application's instance without taking ownership: dropping
    /// the wrapper destroys nothing. No debug-utils functions are used (the host
    /// may not have enabled the extension) and no messages are collected.
    ///
    /// # Safety
    /// `raw` must be a valid instance created through `entry`, and must outlive
    /// the wrapper and everything created from it.
    pub(crate) unsafe fn from_raw(entry: ash::Entry, raw: ash::Instance) -> Self {
        Self {
            entry,
            raw,
            debug_utils: None,
            messenger: vk::DebugUtilsMessengerEXT::null(),
            log: Box::new(Arc::new(Mutex::new(Vec::new()))),
            borrowed: true,
        }
    }

    /// The process-wide instance with validation on or off, created on first
    /// use and kept (see [`super::context`] for why).
    pub fn shared(validation: bool) -> Result<Arc<Self>> {
        static CACHE: Mutex<Vec<(bool, Arc<Instance>)>> = Mutex::new(Vec::new());
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, i)) = cache.iter().find(|(v, _)| *v == validation) {
            return Ok(Arc::clone(i));
        }
        let instance = Arc::new(Self::new(validation)?);
        cache.push((validation, Arc::clone(&instance)));
        Ok(instance)
    }

    /// The shared log of validation messages (empty without validation).
    pub fn messages(&self) -> MessageLog {
        Arc::clone(&self.log)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if self.borrowed {
            return;
        }
        let _span = tracing::debug_span!("end: vulkan instance").entered();
        // SAFETY: the owner destroyed the device and every other child first; the
        // messenger and instance are destroyed once, messenger first.
        unsafe {
            if let Some(du) = &self.debug_utils {
                if self.messenger != vk::DebugUtilsMessengerEXT::null() {
                    du.destroy_debug_utils_messenger(self.messenger, None);
                }
            }
            self.raw.destroy_instance(None);
        }
        let _ = &self.entry;
    }
}

/// The debug-utils callback: appends warnings and errors to the instance's log
/// and mirrors them to tracing.
unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes a valid callback-data pointer (or null) for the
    // duration of the call.
    let message = unsafe { data.as_ref() }
        .and_then(|d| {
            // SAFETY: `p_message` is a NUL-terminated string when non-null.
            (!d.p_message.is_null()).then(|| unsafe { CStr::from_ptr(d.p_message) })
        })
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    let line = format!("{severity:?} {kind:?}: {message}");
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        tracing::error!(target: "vkssim::vk::validation", "{line}");
    } else {
        tracing::warn!(target: "vkssim::vk::validation", "{line}");
    }
    // SAFETY: `user` is the `MessageLog` the instance boxed and keeps alive.
    if let Some(log) = unsafe { (user as *const MessageLog).as_ref() } {
        if let Ok(mut log) = log.lock() {
            log.push(line);
        }
    }
    vk::FALSE
}
