//! The recorder (vello's render graph, in small): a metric declares the
//! buffers each slot holds for it ([`BufferDecl`]) and records
//! `dispatch(kernel, extent, buffers, push)` calls into a [`Recorder`]; the
//! scorer turns them into a [`Program`] once per scorer, then allocates each
//! slot's buffers and descriptor sets and writes the program into the slot's
//! command buffers. The recorder, not the metric:
//!
//! - computes each dispatch's workgroup counts from the shader table's
//!   workgroup size and the extent ([`ShaderName::local_size`]);
//! - checks the buffers given against the shader's own bindings (every binding
//!   the shader accesses, no other) and its push-constant bytes;
//! - runs every dispatch as early as its buffers allow, across metrics: a
//!   dispatch's level is one more than that of the latest dispatch recorded
//!   before it that writes a buffer it reads or writes, or reads one it
//!   writes (the table says which bindings a shader writes), 0 without one;
//!   the program runs level after level, a barrier between two, so that one
//!   metric's passes run beside another's (VIF's scale 2 beside ADM's and
//!   motion's) instead of each waiting for the whole of the one before;
//! - places a barrier first when a dispatch binds a buffer a metric keeps
//!   from frame to frame ([`Buf::Kept`]): the frames submitted before on the
//!   same queue wrote it;
//! - writes a timestamp after each level where a stage a metric declared
//!   ([`super::metric::GpuMetric::stage_names`]) ends, named after the
//!   stages ending there (`"vif 1 stats + adm 1 rows"`): with metrics side
//!   by side, the time is the level's, not one pass's; a program that times
//!   each pass ([`build_program`]'s `each_pass`) runs every dispatch alone
//!   instead, a barrier before it and a stamp after it.
//!
//! A program names buffers by role ([`Buf`]), not by handle, so one program
//! serves every slot, and a batch of slots can run it step by step, each
//! dispatch for every slot between the same barriers (`super::batch`).

use std::sync::Arc;

use ash::vk;

use super::metric::GpuMetric;
use super::VkScorer;
use crate::vk::commands;
use crate::vk::pipeline::{groups, Kernel};
use crate::vk::shaders::ShaderName;
use crate::{Error, Result};

/// A buffer a dispatch binds, by role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Buf {
    /// The raw reference (0) or distorted (1) picture: the slot's upload
    /// buffer, a shared reference plane or a host's buffer.
    Raw(u8),
    /// The slot's record of samples above the bit depth
    /// ([`crate::vk::pipeline::RangeRecord`]), which the ring checks after
    /// every frame.
    Range,
    /// Buffer `.1` of those metric `.0` (its position in the scorer's list)
    /// declared.
    Own(u16, u16),
    /// Buffer `.1` of those metric `.0` keeps for the whole scorer
    /// ([`GpuMetric::kept_buffers`]): its passes carry it from one frame to
    /// the next, in submission order.
    Kept(u16, u16),
    /// The previous frame's reference luma that a pair carries (the slot's
    /// previous-reference buffer, `super::previous`): bound only by the
    /// passes of [`GpuMetric::record_previous`].
    Previous,
    /// The slot's word saying whether the buffers its metrics make from
    /// the reference alone were made by an earlier submission (a shared
    /// reference's, `super::derived`): the passes that make them then make
    /// the distorted picture's alone. A program binding it starts with a
    /// barrier, as one binding a kept buffer: earlier submissions wrote or
    /// read those buffers.
    Ready,
}

/// A buffer a metric declares: one per slot.
#[derive(Debug, Clone)]
pub(super) struct BufferDecl {
    /// What it holds (the debug-utils name adds the slot).
    pub(super) name: String,
    /// Its size in bytes.
    pub(super) bytes: u64,
    /// Host-visible (read back by the host after the frame) or device memory
    /// (copied back only on request).
    pub(super) host: bool,
    /// For a buffer made from the reference picture alone (its passes bind
    /// [`Buf::Ready`]): what, beyond the reference, its contents depend on
    /// (the scorer's plane size and bit depth aside). Scorers whose lists
    /// give the same keys read one scorer's such buffers of a shared
    /// reference (`super::derived`).
    pub(super) reference_key: Option<String>,
}

