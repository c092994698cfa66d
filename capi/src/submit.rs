//! One way in, as the Rust API has it: device planes imported once
//! ([`vkssim_engine_import_plane`], a [`VkssimImport`] handle with a release
//! callback), and one [`vkssim_scorer_submit`] taking a versioned
//! [`VkssimPair`] of frame sources (host planes, a shared reference, imported
//! planes) with the semaphores a device-resident pair waits on and signals.

use super::*;
use vkssim::api::ScoreQueue;
use vkssim::api::{ImportedPlane, Pair, Source};

use crate::image::{device_plane, semaphores, VkssimDeviceSource};
use crate::scorer::host_plane;
use crate::shared::VkssimSharedPlane;

/// A plane of the host's buffer or image imported on an engine's device.
/// Opaque. Destroying the handle never destroys the host's object: vkssim lets
/// go of it once the handle is destroyed and every pair that read it is done,
/// and then calls the callback of [`vkssim_import_on_release`]. May be used
/// from several threads at once.
pub struct VkssimImport {
    pub(crate) plane: ImportedPlane,
}

/// `VkssimFrameSource.kind`: a plane in host memory (`host`, `host_stride`).
pub const VKSSIM_FRAME_HOST: u32 = 0;
/// `VkssimFrameSource.kind`: a shared reference plane (`shared`).
pub const VKSSIM_FRAME_SHARED: u32 = 1;
/// `VkssimFrameSource.kind`: an imported device plane (`imported`).
pub const VKSSIM_FRAME_IMPORTED: u32 = 2;

/// Where one plane of a [`VkssimPair`] is; `kind` says which field is read.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimFrameSource {
    /// `VKSSIM_FRAME_HOST`, `VKSSIM_FRAME_SHARED` or `VKSSIM_FRAME_IMPORTED`.
    pub kind: u32,
    /// Host: the samples (`uint8_t` at 8 bits, `uint16_t` above).
    pub host: *const c_void,
    /// Host: bytes between the starts of consecutive rows.
    pub host_stride: usize,
    /// Shared: the reference plane.
    pub shared: *const VkssimSharedPlane,
    /// Imported: the plane.
    pub imported: *const VkssimImport,
}

/// A pair for [`vkssim_scorer_submit`]: both planes on the host, a shared
/// reference with a host distorted plane, or both imported (only then may it
/// have semaphores), with the host Cb and Cr planes metrics that read chroma
/// need. Versioned: set `struct_size` to `sizeof(VkssimPair)` (or start from
/// `vkssim_pair_host`/`vkssim_pair_shared`/`vkssim_pair_imported`, which
/// do); later versions only append fields (a `struct_size` that ends before
/// `reference_chroma`, the first version's, is read without chroma).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VkssimPair {
    /// `sizeof(VkssimPair)`.
    pub struct_size: usize,
    /// The reference plane.
    pub reference: VkssimFrameSource,
    /// The distorted plane.
    pub distorted: VkssimFrameSource,
    /// Semaphores the pair's work waits for (NULL when `n_waits` is 0).
    pub waits: *const VkssimSemaphore,
    /// How many.
    pub n_waits: usize,
    /// Semaphores signalled when its results are written (NULL when
    /// `n_signals` is 0).
    pub signals: *const VkssimSemaphore,
    /// How many.
    pub n_signals: usize,
    /// The reference's Cb and Cr planes in host memory (2 pointers; samples
    /// as `host`'s, sides as the scorer's chroma layout stores them, rounded
    /// up), with a host reference plane; NULL: none. Read only when the
    /// scorer's metrics read chroma (psnr), which then needs them.
    pub reference_chroma: *const *const c_void,
    /// Their strides in bytes (2 values; NULL when `reference_chroma` is).
    pub reference_chroma_strides: *const usize,
    /// The distorted frame's Cb and Cr planes in host memory, as
    /// `reference_chroma` (with a host or shared reference: a shared one
    /// holds its own chroma, `vkssim_shared_planes_upload_picture`).
    pub distorted_chroma: *const *const c_void,
    /// Their strides in bytes (2 values; NULL when `distorted_chroma` is).
    pub distorted_chroma_strides: *const usize,
}

fn no_source(kind: u32) -> VkssimFrameSource {
    VkssimFrameSource {
        kind,
        host: std::ptr::null(),
        host_stride: 0,
        shared: std::ptr::null(),
        imported: std::ptr::null(),
    }
}

