//! Device-resident pairs beyond packed shared buffers: luma in the host's
//! `VkImage`s ([`ImagePlane`]: plane 0 of NV12/P010-style multi-planar images
//! or a single-plane `R8`/`R16`/`R10X6`/`R12X4` image) and buffers in
//! `EXCLUSIVE` sharing owned by another queue family ([`ExclusiveBufferPlane`]),
//! with vkssim doing the ownership acquire and release and the layout
//! transitions, the way libplacebo's `pl_vulkan_release`/`pl_vulkan_hold` and
//! FFmpeg's `AVVkFrame` hand images between queues. [`DeviceSource`] names any
//! of them for [`Scorer::submit_sources`]; [`Scorer::submit_images`] is the
//! image-only shorthand.

use ash::vk;

use super::plane::{DevicePlane, SampleFormat, SemaphoreRef};
use super::scorer::Scorer;
use crate::vk::image_input::{ExternalImage, ExternalSource};
use crate::vk::scorer::{ExternalPlane, ExternalSemaphore};
use crate::{Error, Result};

/// How plane 0 of an image format holds luma.
struct LumaFormat {
    aspect: vk::ImageAspectFlags,
    /// Bytes per sample (1 or 2).
    bytes: u64,
    /// Right shift to the sample value (0, 4 or 6), with the bit depth it
    /// implies (0: any the sample size allows).
    shift: u32,
    bit_depth: u32,
}

/// The luma layout of `format`, `None` when vkssim does not read it.
fn luma_format(format: vk::Format) -> Option<LumaFormat> {
    use vk::Format as F;
    let (single, bytes, shift, bit_depth) = match format {
        F::R8_UNORM => (true, 1, 0, 8),
        F::R16_UNORM => (true, 2, 0, 0),
        F::R10X6_UNORM_PACK16 => (true, 2, 6, 10),
        F::R12X4_UNORM_PACK16 => (true, 2, 4, 12),
        F::G8_B8R8_2PLANE_420_UNORM
        | F::G8_B8R8_2PLANE_422_UNORM
        | F::G8_B8R8_2PLANE_444_UNORM
        | F::G8_B8_R8_3PLANE_420_UNORM
        | F::G8_B8_R8_3PLANE_422_UNORM
        | F::G8_B8_R8_3PLANE_444_UNORM => (false, 1, 0, 8),
        F::G16_B16R16_2PLANE_420_UNORM
        | F::G16_B16R16_2PLANE_422_UNORM
        | F::G16_B16R16_2PLANE_444_UNORM
        | F::G16_B16_R16_3PLANE_420_UNORM
        | F::G16_B16_R16_3PLANE_422_UNORM
        | F::G16_B16_R16_3PLANE_444_UNORM => (false, 2, 0, 0),
        F::G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16
        | F::G10X6_B10X6R10X6_2PLANE_422_UNORM_3PACK16
        | F::G10X6_B10X6R10X6_2PLANE_444_UNORM_3PACK16
        | F::G10X6_B10X6_R10X6_3PLANE_420_UNORM_3PACK16
        | F::G10X6_B10X6_R10X6_3PLANE_422_UNORM_3PACK16
        | F::G10X6_B10X6_R10X6_3PLANE_444_UNORM_3PACK16 => (false, 2, 6, 10),
        F::G12X4_B12X4R12X4_2PLANE_420_UNORM_3PACK16
        | F::G12X4_B12X4R12X4_2PLANE_422_UNORM_3PACK16
        | F::G12X4_B12X4R12X4_2PLANE_444_UNORM_3PACK16
        | F::G12X4_B12X4_R12X4_3PLANE_420_UNORM_3PACK16
        | F::G12X4_B12X4_R12X4_3PLANE_422_UNORM_3PACK16
        | F::G12X4_B12X4_R12X4_3PLANE_444_UNORM_3PACK16 => (false, 2, 4, 12),
        _ => return None,
    };
    Some(LumaFormat {
        aspect: if single {
            vk::ImageAspectFlags::COLOR
        } else {
            vk::ImageAspectFlags::PLANE_0
        },
        bytes,
        shift,
        bit_depth,
    })
}

