//! Where time went: the slots' GPU timestamps (per-pass times, busy time and
//! span, [`VkScorer::take_mean_pass_ns`]) and the submitting thread's waits,
//! as [`HostStats`]; and
//! [`VkScorer::memory_path`], the upload and read-back path in words.

use ash::vk;

use super::VkScorer;

/// Where time went, for `vkssim bench`: the submitting thread's blocking waits
/// and submissions, and the GPU's busy time and span from the timestamps.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostStats {
    /// Time spent waiting on frame fences (in `finish_oldest`), ns.
    pub fence_wait_ns: u64,
    /// Time spent waiting for the worker threads' sums, ns.
    pub sum_wait_ns: u64,
    /// Time spent submitting (fence reset and queue submissions), ns.
    pub submit_ns: u64,
    /// Sum over frames of first-to-last timestamp, ns.
    pub gpu_busy_ns: f64,
    /// Frames with timestamps.
    pub gpu_frames: u64,
    /// Earliest first and latest last timestamp, in ticks.
    pub gpu_first_tick: Option<u64>,
    /// See `gpu_first_tick`.
    pub gpu_last_tick: Option<u64>,
    /// Nanoseconds per tick.
    pub tick_ns: f64,
    /// Frames whose means (float_ssim's, or some MS-SSIM scale's) the
    /// device's fixed-point sums did not settle, so the host summed their
    /// terms in raster order (every frame under
    /// `VkOptions::debug.force_host_sum`); see the engine's `reduce` module.
    pub host_sum_fallbacks: u64,
    /// Pairs whose passes made the planes their metrics derive from the
    /// reference into a shared reference plane, for other scorers (a
    /// ladder's first rung; see [`crate::api::SharedPlane`]).
    pub shared_reference_makes: u64,
    /// Pairs that read those planes from a shared reference plane, made by
    /// another pair, instead of making their own (a ladder's other rungs).
    pub shared_reference_reads: u64,
}

impl HostStats {
    /// Wall time from the first frame's first timestamp to the last frame's
    /// last, ns.
    pub fn gpu_span_ns(&self) -> Option<f64> {
        Some(self.gpu_last_tick?.wrapping_sub(self.gpu_first_tick?) as f64 * self.tick_ns)
    }
}

/// GPU time per pass from the slots' timestamps: the last frame's, and sums
/// over the frames since the last [`PassClock::take_mean`].
#[derive(Debug, Clone, Default)]
pub(super) struct PassClock {
    last: Option<Vec<f64>>,
    sum: Vec<f64>,
    frames: u64,
}

impl PassClock {
    fn add(&mut self, ns: Vec<f64>) {
        self.sum.resize(ns.len(), 0.0);
        for (s, t) in self.sum.iter_mut().zip(&ns) {
            *s += t;
        }
        self.last = Some(ns);
        self.frames += 1;
    }

    /// The mean of each pass (named by `names`) over the frames since the
    /// last call, and restarts the sums.
    fn take_mean(&mut self, names: &[String]) -> Option<Vec<(String, f64)>> {
        let frames = std::mem::take(&mut self.frames);
        let sum = std::mem::take(&mut self.sum);
        (frames > 0).then(|| {
            names
                .iter()
                .zip(sum)
                .map(|(name, s)| (name.clone(), s / frames as f64))
                .collect()
        })
    }
}

impl VkScorer {
    /// GPU time of each step of the last frame scored, in nanoseconds, when
    /// the queue has timestamps: one per level of the scorer's program
    /// where stages end, named after the stages that end there (each metric's
    /// declared stages, such as float_ssim's [`crate::vk::pipeline::PASSES`],
    /// joined by " + " where metrics run side by side), in dispatch order.
    pub fn last_pass_ns(&self) -> Option<Vec<(String, f64)>> {
        let ns = self.pass_clock.last.as_ref()?;
        Some(
            self.pass_names()
                .into_iter()
                .zip(ns.iter().copied())
                .collect(),
        )
    }

    /// The names of the steps this scorer times, in order (see
    /// [`VkScorer::last_pass_ns`]).
    pub fn pass_names(&self) -> Vec<String> {
        self.program.stages.clone()
    }

