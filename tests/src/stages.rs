//! libvmaf's own float_ssim stages at a scale the caller picks: the oracle for
//! vkssim's explicit `scale=N`, which libvmaf 2.3.1's public API lacks (it always
//! picks the scale from the frame size).
//!
//! libvmaf.so exports its internal functions, so this module calls libvmaf's code
//! for every arithmetic step, in the order libvmaf's own `compute_ssim` runs them:
//! `picture_copy` (samples to floats), `_iqa_decimate` with libvmaf's box kernel
//! (only when the scale is above 1), and `_iqa_ssim` with the 11-tap Gaussian
//! window. The only inputs supplied here are the kernels' tap values (1/N² for the
//! box, the Gaussian's eleven fp32 literals). Tests check this composition against
//! the public API at the auto scale ([`crate::oracle`]), which validates them.
//!
//! The structures below mirror libvmaf 2.3.1's `struct _kernel` (iqa/convolve.h)
//! field for field; `libvmaf-sys` is pinned to `=0.4.4`, so the layout is fixed.

use std::ffi::{c_int, c_uint, c_void};
use std::ptr;

use libvmaf_sys as sys;
use vkssim::LumaView;

/// libvmaf's out-of-bounds pixel callback type (`_iqa_get_pixel`).
type GetPixel = unsafe extern "C" fn(*const f32, c_int, c_int, c_int, c_int, f32) -> f32;

/// Mirror of libvmaf's `struct _kernel` (iqa/convolve.h, libvmaf 2.3.1).
#[repr(C)]
struct Kernel {
    kernel: *mut f32,
    kernel_h: *mut f32,
    kernel_v: *mut f32,
    w: c_int,
    h: c_int,
    normalized: c_int,
    bnd_opt: Option<GetPixel>,
    bnd_const: f32,
}

extern "C" {
    /// libvmaf's sample conversion (feature/picture_copy.c).
    fn picture_copy(
        dst: *mut f32,
        dst_stride: isize,
        src: *mut sys::VmafPicture,
        offset: c_int,
        bpc: c_uint,
    );
    /// libvmaf's box decimation (feature/iqa/decimate.c).
    fn _iqa_decimate(
        img: *mut f32,
        w: c_int,
        h: c_int,
        factor: c_int,
        k: *const Kernel,
        result: *mut f32,
        rw: *mut c_int,
        rh: *mut c_int,
    ) -> c_int;
    /// libvmaf's SSIM over a plane (feature/iqa/ssim_tools.c).
    fn _iqa_ssim(
        reference: *mut f32,
        cmp: *mut f32,
        w: c_int,
        h: c_int,
        k: *const Kernel,
        mr: *const c_void,
        args: *const c_void,
        l_mean: *mut f32,
        c_mean: *mut f32,
        s_mean: *mut f32,
    ) -> f32;
    /// libvmaf's mirroring boundary rule (feature/iqa/convolve.c).
    fn KBND_SYMMETRIC(img: *const f32, w: c_int, h: c_int, x: c_int, y: c_int, c: f32) -> f32;
}

/// The 11-tap Gaussian of libvmaf's SSIM window (fp32 literals).
const GAUSSIAN: [f32; 11] = [
    0.001028, 0.007599, 0.036001, 0.109361, 0.213006, 0.266012, 0.213006, 0.109361, 0.036001,
    0.007599, 0.001028,
];

/// SSIM means as libvmaf's stages produce them, each an fp32 widened to f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageScore {
    /// The SSIM mean.
    pub ssim: f64,
    /// Mean luminance term.
    pub l: f64,
    /// Mean contrast term.
    pub c: f64,
    /// Mean structure term.
    pub s: f64,
    /// Plane size after decimation.
    pub scaled: (u32, u32),
}

/// libvmaf's float samples of a luma view, packed (`w * h` floats).
fn floats(view: &LumaView<'_>) -> Vec<f32> {
    let mut pic = crate::oracle::picture_from_view(view);
    let mut out = vec![0f32; view.width as usize * view.height as usize];
    // SAFETY: `out` holds h rows of w floats, the stride passed is one row in
    // bytes, and `pic` is a valid picture of w x h samples at `bit_depth`.
    unsafe {
        picture_copy(
            out.as_mut_ptr(),
            (view.width as usize * 4) as isize,
            &mut pic,
            0,
            view.bit_depth,
        );
        sys::vmaf_picture_unref(&mut pic);
    }
    out
}

/// The plane size libvmaf's decimation gives at `scale` (`w / scale + (w & 1)`).
pub fn decimated_size(width: u32, height: u32, scale: u32) -> (u32, u32) {
    if scale <= 1 {
        (width, height)
    } else {
        (width / scale + (width & 1), height / scale + (height & 1))
    }
}

/// libvmaf's automatic scale for a `width` x `height` plane, from the formula in
/// libvmaf's compute_ssim: `max(1, round(f32(min(w, h)) / 256.0f))`.
pub fn auto_scale(width: u32, height: u32) -> u32 {
    let a = width.min(height) as f32 / 256.0f32;
    let t = a as i32;
    let r = if a - t as f32 >= 0.5 { t + 1 } else { t };
    r.max(1) as u32
}