impl BufferDecl {
    /// Device memory of `bytes`, named `name`.
    pub(super) fn device(name: impl Into<String>, bytes: u64) -> Self {
        Self {
            name: name.into(),
            bytes,
            host: false,
            reference_key: None,
        }
    }

    /// Device memory of `bytes`, named `name`, made from the reference
    /// picture alone, its contents fixed by `key` (see
    /// [`BufferDecl::reference_key`]).
    pub(super) fn of_reference(name: impl Into<String>, bytes: u64, key: String) -> Self {
        Self {
            reference_key: Some(key),
            ..Self::device(name, bytes)
        }
    }

    /// Host-visible memory of `bytes`, named `name`.
    pub(super) fn host(name: impl Into<String>, bytes: u64) -> Self {
        Self {
            name: name.into(),
            bytes,
            host: true,
            reference_key: None,
        }
    }
}

/// The descriptor set of a dispatch: its shader's layout and what each
/// binding reads (ascending binding numbers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SetKey {
    pub(super) shader: ShaderName,
    pub(super) bindings: Vec<(u32, Buf)>,
}

/// A dispatch as recorded, before the program places it.
#[derive(Debug, Clone)]
struct Recorded {
    kernel: Kernel,
    groups: [u32; 3],
    set: usize,
    push: Vec<u8>,
    /// Each buffer bound, and whether the shader may write it.
    uses: Vec<(Buf, bool)>,
}

impl Recorded {
    /// Whether `self` must wait for `earlier`: one writes a buffer the
    /// other binds.
    fn waits_for(&self, earlier: &Recorded) -> bool {
        self.uses
            .iter()
            .any(|&(buf, writes)| earlier.uses.iter().any(|&(b, w)| b == buf && (writes || w)))
    }
}

/// One step of a program.
#[derive(Debug, Clone)]
enum Step {
    /// A dispatch of `kernel` with set `set` of the program's sets.
    Dispatch {
        kernel: Kernel,
        groups: [u32; 3],
        set: usize,
        push: Vec<u8>,
    },
    /// A compute-to-compute barrier.
    Barrier,
    /// The timestamp at the end of stage `.0` (query `.0 + 1`).
    Stamp(u32),
}

/// What a scorer records per frame: the steps, the descriptor sets they
/// bind and the stages they time.
#[derive(Debug, Clone, Default)]
pub(super) struct Program {
    steps: Vec<Step>,
    /// Every set a dispatch binds, each once.
    pub(super) sets: Vec<SetKey>,
    /// The timed stages' names, in order (the stages that end at one
    /// stamp, joined by " + ").
    pub(super) stages: Vec<String>,
    /// Whether each dispatch runs alone and is timed ([`build_program`]'s
    /// `each_pass`): its pairs then run one at a time, not in batches.
    pub(super) each_pass: bool,
    /// How many levels a batch's pairs run apart ([`Program::stagger`]),
    /// worked out once when the program is made.
    stagger: usize,
}

impl Program {
    /// Timestamps per frame: one before the first step, one per stage.
    pub(super) fn timestamps(&self) -> u32 {
        self.stages.len() as u32 + 1
    }

    /// The steps between barriers, in order (the first empty when the
    /// program starts with a barrier).
    fn levels(&self) -> Vec<&[Step]> {
        self.steps.split(|s| matches!(s, Step::Barrier)).collect()
    }

    /// How many levels a batch's pairs run apart (`super::batch`): the
    /// span of the levels (of [`Program::levels`]) whose dispatches bind a
    /// kept buffer some dispatch writes, first to last, so that every pair
    /// has done with such buffers, behind a barrier, before the next pair's
    /// first use of one (pair j + 1's first such level runs after pair j's
    /// last); 0 when the program writes no kept buffer (kept buffers that
    /// are only read, as a table, may be read by every pair at once).
    pub(super) fn stagger(&self) -> usize {
        self.stagger
    }

