//! A pair refused for a sample above the bit depth in the middle of a
//! stream, on every path that finds it: the host's check (host planes and
//! the CPU twin's frame slots, on the CPU twin and on a Vulkan scorer) and
//! the device's (a Vulkan scorer's frame slots, alone and over two engines).
//! The refused pair's result is its error and every other frame's outputs
//! are, in their fp64 bits, the same on every path, VMAF's model (motion2,
//! and 3.2.0's motion3) included:
//! - refused for its distorted picture alone: the stream goes on through
//!   the pair (motion reads only references), so every other frame gives
//!   what the CPU twin gives on the same stream with a valid distorted
//!   picture in that pair's place;
//! - refused for its reference: the stream ends before the pair and the
//!   next frame starts another, so the frames give what the CPU twin gives
//!   on the two streams apart.
//!
//! The CPU twin's motion equals `vmaf`'s (tests/tests/motion_vs_vmaf.rs).
//! Validation is on; any message fails.

mod vk_support;

use vk_support::{clip, collect_results, engines, gpu_present};
use vkssim::api::{FrameSlots, HostPlane, MultiScorer, Pair, ScoreQueue, Scorer, ScorerDesc};
use vkssim::metric::{Models, MotionVersion};
use vkssim::{Error, FrameScore, LumaFrame, PlaneRole};

const W: u32 = 64;
const H: u32 = 40;
const DEPTH: u32 = 10;
/// The refused pair.
const BAD: usize = 5;
const FRAMES: u32 = 10;

/// A frame's result as compared: every output's name and fp64 bits, or
/// the refused picture.
#[derive(Debug, PartialEq)]
enum Got {
    Score(Vec<(String, u64)>),
    Refused(PlaneRole, u64),
}

fn got(r: &Result<FrameScore, Error>) -> Got {
    match r {
        Ok(s) => Got::Score(
            s.outputs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_bits()))
                .collect(),
        ),
        Err(e) => refused(e).unwrap_or_else(|| panic!("not a range error: {e}")),
    }
}

fn refused(e: &Error) -> Option<Got> {
    match e {
        Error::SampleRange {
            plane: Some(p),
            frame,
            value: 1029,
            ..
        } => Some(Got::Refused(*p, *frame)),
        Error::OnDevice { source, .. } => refused(source),
        _ => None,
    }
}

/// VMAF's default model with libvmaf `version`'s motion.
fn desc(version: MotionVersion, frames: usize) -> ScorerDesc {
    ScorerDesc::new(W, H, DEPTH)
        .with_models(Models::default_model().expect("model"))
        .with_motion_version(version)
        .with_frames_in_flight(frames)
}

/// `pairs` with a sample above the bit depth in pair [`BAD`]'s `picture`.
fn with_bad_sample(
    pairs: &[(LumaFrame, LumaFrame)],
    picture: PlaneRole,
) -> Vec<(LumaFrame, LumaFrame)> {
    let mut pairs = pairs.to_vec();
    let at = (7 * W + 3) as usize * 2;
    let f = match picture {
        PlaneRole::Reference => &mut pairs[BAD].0,
        _ => &mut pairs[BAD].1,
    };
    f.bytes[at..at + 2].copy_from_slice(&1029u16.to_le_bytes());
    pairs
}

