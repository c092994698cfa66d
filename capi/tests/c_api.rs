//! The C API from C and from Rust: checks that `include/vkssim.h` is what
//! cbindgen makes of `src/lib.rs`, compiles `tests/score_pair.c` with `cc`
//! against the shared library cargo built, runs it on a generated pair with
//! validation on, and compares every score it prints with the Rust API's, bit
//! for bit (and the Rust API's with the CPU twin's). An encoding ladder through
//! the shared reference planes (`vkssim_shared_planes_*`,
//! `vkssim_scorer_submit_host_shared`) is called from Rust, at 8 and 10 bits,
//! with its results compared bit for bit with the CPU twin's, and its
//! refusals checked.

use std::ffi::{c_void, CStr};
use std::path::Path;
use std::process::Command;
use std::ptr;
use vkssim::api::ScoreQueue;
use vkssim::metric::MetricConfig;

use vkssim::api::{Engine, HostPlane, ScorerDesc};
use vkssim::vk::VkOptions;
use vkssim::{FrameScore, LumaFrame, SsimOptions};
use vkssim_capi::*;

mod common;
use common::{c_desc, crate_dir, engine_with_validation, lib_dir, library_path_first, ok, refused};

const WIDTH: u32 = 176;
const HEIGHT: u32 = 144;

/// A deterministic 8-bit plane: a gradient with pseudo-random texture.
fn plane(seed: u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(WIDTH, HEIGHT, 8);
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let v = (x + 2 * y) / 2 + (state % 48);
            f.bytes[(y * WIDTH + x) as usize] = v.min(255) as u8;
        }
    }
    f
}

#[test]
fn header_is_what_cbindgen_generates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("vkssim.h");
    let status = Command::new("cbindgen")
        .current_dir(crate_dir())
        .args([
            "--config",
            "cbindgen.toml",
            "--crate",
            "vkssim-capi",
            "--output",
        ])
        .arg(&out)
        .status()
        .expect("running cbindgen (Debian package cbindgen; tools/setup-debian.sh installs it)");
    assert!(status.success(), "cbindgen failed");
    let fresh = std::fs::read_to_string(&out).expect("generated header");
    let committed =
        std::fs::read_to_string(crate_dir().join("include/vkssim.h")).expect("include/vkssim.h");
    assert!(
        fresh == committed,
        "capi/include/vkssim.h is stale: regenerate it with \
         `cd capi && cbindgen --config cbindgen.toml --crate vkssim-capi --output include/vkssim.h`"
    );
}

/// The score line `label ssim=... l=... c=... s=... db=... has_db=N` as bits.
fn parse(stdout: &str, label: &str) -> [u64; 6] {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no `{label}` line in the C program's output:\n{stdout}"));
    let mut v = [0u64; 6];
    for (k, field) in line.split_whitespace().skip(1).enumerate() {
        let (_, value) = field.split_once('=').expect("key=value");
        v[k] = u64::from_str_radix(value, 16).expect("hex");
    }
    v
}

