//! Shared reference planes (`Engine::shared_planes`, `FrameSlot::share_reference`):
//! an encoding ladder, one reference plane uploaded once per frame and scored
//! by several scorers against their own distorted planes, scores bit for bit
//! as the CPU twin's `score_frame`, on the direct and the staging upload paths,
//! at 8 and 10 bits, with slots that switch between shared and own
//! references; the pool reuses its planes; a sample above the bit depth in a
//! shared plane is each pair's range error; planes of another geometry, CPU
//! slots and device-frame scorers are refused; host planes with a row stride
//! uploaded as shared planes (`SharedPlanes::upload`,
//! `Scorer::submit` with a shared reference) score the same; with psnr reading
//! chroma the shared plane holds the whole picture (`SharedPlanes::upload_picture`,
//! `Pair::with_distorted_chroma`) and psnr and all three metrics score like the
//! CPU twin and like unshared pairs, with the refusals that remain. Validation
//! is on; any message fails.

mod vk_support;

use vk_support::{
    assert_device_reference_range, assert_no_engine_messages, frame, gpu_present, output_bits,
    share, submit_in_slot as submit, validated_engine,
};
use vkssim::api::ScoreQueue;
use vkssim::api::{Engine, HostPlane, Pair, Scorer, ScorerDesc};
use vkssim::io::Chroma;
use vkssim::metric::config::parse_list;
use vkssim::metric::MetricConfig;
use vkssim::vk::UploadPath;
use vkssim::{testing::cpu, Error, FrameScore, LumaFrame, SsimOptions};

/// Decimated by 2 (scale 2: min(520, 400) / 256 rounds to 2).
const W: u32 = 520;
const H: u32 = 400;

fn lcs() -> SsimOptions {
    SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    }
}

fn bits(s: &FrameScore) -> Vec<u64> {
    let mut v = vec![s.ssim().to_bits(), s.float_ssim().to_bits()];
    if let Some(lcs) = s.lcs() {
        v.extend(lcs.map(f64::to_bits));
    }
    v
}

fn assert_same(got: &FrameScore, r: &LumaFrame, d: &LumaFrame, opts: &SsimOptions, what: &str) {
    let want = cpu::score_frame(&r.view(), &d.view(), opts).unwrap();
    assert_eq!(bits(got), bits(&want), "{what}");
}

/// A ladder of `lanes` scorers over `frames` reference frames: each frame's
/// reference is one shared plane; lane 1 takes its reference from its own
/// slot on odd frames (so its slots switch between the two). Every result
/// equals the CPU twin's.
fn check_ladder(engine: &Engine, bit_depth: u32, lanes: usize, frames: u32, what: &str) {
    let opts = lcs();
    let desc = ScorerDesc::new(W, H, bit_depth)
        .with_metrics(vec![MetricConfig::FloatSsim(opts)])
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
        let engine = validated_engine(upload);
        for bit_depth in [8, 10] {
            check_ladder(
                &engine,
                bit_depth,
                3,
                7,
                &format!("{upload:?} {bit_depth}-bit"),
            );
        }
        assert_no_engine_messages(&engine, "validation");
    }
}

/// A 10-bit sample above 1023 in a shared plane: every pair scored against it
/// gives the reference plane's range error, and the next frame scores.
#[test]
fn a_sample_above_the_bit_depth_in_a_shared_plane_is_each_pairs_error() {
    if !gpu_present() {
        return;
    }
    let engine = validated_engine(UploadPath::Auto);
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
        let result = scorer.wait().expect("a result");
        assert_device_reference_range(result, (0, x, y, 1024), "the scorer");
        let next = scorer
            .wait()
            .expect("a result")
            .expect("the next frame scores");
        assert_same(&next, &good, &d, &SsimOptions::default(), "after the error");
    }
    assert_no_engine_messages(&engine, "validation");
}

#[test]
fn planes_of_another_geometry_and_cpu_slots_are_refused() {
    let desc = ScorerDesc::new(W, H, 8);
    if !gpu_present() {
        return;
    }
    let engine = validated_engine(UploadPath::Auto);
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

    assert_no_engine_messages(&engine, "validation");
}

/// 10-bit host planes with a row stride of 7 samples more than a row: the
/// reference uploaded once, two scorers scoring their own encodes against it.
#[test]
fn host_planes_uploaded_as_a_shared_reference_score_like_score_frame() {
    if !gpu_present() {
        return;
    }
    let engine = validated_engine(UploadPath::Auto);
    let desc = ScorerDesc::new(W, H, 10)
        .with_metrics(vec![MetricConfig::FloatSsim(lcs())])
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
    assert_no_engine_messages(&engine, "validation");
}

