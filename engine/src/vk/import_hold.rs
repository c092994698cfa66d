//! The hold an imported plane keeps on the host's object: one
//! [`ImportHold`] per import, shared by the import handle
//! (`crate::api::ImportedPlane`) and by every slot whose pair reads the plane
//! until that pair's fence signalled. When the last of them lets go, the
//! host's release callback runs (libplacebo's `pl_vulkan_hold`/`release`,
//! wgpu-hal's drop guard): from then on vkssim never touches the object, so
//! the host may destroy or reuse it.
//!
//! Each hold has an identity that is never reused, so that a slot's cached
//! descriptor binding is keyed by the import, not by a `VkBuffer` handle
//! value that Vulkan may hand out again for a new buffer.

use std::sync::{Arc, Mutex};

use super::image_input::ExternalSource;

/// What runs when vkssim lets go of an imported object.
pub(crate) type Release = Box<dyn FnOnce() + Send>;

/// See the module docs.
pub(crate) struct ImportHold {
    /// Never reused (from [`crate::identity::next`]).
    pub(crate) id: u64,
    /// The plane as the device reads it.
    pub(crate) source: ExternalSource,
    release: Mutex<Option<Release>>,
}

impl ImportHold {
    /// A hold on `source` with a fresh identity.
    pub(crate) fn new(source: ExternalSource) -> Arc<Self> {
        Arc::new(Self {
            id: crate::identity::next(),
            source,
            release: Mutex::new(None),
        })
    }

    /// Sets (or replaces) what runs when the last user lets go.
    pub(crate) fn set_release(&self, release: Release) {
        let mut slot = match self.release.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        *slot = Some(release);
    }
}

impl Drop for ImportHold {
    fn drop(&mut self) {
        let release = match self.release.get_mut() {
            Ok(r) => r.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(release) = release {
            release();
        }
    }
}

impl std::fmt::Debug for ImportHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportHold")
            .field("id", &self.id)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vk::scorer::ExternalPlane;
    use ash::vk;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn plane() -> ExternalSource {
        ExternalPlane {
            buffer: vk::Buffer::null(),
            offset: 0,
            row_pitch: 64,
        }
        .into()
    }

    #[test]
    fn release_runs_once_when_the_last_holder_lets_go() {
        let count = Arc::new(AtomicUsize::new(0));
        let hold = ImportHold::new(plane());
        let c = Arc::clone(&count);
        hold.set_release(Box::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        }));
        let in_flight = Arc::clone(&hold);
        drop(hold);
        assert_eq!(count.load(Ordering::SeqCst), 0, "a pair still reads it");
        drop(in_flight);
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn identities_are_never_reused() {
        let a = ImportHold::new(plane());
        let b = ImportHold::new(plane());
        assert_ne!(a.id, b.id);
    }
}