#[test]
fn c_program_scores_like_the_rust_api() {
    let (r, d) = (plane(1), plane(2));
    let dir = tempfile::tempdir().expect("temp dir");
    let (rp, dp) = (dir.path().join("ref.y"), dir.path().join("dist.y"));
    std::fs::write(&rp, &r.bytes).expect("write ref");
    std::fs::write(&dp, &d.bytes).expect("write dist");

    // The Rust API's score (validation on), checked against the CPU twin.
    let engine = Engine::new(&VkOptions::default().with_validation(true)).expect("engine");
    let ssim = SsimOptions {
        enable_lcs: true,
        enable_db: true,
        ..SsimOptions::default()
    };
    let desc = ScorerDesc::new(WIDTH, HEIGHT, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    let want = engine
        .score_pair(
            &desc,
            HostPlane::u8(&r.bytes, WIDTH as usize),
            HostPlane::u8(&d.bytes, WIDTH as usize),
        )
        .expect("Rust API score");
    let cpu = vkssim::testing::cpu::score_frame(&r.view(), &d.view(), &ssim).expect("CPU twin");
    assert_eq!(want, cpu, "Rust API against the CPU twin");
    assert!(
        engine.validation_messages().is_empty(),
        "{:?}",
        engine.validation_messages()
    );
    let want_bits = [
        want.ssim().to_bits(),
        want.l().expect("enable_lcs").to_bits(),
        want.c().expect("enable_lcs").to_bits(),
        want.s().expect("enable_lcs").to_bits(),
        want.db().expect("enable_db").to_bits(),
        1,
    ];

    let lib = lib_dir();
    let exe = dir.path().join("score_pair");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/score_pair.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lvkssim_capi", "-lvulkan"])
        .output()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(
        out.status.success(),
        "compiling score_pair.c failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe)
        .arg(&rp)
        .arg(&dp)
        .arg(WIDTH.to_string())
        .arg(HEIGHT.to_string())
        .env("VKSSIM_VALIDATION", "1")
        .env("LD_LIBRARY_PATH", library_path_first(&lib))
        .output()
        .expect("running score_pair");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "score_pair failed:\n{stdout}\n{stderr}"
    );
    for label in [
        "host_packed",
        "host_strided",
        "shared_ladder_packed",
        "shared_ladder_strided",
        "pair_host",
        "cpu_twin",
        "multi_scorer",
        "own_device_buffers",
        "imported_again",
        "device_images",
        "device_buffers",
    ] {
        assert_eq!(
            parse(&stdout, label),
            want_bits,
            "{label}: the C API's score differs from the Rust API's\n{stdout}"
        );
    }
    assert_library_path(&lib);
}

/// The program must have used the library cargo just built.
fn assert_library_path(lib: &Path) {
    assert!(lib.join("libvkssim_capi.so").is_file());
}

/// A deterministic plane at `bit_depth` bits: a gradient with pseudo-random
/// texture (as [`plane`], at any depth).
fn texture(seed: u32, bit_depth: u32) -> Vec<u32> {
    let extra = bit_depth - 8;
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    let mut v = Vec::with_capacity((WIDTH * HEIGHT) as usize);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let s = ((x + 2 * y) / 2 + state % 48).min(255);
            v.push((s << extra) | ((state >> 8) % (1 << extra)));
        }
    }
    v
}

/// `samples` plus pseudo-random noise of at most `amount`, clamped to the
/// bit depth (an encode of `samples`).
fn distort(samples: &[u32], seed: u32, amount: u32, bit_depth: u32) -> Vec<u32> {
    let max = (1i64 << bit_depth) - 1;
    let mut state = seed.wrapping_mul(2_246_822_519).max(1);
    samples
        .iter()
        .map(|&s| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let noise = (state % (2 * amount + 1)) as i64 - amount as i64;
            (s as i64 + noise).clamp(0, max) as u32
        })
        .collect()
}

/// Samples as a packed [`LumaFrame`] (little-endian words above 8 bits).
fn frame(samples: &[u32], bit_depth: u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(WIDTH, HEIGHT, bit_depth);
    f.bytes = if bit_depth > 8 {
        samples
            .iter()
            .flat_map(|&s| (s as u16).to_le_bytes())
            .collect()
    } else {
        samples.iter().map(|&s| s as u8).collect()
    };
    f
}

/// A plane in host memory as a C caller holds it: native `uint8_t` or
/// `uint16_t` samples, rows `stride` bytes apart with the padding filled with
/// 0xEE (above any 10-bit sample: it must not be read), in 2-byte aligned
/// storage.
struct HostRows {
    words: Vec<u16>,
    stride: usize,
}

impl HostRows {
    fn new(samples: &[u32], bit_depth: u32, padding: usize) -> Self {
        let bps = if bit_depth > 8 { 2 } else { 1 };
        let row = WIDTH as usize * bps;
        let stride = row + padding;
        let mut bytes = vec![0xEEu8; stride * HEIGHT as usize];
        for (y, rows) in samples.chunks(WIDTH as usize).enumerate() {
            let out = &mut bytes[y * stride..y * stride + row];
            for (x, &s) in rows.iter().enumerate() {
                if bps == 2 {
                    out[2 * x..2 * x + 2].copy_from_slice(&(s as u16).to_ne_bytes());
                } else {
                    out[x] = s as u8;
                }
            }
        }
        bytes.resize(bytes.len().next_multiple_of(2), 0xEE);
        let words = bytes
            .chunks(2)
            .map(|c| u16::from_ne_bytes([c[0], c[1]]))
            .collect();
        Self { words, stride }
    }

