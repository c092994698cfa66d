//! The upload-slot interface of `VkScorer` (`acquire_slot`, `submit_slot`,
//! `abandon_slot`): pairs written straight into upload memory, from other
//! threads and several at a time, score bit for bit as the CPU twin does, in
//! submission order, on both upload paths; slots may come back in any order
//! (scored in the order submitted); a slot given to another scorer is
//! refused; an abandoned slot, and only it, returns to the ring.
//! Validation is on; any message fails.

mod vk_support;

use vk_support::*;
use vkssim::testing::FrameScorer;
use vkssim::testing::{UploadSlot, VkScorer};
use vkssim::vk::UploadPath;
use vkssim::{testing::cpu, FrameScore, LumaFrame, SsimOptions};

const W: u32 = 67;
const H: u32 = 45;

fn fill(slot: &mut UploadSlot, r: &LumaFrame, d: &LumaFrame) {
    // SAFETY: the scorer that handed out the slot is alive in every caller and
    // the slot has not been given back.
    let (a, b) = unsafe { slot.planes_mut() };
    a.copy_from_slice(&r.bytes);
    b.copy_from_slice(&d.bytes);
}

fn cpu_score(r: &LumaFrame, d: &LumaFrame) -> FrameScore {
    cpu::score_frame(&r.view(), &d.view(), &SsimOptions::default()).unwrap()
}

fn pairs(bit_depth: u32, n: u32) -> Vec<(LumaFrame, LumaFrame)> {
    (0..n)
        .map(|i| {
            (
                frame(W, H, bit_depth, 10 + i),
                frame(W, H, bit_depth, 100 + i),
            )
        })
        .collect()
}

fn check(upload: UploadPath, bit_depth: u32) {
    let mut scorer = VkScorer::new(
        W,
        H,
        bit_depth,
        &SsimOptions::default(),
        &vk_opts(upload, false, 4),
    )
    .expect("scorer");
    let pairs = pairs(bit_depth, 11);
    assert_eq!(scorer.slots(), 4);
    assert_eq!(scorer.bytes_per_frame(), 2 * pairs[0].0.bytes.len() as u64);
    let mut got = Vec::new();
    // Three slots filled at once on three threads, submitted in order.
    for chunk in pairs.chunks(3) {
        let mut slots: Vec<UploadSlot> = (0..chunk.len())
            .map(|_| scorer.acquire_slot().expect("acquire"))
            .collect();
        std::thread::scope(|s| {
            for (slot, (r, d)) in slots.iter_mut().zip(chunk) {
                s.spawn(move || fill(slot, r, d));
            }
        });
        for slot in slots {
            assert_eq!(slot.plane_len(), chunk[0].0.bytes.len());
            scorer.submit_slot(slot).expect("submit");
        }
        while let Some(r) = scorer.poll_next() {
            got.push(r.expect("score"));
        }
    }
    while let Some(r) = scorer.wait_next() {
        got.push(r.expect("score"));
    }
    assert_eq!(got.len(), pairs.len());
    for (i, ((r, d), g)) in pairs.iter().zip(&got).enumerate() {
        assert_eq!(
            g.ssim().to_bits(),
            cpu_score(r, d).ssim().to_bits(),
            "{upload:?} {bit_depth}-bit frame {i}"
        );
    }
    assert_no_validation_messages(&scorer);
}

#[test]
fn slots_filled_on_threads_score_like_the_cpu_twin() {
    if !gpu_present() {
        return;
    }
    for upload in [UploadPath::Direct, UploadPath::Staging] {
        for bit_depth in [8, 10] {
            check(upload, bit_depth);
        }
    }
}

#[test]
fn out_of_order_foreign_and_abandoned_slots() {
    if !gpu_present() {
        return;
    }
    let opts = SsimOptions::default();
    let vk = vk_opts(UploadPath::Direct, false, 3);
    let mut a = VkScorer::new(W, H, 8, &opts, &vk).expect("scorer");
    let mut b = VkScorer::new(W, H, 8, &opts, &vk).expect("scorer");
    let pairs = pairs(8, 3);

    // Another scorer's slot is refused.
    let from_b = b.acquire_slot().expect("acquire");
    let mut first = a.acquire_slot().expect("acquire");
    let mut second = a.acquire_slot().expect("acquire");
    let foreign = a.submit_slot(from_b).unwrap_err().to_string();
    assert!(foreign.contains("another scorer"), "{foreign}");

    // Every slot handed out: one more is an error, not a wait.
    let third = a.acquire_slot().expect("acquire");
    let all_out = a.acquire_slot().unwrap_err().to_string();
    assert!(all_out.contains("handed out"), "{all_out}");

    // Abandoning a slot handed out before others returns it alone: the later
    // ones stay the caller's and are scored in the order submitted.
    a.abandon_slot(first);
    first = a.acquire_slot().expect("acquire after abandon");
    a.abandon_slot(third);
    fill(&mut second, &pairs[0].0, &pairs[0].1);
    fill(&mut first, &pairs[1].0, &pairs[1].1);
    a.submit_slot(second).expect("submit the second slot first");
    a.submit_slot(first).expect("submit");
    let mut last = a.acquire_slot().expect("acquire");
    fill(&mut last, &pairs[2].0, &pairs[2].1);
    a.submit_slot(last).expect("submit");
    let mut got = Vec::new();
    while let Some(r) = a.wait_next() {
        got.push(r.expect("score"));
    }
    assert_eq!(got.len(), 3);
    for ((r, d), g) in pairs.iter().zip(&got) {
        assert_eq!(g.ssim().to_bits(), cpu_score(r, d).ssim().to_bits());
    }
    assert_no_validation_messages(&a);
}