fn pair_of(reference: VkssimFrameSource, distorted: VkssimFrameSource) -> VkssimPair {
    VkssimPair {
        struct_size: std::mem::size_of::<VkssimPair>(),
        reference,
        distorted,
        waits: std::ptr::null(),
        n_waits: 0,
        signals: std::ptr::null(),
        n_signals: 0,
        reference_chroma: std::ptr::null(),
        reference_chroma_strides: std::ptr::null(),
        distorted_chroma: std::ptr::null(),
        distorted_chroma_strides: std::ptr::null(),
    }
}

/// A pair of host planes (rows `*_stride` bytes apart), no semaphores.
#[no_mangle]
pub extern "C" fn vkssim_pair_host(
    reference: *const c_void,
    reference_stride: usize,
    distorted: *const c_void,
    distorted_stride: usize,
) -> VkssimPair {
    let host = |p, stride| VkssimFrameSource {
        host: p,
        host_stride: stride,
        ..no_source(VKSSIM_FRAME_HOST)
    };
    pair_of(
        host(reference, reference_stride),
        host(distorted, distorted_stride),
    )
}

/// A pair of imported planes, no semaphores (set `waits`, `signals` and their
/// counts as needed).
#[no_mangle]
pub extern "C" fn vkssim_pair_imported(
    reference: *const VkssimImport,
    distorted: *const VkssimImport,
) -> VkssimPair {
    let imported = |p| VkssimFrameSource {
        imported: p,
        ..no_source(VKSSIM_FRAME_IMPORTED)
    };
    pair_of(imported(reference), imported(distorted))
}

/// A shared reference with a host distorted plane.
#[no_mangle]
pub extern "C" fn vkssim_pair_shared(
    reference: *const VkssimSharedPlane,
    distorted: *const c_void,
    distorted_stride: usize,
) -> VkssimPair {
    pair_of(
        VkssimFrameSource {
            shared: reference,
            ..no_source(VKSSIM_FRAME_SHARED)
        },
        VkssimFrameSource {
            host: distorted,
            host_stride: distorted_stride,
            ..no_source(VKSSIM_FRAME_HOST)
        },
    )
}

/// Imports a plane of one of the host's buffers or images (see
/// `VkssimDeviceSource`) for scorers of `bit_depth` bits (a buffer's samples
/// are bytes at 8 bits, 16-bit words above); `out` receives the handle.
///
/// # Safety
/// `engine` must be a live engine, `source` a valid struct naming a valid
/// buffer or image of the engine's device that holds the plane (as
/// `VkssimDeviceSource` says) and stays alive until vkssim lets go of it
/// ([`vkssim_import_on_release`]); `out` a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn vkssim_engine_import_plane(
    engine: *const VkssimEngine,
    source: *const VkssimDeviceSource,
    bit_depth: u32,
    out: *mut *mut VkssimImport,
) -> VkssimStatus {
    guard(|| {
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: per the contract.
        let e = unsafe { engine.as_ref() }.ok_or_else(|| null_arg("engine"))?;
        // SAFETY: per the contract.
        let s = unsafe { source.as_ref() }.ok_or_else(|| null_arg("source"))?;
        // SAFETY: forwarded from the caller's contract.
        let plane = unsafe { import(&e.engine, s, bit_depth, "source") }?;
        // SAFETY: `out` is valid per the contract.
        unsafe { *out = Box::into_raw(Box::new(VkssimImport { plane })) };
        Ok(VkssimStatus::VkssimOk)
    })
}

/// `s` imported on `engine` for scorers of `bit_depth`.
///
/// # Safety
/// As [`vkssim_engine_import_plane`] for the object `s` names.
pub(crate) unsafe fn import(
    engine: &Engine,
    s: &VkssimDeviceSource,
    bit_depth: u32,
    which: &str,
) -> Result<ImportedPlane, Error> {
    match device_plane(s, bit_depth, which)? {
        // SAFETY: forwarded from the caller's contract.
        Ok(buffer) => unsafe { engine.import_buffer(buffer) },
        // SAFETY: forwarded from the caller's contract.
        Err(image) => unsafe { engine.import_image(image) },
    }
}

