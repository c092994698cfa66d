//! Frames in flight, decided in one place. A scorer's frames in flight are
//! the pairs it holds at once: slots being filled by readers, uploads and
//! passes on the device, results being summed. Each source of that number
//! says what it knows, and one function per backend turns it into one count:
//!
//! 1. the scorer's own [`ScorerDesc::frames_in_flight`];
//! 2. else the engine's [`crate::vk::EngineOptions::frames_in_flight`] (Vulkan only);
//! 3. else, with a [`ScorerDesc::reader_threads`] hint, enough for that many
//!    threads filling slots at once ([`for_readers`]);
//! 4. else the default: [`DEFAULT_FRAMES_IN_FLIGHT`] on Vulkan, twice the
//!    worker threads on the CPU twin.
//!
//! A Vulkan default is then shortened for a run whose length is known
//! ([`ScorerDesc::expected_pairs`], [`for_run_length`]): each slot's device
//! memory is allocated when the ring first fills and released when the
//! scorer drops, and on the H200 (driver 580) that costs about 20 us a MB
//! each way, serially whatever the threads (VMAF's 358 MB slot at 4K:
//! about 14 ms a run, the time of some 25 frames); a ring longer than a
//! short run can use pays more than it gains (4K 8-bit VMAF, 400 frames,
//! the whole CLI: 10 slots 0.64 s, 25 slots 0.82 s; BENCHMARKS.md, issue
//! 28's twelfth session).
//!
//! Whatever picks it, a default never gives the ring's metric slots more
//! than [`slot_memory_budget`] together (at least [`MIN_FRAMES_IN_FLIGHT`]):
//! a sixteenth of the device's largest device-local heap, from
//! [`SLOT_MEMORY_BUDGET`] (2 GiB) to [`MAX_SLOT_MEMORY_BUDGET`] (8 GiB). A
//! float_ms_ssim slot holds every scale's planes and terms, about 600 MB at
//! 4K, and VMAF's extractors' (vif's statistics per scale, adm's bands,
//! motion's planes) about 360 MB; each metric says its own
//! (`GpuPlan::slot_bytes`). Slots beyond what the device can use only cost
//! their creation (4K 8-bit, all three metrics, H200: 4 in flight 1.89 ms
//! per frame, 8: 2.14, 16: 2.68, 28: 4.44; BENCHMARKS.md); too few leave
//! the device waiting for the readers when reading a pair takes longer than
//! scoring it (4K 10-bit VMAF on the H200, issue 28: BENCHMARKS.md).
//!
//! Device-resident pairs (imported planes) on a float_ssim-only Vulkan scorer
//! have a deeper default, [`DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT`]: they
//! go to the device in batches of half the ring, and at 4K on the H200 a ring
//! of 64 scored 48,569 pairs/s against 22,364 for 8 (BENCHMARKS.md, run A5).
//! Their extra slots hold no upload buffers until a host pair takes one.
//! Pairs uploaded on the direct path go in batches too, of an eighth of the
//! ring (at most 4), and only while the device has two of the scorer's
//! submissions to run (`crate::vk` scorer's batch module): a ring of 16 or
//! more is needed for such batches at all.

use super::ScorerDesc;
use crate::vk::VkOptions;

/// Frames in flight of a Vulkan scorer that nothing sizes: enough for
/// reading, upload, compute and the host sums of several frames to overlap.
pub const DEFAULT_FRAMES_IN_FLIGHT: usize = 8;

/// Device memory the metric slots of a Vulkan scorer's ring may take
/// together when nothing sets its frames in flight, at least (see the module
/// note).
pub const SLOT_MEMORY_BUDGET: u64 = 2 << 30;

/// The most device memory the metric slots of a ring take by default
/// (see the module note).
pub const MAX_SLOT_MEMORY_BUDGET: u64 = 8 << 30;

/// The metric slots' budget on a device whose largest device-local heap
/// holds `heap` bytes: a sixteenth of it, from [`SLOT_MEMORY_BUDGET`] to
/// [`MAX_SLOT_MEMORY_BUDGET`].
pub fn slot_memory_budget(heap: u64) -> u64 {
    (heap / 16).clamp(SLOT_MEMORY_BUDGET, MAX_SLOT_MEMORY_BUDGET)
}

/// Frames in flight a default keeps under [`SLOT_MEMORY_BUDGET`] however
/// large the slots are.
pub const MIN_FRAMES_IN_FLIGHT: usize = 4;

/// Device bytes of one slot's metric buffers that grow with the frame
/// (float_ms_ssim's planes and terms, about 600 MB at 4K; VMAF's, about 360
/// MB; the metrics' own modules say), 0 when they are small.
fn metric_slot_bytes(desc: &ScorerDesc) -> u64 {
    // The models' extractors too (a description that fails its checks is
    // refused when its scorer is made; its list counts here as given).
    let configs = desc.configs().unwrap_or_else(|_| desc.metrics.clone());
    crate::vk::scorer::metric_slot_bytes(&configs, desc.width, desc.height)
}

