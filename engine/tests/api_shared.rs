//! Shared reference planes (`Engine::shared_planes`, `FrameSlot::share_reference`):
//! an encoding ladder, one reference plane uploaded once per frame and scored
//! by several scorers against their own distorted planes, scores bit for bit
//! as the CPU twin's `score_frame`, on the direct and the staging upload paths,
//! at 8 and 10 bits, with slots that switch between shared and own
//! references; the pool reuses its planes; a sample above the bit depth in a
//! shared plane is each pair's range error; planes of another geometry, CPU
//! slots and device-frame scorers are refused; host planes with a row stride
//! uploaded as shared planes (`SharedPlanes::upload`,
//! `Scorer::submit` with a shared reference) score the same. Validation is on; any
//! message fails.

mod vk_support;

use vk_support::{frame, gpu_present};
use vkssim::api::{Engine, HostPlane, Pair, Scorer, ScorerDesc, SharedPlane, SharedPlanes};
use vkssim::vk::{UploadPath, VkOptions};
use vkssim::{cpu, Error, FrameScore, LumaFrame, PlaneRole, SampleAt, SsimOptions};

/// Decimated by 2 (scale 2: min(520, 400) / 256 rounds to 2).
const W: u32 = 520;
const H: u32 = 400;

fn engine(upload: UploadPath) -> Engine {
    Engine::new(
        &VkOptions::default()
            .with_validation(true)
            .with_upload(upload),
    )
    .expect("engine")
}

fn lcs() -> SsimOptions {
    SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    }
}

fn bits(s: &FrameScore) -> Vec<u64> {
    let mut v = vec![s.ssim.to_bits(), s.float_ssim().to_bits()];
    if let Some(lcs) = s.lcs() {
        v.extend(lcs.map(f64::to_bits));
    }
    v
}

fn assert_same(got: &FrameScore, r: &LumaFrame, d: &LumaFrame, opts: &SsimOptions, what: &str) {
    let want = cpu::score_frame(&r.view(), &d.view(), opts).unwrap();
    assert_eq!(bits(got), bits(&want), "{what}");
}

/// A shared plane holding `f`.
fn share(planes: &SharedPlanes, f: &LumaFrame) -> SharedPlane {
    let mut w = planes.take().expect("take a plane");
    w.bytes_mut().copy_from_slice(&f.bytes);
    w.share()
}

/// Submits to `scorer` one pair whose reference is `shared` (when given) or
/// `reference` copied into the slot.
fn submit(scorer: &mut Scorer, shared: Option<&SharedPlane>, reference: &LumaFrame, d: &LumaFrame) {
    let mut slots = scorer.slots();
    let mut slot = slots.acquire().expect("acquire");
    match shared {
        Some(plane) => {
            slot.share_reference(plane).expect("share");
            slot.distorted_mut().copy_from_slice(&d.bytes);
        }
        None => {
            let (a, b) = slot.planes_mut();
            a.copy_from_slice(&reference.bytes);
            b.copy_from_slice(&d.bytes);
        }
    }
    slots.submit(slot).expect("submit");
}

/// A ladder of `lanes` scorers over `frames` reference frames: each frame's
/// reference is one shared plane; lane 1 takes its reference from its own
/// slot on odd frames (so its slots switch between the two). Every result
/// equals the CPU twin's.
fn check_ladder(engine: &Engine, bit_depth: u32, lanes: usize, frames: u32, what: &str) {
    let opts = lcs();
    let desc = ScorerDesc::new(W, H, bit_depth)
        .with_ssim(opts)
        .with_frames_in_flight(2);
    let planes = engine.shared_planes(&desc).expect("pool");
    assert_eq!(planes.plane_len(), desc_len(&desc));
    let mut scorers: Vec<Scorer> = (0..lanes)
        .map(|_| engine.scorer(&desc).expect("scorer"))
        .collect();
    let refs: Vec<LumaFrame> = (0..frames).map(|i| frame(W, H, bit_depth, 5 + i)).collect();
    let dist = |lane: usize, i: u32| frame(W, H, bit_depth, 100 * (lane as u32 + 1) + i);
    let mut got: Vec<Vec<FrameScore>> = vec![Vec::new(); lanes];
    for (i, r) in refs.iter().enumerate() {
        let shared = share(&planes, r);
        for (lane, scorer) in scorers.iter_mut().enumerate() {
            let own = lane == 1 && i % 2 == 1;
            let plane = (!own).then_some(&shared);
            submit(scorer, plane, r, &dist(lane, i as u32));
            while let Some(s) = scorer.poll() {
                got[lane].push(s.expect("score"));
            }
        }
    }
    for (lane, scorer) in scorers.iter_mut().enumerate() {
        while let Some(s) = scorer.wait() {
            got[lane].push(s.expect("score"));
        }
        assert_eq!(got[lane].len(), frames as usize, "{what} lane {lane}");
        for (i, g) in got[lane].iter().enumerate() {
            let d = dist(lane, i as u32);
            assert_same(
                g,
                &refs[i],
                &d,
                &opts,
                &format!("{what} lane {lane} frame {i}"),
            );
        }
    }
    // Each plane returns to the pool once its pairs are done: with two pairs
    // in flight per scorer, a few planes serve every frame.
    assert!(
        planes.planes_made() <= 4,
        "{what}: {} planes made for {frames} frames",
        planes.planes_made()
    );
}

fn desc_len(desc: &ScorerDesc) -> usize {
    desc.width as usize * desc.height as usize * if desc.bit_depth > 8 { 2 } else { 1 }
}

