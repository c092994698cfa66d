//! The libvmaf oracle: scores luma pairs with the real libvmaf 2.3.1 (vendored by
//! `libvmaf-sys`) through its public C API, exactly as a libvmaf user would:
//! `vmaf_init`, `vmaf_use_feature("float_ssim", options)`, one
//! `vmaf_read_pictures` per frame, a flush, then `vmaf_feature_score_at_index`.
//!
//! The pictures get the same raw luma bytes that vkssim gets ([`LumaView`]);
//! chroma is left at zero, since float_ssim reads luma only.

use std::ffi::{c_char, c_uint, CStr, CString};
use std::ptr;

use libvmaf_sys as sys;
use vkssim::{LumaView, SsimOptions};

/// One frame as libvmaf reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LibvmafFrame {
    /// `float_ssim`: the SSIM mean, or its dB figure with `enable_db`.
    pub float_ssim: f64,
    /// `float_ssim_l`, `float_ssim_c`, `float_ssim_s` with `enable_lcs`.
    pub lcs: Option<[f64; 3]>,
}

/// libvmaf's version string (`"2.3.1"` for libvmaf-sys 0.4.4).
pub fn libvmaf_version() -> String {
    // SAFETY: vmaf_version returns a pointer to a static NUL-terminated string.
    unsafe { CStr::from_ptr(sys::vmaf_version()) }
        .to_string_lossy()
        .into_owned()
}

/// Owns a `VmafContext` and closes it on drop.
struct Context(*mut sys::VmafContext);

impl Drop for Context {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: self.0 came from a successful vmaf_init and is closed once.
            unsafe { sys::vmaf_close(self.0) };
        }
    }
}

/// Panics with `what` when a libvmaf call returned an error code.
fn check(rc: i32, what: &str) {
    assert!(rc == 0, "libvmaf: {what} failed with {rc}");
}

/// A `VmafPicture` holding `view`'s luma (chroma zero). The caller hands it to
/// libvmaf, which takes ownership, or releases it with `vmaf_picture_unref`.
pub(crate) fn picture_from_view(view: &LumaView<'_>) -> sys::VmafPicture {
    // SAFETY: VmafPicture is plain old data; vmaf_picture_alloc initialises it.
    let mut pic: sys::VmafPicture = unsafe { std::mem::zeroed() };
    // SAFETY: `pic` is a valid out-pointer; the arguments are in libvmaf's range
    // (bpc 8..16 as LumaView guarantees).
    let rc = unsafe {
        sys::vmaf_picture_alloc(
            &mut pic,
            sys::VmafPixelFormat::VMAF_PIX_FMT_YUV420P,
            view.bit_depth,
            view.width,
            view.height,
        )
    };
    check(rc, "vmaf_picture_alloc");
    let (w, h) = (view.width as usize, view.height as usize);
    let stride = pic.stride[0] as usize;
    let hbd = view.bit_depth > 8;
    for y in 0..h {
        // SAFETY: the luma plane holds h rows of `stride` bytes, and a row of w
        // samples (w or 2w bytes) fits in `stride` (libvmaf aligns it up).
        let row = unsafe {
            std::slice::from_raw_parts_mut(
                (pic.data[0] as *mut u8).add(y * stride),
                if hbd { 2 * w } else { w },
            )
        };
        if hbd {
            for x in 0..w {
                let v = view.sample(x, y) as u16;
                row[2 * x..2 * x + 2].copy_from_slice(&v.to_ne_bytes());
            }
        } else {
            let src = &view.bytes[y * view.row_stride..y * view.row_stride + w];
            row.copy_from_slice(src);
        }
    }
    pic
}

/// Builds libvmaf's option dictionary for `float_ssim`. `scale` is not an option
/// of libvmaf 2.3.1 and must be 0 (auto).
fn options_dict(opts: &SsimOptions) -> *mut sys::VmafFeatureDictionary {
    assert_eq!(
        opts.scale, 0,
        "libvmaf 2.3.1 has no scale option; use stages::libvmaf_at_scale"
    );
    let mut dict: *mut sys::VmafFeatureDictionary = ptr::null_mut();
    for (key, on) in [
        ("enable_lcs", opts.enable_lcs),
        ("enable_db", opts.enable_db),
        ("clip_db", opts.clip_db),
    ] {
        if on {
            let k = CString::new(key).expect("no NUL in key");
            let v = CString::new("true").expect("no NUL in value");
            // SAFETY: dict is null or a dictionary libvmaf made; k and v are valid
            // C strings that libvmaf copies.
            let rc = unsafe { sys::vmaf_feature_dictionary_set(&mut dict, k.as_ptr(), v.as_ptr()) };
            check(rc, "vmaf_feature_dictionary_set");
        }
    }
    dict
}