/// Whether [`ImagePlane`] takes images of `format` (the single-plane and
/// multi-planar 8, 10X6, 12X4 and 16-bit formats listed in the module docs).
///
/// ```no_run
/// assert!(vkssim::api::image_format_supported(ash::vk::Format::G8_B8R8_2PLANE_420_UNORM));
/// ```
pub fn image_format_supported(format: vk::Format) -> bool {
    luma_format(format).is_some()
}

/// Plane 0 (luma) of one of the host's `VkImage`s on the engine's device: mip
/// level 0 of `array_layer`, its top-left `width x height` samples read.
///
/// Samples: `R8_UNORM` and the `G8_...` formats for 8-bit scorers;
/// `R10X6_UNORM_PACK16` and `G10X6_...` (P010) for 10-bit scorers, each
/// sample shifted right by 6; `R12X4_UNORM_PACK16` and `G12X4_...` for 12-bit
/// ones, shifted by 4; `R16_UNORM` and `G16_...` for 10, 12 or 16-bit scorers,
/// the values taken as they are (above the bit depth: the pair's result is
/// [`crate::Error::SampleRange`], as for [`DevicePlane`]).
///
/// The image needs `TRANSFER_SRC` usage. vkssim copies the plane on the device
/// (never through the host): it moves the image from `layout` to
/// `TRANSFER_SRC_OPTIMAL` and then to `final_layout`. When `queue_family` is
/// not `VK_QUEUE_FAMILY_IGNORED` and differs from the engine's queue family
/// (an `EXCLUSIVE` image owned by the host's queue), vkssim records the
/// acquire (`queue_family` to the engine's, `oldLayout = newLayout = layout`)
/// and, after the copy, the release back (`oldLayout = newLayout =
/// final_layout`); the host must have submitted the matching release before
/// the pair's wait semaphores signal, and record the matching acquire after
/// the pair's signal.
///
/// ```no_run
/// use ash::vk;
/// use vkssim::api::ImagePlane;
/// # let (image, decode_family) = (vk::Image::null(), 3);
/// let luma = ImagePlane::new(image, vk::Format::G8_B8R8_2PLANE_420_UNORM, vk::ImageLayout::VIDEO_DECODE_DPB_KHR)
///     .with_queue_family(decode_family);
/// # let _ = luma;
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImagePlane {
    /// The host's image.
    pub image: vk::Image,
    /// Its format (one [`image_format_supported`] accepts).
    pub format: vk::Format,
    /// The layout it is in when the pair's work starts (not `UNDEFINED`).
    pub layout: vk::ImageLayout,
    /// The layout to leave it in (not `UNDEFINED` or `PREINITIALIZED`).
    pub final_layout: vk::ImageLayout,
    /// The queue family that owns it, or `VK_QUEUE_FAMILY_IGNORED` when no
    /// ownership transfer is needed (`CONCURRENT` images, or owned by the
    /// engine's family).
    pub queue_family: u32,
    /// The array layer holding the frame.
    pub array_layer: u32,
    /// For `R16_UNORM` and `G16_...` images whose 16-bit samples hold 10 or
    /// 12-bit values in their top bits (P010 stored as `R16_UNORM` planes, as
    /// FFmpeg's Vulkan frames may be): 10 or 12, and each sample is shifted
    /// right by `16 - msb_bits`. 0: the format says (`R10X6`: 10, `R12X4`: 12,
    /// otherwise the samples are taken as they are).
    pub msb_bits: u32,
}