/// The box kernel libvmaf's compute_ssim builds for `scale`: every tap
/// `1.0f / (scale * scale)`, not normalised, mirrored at the borders. The tap
/// arrays are returned with it and must outlive every use of the kernel.
fn low_pass(scale: u32) -> (Kernel, Vec<f32>, Vec<f32>) {
    let n = scale as usize;
    let mut taps = vec![1.0f32 / (n * n) as f32; n * n];
    let mut taps_1d = vec![1.0f32 / n as f32; n];
    let k = Kernel {
        kernel: taps.as_mut_ptr(),
        kernel_h: taps_1d.as_mut_ptr(),
        kernel_v: taps_1d.as_mut_ptr(),
        w: scale as c_int,
        h: scale as c_int,
        normalized: 0,
        bnd_opt: Some(KBND_SYMMETRIC),
        bnd_const: 0.0,
    };
    (k, taps, taps_1d)
}

/// libvmaf's decimation of one luma plane at `scale` (2..=128): its float
/// samples, box-filtered and subsampled by `_iqa_decimate`. Returns the width,
/// height and packed values of the decimated plane.
pub fn libvmaf_decimate(view: &LumaView<'_>, scale: u32) -> (u32, u32, Vec<f32>) {
    assert!(
        (2..=128).contains(&scale),
        "stages: scale {scale} out of 2..=128"
    );
    let mut img = floats(view);
    let (k, _taps, _taps_1d) = low_pass(scale);
    let (mut rw, mut rh) = (0, 0);
    // SAFETY: img holds width * height floats; the kernel's taps are alive
    // (_taps, _taps_1d); a null result decimates in place; rw/rh are valid.
    let rc = unsafe {
        _iqa_decimate(
            img.as_mut_ptr(),
            view.width as c_int,
            view.height as c_int,
            scale as c_int,
            &k,
            ptr::null_mut(),
            &mut rw,
            &mut rh,
        )
    };
    assert_eq!(rc, 0, "libvmaf: _iqa_decimate failed with {rc}");
    img.truncate(rw as usize * rh as usize);
    (rw as u32, rh as u32, img)
}

/// Scores a pair with libvmaf's stages at `scale` (1 = no decimation). Returns
/// `None` when the decimated plane is smaller than the 11 x 11 window. Panics if
/// the pair differs in geometry or libvmaf reports a failure.
pub fn libvmaf_at_scale(
    reference: &LumaView<'_>,
    distorted: &LumaView<'_>,
    scale: u32,
) -> Option<StageScore> {
    assert!(
        (reference.width, reference.height, reference.bit_depth)
            == (distorted.width, distorted.height, distorted.bit_depth),
        "stages: reference and distorted differ in geometry"
    );
    assert!(
        (1..=128).contains(&scale),
        "stages: scale {scale} out of 1..=128"
    );
    let (sw, sh) = decimated_size(reference.width, reference.height, scale);
    if sw < 11 || sh < 11 {
        return None;
    }
    let (w, h) = (reference.width as c_int, reference.height as c_int);
    let mut r = floats(reference);
    let mut d = floats(distorted);
    let (mut rw, mut rh) = (w, h);
    if scale > 1 {
        let (k, _taps, _taps_1d) = low_pass(scale);
        // SAFETY: r and d hold w * h floats; the kernel's taps are alive (_taps,
        // _taps_1d); a null result decimates in place, as libvmaf's compute_ssim
        // does; rw/rh are valid out-pointers.
        let rc = unsafe {
            _iqa_decimate(
                r.as_mut_ptr(),
                w,
                h,
                scale as c_int,
                &k,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            ) | _iqa_decimate(
                d.as_mut_ptr(),
                w,
                h,
                scale as c_int,
                &k,
                ptr::null_mut(),
                &mut rw,
                &mut rh,
            )
        };
        assert_eq!(rc, 0, "libvmaf: _iqa_decimate failed with {rc}");
        assert_eq!(
            (rw as u32, rh as u32),
            (sw, sh),
            "libvmaf decimated to an unexpected size"
        );
    }
    let mut g = GAUSSIAN;
    let window = Kernel {
        kernel: g.as_mut_ptr(),
        kernel_h: g.as_mut_ptr(),
        kernel_v: g.as_mut_ptr(),
        w: 11,
        h: 11,
        normalized: 1,
        bnd_opt: Some(KBND_SYMMETRIC),
        bnd_const: 0.0,
    };
    let (mut l, mut c, mut s) = (0f32, 0f32, 0f32);
    // SAFETY: r and d hold at least rw * rh floats (decimation only shrinks);
    // the window's taps live in `g`; null map-reduce and args select libvmaf's
    // default path (the one compute_ssim takes), which writes the three means.
    let ssim = unsafe {
        _iqa_ssim(
            r.as_mut_ptr(),
            d.as_mut_ptr(),
            rw,
            rh,
            &window,
            ptr::null(),
            ptr::null(),
            &mut l,
            &mut c,
            &mut s,
        )
    };
    Some(StageScore {
        ssim: ssim as f64,
        l: l as f64,
        c: c as f64,
        s: s as f64,
        scaled: (sw, sh),
    })
}