/// `picked` (a default) capped so the metric slots stay within `budget`
/// bytes, never below [`MIN_FRAMES_IN_FLIGHT`].
fn within_budget(picked: usize, desc: &ScorerDesc, budget: u64) -> usize {
    match metric_slot_bytes(desc) {
        0 => picked,
        bytes => {
            let fit = (budget / bytes) as usize;
            picked.min(fit.max(MIN_FRAMES_IN_FLIGHT))
        }
    }
}

/// Frames in flight of a float_ssim-only Vulkan scorer's device-resident
/// pairs that nothing sizes (see the module note). Each slot holds the SSIM
/// stage's planes at the scorer's decimated size (a few MB; upload buffers
/// only once a host pair uses it).
pub const DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT: usize = 64;

/// Frames in flight that keep `readers` threads busy filling frame slots: each
/// holds a slot while it reads (and the next it will fill), the pairs
/// waiting in a batch (`crate::vk`'s batch module) and those on the device
/// hold the third, and the summing threads a few more. (The default model
/// at 1080p 8-bit on the H200 from files, 12 readers: 28 in flight 6,008
/// and 6,010 frames/s, 40: 6,227 and 6,304, 56: 6,062 and 6,204;
/// BENCHMARKS.md, issue 28's ninth session.)
pub fn for_readers(readers: usize) -> usize {
    3 * readers + 4
}

/// Pairs a run scores per slot of its ring, at least, when its length is
/// known. A slot costs about as much as 25 frames' scoring (see the module
/// note), so the slots' cost stays below about 25/64 of the frames' own
/// time; on the H200 the shortest whole runs of 400 4K frames had 8 to 10
/// slots and of 1,200 1080p frames 16 to 24 (BENCHMARKS.md, issue 28's
/// twelfth session), which this gives (8 and 19).
pub const PAIRS_PER_SLOT: u64 = 64;

/// The longest ring a default gives a run of `pairs` pairs: one slot per
/// [`PAIRS_PER_SLOT`] pairs, never below [`DEFAULT_FRAMES_IN_FLIGHT`].
pub fn for_run_length(pairs: u64) -> usize {
    let slots = usize::try_from(pairs.div_ceil(PAIRS_PER_SLOT)).unwrap_or(usize::MAX);
    slots.max(DEFAULT_FRAMES_IN_FLIGHT)
}

/// The frames in flight of a Vulkan scorer of `desc` on an engine with
/// `engine` options, on a device whose largest device-local heap holds
/// `heap` bytes (see the module note).
pub(crate) fn vulkan(desc: &ScorerDesc, engine: &VkOptions, heap: u64) -> usize {
    if let Some(n) = desc.frames_in_flight {
        return n.get();
    }
    if engine.engine.frames_in_flight != 0 {
        return engine.engine.frames_in_flight;
    }
    let picked = desc
        .reader_threads
        .map_or(DEFAULT_FRAMES_IN_FLIGHT, |r| for_readers(r.get()));
    let picked = within_budget(picked, desc, slot_memory_budget(heap));
    desc.expected_pairs
        .map_or(picked, |n| picked.min(for_run_length(n.get())))
}

/// The ring a float_ssim-only Vulkan scorer of `desc` grows to on its first
/// device-resident pair: the count the scorer or the engine sets, else
/// [`DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT`] (a reader-count hint sizes
/// host frames only).
pub(crate) fn device_resident(desc: &ScorerDesc, engine: &VkOptions) -> usize {
    if let Some(n) = desc.frames_in_flight {
        return n.get();
    }
    if engine.engine.frames_in_flight != 0 {
        return engine.engine.frames_in_flight;
    }
    DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT
}