/// Calls `release(user)` once vkssim no longer uses the imported object:
/// after [`vkssim_import_destroy`] and once every pair that read it is done
/// (from the thread that let go last). A second call replaces the first.
///
/// # Safety
/// `import` must be a live import; `release` must be safe to call with `user`
/// from any thread.
#[no_mangle]
pub unsafe extern "C" fn vkssim_import_on_release(
    import: *const VkssimImport,
    release: Option<unsafe extern "C" fn(user: *mut c_void)>,
    user: *mut c_void,
) -> VkssimStatus {
    /// The host's pointer, sent to the thread that lets go last.
    struct User(*mut c_void);
    // SAFETY: the caller promised `release` may be called with `user` from
    // any thread.
    unsafe impl Send for User {}
    guard(|| {
        // SAFETY: per the contract.
        let i = unsafe { import.as_ref() }.ok_or_else(|| null_arg("import"))?;
        let release = release.ok_or_else(|| null_arg("release"))?;
        let user = User(user);
        i.plane.on_release(move || {
            let user = user;
            // SAFETY: the caller's callback, with its own pointer (contract).
            unsafe { release(user.0) }
        });
        Ok(VkssimStatus::VkssimOk)
    })
}

/// Whether a pair in flight still reads the imported plane (false for NULL).
///
/// # Safety
/// `import` must be NULL or a live import.
#[no_mangle]
pub unsafe extern "C" fn vkssim_import_in_use(import: *const VkssimImport) -> bool {
    // SAFETY: per the contract.
    unsafe { import.as_ref() }.is_some_and(|i| i.plane.in_use())
}

/// Destroys the handle (NULL is ignored); the host's object is released as
/// [`vkssim_import_on_release`] says.
///
/// # Safety
/// `import` must be NULL or a live import, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn vkssim_import_destroy(import: *mut VkssimImport) {
    if !import.is_null() {
        // SAFETY: created by Box::into_raw, destroyed once per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(import) })));
    }
}

/// Queues a pair (see [`VkssimPair`]); host planes are copied before the call
/// returns; blocks while the scorer's ring is full. A sample above the bit
/// depth does not fail the call, wherever it is found: the pair keeps its
/// frame number and its result (`vkssim_scorer_poll_frame`,
/// `vkssim_scorer_wait_frame`) is the error naming the sample. When only
/// the distorted picture is refused the stream goes on through the pair's
/// reference (the next frame's motion compares against it, as libvmaf's
/// would); when the reference is, the next frame starts another stream.
///
/// # Safety
/// `scorer` must be a live scorer and `pair` a valid struct: host planes
/// holding `height` rows of their stride (the last one at least a row),
/// suitably aligned; shared planes and imports live; the semaphore arrays of
/// their counts, naming valid semaphores of the engine's device (binary
/// waits with a signal pending, binary signals unsignalled).
#[no_mangle]
pub unsafe extern "C" fn vkssim_scorer_submit(
    scorer: *mut VkssimScorer,
    pair: *const VkssimPair,
) -> VkssimStatus {
    guard(|| {
        // SAFETY: per the contract.
        let s = unsafe { scorer.as_mut() }.ok_or_else(|| null_arg("scorer"))?;
        let desc = s.scorer.desc().clone();
        let chroma = crate::metrics::chroma_size(&s.scorer);
        let geometry = (desc.width, desc.height, desc.bit_depth);
        // SAFETY: per the contract.
        let pair = unsafe { rust_pair(pair, geometry, chroma) }?;
        s.scorer.submit(pair)?;
        Ok(VkssimStatus::VkssimOk)
    })
}

