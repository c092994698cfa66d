//! Shared reference planes, for an encoding ladder: a pool of planes of one
//! geometry on an engine's device ([`VkssimSharedPlanes`]), a reference frame
//! uploaded into it once ([`VkssimSharedPlane`]) and scored by any number of
//! that device's scorers against their own distorted planes
//! ([`vkssim_scorer_submit_host_shared`]); releasing the handles and the pool.
//! For scorers whose psnr reads chroma, a pool made for their description
//! ([`vkssim_shared_planes_create_desc`], [`vkssim_scorer_shared_planes`])
//! holds whole pictures ([`vkssim_shared_planes_upload_picture`]), scored
//! against the distorted frame's three planes
//! ([`vkssim_scorer_submit_host_shared_planes`]).

use super::*;
use vkssim::api::ScoreQueue;
use vkssim::api::{Pair, SharedPlane, SharedPlanes};

use crate::metrics::{chroma_size, picture};
use crate::scorer::host_plane;

/// A pool of reference planes of one geometry on an engine's device. Opaque.
/// Its functions may be called from several threads at once. Planes
/// uploaded into it stay valid after it is destroyed; the pool's memory goes
/// when it and every plane are gone.
pub struct VkssimSharedPlanes {
    planes: SharedPlanes,
}

/// A reference plane uploaded once, read by any number of scorers of its
/// engine's device. Opaque and immutable: it may be used from several threads
/// at once. Each scorer that takes it keeps it until its pair is done, so the
/// host may release its handle right after the last submission.
pub struct VkssimSharedPlane {
    pub(crate) plane: SharedPlane,
}

/// Creates a pool of `width` x `height` luma reference planes at `bit_depth`
/// bits on the engine's device, for [`vkssim_shared_planes_upload`]: for
/// scorers whose metrics read luma only (a scorer whose psnr reads chroma
/// takes a pool of [`vkssim_shared_planes_create_desc`]). The pool
/// grows to as many planes as are in use at once; a plane returns to it when
/// its handle is released and its last pair is done. The pool and its planes
/// may outlive the engine.
///
/// # Safety
/// `engine` must be a live engine and `out` a valid pointer, which receives
/// the pool on success.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_planes_create(
    engine: *const VkssimEngine,
    width: u32,
    height: u32,
    bit_depth: u32,
    out: *mut *mut VkssimSharedPlanes,
) -> VkssimStatus {
    let desc = || Ok(ScorerDesc::new(width, height, bit_depth));
    // SAFETY: forwarded from the caller's contract.
    unsafe { pool_on(engine, desc, out) }
}

/// Creates a pool of reference planes on the engine's device for scorers of
/// `desc` (its width, height and bit depth; its metrics and chroma layout):
/// when its psnr reads chroma each plane holds a whole picture (luma, Cb, Cr:
/// [`vkssim_shared_planes_upload_picture`]), else a luma plane
/// ([`vkssim_shared_planes_upload`]). Otherwise as
/// [`vkssim_shared_planes_create`].
///
/// # Safety
/// `engine` must be a live engine, `desc` a valid struct (its strings
/// included) and `out` a valid pointer, which receives the pool on success.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_planes_create_desc(
    engine: *const VkssimEngine,
    desc: *const VkssimScorerDesc,
    out: *mut *mut VkssimSharedPlanes,
) -> VkssimStatus {
    let desc = || {
        // SAFETY: per the contract.
        let d = unsafe { desc.as_ref() }.ok_or_else(|| null_arg("desc"))?;
        // SAFETY: `desc` is valid per the contract, its strings included.
        unsafe { crate::multi::scorer_desc(d) }
    };
    // SAFETY: forwarded from the caller's contract.
    unsafe { pool_on(engine, desc, out) }
}

