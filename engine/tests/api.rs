//! The library API (`vkssim::api`) against the CPU twin (itself bit-identical
//! to libvmaf, see tests/): host planes of 8 and 16-bit samples with padded
//! strides, every option set, several pairs in flight, results in submission
//! order through poll and wait, `score_pair`; and its refusals. Validation is
//! on; any message fails. Device-resident pairs, imports and semaphores are
//! exercised by the examples (tests/api_examples.rs).

mod vk_support;

use vk_support::{frame, gpu_present};
use vkssim::api::ScoreQueue;
use vkssim::api::{
    DevicePlane, Engine, HostPlane, ImportedPlane, Pair, SampleFormat, Scorer, ScorerDesc,
    SemaphoreRef,
};
use vkssim::metric::MetricConfig;
use vkssim::vk::VkOptions;
use vkssim::{testing::cpu, Error, LumaFrame, SsimOptions};

fn engine() -> Engine {
    Engine::new(&VkOptions::default().with_validation(true)).expect("engine")
}

/// `f` with each row padded to `stride` samples (padding filled with junk).
fn padded(f: &LumaFrame, stride: usize) -> (Vec<u8>, Vec<u16>) {
    let w = f.width as usize;
    let mut u8s = Vec::new();
    let mut u16s = Vec::new();
    for y in 0..f.height as usize {
        if f.bit_depth > 8 {
            let row = &f.bytes[2 * y * w..2 * (y + 1) * w];
            u16s.extend(
                row.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]])),
            );
            u16s.extend(std::iter::repeat(0xFFFF).take(stride - w));
        } else {
            u8s.extend_from_slice(&f.bytes[y * w..(y + 1) * w]);
            u8s.extend(std::iter::repeat(0xAA).take(stride - w));
        }
    }
    (u8s, u16s)
}

fn host<'a>(p: &'a (Vec<u8>, Vec<u16>), wide: bool, stride: usize) -> HostPlane<'a> {
    if wide {
        HostPlane::u16(&p.1, stride)
    } else {
        HostPlane::u8(&p.0, stride)
    }
}

#[test]
fn host_planes_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let option_sets = [
        SsimOptions::default(),
        SsimOptions {
            enable_lcs: true,
            ..Default::default()
        },
        SsimOptions {
            enable_db: true,
            clip_db: true,
            ..Default::default()
        },
        SsimOptions {
            scale: 2,
            enable_lcs: true,
            enable_db: true,
            ..Default::default()
        },
    ];
    for (w, h, bit_depth) in [(97u32, 61u32, 8u32), (64, 48, 10), (50, 40, 16)] {
        for opts in option_sets {
            let ssim = opts;
            let mut desc =
                ScorerDesc::new(w, h, bit_depth).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
            desc.frames_in_flight = std::num::NonZeroUsize::new(2);
            let mut scorer = engine.scorer(&desc).expect("scorer");
            let stride = w as usize + 5;
            let pairs: Vec<(LumaFrame, LumaFrame)> = (0..5)
                .map(|i| {
                    (
                        frame(w, h, bit_depth, 10 + i),
                        frame(w, h, bit_depth, 50 + i),
                    )
                })
                .collect();
            let mut got = Vec::new();
            for (r, d) in &pairs {
                let (pr, pd) = (padded(r, stride), padded(d, stride));
                let wide = bit_depth > 8;
                scorer
                    .submit(Pair::new(host(&pr, wide, stride), host(&pd, wide, stride)))
                    .expect("submit");
                while let Some(s) = scorer.poll() {
                    got.push(s.expect("result"));
                }
            }
            while let Some(s) = scorer.wait() {
                got.push(s.expect("result"));
            }
            assert_eq!(scorer.in_flight(), 0);
            assert_eq!(got.len(), pairs.len());
            for (i, ((r, d), g)) in pairs.iter().zip(&got).enumerate() {
                let want = cpu::score_frame(&r.view(), &d.view(), &opts).unwrap();
                assert_eq!(
                    *g, want,
                    "{w}x{h} {bit_depth}-bit {opts:?} frame {i}: API vs CPU twin"
                );
            }
        }
    }
    assert!(
        engine.validation_messages().is_empty(),
        "{:#?}",
        engine.validation_messages()
    );
}

