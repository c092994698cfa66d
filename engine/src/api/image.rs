//! Luma in the host's `VkImage`s ([`ImagePlane`]: plane 0 of NV12/P010-style
//! multi-planar images or a single-plane `R8`/`R16`/`R10X6`/`R12X4` image),
//! with vkssim doing the ownership acquire and release and the layout
//! transitions, the way libplacebo's `pl_vulkan_release`/`pl_vulkan_hold` and
//! FFmpeg's `AVVkFrame` hand images between queues. Imported once with
//! [`super::Engine::import_image`].

use ash::vk;

/// How plane 0 of an image format holds luma.
pub(super) struct LumaFormat {
    pub(super) aspect: vk::ImageAspectFlags,
    /// Bytes per sample (1 or 2).
    pub(super) bytes: u64,
    /// Right shift to the sample value (0, 4 or 6), with the bit depth it
    /// implies (0: any the sample size allows).
    pub(super) shift: u32,
    pub(super) bit_depth: u32,
}

/// The luma layout of `format`, `None` when vkssim does not read it.
pub(super) fn luma_format(format: vk::Format) -> Option<LumaFormat> {
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
/// [`crate::Error::SampleRange`], as for [`super::DevicePlane`]).
///
/// Luma only: every metric that reads luma scores it (float_ssim,
/// float_ms_ssim, psnr with `enable_chroma=false`); a scorer whose psnr
/// reads chroma refuses imported pairs ([`crate::Error::InvalidOption`]),
/// since the Cb and Cr planes of a multi-planar image are not read (an
/// NV12-style image interleaves them).
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