/// Writes to `out` a pool on `engine`'s device for scorers of the
/// description `desc` returns.
///
/// # Safety
/// `engine` must be NULL or a live engine, `out` NULL or a valid pointer.
unsafe fn pool_on(
    engine: *const VkssimEngine,
    desc: impl FnOnce() -> Result<ScorerDesc, Error>,
    out: *mut *mut VkssimSharedPlanes,
) -> VkssimStatus {
    let make = || {
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        let planes = e.engine.shared_planes(&desc()?)?;
        Ok(VkssimSharedPlanes { planes })
    };
    // SAFETY: `out` is NULL or valid per the contract.
    unsafe { put(out, make) }
}

/// Creates a pool of reference planes on the scorer's device for its
/// description, as [`vkssim_shared_planes_create_desc`] does for the
/// description the scorer was created with. `VKSSIM_ERROR_INVALID_ARGUMENT`
/// for a scorer of the CPU twin (it has no device).
///
/// # Safety
/// `scorer` must be a live scorer and `out` a valid pointer, which receives
/// the pool on success.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_shared_planes(
    scorer: *const VkssimScorer,
    out: *mut *mut VkssimSharedPlanes,
) -> VkssimStatus {
    let make = || {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_ref() }.ok_or_else(|| null_arg("scorer"))?;
        let planes = s.scorer.shared_planes()?;
        Ok(VkssimSharedPlanes { planes })
    };
    // SAFETY: `out` is valid per the contract.
    unsafe { put(out, make) }
}

/// Writes to `out` a handle to what `make` returns (refusing a NULL `out`
/// first), under [`guard`].
///
/// # Safety
/// `out` must be NULL or a valid pointer.
unsafe fn put<T>(out: *mut *mut T, make: impl FnOnce() -> Result<T, Error>) -> VkssimStatus {
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        let handle = Box::new(make()?);
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = Box::into_raw(handle) };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Whether the pool's planes hold whole pictures (its scorers' psnr reads
/// chroma); if so, the size in samples of each of their Cb and Cr planes (as
/// a file stores them: sides rounded up) is written to `width` and `height`,
/// else 0 (either pointer may be NULL). False for NULL.
///
/// # Safety
/// `planes` must be NULL or a live pool; `width` and `height` NULL or valid
/// pointers.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_planes_chroma_plane_size(
    planes: *const VkssimSharedPlanes,
    width: *mut u32,
    height: *mut u32,
) -> bool {
    // SAFETY: per the contract.
    let size = unsafe { planes.as_ref() }.and_then(|p| p.planes.chroma_plane_size());
    // SAFETY: forwarded from the caller's contract.
    unsafe { write_size(size, width, height) }
}

/// As [`vkssim_shared_planes_chroma_plane_size`], for a plane (whether it
/// holds a whole picture, and the size of its Cb and Cr planes).
///
/// # Safety
/// `plane` must be NULL or a live plane; `width` and `height` NULL or valid
/// pointers.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_plane_chroma_plane_size(
    plane: *const VkssimSharedPlane,
    width: *mut u32,
    height: *mut u32,
) -> bool {
    // SAFETY: per the contract.
    let size = unsafe { plane.as_ref() }.and_then(|p| p.plane.chroma_plane_size());
    // SAFETY: forwarded from the caller's contract.
    unsafe { write_size(size, width, height) }
}

/// Writes `size` (0 for `None`) to the non-NULL pointers of `width` and
/// `height`; whether it is `Some`.
///
/// # Safety
/// `width` and `height` must be NULL or valid pointers.
unsafe fn write_size(size: Option<(u32, u32)>, width: *mut u32, height: *mut u32) -> bool {
    let (w, h) = size.unwrap_or_default();
    // SAFETY: NULL or valid per the contract.
    if let Some(width) = unsafe { width.as_mut() } {
        *width = w;
    }
    // SAFETY: as above.
    if let Some(height) = unsafe { height.as_mut() } {
        *height = h;
    }
    size.is_some()
}

