//! The metrics in the C API: a description's `--feature`-style strings and
//! chroma layout ([`with_features`]), a result's values by name
//! ([`outputs_of`], [`vkssim_score_value`]), and host pairs with their chroma
//! planes ([`vkssim_scorer_submit_host_planes`]).

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::{Mutex, OnceLock};
use vkssim::api::ScoreQueue;

use super::*;
use vkssim::io::Chroma;
use vkssim::metric::{MetricConfig, Models, MotionVersion};

/// `sd` with the metrics, chroma layout, VMAF models and motion version of
/// `d`.
///
/// # Safety
/// `d.features` must be NULL or hold `d.n_features` valid C strings,
/// `d.models` `d.n_models`, and `d.motion_version` be NULL or a valid C
/// string.
pub(crate) unsafe fn with_features(
    mut sd: ScorerDesc,
    d: &VkssimScorerDesc,
) -> Result<ScorerDesc, Error> {
    // SAFETY: per the contract.
    let features = unsafe { c_strings(d.features, d.n_features, "features") }?;
    // SAFETY: per the contract.
    let models = unsafe { c_strings(d.models, d.n_models, "models") }?;
    // SAFETY: per the contract.
    let motion = unsafe { motion_version(d.motion_version) }?;
    sd = sd.with_motion_version(motion);
    if !features.is_empty() {
        let metrics = features
            .iter()
            .map(|spec| MetricConfig::parse_with_motion(spec, motion))
            .collect::<Result<Vec<_>, _>>()?;
        sd = sd.with_metrics(metrics);
    } else if !models.is_empty() {
        // The models' extractors alone, as vmaf runs them.
        sd = sd.with_metrics(Vec::new());
    }
    if !models.is_empty() {
        sd = sd.with_models(Models::parse(&models)?);
    }
    let layout = chroma_of(d.chroma)?;
    if let Some(c) = layout {
        sd = sd.with_chroma(c);
    }
    Ok(sd)
}

/// The motion version `text` names (`"2.3.1"`, `"3.2.0"`); the default for
/// NULL.
///
/// # Safety
/// `text` must be NULL or a valid C string.
unsafe fn motion_version(text: *const c_char) -> Result<MotionVersion, Error> {
    if text.is_null() {
        return Ok(MotionVersion::default());
    }
    // SAFETY: per the contract.
    let text = unsafe { CStr::from_ptr(text) };
    let text = text
        .to_str()
        .map_err(|_| Error::InvalidOption("motion_version is not UTF-8".into()))?;
    text.parse()
}

/// How many values each result of a scorer of `desc` carries at most: each
/// metric's (motion's integer_motion too), then the models'.
pub(crate) fn values_per_frame(desc: &ScorerDesc) -> usize {
    let metrics = desc.configs().unwrap_or_else(|_| desc.metrics.clone());
    let layout = desc.chroma.unwrap_or(Chroma::C444);
    metrics
        .iter()
        .map(|m| m.extractor().collected_names(layout).len())
        .sum::<usize>()
        + desc.models.output_names().len()
}

/// Refuses, before a result is taken, a scorer whose results carry up to
/// `n` values ([`values_per_frame`]) when they may not fit a [`VkssimScore`].
pub(crate) fn fits_a_score(n: usize) -> Result<(), Error> {
    if n > VKSSIM_MAX_OUTPUTS {
        return Err(Error::Unsupported(format!(
            "{n} values per frame: a VkssimScore holds at most {VKSSIM_MAX_OUTPUTS}; take \
             this scorer's results as frames (vkssim_scorer_wait_frame, \
             vkssim_multi_scorer_wait_frame)"
        )));
    }
    Ok(())
}

/// The `n` strings at `ptrs` (`what` names them in errors); none for NULL.
///
/// # Safety
/// `ptrs` must be NULL or hold `n` valid C strings.
unsafe fn c_strings(
    ptrs: *const *const c_char,
    n: usize,
    what: &str,
) -> Result<Vec<String>, Error> {
    if ptrs.is_null() || n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: per the contract.
    let ptrs = unsafe { std::slice::from_raw_parts(ptrs, n) };
    let mut out = Vec::with_capacity(n);
    for (i, &p) in ptrs.iter().enumerate() {
        if p.is_null() {
            return Err(null_arg(&format!("{what}[{i}]")));
        }
        // SAFETY: a valid C string per the contract.
        let text = unsafe { CStr::from_ptr(p) }
            .to_str()
            .map_err(|_| Error::InvalidOption(format!("{what}[{i}] is not UTF-8")))?;
        out.push(text.to_string());
    }
    Ok(out)
}

/// The chroma layout a description's `chroma` field gives (0: not given).
fn chroma_of(chroma: u32) -> Result<Option<Chroma>, Error> {
    Ok(match chroma {
        0 => None,
        420 => Some(Chroma::C420),
        422 => Some(Chroma::C422),
        444 => Some(Chroma::C444),
        400 => Some(Chroma::Mono),
        other => {
            return Err(Error::InvalidOption(format!(
                "chroma {other}: give 420, 422, 444, 400 or 0 (not given)"
            )))
        }
    })
}

/// A static C string for an output name (each made once, kept for the life
/// of the process).
pub(crate) fn c_name(name: &str) -> *const c_char {
    static NAMES: OnceLock<Mutex<HashMap<String, &'static CStr>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    names
        .entry(name.to_string())
        .or_insert_with(|| Box::leak(CString::new(name).unwrap_or_default().into_boxed_c_str()))
        .as_ptr()
}