fn samples(f: &LumaFrame) -> Vec<u16> {
    f.bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// Every result in order, each pair given by `submit`, the stream finished
/// ([`collect_results`]: a pair whose submission fails has that error as
/// its result; no path refuses a pair's samples on submission). A refused
/// pair is named by its index in `pairs` (its error names its index on the
/// queue, counted over the queue's streams).
fn collect<Q: ScoreQueue>(
    queue: &mut Q,
    pairs: &[(LumaFrame, LumaFrame)],
    submit: impl FnMut(&mut Q, &LumaFrame, &LumaFrame) -> Result<(), Error>,
) -> Vec<Got> {
    let first = queue.submitted();
    collect_results(queue, pairs, submit)
        .iter()
        .map(|r| match got(r) {
            Got::Refused(p, frame) => Got::Refused(p, frame - first),
            score => score,
        })
        .collect()
}

fn by_host_planes<Q>(queue: &mut Q, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<Got>
where
    Q: for<'p> ScoreQueue<Input<'p> = Pair<'p>>,
{
    collect(queue, pairs, |q, r, d| {
        let (a, b) = (samples(r), samples(d));
        q.submit(Pair::new(
            HostPlane::u16(&a, W as usize),
            HostPlane::u16(&b, W as usize),
        ))
    })
}

fn by_slots(scorer: &mut Scorer, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<Got> {
    collect(
        &mut scorer.slots(),
        pairs,
        |slots: &mut FrameSlots<'_>, r, d| {
            let mut slot = slots.acquire()?;
            let (a, b) = slot.planes_mut();
            a.copy_from_slice(&r.bytes);
            b.copy_from_slice(&d.bytes);
            slots.submit(slot)
        },
    )
}

/// [`by_slots`] over a multi-scorer's engines (its errors name the pair by
/// the multi-scorer's count, not by its engine's).
fn by_multi_slots(multi: &mut MultiScorer, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<Got> {
    collect(&mut multi.slots(), pairs, |slots, r, d| {
        let mut slot = slots.acquire()?;
        let (a, b) = slot.planes_mut();
        a.copy_from_slice(&r.bytes);
        b.copy_from_slice(&d.bytes);
        slots.submit(slot)
    })
}

/// Every path's results for `pairs` (pair [`BAD`] refused) against `want`.
fn every_path_gives(version: MotionVersion, pairs: &[(LumaFrame, LumaFrame)], want: &[Got]) {
    let cpu = || Scorer::cpu(&desc(version, 4), 2).expect("cpu");
    assert_eq!(
        by_host_planes(&mut cpu(), pairs),
        want,
        "CPU twin, host planes"
    );
    assert_eq!(by_slots(&mut cpu(), pairs), want, "CPU twin, frame slots");
    if !gpu_present() {
        return;
    }
    let all = engines(2);
    for frames in [2, 16] {
        let d = desc(version, frames);
        let mut vk = all[0].scorer(&d).expect("vulkan scorer");
        assert_eq!(
            by_host_planes(&mut vk, pairs),
            want,
            "Vulkan, host planes, {frames} in flight"
        );
        let mut vk = all[0].scorer(&d).expect("vulkan scorer");
        assert_eq!(
            by_slots(&mut vk, pairs),
            want,
            "Vulkan, frame slots, {frames} in flight"
        );
        // A second stream on the same scorer starts afresh.
        assert_eq!(
            by_slots(&mut vk, pairs),
            want,
            "Vulkan, frame slots, second stream"
        );
        let mut multi = MultiScorer::new(&all, &desc(version, frames)).expect("multi");
        assert_eq!(
            by_multi_slots(&mut multi, pairs),
            want,
            "two engines, frame slots, {frames} in flight"
        );
    }
    for e in &all {
        let m = e.validation_messages();
        assert!(m.is_empty(), "validation: {m:#?}");
    }
}

/// The CPU twin's results for `pairs` (all valid), as one stream.
fn twin(version: MotionVersion, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<Got> {
    by_host_planes(&mut Scorer::cpu(&desc(version, 4), 2).expect("cpu"), pairs)
}

#[test]
fn a_pair_refused_for_its_distorted_picture_keeps_the_stream_going() {
    let clean = clip(W, H, DEPTH, FRAMES);
    let pairs = with_bad_sample(&clean, PlaneRole::Distorted);
    for version in [MotionVersion::V2_3_1, MotionVersion::V3_2_0] {
        // Motion reads only references: the stream with a valid distorted
        // picture in the refused pair's place.
        let mut want = twin(version, &clean);
        want[BAD] = Got::Refused(PlaneRole::Distorted, BAD as u64);
        every_path_gives(version, &pairs, &want);
    }
}

#[test]
fn a_pair_refused_for_its_reference_ends_the_stream_and_starts_another() {
    let clean = clip(W, H, DEPTH, FRAMES);
    let pairs = with_bad_sample(&clean, PlaneRole::Reference);
    for version in [MotionVersion::V2_3_1, MotionVersion::V3_2_0] {
        // The frames before the pair, one stream; the frames after, another.
        let mut want = twin(version, &clean[..BAD]);
        want.push(Got::Refused(PlaneRole::Reference, BAD as u64));
        want.extend(twin(version, &clean[BAD + 1..]));
        every_path_gives(version, &pairs, &want);
    }
}