/// A frame's planes in host memory, rows `stride` samples apart (8-bit bytes
/// or 16-bit words).
struct Strided {
    bytes: Vec<u8>,
    words: Vec<u16>,
    stride: usize,
}

impl Strided {
    /// `f`'s samples with `pad` samples more than a row between rows.
    fn new(f: &LumaFrame, pad: usize) -> Self {
        let (w, wide) = (f.width as usize, f.bit_depth > 8);
        let stride = w + pad;
        let (mut bytes, mut words) = (Vec::new(), Vec::new());
        for y in 0..f.height as usize {
            if wide {
                let row = &f.bytes[2 * y * w..2 * (y + 1) * w];
                words.extend(row.chunks(2).map(|v| u16::from_le_bytes([v[0], v[1]])));
                words.resize((y + 1) * stride, 0);
            } else {
                bytes.extend_from_slice(&f.bytes[y * w..(y + 1) * w]);
                bytes.resize((y + 1) * stride, 0);
            }
        }
        Self {
            bytes,
            words,
            stride,
        }
    }

    fn plane(&self) -> HostPlane<'_> {
        if self.words.is_empty() {
            HostPlane::u8(&self.bytes, self.stride)
        } else {
            HostPlane::u16(&self.words, self.stride)
        }
    }
}

/// A picture: its luma, Cb and Cr planes, strided.
struct Picture {
    planes: [Strided; 3],
    /// The planes packed one after the other (as a frame slot holds them).
    packed: Vec<u8>,
}

impl Picture {
    fn new(desc: &ScorerDesc, chroma: Chroma, seed: u32) -> Self {
        let (w, h, bd) = (desc.width, desc.height, desc.bit_depth);
        let (cw, ch) = chroma.plane_size(w, h);
        let frames = [
            frame(w, h, bd, seed),
            frame(cw, ch, bd, seed + 1000),
            frame(cw, ch, bd, seed + 2000),
        ];
        let packed = frames.iter().flat_map(|f| f.bytes.clone()).collect();
        Self {
            planes: [0, 1, 2].map(|k| Strided::new(&frames[k], 3 + k)),
            packed,
        }
    }

    fn luma(&self) -> HostPlane<'_> {
        self.planes[0].plane()
    }

    fn chroma(&self) -> [HostPlane<'_>; 2] {
        [self.planes[1].plane(), self.planes[2].plane()]
    }
}

/// Every output of a score by name with its fp64 bits (NaN equals NaN).
fn metrics_desc(specs: &[&str], chroma: Chroma, (w, h, bd): (u32, u32, u32)) -> ScorerDesc {
    ScorerDesc::new(w, h, bd)
        .with_metrics(parse_list(specs).expect("metrics"))
        .with_chroma(chroma)
        .with_frames_in_flight(2)
}

