//! A frame's result with every value, however many (`VkssimFrame`): the
//! collector's row for C callers. `VkssimScore` holds at most
//! `VKSSIM_MAX_OUTPUTS` values in a fixed struct; a VMAF scorer with
//! several features and models reports more, and takes its results as
//! frames (`vkssim_scorer_wait_frame`), each read by position or by name and
//! destroyed by the caller.

use std::ffi::{c_char, CStr};

use vkssim::api::ScoreQueue;
use vkssim::{Error, FrameScore};

use crate::metrics::c_name;
use crate::multi::VkssimMultiScorer;
use crate::{guard, null_arg, VkssimScorer, VkssimStatus};

/// One frame's result: every value its scorer's metrics and models report,
/// in the vmaf command line's order, by libvmaf's names. Made by the
/// `*_poll_frame` and `*_wait_frame` calls; destroy it with
/// `vkssim_frame_destroy`.
pub struct VkssimFrame {
    index: u64,
    score: FrameScore,
}

/// Writes the queue's next result to `out` as a new frame: `VKSSIM_OK`, or
/// with none, `VKSSIM_EMPTY` when nothing is in flight and
/// `VKSSIM_NOT_READY` otherwise (`*out` NULL then).
///
/// # Safety
/// `out` must be a valid pointer.
unsafe fn take_frame<Q: ScoreQueue>(
    queue: &mut Q,
    blocking: bool,
    out: *mut *mut VkssimFrame,
) -> Result<VkssimStatus, Error> {
    if out.is_null() {
        return Err(null_arg("out"));
    }
    // SAFETY: `out` is valid per the contract.
    unsafe { *out = std::ptr::null_mut() };
    crate::scorer::take_next(queue, blocking, |index, score| {
        let frame = Box::into_raw(Box::new(VkssimFrame { index, score }));
        // SAFETY: as above.
        unsafe { *out = frame };
    })
}

/// A scorer's next result as a new frame (see [`take_frame`]).
///
/// # Safety
/// `scorer` must be NULL or a live scorer, `out` a valid pointer.
unsafe fn scorer_frame(
    scorer: *mut VkssimScorer,
    blocking: bool,
    out: *mut *mut VkssimFrame,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        // SAFETY: per the contract.
        unsafe { take_frame(&mut s.scorer, blocking, out) }
    })
}

/// A multi-scorer's next result as a new frame (see [`take_frame`]).
///
/// # Safety
/// `multi` must be NULL or a live multi-scorer, `out` a valid pointer.
unsafe fn multi_frame(
    multi: *mut VkssimMultiScorer,
    blocking: bool,
    out: *mut *mut VkssimFrame,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let m = unsafe { multi.as_mut() }.ok_or_else(|| null_arg("multi"))?;
        // SAFETY: per the contract.
        unsafe { take_frame(&mut m.multi, blocking, out) }
    })
}

/// `vkssim_scorer_poll` for results of any size: the oldest result
/// if ready, as a new frame in `*out` (`VKSSIM_OK`; NULL otherwise), without
/// blocking; `VKSSIM_NOT_READY`, or `VKSSIM_EMPTY` when nothing is queued.
///
/// # Safety
/// `scorer` must be a live scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_poll_frame(
    scorer: *mut VkssimScorer,
    out: *mut *mut VkssimFrame,
) -> VkssimStatus {
    // SAFETY: forwarded from the caller's contract.
    unsafe { scorer_frame(scorer, false, out) }
}

/// `vkssim_scorer_wait` for results of any size: the oldest result,
/// waiting for it, as a new frame in `*out` (`VKSSIM_OK`; NULL otherwise);
/// `VKSSIM_EMPTY` when nothing is queued, `VKSSIM_NOT_READY` when only
/// results held for a later frame are left.
///
/// # Safety
/// `scorer` must be a live scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_wait_frame(
    scorer: *mut VkssimScorer,
    out: *mut *mut VkssimFrame,
) -> VkssimStatus {
    // SAFETY: forwarded from the caller's contract.
    unsafe { scorer_frame(scorer, true, out) }
}