    /// The program with its [`Program::stagger`] worked out from its steps
    /// (once, when it is made: every batch's recording reads it).
    fn with_stagger(mut self) -> Self {
        self.stagger = self.kept_span();
        self
    }

    /// [`Program::stagger`] from the steps.
    fn kept_span(&self) -> usize {
        let bound = |step: &Step| -> Vec<(Buf, bool)> {
            let Step::Dispatch { kernel, set, .. } = step else {
                return Vec::new();
            };
            let key = &self.sets[*set];
            key.bindings
                .iter()
                .zip(kernel.shader.bindings())
                .map(|(&(_, buf), &(_, access))| (buf, access.writes()))
                .collect()
        };
        let written: Vec<Buf> = self
            .steps
            .iter()
            .flat_map(bound)
            .filter(|&(b, writes)| writes && matches!(b, Buf::Kept(..)))
            .map(|(b, _)| b)
            .collect();
        let using: Vec<usize> = self
            .levels()
            .iter()
            .enumerate()
            .filter(|(_, level)| {
                level
                    .iter()
                    .flat_map(bound)
                    .any(|(b, _)| written.contains(&b))
            })
            .map(|(l, _)| l)
            .collect();
        match (using.first(), using.last()) {
            (Some(first), Some(last)) => last - first + 1,
            _ => 0,
        }
    }

    /// Descriptors in all of one slot's sets.
    pub(super) fn descriptors(&self) -> u32 {
        self.sets.iter().map(|k| k.bindings.len() as u32).sum()
    }
}

/// Collects one metric list's dispatches into a [`Program`] (see the
/// module docs).
pub(super) struct Recorder {
    /// The sets so far (the steps are placed by [`Recorder::finish`]).
    program: Program,
    /// Every dispatch, in recording order.
    recorded: Vec<Recorded>,
    /// Each stage ended: its name and the dispatches recorded in it.
    stage_ends: Vec<(&'static str, std::ops::Range<usize>)>,
    /// The metric recording now (its position in the scorer's list).
    metric: u16,
    /// Stages it declared, and how many it has ended.
    declared: &'static [&'static str],
    ended: usize,
    /// Its first dispatch not yet in an ended stage.
    stage_start: usize,
    /// Whether the program writes the planes only tests read.
    debug: bool,
    /// Whether each dispatch runs alone and is timed ([`build_program`]).
    each_pass: bool,
    /// The first misuse found (reported by [`Recorder::finish`]).
    error: Option<Error>,
}

impl Recorder {
    /// An empty program; `debug`: the one of a debug frame.
    pub(super) fn new(debug: bool) -> Self {
        Self {
            program: Program::default(),
            recorded: Vec::new(),
            stage_ends: Vec::new(),
            metric: 0,
            declared: &[],
            ended: 0,
            stage_start: 0,
            debug,
            each_pass: false,
            error: None,
        }
    }

    /// Whether this is a debug frame's program (float_ssim then also writes
    /// the planes only tests read).
    pub(super) fn debug_writes(&self) -> bool {
        self.debug
    }

    /// Buffer `k` of the metric recording now (its `k`-th [`BufferDecl`]).
    pub(super) fn own(&self, k: usize) -> Buf {
        Buf::Own(self.metric, k as u16)
    }

    /// Buffer `k` the metric recording now keeps for the whole scorer (the
    /// `k`-th of its [`GpuMetric::kept_buffers`]).
    pub(super) fn kept(&self, k: usize) -> Buf {
        Buf::Kept(self.metric, k as u16)
    }