/// A result's values as the C struct holds them.
pub(crate) fn outputs_of(s: &FrameScore) -> [VkssimOutput; VKSSIM_MAX_OUTPUTS] {
    let mut out = [VkssimOutput {
        name: std::ptr::null(),
        value: 0.0,
    }; VKSSIM_MAX_OUTPUTS];
    for (slot, (name, value)) in out.iter_mut().zip(s.iter()) {
        *slot = VkssimOutput {
            name: c_name(name),
            value,
        };
    }
    out
}

/// Writes to `out` the value `score` reports under libvmaf's name `name`
/// (`"psnr_y"`, `"float_ms_ssim"`, ...). `VKSSIM_ERROR_INVALID_ARGUMENT` when
/// it reports no such value.
///
/// # Safety
/// `score` must be a valid result, `name` a valid C string, `out` a valid
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_score_value(
    score: *const VkssimScore,
    name: *const c_char,
    out: *mut f64,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { score.as_ref() }.ok_or_else(|| null_arg("score"))?;
        if name.is_null() {
            return Err(null_arg("name"));
        }
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: a valid C string per the contract.
        let want = unsafe { CStr::from_ptr(name) };
        let n = (s.n_outputs as usize).min(VKSSIM_MAX_OUTPUTS);
        for o in &s.outputs[..n] {
            // SAFETY: every name up to n_outputs is one of `c_name`'s strings.
            if !o.name.is_null() && unsafe { CStr::from_ptr(o.name) } == want {
                // SAFETY: `out` is valid per the contract.
                unsafe { *out = o.value };
                return Ok(VkssimStatus::VkssimOk);
            }
        }
        Err(Error::InvalidOption(format!(
            "the result has no value named {}",
            want.to_string_lossy()
        )))
    })
}

/// Deprecated: use vkssim_scorer_submit with vkssim_pair_host and its chroma fields (the one submission call).
///
/// [`crate::vkssim_scorer_submit_host`] with each frame's three planes (luma,
/// Cb, Cr; strides in bytes), for metrics that read chroma (psnr): the chroma
/// planes of the scorer's layout as a file stores them (sides rounded up).
/// A scorer whose metrics read no chroma ignores them.
///
/// # Safety
/// `scorer` must be a live scorer; `reference` and `distorted` must each
/// point to 3 plane pointers and the strides to 3 values, each plane holding
/// its rows as [`crate::vkssim_scorer_submit_host`] says.
///
/// cbindgen:prefix=VKSSIM_DEPRECATED("use vkssim_scorer_submit with vkssim_pair_host and its chroma fields")
#[deprecated(note = "use vkssim_scorer_submit with vkssim_pair_host and its chroma fields")]
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit_host_planes(
    scorer: *mut VkssimScorer,
    reference: *const *const c_void,
    reference_strides: *const usize,
    distorted: *const *const c_void,
    distorted_strides: *const usize,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        let desc = s.scorer.desc();
        let luma = (desc.width, desc.height, desc.bit_depth);
        let chroma = chroma_size(&s.scorer);
        // SAFETY: forwarded from the caller's contract.
        let (r, rc) = unsafe { picture(reference, reference_strides, luma, chroma, "reference") }?;
        // SAFETY: as above.
        let (d, dc) = unsafe { picture(distorted, distorted_strides, luma, chroma, "distorted") }?;
        let pair = match (rc, dc) {
            (Some(rc), Some(dc)) => Pair::new(r, d).with_chroma(rc, dc),
            _ => Pair::new(r, d),
        };
        s.scorer.submit(pair)?;
        Ok(VkssimStatus::VkssimOk)
    })
}

/// The size of the Cb and Cr planes `scorer` reads (`None`: its metrics read
/// no chroma).
pub(crate) fn chroma_size(scorer: &Scorer) -> Option<(u32, u32)> {
    let metrics = scorer.metrics();
    metrics.needs_chroma().then(|| metrics.chroma_plane_size())
}

/// One frame's planes as a C caller gives them, `planes` and `strides`
/// pointing to 3 values each (luma, Cb, Cr): the luma plane of `luma`'s
/// geometry, and with `chroma` the Cb and Cr planes of that size at the same
/// bit depth (without it, neither is read). `which` names the frame in
/// errors.
///
/// # Safety
/// `planes` and `strides` must be NULL or point to 3 values each, every plane
/// read holding its rows as [`crate::vkssim_scorer_submit_host`] says, valid
/// and unwritten for `'a`.
pub(crate) unsafe fn picture<'a>(
    planes: *const *const c_void,
    strides: *const usize,
    luma: (u32, u32, u32),
    chroma: Option<(u32, u32)>,
    which: &str,
) -> Result<(HostPlane<'a>, Option<[HostPlane<'a>; 2]>), Error> {
    if planes.is_null() || strides.is_null() {
        return Err(null_arg(which));
    }
    // SAFETY: 3 pointers and 3 strides per the contract.
    let (p, s) = unsafe {
        (
            std::slice::from_raw_parts(planes, 3),
            std::slice::from_raw_parts(strides, 3),
        )
    };
    // SAFETY: forwarded from the caller's contract.
    let y = unsafe { scorer::host_plane(p[0], s[0], luma, which) }?;
    let Some((cw, ch)) = chroma else {
        return Ok((y, None));
    };
    let size = (cw, ch, luma.2);
    // SAFETY: as above.
    let cb = unsafe { scorer::host_plane(p[1], s[1], size, &format!("{which} Cb")) }?;
    // SAFETY: as above.
    let cr = unsafe { scorer::host_plane(p[2], s[2], size, &format!("{which} Cr")) }?;
    Ok((y, Some([cb, cr])))
}