/// Reads one feature score for frame `index`.
fn score(ctx: &Context, name: &CStr, index: u32) -> f64 {
    let mut v = f64::NAN;
    // SAFETY: ctx is an open context, name a valid C string, v a valid out-pointer.
    let rc = unsafe {
        sys::vmaf_feature_score_at_index(ctx.0, name.as_ptr() as *const c_char, &mut v, index)
    };
    check(
        rc,
        &format!("vmaf_feature_score_at_index({name:?}, {index})"),
    );
    v
}

/// Scores every (reference, distorted) pair with libvmaf's `float_ssim` and the
/// given options (which must have `scale == 0`). Frames are numbered from 0 in
/// the order given. Panics, naming the call, if libvmaf reports an error; a pair
/// of different geometry is a caller bug and panics too.
pub fn libvmaf_float_ssim<'a, I>(pairs: I, opts: &SsimOptions) -> Vec<LibvmafFrame>
where
    I: IntoIterator<Item = (LumaView<'a>, LumaView<'a>)>,
{
    let cfg = sys::VmafConfiguration {
        log_level: sys::VmafLogLevel::VMAF_LOG_LEVEL_NONE,
        n_threads: 0,
        n_subsample: 0,
        cpumask: 0,
    };
    let mut raw: *mut sys::VmafContext = ptr::null_mut();
    // SAFETY: raw is a valid out-pointer; cfg is passed by value.
    check(unsafe { sys::vmaf_init(&mut raw, cfg) }, "vmaf_init");
    let ctx = Context(raw);

    let dict = options_dict(opts);
    let name = CString::new("float_ssim").expect("no NUL");
    // SAFETY: the context is open; libvmaf takes ownership of dict on success.
    let rc = unsafe { sys::vmaf_use_feature(ctx.0, name.as_ptr(), dict) };
    if rc != 0 && !dict.is_null() {
        let mut d = dict;
        // SAFETY: on failure the dictionary is still ours to free.
        unsafe { sys::vmaf_feature_dictionary_free(&mut d) };
    }
    check(rc, "vmaf_use_feature(float_ssim)");

    let mut n: u32 = 0;
    for (r, d) in pairs {
        assert!(
            (r.width, r.height, r.bit_depth) == (d.width, d.height, d.bit_depth),
            "oracle: frame {n}: reference {}x{} {}-bit, distorted {}x{} {}-bit",
            r.width,
            r.height,
            r.bit_depth,
            d.width,
            d.height,
            d.bit_depth
        );
        let mut rp = picture_from_view(&r);
        let mut dp = picture_from_view(&d);
        // SAFETY: both pictures were allocated by vmaf_picture_alloc; libvmaf
        // takes ownership of them (and unrefs them) whatever it returns.
        let rc = unsafe { sys::vmaf_read_pictures(ctx.0, &mut rp, &mut dp, n as c_uint) };
        check(rc, &format!("vmaf_read_pictures(frame {n})"));
        n += 1;
    }
    // SAFETY: null pictures ask libvmaf to flush; the context is open.
    let rc = unsafe { sys::vmaf_read_pictures(ctx.0, ptr::null_mut(), ptr::null_mut(), 0) };
    check(rc, "vmaf_read_pictures(flush)");

    let names =
        ["float_ssim_l", "float_ssim_c", "float_ssim_s"].map(|s| CString::new(s).expect("no NUL"));
    (0..n)
        .map(|i| LibvmafFrame {
            float_ssim: score(&ctx, &name, i),
            lcs: opts
                .enable_lcs
                .then(|| names.each_ref().map(|s| score(&ctx, s, i))),
        })
        .collect()
}

/// [`libvmaf_float_ssim`] for one pair.
pub fn libvmaf_float_ssim_one(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    opts: &SsimOptions,
) -> LibvmafFrame {
    libvmaf_float_ssim([(*reference, *distorted)], opts)[0]
}
