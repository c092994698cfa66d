//! Device-resident planes beyond packed shared buffers, for C hosts that hold
//! frames as `VkImage`s (FFmpeg's `AVVkFrame`, GStreamer, libplacebo) or in
//! `EXCLUSIVE` buffers of another queue family: [`VkssimDeviceSource`] (a
//! versioned struct: `struct_size` says which fields the caller knows) and
//! [`vkssim_scorer_submit_sources`].

use ash::vk;
use ash::vk::Handle;
use vkssim::api::ScoreQueue;
use vkssim::api::SemaphoreRef;
use vkssim::api::{DevicePlane, ImagePlane, Pair, SampleFormat};
use vkssim::Error;

use crate::{guard, null_arg, VkssimScorer, VkssimSemaphore, VkssimStatus};

/// `VkssimDeviceSource.kind`: a plane in a `VkBuffer`.
pub const VKSSIM_SOURCE_BUFFER: u32 = 0;
/// `VkssimDeviceSource.kind`: plane 0 of a `VkImage`.
pub const VKSSIM_SOURCE_IMAGE: u32 = 1;
/// `VK_QUEUE_FAMILY_IGNORED` (`~0u`): no queue-family ownership transfer.
pub const VKSSIM_QUEUE_FAMILY_IGNORED: u32 = 0xFFFFFFFF;

/// Where one plane of a device-resident pair is: a `VkBuffer` or plane 0 of
/// a `VkImage` on the engine's device. Versioned: set `struct_size` to
/// `sizeof(VkssimDeviceSource)` (or start from
/// `vkssim_device_source_buffer`/`vkssim_device_source_image`, which do);
/// later versions only append fields, and vkssim reads only the first
/// `struct_size` bytes.
///
/// Images: formats `R8_UNORM`, `R16_UNORM`, `R10X6_UNORM_PACK16`,
/// `R12X4_UNORM_PACK16` and the 8, 10X6, 12X4 and 16-bit multi-planar ones
/// (NV12, P010, ...); MSB-aligned samples are shifted down exactly. vkssim
/// moves the image from `layout` to `TRANSFER_SRC_OPTIMAL`, copies the plane
/// on the device and leaves it in `final_layout`. With a `queue_family` other
/// than `VKSSIM_QUEUE_FAMILY_IGNORED` and the engine's, it records the
/// ownership acquire (`oldLayout = newLayout = layout`) and the release back
/// (`oldLayout = newLayout = final_layout`), over the whole image (and, for a
/// buffer, the whole buffer: an `EXCLUSIVE` buffer, always copied); the host
/// records the matching release before and acquire after.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VkssimDeviceSource {
    /// `sizeof(VkssimDeviceSource)`.
    pub struct_size: usize,
    /// `VKSSIM_SOURCE_BUFFER` or `VKSSIM_SOURCE_IMAGE`.
    pub kind: u32,
    /// The queue family that owns the buffer or image, or
    /// `VKSSIM_QUEUE_FAMILY_IGNORED`.
    pub queue_family: u32,
    /// Buffer: the `VkBuffer` (STORAGE_BUFFER and TRANSFER_SRC usage).
    pub buffer: u64,
    /// Buffer: bytes from its start to the first sample.
    pub offset: u64,
    /// Buffer: bytes between the starts of consecutive rows.
    pub row_pitch: u64,
    /// Image: the `VkImage` (TRANSFER_SRC usage).
    pub image: u64,
    /// Image: its `VkFormat`.
    pub format: i32,
    /// Image: its `VkImageLayout` when the pair's work starts.
    pub layout: i32,
    /// Image: the `VkImageLayout` to leave it in.
    pub final_layout: i32,
    /// Image: the array layer holding the frame.
    pub array_layer: u32,
    /// Image: 10 or 12 for `R16_UNORM`/`G16_...` images holding MSB-aligned
    /// 10 or 12-bit samples; 0: as the format says.
    pub msb_bits: u32,
}

/// The size of the first version of [`VkssimDeviceSource`].
fn v1_size() -> usize {
    std::mem::size_of::<VkssimDeviceSource>()
}