    fn ptr(&self) -> *const c_void {
        self.words.as_ptr().cast()
    }
}

/// Asserts that a C API score is the CPU twin's, bit for bit.
fn assert_same(got: &VkssimScore, want: &FrameScore, what: &str) {
    let bits = |s: &VkssimScore| [s.ssim, s.l, s.c, s.s, s.db, s.float_ssim].map(f64::to_bits);
    let want_c = VkssimScore {
        ssim: want.ssim(),
        l: want.l().unwrap_or(0.0),
        c: want.c().unwrap_or(0.0),
        s: want.s().unwrap_or(0.0),
        db: want.db().unwrap_or(0.0),
        has_db: want.db().is_some(),
        float_ssim: want.float_ssim(),
        ..VkssimScore::default()
    };
    assert_eq!(
        (bits(got), got.has_db),
        (bits(&want_c), want_c.has_db),
        "{what}: the C API's score differs from the CPU twin's\n got {got:?}\nwant {want:?}"
    );
}

/// What the shared planes' documented thread safety rests on.
#[test]
fn shared_plane_handles_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<VkssimSharedPlanes>();
    send_sync::<VkssimSharedPlane>();
}

#[test]
fn c_api_shared_reference_ladder() {
    for bit_depth in [8, 10] {
        shared_reference_ladder(bit_depth);
    }
}

/// An encoding ladder of two scorers (different options) on one engine with
/// validation on: three reference frames, each uploaded once from strided
/// rows and its handle released right after both scorers took it; the pool's
/// handle destroyed before the results are taken; then the refusals.
#[allow(deprecated)] // exercises vkssim_scorer_submit_host_shared on purpose
fn shared_reference_ladder(bit_depth: u32) {
    const FRAMES: u32 = 3;
    let engine = engine_with_validation();

    let ssim = [
        SsimOptions {
            enable_lcs: true,
            enable_db: true,
            ..SsimOptions::default()
        },
        SsimOptions::default(),
    ];
    let mut scorers = Vec::new();
    for o in &ssim {
        let desc = VkssimScorerDesc {
            width: WIDTH,
            height: HEIGHT,
            bit_depth,
            scale: o.scale,
            enable_lcs: o.enable_lcs,
            enable_db: o.enable_db,
            clip_db: o.clip_db,
            device_frames: false,
            frames_in_flight: 0,
            features: ptr::null(),
            n_features: 0,
            chroma: 0,
            models: ptr::null(),
            n_models: 0,
            motion_version: ptr::null(),
        };
        let mut scorer = ptr::null_mut();
        // SAFETY: a live engine, a valid desc and out pointer.
        ok(
            unsafe { vkssim_scorer_create(engine, &desc, &mut scorer) },
            "scorer",
        );
        scorers.push(scorer);
    }

    let mut planes = ptr::null_mut();
    // SAFETY: a live engine and a valid out pointer.
    let made =
        unsafe { vkssim_shared_planes_create(engine, WIDTH, HEIGHT, bit_depth, &mut planes) };
    ok(made, "shared planes");

    // Reference k, and encode j of it (noise 2 and 6 codes at 8 bits).
    let scale = 1 << (bit_depth - 8);
    let refs: Vec<Vec<u32>> = (0..FRAMES).map(|k| texture(100 + k, bit_depth)).collect();
    let encode = |k: usize, j: usize| {
        distort(
            &refs[k],
            10 * k as u32 + j as u32 + 1,
            scale * (2 + 4 * j as u32),
            bit_depth,
        )
    };
    for (k, r) in refs.iter().enumerate() {
        let rows = HostRows::new(r, bit_depth, 24);
        let mut plane = ptr::null_mut();
        // SAFETY: a live pool; `rows` holds HEIGHT rows of `stride` bytes.
        let up =
            unsafe { vkssim_shared_planes_upload(planes, rows.ptr(), rows.stride, &mut plane) };
        ok(up, "upload");
        drop(rows); // copied by the upload
        for (j, &scorer) in scorers.iter().enumerate() {
            let d = HostRows::new(&encode(k, j), bit_depth, 8 + 2 * j);
            // SAFETY: a live scorer and plane; `d` holds HEIGHT rows of `stride` bytes.
            let st = unsafe { vkssim_scorer_submit_host_shared(scorer, plane, d.ptr(), d.stride) };
            ok(st, "submit_host_shared");
        }
        // SAFETY: a live plane, not used afterwards (the scorers keep theirs).
        unsafe { vkssim_shared_plane_release(plane) };
    }

    shared_plane_refusals(engine, planes, scorers[0], bit_depth);

    // SAFETY: a live pool, not used afterwards; its planes are in flight.
    unsafe { vkssim_shared_planes_destroy(planes) };
    for (j, &scorer) in scorers.iter().enumerate() {
        // SAFETY: a live scorer.
        let in_flight = unsafe { vkssim_scorer_in_flight(scorer) };
        assert_eq!(
            in_flight, FRAMES as usize,
            "scorer {j}: refusals queued nothing"
        );
        for (k, r) in refs.iter().enumerate() {
            let mut got = VkssimScore::default();
            // SAFETY: a live scorer and a valid out pointer.
            ok(unsafe { vkssim_scorer_wait(scorer, &mut got) }, "wait");
            let (r, d) = (frame(r, bit_depth), frame(&encode(k, j), bit_depth));
            let want = vkssim::testing::cpu::score_frame(&r.view(), &d.view(), &ssim[j])
                .expect("CPU twin");
            assert_eq!(want.lcs().is_some(), ssim[j].enable_lcs);
            assert_same(
                &got,
                &want,
                &format!("{bit_depth}-bit ladder, reference {k}, scorer {j}"),
            );
        }
        let mut none = VkssimScore::default();
        // SAFETY: a live scorer and a valid out pointer.
        let st = unsafe { vkssim_scorer_wait(scorer, &mut none) };
        assert_eq!(st, VkssimStatus::VkssimEmpty, "scorer {j} drained");
    }

    // SAFETY: a live engine.
    let messages = unsafe { vkssim_engine_validation_message_count(engine) };
    for scorer in scorers {
        // SAFETY: a live scorer, not used afterwards.
        unsafe { vkssim_scorer_destroy(scorer) };
    }
    // SAFETY: a live engine, not used afterwards.
    unsafe { vkssim_engine_destroy(engine) };
    assert_eq!(messages, 0, "{bit_depth} bits: validation messages");
}