/// Scores `frames` pictures through a shared reference holding the whole
/// picture on two lanes (lane 0 through `Scorer::submit` with
/// `SharedPlanes::upload_picture`, lane 1 through frame slots with a plane
/// written by `PlaneWriter`), and the same pairs without sharing on the
/// device and on the CPU twin: every output equal at fp64, `outputs` of them.
fn check_shared_metrics(engine: &Engine, desc: &ScorerDesc, chroma: Chroma, outputs: usize) {
    let what = format!(
        "{:?} {}x{} {}-bit {chroma:?}",
        desc.metrics, desc.width, desc.height, desc.bit_depth
    );
    let planes = engine.shared_planes(desc).expect("pool");
    let (cw, ch) = chroma.plane_size(desc.width, desc.height);
    assert_eq!(planes.chroma_plane_size(), Some((cw, ch)), "{what}");
    let bps = if desc.bit_depth > 8 { 2 } else { 1 };
    assert_eq!(
        planes.plane_len(),
        bps * (desc.width * desc.height + 2 * cw * ch) as usize,
        "{what}"
    );
    let mut lanes: Vec<Scorer> = (0..2).map(|_| engine.scorer(desc).expect("lane")).collect();
    let mut unshared = engine.scorer(desc).expect("unshared scorer");
    let mut twin = Scorer::cpu(desc, 1).expect("CPU twin");
    for i in 0..3u32 {
        let r = Picture::new(desc, chroma, 10 + i);
        let shared = planes.upload_picture(r.luma(), r.chroma()).expect("upload");
        let mut written = planes.take().expect("take");
        written.bytes_mut().copy_from_slice(&r.packed);
        let written = written.share();
        for lane in 0..2 {
            let d = Picture::new(desc, chroma, 50 + 10 * lane + i);
            let full = Pair::new(r.luma(), d.luma()).with_chroma(r.chroma(), d.chroma());
            twin.submit(full.clone()).expect("CPU pair");
            unshared.submit(full).expect("unshared pair");
            let scorer = &mut lanes[lane as usize];
            if lane == 0 {
                let pair = Pair::new(&shared, d.luma()).with_distorted_chroma(d.chroma());
                scorer.submit(pair).expect("shared pair");
            } else {
                let mut slots = scorer.slots();
                let mut slot = slots.acquire().expect("acquire");
                slot.share_reference(&written).expect("share");
                slot.frames_mut().1.copy_from_slice(&d.packed);
                slots.submit(slot).expect("slot pair");
            }
            let want = twin.wait().expect("a result").expect("CPU score");
            let plain = unshared.wait().expect("a result").expect("unshared score");
            let got = scorer.wait().expect("a result").expect("shared score");
            let at = format!("{what} frame {i} lane {lane}");
            assert_eq!(output_bits(&want).len(), outputs, "{at}");
            assert_eq!(
                output_bits(&got),
                output_bits(&want),
                "{at}: shared vs twin"
            );
            assert_eq!(
                output_bits(&plain),
                output_bits(&want),
                "{at}: unshared vs twin"
            );
        }
    }
    assert_no_engine_messages(engine, &what);
}

/// psnr with chroma through a shared reference that holds the whole picture
/// (8 and 10-bit, 4:2:0, 4:2:2 and 4:4:4, odd sizes), and all three metrics
/// together: every output equal to the CPU twin's and to the same pairs
/// scored without sharing.
#[test]
fn psnr_with_chroma_and_all_metrics_through_a_shared_reference_match_the_twin() {
    if !gpu_present() {
        return;
    }
    let engine = validated_engine(UploadPath::Auto);
    let psnr = ["psnr=enable_chroma=true:enable_mse=true"];
    for (bd, chroma) in [(8, Chroma::C420), (10, Chroma::C444), (10, Chroma::C420)] {
        let desc = metrics_desc(&psnr, chroma, (67, 45, bd));
        // psnr_y/_cb/_cr and mse_y/_cb/_cr.
        check_shared_metrics(&engine, &desc, chroma, 6);
    }
    // A frame below float_ssim's 11x11 window: psnr alone shares it too.
    let desc = metrics_desc(&psnr, Chroma::C420, (7, 5, 8));
    check_shared_metrics(&engine, &desc, Chroma::C420, 6);
    let all = [
        "float_ssim=enable_lcs=true",
        "psnr=enable_chroma=true",
        "float_ms_ssim=enable_lcs=true",
    ];
    for (bd, chroma) in [(8, Chroma::C422), (10, Chroma::C420)] {
        let desc = metrics_desc(&all, chroma, (177, 179, bd));
        // float_ssim and its 3 terms, psnr_y/_cb/_cr, float_ms_ssim and its 15.
        check_shared_metrics(&engine, &desc, chroma, 4 + 3 + 16);
    }
}

/// A whole-picture plane read by a scorer of luma metrics (its luma comes
/// first), scored like the twin.
#[test]
fn a_whole_picture_plane_serves_a_luma_scorer() {
    if !gpu_present() {
        return;
    }
    let engine = validated_engine(UploadPath::Auto);
    let g = (177, 179, 8);
    let chroma_desc = metrics_desc(&["psnr"], Chroma::C420, g);
    let luma_desc = metrics_desc(
        &["psnr=enable_chroma=false", "float_ms_ssim"],
        Chroma::C420,
        g,
    );
    let planes = engine.shared_planes(&chroma_desc).expect("pool");
    let mut scorer = engine.scorer(&luma_desc).expect("scorer");
    let mut twin = Scorer::cpu(&luma_desc, 1).expect("CPU twin");
    let (r, d) = (
        Picture::new(&luma_desc, Chroma::C420, 1),
        Picture::new(&luma_desc, Chroma::C420, 2),
    );
    let shared = planes.upload_picture(r.luma(), r.chroma()).expect("upload");
    scorer
        .submit(Pair::new(&shared, d.luma()))
        .expect("shared pair");
    twin.submit(Pair::new(r.luma(), d.luma()))
        .expect("CPU pair");
    let got = scorer.wait().expect("a result").expect("score");
    let want = twin.wait().expect("a result").expect("CPU score");
    assert_eq!(output_bits(&got), output_bits(&want));
    assert_eq!(output_bits(&got).len(), 1 + 1);
    assert_no_engine_messages(&engine, "validation");
}