    /// Starts metric `metric`, which declared `stages`.
    pub(super) fn begin_metric(&mut self, metric: usize, stages: &'static [&'static str]) {
        self.metric = metric as u16;
        self.declared = stages;
        self.ended = 0;
        self.stage_start = self.recorded.len();
    }

    /// Ends metric `name`'s recording: it must have ended each stage it
    /// declared.
    pub(super) fn end_metric(&mut self, name: &str) {
        if self.ended != self.declared.len() && self.error.is_none() {
            self.error = Some(Error::Internal(format!(
                "{name} ended {} of its {} stages",
                self.ended,
                self.declared.len()
            )));
        }
    }

    /// Dispatches `kernel` over `extent` invocations (workgroups: the extent
    /// divided by the shader's workgroup size, rounded up) with `buffers` at
    /// its bindings ((binding, buffer): every binding the shader accesses)
    /// and push constants `push` (its block, whole).
    pub(super) fn dispatch(
        &mut self,
        kernel: Kernel,
        extent: [u32; 3],
        buffers: &[(u32, Buf)],
        push: &[u8],
    ) {
        let shader = kernel.shader;
        let table = shader.bindings();
        let mut bindings = buffers.to_vec();
        bindings.sort_by_key(|b| b.0);
        let numbers: Vec<u32> = bindings.iter().map(|b| b.0).collect();
        let want: Vec<u32> = table.iter().map(|b| b.0).collect();
        if numbers != want || push.len() != shader.push_constant_bytes() as usize {
            self.error.get_or_insert(Error::Internal(format!(
                "a dispatch of {} with bindings {numbers:?} and {} push-constant bytes; \
                 the shader has bindings {want:?} and {} bytes",
                shader.as_str(),
                push.len(),
                shader.push_constant_bytes()
            )));
            return;
        }
        let uses = bindings
            .iter()
            .zip(table)
            .map(|(&(_, buf), &(_, access))| (buf, access.writes()))
            .collect();
        let key = SetKey {
            shader: shader.layout_source(),
            bindings,
        };
        let set = match self.program.sets.iter().position(|k| *k == key) {
            Some(k) => k,
            None => {
                self.program.sets.push(key);
                self.program.sets.len() - 1
            }
        };
        let local = shader.local_size();
        let groups = [0, 1, 2].map(|k| groups(extent[k], local[k]));
        self.recorded.push(Recorded {
            kernel,
            groups,
            set,
            push: push.to_vec(),
            uses,
        });
    }

    /// Ends the metric's next declared stage: a timestamp after the
    /// dispatches so far.
    pub(super) fn end_stage(&mut self) {
        let Some(&name) = self.declared.get(self.ended) else {
            self.error.get_or_insert(Error::Internal(
                "a metric ended more stages than it declared".into(),
            ));
            return;
        };
        self.ended += 1;
        let end = self.recorded.len();
        self.stage_ends.push((name, self.stage_start..end));
        self.stage_start = end;
    }

    /// The program (see the module docs), or the first misuse.
    pub(super) fn finish(self) -> Result<Program> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.each_pass {
            return Ok(self.one_pass_a_level().with_stagger());
        }
        let mut program = self.program;
        let mut levels: Vec<usize> = Vec::with_capacity(self.recorded.len());
        for (i, d) in self.recorded.iter().enumerate() {
            let level = (0..i)
                .filter(|&j| d.waits_for(&self.recorded[j]))
                .map(|j| levels[j] + 1)
                .max()
                .unwrap_or(0);
            levels.push(level);
        }
        // A stage ends at the level of its last dispatch to run (one without
        // dispatches, at the first).
        let stage_levels: Vec<usize> = self
            .stage_ends
            .iter()
            .map(|(_, range)| range.clone().map(|i| levels[i]).max().unwrap_or(0))
            .collect();
        // Kept buffers, and the buffers made from a shared reference (by
        // the passes that bind the Ready word), were written or read by
        // submissions before this one.
        let carried = self.recorded.iter().any(|d| {
            d.uses
                .iter()
                .any(|(b, _)| matches!(b, Buf::Kept(..) | Buf::Ready))
        });
        if carried {
            program.steps.push(Step::Barrier);
        }
        let last = levels.iter().chain(&stage_levels).copied().max();
        for level in 0..=last.unwrap_or(0) {
            if level > 0 {
                program.steps.push(Step::Barrier);
            }
            for (d, _) in self
                .recorded
                .iter()
                .zip(&levels)
                .filter(|(_, &l)| l == level)
            {
                program.steps.push(Step::Dispatch {
                    kernel: d.kernel,
                    groups: d.groups,
                    set: d.set,
                    push: d.push.clone(),
                });
            }
            let ending: Vec<&str> = self
                .stage_ends
                .iter()
                .zip(&stage_levels)
                .filter(|(_, &l)| l == level)
                .map(|((name, _), _)| *name)
                .collect();
            if !ending.is_empty() {
                program.steps.push(Step::Stamp(program.stages.len() as u32));
                program.stages.push(ending.join(" + "));
            }
        }
        if last.is_none() {
            program.steps.clear();
        }
        Ok(program.with_stagger())
    }

    /// The program that times each pass: the dispatches in recording
    /// order, each behind a barrier and followed by a stamp named after its
    /// stage and shader (`"vif 0 stats: vif_stats"`).
    fn one_pass_a_level(self) -> Program {
        let mut program = self.program;
        program.each_pass = true;
        for (i, d) in self.recorded.iter().enumerate() {
            let stage = self.stage_ends.iter().find(|(_, r)| r.contains(&i));
            let mut name = match stage {
                Some((stage, _)) => format!("{stage}: {}", d.kernel.shader.as_str()),
                None => d.kernel.shader.as_str().to_string(),
            };
            let repeats = program
                .stages
                .iter()
                .filter(|s| s.starts_with(&name))
                .count();
            if repeats > 0 {
                name = format!("{name} #{}", repeats + 1);
            }
            program.steps.push(Step::Barrier);
            program.steps.push(Step::Dispatch {
                kernel: d.kernel,
                groups: d.groups,
                set: d.set,
                push: d.push.clone(),
            });
            program.steps.push(Step::Stamp(program.stages.len() as u32));
            program.stages.push(name);
        }
        program
    }
}