/// The shared planes' refusals (none may queue a pair): NULL arguments, bad
/// strides and samples, and planes of another geometry, including ones of as
/// many bytes (transposed; half as wide at twice the sample size).
#[allow(deprecated)] // exercises vkssim_scorer_submit_host_shared on purpose
fn shared_plane_refusals(
    engine: *mut VkssimEngine,
    planes: *mut VkssimSharedPlanes,
    scorer: *mut VkssimScorer,
    bit_depth: u32,
) {
    let wide = bit_depth > 8;
    let good = HostRows::new(&texture(7, bit_depth), bit_depth, 0);
    let row = good.stride;
    let mut out_planes = ptr::null_mut();
    let mut out = ptr::null_mut();

    // SAFETY: live objects, or NULL where the call is to refuse it; each
    // plane's memory holds HEIGHT rows of the stride given (or is refused
    // before it is read); valid out pointers.
    unsafe {
        let st =
            vkssim_shared_planes_create(ptr::null(), WIDTH, HEIGHT, bit_depth, &mut out_planes);
        refused(st, "create with a NULL engine", &["engine is NULL"]);
        let st = vkssim_shared_planes_create(engine, WIDTH, HEIGHT, bit_depth, ptr::null_mut());
        refused(st, "create with a NULL out", &["out is NULL"]);
        let st = vkssim_shared_planes_create(engine, 8, 8, bit_depth, &mut out_planes);
        refused(st, "an 8x8 pool", &["11x11"]);
        assert!(
            out_planes.is_null(),
            "a refused create wrote its out pointer"
        );

        let st = vkssim_shared_planes_upload(ptr::null(), good.ptr(), row, &mut out);
        refused(st, "upload to a NULL pool", &["planes is NULL"]);
        let st = vkssim_shared_planes_upload(planes, ptr::null(), row, &mut out);
        refused(st, "upload of NULL data", &["reference is NULL"]);
        let st = vkssim_shared_planes_upload(planes, good.ptr(), row, ptr::null_mut());
        refused(st, "upload with a NULL out", &["out is NULL"]);
        let st = vkssim_shared_planes_upload(planes, good.ptr(), row - 1, &mut out);
        refused(
            st,
            "a stride shorter than a row",
            &["stride", "at least a row"],
        );
        if wide {
            let wide_rows = HostRows::new(&texture(7, bit_depth), bit_depth, 4);
            let st = vkssim_shared_planes_upload(planes, wide_rows.ptr(), row + 1, &mut out);
            refused(st, "an odd stride of 16-bit samples", &["multiple of 2"]);
            let odd = wide_rows.ptr().cast::<u8>().add(1).cast();
            let st = vkssim_shared_planes_upload(planes, odd, row, &mut out);
            refused(st, "a misaligned 16-bit plane", &["2-byte aligned"]);
            let mut high = texture(7, bit_depth);
            high[WIDTH as usize * 5 + 3] = 1 << bit_depth;
            let high = HostRows::new(&high, bit_depth, 0);
            let st = vkssim_shared_planes_upload(planes, high.ptr(), row, &mut out);
            refused(st, "a sample above the bit depth", &["x=3, y=5", "1024"]);
        }
        assert!(out.is_null(), "a refused upload wrote its out pointer");

        let mut plane = ptr::null_mut();
        ok(
            vkssim_shared_planes_upload(planes, good.ptr(), row, &mut plane),
            "upload",
        );
        let st = vkssim_scorer_submit_host_shared(ptr::null_mut(), plane, good.ptr(), row);
        refused(st, "submit to a NULL scorer", &["scorer is NULL"]);
        let st = vkssim_scorer_submit_host_shared(scorer, ptr::null(), good.ptr(), row);
        refused(st, "submit with a NULL reference", &["reference is NULL"]);
        let st = vkssim_scorer_submit_host_shared(scorer, plane, ptr::null(), row);
        refused(st, "submit with NULL distorted", &["distorted is NULL"]);
        let st = vkssim_scorer_submit_host_shared(scorer, plane, good.ptr(), row - 1);
        refused(
            st,
            "a distorted stride shorter than a row",
            &["distorted stride"],
        );
        vkssim_shared_plane_release(plane);

        // Planes of other geometries: smaller, transposed (as many bytes), and
        // of the other sample size with as many bytes per row.
        let other_depth = if wide { 8 } else { 10 };
        let other_width = if wide { 2 * WIDTH } else { WIDTH / 2 };
        let zeros = vec![0u16; (2 * WIDTH * HEIGHT) as usize];
        for (w, h, b) in [
            (WIDTH / 2, HEIGHT / 2, bit_depth),
            (HEIGHT, WIDTH, bit_depth),
            (other_width, HEIGHT, other_depth),
        ] {
            let mut pool = ptr::null_mut();
            ok(
                vkssim_shared_planes_create(engine, w, h, b, &mut pool),
                "other pool",
            );
            let stride = w as usize * if b > 8 { 2 } else { 1 };
            let mut other = ptr::null_mut();
            ok(
                vkssim_shared_planes_upload(pool, zeros.as_ptr().cast(), stride, &mut other),
                "upload to the other pool",
            );
            vkssim_shared_planes_destroy(pool);
            let st = vkssim_scorer_submit_host_shared(scorer, other, good.ptr(), row);
            let theirs = format!("{w}x{h} {b}-bit");
            let ours = format!("{WIDTH}x{HEIGHT} {bit_depth}-bit");
            refused(st, "a plane of another geometry", &[&theirs, &ours]);
            vkssim_shared_plane_release(other);
        }

        // NULL handles are ignored.
        vkssim_shared_plane_release(ptr::null_mut());
        vkssim_shared_planes_destroy(ptr::null_mut());
    }
}