#[test]
fn score_pair_matches_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let (r, d) = (frame(80, 60, 8, 1), frame(80, 60, 8, 2));
    let ssim = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    let desc = ScorerDesc::new(80, 60, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    let got = engine
        .score_pair(
            &desc,
            HostPlane::u8(&r.bytes, 80),
            HostPlane::u8(&d.bytes, 80),
        )
        .expect("score_pair");
    let want = cpu::score_frame(&r.view(), &d.view(), &ssim).unwrap();
    assert_eq!(got, want);
    // Identical planes score exactly 1.
    let one = engine
        .score_pair(
            &desc,
            HostPlane::u8(&r.bytes, 80),
            HostPlane::u8(&r.bytes, 80),
        )
        .expect("score_pair");
    assert_eq!(one.ssim(), 1.0);
    assert!(engine.validation_messages().is_empty());
}

/// The device builds an arithmetic variant's pipelines and runs its
/// self-test once: a second scorer, `score_pair`'s one-off scorers and a
/// `VkScorer` on the same device reuse them (the counters stay at 1), and
/// still score as the CPU twin does.
#[test]
fn later_scorers_reuse_the_devices_pipelines_and_self_test() {
    if !gpu_present() {
        return;
    }
    use vkssim::api::ContextCounts;
    use vkssim::testing::VkScorer;
    use vkssim::vk::UploadPath;
    let engine = engine();
    let (w, h) = (72u32, 40u32);
    let (r, d) = (frame(w, h, 8, 31), frame(w, h, 8, 32));
    let ssim = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    let desc = ScorerDesc::new(w, h, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    let first = engine.scorer(&desc).expect("first scorer");
    let variant = first.arithmetic();
    let once = ContextCounts {
        pipeline_builds: 1,
        selftest_runs: 1,
    };
    assert_eq!(engine.context_counts(variant), once);
    let mut second = engine.scorer(&desc).expect("second scorer");
    assert_eq!(second.arithmetic(), variant);
    second
        .submit(Pair::new(
            HostPlane::u8(&r.bytes, w as usize),
            HostPlane::u8(&d.bytes, w as usize),
        ))
        .expect("submit");
    let want = cpu::score_frame(&r.view(), &d.view(), &ssim).unwrap();
    assert_eq!(second.wait().expect("a result").expect("score"), want);
    for _ in 0..3 {
        let got = engine
            .score_pair(
                &desc,
                HostPlane::u8(&r.bytes, w as usize),
                HostPlane::u8(&d.bytes, w as usize),
            )
            .expect("score_pair");
        assert_eq!(got, want);
    }
    // `VkScorer::new` with the same device choice shares the engine's device.
    let opts = VkOptions::default()
        .with_validation(true)
        .with_upload(UploadPath::Auto);
    let vk = VkScorer::new(w, h, 8, &SsimOptions::default(), &opts).expect("VkScorer");
    assert_eq!(vk.arithmetic(), variant);
    assert_eq!(vk.context_counts(), once);
    assert_eq!(engine.context_counts(variant), once);
    drop((first, second, vk));
    assert!(
        engine.validation_messages().is_empty(),
        "{:#?}",
        engine.validation_messages()
    );
}

#[test]
fn refusals_name_what_is_wrong() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let too_small = engine.scorer(&ScorerDesc::new(8, 8, 8));
    assert!(
        matches!(too_small, Err(Error::PlaneTooSmall { .. })),
        "{too_small:?}"
    );
    let bad_depth = engine.scorer(&ScorerDesc::new(64, 64, 9));
    assert!(
        matches!(bad_depth, Err(Error::Unsupported(_))),
        "{bad_depth:?}"
    );

    let mut scorer = engine.scorer(&ScorerDesc::new(64, 48, 10)).expect("scorer");
    let words = vec![0u16; 64 * 48];
    let bytes = vec![0u8; 64 * 48];
    // 8-bit samples for a 10-bit scorer.
    let e = scorer
        .submit(Pair::new(
            HostPlane::u8(&bytes, 64),
            HostPlane::u8(&bytes, 64),
        ))
        .unwrap_err();
    assert!(e.to_string().contains("HostPlane::u16"), "{e}");
    // A stride shorter than a row.
    let e = scorer
        .submit(Pair::new(
            HostPlane::u16(&words, 63),
            HostPlane::u16(&words, 64),
        ))
        .unwrap_err();
    assert!(e.to_string().contains("row stride 63"), "{e}");
    // Too few samples.
    let e = scorer
        .submit(Pair::new(
            HostPlane::u16(&words[1..], 64),
            HostPlane::u16(&words, 64),
        ))
        .unwrap_err();
    assert!(matches!(e, Error::BufferSize { .. }), "{e}");
    // A sample above 10 bits, with its position: the pair keeps its place
    // in the stream and its result is the error.
    let mut high = words.clone();
    high[64 * 3 + 5] = 1024;
    scorer
        .submit(Pair::new(
            HostPlane::u16(&words, 64),
            HostPlane::u16(&high, 64),
        ))
        .expect("a refused pair is queued");
    let e = scorer.wait().expect("its result").unwrap_err();
    assert!(
        matches!(
            e,
            Error::SampleRange {
                x: 5,
                y: 3,
                value: 1024,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(scorer.in_flight(), 0);
    assert!(scorer.poll().is_none());

    // Imports refused: a null buffer, a row pitch of 0, a queue family the
    // device does not have.
    let fake = ash::vk::Handle::from_raw(0x1000);
    let good = DevicePlane::new(fake, 64, SampleFormat::U8);
    let refused_imports = [
        (
            DevicePlane::new(ash::vk::Buffer::null(), 64, SampleFormat::U8),
            "VK_NULL_HANDLE",
        ),
        (
            DevicePlane::new(fake, 0, SampleFormat::U8),
            "row pitch of 0",
        ),
        (good.with_queue_family(77), "queue family 77"),
    ];
    for (plane, needle) in refused_imports {
        // SAFETY: refused before the handle is used.
        let e = unsafe { engine.import_buffer(plane) }.unwrap_err();
        assert!(e.to_string().contains(needle), "{needle}: {e}");
    }

    // Pairs refused before any handle is used: a plane of the wrong sample
    // format, a short pitch, an imported plane beside a host one, semaphores
    // on a host pair, imported planes on the CPU twin, and a timeline value
    // on an engine without timeline semaphores.
    let desc = ScorerDesc::new(64, 48, 8);
    let mut dev = engine.scorer(&desc).expect("device scorer");
    // SAFETY: these imports are only given to submissions refused before use.
    let import = |p: DevicePlane| unsafe { engine.import_buffer(p) }.expect("import");
    let good = import(good);
    let words = import(DevicePlane::new(fake, 128, SampleFormat::U16));
    let short = import(DevicePlane::new(fake, 63, SampleFormat::U8));
    let bytes = vec![0u8; 64 * 48];
    let host = HostPlane::u8(&bytes, 64);
    let sem = SemaphoreRef::binary(ash::vk::Handle::from_raw(0x2000));
    let mut cases: Vec<(Pair, &str)> = vec![
        (Pair::new(&good, &words), "holds 16-bit words"),
        (Pair::new(&good, &short), "row pitch of 63 bytes"),
        (
            Pair::new(&good, host),
            "an imported plane with a plane that is not",
        ),
        (
            Pair::new(host, &good),
            "an imported plane with a plane that is not",
        ),
        (
            // SAFETY: refused before the semaphore is used.
            unsafe { Pair::new(host, host).wait(sem) },
            "semaphores are for pairs of imported",
        ),
    ];
    // A timeline value is refused only where the device has no timeline
    // semaphores (elsewhere it would be used, and these handles are fake).
    if !engine.supports_timeline_semaphores() {
        let timeline = SemaphoreRef::timeline(ash::vk::Handle::from_raw(0x2000), 1);
        // SAFETY: refused before the semaphore is used.
        cases.push((
            unsafe { Pair::new(&good, &good).wait(timeline) },
            "timelineSemaphore",
        ));
    }
    for (pair, needle) in cases {
        let e = dev.submit(pair).unwrap_err();
        assert!(e.to_string().contains(needle), "{needle}: {e}");
    }
    assert_eq!(dev.in_flight(), 0);
    let mut cpu = Scorer::cpu(&desc, 1).expect("cpu scorer");
    let e = cpu.submit(Pair::new(&good, &good)).unwrap_err();
    assert!(e.to_string().contains("CPU scorer"), "{e}");
    assert!(!good.in_use(), "nothing in flight holds the import");
    assert!(engine.validation_messages().is_empty());
}

#[test]
fn required_features_name_shader_int64() {
    assert_eq!(vkssim::api::REQUIRED_FEATURES, &["shaderInt64"]);
    assert_eq!(vkssim::api::required_features().shader_int64, ash::vk::TRUE);
    assert!(vkssim::api::REQUIRED_DEVICE_EXTENSIONS.is_empty());
}

#[path = "../examples/common/mod.rs"]
mod common;
mod device_pairs;

use device_pairs::{
    destroy_pairs, device_pairs, import_pairs, score_in_slot, submit_in_order, want_for, DevicePair,
};

/// Device-resident pairs through a 2-slot ring cycling 3 buffer pairs (so
/// slots are rebound and re-recorded), zero-copy and device-copy layouts mixed
/// with host pairs (submitted, then through frame slots, then with a shared
/// reference), then the imports dropped, the buffers destroyed once vkssim
/// released them and new ones made (Vulkan may give the same handles back):
/// every score bit-identical to the CPU twin.
#[test]
fn device_pairs_rebind_and_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let (w, h) = (128u32, 72u32);
    let ssim = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    let mut desc = ScorerDesc::new(w, h, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    desc.frames_in_flight = std::num::NonZeroUsize::new(2);
    let mut scorer = engine.scorer(&desc).expect("scorer");
    // Packed at 0 (zero-copy), padded rows at 256 (device copy), packed at an
    // offset of 4 (below any storage-buffer alignment: device copy).
    let layouts = [(0, w as u64, 1), (256, w as u64 + 64, 2), (4, w as u64, 3)];
    let pairs = device_pairs(&engine, w, h, &layouts);
    let plane = |p: &DevicePair, k: usize| {
        DevicePlane::new(p.bufs[k].buffer, p.pitch, SampleFormat::U8).with_offset(p.offset)
    };
    let import = |p: &DevicePair| -> [ImportedPlane; 2] {
        // SAFETY: the buffers hold their planes and live until released.
        [0, 1].map(|k| unsafe { engine.import_buffer(plane(p, k)) }.expect("import"))
    };
    let imports: Vec<[ImportedPlane; 2]> = pairs.iter().map(import).collect();
    let host_r = frame(w, h, 8, 77);
    let host_d = frame(w, h, 8, 78);
    let order = [0usize, 1, 2, 0, 9, 1, 2, 0, 2];
    let got = submit_in_order(&mut scorer, &imports, &order, [&host_r, &host_d]);
    for (i, (&k, g)) in order.iter().zip(&got).enumerate() {
        let want = if k == 9 {
            cpu::score_frame(&host_r.view(), &host_d.view(), &ssim).unwrap()
        } else {
            want_for(w, h, layouts[k].2, &ssim)
        };
        assert_eq!(*g, want, "submission {i} (pair {k})");
    }

    // Host pairs through frame slots after device pairs: every slot (both
    // were bound to the host's buffers) reads its own upload buffers again.
    let want = cpu::score_frame(&host_r.view(), &host_d.view(), &ssim).unwrap();
    for k in 0..3 {
        let g = score_in_slot(&mut scorer, [&host_r, &host_d]);
        assert_eq!(g, want, "slot pair {k} after device pairs");
    }
    // A shared reference after device pairs, then device pairs again.
    let shared = engine
        .shared_planes(&desc)
        .expect("pool")
        .upload(HostPlane::u8(&host_r.bytes, w as usize))
        .expect("upload");
    for k in [0usize, 9, 1, 9, 2] {
        let want = if k == 9 {
            let host_d = HostPlane::u8(&host_d.bytes, w as usize);
            scorer
                .submit(Pair::new(&shared, host_d))
                .expect("shared pair");
            want.clone()
        } else {
            scorer
                .submit(Pair::new(&imports[k][0], &imports[k][1]))
                .expect("device pair");
            want_for(w, h, layouts[k].2, &ssim)
        };
        let g = scorer.wait().expect("a result").expect("score");
        assert_eq!(g, want, "pair {k} after a shared reference");
    }

    // The last pair is scored: dropping the imports releases the buffers at
    // once, and each release runs exactly once.
    let (tx, rx) = std::sync::mpsc::channel();
    for (k, pair) in imports.iter().enumerate() {
        for plane in pair {
            let tx = tx.clone();
            plane.on_release(move || tx.send(k).expect("send"));
        }
    }
    drop(tx);
    drop(imports);
    let mut released: Vec<usize> = rx.iter().collect();
    released.sort_unstable();
    assert_eq!(released, [0, 0, 1, 1, 2, 2]);
    destroy_pairs(&engine, &pairs);
    // New buffers (the handles may repeat): new imports, so the slots rebind.
    let fresh = device_pairs(&engine, w, h, &[(0, w as u64, 11), (4, w as u64, 12)]);
    for (p, seed) in fresh.iter().zip([11, 12]) {
        let [r, d] = import(p);
        scorer.submit(Pair::new(&r, &d)).expect("submit");
        // Dropped while the pair is in flight: the pair still holds them.
        drop((r, d));
        let g = scorer.wait().expect("a result").expect("score");
        assert_eq!(g, want_for(w, h, seed, &ssim), "fresh pair {seed}");
    }
    drop(scorer);
    destroy_pairs(&engine, &fresh);
    assert!(
        engine.validation_messages().is_empty(),
        "{:#?}",
        engine.validation_messages()
    );
}

/// The engine's options reach its scorers: the software fp64 path and the
/// staging upload path, for host pairs and (software fp64) device pairs.
#[test]
fn engine_options_soft_f64_and_staging() {
    if !gpu_present() {
        return;
    }
    use vkssim::vk::{ArithVariant, UploadPath};
    let (w, h) = (96u32, 64u32);
    let (r, d) = (frame(w, h, 8, 5), frame(w, h, 8, 6));
    let ssim = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    let desc = ScorerDesc::new(w, h, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    let want = cpu::score_frame(&r.view(), &d.view(), &ssim).unwrap();
    for (no_fp64, upload) in [(true, UploadPath::Direct), (false, UploadPath::Staging)] {
        let engine = Engine::new(
            &VkOptions::default()
                .with_validation(true)
                .with_no_fp64(no_fp64)
                .with_upload(upload),
        )
        .expect("engine");
        let mut scorer = engine.scorer(&desc).expect("scorer");
        assert_eq!(scorer.upload_path(), Some(upload));
        if no_fp64 {
            assert_eq!(scorer.arithmetic(), ArithVariant::SoftF64);
        }
        scorer
            .submit(Pair::new(
                HostPlane::u8(&r.bytes, w as usize),
                HostPlane::u8(&d.bytes, w as usize),
            ))
            .expect("submit");
        let got = scorer.wait().expect("a result").expect("score");
        assert_eq!(got, want, "no_fp64 {no_fp64}, {upload:?}");
        // Device pairs on the same scorer (its slots read the host's
        // buffers, then their own upload buffers again), on both paths.
        let pairs = device_pairs(&engine, w, h, &[(0, w as u64, 21), (256, w as u64 + 8, 22)]);
        for (p, seed) in pairs.iter().zip([21, 22]) {
            let plane = |k: usize| {
                DevicePlane::new(p.bufs[k].buffer, p.pitch, SampleFormat::U8).with_offset(p.offset)
            };
            // SAFETY: the buffers hold their planes and outlive the scorer's work.
            let [ir, id] =
                [0, 1].map(|k| unsafe { engine.import_buffer(plane(k)) }.expect("import"));
            scorer.submit(Pair::new(&ir, &id)).expect("submit");
            let got = scorer.wait().expect("a result").expect("score");
            assert_eq!(
                got,
                want_for(w, h, seed, &ssim),
                "device pair {seed}, no_fp64 {no_fp64}, {upload:?}"
            );
        }
        scorer
            .submit(Pair::new(
                HostPlane::u8(&r.bytes, w as usize),
                HostPlane::u8(&d.bytes, w as usize),
            ))
            .expect("submit");
        let got = scorer.wait().expect("a result").expect("score");
        assert_eq!(
            got, want,
            "host pair after device pairs, no_fp64 {no_fp64}, {upload:?}"
        );
        drop(scorer);
        destroy_pairs(&engine, &pairs);
        assert!(
            engine.validation_messages().is_empty(),
            "{:#?}",
            engine.validation_messages()
        );
    }
}

/// `Engine` is shared by threads, each with its own `Scorer` (Send), scoring
/// at the same time; every result is the CPU twin's.
#[test]
fn one_engine_scorers_on_several_threads() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    std::thread::scope(|s| {
        for t in 0..3u32 {
            let engine = &engine;
            s.spawn(move || {
                let (w, h) = (64 + 16 * t, 48u32);
                let mut scorer = engine.scorer(&ScorerDesc::new(w, h, 8)).expect("scorer");
                let pairs: Vec<_> = (0..4)
                    .map(|i| {
                        (
                            frame(w, h, 8, 100 * t + i),
                            frame(w, h, 8, 100 * t + 50 + i),
                        )
                    })
                    .collect();
                for (r, d) in &pairs {
                    scorer
                        .submit(Pair::new(
                            HostPlane::u8(&r.bytes, w as usize),
                            HostPlane::u8(&d.bytes, w as usize),
                        ))
                        .expect("submit");
                }
                for (i, (r, d)) in pairs.iter().enumerate() {
                    let got = scorer.wait().expect("a result").expect("score");
                    let want =
                        cpu::score_frame(&r.view(), &d.view(), &SsimOptions::default()).unwrap();
                    assert_eq!(got.ssim(), want.ssim(), "thread {t} frame {i}");
                }
            });
        }
    });
    assert!(engine.validation_messages().is_empty());
}

/// Device-resident pairs without semaphores are queued and submitted in
/// batches (half the ring: 4 of 8 here): 11 pairs cycling 3 layouts, a host
/// pair among them (which submits the queued ones first, keeping the order),
/// results taken only at the end, then a queued batch flushed by hand and
/// polled to completion: every score bit-identical to the CPU twin, in
/// submission order, with no validation message (synchronization validation
/// checks the batched submissions' barriers).
#[test]
fn queued_device_pairs_go_in_batches_in_order() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let (w, h) = (96u32, 64u32);
    let desc = ScorerDesc::new(w, h, 8).with_frames_in_flight(8);
    let mut scorer = engine.scorer(&desc).expect("scorer");
    let layouts = [
        (0, w as u64, 31),
        (256, w as u64 + 32, 32),
        (4, w as u64, 33),
    ];
    let pairs = device_pairs(&engine, w, h, &layouts);
    // SAFETY: the buffers hold their planes and outlive the scorers.
    let imports = unsafe { import_pairs(&engine, &pairs) };
    let (hr, hd) = (frame(w, h, 8, 90), frame(w, h, 8, 91));
    let host_want = cpu::score_frame(&hr.view(), &hd.view(), &SsimOptions::default()).unwrap();
    let order = [0usize, 1, 2, 0, 1, 9, 2, 0, 1, 2, 0, 1];
    for &k in &order {
        if k == 9 {
            let (r, d) = (
                HostPlane::u8(&hr.bytes, w as usize),
                HostPlane::u8(&hd.bytes, w as usize),
            );
            scorer.submit(Pair::new(r, d)).expect("host pair");
        } else {
            scorer
                .submit(Pair::new(&imports[k][0], &imports[k][1]))
                .expect("device pair");
        }
    }
    let mut got = Vec::new();
    while let Some(s) = scorer.wait() {
        got.push(s.expect("result"));
    }
    assert_eq!(got.len(), order.len());
    for (n, (&k, g)) in order.iter().zip(&got).enumerate() {
        let want = if k == 9 {
            host_want.clone()
        } else {
            want_for(w, h, layouts[k].2, &SsimOptions::default())
        };
        assert_eq!(*g, want, "submission {n} (pair {k})");
    }
    // Three queued pairs (below the batch of 4), flushed by hand, polled.
    for [r, d] in &imports {
        scorer.submit(Pair::new(r, d)).expect("device pair");
    }
    scorer.flush().expect("flush");
    let mut polled = Vec::new();
    while polled.len() < 3 {
        if let Some(s) = scorer.poll() {
            polled.push(s.expect("result"));
        }
    }
    for (k, g) in polled.iter().enumerate() {
        assert_eq!(
            *g,
            want_for(w, h, layouts[k].2, &SsimOptions::default()),
            "flushed pair {k}"
        );
    }
    drop(scorer);
    drop(imports);
    destroy_pairs(&engine, &pairs);
    assert!(
        engine.validation_messages().is_empty(),
        "{:#?}",
        engine.validation_messages()
    );
}

/// A scorer's outputs, every value by name with its fp64 bits (NaN equals
/// NaN).
fn output_bits(s: &vkssim::FrameScore) -> Vec<(String, u64)> {
    s.iter()
        .map(|(n, v)| (n.to_string(), v.to_bits()))
        .collect()
}

/// Imported device buffers (zero-copy and device-copy layouts) with the
/// luma metrics (float_ssim, float_ms_ssim, psnr without chroma) in one
/// scorer, mixed with a host pair: every output of every pair equal to the
/// CPU twin's at fp64, in submission order.
#[test]
fn device_pairs_with_metrics_match_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let (w, h) = (176u32, 177u32);
    let specs = [
        "float_ms_ssim=enable_lcs=true",
        "psnr=enable_chroma=false:enable_mse=true",
        "float_ssim",
    ];
    let desc = ScorerDesc::new(w, h, 8)
        .with_metrics(vkssim::metric::config::parse_list(&specs).unwrap())
        .with_chroma(vkssim::io::Chroma::C420)
        .with_frames_in_flight(2);
    let mut scorer = engine.scorer(&desc).expect("scorer");
    let mut twin = Scorer::cpu(&desc, 1).expect("CPU twin");
    let layouts = [(0, w as u64, 4), (256, w as u64 + 64, 5)];
    let pairs = device_pairs(&engine, w, h, &layouts);
    // SAFETY: the buffers hold their planes and outlive the scorers.
    let imports = unsafe { import_pairs(&engine, &pairs) };
    let host = [frame(w, h, 8, 91), frame(w, h, 8, 92)];
    let order = [0usize, 1, 9, 0, 1];
    let want: Vec<vkssim::FrameScore> = order
        .iter()
        .map(|&k| {
            let (r, d) = if k == 9 {
                (host[0].clone(), host[1].clone())
            } else {
                let s = layouts[k].2;
                (
                    common::host_plane(w, h, 8, |y| common::row_word(y, s, 8)),
                    common::host_plane(w, h, 8, |y| common::distorted_word(y, s, 8)),
                )
            };
            let [r, d] = [&r, &d].map(|f| HostPlane::u8(&f.bytes, w as usize));
            twin.submit(Pair::new(r, d)).expect("CPU pair");
            twin.wait().expect("a result").expect("CPU score")
        })
        .collect();
    let got = submit_in_order(&mut scorer, &imports, &order, [&host[0], &host[1]]);
    for (i, (g, c)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            output_bits(g),
            output_bits(c),
            "submission {i} (pair {})",
            order[i]
        );
        // float_ms_ssim and its 15 per-scale values, psnr_y and mse_y,
        // float_ssim.
        assert_eq!(g.iter().count(), 16 + 2 + 1, "outputs of submission {i}");
    }
    assert!(
        engine.validation_messages().is_empty(),
        "{:?}",
        engine.validation_messages()
    );
    drop(imports);
    drop(scorer);
    destroy_pairs(&engine, &pairs);
}
