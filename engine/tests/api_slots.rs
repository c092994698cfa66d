//! Frame slots of the library API (`Scorer::slots`): pairs written in place
//! from reader threads score bit for bit as the CPU twin's `score_frame`, in
//! submission order, on a Vulkan scorer and on the CPU-twin scorer
//! (`Scorer::cpu`), at 8 and 10 bits; a slot dropped unsubmitted returns to
//! the ring, a leaked one is taken back by the next borrow; a slot given to
//! another scorer and a sample above the bit depth are refused. Validation is
//! on; any message fails.

mod vk_support;

use vk_support::{frame, gpu_present};
use vkssim::api::ScoreQueue;
use vkssim::api::{Engine, Scorer, ScorerDesc};
use vkssim::metric::MetricConfig;
use vkssim::vk::VkOptions;
use vkssim::{testing::cpu, Error, FrameScore, LumaFrame, PlaneRole, SampleAt, SsimOptions};

const W: u32 = 67;
const H: u32 = 45;

fn engine() -> Engine {
    Engine::new(&VkOptions::default().with_validation(true)).expect("engine")
}

fn pairs(bit_depth: u32, n: u32) -> Vec<(LumaFrame, LumaFrame)> {
    (0..n)
        .map(|i| {
            (
                frame(W, H, bit_depth, 3 + i),
                frame(W, H, bit_depth, 70 + i),
            )
        })
        .collect()
}

fn lcs() -> SsimOptions {
    SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    }
}

/// Scores `pairs` through slots filled on one thread per slot, several slots
/// out at once and submitted in reverse of the order they were handed out
/// (results follow submission order).
fn through_slots(scorer: &mut Scorer, pairs: &[(LumaFrame, LumaFrame)]) -> Vec<FrameScore> {
    let mut slots = scorer.slots();
    let mut got = Vec::new();
    let mut order = Vec::new();
    for chunk in pairs.chunks(3) {
        let mut out: Vec<_> = chunk
            .iter()
            .map(|_| slots.acquire().expect("acquire"))
            .collect();
        std::thread::scope(|s| {
            for (slot, (r, d)) in out.iter_mut().zip(chunk) {
                s.spawn(move || {
                    let (a, b) = slot.planes_mut();
                    a.copy_from_slice(&r.bytes);
                    b.copy_from_slice(&d.bytes);
                });
            }
        });
        let base = order.len();
        for (k, slot) in out.into_iter().enumerate().rev() {
            slots.submit(slot).expect("submit");
            order.push(base + k);
        }
        while let Some(r) = slots.poll() {
            got.push(r.expect("score"));
        }
    }
    while let Some(r) = slots.wait() {
        got.push(r.expect("score"));
    }
    // Back to pair order.
    let mut by_pair = vec![None; got.len()];
    for (score, &k) in got.into_iter().zip(&order) {
        by_pair[k] = Some(score);
    }
    by_pair.into_iter().map(|s| s.expect("a score")).collect()
}

fn check_against_cpu(scorer: &mut Scorer, bit_depth: u32, opts: &SsimOptions, what: &str) {
    let pairs = pairs(bit_depth, 7);
    let got = through_slots(scorer, &pairs);
    assert_eq!(got.len(), pairs.len(), "{what}");
    for (i, ((r, d), g)) in pairs.iter().zip(&got).enumerate() {
        let want = cpu::score_frame(&r.view(), &d.view(), opts).unwrap();
        let bits = |s: &FrameScore| {
            let mut v = vec![s.ssim().to_bits(), s.float_ssim().to_bits()];
            if let Some(lcs) = s.lcs() {
                v.extend(lcs.map(f64::to_bits));
            }
            v
        };
        assert_eq!(bits(g), bits(&want), "{what} pair {i}");
    }
}

#[test]
fn slots_on_the_cpu_twin_score_like_score_frame() {
    for bit_depth in [8, 10] {
        let desc =
            ScorerDesc::new(W, H, bit_depth).with_metrics(vec![MetricConfig::FloatSsim(lcs())]);
        let mut scorer = Scorer::cpu(&desc, 2).expect("cpu scorer");
        assert!(scorer.is_cpu());
        assert_eq!(scorer.upload_path(), None);
        check_against_cpu(&mut scorer, bit_depth, &lcs(), "cpu");
        assert_eq!(scorer.in_flight(), 0);
    }
}