/// `vkssim_scorer_poll_frame` for a multi-scorer.
///
/// # Safety
/// `multi` must be a live multi-scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_poll_frame(
    multi: *mut VkssimMultiScorer,
    out: *mut *mut VkssimFrame,
) -> VkssimStatus {
    // SAFETY: forwarded from the caller's contract.
    unsafe { multi_frame(multi, false, out) }
}

/// `vkssim_scorer_wait_frame` for a multi-scorer.
///
/// # Safety
/// `multi` must be a live multi-scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_wait_frame(
    multi: *mut VkssimMultiScorer,
    out: *mut *mut VkssimFrame,
) -> VkssimStatus {
    // SAFETY: forwarded from the caller's contract.
    unsafe { multi_frame(multi, true, out) }
}

/// The frame's pair: its position among the pairs submitted to its scorer,
/// from 0 (0 for NULL).
///
/// # Safety
/// `frame` must be NULL or a live frame.
#[no_mangle]
pub unsafe extern "C" fn vkssim_frame_index(frame: *const VkssimFrame) -> u64 {
    // SAFETY: per the contract.
    unsafe { frame.as_ref() }.map_or(0, |f| f.index)
}

/// How many values `frame` holds (0 for NULL).
///
/// # Safety
/// `frame` must be NULL or a live frame.
#[no_mangle]
pub unsafe extern "C" fn vkssim_frame_count(frame: *const VkssimFrame) -> usize {
    // SAFETY: per the contract.
    unsafe { frame.as_ref() }.map_or(0, |f| f.score.iter().count())
}

/// The name of value `i` of `frame` (libvmaf's: `"vmaf"`, `"psnr_y"`, ...),
/// valid for the life of the process; NULL for NULL or `i` out of range.
///
/// # Safety
/// `frame` must be NULL or a live frame.
#[no_mangle]
pub unsafe extern "C" fn vkssim_frame_name(frame: *const VkssimFrame, i: usize) -> *const c_char {
    // SAFETY: per the contract.
    unsafe { frame.as_ref() }
        .and_then(|f| f.score.iter().nth(i))
        .map_or(std::ptr::null(), |(name, _)| c_name(name))
}

/// Value `i` of `frame` (NaN for NULL or `i` out of range).
///
/// # Safety
/// `frame` must be NULL or a live frame.
#[no_mangle]
pub unsafe extern "C" fn vkssim_frame_value(frame: *const VkssimFrame, i: usize) -> f64 {
    // SAFETY: per the contract.
    unsafe { frame.as_ref() }
        .and_then(|f| f.score.iter().nth(i))
        .map_or(f64::NAN, |(_, v)| v)
}

/// Writes to `out` the value `frame` reports under libvmaf's name `name`.
/// `VKSSIM_ERROR_INVALID_ARGUMENT` when it reports no such value.
///
/// # Safety
/// `frame` must be a live frame, `name` a valid C string, `out` a valid
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_frame_value_by_name(
    frame: *const VkssimFrame,
    name: *const c_char,
    out: *mut f64,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let f = unsafe { frame.as_ref() }.ok_or_else(|| null_arg("frame"))?;
        if name.is_null() {
            return Err(null_arg("name"));
        }
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: a valid C string per the contract.
        let want = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        let value = f
            .score
            .value(&want)
            .ok_or_else(|| Error::InvalidOption(format!("the frame has no value named {want}")))?;
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = value };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Destroys a frame (NULL is ignored).
///
/// # Safety
/// `frame` must be NULL or a live frame, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_frame_destroy(frame: *mut VkssimFrame) {
    if !frame.is_null() {
        // SAFETY: made by Box::into_raw in `take_frame`, destroyed once per
        // the contract.
        drop(unsafe { Box::from_raw(frame) });
    }
}
