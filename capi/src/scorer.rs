//! The scorer's C functions: creating one for a geometry, submitting pairs
//! from host memory or the host's buffers, polling or waiting for results in
//! submission order, destroying it; and the checks that turn a C host plane
//! into a [`HostPlane`] (also for `shared`'s uploads).

use super::*;
use vkssim::api::ScoreQueue;

/// Creates a scorer for one geometry and set of options.
///
/// # Safety
/// `engine` must be a live engine, `desc` a valid struct, `out` a valid
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_create(
    engine: *const VkssimEngine,
    desc: *const VkssimScorerDesc,
    out: *mut *mut VkssimScorer,
) -> VkssimStatus {
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        // SAFETY: per the contract.
        let d = unsafe { desc.as_ref() }.ok_or_else(|| null_arg("desc"))?;
        // SAFETY: `desc` is valid per the contract, its strings included.
        let sd = unsafe { crate::multi::scorer_desc(d) }?;
        let scorer = e.engine.scorer(&sd)?;
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = VkssimScorer::boxed(scorer, Some(e.engine.clone())) };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Deprecated: use vkssim_scorer_submit with vkssim_pair_host (the one submission call).
///
/// Queues a pair from host memory, copied before the call returns. Samples are
/// `uint8_t` at 8 bits, `uint16_t` (native values, not shifted) above; strides
/// are in bytes and must be multiples of the sample size. Blocks while the
/// scorer's ring is full.
///
/// # Safety
/// `scorer` must be a live scorer; each plane must hold `height` rows of
/// `stride` bytes (the last one at least a row), suitably aligned for its
/// sample type.
///
/// cbindgen:prefix=VKSSIM_DEPRECATED("use vkssim_scorer_submit with vkssim_pair_host")
#[deprecated(note = "use vkssim_scorer_submit with vkssim_pair_host")]
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_host(
    scorer: *mut VkssimScorer,
    reference: *const c_void,
    reference_stride: usize,
    distorted: *const c_void,
    distorted_stride: usize,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        let desc = s.scorer.desc();
        let geometry = (desc.width, desc.height, desc.bit_depth);
        // SAFETY: forwarded from the caller's contract.
        let r = unsafe { host_plane(reference, reference_stride, geometry, "reference") }?;
        // SAFETY: as above.
        let d = unsafe { host_plane(distorted, distorted_stride, geometry, "distorted") }?;
        s.scorer.submit(Pair::new(r, d))?;
        Ok(VkssimStatus::VkssimOk)
    })
}

/// A host plane of `width` x `height` samples at `bit_depth` bits at `ptr`,
/// rows `stride` bytes apart, as [`vkssim_scorer_submit_host`] and
/// `vkssim_shared_planes_upload` take it: `uint8_t` at 8 bits, `uint16_t`
/// above (2-byte aligned, strides a multiple of 2); the stride at least a row.
/// `which` names the plane in errors.
///
/// # Safety
/// `ptr` must be NULL or hold `height` rows of `stride` bytes (the last one at
/// least a row), valid and unwritten for `'a`.
pub(crate) unsafe fn host_plane<'a>(
    ptr: *const c_void,
    stride: usize,
    (width, height, bit_depth): (u32, u32, u32),
    which: &str,
) -> Result<HostPlane<'a>, Error> {
    if ptr.is_null() {
        return Err(null_arg(which));
    }
    let wide = bit_depth > 8;
    let bps = if wide { 2 } else { 1 };
    let row = width as usize * bps;
    if stride < row || stride % bps != 0 {
        return Err(Error::InvalidOption(format!(
            "{which} stride {stride} bytes: must be at least a row ({row} bytes) and a multiple of {bps}"
        )));
    }
    if wide && (ptr as usize) % 2 != 0 {
        return Err(Error::InvalidOption(format!(
            "{which} plane is not 2-byte aligned"
        )));
    }
    let h = height as usize;
    let len = if h == 0 { 0 } else { stride * (h - 1) + row };
    // SAFETY: the caller guarantees `len` readable bytes, aligned (checked
    // above for 16-bit samples).
    Ok(unsafe {
        if wide {
            HostPlane::u16(
                std::slice::from_raw_parts(ptr as *const u16, len / 2),
                stride / 2,
            )
        } else {
            HostPlane::u8(std::slice::from_raw_parts(ptr as *const u8, len), stride)
        }
    })
}

