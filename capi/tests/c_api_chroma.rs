//! Shared references that hold whole pictures through the C API, for scorers
//! whose psnr reads chroma: pools made for a description
//! (`vkssim_shared_planes_create_desc`, `vkssim_scorer_shared_planes`),
//! pictures uploaded once (`vkssim_shared_planes_upload_picture`) and scored
//! with the distorted frame's three planes
//! (`vkssim_scorer_submit_host_shared_planes`) on an engine with validation
//! on; every output equal, bit for bit, to the same pairs submitted without
//! sharing (`vkssim_scorer_submit_host_planes`) and to the CPU twin's. Then
//! the refusals, each with its status and message.

use std::ffi::{c_char, c_void, CString};
use std::ptr;
use vkssim::api::ScoreQueue;

use vkssim::api::{HostPlane, Pair, Scorer, ScorerDesc};
use vkssim::io::Chroma;
use vkssim::metric::config::parse_list;
use vkssim::FrameScore;
use vkssim_capi::*;

#[allow(dead_code)] // each test binary uses part of it
mod common;
use common::{c_desc, engine_with_validation, ok, refused};

/// One plane as a C caller holds it: native `uint8_t` or `uint16_t` samples,
/// rows `stride` bytes apart, the padding filled with 0xEE (it must not be
/// read), in 2-byte aligned storage.
struct Rows {
    words: Vec<u16>,
    stride: usize,
    wide: bool,
}

impl Rows {
    /// A `w` x `h` plane of pseudo-random samples at `bit_depth` bits
    /// (texture on a gradient; `seed` picks it), `padding` bytes after each row.
    fn new((w, h): (u32, u32), bit_depth: u32, seed: u32, padding: usize) -> Self {
        let wide = bit_depth > 8;
        let bps = if wide { 2 } else { 1 };
        let (w, h) = (w as usize, h as usize);
        let stride = w * bps + padding;
        let mut bytes = vec![0xEEu8; (stride * h).next_multiple_of(2)];
        let mut state = seed.wrapping_mul(2_654_435_761).max(1);
        let max = (1u32 << bit_depth) - 1;
        for y in 0..h {
            for x in 0..w {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let s = ((((x + 2 * y) as u32) << (bit_depth - 8)) / 3 + state % 97).min(max);
                let at = y * stride + x * bps;
                if wide {
                    bytes[at..at + 2].copy_from_slice(&(s as u16).to_ne_bytes());
                } else {
                    bytes[at] = s as u8;
                }
            }
        }
        let words = bytes
            .chunks(2)
            .map(|c| u16::from_ne_bytes([c[0], c[1]]))
            .collect();
        Self {
            words,
            stride,
            wide,
        }
    }

    fn ptr(&self) -> *const c_void {
        self.words.as_ptr().cast()
    }

    /// The same plane for the Rust API.
    fn host(&self) -> HostPlane<'_> {
        if self.wide {
            HostPlane::u16(&self.words, self.stride / 2)
        } else {
            // SAFETY: the words' storage read as its bytes (u8 has no
            // alignment and every bit pattern is valid).
            let bytes = unsafe {
                std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), 2 * self.words.len())
            };
            HostPlane::u8(bytes, self.stride)
        }
    }
}

/// A frame's luma, Cb and Cr planes, with their pointers and strides as the
/// C functions take them.
struct Picture {
    planes: [Rows; 3],
    ptrs: [*const c_void; 3],
    strides: [usize; 3],
}

impl Picture {
    fn new(desc: &ScorerDesc, chroma: Chroma, seed: u32) -> Self {
        let (w, h) = (desc.width, desc.height);
        let c = chroma.plane_size(w, h);
        let bd = desc.bit_depth;
        let planes = [
            Rows::new((w, h), bd, seed, 6),
            Rows::new(c, bd, seed + 1000, 4),
            Rows::new(c, bd, seed + 2000, 0),
        ];
        let ptrs = [0, 1, 2].map(|i| planes[i].ptr());
        let strides = [0, 1, 2].map(|i| planes[i].stride);
        Self {
            planes,
            ptrs,
            strides,
        }
    }

