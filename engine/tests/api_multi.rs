//! [`MultiScorer`] against one scorer and the CPU twin: pairs dealt over
//! several engines come back in submission order, each bit-identical; errors
//! name the engine's device. On a machine with one Vulkan device (lavapipe in
//! CI) the engines are that device twice (each with its own scorer and ring),
//! which exercises the dealing and the ordering; several GPUs are checked on
//! the two-GPU machine (BENCHMARKS.md). Validation is on; any message fails.

mod vk_support;

use vk_support::{frame, gpu_present};
use vkssim::api::ScoreQueue;
use vkssim::api::{usable_devices, Engine, HostPlane, MultiScorer, Pair, ScorerDesc};
use vkssim::metric::MetricConfig;
use vkssim::vk::VkOptions;
use vkssim::{testing::cpu, Error, LumaFrame, SsimOptions};

fn engines(count: usize) -> Vec<Engine> {
    let devices = usable_devices(true).expect("devices");
    (0..count)
        .map(|i| {
            Engine::new(
                &VkOptions::default()
                    .with_device_index(Some(devices[i % devices.len()]))
                    .with_validation(true),
            )
            .expect("engine")
        })
        .collect()
}

fn host(p: &(Vec<u8>, Vec<u16>), bit_depth: u32, width: u32) -> HostPlane<'_> {
    if bit_depth > 8 {
        HostPlane::u16(&p.1, width as usize)
    } else {
        HostPlane::u8(&p.0, width as usize)
    }
}

#[test]
fn pairs_over_several_engines_come_back_in_order_and_identical() {
    if !gpu_present() {
        return;
    }
    let engines = engines(3);
    let opts = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    for (w, h, bit_depth) in [(97u32, 61u32, 8u32), (64, 48, 10)] {
        let ssim = opts;
        let mut desc =
            ScorerDesc::new(w, h, bit_depth).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
        desc.frames_in_flight = std::num::NonZeroUsize::new(2);
        let mut multi = MultiScorer::new(&engines, &desc).expect("multi scorer");
        assert_eq!(multi.devices().len(), 3);
        let pairs: Vec<(LumaFrame, LumaFrame)> = (0..11)
            .map(|i| {
                (
                    frame(w, h, bit_depth, 3 + i),
                    frame(w, h, bit_depth, 70 + i),
                )
            })
            .collect();
        let plane = |f: &LumaFrame| -> (Vec<u8>, Vec<u16>) {
            if bit_depth > 8 {
                let s = f
                    .bytes
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
                (Vec::new(), s)
            } else {
                (f.bytes.clone(), Vec::new())
            }
        };
        let mut got = Vec::new();
        for (k, (r, d)) in pairs.iter().enumerate() {
            assert_eq!(multi.next_engine(), k % 3);
            let (pr, pd) = (plane(r), plane(d));
            multi
                .submit(Pair::new(host(&pr, bit_depth, w), host(&pd, bit_depth, w)))
                .expect("submit");
            while let Some(s) = multi.poll() {
                got.push(s.expect("result"));
            }
        }
        while let Some(s) = multi.wait() {
            got.push(s.expect("result"));
        }
        assert_eq!(multi.in_flight(), 0);
        assert_eq!(got.len(), pairs.len());
        for (i, ((r, d), g)) in pairs.iter().zip(&got).enumerate() {
            let want = cpu::score_frame(&r.view(), &d.view(), &opts).unwrap();
            assert_eq!(
                *g, want,
                "{w}x{h} {bit_depth}-bit pair {i}: multi vs CPU twin"
            );
        }
    }
    for e in &engines {
        assert!(
            e.validation_messages().is_empty(),
            "{:#?}",
            e.validation_messages()
        );
    }
}