/// Deprecated: use vkssim_scorer_submit with vkssim_pair_imported (the one submission call).
///
/// Queues a pair already on the device in the host's VkBuffers (zero-copy
/// when rows are packed and the offset aligned; otherwise copied on the
/// device). The pair's work waits for `waits` and signals `signals`. Needs a
/// scorer created with `device_frames`.
///
/// # Safety
/// `scorer` must be a live scorer; the buffers and semaphores valid objects of
/// the engine's device, holding the planes, not written until the pair is
/// done, and alive until the scorer is destroyed; `waits`/`signals` must point
/// to `n_waits`/`n_signals` structs (or be NULL with a count of 0).
///
/// cbindgen:prefix=VKSSIM_DEPRECATED("use vkssim_scorer_submit with vkssim_pair_imported")
#[deprecated(note = "use vkssim_scorer_submit with vkssim_pair_imported")]
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_buffers(
    scorer: *mut VkssimScorer,
    reference: *const VkssimDevicePlane,
    distorted: *const VkssimDevicePlane,
    waits: *const VkssimSemaphore,
    n_waits: usize,
    signals: *const VkssimSemaphore,
    n_signals: usize,
) -> VkssimStatus {
    let plane = |p: &VkssimDevicePlane| {
        let mut s = crate::vkssim_device_source_buffer(p.buffer, p.offset, p.row_pitch);
        s.queue_family = VKSSIM_QUEUE_FAMILY_IGNORED;
        s
    };
    let waits = (waits, n_waits);
    let signals = (signals, n_signals);
    // SAFETY: forwarded from the caller's contract.
    unsafe { image::submit_pair(scorer, (reference, distorted), waits, signals, plane) }
}

fn take(scorer: *mut VkssimScorer, out: *mut VkssimScore, blocking: bool) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the callers' contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        crate::metrics::fits_a_score(s.values_per_frame)?;
        take_next(&mut s.scorer, blocking, |_, score| {
            // SAFETY: `out` is valid (checked above; the callers' contract).
            unsafe { *out = score_out(&score) }
        })
    })
}

/// Takes `queue`'s next result in submission order (waiting for it when
/// `blocking`) and hands it to `write` with its pair's index: `VKSSIM_OK`;
/// with none, `VKSSIM_EMPTY` when nothing is in flight and
/// `VKSSIM_NOT_READY` otherwise. Every poll and wait of the C API, into a
/// `VkssimScore` or a `VkssimFrame`, on a scorer or a multi-scorer.
pub(crate) fn take_next<Q: ScoreQueue>(
    queue: &mut Q,
    blocking: bool,
    write: impl FnOnce(u64, FrameScore),
) -> Result<VkssimStatus, Error> {
    let next = if blocking {
        queue.wait_indexed()
    } else {
        queue.poll_indexed()
    };
    match next {
        Some((index, r)) => {
            write(index, r?);
            Ok(VkssimStatus::VkssimOk)
        }
        None if queue.in_flight() == 0 => Ok(VkssimStatus::VkssimEmpty),
        None => Ok(VkssimStatus::VkssimNotReady),
    }
}

/// The oldest result if ready, without blocking: `VKSSIM_OK` (written to
/// `out`), `VKSSIM_NOT_READY`, or `VKSSIM_EMPTY` when nothing is queued.
///
/// # Safety
/// `scorer` must be a live scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_poll(
    scorer: *mut VkssimScorer,
    out: *mut VkssimScore,
) -> VkssimStatus {
    take(scorer, out, false)
}

/// The oldest result, waiting for it: `VKSSIM_OK` (written to `out`),
/// `VKSSIM_EMPTY` when nothing is queued, or `VKSSIM_NOT_READY` when only
/// results held for a later frame are left (with a model or the motion
/// feature, a frame's result waits for the next frame's: submit it, or end
/// the stream with [`vkssim_scorer_finish`]).
///
/// # Safety
/// `scorer` must be a live scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_wait(
    scorer: *mut VkssimScorer,
    out: *mut VkssimScore,
) -> VkssimStatus {
    take(scorer, out, true)
}

/// Ends the stream of pairs (libvmaf's flush): with a model or the motion
/// feature, the results held for a later frame (the last pair's) complete
/// as at the end of a run and come out through poll and wait. Does not
/// block. A pair submitted after it starts a new stream (a first frame,
/// motion 0). Nothing changes for a scorer whose results wait for no later
/// frame.
///
/// # Safety
/// `scorer` must be a live scorer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_finish(scorer: *mut VkssimScorer) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        s.scorer.finish();
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Pairs submitted whose result has not been taken, held results too (0
/// for NULL).
///
/// # Safety
/// `scorer` must be NULL or a live scorer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_in_flight(scorer: *const VkssimScorer) -> usize {
    // SAFETY: per the contract.
    unsafe { scorer.as_ref() }.map_or(0, |s| s.scorer.in_flight())
}

/// Destroys a scorer after its work finished (NULL is ignored); results not
/// taken are dropped.
///
/// # Safety
/// `scorer` must be NULL or a live scorer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_destroy(scorer: *mut VkssimScorer) {
    if !scorer.is_null() {
        // SAFETY: created by Box::into_raw, destroyed once per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(scorer) })));
    }
}