/// The pairs a CPU-twin scorer of `desc` with `threads` workers keeps inside
/// its pool (see the module note).
pub(crate) fn cpu(desc: &ScorerDesc, threads: usize) -> usize {
    desc.frames_in_flight
        .map_or(2 * threads.max(1), |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::MetricConfig;

    /// A device of 8 GiB: the budget's floor, 2 GiB.
    const SMALL_GPU: u64 = 8 << 30;

    #[test]
    fn each_source_in_its_order() {
        let desc = ScorerDesc::new(64, 48, 8);
        let mut engine = VkOptions::default();
        assert_eq!(vulkan(&desc, &engine, SMALL_GPU), DEFAULT_FRAMES_IN_FLIGHT);
        assert_eq!(
            device_resident(&desc, &engine),
            DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT
        );
        assert_eq!(
            device_resident(&desc.clone().with_reader_threads(5), &engine),
            DEFAULT_DEVICE_RESIDENT_FRAMES_IN_FLIGHT,
            "a reader hint sizes host frames only"
        );
        assert_eq!(cpu(&desc, 3), 6);
        let hinted = desc.clone().with_reader_threads(5);
        assert_eq!(vulkan(&hinted, &engine, SMALL_GPU), 19);
        assert_eq!(cpu(&hinted, 3), 6, "the CPU twin sizes by its own threads");
        engine.engine.frames_in_flight = 3;
        assert_eq!(
            vulkan(&hinted, &engine, SMALL_GPU),
            3,
            "the engine's option before the hint"
        );
        assert_eq!(device_resident(&hinted, &engine), 3);
        let own = hinted.with_frames_in_flight(2);
        assert_eq!((vulkan(&own, &engine, SMALL_GPU), cpu(&own, 3)), (2, 2));
        assert_eq!(device_resident(&own, &engine), 2);
        // Every metric at once: a default stays within the budget (4K: about
        // two thirds of a gigabyte a slot, so the minimum), a set count is
        // kept.
        let ms = |w, h| {
            ScorerDesc::new(w, h, 8)
                .with_metrics(MetricConfig::all())
                .with_chroma(crate::io::Chroma::C420)
                .with_reader_threads(12)
        };
        let per_slot = metric_slot_bytes(&ms(3840, 2160));
        assert!((600 << 20..700 << 20).contains(&per_slot), "{per_slot}");
        assert_eq!(
            vulkan(&ms(3840, 2160), &VkOptions::default(), SMALL_GPU),
            MIN_FRAMES_IN_FLIGHT
        );
        let fit_1080p = (SLOT_MEMORY_BUDGET / metric_slot_bytes(&ms(1920, 1080))) as usize;
        assert_eq!(
            vulkan(&ms(1920, 1080), &VkOptions::default(), SMALL_GPU),
            fit_1080p.min(for_readers(12))
        );
        assert_eq!(
            vulkan(&ms(3840, 2160), &engine, SMALL_GPU),
            3,
            "the engine's option is kept"
        );
        assert_eq!(
            vulkan(
                &ms(3840, 2160).with_frames_in_flight(9),
                &VkOptions::default(),
                SMALL_GPU
            ),
            9
        );
        // VMAF's extractors (from a model alone): about 360 MB a slot at 4K,
        // so a default stays within the budget too.
        let vmaf = ScorerDesc::new(3840, 2160, 8)
            .with_models(crate::metric::Models::default_model().unwrap())
            .with_reader_threads(12);
        let per_slot = metric_slot_bytes(&vmaf);
        assert!((300 << 20..450 << 20).contains(&per_slot), "{per_slot}");
        let fit = (SLOT_MEMORY_BUDGET / per_slot) as usize;
        assert_eq!(
            vulkan(&vmaf, &VkOptions::default(), SMALL_GPU),
            fit.max(MIN_FRAMES_IN_FLIGHT)
        );
        // A device of 141 GB (the H200) lets the slots take 8 GiB.
        let h200 = 150_000_000_000;
        assert_eq!(slot_memory_budget(h200), MAX_SLOT_MEMORY_BUDGET);
        assert_eq!(slot_memory_budget(SMALL_GPU), SLOT_MEMORY_BUDGET);
        assert_eq!(slot_memory_budget(64 << 30), 4 << 30);
        let fit = (MAX_SLOT_MEMORY_BUDGET / per_slot) as usize;
        assert_eq!(
            vulkan(&vmaf, &VkOptions::default(), h200),
            fit.min(for_readers(12))
        );
        // A run of known length: a ring of one slot per PAIRS_PER_SLOT
        // pairs, from DEFAULT_FRAMES_IN_FLIGHT to what the budget gives; a
        // set count is kept whatever the length.
        let ring = |pairs| {
            vulkan(
                &vmaf.clone().with_expected_pairs(Some(pairs)),
                &VkOptions::default(),
                h200,
            )
        };
        assert_eq!(ring(2), DEFAULT_FRAMES_IN_FLIGHT);
        assert_eq!(ring(400), DEFAULT_FRAMES_IN_FLIGHT);
        assert_eq!(ring(1_000), 16);
        assert_eq!(ring(1_000_000), fit.min(for_readers(12)));
        assert_eq!(
            vulkan(
                &vmaf
                    .clone()
                    .with_expected_pairs(Some(2))
                    .with_frames_in_flight(30),
                &VkOptions::default(),
                h200
            ),
            30
        );
        assert!(for_run_length(u64::MAX) > 1 << 40, "no overflow");
        assert_eq!(
            desc.clone().with_expected_pairs(Some(0)).expected_pairs,
            None
        );
        // 0 is "pick".
        assert_eq!(desc.clone().with_frames_in_flight(0).frames_in_flight, None);
        assert_eq!(desc.with_reader_threads(0).reader_threads, None);
    }
}