    fn chroma(&self) -> [HostPlane<'_>; 2] {
        [self.planes[1].host(), self.planes[2].host()]
    }
}

/// `specs` as the C description's strings (kept alive by the caller).
fn c_strings(specs: &[&str]) -> (Vec<CString>, Vec<*const c_char>) {
    let strings: Vec<CString> = specs.iter().map(|s| CString::new(*s).unwrap()).collect();
    let ptrs = strings.iter().map(|c| c.as_ptr()).collect();
    (strings, ptrs)
}

/// A Rust description of `(w, h, bit_depth)` with `specs` and `chroma`.
fn rust_desc(specs: &[&str], chroma: Chroma, (w, h, bd): (u32, u32, u32)) -> ScorerDesc {
    ScorerDesc::new(w, h, bd)
        .with_metrics(parse_list(specs).expect("metrics"))
        .with_chroma(chroma)
}

fn output_bits(s: &VkssimScore) -> Vec<(String, u64)> {
    s.outputs[..s.n_outputs as usize]
        .iter()
        .map(|o| {
            (
                // SAFETY: each name up to n_outputs is a static C string.
                unsafe { std::ffi::CStr::from_ptr(o.name) }
                    .to_string_lossy()
                    .into(),
                o.value.to_bits(),
            )
        })
        .collect()
}

fn twin_bits(s: &FrameScore) -> Vec<(String, u64)> {
    s.iter()
        .map(|(n, v)| (n.to_string(), v.to_bits()))
        .collect()
}

fn create(engine: *const VkssimEngine, desc: &VkssimScorerDesc) -> *mut VkssimScorer {
    let mut scorer = ptr::null_mut();
    // SAFETY: a live engine, a valid desc (its strings live) and out pointer.
    ok(
        unsafe { vkssim_scorer_create(engine, desc, &mut scorer) },
        "scorer",
    );
    scorer
}

fn wait(scorer: *mut VkssimScorer, what: &str) -> VkssimScore {
    let mut got = VkssimScore::default();
    // SAFETY: a live scorer and a valid out pointer.
    ok(unsafe { vkssim_scorer_wait(scorer, &mut got) }, what);
    got
}

