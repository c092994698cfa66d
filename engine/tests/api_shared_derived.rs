//! A ladder's reference planes made once: scorers whose metrics make planes
//! from the reference alone (ADM's wavelet bands of the reference, every
//! scale) and whose pairs share one reference plane read the planes the
//! first rung's pair made into the shared plane, instead of making their own
//! (vkssim's `vk::scorer::derived`). Every rung's every
//! output equals, in its fp64 bits, the CPU twin's for the same pairs: VMAF's
//! default model at 8 and 10 bits, on the direct and staging upload paths,
//! rungs of other lists (libvmaf 3.2.0's motion, or adm alone: the same
//! ADM, they share), of ADM with another option (other bands' key: its own)
//! and of a list with nothing to share (float_ssim), a rung
//! that takes its reference from its own slot on odd frames; the scorers'
//! counts say who made and who read. A sample above the bit depth in a
//! shared reference is each rung's error (the rungs that read the planes
//! still scan the reference), and the next frame scores. Validation is on;
//! any message fails.

mod vk_support;

use vk_support::{
    assert_device_reference_range, assert_no_engine_messages, frame, gpu_present, output_bits,
    share, submit_in_slot as submit, validated_engine,
};
use vkssim::api::{HostPlane, Pair, ScoreQueue, Scorer, ScorerDesc, SharedPlane};
use vkssim::metric::{MetricConfig, Models, MotionVersion};
use vkssim::vk::UploadPath;
use vkssim::LumaFrame;

/// Four ADM and VIF scales, odd sizes (mirrors and reflections at every
/// edge).
const W: u32 = 70;
const H: u32 = 46;

fn vmaf(depth: u32, version: MotionVersion) -> ScorerDesc {
    ScorerDesc::new(W, H, depth)
        .with_models(Models::default_model().expect("model"))
        .with_motion_version(version)
        .with_frames_in_flight(4)
}

/// The metrics of `specs`, no model.
fn metrics(depth: u32, specs: &[&str]) -> ScorerDesc {
    let metrics = specs
        .iter()
        .map(|s| MetricConfig::parse_with_motion(s, MotionVersion::V2_3_1).expect("metric"))
        .collect();
    ScorerDesc::new(W, H, depth)
        .with_metrics(metrics)
        .with_frames_in_flight(4)
}

/// A host plane of `f`'s samples.
fn plane<'a>(f: &'a LumaFrame, store: &'a mut Vec<u16>) -> HostPlane<'a> {
    if f.bit_depth > 8 {
        *store = f
            .bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        HostPlane::u16(store, f.width as usize)
    } else {
        HostPlane::u8(&f.bytes, f.width as usize)
    }
}