/// The Rust pair `p` describes for a scorer of `geometry` whose metrics read
/// chroma planes of size `chroma` (`None`: no chroma read).
///
/// # Safety
/// As [`vkssim_scorer_submit`] for `p`.
pub(crate) unsafe fn rust_pair<'a>(
    p: *const VkssimPair,
    geometry: (u32, u32, u32),
    chroma: Option<(u32, u32)>,
) -> Result<Pair<'a>, Error> {
    // SAFETY: per the contract.
    let p = unsafe { p.as_ref() }.ok_or_else(|| null_arg("pair"))?;
    let v1 = std::mem::offset_of!(VkssimPair, reference_chroma);
    if p.struct_size < v1 {
        return Err(Error::InvalidOption(format!(
            "the VkssimPair has struct_size {} (this vkssim needs at least {v1}: set it to \
             sizeof(VkssimPair))",
            p.struct_size
        )));
    }
    // SAFETY: per the contract.
    let r = unsafe { source(&p.reference, geometry, "reference") }?;
    // SAFETY: per the contract.
    let d = unsafe { source(&p.distorted, geometry, "distorted") }?;
    let mut pair = Pair::new(r, d);
    if let Some(size) = chroma.filter(|_| p.struct_size >= std::mem::size_of::<VkssimPair>()) {
        let size = (size.0, size.1, geometry.2);
        // SAFETY: per the contract (2 planes and strides where non-NULL).
        let rc = unsafe {
            cbcr(
                p.reference_chroma,
                p.reference_chroma_strides,
                size,
                "reference",
            )
        }?;
        // SAFETY: as above.
        let dc = unsafe {
            cbcr(
                p.distorted_chroma,
                p.distorted_chroma_strides,
                size,
                "distorted",
            )
        }?;
        pair = match (rc, dc) {
            (Some(rc), Some(dc)) => pair.with_chroma(rc, dc),
            (None, Some(dc)) => pair.with_distorted_chroma(dc),
            (Some(_), None) => {
                return Err(Error::InvalidOption(
                    "the pair has the reference's Cb and Cr planes but not the distorted \
                     frame's"
                        .into(),
                ))
            }
            (None, None) => pair,
        };
    }
    // SAFETY: per the contract.
    for w in unsafe { semaphores(p.waits, p.n_waits, "waits") }? {
        // SAFETY: a valid semaphore of the device with its signal pending
        // (the caller's contract).
        pair = unsafe { pair.wait(w) };
    }
    // SAFETY: per the contract.
    for s in unsafe { semaphores(p.signals, p.n_signals, "signals") }? {
        // SAFETY: a valid, unsignalled semaphore of the device (contract).
        pair = unsafe { pair.signal(s) };
    }
    Ok(pair)
}

/// The Cb and Cr host planes of size `size` at `planes` (2 pointers) and
/// `strides` (2 values); `None` when `planes` is NULL. `which` names the
/// frame in errors.
///
/// # Safety
/// `planes` must be NULL or point to 2 plane pointers and `strides` to 2
/// values, each plane holding its rows as `vkssim_scorer_submit` says.
unsafe fn cbcr<'a>(
    planes: *const *const c_void,
    strides: *const usize,
    size: (u32, u32, u32),
    which: &str,
) -> Result<Option<[vkssim::api::HostPlane<'a>; 2]>, Error> {
    if planes.is_null() {
        return Ok(None);
    }
    if strides.is_null() {
        return Err(null_arg(&format!("{which}_chroma_strides")));
    }
    // SAFETY: 2 pointers and 2 strides per the contract.
    let (p, s) = unsafe {
        (
            std::slice::from_raw_parts(planes, 2),
            std::slice::from_raw_parts(strides, 2),
        )
    };
    // SAFETY: forwarded from the caller's contract.
    let cb = unsafe { host_plane(p[0], s[0], size, &format!("{which} Cb")) }?;
    // SAFETY: as above.
    let cr = unsafe { host_plane(p[1], s[1], size, &format!("{which} Cr")) }?;
    Ok(Some([cb, cr]))
}

/// The Rust source `s` describes.
///
/// # Safety
/// As [`vkssim_scorer_submit`] for the field `s.kind` names.
unsafe fn source<'a>(
    s: &VkssimFrameSource,
    geometry: (u32, u32, u32),
    which: &str,
) -> Result<Source<'a>, Error> {
    match s.kind {
        VKSSIM_FRAME_HOST => {
            // SAFETY: forwarded from the caller's contract.
            let plane = unsafe { host_plane(s.host, s.host_stride, geometry, which) }?;
            Ok(plane.into())
        }
        VKSSIM_FRAME_SHARED => {
            // SAFETY: a live plane per the contract, alive for the call.
            let p = unsafe { s.shared.as_ref() }.ok_or_else(|| null_arg(which))?;
            Ok((&p.plane).into())
        }
        VKSSIM_FRAME_IMPORTED => {
            // SAFETY: a live import per the contract, alive for the call.
            let p = unsafe { s.imported.as_ref() }.ok_or_else(|| null_arg(which))?;
            Ok((&p.plane).into())
        }
        k => Err(Error::InvalidOption(format!(
            "the {which} VkssimFrameSource has kind {k} (VKSSIM_FRAME_HOST = 0, \
             VKSSIM_FRAME_SHARED = 1, VKSSIM_FRAME_IMPORTED = 2)"
        ))),
    }
}
