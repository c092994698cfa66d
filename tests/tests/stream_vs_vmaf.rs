//! VMAF through the library's streaming queues: a CPU [`Scorer`], its
//! [`FrameSlots`], a [`MultiScorer`] and its `MultiSlots`, each described
//! with VMAF models ([`ScorerDesc::with_models`]), hand out every frame with
//! `integer_motion2` and the models' outputs (`vmaf`, bootstrap outputs,
//! the `_egl_1` features of `vmaf_v0.6.1neg`) filled, each equal bit for bit
//! to what the `vmaf` CLI of libvmaf 2.3.1 (C path, `--cpumask 255`, values
//! in full through the shim) writes for that frame; the last frame comes out
//! after `finish()`, and a stream after it starts afresh. Several CPU
//! engines (a `MultiScorer` dealing runs of pairs, each run's first pair
//! carrying its previous reference) give the same frames.

use vkssim::api::{
    FrameSlot, FrameSlots, HostPlane, MultiScorer, MultiSlots, Pair, ScoreQueue, Scorer, ScorerDesc,
};
use vkssim::io::Chroma;
use vkssim::metric::Models;
use vkssim::{Error, FrameScore, LumaFrame};
use vkssim_tests::metric_clips::{Content, MetricClip};
use vkssim_tests::paths;
use vkssim_tests::vmaf_cli::{run_writing_ok, shim, VmafXml};

/// vmaf's frames for `clip` with the `--model`s `models`, at full precision.
fn vmaf_frames(clip: &MetricClip, models: &[&str]) -> Vec<Vec<(String, f64)>> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = clip.vmaf_args();
    args.extend(["--cpumask", "255", "-q", "--xml"].map(String::from));
    for m in models {
        args.extend(["--model".to_string(), m.to_string()]);
    }
    let env = [("LD_PRELOAD", shim())];
    let text = run_writing_ok(&paths::vmaf_cli(), &args, &env, &dir.path().join("v.xml"));
    let frames = VmafXml::parse(&text).frames;
    assert_eq!(frames.len(), clip.frames, "{}: vmaf's frames", clip.name);
    frames
}

/// The luma planes of `clip`'s frames: (reference, distorted) per frame.
fn luma_pairs(clip: &MetricClip) -> Vec<(LumaFrame, LumaFrame)> {
    let [r, d] = [&clip.reference, &clip.distorted].map(|p| clip.read(p));
    r.into_iter()
        .zip(d)
        .map(|([r, ..], [d, ..])| (r, d))
        .collect()
}

/// The samples of an above-8-bit plane.
fn words(f: &LumaFrame) -> Vec<u16> {
    f.bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// Submits `(r, d)` to `queue` as host planes.
fn submit_host<Q>(queue: &mut Q, r: &LumaFrame, d: &LumaFrame) -> vkssim::Result<()>
where
    Q: for<'p> ScoreQueue<Input<'p> = Pair<'p>>,
{
    let w = r.width as usize;
    if r.bit_depth == 8 {
        queue.submit(Pair::new(
            HostPlane::u8(&r.bytes, w),
            HostPlane::u8(&d.bytes, w),
        ))
    } else {
        let (rw, dw) = (words(r), words(d));
        queue.submit(Pair::new(HostPlane::u16(&rw, w), HostPlane::u16(&dw, w)))
    }
}

/// Checks the frames a queue handed out (index, score) against vmaf's: the
/// indices in order from `first`, every value vmaf wrote equal bit for bit.
fn check(what: &str, got: &[(u64, FrameScore)], want: &[Vec<(String, f64)>], first: u64) {
    assert_eq!(got.len(), want.len(), "{what}: frames handed out");
    for (k, ((index, score), row)) in got.iter().zip(want).enumerate() {
        assert_eq!(*index, first + k as u64, "{what}: frame {k}'s index");
        for (name, v) in row {
            let ours = score
                .value(name)
                .unwrap_or_else(|| panic!("{what}: frame {k} has no {name}: {score:?}"));
            assert_eq!(
                ours.to_bits(),
                v.to_bits(),
                "{what}: frame {k} {name}: vkssim {ours:?} vmaf {v:?}"
            );
        }
    }
}

/// Takes every result `queue` hands out now, waiting for the pairs in
/// flight; each must be a score.
fn drain<Q: ScoreQueue>(queue: &mut Q, out: &mut Vec<(u64, FrameScore)>) {
    while let Some((i, r)) = queue.wait_indexed() {
        out.push((i, r.unwrap_or_else(|e| panic!("frame {i}: {e}"))));
    }
}

/// Every pair of `pairs` through frame slots of `queue` (taken by
/// `acquire`), then the end of the stream: every result.
fn through_slots<'s, Q>(
    queue: &mut Q,
    acquire: fn(&mut Q) -> vkssim::Result<FrameSlot<'s>>,
    pairs: &[(LumaFrame, LumaFrame)],
) -> Vec<(u64, FrameScore)>
where
    Q: for<'p> ScoreQueue<Input<'p> = FrameSlot<'s>>,
{
    for (r, d) in pairs {
        let mut slot = acquire(queue).expect("slot");
        slot.copy_from(&r.bytes, &d.bytes).expect("copy");
        queue.submit(slot).expect("submit");
    }
    queue.finish();
    let mut got = Vec::new();
    drain(queue, &mut got);
    got
}