/// The CPU twin's outputs of `pairs`, in order.
fn twin(desc: &ScorerDesc, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<Vec<(String, u64)>> {
    let mut cpu = Scorer::cpu(desc, 1).expect("cpu");
    let mut out = Vec::new();
    for (r, d) in pairs {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        cpu.submit(Pair::new(plane(r, &mut a), plane(d, &mut b)))
            .expect("submit");
        while let Some(s) = cpu.poll() {
            out.push(output_bits(&s.expect("score")));
        }
    }
    cpu.finish();
    while let Some(s) = cpu.wait() {
        out.push(output_bits(&s.expect("score")));
    }
    assert_eq!(out.len(), pairs.len(), "the CPU twin: a score per pair");
    out
}

/// (makes, reads) of shared reference planes so far.
fn counts(scorer: &Scorer) -> (u64, u64) {
    let host = scorer.diagnostics().expect("a Vulkan scorer").host;
    (host.shared_reference_makes, host.shared_reference_reads)
}

/// A ladder of `descs` over `frames` reference frames, one shared plane
/// each (from a pool whose derived planes may take `budget` bytes, when
/// given); rung 1 takes its reference from its own slot on odd frames.
/// Every rung equals the CPU twin, and made and read the shared planes'
/// derived planes `expected` times each.
fn check_ladder(
    (upload, depth, frames): (UploadPath, u32, u32),
    descs: &[ScorerDesc],
    expected: &[(u64, u64)],
    budget: Option<u64>,
) {
    let engine = validated_engine(upload);
    let mut planes = engine.shared_planes(&descs[0]).expect("pool");
    if let Some(bytes) = budget {
        planes = planes.with_derived_budget(bytes);
    }
    let mut scorers: Vec<Scorer> = descs
        .iter()
        .map(|d| engine.scorer(d).expect("scorer"))
        .collect();
    // Smooth references moving a little from frame to frame (motion is not
    // 0), each rung's distorted frames its own.
    let refs: Vec<LumaFrame> = (0..frames).map(|i| frame(W, H, depth, 7 + i)).collect();
    let pairs: Vec<Vec<(LumaFrame, LumaFrame)>> = (0..descs.len())
        .map(|lane| {
            refs.iter()
                .enumerate()
                .map(|(i, r)| {
                    (
                        r.clone(),
                        frame(W, H, depth, 300 * (lane as u32 + 1) + i as u32),
                    )
                })
                .collect()
        })
        .collect();
    let mut got: Vec<Vec<Vec<(String, u64)>>> = vec![Vec::new(); descs.len()];
    for (i, r) in refs.iter().enumerate() {
        let shared = share(&planes, r);
        for (lane, scorer) in scorers.iter_mut().enumerate() {
            let own = lane == 1 && i % 2 == 1;
            submit(scorer, (!own).then_some(&shared), r, &pairs[lane][i].1);
            while let Some(s) = scorer.poll() {
                got[lane].push(output_bits(&s.expect("score")));
            }
        }
    }
    let what = format!("{upload:?}, {depth} bits");
    for (lane, scorer) in scorers.iter_mut().enumerate() {
        scorer.finish();
        while let Some(s) = scorer.wait() {
            got[lane].push(output_bits(&s.expect("score")));
        }
        assert_eq!(got[lane].len(), refs.len(), "{what}: rung {lane}'s scores");
        let want = twin(&descs[lane], &pairs[lane]);
        assert_eq!(got[lane], want, "{what}: rung {lane}");
    }
    for (lane, scorer) in scorers.iter().enumerate() {
        assert_eq!(
            counts(scorer),
            expected[lane],
            "{what}: rung {lane}'s makes and reads"
        );
    }
    assert_no_engine_messages(&engine, "validation");
}

/// Rungs 0 and 1 VMAF's default model, rung 2 the same with 3.2.0's
/// motion and rung 3 adm alone (the same planes made from the reference:
/// they read them), rung 4 adm with another enhancement gain limit and
/// rung 5 float_ssim alone (planes of another key, or none: they make their
/// own); rung 0 makes every frame's planes, rung 1 reads them on even
/// frames, rungs 2 and 3 on every frame. Then
/// a ladder of adm alone, whose programs keep no buffer from frame to
/// frame: only the shared planes put a barrier first in its rungs'
/// programs. (That barrier is the Vulkan rule, not something this test
/// can see: lavapipe runs submissions one after another, and
/// synchronization validation reported nothing with it taken out; the
/// recorder's unit test `a_pass_binding_the_ready_word_runs_behind_a_barrier`
/// checks that it is there.)
#[test]
fn a_vmaf_ladder_reads_the_reference_planes_the_first_rung_made() {
    if !gpu_present() {
        return;
    }
    for (upload, depth, frames) in [
        (UploadPath::Direct, 8, 7u32),
        (UploadPath::Direct, 10, 6),
        (UploadPath::Staging, 10, 5),
    ] {
        let n = u64::from(frames);
        let descs = [
            vmaf(depth, MotionVersion::V2_3_1),
            vmaf(depth, MotionVersion::V2_3_1),
            vmaf(depth, MotionVersion::V3_2_0),
            metrics(depth, &["adm"]),
            metrics(depth, &["adm=adm_enhn_gain_limit=1.2"]),
            metrics(depth, &["float_ssim"]),
        ];
        let expected = [(n, 0), (0, n.div_ceil(2)), (0, n), (0, n), (0, 0), (0, 0)];
        check_ladder((upload, depth, frames), &descs, &expected, None);
        let adm = [0, 1, 2].map(|_| metrics(depth, &["adm"]));
        let expected = [(n, 0), (0, n.div_ceil(2)), (0, n)];
        check_ladder((upload, depth, frames), &adm, &expected, None);
    }
}

/// A pool whose derived planes may take no memory, or less than one
/// plane's (1,000 bytes: less than a 70x46 plane's ADM bands): no rung
/// makes or reads a plane's bands, each makes its own, and every output is
/// the CPU twin's.
#[test]
fn a_pool_past_its_derived_budget_shares_nothing_more() {
    if !gpu_present() {
        return;
    }
    let descs = [0, 1, 2].map(|_| vmaf(8, MotionVersion::V2_3_1));
    let setup = (UploadPath::Direct, 8, 5);
    check_ladder(setup, &descs, &[(0, 0); 3], Some(0));
    check_ladder(setup, &descs, &[(0, 0); 3], Some(1000));
}

/// A 10-bit sample above 1023 in a shared reference: the rung that made the
/// planes and the rung that read them both give the reference's range error
/// for that frame, and the next frame's own outputs are the CPU twin's; with
/// VMAF's default model and with adm alone (whose reading rung finds the
/// sample in its wavelet pass's scan of the reference alone).
#[test]
fn a_sample_above_the_bit_depth_in_a_shared_reference_is_each_rungs_error() {
    if !gpu_present() {
        return;
    }
    for desc in [vmaf(10, MotionVersion::V2_3_1), metrics(10, &["adm"])] {
        check_range_error(&desc);
    }
}

/// See [`a_sample_above_the_bit_depth_in_a_shared_reference_is_each_rungs_error`].
fn check_range_error(desc: &ScorerDesc) {
    let engine = validated_engine(UploadPath::Auto);
    let planes = engine.shared_planes(desc).expect("pool");
    let mut scorers: Vec<Scorer> = (0..2)
        .map(|_| engine.scorer(desc).expect("scorer"))
        .collect();
    let first = frame(W, H, 10, 1);
    let mut bad = frame(W, H, 10, 2);
    let (x, y) = (41u32, 29u32);
    let at = 2 * (y * W + x) as usize;
    bad.bytes[at..at + 2].copy_from_slice(&1100u16.to_le_bytes());
    let good = frame(W, H, 10, 3);
    let d = frame(W, H, 10, 4);
    let shared: Vec<SharedPlane> = [&first, &bad, &good]
        .iter()
        .map(|f| share(&planes, f))
        .collect();
    for plane in &shared {
        for scorer in scorers.iter_mut() {
            submit(scorer, Some(plane), &first, &d);
        }
    }
    for (lane, scorer) in scorers.iter_mut().enumerate() {
        scorer.finish();
        scorer.wait().expect("a result").expect("frame 0 scores");
        let result = scorer.wait().expect("a result");
        assert_device_reference_range(result, (1, x, y, 1100), &format!("rung {lane}"));
        let next = scorer.wait().expect("a result").expect("frame 2 scores");
        let got = output_bits(&next);
        assert!(!got.is_empty());
        // The frame after a refused one: its motion compares against the
        // refused frame's reference on the device (as libvmaf, which
        // refuses nothing, would); the other outputs are the pair's own.
        let want = twin(desc, &[(good.clone(), d.clone())]);
        let own = |all: &[(String, u64)]| -> Vec<(String, u64)> {
            let temporal = |n: &str| n.contains("motion") || n.starts_with("vmaf");
            all.iter().filter(|(n, _)| !temporal(n)).cloned().collect()
        };
        assert_eq!(own(&got), own(&want[0]), "rung {lane}: frame 2");
    }
    assert_eq!(counts(&scorers[0]), (3, 0));
    assert_eq!(counts(&scorers[1]), (0, 3));
    assert_no_engine_messages(&engine, "validation");
}