    /// The mean GPU time of each pass per frame (name, nanoseconds) over the
    /// frames scored since the last call (or since creation), when the queue
    /// has timestamps; restarts the count. The times are from the timestamps
    /// around each dispatch: with frames in flight, a pass of one frame may
    /// overlap another frame's passes.
    pub fn take_mean_pass_ns(&mut self) -> Option<Vec<(String, f64)>> {
        let names = self.pass_names();
        self.pass_clock.take_mean(&names)
    }

    pub(super) fn read_timestamps(&mut self, i: usize) {
        let Some(q) = self.slots[i].queries else {
            return;
        };
        // Pairs the timestamps cover (an interleaved batch's are on its last
        // slot, shared equally among them; the others have none).
        let pairs = self.slots[i].timed_pairs;
        if pairs == 0 {
            return;
        }
        let stamps = self.pass_names().len() + 1;
        let mut ticks = vec![0u64; stamps];
        // SAFETY: the slot's fence signalled, so every query read was
        // written.
        let ok = unsafe {
            self.gpu.device.raw.get_query_pool_results(
                q,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64,
            )
        }
        .is_ok();
        if !ok {
            return;
        }
        let period = self.gpu.device.timestamp_period() as f64;
        let ns: Vec<f64> = ticks
            .windows(2)
            .map(|t| t[1].wrapping_sub(t[0]) as f64 * period / pairs as f64)
            .collect();
        let names = self.pass_names();
        for (pass, t) in names.iter().zip(&ns) {
            tracing::debug!(
                frame = self.slots[i].frame,
                pass,
                gpu_us = t / 1e3,
                "GPU pass time"
            );
        }
        self.pass_clock.add(ns);
        let (first, last) = (ticks[0], ticks[stamps - 1]);
        let st = &mut self.stats;
        st.gpu_busy_ns += last.wrapping_sub(first) as f64 * period;
        st.gpu_frames += pairs as u64;
        st.gpu_first_tick = Some(st.gpu_first_tick.map_or(first, |t| t.min(first)));
        st.gpu_last_tick = Some(st.gpu_last_tick.map_or(last, |t| t.max(last)));
        st.tick_ns = period;
    }

    /// Where time went since the last [`VkScorer::reset_stats`].
    pub fn stats(&self) -> HostStats {
        self.stats
    }

    /// Always sum the terms on the host in raster order (`true`), or use the
    /// device's fixed-point sums where they settle a frame (`false`, the
    /// default unless `VkOptions::debug.force_host_sum`). Applies to frames scored
    /// after the call.
    pub fn set_force_host_sum(&mut self, on: bool) {
        self.force_host_sum = on;
    }

    /// Starts the [`HostStats`] afresh.
    pub fn reset_stats(&mut self) {
        self.stats = HostStats::default();
    }

    /// Where the raw samples are written, in words: the memory type the host
    /// writes (device-local through the BAR, host memory) and the copy after
    /// it; then where the metrics' read-back buffers live
    /// ([`super::metric::GpuMetric::memory_note`]).
    pub fn memory_path(&self) -> String {
        let slot = &self.slots[0];
        let path = match &slot.staging {
            Some(st) => format!(
                "staging: host writes {} memory, then a copy to device-local memory on the {} queue",
                describe(st.memory_properties()),
                if slot.transfer_cmd.is_some() {
                    "transfer-only"
                } else {
                    "compute"
                }
            ),
            None => format!(
                "direct: host writes {} memory read by the shaders",
                describe(slot.raw[0].memory_properties())
            ),
        };
        let notes = self
            .gpu_metrics
            .iter()
            .zip(&slot.bufs)
            .filter_map(|(m, bufs)| m.memory_note(bufs, self.copy_terms));
        std::iter::once(path).chain(notes).collect()
    }
}

/// Memory property flags in words (`device-local host-visible`, ...).
pub(super) fn describe(f: vk::MemoryPropertyFlags) -> String {
    let mut parts = Vec::new();
    if f.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL) {
        parts.push("device-local");
    }
    if f.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) {
        parts.push("host-visible");
    }
    if f.contains(vk::MemoryPropertyFlags::HOST_CACHED) {
        parts.push("host-cached");
    }
    parts.join(" ")
}