impl ImagePlane {
    /// Layer 0 of `image` in `layout`, left in `layout`, no ownership transfer.
    ///
    /// ```no_run
    /// # let image = ash::vk::Image::null();
    /// let p = vkssim::api::ImagePlane::new(image, ash::vk::Format::R8_UNORM, ash::vk::ImageLayout::GENERAL);
    /// # let _ = p;
    /// ```
    pub fn new(image: vk::Image, format: vk::Format, layout: vk::ImageLayout) -> Self {
        Self {
            image,
            format,
            layout,
            final_layout: layout,
            queue_family: vk::QUEUE_FAMILY_IGNORED,
            array_layer: 0,
            msb_bits: 0,
        }
    }

    /// The same plane, left in `layout` after the pair's copy.
    pub fn with_final_layout(mut self, layout: vk::ImageLayout) -> Self {
        self.final_layout = layout;
        self
    }

    /// The same plane, owned by `family` (acquired from it and released back).
    pub fn with_queue_family(mut self, family: u32) -> Self {
        self.queue_family = family;
        self
    }

    /// The same image, frame in array layer `layer`.
    pub fn with_array_layer(mut self, layer: u32) -> Self {
        self.array_layer = layer;
        self
    }

    /// The same plane, its 16-bit samples holding `bits`-bit values in their
    /// top bits (see [`ImagePlane::msb_bits`]).
    ///
    /// ```no_run
    /// # let image = ash::vk::Image::null();
    /// use ash::vk::{Format, ImageLayout};
    /// let p010_luma = vkssim::api::ImagePlane::new(image, Format::R16_UNORM, ImageLayout::GENERAL)
    ///     .with_msb_bits(10);
    /// # let _ = p010_luma;
    /// ```
    pub fn with_msb_bits(mut self, bits: u32) -> Self {
        self.msb_bits = bits;
        self
    }
}

/// A [`DevicePlane`] in a buffer created with `VK_SHARING_MODE_EXCLUSIVE` and
/// owned by `queue_family`: vkssim acquires it (a buffer barrier from
/// `queue_family` to the engine's family over the whole buffer: offset 0,
/// `VK_WHOLE_SIZE`), copies the plane on the device and releases it back; the
/// host records the matching release before and acquire after (as for
/// [`ImagePlane`]). Always copied, never read in place.
///
/// ```no_run
/// use vkssim::api::{DevicePlane, ExclusiveBufferPlane, SampleFormat};
/// # let buffer = ash::vk::Buffer::null();
/// let plane = DevicePlane::new(buffer, 1920, SampleFormat::U8);
/// let owned = ExclusiveBufferPlane::new(plane, 1);
/// # let _ = owned;
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExclusiveBufferPlane {
    /// The plane.
    pub plane: DevicePlane,
    /// The family that owns the buffer.
    pub queue_family: u32,
}

impl ExclusiveBufferPlane {
    /// `plane`, owned by `queue_family`.
    pub fn new(plane: DevicePlane, queue_family: u32) -> Self {
        Self {
            plane,
            queue_family,
        }
    }
}

/// Where one plane of a device-resident pair is.
///
/// ```no_run
/// use vkssim::api::{DeviceSource, ImagePlane};
/// # let image = ash::vk::Image::null();
/// let source: DeviceSource =
///     ImagePlane::new(image, ash::vk::Format::R8_UNORM, ash::vk::ImageLayout::GENERAL).into();
/// # let _ = source;
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceSource {
    /// A buffer in `CONCURRENT` sharing or owned by the engine's family.
    Buffer(DevicePlane),
    /// A buffer owned by another family.
    ExclusiveBuffer(ExclusiveBufferPlane),
    /// Plane 0 of an image.
    Image(ImagePlane),
}

impl From<DevicePlane> for DeviceSource {
    fn from(p: DevicePlane) -> Self {
        DeviceSource::Buffer(p)
    }
}

impl From<ExclusiveBufferPlane> for DeviceSource {
    fn from(p: ExclusiveBufferPlane) -> Self {
        DeviceSource::ExclusiveBuffer(p)
    }
}

impl From<ImagePlane> for DeviceSource {
    fn from(p: ImagePlane) -> Self {
        DeviceSource::Image(p)
    }
}

