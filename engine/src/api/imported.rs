//! Importing the host's device planes once: [`Engine::import_buffer`] and
//! [`Engine::import_image`] check a [`DevicePlane`] or [`ImagePlane`] against
//! the device and return an [`ImportedPlane`], the handle every later pair
//! names it by ([`super::Pair`]). The handle owns what vkssim keeps for the
//! plane (its checked description and the identity the scorers' descriptor
//! bindings are keyed by) and never the host's object; the host learns when
//! vkssim has let go of the object through [`ImportedPlane::on_release`]
//! (wgpu-hal's drop guard, libplacebo's hold and release) or
//! [`ImportedPlane::in_use`].

use std::sync::{Arc, Weak};

use ash::vk;

use super::engine::Engine;
use super::image::{luma_format, ImagePlane};
use super::plane::{DevicePlane, SampleFormat};
use crate::vk::context::Gpu;
use crate::vk::image_input::{ExternalImage, ExternalSource};
use crate::vk::import_hold::ImportHold;
use crate::vk::scorer::ExternalPlane;
use crate::{Error, Result};

/// The samples an imported plane holds, for the per-pair check against a
/// scorer's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ImportedSamples {
    /// Bytes per sample (1 or 2).
    pub(super) bytes: u64,
    /// The bit depth the samples imply, 0 when any the size allows.
    pub(super) bit_depth: u32,
    /// A buffer's row pitch in bytes; `None` for an image.
    pub(super) row_pitch: Option<u64>,
}

/// A plane of the host's on the engine's device, imported once (see the
/// module docs), named by every pair that reads it ([`super::Pair::new`]).
///
/// Dropping the handle never destroys the host's buffer or image; vkssim lets
/// go of it when the handle is dropped *and* every pair submitted with it is
/// done (its fence signalled: its result can be taken). Then the callback of
/// [`ImportedPlane::on_release`] runs, once, on the thread that let go last.
///
/// `Send` and `Sync`; cloning is cheap (the clones are one import).
#[derive(Clone)]
pub struct ImportedPlane {
    pub(super) hold: Arc<ImportHold>,
    /// The engine's device, to refuse the plane on another one; weak, so
    /// that a handle never keeps a device alive (an imported device may be
    /// destroyed by its host once the engine and scorers are gone).
    pub(super) gpu: Weak<Gpu>,
    pub(super) samples: ImportedSamples,
    /// The image's array layer, to refuse one layer as both planes.
    pub(super) image_layer: Option<(vk::Image, u32)>,
}

impl ImportedPlane {
    /// Runs `release` once vkssim no longer uses the host's object: after
    /// this handle (and its clones) dropped and every pair that read the
    /// plane is done. A second call replaces the first callback.
    ///
    /// ```no_run
    /// # fn demo(engine: &vkssim::api::Engine, buffer: ash::vk::Buffer) -> vkssim::Result<()> {
    /// use vkssim::api::{DevicePlane, SampleFormat};
    /// // SAFETY: `buffer` is a valid buffer of the engine's device (doc example).
    /// let plane = unsafe { engine.import_buffer(DevicePlane::new(buffer, 1920, SampleFormat::U8))? };
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// plane.on_release(move || tx.send(()).unwrap());
    /// drop(plane);
    /// rx.recv().unwrap(); // now the buffer may be destroyed
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_release(&self, release: impl FnOnce() + Send + 'static) {
        self.hold.set_release(Box::new(release));
    }

    /// Whether a pair in flight still reads the plane (or another clone of
    /// this handle is alive).
    pub fn in_use(&self) -> bool {
        Arc::strong_count(&self.hold) > 1
    }
}

impl std::fmt::Debug for ImportedPlane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportedPlane")
            .field("source", &self.hold.source)
            .field("in_use", &self.in_use())
            .finish()
    }
}

impl Engine {
    /// Imports a plane of one of the host's buffers (see [`DevicePlane`]).
    ///
    /// Errors ([`Error::InvalidOption`]): a null buffer, a row pitch of 0, a
    /// queue family the device does not have.
    ///
    /// # Safety
    /// `plane.buffer` must be a valid buffer of this engine's device with the
    /// usage [`DevicePlane`] asks for, holding the plane (`offset + row_pitch
    /// * (height - 1)` plus one row of the scorers it is given to, rounded up
    /// to 4 bytes when read in place), and must stay alive until vkssim lets
    /// go of it ([`ImportedPlane::on_release`]).
    pub unsafe fn import_buffer(&self, plane: DevicePlane) -> Result<ImportedPlane> {
        let bad = |what: String| Error::InvalidOption(format!("an imported buffer plane {what}"));
        if plane.buffer == vk::Buffer::null() {
            return Err(bad("is VK_NULL_HANDLE".into()));
        }
        if plane.row_pitch == 0 {
            return Err(bad("has a row pitch of 0".into()));
        }
        let owner = self.owner(plane.queue_family, &bad)?;
        let source = ExternalSource::Buffer {
            plane: ExternalPlane {
                buffer: plane.buffer,
                offset: plane.offset,
                row_pitch: plane.row_pitch,
            },
            owner,
        };
        let bytes = match plane.format {
            SampleFormat::U8 => 1,
            SampleFormat::U16 => 2,
        };
        Ok(ImportedPlane {
            hold: ImportHold::new(source),
            gpu: Arc::downgrade(self.gpu()),
            samples: ImportedSamples {
                bytes,
                bit_depth: 0,
                row_pitch: Some(plane.row_pitch),
            },
            image_layer: None,
        })
    }

