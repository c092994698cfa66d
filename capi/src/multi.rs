//! What the C API had no face for: a scorer on the exact CPU twin
//! ([`vkssim_scorer_create_cpu`]) and one stream of pairs spread over several
//! engines, one per device ([`VkssimMultiScorer`], the Rust `MultiScorer`),
//! with results in submission order.

use super::*;
use vkssim::api::MultiScorer;
use vkssim::api::ScoreQueue;
use vkssim::metric::MetricConfig;

use crate::submit::{rust_pair, VkssimPair};

/// The Rust scorer description of a C one (its feature strings read now).
///
/// # Safety
/// `d.features` must be NULL or hold `d.n_features` valid C strings,
/// `d.models` `d.n_models`, and `d.motion_version` be NULL or a valid C
/// string.
pub(crate) unsafe fn scorer_desc(d: &VkssimScorerDesc) -> Result<ScorerDesc, Error> {
    // float_ssim with the description's options, unless `features` lists
    // the metrics (then `with_features` puts those in its place).
    let ssim = SsimOptions {
        scale: d.scale,
        enable_lcs: d.enable_lcs,
        enable_db: d.enable_db,
        clip_db: d.clip_db,
    };
    let mut sd = ScorerDesc::new(d.width, d.height, d.bit_depth)
        .with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    sd.frames_in_flight = std::num::NonZeroUsize::new(d.frames_in_flight as usize);
    // SAFETY: forwarded from the caller's contract.
    unsafe { crate::metrics::with_features(sd, d) }
}

/// Creates a scorer on the exact CPU twin (no Vulkan device) with `threads`
/// worker threads (0: one per core). It takes host pairs, through
/// [`crate::vkssim_scorer_submit`] or `vkssim_scorer_submit_host`; its
/// results are bit-identical to a Vulkan engine's. Poll, wait and destroy it
/// as any scorer.
///
/// # Safety
/// `desc` must be a valid struct and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_create_cpu(
    desc: *const VkssimScorerDesc,
    threads: u32,
    out: *mut *mut VkssimScorer,
) -> VkssimStatus {
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: per the contract.
        let d = unsafe { desc.as_ref() }.ok_or_else(|| null_arg("desc"))?;
        let scorer = {
            // SAFETY: `desc` is valid per the contract, its strings included.
            let sd = unsafe { scorer_desc(d) }?;
            Scorer::cpu(&sd, threads as usize)?
        };
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = VkssimScorer::boxed(scorer, None) };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// One stream of pairs over several engines (several GPUs): each pair goes to
/// the next engine in turn (with a temporal metric, motion, runs of pairs, each
/// run's first pair carrying its previous reference), results come back in
/// submission order. Opaque; one thread at a time.
pub struct VkssimMultiScorer {
    pub(crate) multi: MultiScorer,
    /// The most values a result carries (`metrics::values_per_frame`).
    pub(crate) values_per_frame: usize,
}