impl Scorer {
    /// Queues a pair whose planes are anywhere on the device: buffers (see
    /// [`Scorer::submit_device`]), buffers owned by another queue family, or
    /// plane 0 of images (see [`ImagePlane`]). The pair's work waits for every
    /// semaphore in `waits` and signals every one in `signals` when its results
    /// are written (and images are back in their final layout, released to
    /// their family). Needs a scorer created with
    /// [`super::ScorerDesc::device_frames`].
    ///
    /// Errors: a format the scorer's bit depth does not take, a short row
    /// pitch, a null handle, an unknown queue family, `UNDEFINED` layouts, the
    /// same image layer as both planes ([`Error::InvalidOption`]); timeline
    /// values without timeline semaphores ([`Error::Unsupported`]); device
    /// errors.
    ///
    /// # Safety
    /// As [`Scorer::submit_device`] for buffers. Images must be valid images of
    /// the engine's device with `TRANSFER_SRC` usage, a plane 0 of at least the
    /// scorer's width x height, `array_layer` within their layers, in `layout`
    /// (every plane: vkssim transitions and transfers the whole image) when
    /// the waits are satisfied; with a queue family other than the engine's,
    /// the host has submitted the matching release. Nothing may write the
    /// planes until the pair is done. Images and buffers must stay alive until
    /// the scorer drops or [`Scorer::forget_device_buffers`] is called.
    pub unsafe fn submit_sources(
        &mut self,
        reference: DeviceSource,
        distorted: DeviceSource,
        waits: &[SemaphoreRef],
        signals: &[SemaphoreRef],
    ) -> Result<()> {
        let frame = self.submitted;
        if !matches!(self.inner, super::scorer::Inner::Vk(_, Some(_))) {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: device-resident pair on a scorer created for host frames; \
                 set ScorerDesc::device_frames"
            )));
        }
        let planes = [
            self.source(&reference, "reference")?,
            self.source(&distorted, "distorted")?,
        ];
        if let (ExternalSource::Image(a), ExternalSource::Image(b)) = (planes[0], planes[1]) {
            if a.image == b.image && a.array_layer == b.array_layer {
                return Err(Error::InvalidOption(format!(
                    "frame {frame}: the reference and distorted planes are the same image layer"
                )));
            }
        }
        if !self.timeline && waits.iter().chain(signals).any(|s| s.value.is_some()) {
            return Err(Error::Unsupported(format!(
                "frame {frame}: a timeline semaphore value, but the engine's device has no \
                 timelineSemaphore feature enabled (see Engine::supports_timeline_semaphores)"
            )));
        }
        let sems = |s: &[SemaphoreRef]| -> Vec<ExternalSemaphore> {
            s.iter()
                .map(|s| ExternalSemaphore {
                    semaphore: s.semaphore,
                    value: s.value,
                })
                .collect()
        };
        let super::scorer::Inner::Vk(inner, Some(ring)) = &mut self.inner else {
            return Err(Error::Internal("device-resident ring missing".into()));
        };
        // SAFETY: the planes and semaphores are valid objects of this device,
        // alive until the result is taken (the contract of this function).
        unsafe { inner.submit_external(ring, planes, &sems(waits), &sems(signals)) }?;
        self.submitted += 1;
        Ok(())
    }

    /// [`Scorer::submit_sources`] for two image planes.
    ///
    /// # Safety
    /// As [`Scorer::submit_sources`].
    pub unsafe fn submit_images(
        &mut self,
        reference: ImagePlane,
        distorted: ImagePlane,
        waits: &[SemaphoreRef],
        signals: &[SemaphoreRef],
    ) -> Result<()> {
        // SAFETY: forwarded from the caller's contract.
        unsafe { self.submit_sources(reference.into(), distorted.into(), waits, signals) }
    }

    /// `source` checked against this scorer and translated for the device.
    fn source(&self, source: &DeviceSource, which: &str) -> Result<ExternalSource> {
        let frame = self.submitted;
        let bit_depth = self.desc().bit_depth;
        let bad =
            |what: String| Error::InvalidOption(format!("frame {frame}: the {which} plane {what}"));
        let (engine_family, families) = self.families;
        let owner = |family: u32| -> Result<Option<u32>> {
            if family == vk::QUEUE_FAMILY_IGNORED || family == engine_family {
                Ok(None)
            } else if family >= families {
                Err(bad(format!(
                    "names queue family {family}; the device has {families}"
                )))
            } else {
                Ok(Some(family))
            }
        };
        match source {
            DeviceSource::Buffer(p) => Ok(self.buffer_plane(p, which)?.into()),
            DeviceSource::ExclusiveBuffer(p) => Ok(ExternalSource::Buffer {
                plane: self.buffer_plane(&p.plane, which)?,
                owner: owner(p.queue_family)?,
            }),
            DeviceSource::Image(img) => {
                let Some(mut f) = luma_format(img.format) else {
                    return Err(bad(format!(
                        "is a {:?} image; vkssim reads R8, R16, R10X6, R12X4 and the \
                         8, 10X6, 12X4 and 16-bit multi-planar formats",
                        img.format
                    )));
                };
                match img.msb_bits {
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
                            img.format
                        )))
                    }
                }
                let fits = if f.bit_depth != 0 {
                    f.bit_depth == bit_depth
                } else {
                    (f.bytes == 1) == (bit_depth <= 8)
                };
                if !fits {
                    let samples = match (f.bit_depth, f.bytes) {
                        (0, 1) => "8-bit".to_string(),
                        (0, _) => "16-bit words".to_string(),
                        (b, _) => format!("{b}-bit"),
                    };
                    return Err(bad(format!(
                        "is a {:?} image ({samples} samples) but the scorer takes \
                         {bit_depth}-bit video",
                        img.format
                    )));
                }
                if img.image == vk::Image::null() {
                    return Err(bad("is VK_NULL_HANDLE".into()));
                }
                let undefined = [vk::ImageLayout::UNDEFINED, vk::ImageLayout::PREINITIALIZED];
                if img.layout == vk::ImageLayout::UNDEFINED || undefined.contains(&img.final_layout)
                {
                    return Err(bad(format!(
                        "has layout {:?} -> {:?}; an image's contents are lost in UNDEFINED and \
                         it cannot return to PREINITIALIZED",
                        img.layout, img.final_layout
                    )));
                }
                Ok(ExternalSource::Image(ExternalImage {
                    image: img.image,
                    aspect: f.aspect,
                    array_layer: img.array_layer,
                    layout: img.layout,
                    final_layout: img.final_layout,
                    owner: owner(img.queue_family)?,
                    shift: f.shift,
                }))
            }
        }
    }

    /// A buffer plane checked against this scorer (sample format, row pitch,
    /// handle).
    fn buffer_plane(&self, p: &DevicePlane, which: &str) -> Result<ExternalPlane> {
        let frame = self.submitted;
        let bit_depth = self.desc().bit_depth;
        let want = if bit_depth > 8 {
            SampleFormat::U16
        } else {
            SampleFormat::U8
        };
        let row = self.desc().width as u64 * if want == SampleFormat::U16 { 2 } else { 1 };
        if p.format != want {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: the {which} plane is {:?} but the scorer takes {bit_depth}-bit video ({want:?})",
                p.format
            )));
        }
        if p.row_pitch < row {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: the {which} plane's row pitch {} is shorter than a row ({row} bytes)",
                p.row_pitch
            )));
        }
        if p.buffer == vk::Buffer::null() {
            return Err(Error::InvalidOption(format!(
                "frame {frame}: the {which} plane's buffer is VK_NULL_HANDLE"
            )));
        }
        Ok(ExternalPlane {
            buffer: p.buffer,
            offset: p.offset,
            row_pitch: p.row_pitch,
        })
    }
}