/// The program of `metrics`, in their order (`debug`: a debug frame's;
/// `each_pass`: each dispatch alone and timed, see the module docs).
pub(super) fn build_program(
    metrics: &[Arc<dyn GpuMetric>],
    debug: bool,
    each_pass: bool,
) -> Result<Program> {
    let mut r = Recorder::new(debug);
    r.each_pass = each_pass;
    for (k, m) in metrics.iter().enumerate() {
        r.begin_metric(k, m.stage_names());
        m.record(&mut r);
        r.end_metric(m.feature());
    }
    r.finish()
}

/// The program that carries a pair's previous reference into the buffers
/// `metrics` keep from frame to frame ([`GpuMetric::record_previous`], in
/// their order, untimed); `None` when none of them keeps anything of a
/// frame for the next.
pub(super) fn build_previous_program(metrics: &[Arc<dyn GpuMetric>]) -> Result<Option<Program>> {
    let mut r = Recorder::new(false);
    for (k, m) in metrics.iter().enumerate() {
        r.begin_metric(k, &[]);
        m.record_previous(&mut r);
        r.end_metric(m.feature());
    }
    let program = r.finish()?;
    Ok((!program.steps.is_empty()).then_some(program))
}

impl VkScorer {
    /// Writes `program` into `cmd` for every slot of `slots`, step by step
    /// (each dispatch for every slot, then the next step), with the
    /// timestamps in `queries` (reset first; one before the first step).
    ///
    /// # Safety
    /// `cmd` must be recording on the compute family; the slots' sets must
    /// have been made for this scorer's program (the same sets as
    /// `program`'s) and, with `queries`, outlive the command buffer.
    pub(super) unsafe fn emit(
        &self,
        cmd: vk::CommandBuffer,
        program: &Program,
        slots: &[usize],
        queries: Option<vk::QueryPool>,
    ) {
        let sets: Vec<&[vk::DescriptorSet]> =
            slots.iter().map(|&i| &self.slots[i].sets[..]).collect();
        // SAFETY: forwarded from this function's contract (each slot's sets
        // are the program's).
        unsafe { self.emit_sets(cmd, program, &sets, queries) }
    }