/// What stays refused, each with a message that says what to do: a luma
/// upload into a whole-picture pool and the reverse, a shared pair without
/// the distorted chroma or with the reference's, a luma-only plane or one of
/// another chroma layout for a scorer that reads chroma; the scorer scores
/// the next good pair after each.
#[test]
fn shared_references_with_chroma_refuse_what_does_not_fit() {
    if !gpu_present() {
        return;
    }
    let engine = validated_engine(UploadPath::Auto);
    let g = (67, 45, 8);
    let desc = metrics_desc(&["psnr"], Chroma::C420, g);
    let luma_desc = metrics_desc(&["psnr=enable_chroma=false"], Chroma::C420, g);
    let desc_444 = metrics_desc(&["psnr"], Chroma::C444, g);
    let planes = engine.shared_planes(&desc).expect("pool");
    let luma_planes = engine.shared_planes(&luma_desc).expect("luma pool");
    let planes_444 = engine.shared_planes(&desc_444).expect("4:4:4 pool");
    assert_eq!(luma_planes.chroma_plane_size(), None);
    let (r, d) = (
        Picture::new(&desc, Chroma::C420, 1),
        Picture::new(&desc, Chroma::C420, 2),
    );
    let r444 = Picture::new(&desc, Chroma::C444, 3);
    let message = |e: Error| match e {
        Error::InvalidOption(m) => m,
        other => panic!("expected InvalidOption, got {other:?}"),
    };
    let e = message(planes.upload(r.luma()).unwrap_err());
    assert!(
        e.contains("whole picture") && e.contains("upload_picture"),
        "{e}"
    );
    let e = message(
        luma_planes
            .upload_picture(r.luma(), r.chroma())
            .unwrap_err(),
    );
    assert!(
        e.contains("luma plane only") && e.contains("SharedPlanes::upload"),
        "{e}"
    );
    // A chroma plane too short for the chroma size is the upload's error.
    let short = HostPlane::u8(&r.planes[2].bytes[..100], r.planes[2].stride);
    assert!(matches!(
        planes.upload_picture(r.luma(), [r.chroma()[0], short]),
        Err(Error::BufferSize { .. })
    ));

    let shared = planes.upload_picture(r.luma(), r.chroma()).expect("upload");
    let luma_only = luma_planes.upload(r.luma()).expect("luma upload");
    let other_layout = planes_444
        .upload_picture(r444.luma(), r444.chroma())
        .expect("4:4:4 upload");
    let mut scorer = engine.scorer(&desc).expect("scorer");
    let mut twin = Scorer::cpu(&desc, 1).expect("CPU twin");
    let refusals: [(Pair<'_>, &str); 4] = [
        (Pair::new(&shared, d.luma()), "Pair::with_distorted_chroma"),
        (
            Pair::new(&shared, d.luma()).with_chroma(r.chroma(), d.chroma()),
            "holds them already",
        ),
        (
            Pair::new(&luma_only, d.luma()).with_distorted_chroma(d.chroma()),
            "of luma only",
        ),
        (
            Pair::new(&other_layout, d.luma()).with_distorted_chroma(d.chroma()),
            "another chroma layout",
        ),
    ];
    twin.submit(Pair::new(r.luma(), d.luma()).with_chroma(r.chroma(), d.chroma()))
        .expect("CPU pair");
    let want = twin.wait().expect("a result").expect("CPU score");
    for (pair, needle) in refusals {
        let e = message(scorer.submit(pair).unwrap_err());
        assert!(e.contains(needle), "{needle}: {e}");
        scorer
            .submit(Pair::new(&shared, d.luma()).with_distorted_chroma(d.chroma()))
            .expect("the next pair");
        let got = scorer.wait().expect("a result").expect("score");
        assert_eq!(output_bits(&got), output_bits(&want), "after {needle}");
    }
    assert_no_engine_messages(&engine, "validation");
}