/// A ladder of two scorers (psnr with chroma and mse; psnr with chroma and
/// float_ssim) on one engine: three reference pictures, each uploaded once
/// into a pool made from the first scorer's description (`by_scorer`: by
/// `vkssim_scorer_shared_planes`, else `vkssim_shared_planes_create_desc`),
/// its handle released after both took it; each scorer's outputs equal to
/// the same pairs scored without sharing and to the CPU twin's.
#[allow(deprecated)] // exercises the deprecated *_planes shorthands on purpose
fn chroma_ladder(engine: *mut VkssimEngine, g: (u32, u32, u32), chroma: Chroma, by_scorer: bool) {
    const FRAMES: u32 = 3;
    let what = format!("{}x{} {}-bit {chroma:?}", g.0, g.1, g.2);
    let code = match chroma {
        Chroma::C420 => 420,
        Chroma::C422 => 422,
        _ => 444,
    };
    let lanes = [
        &["psnr=enable_chroma=true:enable_mse=true"][..],
        &["psnr=enable_chroma=true", "float_ssim=enable_lcs=true"][..],
    ];
    let strings: Vec<_> = lanes.iter().map(|l| c_strings(l)).collect();
    let descs: Vec<ScorerDesc> = lanes.iter().map(|l| rust_desc(l, chroma, g)).collect();
    let c_descs: Vec<_> = (0..2).map(|i| c_desc(g, &strings[i].1, code)).collect();
    let shared: Vec<_> = c_descs.iter().map(|d| create(engine, d)).collect();
    let unshared: Vec<_> = c_descs.iter().map(|d| create(engine, d)).collect();
    let mut twins: Vec<Scorer> = descs
        .iter()
        .map(|d| Scorer::cpu(d, 1).expect("CPU twin"))
        .collect();

    let mut planes = ptr::null_mut();
    // SAFETY: a live engine or scorer, a valid desc and out pointer.
    let made = unsafe {
        if by_scorer {
            vkssim_scorer_shared_planes(shared[0], &mut planes)
        } else {
            vkssim_shared_planes_create_desc(engine, &c_descs[0], &mut planes)
        }
    };
    ok(made, "pool");
    let (cw, ch) = chroma.plane_size(g.0, g.1);
    let (mut w, mut h) = (0, 0);
    // SAFETY: a live pool and valid out pointers.
    assert!(unsafe { vkssim_shared_planes_chroma_plane_size(planes, &mut w, &mut h) });
    assert_eq!((w, h), (cw, ch), "{what}: the pool's chroma plane size");

    let refs: Vec<Picture> = (0..FRAMES)
        .map(|k| Picture::new(&descs[0], chroma, 10 + k))
        .collect();
    let dist = |k: u32, lane: u32| Picture::new(&descs[0], chroma, 50 + 10 * lane + k);
    for (k, r) in refs.iter().enumerate() {
        let mut plane = ptr::null_mut();
        // SAFETY: a live pool; three planes of their sizes and strides.
        let up = unsafe {
            vkssim_shared_planes_upload_picture(
                planes,
                r.ptrs.as_ptr(),
                r.strides.as_ptr(),
                &mut plane,
            )
        };
        ok(up, "upload_picture");
        let (mut pw, mut ph) = (0, 0);
        // SAFETY: a live plane and valid out pointers.
        assert!(unsafe { vkssim_shared_plane_chroma_plane_size(plane, &mut pw, &mut ph) });
        assert_eq!((pw, ph), (cw, ch), "{what}: the plane's chroma plane size");
        for lane in 0..2 {
            let d = dist(k as u32, lane as u32);
            // SAFETY: a live scorer and plane; three planes of their sizes.
            let st = unsafe {
                vkssim_scorer_submit_host_shared_planes(
                    shared[lane],
                    plane,
                    d.ptrs.as_ptr(),
                    d.strides.as_ptr(),
                )
            };
            ok(st, "submit_host_shared_planes");
            // SAFETY: a live scorer; three planes on each side.
            let st = unsafe {
                vkssim_scorer_submit_host_planes(
                    unshared[lane],
                    r.ptrs.as_ptr(),
                    r.strides.as_ptr(),
                    d.ptrs.as_ptr(),
                    d.strides.as_ptr(),
                )
            };
            ok(st, "submit_host_planes");
            let pair = Pair::new(r.planes[0].host(), d.planes[0].host())
                .with_chroma(r.chroma(), d.chroma());
            twins[lane].submit(pair).expect("CPU pair");
        }
        // SAFETY: a live plane, not used afterwards (the scorers keep theirs).
        unsafe { vkssim_shared_plane_release(plane) };
    }
    // SAFETY: a live pool, not used afterwards; its planes are in flight.
    unsafe { vkssim_shared_planes_destroy(planes) };

    for lane in 0..2 {
        for k in 0..FRAMES {
            let at = format!("{what} lane {lane} reference {k}");
            let got = output_bits(&wait(shared[lane], &at));
            let plain = output_bits(&wait(unshared[lane], &at));
            let want = twin_bits(&twins[lane].wait().expect("a result").expect("CPU score"));
            assert_eq!(want.len(), [6, 3 + 4][lane], "{at}: outputs");
            assert_eq!(got, want, "{at}: shared vs the CPU twin");
            assert_eq!(plain, want, "{at}: unshared vs the CPU twin");
        }
    }
    for s in shared.into_iter().chain(unshared) {
        // SAFETY: a live scorer, drained, not used afterwards.
        unsafe { vkssim_scorer_destroy(s) };
    }
}

