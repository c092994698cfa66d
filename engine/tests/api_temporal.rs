//! A temporal metric (`motion`, which reads the previous frame's reference)
//! over several engines ([`MultiScorer`]): runs of pairs dealt to each
//! engine, each run's first pair carrying the previous reference, which a
//! Vulkan scorer blurs into its kept plane first. Every value must equal, in
//! its fp64 bits, what one engine gives (the CPU twin, whose motion equals
//! `vmaf`'s: tests/tests/motion_vs_vmaf.rs, and one Vulkan scorer), on a clip
//! with a scene cut and a repeated frame, through host pairs, frame slots,
//! shared reference planes and imported device planes, on two and three
//! lavapipe scorers (one device, several engines: each has its own scorer,
//! ring and kept plane), on a Vulkan scorer beside the CPU twin, and on two
//! CPU twins; and a second stream on the same engines starts afresh. Frames
//! in flight are small, so runs are short and many pairs start one.
//! Validation is on; any message fails.

mod vk_support;

#[path = "../examples/common/mod.rs"]
mod common;
#[allow(dead_code)] // The pairs' planes are used, not their scores.
mod device_pairs;

use vk_support::{clip, collect_results, engines, gpu_present};
use vkssim::api::{Engine, HostPlane, MultiScorer, Pair, ScoreQueue, Scorer, ScorerDesc};
use vkssim::metric::{MetricConfig, MotionVersion};
use vkssim::{Error, FrameScore, LumaFrame};

/// Every output of every frame by name, with its fp64 bits.
fn bits(scores: &[FrameScore]) -> Vec<Vec<(String, u64)>> {
    scores
        .iter()
        .map(|s| {
            s.outputs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_bits()))
                .collect()
        })
        .collect()
}

fn check_validation(engines: &[Engine]) {
    for e in engines {
        let m = e.validation_messages();
        assert!(m.is_empty(), "validation: {m:#?}");
    }
}

/// `motion` (with its debug output) beside psnr on luma and float_ssim,
/// `frames` in flight.
fn desc(w: u32, h: u32, depth: u32, frames: usize) -> ScorerDesc {
    desc_of(MotionVersion::V2_3_1, (w, h, depth), frames)
}

/// [`desc`] with libvmaf `version`'s motion.
fn desc_of(version: MotionVersion, (w, h, depth): (u32, u32, u32), frames: usize) -> ScorerDesc {
    let metrics = [
        "float_ssim",
        "motion=debug=true",
        "psnr=enable_chroma=false",
    ]
    .iter()
    .map(|spec| MetricConfig::parse_with_motion(spec, version).expect("metric"))
    .collect();
    ScorerDesc::new(w, h, depth)
        .with_metrics(metrics)
        .with_frames_in_flight(frames)
}

/// A host plane of `f`'s samples (u16 above 8 bits), kept in `store`.
fn plane<'a>(f: &LumaFrame, store: &'a mut Vec<u16>, bytes: &'a [u8]) -> HostPlane<'a> {
    if f.bit_depth > 8 {
        *store = bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        HostPlane::u16(store, f.width as usize)
    } else {
        HostPlane::u8(bytes, f.width as usize)
    }
}

/// `f`'s 8-bit samples as a host plane.
fn host(f: &LumaFrame) -> HostPlane<'_> {
    HostPlane::u8(&f.bytes, f.width as usize)
}

/// Every frame's score (a frame without one fails the test).
fn scores(results: Vec<Result<FrameScore, Error>>) -> Vec<FrameScore> {
    results.into_iter().map(|s| s.expect("a score")).collect()
}