    /// [`VkScorer::emit`] with each pair's descriptor sets given (one list
    /// per pair, in the order of `program`'s sets).
    ///
    /// # Safety
    /// As [`VkScorer::emit`]: `cmd` recording on the compute family; each
    /// list made for `program`'s sets and outliving the command buffer.
    pub(super) unsafe fn emit_sets(
        &self,
        cmd: vk::CommandBuffer,
        program: &Program,
        pair_sets: &[&[vk::DescriptorSet]],
        queries: Option<vk::QueryPool>,
    ) {
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        if let Some(q) = queries {
            // SAFETY: `cmd` is recording (this function's contract); the pool
            // is this scorer's, sized for the program, and its earlier work is
            // done.
            unsafe {
                d.cmd_reset_query_pool(cmd, q, 0, program.timestamps());
                d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, q, 0);
            }
        }
        // Pair j runs level l of the program at level l + j * stagger of the
        // command buffer; the timestamps are the last pair's.
        let levels = program.levels();
        let stagger = match pair_sets.len() {
            0 | 1 => 0,
            _ => program.stagger(),
        };
        let last = pair_sets.len().saturating_sub(1);
        let span = levels.len() + stagger * last;
        for g in 0..span {
            if g > 0 {
                // SAFETY: `cmd` is recording on the compute family, whose
                // stages the barrier names.
                unsafe { commands::compute_to_compute(gpu, cmd) };
            }
            let running: Vec<(usize, &[Step])> = (0..pair_sets.len())
                .filter_map(|j| {
                    let l = g.checked_sub(stagger * j)?;
                    levels.get(l).map(|&steps| (j, steps))
                })
                .collect();
            if stagger == 0 {
                // Every pair at the same level: each dispatch for every pair
                // (one pipeline bind), then the next.
                let steps = running.first().map_or(&[][..], |r| r.1);
                // SAFETY: forwarded from this function's contract.
                unsafe { self.emit_level(cmd, steps, pair_sets, queries) };
            } else {
                for (j, steps) in running {
                    let stamps = if j == last { queries } else { None };
                    // SAFETY: forwarded from this function's contract.
                    unsafe { self.emit_level(cmd, steps, &pair_sets[j..=j], stamps) };
                }
            }
        }
    }

    /// One level's steps (no barriers) for each pair of `pair_sets`, its
    /// timestamps into `queries`.
    ///
    /// # Safety
    /// As [`VkScorer::emit_sets`].
    unsafe fn emit_level(
        &self,
        cmd: vk::CommandBuffer,
        steps: &[Step],
        pair_sets: &[&[vk::DescriptorSet]],
        queries: Option<vk::QueryPool>,
    ) {
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        for step in steps {
            match step {
                Step::Dispatch {
                    kernel,
                    groups: [x, y, z],
                    set,
                    push,
                } => {
                    // SAFETY: `cmd` is recording on the compute family (this
                    // function's contract); the pipelines and layouts outlive
                    // the command buffer.
                    unsafe { d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, kernel.raw) };
                    for sets in pair_sets {
                        // SAFETY: `cmd` is recording; each pair's set is of the kernel's
                        // layout and bound to its buffers; the push
                        // constants are the layout's range, whole (checked by
                        // the recorder).
                        unsafe {
                            let set = sets[*set];
                            commands::bind_set_and_constants(gpu, cmd, kernel.layout, set, push);
                            d.cmd_dispatch(cmd, *x, *y, *z);
                        }
                    }
                }
                // Levels hold no barriers (`Program::levels`).
                Step::Barrier => {}
                Step::Stamp(k) => {
                    if let Some(q) = queries {
                        // SAFETY: `cmd` is recording; the query lies in the
                        // pool, which `emit_sets` reset first.
                        unsafe {
                            d.cmd_write_timestamp(
                                cmd,
                                vk::PipelineStageFlags::COMPUTE_SHADER,
                                q,
                                k + 1,
                            )
                        };
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