/// A buffer source, no ownership transfer (set `queue_family` for an
/// `EXCLUSIVE` buffer owned by another family).
#[no_mangle]
pub extern "C" fn vkssim_device_source_buffer(
    buffer: u64,
    offset: u64,
    row_pitch: u64,
) -> VkssimDeviceSource {
    VkssimDeviceSource {
        buffer,
        offset,
        row_pitch,
        ..empty(VKSSIM_SOURCE_BUFFER)
    }
}

/// An image source: layer 0 of `image` in `layout`, left in `layout`, no
/// ownership transfer (set `final_layout`, `queue_family`, `array_layer` and
/// `msb_bits` as needed).
#[no_mangle]
pub extern "C" fn vkssim_device_source_image(
    image: u64,
    format: i32,
    layout: i32,
) -> VkssimDeviceSource {
    VkssimDeviceSource {
        image,
        format,
        layout,
        final_layout: layout,
        ..empty(VKSSIM_SOURCE_IMAGE)
    }
}

fn empty(kind: u32) -> VkssimDeviceSource {
    VkssimDeviceSource {
        struct_size: v1_size(),
        kind,
        queue_family: VKSSIM_QUEUE_FAMILY_IGNORED,
        buffer: 0,
        offset: 0,
        row_pitch: 0,
        image: 0,
        format: 0,
        layout: 0,
        final_layout: 0,
        array_layer: 0,
        msb_bits: 0,
    }
}

/// The Rust API's plane for `s` on a scorer of `bit_depth`: a buffer plane
/// (`Ok`) or an image plane (`Err`).
pub(crate) fn device_plane(
    s: &VkssimDeviceSource,
    bit_depth: u32,
    which: &str,
) -> Result<Result<DevicePlane, ImagePlane>, Error> {
    if s.struct_size < v1_size() {
        return Err(Error::InvalidOption(format!(
            "the {which} VkssimDeviceSource has struct_size {} (this vkssim needs at least \
             {}: set it to sizeof(VkssimDeviceSource))",
            s.struct_size,
            v1_size()
        )));
    }
    match s.kind {
        VKSSIM_SOURCE_BUFFER => Ok(Ok(DevicePlane::new(
            vk::Buffer::from_raw(s.buffer),
            s.row_pitch,
            if bit_depth > 8 {
                SampleFormat::U16
            } else {
                SampleFormat::U8
            },
        )
        .with_offset(s.offset)
        .with_queue_family(s.queue_family))),
        VKSSIM_SOURCE_IMAGE => Ok(Err(ImagePlane::new(
            vk::Image::from_raw(s.image),
            vk::Format::from_raw(s.format),
            vk::ImageLayout::from_raw(s.layout),
        )
        .with_final_layout(vk::ImageLayout::from_raw(s.final_layout))
        .with_queue_family(s.queue_family)
        .with_array_layer(s.array_layer)
        .with_msb_bits(s.msb_bits))),
        k => Err(Error::InvalidOption(format!(
            "the {which} VkssimDeviceSource has kind {k} (VKSSIM_SOURCE_BUFFER = 0, \
             VKSSIM_SOURCE_IMAGE = 1)"
        ))),
    }
}

/// The most device sources a scorer keeps imported for the shorthand
/// submissions; past it the cache starts afresh (imports in flight stay held
/// by their pairs).
const MAX_CACHED_IMPORTS: usize = 256;

/// `n` semaphores at `p` (NULL allowed when `n` is 0) for the Rust API.
///
/// # Safety
/// `p` must point to `n` structs when `n` is not 0.
pub(crate) unsafe fn semaphores(
    p: *const VkssimSemaphore,
    n: usize,
    what: &str,
) -> Result<Vec<SemaphoreRef>, Error> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(null_arg(what));
    }
    // SAFETY: `n` structs per the contract.
    let all = unsafe { std::slice::from_raw_parts(p, n) };
    Ok(all
        .iter()
        .map(|s| {
            SemaphoreRef::new(
                vk::Semaphore::from_raw(s.semaphore),
                s.timeline.then_some(s.value),
            )
        })
        .collect())
}