/// Every pair submitted as host planes, the stream finished, every score.
fn through<Q>(queue: &mut Q, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<FrameScore>
where
    Q: for<'p> ScoreQueue<Input<'p> = Pair<'p>>,
{
    scores(results(queue, pairs))
}

/// Every pair filled into the multi-scorer's frame slots, the stream
/// finished, every score.
fn through_slots(multi: &mut MultiScorer, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<FrameScore> {
    scores(slot_results(multi, pairs))
}

/// Fills a frame slot with `r` and `d` and submits it.
fn fill_slot(slots: &mut vkssim::api::MultiSlots<'_>, r: &LumaFrame, d: &LumaFrame) {
    let mut slot = slots.acquire().expect("slot");
    let (a, b) = slot.planes_mut();
    a.copy_from_slice(&r.bytes);
    b.copy_from_slice(&d.bytes);
    slots.submit(slot).expect("submit");
}

/// The CPU twin's bits for `pairs` under `d`, after checking that one
/// Vulkan scorer of `engine` gives them over two streams (the second starts
/// afresh: motion 0 first).
fn twin_then_two_streams(
    engine: &Engine,
    d: &ScorerDesc,
    pairs: &[(LumaFrame, LumaFrame)],
) -> Vec<Vec<(String, u64)>> {
    let want = bits(&through(&mut Scorer::cpu(d, 2).expect("cpu"), pairs));
    let mut vk = engine.scorer(d).expect("vulkan scorer");
    assert_eq!(bits(&through(&mut vk, pairs)), want, "one Vulkan scorer");
    assert_eq!(bits(&through(&mut vk, pairs)), want, "its second stream");
    want
}

/// Both motions: libvmaf 2.3.1's (the blurred reference kept) and 3.2.0's
/// (the reference kept, the difference blurred).
#[test]
fn motion_over_several_vulkan_engines_equals_one_engine() {
    if !gpu_present() {
        return;
    }
    let all = engines(3);
    let cases = [
        (MotionVersion::V2_3_1, (40u32, 24u32, 8u32)),
        (MotionVersion::V2_3_1, (33, 19, 10)),
        (MotionVersion::V3_2_0, (35, 21, 12)),
    ];
    for (version, (w, h, depth)) in cases {
        let pairs = clip(w, h, depth, 17);
        let desc = |w, h, depth, frames| desc_of(version, (w, h, depth), frames);
        let one = desc(w, h, depth, 0);
        let want = twin_then_two_streams(&all[0], &one, &pairs);
        for (count, frames) in [(2, 2), (3, 3), (2, 5)] {
            let label =
                format!("{version} {w}x{h} {depth}-bit, {count} engines, {frames} in flight");
            let d = desc(w, h, depth, frames);
            let mut multi = MultiScorer::new(&all[..count], &d).expect("multi");
            assert_eq!(multi.queue_depth(), count * frames, "{label}");
            // Runs of `frames` pairs per engine in turn.
            let dealt: Vec<usize> = (0..2 * count * frames)
                .map(|k| {
                    let e = multi.next_engine();
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    let (r, dd) = &pairs[k % pairs.len()];
                    let pair = Pair::new(plane(r, &mut a, &r.bytes), plane(dd, &mut b, &dd.bytes));
                    multi.submit(pair).expect("submit");
                    e
                })
                .collect();
            let runs: Vec<usize> = (0..2 * count * frames)
                .map(|k| (k / frames) % count)
                .collect();
            assert_eq!(dealt, runs, "{label}: the dealing");
            multi.finish();
            while multi.wait().is_some() {}
            // Host pairs, a second stream, then slots filled in place: each
            // a stream of its own (its first frame has no previous one).
            assert_eq!(bits(&through(&mut multi, &pairs)), want, "{label}");
            assert_eq!(bits(&through(&mut multi, &pairs)), want, "{label}, again");
            assert_eq!(
                bits(&through_slots(&mut multi, &pairs)),
                want,
                "{label}, slots"
            );
        }
    }
    check_validation(&all);
}

/// Host pairs uploaded in batches (sixteen frames in flight: batches of up
/// to two, an eighth of the ring, each one command buffer with the pairs'
/// levels side by side, see vkssim's `Program::stagger`), both through
/// `submit` and through frame slots filled in place: the same bits as the
/// CPU twin, with either motion beside float_ssim and psnr and with VMAF's
/// default model, over two streams of one scorer.
#[test]
fn uploaded_pairs_in_batches_equal_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    let all = engines(1);
    let vmaf = |w, h| {
        ScorerDesc::new(w, h, 8)
            .with_models(vkssim::metric::Models::default_model().expect("model"))
            .with_frames_in_flight(16)
    };
    let cases = [
        (desc(40, 24, 8, 16), (40, 24, 8)),
        (
            desc_of(MotionVersion::V3_2_0, (35, 21, 12), 16),
            (35, 21, 12),
        ),
        (vmaf(64, 40), (64, 40, 8)),
    ];
    for (d, (w, h, depth)) in cases {
        let pairs = clip(w, h, depth, 19);
        let want = twin_then_two_streams(&all[0], &d, &pairs);
        let mut multi = MultiScorer::new(&all, &d).expect("multi");
        let got = bits(&through_slots(&mut multi, &pairs));
        assert_eq!(got, want, "{w}x{h}, slots");
    }
    check_validation(&all);
}

#[test]
fn motion_over_vulkan_and_the_cpu_twin_and_over_two_cpu_twins_equals_one_engine() {
    let (w, h, depth) = (36u32, 20u32, 8u32);
    let pairs = clip(w, h, depth, 15);
    let d = desc(w, h, depth, 3);
    let want = bits(&through(&mut Scorer::cpu(&d, 1).expect("cpu"), &pairs));
    // Two CPU twins (no device needed), of different queue depths: runs of
    // the smaller.
    let twins = vec![
        Scorer::cpu(&d.clone().with_frames_in_flight(0), 1).expect("a"),
        Scorer::cpu(&d.clone().with_frames_in_flight(0), 3).expect("b"),
    ];
    let mut multi = MultiScorer::from_scorers(twins, vec!["a".into(), "b".into()]).expect("multi");
    assert_eq!(multi.queue_depth(), 4, "runs of the smaller queue (2)");
    assert_eq!(bits(&through(&mut multi, &pairs)), want, "two CPU twins");
    assert_eq!(
        bits(&through_slots(&mut multi, &pairs)),
        want,
        "two CPU twins' slots"
    );
    if !gpu_present() {
        return;
    }
    let all = engines(1);
    let mixed = vec![
        all[0].scorer(&d).expect("vulkan"),
        Scorer::cpu(&d, 2).expect("cpu"),
    ];
    let mut multi =
        MultiScorer::from_scorers(mixed, vec!["vk".into(), "cpu".into()]).expect("multi");
    assert_eq!(
        bits(&through(&mut multi, &pairs)),
        want,
        "Vulkan and the CPU twin"
    );
    assert_eq!(
        bits(&through_slots(&mut multi, &pairs)),
        want,
        "Vulkan and the CPU twin, slots"
    );
    check_validation(&all);
}

#[test]
fn shared_reference_planes_carry_the_previous_reference_when_asked() {
    if !gpu_present() {
        return;
    }
    let all = engines(2);
    let (w, h, depth) = (40u32, 24u32, 8u32);
    let pairs = clip(w, h, depth, 13);
    let d = desc(w, h, depth, 2);
    let want = bits(&through(&mut Scorer::cpu(&d, 1).expect("cpu"), &pairs));
    let mut multi = MultiScorer::new(&all, &d).expect("multi");
    let planes = multi.shared_planes().expect("pools");
    let mut got = Vec::new();
    let mut asked = 0;
    for (k, (r, dd)) in pairs.iter().enumerate() {
        // Every other run's last reference from the host (the multi-scorer
        // keeps it), the others as shared planes (the next pair must then
        // carry it).
        let dealt = planes.dealt_from(&multi);
        let from_host = dealt.reference_carried(0) && (k / 2) % 2 == 0;
        let mut writer = dealt.pool_for(0).take().expect("a shared plane");
        writer.bytes_mut().copy_from_slice(&r.bytes);
        let shared = writer.share();
        let mut pair = match from_host {
            true => Pair::new(host(r), host(dd)),
            false => Pair::new(&shared, host(dd)),
        };
        if multi.needs_previous_reference() {
            asked += 1;
            let e = multi
                .submit(pair.clone())
                .expect_err("no previous reference");
            assert!(matches!(e, Error::InvalidOption(_)), "{e}");
            assert!(e.to_string().contains("with_previous_reference"), "{e}");
            pair = pair.with_previous_reference(host(&pairs[k - 1].0));
        }
        multi.submit(pair).expect("submit");
        while let Some(s) = multi.poll() {
            got.push(s.expect("a score"));
        }
    }
    multi.finish();
    while let Some(s) = multi.wait() {
        got.push(s.expect("a score"));
    }
    assert!(
        asked >= 2,
        "runs whose first pair was asked for its previous reference"
    );
    assert_eq!(bits(&got), want);
    drop(multi);
    check_validation(&all);
}

#[test]
fn imported_device_pairs_carry_the_previous_reference() {
    if !gpu_present() {
        return;
    }
    imported_pairs_of_each_kind(2);
}

/// Imported pairs in batches of four (eight frames in flight): each batch is
/// one command buffer with the pairs' levels side by side, each pair behind
/// the one before for as long as it uses motion's kept buffers
/// (vkssim's `Program::stagger`); the same bits as the CPU twin, with
/// either motion beside float_ssim and psnr, and with VMAF's default model.
#[test]
fn imported_pairs_in_batches_run_their_levels_side_by_side() {
    if !gpu_present() {
        return;
    }
    imported_pairs_of_each_kind(8);
}

/// [`imported_pairs`] with `frames` in flight: libvmaf 2.3.1's motion and
/// 3.2.0's (which keeps the reference itself) beside float_ssim and psnr,
/// then VMAF's default model (vif, adm and motion on the device) on planes
/// of 40 rows (adm's smallest frame has 33).
fn imported_pairs_of_each_kind(frames: usize) {
    imported_pairs(64, 24, |w, h| desc(w, h, 8, frames));
    imported_pairs(64, 24, |w, h| {
        desc_of(MotionVersion::V3_2_0, (w, h, 8), frames)
    });
    imported_pairs(64, 40, |w, h| {
        ScorerDesc::new(w, h, 8)
            .with_models(vkssim::metric::Models::default_model().expect("model"))
            .with_frames_in_flight(frames)
    });
}

fn imported_pairs(w: u32, h: u32, desc: impl Fn(u32, u32) -> ScorerDesc) {
    let all = engines(2);
    let seeds: Vec<u32> = vec![11, 12, 12, 13, 14, 90, 91, 92, 93, 94];
    // Every other pair at an offset, its rows padded.
    let layouts: Vec<(u64, u64, u32)> = seeds
        .iter()
        .enumerate()
        .map(|(k, &s)| match k % 2 {
            0 => (0, w as u64, s),
            _ => (256, w as u64 + 8, s),
        })
        .collect();
    let device = device_pairs::device_pairs(&all[0], w, h, &layouts);
    // SAFETY: the buffers hold their planes and outlive the scorers.
    let imports = unsafe { device_pairs::import_pairs(&all[0], &device) };
    let hosts: Vec<(LumaFrame, LumaFrame)> = seeds
        .iter()
        .map(|&s| {
            let r = common::host_plane(w, h, 8, |y| common::row_word(y, s, 8));
            let d = common::host_plane(w, h, 8, |y| common::distorted_word(y, s, 8));
            (r, d)
        })
        .collect();
    let d = desc(w, h);
    let want = bits(&through(&mut Scorer::cpu(&d, 1).expect("cpu"), &hosts));
    assert!(want.len() == seeds.len() && want.iter().all(|row| !row.is_empty()));
    // One Vulkan scorer on the imported planes.
    let mut one = all[0].scorer(&d).expect("scorer");
    for [r, dd] in &imports {
        one.submit(Pair::new(r, dd)).expect("device pair");
    }
    one.finish();
    let mut got = Vec::new();
    while let Some(s) = one.wait() {
        got.push(s.expect("a score"));
    }
    assert_eq!(bits(&got), want, "one engine");
    drop(one);
    // Two: each run's first pair carries the previous reference from the
    // host (the multi-scorer cannot read an imported plane back).
    let mut multi = MultiScorer::new(&all, &d).expect("multi");
    let mut got = Vec::new();
    for (k, [r, dd]) in imports.iter().enumerate() {
        let mut pair = Pair::new(r, dd);
        if multi.needs_previous_reference() {
            let p = &hosts[k - 1].0;
            pair = pair.with_previous_reference(HostPlane::u8(&p.bytes, w as usize));
        }
        multi.submit(pair).expect("device pair");
        while let Some(s) = multi.poll() {
            got.push(s.expect("a score"));
        }
    }
    multi.finish();
    while let Some(s) = multi.wait() {
        got.push(s.expect("a score"));
    }
    assert_eq!(bits(&got), want, "two engines");
    drop(multi);
    drop(imports);
    device_pairs::destroy_pairs(&all[0], &device);
    check_validation(&all);
}

#[test]
fn a_previous_reference_given_with_a_pair_is_read_as_its_previous_frame() {
    // One CPU twin: a pair carrying a previous reference reads it, not the
    // pair scored before (here a stream's first frame gets one), the same as
    // the frame after that reference in a stream of its own.
    let (w, h) = (24u32, 16u32);
    let pairs = clip(w, h, 8, 9);
    let d = desc(w, h, 8, 0);
    let want = bits(&through(&mut Scorer::cpu(&d, 1).expect("cpu"), &pairs));
    let mut scorer = Scorer::cpu(&d, 2).expect("cpu");
    let (r, dd) = &pairs[5];
    let pair = Pair::new(host(r), host(dd)).with_previous_reference(host(&pairs[4].0));
    scorer.submit(pair).expect("submit");
    scorer.finish();
    let got = scorer.wait().expect("a result").expect("a score");
    let motion = |s: &[(String, u64)]| {
        s.iter()
            .find(|(n, _)| n == "integer_motion")
            .map(|(_, v)| *v)
    };
    assert_eq!(motion(&bits(&[got])[0]), motion(&want[5]));
    // A previous reference of the wrong size is refused.
    let short = vec![0u8; 10];
    let e = scorer
        .submit(Pair::new(host(r), host(dd)).with_previous_reference(HostPlane::u8(&short, 24)))
        .expect_err("a short plane");
    assert!(matches!(e, Error::BufferSize { .. }), "{e}");
    assert!(
        e.to_string().contains("the previous frame's reference"),
        "{e}"
    );
}

/// Each frame's result, in frame order, every pair submitted as host planes
/// (see [`collect_results`]: the host's check of the planes may refuse one).
fn results<Q>(queue: &mut Q, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<Result<FrameScore, Error>>
where
    Q: for<'p> ScoreQueue<Input<'p> = Pair<'p>>,
{
    collect_results(queue, pairs, |q, r, d| {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        q.submit(Pair::new(
            plane(r, &mut a, &r.bytes),
            plane(d, &mut b, &d.bytes),
        ))
    })
}

/// Each frame's result, in frame order, from the multi-scorer's frame slots
/// filled in place (no host check: the device finds samples above the bit
/// depth).
fn slot_results(
    multi: &mut MultiScorer,
    pairs: &[(LumaFrame, LumaFrame)],
) -> Vec<Result<FrameScore, Error>> {
    collect_results(&mut multi.slots(), pairs, |slots, r, d| {
        fill_slot(slots, r, d);
        Ok(())
    })
}

/// A distorted sample above the bit depth in a frame filled into a frame
/// slot and uploaded in a batch (sixteen frames in flight, VMAF's default
/// model at 10 bits): the device finds it, that frame's result is the error
/// naming it and the sample, and every frame gives what it gives with no
/// batches (two in flight). Every frame but the refused one scores as the
/// CPU twin does (the CPU twin refuses the pair on its host check; either
/// way the stream goes on through the refused pair's reference:
/// tests/api_refused.rs).
#[test]
fn a_sample_out_of_range_in_a_batch_fails_its_frame_alone() {
    if !gpu_present() {
        return;
    }
    let all = engines(1);
    let (w, h, depth) = (64u32, 40u32, 10u32);
    let d = |frames| {
        ScorerDesc::new(w, h, depth)
            .with_models(vkssim::metric::Models::default_model().expect("model"))
            .with_frames_in_flight(frames)
    };
    let mut pairs = clip(w, h, depth, 12);
    let (bad, x, y) = (5usize, 3u32, 7u32);
    let at = (y * w + x) as usize * 2;
    pairs[bad].1.bytes[at..at + 2].copy_from_slice(&1029u16.to_le_bytes());
    let twin = results(&mut Scorer::cpu(&d(16), 2).expect("cpu"), &pairs);
    let run = |frames| {
        let mut multi = MultiScorer::new(&all, &d(frames)).expect("multi");
        slot_results(&mut multi, &pairs)
    };
    let (batched, single) = (run(16), run(2));
    assert_eq!(batched.len(), pairs.len());
    let score_bits = |r: &[Result<FrameScore, Error>]| -> Vec<Option<Vec<(String, u64)>>> {
        r.iter()
            .map(|s| {
                s.as_ref()
                    .ok()
                    .map(|s| bits(std::slice::from_ref(s)).remove(0))
            })
            .collect()
    };
    assert_eq!(
        score_bits(&batched),
        score_bits(&single),
        "batched against single"
    );
    for (k, (g, c)) in batched.iter().zip(&twin).enumerate() {
        if k == bad {
            // The multi-scorer names the device the error came from.
            let e = match g {
                Err(Error::OnDevice { source, .. }) => source.as_ref(),
                other => panic!("frame {k}: {other:?}"),
            };
            match e {
                Error::SampleRange {
                    frame,
                    at,
                    x: gx,
                    y: gy,
                    value,
                    ..
                } => assert_eq!(
                    (*frame, at.clone(), *gx, *gy, *value),
                    (k as u64, vkssim::SampleAt::Device, x, y, 1029)
                ),
                other => panic!("frame {k}: {other:?}"),
            }
            assert!(c.is_err(), "the CPU twin refuses frame {k} too: {c:?}");
        } else {
            let (g, c) = (
                g.as_ref().expect("a score"),
                c.as_ref().expect("a CPU score"),
            );
            let one = |s| bits(std::slice::from_ref(s));
            assert_eq!(one(g), one(c), "frame {k}");
        }
    }
    check_validation(&all);
}