#[test]
fn psnr_with_chroma_through_a_shared_reference_matches_unshared_pairs_and_the_twin() {
    let engine = engine_with_validation();
    chroma_ladder(engine, (67, 45, 8), Chroma::C420, false);
    chroma_ladder(engine, (67, 45, 10), Chroma::C444, true);
    chroma_ladder(engine, (177, 179, 10), Chroma::C422, false);
    // SAFETY: a live engine.
    let messages = unsafe { vkssim_engine_validation_message_count(engine) };
    // SAFETY: a live engine, not used afterwards.
    unsafe { vkssim_engine_destroy(engine) };
    assert_eq!(messages, 0, "validation messages");
}

/// The refusals around whole pictures, each `VKSSIM_ERROR_INVALID_ARGUMENT`
/// with a message naming what to call in C (and in Rust), none queuing a
/// pair: a luma-only shared pair for a scorer that reads chroma, a luma
/// upload into a pool of whole pictures and the reverse, a luma-only plane
/// for a scorer that reads chroma, NULL arguments, a short chroma stride, a
/// pool from the CPU twin; then a good pair still scores.
#[test]
#[allow(deprecated)] // exercises the deprecated shorthands on purpose
fn whole_picture_refusals_name_the_c_functions() {
    let engine = engine_with_validation();
    let g = (67, 45, 8);
    let (_keep, ptrs) = c_strings(&["psnr"]);
    let desc = rust_desc(&["psnr"], Chroma::C420, g);
    let cd = c_desc(g, &ptrs, 420);
    let scorer = create(engine, &cd);
    let (r, d) = (
        Picture::new(&desc, Chroma::C420, 1),
        Picture::new(&desc, Chroma::C420, 2),
    );
    let (mut pool, mut luma_pool) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: a live engine, valid desc and out pointers.
    unsafe {
        ok(
            vkssim_shared_planes_create_desc(engine, &cd, &mut pool),
            "pool",
        );
        ok(
            vkssim_shared_planes_create(engine, g.0, g.1, g.2, &mut luma_pool),
            "luma pool",
        );
    }
    let (mut w, mut h) = (7, 7);
    // SAFETY: a live pool (or NULL) and valid out pointers.
    unsafe {
        assert!(!vkssim_shared_planes_chroma_plane_size(
            luma_pool, &mut w, &mut h
        ));
        assert_eq!((w, h), (0, 0), "a luma pool's chroma size");
        assert!(!vkssim_shared_planes_chroma_plane_size(
            ptr::null(),
            ptr::null_mut(),
            ptr::null_mut()
        ));
        assert!(!vkssim_shared_plane_chroma_plane_size(
            ptr::null(),
            &mut w,
            &mut h
        ));
        assert!(vkssim_shared_planes_chroma_plane_size(
            pool,
            ptr::null_mut(),
            &mut h
        ));
        assert_eq!(h, 23);
    }

    let (mut picture, mut luma_only, mut out) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    let mut other_pool = ptr::null_mut();
    // SAFETY: live handles; planes of their sizes and strides (or NULL where
    // a refusal is asked for); valid out pointers.
    unsafe {
        ok(
            vkssim_shared_planes_upload_picture(
                pool,
                r.ptrs.as_ptr(),
                r.strides.as_ptr(),
                &mut picture,
            ),
            "upload_picture",
        );
        ok(
            vkssim_shared_planes_upload(luma_pool, r.ptrs[0], r.strides[0], &mut luma_only),
            "luma upload",
        );
        let st = vkssim_scorer_submit_host_shared(scorer, picture, d.ptrs[0], d.strides[0]);
        refused(
            st,
            "a shared pair without the distorted chroma",
            &[
                "read chroma",
                "vkssim_scorer_submit_host_shared_planes",
                "Pair::with_distorted_chroma",
            ],
        );
        let st = vkssim_shared_planes_upload(pool, r.ptrs[0], r.strides[0], &mut out);
        refused(
            st,
            "a luma upload into a pool of whole pictures",
            &[
                "whole picture",
                "vkssim_shared_planes_upload_picture",
                "SharedPlanes::upload_picture",
            ],
        );
        let st = vkssim_shared_planes_upload_picture(
            luma_pool,
            r.ptrs.as_ptr(),
            r.strides.as_ptr(),
            &mut out,
        );
        refused(
            st,
            "a picture upload into a pool of luma planes",
            &[
                "luma plane only",
                "vkssim_shared_planes_upload)",
                "SharedPlanes::upload ",
            ],
        );
        let st = vkssim_scorer_submit_host_shared_planes(
            scorer,
            luma_only,
            d.ptrs.as_ptr(),
            d.strides.as_ptr(),
        );
        refused(
            st,
            "a luma-only plane for a scorer that reads chroma",
            &[
                "of luma only",
                "vkssim_shared_planes_create_desc",
                "vkssim_scorer_shared_planes",
            ],
        );
        let st = vkssim_shared_planes_create_desc(engine, ptr::null(), &mut other_pool);
        refused(st, "a NULL desc", &["desc is NULL"]);
        let st = vkssim_shared_planes_create_desc(engine, &cd, ptr::null_mut());
        refused(st, "a NULL out", &["out is NULL"]);
        let st =
            vkssim_shared_planes_upload_picture(pool, ptr::null(), r.strides.as_ptr(), &mut out);
        refused(st, "NULL planes", &["reference is NULL"]);
        let short = [r.strides[0], r.strides[1], 33];
        let st =
            vkssim_shared_planes_upload_picture(pool, r.ptrs.as_ptr(), short.as_ptr(), &mut out);
        refused(st, "a short Cr stride", &["reference Cr stride 33"]);
        let st =
            vkssim_scorer_submit_host_shared_planes(scorer, picture, d.ptrs.as_ptr(), ptr::null());
        refused(st, "NULL strides", &["distorted is NULL"]);
        let st = vkssim_scorer_submit_host_shared_planes(
            scorer,
            ptr::null(),
            d.ptrs.as_ptr(),
            d.strides.as_ptr(),
        );
        refused(st, "a NULL reference", &["reference is NULL"]);
        let st = vkssim_scorer_shared_planes(scorer, ptr::null_mut());
        refused(st, "a NULL out", &["out is NULL"]);
        let mut cpu = ptr::null_mut();
        ok(vkssim_scorer_create_cpu(&cd, 1, &mut cpu), "CPU scorer");
        let st = vkssim_scorer_shared_planes(cpu, &mut other_pool);
        refused(st, "a pool from the CPU twin", &["CPU"]);
        vkssim_scorer_destroy(cpu);
        assert!(
            out.is_null() && other_pool.is_null(),
            "no refusal wrote a handle"
        );
        assert_eq!(
            vkssim_scorer_in_flight(scorer),
            0,
            "refusals queued nothing"
        );

        // The scorer scores the next good pair, as the CPU twin does.
        ok(
            vkssim_scorer_submit_host_shared_planes(
                scorer,
                picture,
                d.ptrs.as_ptr(),
                d.strides.as_ptr(),
            ),
            "a good pair after the refusals",
        );
    }
    let got = output_bits(&wait(scorer, "the good pair"));
    let mut twin = Scorer::cpu(&desc, 1).expect("CPU twin");
    twin.submit(
        Pair::new(r.planes[0].host(), d.planes[0].host()).with_chroma(r.chroma(), d.chroma()),
    )
    .expect("CPU pair");
    let want = twin_bits(&twin.wait().expect("a result").expect("CPU score"));
    assert_eq!((got.len(), &got), (3, &want), "the good pair");
    // SAFETY: live handles, each released once and not used afterwards.
    let messages = unsafe {
        vkssim_shared_plane_release(picture);
        vkssim_shared_plane_release(luma_only);
        vkssim_shared_planes_destroy(pool);
        vkssim_shared_planes_destroy(luma_pool);
        vkssim_scorer_destroy(scorer);
        let n = vkssim_engine_validation_message_count(engine);
        vkssim_engine_destroy(engine);
        n
    };
    assert_eq!(messages, 0, "validation messages");
}