#[test]
fn slots_on_vulkan_score_like_score_frame() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    for bit_depth in [8, 10] {
        let desc = ScorerDesc::new(W, H, bit_depth)
            .with_metrics(vec![MetricConfig::FloatSsim(lcs())])
            .with_frames_in_flight(4);
        let mut scorer = engine.scorer(&desc).expect("scorer");
        check_against_cpu(&mut scorer, bit_depth, &lcs(), "vulkan");
    }
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// Every slot handed out, then one dropped: it, and only it, can be taken
/// again; a leaked slot comes back with the next `slots()` borrow.
fn check_ring(scorer: &mut Scorer, what: &str) {
    let depth = scorer.queue_depth();
    {
        let mut slots = scorer.slots();
        let mut out: Vec<_> = (0..depth)
            .map(|_| slots.acquire().expect("acquire"))
            .collect();
        let all_out = slots.acquire().unwrap_err().to_string();
        assert!(all_out.contains("handed out"), "{what}: {all_out}");
        drop(out.remove(0));
        let again = slots.acquire().expect("a dropped slot returns to the ring");
        out.push(again);
        assert!(
            slots.acquire().is_err(),
            "{what}: only the dropped slot came back"
        );
        std::mem::forget(out.pop());
    }
    // The others dropped at the end of the block; the leaked one is taken back.
    let mut slots = scorer.slots();
    let out: Vec<_> = (0..depth)
        .map(|_| slots.acquire().expect("every slot is back"))
        .collect();
    drop(out);
    let pairs = pairs(8, 1);
    let mut slot = slots.acquire().expect("acquire");
    slot.copy_from(&pairs[0].0.bytes, &pairs[0].1.bytes)
        .expect("copy");
    slots.submit(slot).expect("submit");
    let score = slots.wait().expect("a result").expect("score");
    let want = cpu::score_frame(
        &pairs[0].0.view(),
        &pairs[0].1.view(),
        &SsimOptions::default(),
    )
    .unwrap();
    assert_eq!(score.ssim().to_bits(), want.ssim().to_bits(), "{what}");
}

#[test]
fn dropped_and_leaked_slots_return_to_the_ring() {
    let desc = ScorerDesc::new(W, H, 8);
    check_ring(&mut Scorer::cpu(&desc, 1).expect("cpu scorer"), "cpu");
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let mut scorer = engine
        .scorer(&desc.with_frames_in_flight(3))
        .expect("scorer");
    check_ring(&mut scorer, "vulkan");
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}

/// A 10-bit sample above 1023 is refused: written in place, at submission by
/// the CPU twin, as the pair's result by a Vulkan scorer (its decimate pass
/// checks the samples on the device); at the copy by both. A slot of another
/// scorer is refused.
fn check_refusals(a: &mut Scorer, b: &mut Scorer, what: &str) {
    let mut from_b = b.slots();
    let foreign = from_b.acquire().expect("acquire");
    let mut slots = a.slots();
    let e = slots.submit(foreign).unwrap_err().to_string();
    assert!(e.contains("another scorer"), "{what}: {e}");

    let good = frame(W, H, 10, 1);
    let mut bad = good.clone();
    let at = 2 * (W as usize * 5 + 7);
    bad.bytes[at..at + 2].copy_from_slice(&1024u16.to_le_bytes());
    let mut slot = slots.acquire().expect("acquire");
    let on_device = slot.range_checked_on_device();
    assert_eq!(on_device, what == "vulkan", "{what}");
    let (r, d) = slot.planes_mut();
    r.copy_from_slice(&good.bytes);
    d.copy_from_slice(&bad.bytes);
    // The pair keeps its place in the stream on either path: its result
    // is the error.
    slots
        .submit(slot)
        .expect("submitted: a refused pair keeps its place");
    let refused = slots.wait().expect("the pair's result").map(|_| ());
    match refused {
        Err(Error::SampleRange {
            plane,
            at,
            x,
            y,
            value,
            ..
        }) => {
            assert_eq!((x, y, value), (7, 5, 1024), "{what}");
            assert_eq!(plane, Some(PlaneRole::Distorted), "{what}");
            let place = if on_device {
                SampleAt::Device
            } else {
                SampleAt::Slot
            };
            assert_eq!(at, place, "{what}");
        }
        other => panic!("{what}: {other:?}"),
    }
    let mut slot = slots.acquire().expect("a slot");
    match slot.copy_from(&bad.bytes, &good.bytes) {
        Err(Error::SampleRange { x, y, .. }) => assert_eq!((x, y), (7, 5), "{what}"),
        other => panic!("{what}: {other:?}"),
    }
    drop(slot);
    assert!(
        slots.wait().is_none(),
        "{what}: nothing scored from a slot refused before submission"
    );
}

#[test]
fn foreign_slots_and_out_of_range_samples_are_refused() {
    let desc = ScorerDesc::new(W, H, 10);
    let (mut a, mut b) = (
        Scorer::cpu(&desc, 1).expect("cpu scorer"),
        Scorer::cpu(&desc, 1).expect("cpu scorer"),
    );
    check_refusals(&mut a, &mut b, "cpu");
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let mut a = engine.scorer(&desc).expect("scorer");
    let mut b = engine.scorer(&desc).expect("scorer");
    check_refusals(&mut a, &mut b, "vulkan");
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "{}", messages.join("\n"));
}