/// Deprecated: use vkssim_scorer_submit with vkssim_pair_imported (the one submission call).
///
/// Queues a pair whose planes are in the host's buffers or images (see
/// `VkssimDeviceSource`): a shorthand for [`crate::vkssim_scorer_submit`]
/// with planes the scorer imports on first use and keeps imported while it
/// lives (so the same buffers come back without rebinding). The pair's work
/// waits for `waits` and signals `signals` once its results are written and
/// the images are back in their final layouts (released to their families).
///
/// # Safety
/// `scorer` must be a live scorer; the sources must point to valid structs
/// naming valid objects of the engine's device: buffers and images holding the
/// planes (images with a plane 0 of at least the scorer's size, in `layout`,
/// released to the engine's family when `queue_family` differs), not written
/// until the pair is done, and alive until the scorer is destroyed;
/// `waits`/`signals` must point to `n_waits`/`n_signals` structs (or be NULL
/// with a count of 0).
///
/// cbindgen:prefix=VKSSIM_DEPRECATED("use vkssim_scorer_submit with vkssim_pair_imported")
#[deprecated(note = "use vkssim_scorer_submit with vkssim_pair_imported")]
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_sources(
    scorer: *mut VkssimScorer,
    reference: *const VkssimDeviceSource,
    distorted: *const VkssimDeviceSource,
    waits: *const VkssimSemaphore,
    n_waits: usize,
    signals: *const VkssimSemaphore,
    n_signals: usize,
) -> VkssimStatus {
    let waits = (waits, n_waits);
    let signals = (signals, n_signals);
    // SAFETY: forwarded from the caller's contract.
    unsafe { submit_pair(scorer, (reference, distorted), waits, signals, |s| *s) }
}

/// A pair's C sources, each turned into a [`VkssimDeviceSource`] by
/// `convert`, imported (or found imported) on the scorer's engine and
/// submitted with its semaphores: what `vkssim_scorer_submit_sources` and
/// `vkssim_scorer_submit_buffers` share.
///
/// # Safety
/// As for those functions: `scorer` a live scorer or NULL, the pair's
/// pointers valid structs or NULL, the semaphore arrays of their counts, and
/// every object they name valid as their contracts say.
pub(crate) unsafe fn submit_pair<T>(
    scorer: *mut VkssimScorer,
    (reference, distorted): (*const T, *const T),
    (waits, n_waits): (*const VkssimSemaphore, usize),
    (signals, n_signals): (*const VkssimSemaphore, usize),
    convert: impl Fn(&T) -> VkssimDeviceSource,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        // SAFETY: per the contract.
        let (r, d) = unsafe { (reference.as_ref(), distorted.as_ref()) };
        let (r, d) = r.zip(d).ok_or_else(|| null_arg("reference or distorted"))?;
        let Some(engine) = s.engine.as_ref() else {
            return Err(Error::InvalidOption(
                "device-resident planes given to a CPU scorer".into(),
            ));
        };
        let bit_depth = s.scorer.desc().bit_depth;
        let mut planes = Vec::with_capacity(2);
        for (src, which) in [(convert(r), "reference"), (convert(d), "distorted")] {
            let plane = match s.imports.get(&src) {
                Some(p) => p.clone(),
                None => {
                    // SAFETY: forwarded from the caller's contract (alive
                    // until the scorer is destroyed, which drops the cache).
                    let p = unsafe { crate::submit::import(engine, &src, bit_depth, which) }?;
                    if s.imports.len() >= MAX_CACHED_IMPORTS {
                        s.imports.clear();
                    }
                    s.imports.insert(src, p.clone());
                    p
                }
            };
            planes.push(plane);
        }
        let mut pair = Pair::new(&planes[0], &planes[1]);
        // SAFETY: per the contract.
        for w in unsafe { semaphores(waits, n_waits, "waits") }? {
            // SAFETY: a valid semaphore of the device (the caller's contract).
            pair = unsafe { pair.wait(w) };
        }
        // SAFETY: per the contract.
        for sg in unsafe { semaphores(signals, n_signals, "signals") }? {
            // SAFETY: a valid, unsignalled semaphore of the device (contract).
            pair = unsafe { pair.signal(sg) };
        }
        s.scorer.submit(pair)?;
        Ok(VkssimStatus::VkssimOk)
    })
}