    /// Imports plane 0 (luma) of one of the host's images (see
    /// [`ImagePlane`]).
    ///
    /// Errors ([`Error::InvalidOption`]): a format vkssim does not read
    /// ([`super::image_format_supported`]), an `msb_bits` the format cannot
    /// take, a null image, `UNDEFINED` layouts, a queue family the device
    /// does not have.
    ///
    /// # Safety
    /// `plane.image` must be a valid image of this engine's device with
    /// `TRANSFER_SRC` usage, a plane 0 of at least the width x height of the
    /// scorers it is given to and `array_layer` within its layers, and must
    /// stay alive until vkssim lets go of it ([`ImportedPlane::on_release`]).
    /// Each pair's waits must leave it in `layout` (every plane: vkssim
    /// transitions and transfers the whole image); with a queue family other
    /// than the engine's, the host submits the matching release before each
    /// pair and acquire after.
    pub unsafe fn import_image(&self, plane: ImagePlane) -> Result<ImportedPlane> {
        let bad = |what: String| Error::InvalidOption(format!("an imported image plane {what}"));
        let Some(mut f) = luma_format(plane.format) else {
            return Err(bad(format!(
                "is a {:?} image; vkssim reads R8, R16, R10X6, R12X4 and the \
                 8, 10X6, 12X4 and 16-bit multi-planar formats",
                plane.format
            )));
        };
        match plane.msb_bits {
            0 => {}
            b if b == f.bit_depth => {}
            b @ (10 | 12) if f.bytes == 2 && f.bit_depth == 0 => {
                f.shift = 16 - b;
                f.bit_depth = b;
            }
            b => {
                return Err(bad(format!(
                    "is a {:?} image with msb_bits {b}; only 16-bit formats without \
                     padding take 10 or 12",
                    plane.format
                )))
            }
        }
        if plane.image == vk::Image::null() {
            return Err(bad("is VK_NULL_HANDLE".into()));
        }
        let undefined = [vk::ImageLayout::UNDEFINED, vk::ImageLayout::PREINITIALIZED];
        if plane.layout == vk::ImageLayout::UNDEFINED || undefined.contains(&plane.final_layout) {
            return Err(bad(format!(
                "has layout {:?} -> {:?}; an image's contents are lost in UNDEFINED and \
                 it cannot return to PREINITIALIZED",
                plane.layout, plane.final_layout
            )));
        }
        let owner = self.owner(plane.queue_family, &bad)?;
        let source = ExternalSource::Image(ExternalImage {
            image: plane.image,
            aspect: f.aspect,
            array_layer: plane.array_layer,
            layout: plane.layout,
            final_layout: plane.final_layout,
            owner,
            shift: f.shift,
        });
        Ok(ImportedPlane {
            hold: ImportHold::new(source),
            gpu: Arc::downgrade(self.gpu()),
            samples: ImportedSamples {
                bytes: f.bytes,
                bit_depth: f.bit_depth,
                row_pitch: None,
            },
            image_layer: Some((plane.image, plane.array_layer)),
        })
    }

    /// The family an import is acquired from: `None` when no transfer is
    /// needed (ignored, or the engine's own family).
    fn owner(&self, family: u32, bad: &dyn Fn(String) -> Error) -> Result<Option<u32>> {
        let gpu = self.gpu();
        let engine_family = gpu.device.compute_family;
        let families = gpu.device.info.families.len() as u32;
        if family == vk::QUEUE_FAMILY_IGNORED || family == engine_family {
            Ok(None)
        } else if family >= families {
            Err(bad(format!(
                "names queue family {family}; the device has {families}"
            )))
        } else {
            Ok(Some(family))
        }
    }
}

impl ImportedSamples {
    /// `None` when the plane fits a scorer of `width` samples at
    /// `bit_depth`, else what is wrong.
    pub(super) fn misfit(&self, width: u32, bit_depth: u32) -> Option<String> {
        let fits = if self.bit_depth != 0 {
            self.bit_depth == bit_depth
        } else {
            (self.bytes == 1) == (bit_depth <= 8)
        };
        if !fits {
            let samples = match (self.bit_depth, self.bytes) {
                (0, 1) => "8-bit samples".to_string(),
                (0, _) => "16-bit words".to_string(),
                (b, _) => format!("{b}-bit samples"),
            };
            return Some(format!(
                "holds {samples} but the scorer takes {bit_depth}-bit video"
            ));
        }
        let row = width as u64 * self.bytes;
        match self.row_pitch {
            Some(pitch) if pitch < row => Some(format!(
                "has a row pitch of {pitch} bytes, shorter than a row ({row} bytes)"
            )),
            _ => None,
        }
    }
}

/// Compile-time proof of the `Send`/`Sync` claim in the docs.
#[allow(dead_code)]
fn assert_thread_safety() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ImportedPlane>();
}