/// Uploads a reference plane from host memory into a plane of the pool,
/// copied (and its samples range-checked) before the call returns: the host
/// may reuse `data` at once. Samples and stride as
/// [`vkssim_scorer_submit_host`] takes them: `uint8_t` at 8 bits, `uint16_t`
/// (native values, not shifted) above, `stride_bytes` at least a row and a
/// multiple of the sample size. Release the plane with
/// [`vkssim_shared_plane_release`]. A pool of whole pictures refuses it
/// (upload with [`vkssim_shared_planes_upload_picture`]).
///
/// # Safety
/// `planes` must be a live pool; `data` must hold `height` rows of
/// `stride_bytes` bytes (the last one at least a row), suitably aligned for
/// its sample type; `out` must be a valid pointer, which receives the plane on
/// success.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_planes_upload(
    planes: *const VkssimSharedPlanes,
    data: *const c_void,
    stride_bytes: usize,
    out: *mut *mut VkssimSharedPlane,
) -> VkssimStatus {
    let make = || {
        // SAFETY: per the contract.
        let p = unsafe { planes.as_ref() }.ok_or_else(|| null_arg("planes"))?;
        let geometry = p.planes.geometry();
        // SAFETY: forwarded from the caller's contract.
        let host = unsafe { host_plane(data, stride_bytes, geometry, "reference") }?;
        let plane = p.planes.upload(host)?;
        Ok(VkssimSharedPlane { plane })
    };
    // SAFETY: `out` is valid per the contract.
    unsafe { put(out, make) }
}

/// Uploads a whole reference picture from host memory into a plane of a pool
/// whose planes hold them ([`vkssim_shared_planes_chroma_plane_size`] says
/// true): `data` and `strides_bytes` point to 3 values each, the luma plane
/// then the Cb and Cr planes (each of the chroma plane size), samples and
/// strides as [`vkssim_shared_planes_upload`] takes them, copied and
/// range-checked before the call returns. A pool of luma planes refuses it
/// (`VKSSIM_ERROR_INVALID_ARGUMENT`: upload with
/// [`vkssim_shared_planes_upload`]), as a pool of whole pictures refuses
/// that. Release the plane with [`vkssim_shared_plane_release`].
///
/// # Safety
/// `planes` must be a live pool; `data` and `strides_bytes` must point to 3
/// values each, every plane holding its height in rows of its stride (the
/// last one at least a row), suitably aligned for its sample type; `out` must
/// be a valid pointer, which receives the plane on success.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_planes_upload_picture(
    planes: *const VkssimSharedPlanes,
    data: *const *const c_void,
    strides_bytes: *const usize,
    out: *mut *mut VkssimSharedPlane,
) -> VkssimStatus {
    let make = || {
        // SAFETY: per the contract.
        let p = unsafe { planes.as_ref() }.ok_or_else(|| null_arg("planes"))?;
        let geometry = p.planes.geometry();
        // A pool of luma planes has no chroma size: its Cb and Cr planes are
        // taken as empty, and the upload is refused with the library's message.
        let chroma = Some(p.planes.chroma_plane_size().unwrap_or_default());
        // SAFETY: forwarded from the caller's contract.
        let (luma, cbcr) = unsafe { picture(data, strides_bytes, geometry, chroma, "reference") }?;
        let cbcr = cbcr.ok_or_else(|| Error::Internal("a picture without chroma".into()))?;
        let plane = p.planes.upload_picture(luma, cbcr)?;
        Ok(VkssimSharedPlane { plane })
    };
    // SAFETY: `out` is valid per the contract.
    unsafe { put(out, make) }
}

/// Releases the caller's handle to a plane (NULL is ignored). Scorers that
/// took it keep it until their pairs are done; then it returns to its pool.
///
/// # Safety
/// `plane` must be NULL or a live plane, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_plane_release(plane: *mut VkssimSharedPlane) {
    if !plane.is_null() {
        // SAFETY: created by Box::into_raw, released once per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(plane) })));
    }
}

/// Destroys the caller's handle to a pool (NULL is ignored). Planes uploaded
/// into it stay valid, for the caller and for the scorers that took them; the
/// pool's device memory goes when the last of them is released and done.
///
/// # Safety
/// `planes` must be NULL or a live pool, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_shared_planes_destroy(planes: *mut VkssimSharedPlanes) {
    if !planes.is_null() {
        // SAFETY: created by Box::into_raw, destroyed once per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(planes) })));
    }
}