#[test]
fn a_ladder_on_shared_planes_scores_like_score_frame() {
    if !gpu_present() {
        return;
    }
    for upload in [UploadPath::Direct, UploadPath::Staging] {
        let engine = engine(upload);
        for bit_depth in [8, 10] {
            check_ladder(
                &engine,
                bit_depth,
                3,
                7,
                &format!("{upload:?} {bit_depth}-bit"),
            );
        }
        let messages = engine.validation_messages();
        assert!(messages.is_empty(), "{}", messages.join("\n"));
    }
}

/// A 10-bit sample above 1023 in a shared plane: every pair scored against it
/// gives the reference plane's range error, and the next frame scores.
#[test]
fn a_sample_above_the_bit_depth_in_a_shared_plane_is_each_pairs_error() {
    if !gpu_present() {
        return;
    }
    let engine = engine(UploadPath::Auto);
    let desc = ScorerDesc::new(W, H, 10).with_frames_in_flight(2);
    let planes = engine.shared_planes(&desc).expect("pool");
    let mut scorers: Vec<Scorer> = (0..2)
        .map(|_| engine.scorer(&desc).expect("scorer"))
        .collect();
    let mut bad = frame(W, H, 10, 1);
    let (x, y) = (17u32, 3u32);
    let at = 2 * (y * W + x) as usize;
    bad.bytes[at..at + 2].copy_from_slice(&1024u16.to_le_bytes());
    let good = frame(W, H, 10, 2);
    let d = frame(W, H, 10, 3);
    let (bad_plane, good_plane) = (share(&planes, &bad), share(&planes, &good));
    for scorer in scorers.iter_mut() {
        submit(scorer, Some(&bad_plane), &bad, &d);
        submit(scorer, Some(&good_plane), &good, &d);
        match scorer.wait().expect("a result") {
            Err(Error::SampleRange {
                plane,
                at,
                frame,
                x: ex,
                y: ey,
                value,
                ..
            }) => {
                assert_eq!((plane, at), (Some(PlaneRole::Reference), SampleAt::Device));
                assert_eq!((frame, ex, ey, value), (0, x, y, 1024));
            }
            other => panic!("expected the range error, got {other:?}"),
        }
        let next = scorer
            .wait()
            .expect("a result")
            .expect("the next frame scores");
        assert_same(&next, &good, &d, &SsimOptions::default(), "after the error");
    }
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

#[test]
fn planes_of_another_geometry_and_cpu_slots_are_refused() {
    let desc = ScorerDesc::new(W, H, 8);
    if !gpu_present() {
        return;
    }
    let engine = engine(UploadPath::Auto);
    let planes = engine.shared_planes(&desc).expect("pool");
    let plane = share(&planes, &frame(W, H, 8, 1));

    let mut cpu_scorer = Scorer::cpu(&desc, 1).expect("cpu scorer");
    let mut slots = cpu_scorer.slots();
    let mut slot = slots.acquire().expect("acquire");
    let e = slot.share_reference(&plane).unwrap_err().to_string();
    assert!(e.contains("CPU twin"), "{e}");
    drop(slot);

    // Another size, and the same bytes in another shape (transposed).
    for other_desc in [ScorerDesc::new(W - 8, H, 8), ScorerDesc::new(H, W, 8)] {
        let mut other = engine.scorer(&other_desc).expect("scorer");
        let mut slots = other.slots();
        let mut slot = slots.acquire().expect("acquire");
        assert!(matches!(
            slot.share_reference(&plane),
            Err(Error::GeometryMismatch(_))
        ));
    }

    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// 10-bit host planes with a row stride of 7 samples more than a row: the
/// reference uploaded once, two scorers scoring their own encodes against it.
#[test]
fn host_planes_uploaded_as_a_shared_reference_score_like_score_frame() {
    if !gpu_present() {
        return;
    }
    let engine = engine(UploadPath::Auto);
    let desc = ScorerDesc::new(W, H, 10)
        .with_ssim(lcs())
        .with_frames_in_flight(2);
    let planes = engine.shared_planes(&desc).expect("pool");
    assert_eq!(planes.geometry(), (W, H, 10));
    let stride = W as usize + 7;
    let strided = |f: &LumaFrame| -> Vec<u16> {
        let mut out = vec![0u16; stride * H as usize];
        for (y, row) in f.bytes.chunks(2 * W as usize).enumerate() {
            for (x, v) in row.chunks(2).enumerate() {
                out[y * stride + x] = u16::from_le_bytes([v[0], v[1]]);
            }
        }
        out
    };
    let mut scorers: Vec<Scorer> = (0..2)
        .map(|_| engine.scorer(&desc).expect("scorer"))
        .collect();
    for i in 0..3u32 {
        let r = frame(W, H, 10, 40 + i);
        let shared = planes
            .upload(HostPlane::u16(&strided(&r), stride))
            .expect("upload");
        for (lane, scorer) in scorers.iter_mut().enumerate() {
            let d = frame(W, H, 10, 60 + 10 * lane as u32 + i);
            scorer
                .submit(Pair::new(&shared, HostPlane::u16(&strided(&d), stride)))
                .expect("submit");
            let got = scorer.wait().expect("a result").expect("score");
            assert_same(&got, &r, &d, &lcs(), &format!("frame {i} lane {lane}"));
        }
    }
    let too_big = vec![1024u16; stride * H as usize];
    assert!(matches!(
        planes.upload(HostPlane::u16(&too_big, stride)),
        Err(Error::SampleRange { .. })
    ));
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}
