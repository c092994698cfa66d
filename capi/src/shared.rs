//! Shared reference planes, for an encoding ladder: a pool of planes of one
//! geometry on an engine's device ([`VkssimSharedPlanes`]), a reference frame
//! uploaded into it once ([`VkssimSharedPlane`]) and scored by any number of
//! that device's scorers against their own distorted planes
//! ([`vkssim_scorer_submit_host_shared`]); releasing the handles and the pool.

use super::*;
use vkssim::api::{Pair, SharedPlane, SharedPlanes};

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

/// Creates a pool of `width` x `height` reference planes at `bit_depth` bits
/// on the engine's device, for [`vkssim_shared_planes_upload`]. The pool
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
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        let planes = e
            .engine
            .shared_planes(&ScorerDesc::new(width, height, bit_depth))?;
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = Box::into_raw(Box::new(VkssimSharedPlanes { planes })) };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Uploads a reference plane from host memory into a plane of the pool,
/// copied (and its samples range-checked) before the call returns: the host
/// may reuse `data` at once. Samples and stride as
/// [`vkssim_scorer_submit_host`] takes them: `uint8_t` at 8 bits, `uint16_t`
/// (native values, not shifted) above, `stride_bytes` at least a row and a
/// multiple of the sample size. Release the plane with
/// [`vkssim_shared_plane_release`].
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
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: per the contract.
        let p = unsafe { planes.as_ref() }.ok_or_else(|| null_arg("planes"))?;
        let geometry = p.planes.geometry();
        // SAFETY: forwarded from the caller's contract.
        let host = unsafe { host_plane(data, stride_bytes, geometry, "reference") }?;
        let plane = p.planes.upload(host)?;
        let shared = VkssimSharedPlane { plane };
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = Box::into_raw(Box::new(shared)) };
        Ok(VkssimStatus::VkssimOk)
    })
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

/// Queues a pair whose reference is a shared plane ([`vkssim_shared_planes_upload`],
/// of the scorer's engine's device and the scorer's width, height and bit
/// depth) and whose distorted plane comes from host memory, copied before the
/// call returns (samples and stride as [`vkssim_scorer_submit_host`] takes
/// them). The scorer keeps the plane until the pair is done: the caller may
/// release its handle once it has submitted the plane to every scorer. Blocks
/// while the scorer's ring is full. Not for a scorer created with
/// `device_frames`.
///
/// # Safety
/// `scorer` must be a live scorer and `reference` a live plane; `distorted`
/// must hold `height` rows of `distorted_stride` bytes (the last one at least
/// a row), suitably aligned for its sample type.
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