#[test]
fn a_refused_pair_names_its_engine_and_keeps_the_earlier_results() {
    if !gpu_present() {
        return;
    }
    let engines = engines(2);
    let ssim = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    let desc = ScorerDesc::new(64, 48, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    let mut multi = MultiScorer::new(&engines, &desc).expect("multi");
    let (r, d) = (frame(64, 48, 8, 1), frame(64, 48, 8, 2));
    multi
        .submit(Pair::new(
            HostPlane::u8(&r.bytes, 64),
            HostPlane::u8(&d.bytes, 64),
        ))
        .expect("first pair");
    let short = vec![0u8; 10];
    let err = multi
        .submit(Pair::new(
            HostPlane::u8(&short, 64),
            HostPlane::u8(&d.bytes, 64),
        ))
        .expect_err("a 10-byte plane must be refused");
    match &err {
        Error::OnDevice { device, source } => {
            assert!(device.starts_with("Vulkan device 1 ("), "{device}");
            assert!(matches!(**source, Error::BufferSize { .. }), "{source}");
        }
        other => panic!("expected OnDevice, got {other}"),
    }
    let first = multi.wait().expect("first result").expect("scored");
    assert_eq!(
        first,
        cpu::score_frame(&r.view(), &d.view(), &ssim).unwrap()
    );
    assert!(multi.wait().is_none());
}

#[test]
fn no_engines_is_refused() {
    let err = MultiScorer::new(&[], &ScorerDesc::new(64, 48, 8)).expect_err("empty");
    assert!(matches!(err, Error::InvalidOption(_)), "{err}");
}

#[test]
fn slots_filled_in_place_over_a_device_and_the_cpu_twin_come_back_in_order_across_borrows() {
    if !gpu_present() {
        return;
    }
    let engines = engines(1);
    let ssim = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    let mut desc = ScorerDesc::new(80, 52, 8).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    desc.frames_in_flight = std::num::NonZeroUsize::new(2);
    let scorers = vec![
        engines[0].scorer(&desc).expect("vulkan scorer"),
        vkssim::api::Scorer::cpu(&desc, 2).expect("cpu scorer"),
    ];
    let mut multi =
        MultiScorer::from_scorers(scorers, vec!["vk".into(), "cpu".into()]).expect("multi");
    let pairs: Vec<(LumaFrame, LumaFrame)> = (0..9)
        .map(|i| (frame(80, 52, 8, 20 + i), frame(80, 52, 8, 90 + i)))
        .collect();
    let mut got = Vec::new();
    // Three borrows of 3, 1 and 5 pairs: each goes on with the turn the last
    // one left (an odd count ends on the other engine).
    for chunk in [&pairs[..3], &pairs[3..4], &pairs[4..]] {
        let mut slots = multi.slots();
        assert_eq!(slots.queue_depth(), 4);
        for (r, d) in chunk {
            let mut slot = slots.acquire().expect("slot");
            slot.copy_from(&r.bytes, &d.bytes).expect("fill");
            slots.submit(slot).expect("submit");
            while let Some(s) = slots.poll() {
                got.push(s.expect("result"));
            }
        }
        while let Some(s) = slots.wait() {
            got.push(s.expect("result"));
        }
    }
    assert_eq!(got.len(), pairs.len());
    for (i, ((r, d), g)) in pairs.iter().zip(&got).enumerate() {
        let want = cpu::score_frame(&r.view(), &d.view(), &ssim).unwrap();
        assert_eq!(*g, want, "pair {i}: slots over vk + cpu vs CPU twin");
    }
    assert!(engines[0].validation_messages().is_empty());
}

#[test]
fn scorers_of_different_geometry_are_refused() {
    let a = vkssim::api::Scorer::cpu(&ScorerDesc::new(64, 48, 8), 1).expect("a");
    let b = vkssim::api::Scorer::cpu(&ScorerDesc::new(64, 50, 8), 1).expect("b");
    let err = MultiScorer::from_scorers(vec![a, b], vec!["a".into(), "b".into()])
        .expect_err("different geometry");
    assert!(matches!(err, Error::InvalidOption(_)), "{err}");
}

#[test]
fn results_carry_their_pairs_index_from_submit_and_from_slots() {
    // On the CPU twin (no device needed): two scorers dealt over, pairs
    // submitted whole, refused (no index taken) and filled in place, results
    // taken as they come back and at the end; each result carries its pair's
    // index, the same as one scorer alone gives.
    let desc = ScorerDesc::new(12, 12, 8).with_frames_in_flight(3);
    let scorers = vec![
        vkssim::api::Scorer::cpu(&desc, 2).expect("a"),
        vkssim::api::Scorer::cpu(&desc, 1).expect("b"),
    ];
    let mut multi =
        MultiScorer::from_scorers(scorers, vec!["a".into(), "b".into()]).expect("multi");
    let mut single = vkssim::api::Scorer::cpu(&desc, 2).expect("single");
    let pairs: Vec<(LumaFrame, LumaFrame)> = (0..600)
        .map(|i| (frame(12, 12, 8, 5 + i), frame(12, 12, 8, 1000 + i)))
        .collect();
    let (mut got, mut alone) = (Vec::new(), Vec::new());
    let short = vec![0u8; 10];
    for (i, (r, d)) in pairs.iter().enumerate() {
        if i % 97 == 13 {
            let refused = Pair::new(HostPlane::u8(&short, 12), HostPlane::u8(&d.bytes, 12));
            assert!(multi.submit(refused.clone()).is_err());
            assert!(single.submit(refused).is_err());
        }
        assert_eq!(
            (multi.submitted(), single.submitted()),
            (i as u64, i as u64)
        );
        if i % 5 == 4 {
            // The pair filled in place (MultiSlots, then FrameSlots: the
            // same calls on two types), then the results back so far.
            macro_rules! in_place {
                ($slots:expr, $out:expr) => {{
                    let mut slots = $slots;
                    let mut slot = slots.acquire().expect("slot");
                    slot.copy_from(&r.bytes, &d.bytes).expect("fill");
                    slots.submit(slot).expect("submit a slot");
                    while let Some((k, s)) = slots.poll_indexed() {
                        $out.push((k, s.expect("result")));
                    }
                }};
            }
            in_place!(multi.slots(), got);
            in_place!(single.slots(), alone);
        } else {
            let pair = Pair::new(HostPlane::u8(&r.bytes, 12), HostPlane::u8(&d.bytes, 12));
            multi.submit(pair.clone()).expect("submit");
            single.submit(pair).expect("submit");
        }
        // Mixed with the unindexed calls: each result still has its index.
        if i % 3 == 0 {
            if let Some(s) = multi.poll() {
                let k = got.len() as u64;
                got.push((k, s.expect("result")));
            }
        }
        while let Some((k, s)) = multi.poll_indexed() {
            got.push((k, s.expect("result")));
        }
        while let Some((k, s)) = single.poll_indexed() {
            alone.push((k, s.expect("result")));
        }
    }
    while let Some((k, s)) = multi.wait_indexed() {
        got.push((k, s.expect("result")));
    }
    while let Some((k, s)) = single.wait_indexed() {
        alone.push((k, s.expect("result")));
    }
    let want: Vec<(u64, vkssim::FrameScore)> = pairs
        .iter()
        .enumerate()
        .map(|(i, (r, d))| {
            let s = cpu::score_frame(&r.view(), &d.view(), &SsimOptions::default()).unwrap();
            (i as u64, s)
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(alone, want);
    assert_eq!(multi.in_flight(), 0);
}

/// [`MultiScorer::new`] gives each engine its share of the run's pairs, and
/// each ring is sized by it: one slot per 64 pairs, 8 at least (12 readers
/// alone would ask 3 x 12 + 4 = 40).
#[test]
fn each_engine_sizes_its_ring_by_its_share_of_the_run() {
    if !gpu_present() {
        return;
    }
    let engines = engines(2);
    let desc = ScorerDesc::new(64, 48, 8)
        .with_reader_threads(12)
        .with_expected_pairs(Some(1_100));
    let two = MultiScorer::new(&engines, &desc).expect("two engines");
    let depths: Vec<usize> = two.scorers().iter().map(|s| s.queue_depth()).collect();
    assert_eq!(depths, [9, 9], "550 pairs each");
    let one = MultiScorer::new(&engines[..1], &desc).expect("one engine");
    assert_eq!(one.scorers()[0].queue_depth(), 18, "1,100 pairs");
    let unhinted = MultiScorer::new(&engines[..1], &desc.with_expected_pairs(None)).expect("one");
    assert_eq!(unhinted.scorers()[0].queue_depth(), 40, "the readers' ring");
}