/// Several metrics through the C API on the CPU twin: feature strings and a
/// chroma layout in the description, a pair with its chroma planes, every
/// value by name equal to the library's, bit for bit.
#[test]
#[allow(deprecated)] // exercises vkssim_scorer_submit_host_planes on purpose
fn several_metrics_by_name_on_the_cpu_twin() {
    use std::ffi::CString;
    let (w, h) = (180u32, 178u32);
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let plane = |n: usize, seed: u8| -> Vec<u8> {
        (0..n)
            .map(|i| (i as u8).wrapping_mul(seed).wrapping_add((i / 7) as u8))
            .collect()
    };
    let r: Vec<Vec<u8>> = [(w, h), (cw, ch), (cw, ch)]
        .iter()
        .map(|&(a, b)| plane((a * b) as usize, 3))
        .collect();
    let d: Vec<Vec<u8>> = [(w, h), (cw, ch), (cw, ch)]
        .iter()
        .map(|&(a, b)| plane((a * b) as usize, 5))
        .collect();
    let specs = [
        "float_ssim",
        "psnr=enable_mse=true",
        "float_ms_ssim=enable_lcs=true",
    ];
    let c_specs: Vec<CString> = specs.iter().map(|s| CString::new(*s).unwrap()).collect();
    let ptrs: Vec<*const std::ffi::c_char> = c_specs.iter().map(|c| c.as_ptr()).collect();
    let desc = c_desc((w, h, 8), &ptrs, 420);
    let mut scorer = ptr::null_mut();
    // SAFETY: a valid desc (its strings live) and out pointer.
    ok(
        unsafe { vkssim_scorer_create_cpu(&desc, 2, &mut scorer) },
        "cpu scorer",
    );
    let rp: Vec<*const c_void> = r.iter().map(|p| p.as_ptr().cast()).collect();
    let dp: Vec<*const c_void> = d.iter().map(|p| p.as_ptr().cast()).collect();
    let strides = [w as usize, cw as usize, cw as usize];
    // SAFETY: a live scorer; three planes of the sizes given on each side.
    ok(
        unsafe {
            vkssim_scorer_submit_host_planes(
                scorer,
                rp.as_ptr(),
                strides.as_ptr(),
                dp.as_ptr(),
                strides.as_ptr(),
            )
        },
        "submit planes",
    );
    let mut got = VkssimScore::default();
    // SAFETY: a live scorer and a valid out pointer.
    ok(unsafe { vkssim_scorer_wait(scorer, &mut got) }, "wait");
    // SAFETY: a live scorer, destroyed once.
    unsafe { vkssim_scorer_destroy(scorer) };

    let rust = ScorerDesc::new(w, h, 8)
        .with_metrics(vkssim::metric::config::parse_list(&specs).unwrap())
        .with_chroma(vkssim::io::Chroma::C420);
    let mut s = vkssim::api::Scorer::cpu(&rust, 1).unwrap();
    fn hp(p: &[u8], stride: usize) -> HostPlane<'_> {
        HostPlane::u8(p, stride)
    }
    s.submit(
        vkssim::api::Pair::new(hp(&r[0], w as usize), hp(&d[0], w as usize)).with_chroma(
            [hp(&r[1], cw as usize), hp(&r[2], cw as usize)],
            [hp(&d[1], cw as usize), hp(&d[2], cw as usize)],
        ),
    )
    .unwrap();
    let want = s.wait().unwrap().unwrap();
    assert_eq!(got.n_outputs as usize, want.outputs.len());
    assert_eq!(want.outputs.len(), 1 + 6 + 16);
    for (k, (name, value)) in want.iter().enumerate() {
        let o = got.outputs[k];
        // SAFETY: a static C string from the C API.
        assert_eq!(unsafe { CStr::from_ptr(o.name) }.to_str().unwrap(), name);
        assert_eq!(o.value.to_bits(), value.to_bits(), "{name}");
        let c_name = CString::new(name).unwrap();
        let mut v = 0.0f64;
        // SAFETY: a valid result, name and out pointer.
        ok(
            unsafe { vkssim_score_value(&got, c_name.as_ptr(), &mut v) },
            "value",
        );
        assert_eq!(v.to_bits(), value.to_bits(), "{name} by name");
    }
    let mut v = 0.0;
    let missing = CString::new("vmaf").unwrap();
    // SAFETY: as above.
    let st = unsafe { vkssim_score_value(&got, missing.as_ptr(), &mut v) };
    assert_eq!(st, VkssimStatus::VkssimErrorInvalidArgument);
}