/// Deprecated: use vkssim_scorer_submit with vkssim_pair_shared (the one submission call).
///
/// Queues a pair whose reference is a shared plane ([`vkssim_shared_planes_upload`],
/// of the scorer's engine's device and the scorer's width, height and bit
/// depth) and whose distorted plane comes from host memory, copied before the
/// call returns (samples and stride as [`vkssim_scorer_submit_host`] takes
/// them). The scorer keeps the plane until the pair is done: the caller may
/// release its handle once it has submitted the plane to every scorer. Blocks
/// while the scorer's ring is full. A scorer whose psnr reads chroma refuses
/// it (give the distorted frame's three planes:
/// [`vkssim_scorer_submit_host_shared_planes`]).
///
/// # Safety
/// `scorer` must be a live scorer and `reference` a live plane; `distorted`
/// must hold `height` rows of `distorted_stride` bytes (the last one at least
/// a row), suitably aligned for its sample type.
///
/// cbindgen:prefix=VKSSIM_DEPRECATED("use vkssim_scorer_submit with vkssim_pair_shared")
#[deprecated(note = "use vkssim_scorer_submit with vkssim_pair_shared")]
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_host_shared(
    scorer: *mut VkssimScorer,
    reference: *const VkssimSharedPlane,
    distorted: *const c_void,
    distorted_stride: usize,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        // SAFETY: per the contract.
        let r = unsafe { reference.as_ref() }.ok_or_else(|| null_arg("reference"))?;
        let desc = s.scorer.desc();
        let geometry = (desc.width, desc.height, desc.bit_depth);
        // A plane of another geometry is refused by the library (naming
        // both), also one with as many bytes (transposed, or half as wide
        // at twice the bits).
        // SAFETY: forwarded from the caller's contract.
        let d = unsafe { host_plane(distorted, distorted_stride, geometry, "distorted") }?;
        s.scorer.submit(Pair::new(&r.plane, d))?;
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Deprecated: use vkssim_scorer_submit with vkssim_pair_shared and distorted_chroma (the one submission call).
///
/// [`vkssim_scorer_submit_host_shared`] with the distorted frame's three
/// planes (`distorted` and `distorted_strides` point to 3 values each: luma,
/// Cb, Cr; samples and strides as [`vkssim_scorer_submit_host_planes`] takes
/// them), for a scorer whose psnr reads chroma and a shared reference that
/// holds the whole picture ([`vkssim_shared_planes_upload_picture`]). A
/// scorer whose metrics read no chroma reads the luma plane only (of any
/// shared reference of its geometry). Copied before the call returns.
///
/// # Safety
/// `scorer` must be a live scorer and `reference` a live plane; `distorted`
/// and `distorted_strides` must point to 3 values each, every plane read
/// holding its height in rows of its stride (the last one at least a row),
/// suitably aligned for its sample type.
///
/// cbindgen:prefix=VKSSIM_DEPRECATED("use vkssim_scorer_submit with vkssim_pair_shared and distorted_chroma")
#[deprecated(note = "use vkssim_scorer_submit with vkssim_pair_shared and distorted_chroma")]
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_host_shared_planes(
    scorer: *mut VkssimScorer,
    reference: *const VkssimSharedPlane,
    distorted: *const *const c_void,
    distorted_strides: *const usize,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        // SAFETY: per the contract.
        let r = unsafe { reference.as_ref() }.ok_or_else(|| null_arg("reference"))?;
        let desc = s.scorer.desc();
        let geometry = (desc.width, desc.height, desc.bit_depth);
        let chroma = chroma_size(&s.scorer);
        // SAFETY: forwarded from the caller's contract.
        let (d, cbcr) =
            unsafe { picture(distorted, distorted_strides, geometry, chroma, "distorted") }?;
        let pair = Pair::new(&r.plane, d);
        s.scorer.submit(match cbcr {
            Some(cbcr) => pair.with_distorted_chroma(cbcr),
            None => pair,
        })?;
        Ok(VkssimStatus::VkssimOk)
    })
}