/// Every pair of `pairs` submitted to `queue` as host planes (results taken
/// as they come), then the end of the stream: every result.
fn through_pairs<Q>(queue: &mut Q, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<(u64, FrameScore)>
where
    Q: for<'p> ScoreQueue<Input<'p> = Pair<'p>>,
{
    let mut got = Vec::new();
    for (r, d) in pairs {
        submit_host(queue, r, d).expect("submit");
        while let Some((i, res)) = queue.poll_indexed() {
            got.push((i, res.expect("a score")));
        }
    }
    queue.finish();
    drain(queue, &mut got);
    got
}

/// The CPU scorer for `clip` with `models`.
fn cpu_scorer(clip: &MetricClip, models: &[&str]) -> Scorer {
    let models = Models::parse(models).expect("models");
    let desc = ScorerDesc::new(clip.width, clip.height, clip.bit_depth)
        .with_chroma(clip.chroma)
        .with_models(models);
    Scorer::cpu(&desc, 2).expect("CPU scorer")
}

#[test]
fn a_streaming_scorer_gives_vmaf_and_motion2_per_frame() {
    let clip = MetricClip::new(96, 72, 8, Chroma::C420, 5, Content::Noisy);
    let models = ["version=vmaf_v0.6.1"];
    let want = vmaf_frames(&clip, &models);
    let pairs = luma_pairs(&clip);
    let mut scorer = cpu_scorer(&clip, &models);
    let mut got = Vec::new();
    for (r, d) in &pairs {
        submit_host(&mut scorer, r, d).expect("submit");
        while let Some((i, res)) = scorer.poll_indexed() {
            got.push((i, res.expect("a score")));
        }
    }
    // Every frame but the last is out once the next one is in; the last
    // waits for the end of the stream.
    drain(&mut scorer, &mut got);
    assert_eq!(got.len(), pairs.len() - 1, "before finish");
    assert_eq!(scorer.in_flight(), 1, "the last frame is held");
    scorer.finish();
    drain(&mut scorer, &mut got);
    assert_eq!(scorer.in_flight(), 0);
    check("Scorer", &got, &want, 0);
    assert!(got.iter().all(|(_, s)| s.value("vmaf").is_some()));

    // A second stream on the same scorer starts afresh (its first frame has
    // no previous frame), as a second vmaf run: the same values.
    let mut again = Vec::new();
    for (r, d) in &pairs {
        submit_host(&mut scorer, r, d).expect("submit");
    }
    scorer.finish();
    drain(&mut scorer, &mut again);
    check("Scorer, second stream", &again, &want, pairs.len() as u64);
}

#[test]
fn frame_slots_and_multi_queues_give_the_same_rows() {
    let clip = MetricClip::new(80, 64, 10, Chroma::C420, 4, Content::Noisy);
    let models = [
        "version=vmaf_v0.6.1neg:name=neg",
        "version=vmaf_b_v0.6.3:name=bb",
    ];
    let want = vmaf_frames(&clip, &models);
    let pairs = luma_pairs(&clip);

    let mut scorer = cpu_scorer(&clip, &models);
    let got = through_slots(&mut scorer.slots(), FrameSlots::acquire, &pairs);
    check("FrameSlots", &got, &want, 0);

    let mut multi = MultiScorer::from_scorers(vec![cpu_scorer(&clip, &models)], vec!["cpu".into()])
        .expect("multi");
    let got = through_pairs(&mut multi, &pairs);
    check("MultiScorer", &got, &want, 0);

    let got = through_slots(&mut multi.slots(), MultiSlots::acquire, &pairs);
    check("MultiSlots", &got, &want, pairs.len() as u64);
}

#[test]
fn a_refused_pair_or_a_drop_mid_stream_loses_nothing() {
    let clip = MetricClip::new(96, 72, 8, Chroma::C420, 5, Content::Noisy);
    let models = ["version=vmaf_v0.6.1"];
    let want = vmaf_frames(&clip, &models);
    let pairs = luma_pairs(&clip);
    let mut scorer = cpu_scorer(&clip, &models);
    let mut got = Vec::new();
    for (k, (r, d)) in pairs.iter().enumerate() {
        if k == 2 {
            // A plane too short for the geometry: refused, takes no index,
            // and the stream goes on as if it had not come.
            let short = &r.bytes[..r.bytes.len() / 2];
            let e = scorer
                .submit(Pair::new(
                    HostPlane::u8(short, 96),
                    HostPlane::u8(&d.bytes, 96),
                ))
                .unwrap_err();
            assert!(matches!(e, Error::BufferSize { .. }), "{e}");
        }
        submit_host(&mut scorer, r, d).expect("submit");
    }
    scorer.finish();
    drain(&mut scorer, &mut got);
    check("Scorer with a refused pair", &got, &want, 0);

    // Dropped with frames in flight and one held: no panic, no hang.
    let mut scorer = cpu_scorer(&clip, &models);
    for (r, d) in &pairs {
        submit_host(&mut scorer, r, d).expect("submit");
    }
    assert!(scorer.wait_indexed().is_some());
    drop(scorer);
    let mut multi = MultiScorer::from_scorers(vec![cpu_scorer(&clip, &models)], vec!["cpu".into()])
        .expect("multi");
    submit_host(&mut multi, &pairs[0].0, &pairs[0].1).expect("submit");
    drop(multi);
}

#[test]
fn several_engines_give_vmaf_and_motion_of_one_and_others_pass_straight_through() {
    // Two and three CPU engines of small queues (runs of 2 pairs each, so
    // that many pairs start a run and carry their previous reference) over
    // a clip with a scene cut: every frame equal to vmaf's, through pairs
    // and slots, over two streams.
    let clip = MetricClip::new(96, 72, 8, Chroma::C420, 11, Content::SceneCut);
    let models = ["version=vmaf_v0.6.1", "version=vmaf_v0.6.1neg:name=neg"];
    let want = vmaf_frames(&clip, &models);
    let pairs = luma_pairs(&clip);
    for n in [2, 3] {
        let scorers = (0..n)
            .map(|_| {
                let mut desc = cpu_scorer(&clip, &models).desc().clone();
                desc.frames_in_flight = std::num::NonZeroUsize::new(2);
                Scorer::cpu(&desc, 1).expect("CPU scorer")
            })
            .collect();
        let names = (0..n).map(|k| format!("cpu {k}")).collect();
        let mut multi = MultiScorer::from_scorers(scorers, names).expect("multi");
        let got = through_pairs(&mut multi, &pairs);
        check(&format!("{n} engines"), &got, &want, 0);
        let got = through_slots(&mut multi.slots(), MultiSlots::acquire, &pairs);
        let what = format!("{n} engines' slots");
        check(&what, &got, &want, pairs.len() as u64);
    }

    let clip = MetricClip::new(96, 72, 8, Chroma::C420, 2, Content::Noisy);
    // Scorers whose models differ (the same extractors) are not one queue.
    let differ = vec![
        cpu_scorer(&clip, &["version=vmaf_v0.6.1"]),
        cpu_scorer(&clip, &["version=vmaf_v0.6.1:name=other"]),
    ];
    let e = MultiScorer::from_scorers(differ, vec!["a".into(), "b".into()]).unwrap_err();
    assert!(e.to_string().contains("the scorers differ"), "{e}");

    // Without a temporal metric or a model each result is out as soon as it
    // is scored, with no finish().
    let desc = ScorerDesc::new(96, 72, 8);
    let mut scorer = Scorer::cpu(&desc, 1).expect("scorer");
    let (r, d) = &luma_pairs(&clip)[0];
    submit_host(&mut scorer, r, d).expect("submit");
    let (i, s) = scorer.wait_indexed().expect("a result without finish");
    assert_eq!(i, 0);
    assert!(s.expect("a score").value("float_ssim").is_some());
    assert_eq!(scorer.in_flight(), 0);
}