/// Creates a multi-scorer of `desc` over `n_engines` engines (each on its own
/// device; at least one). The engines must outlive it.
///
/// # Safety
/// `engines` must point to `n_engines` live engines, `desc` to a valid
/// struct, `out` be a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_create(
    engines: *const *const VkssimEngine,
    n_engines: usize,
    desc: *const VkssimScorerDesc,
    out: *mut *mut VkssimMultiScorer,
) -> VkssimStatus {
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        if engines.is_null() || n_engines == 0 {
            return Err(Error::InvalidOption(
                "a multi-scorer needs at least one engine".into(),
            ));
        }
        // SAFETY: per the contract.
        let d = unsafe { desc.as_ref() }.ok_or_else(|| null_arg("desc"))?;
        // SAFETY: `n_engines` pointers per the contract.
        let all = unsafe { std::slice::from_raw_parts(engines, n_engines) };
        let mut list = Vec::with_capacity(n_engines);
        for (k, e) in all.iter().enumerate() {
            // SAFETY: live engines per the contract.
            let e = unsafe { e.as_ref() }.ok_or_else(|| null_arg(&format!("engine {k}")))?;
            list.push(e.engine.clone());
        }
        // SAFETY: `desc` is valid per the contract, its strings included.
        let sd = unsafe { scorer_desc(d) }?;
        let multi = MultiScorer::new(&list, &sd)?;
        let values_per_frame = crate::metrics::values_per_frame(multi.desc());
        // SAFETY: `out` is valid per the contract.
        unsafe {
            *out = Box::into_raw(Box::new(VkssimMultiScorer {
                multi,
                values_per_frame,
            }))
        };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Queues a pair on the next engine (host planes, or a shared reference of
/// that engine's device; see [`VkssimPair`]); blocks while that engine's
/// ring is full.
///
/// # Safety
/// `multi` must be a live multi-scorer and `pair` valid as for
/// [`crate::vkssim_scorer_submit`].
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_submit(
    multi: *mut VkssimMultiScorer,
    pair: *const VkssimPair,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let m = unsafe { multi.as_mut() }.ok_or_else(|| null_arg("multi"))?;
        let d = m.multi.desc().clone();
        let metrics = d.metric_set()?;
        let chroma = metrics.needs_chroma().then(|| metrics.chroma_plane_size());
        // SAFETY: forwarded from the caller's contract.
        let pair = unsafe { rust_pair(pair, (d.width, d.height, d.bit_depth), chroma) }?;
        m.multi.submit(pair)?;
        Ok(VkssimStatus::VkssimOk)
    })
}

/// The oldest result if ready, without blocking: `VKSSIM_OK` (written to
/// `out`), `VKSSIM_NOT_READY`, or `VKSSIM_EMPTY` when nothing is queued.
///
/// # Safety
/// `multi` must be a live multi-scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_poll(
    multi: *mut VkssimMultiScorer,
    out: *mut VkssimScore,
) -> VkssimStatus {
    take(multi, out, false)
}

/// The oldest result, waiting for it: `VKSSIM_OK` (written to `out`) or
/// `VKSSIM_EMPTY` when nothing is queued.
///
/// # Safety
/// `multi` must be a live multi-scorer and `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_wait(
    multi: *mut VkssimMultiScorer,
    out: *mut VkssimScore,
) -> VkssimStatus {
    take(multi, out, true)
}

fn take(multi: *mut VkssimMultiScorer, out: *mut VkssimScore, blocking: bool) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the callers' contract.
        let m = unsafe { multi.as_mut() }.ok_or_else(|| null_arg("multi"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        crate::metrics::fits_a_score(m.values_per_frame)?;
        crate::scorer::take_next(&mut m.multi, blocking, |_, score| {
            // SAFETY: `out` is valid (checked above; the callers' contract).
            unsafe { *out = crate::score_out(&score) }
        })
    })
}

/// [`crate::vkssim_scorer_finish`] for a multi-scorer.
///
/// # Safety
/// `multi` must be a live multi-scorer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_finish(multi: *mut VkssimMultiScorer) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let m = unsafe { multi.as_mut() }.ok_or_else(|| null_arg("multi"))?;
        m.multi.finish();
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Pairs submitted whose result has not been taken (0 for NULL).
///
/// # Safety
/// `multi` must be NULL or a live multi-scorer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_in_flight(multi: *const VkssimMultiScorer) -> usize {
    // SAFETY: per the contract.
    unsafe { multi.as_ref() }.map_or(0, |m| m.multi.in_flight())
}

/// Destroys a multi-scorer after its work finished (NULL is ignored).
///
/// # Safety
/// `multi` must be NULL or a live multi-scorer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_multi_scorer_destroy(multi: *mut VkssimMultiScorer) {
    if !multi.is_null() {
        // SAFETY: created by Box::into_raw, destroyed once per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(multi) })));
    }
}
