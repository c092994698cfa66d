//! The deeper ring of device-resident pairs (`vkssim::api::in_flight`): a
//! float_ssim scorer whose frames in flight nothing sets grows to
//! `DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT` slots on its first imported
//! pair, the slots past the host ring made without upload buffers; host
//! pairs (submitted and through frame slots) that land on those slots get
//! them then; device-resident pairs after that read the host's buffers
//! again. Every score bit-identical to the CPU twin, in order, validation on
//! (any message fails). A scorer whose frames in flight are set keeps them.

mod vk_support;

#[path = "../examples/common/mod.rs"]
mod common;
mod device_pairs;

use device_pairs::{
    destroy_pairs, device_pairs, import_pairs, score_in_slot, submit_in_order, want_for,
};
use vk_support::{frame, gpu_present};
use vkssim::api::ScoreQueue;
use vkssim::api::{
    DevicePlane, Engine, Pair, SampleFormat, ScorerDesc, DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT,
    DEFAULT_FRAMES_IN_FLIGHT,
};
use vkssim::testing::cpu;
use vkssim::vk::VkOptions;
use vkssim::SsimOptions;

fn engine() -> Engine {
    Engine::new(&VkOptions::default().with_validation(true)).expect("engine")
}

#[test]
fn device_pairs_deepen_the_ring_and_host_pairs_still_fit_it() {
    if !gpu_present() {
        return;
    }
    let engine = engine();
    let (w, h) = (96u32, 64u32);
    let desc = ScorerDesc::new(w, h, 8);
    let mut scorer = engine.scorer(&desc).expect("scorer");
    assert_eq!(scorer.queue_depth(), DEFAULT_FRAMES_IN_FLIGHT);
    let layouts = [
        (0, w as u64, 41),
        (0, w as u64, 42),
        (256, w as u64 + 32, 43),
    ];
    let pairs = device_pairs(&engine, w, h, &layouts);
    // SAFETY: the buffers hold their planes and outlive the scorer.
    let imports = unsafe { import_pairs(&engine, &pairs) };
    let (hr, hd) = (frame(w, h, 8, 50), frame(w, h, 8, 51));
    let host_want = cpu::score_frame(&hr.view(), &hd.view(), &SsimOptions::default()).unwrap();
    // 9 marks a host pair. Twelve device pairs take slots 0 to 11 (past the
    // host ring of 8), so the host pairs after them land on slots made
    // without upload buffers; device pairs then take slots host pairs used.
    let mut order: Vec<usize> = (0..12).map(|k| k % 3).collect();
    order.extend([9, 9, 0, 9, 1, 2, 9]);
    order.extend((0..70).map(|k| if k % 7 == 3 { 9 } else { k % 3 }));
    let host = [&hr, &hd];
    let mut got = submit_in_order(&mut scorer, &imports, &order[..1], host);
    assert_eq!(
        scorer.queue_depth(),
        DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT,
        "the first device-resident pair deepens the ring"
    );
    got.extend(submit_in_order(&mut scorer, &imports, &order[1..], host));
    for (n, (&k, g)) in order.iter().zip(&got).enumerate() {
        let want = if k == 9 {
            host_want.clone()
        } else {
            want_for(w, h, layouts[k].2, &SsimOptions::default())
        };
        assert_eq!(*g, want, "submission {n} (pair {k})");
    }
    // Frame slots (the readers' path) on the deepened ring: every slot of it
    // in turn, each filled by the host.
    for k in 0..DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT + 2 {
        let g = score_in_slot(&mut scorer, [&hr, &hd]);
        assert_eq!(g, host_want, "slot pair {k} on the deepened ring");
    }
    drop(scorer);
    drop(imports);
    destroy_pairs(&engine, &pairs);
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "validation: {messages:?}");

    // Frames in flight set by the scorer: kept for device-resident pairs.
    let set = ScorerDesc::new(w, h, 8).with_frames_in_flight(4);
    let mut scorer = engine.scorer(&set).expect("scorer");
    let pairs = device_pairs(&engine, w, h, &layouts[..1]);
    let plane = |k: usize| DevicePlane::new(pairs[0].bufs[k].buffer, w as u64, SampleFormat::U8);
    // SAFETY: the buffers hold their planes and outlive the scorer.
    let [r, d] = [0, 1].map(|k| unsafe { engine.import_buffer(plane(k)) }.expect("import"));
    scorer.submit(Pair::new(&r, &d)).expect("device pair");
    assert_eq!(scorer.queue_depth(), 4);
    let g = scorer.wait().expect("a result").expect("score");
    assert_eq!(g, want_for(w, h, layouts[0].2, &SsimOptions::default()));
    drop(scorer);
    drop((r, d));
    destroy_pairs(&engine, &pairs);
    let messages = engine.validation_messages();
    assert!(messages.is_empty(), "validation: {messages:?}");
}
