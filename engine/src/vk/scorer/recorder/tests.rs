//! The recorder's unit tests: barriers and levels from the hazards, stamps
//! and their names, passes timed alone, misuse refused.

use super::*;
use crate::vk::shaders::binding;

/// A program's steps as short strings: a barrier "b", stamp k "sk", a
/// dispatch as `dispatch` writes it from its set and workgroup counts.
fn step_kinds(p: &Program, dispatch: impl Fn(usize, [u32; 3]) -> String) -> Vec<String> {
    p.steps
        .iter()
        .map(|s| match s {
            Step::Dispatch { groups, set, .. } => dispatch(*set, *groups),
            Step::Barrier => "b".into(),
            Step::Stamp(k) => format!("s{k}"),
        })
        .collect()
}

fn kernel(shader: ShaderName) -> Kernel {
    Kernel {
        shader,
        raw: vk::Pipeline::null(),
        layout: vk::PipelineLayout::null(),
    }
}

/// Barriers only where a buffer written since the last one is read or
/// written, or one read is written; group counts from the table.
#[test]
fn barriers_follow_the_hazards_and_groups_the_table() {
    let mut r = Recorder::new(false);
    r.begin_metric(0, &["a", "b"]);
    let (a, b, c) = (r.own(0), r.own(1), r.own(2));
    let push = [0u8; 16];
    let lowpass = kernel(ShaderName::Lowpass);
    let src = binding::lowpass::SRC;
    let dst = binding::lowpass::DST;
    r.dispatch(lowpass, [33, 16, 2], &[(src, a), (dst, b)], &push);
    // Reads b, written above: a barrier.
    r.dispatch(lowpass, [8, 8, 2], &[(src, b), (dst, c)], &push);
    r.end_stage();
    // Reads a (only read so far) and writes b (read since the barrier:
    // write after read): a barrier.
    r.dispatch(lowpass, [8, 8, 2], &[(dst, b), (src, a)], &push);
    r.end_stage();
    r.end_metric("test");
    let p = r.finish().unwrap();
    let kinds = step_kinds(&p, |set, groups| format!("d{set}{groups:?}"));
    assert_eq!(
        kinds,
        [
            "d0[3, 1, 2]",
            "b",
            "d1[1, 1, 2]",
            "s0",
            "b",
            "d0[1, 1, 2]",
            "s1"
        ]
    );
    assert_eq!(p.stages, ["a", "b"]);
    assert_eq!(p.sets.len(), 2);
    assert_eq!(p.timestamps(), 3);
    assert_eq!(p.descriptors(), 4);
}

/// Two metrics that share no buffer they write run side by side: each
/// dispatch at the level its own hazards allow, one barrier per level,
/// and a stamp after each level where stages end, named after them.
#[test]
fn metrics_run_side_by_side_level_by_level() {
    let mut r = Recorder::new(false);
    let push = [0u8; 16];
    let lowpass = kernel(ShaderName::Lowpass);
    let (src, dst) = (binding::lowpass::SRC, binding::lowpass::DST);
    r.begin_metric(0, &["a1", "a2", "a3"]);
    let (a, b, c, d) = (r.own(0), r.own(1), r.own(2), r.own(3));
    r.dispatch(lowpass, [8, 8, 1], &[(src, a), (dst, b)], &push);
    r.end_stage();
    r.dispatch(lowpass, [8, 8, 1], &[(src, b), (dst, c)], &push);
    r.end_stage();
    r.dispatch(lowpass, [8, 8, 1], &[(src, c), (dst, d)], &push);
    r.end_stage();
    r.end_metric("first");
    r.begin_metric(1, &["b1", "b2"]);
    let (e, f) = (r.own(0), r.own(1));
    // Reads what the first metric reads: no hazard, level 0.
    r.dispatch(lowpass, [16, 16, 1], &[(src, a), (dst, e)], &push);
    r.end_stage();
    r.dispatch(lowpass, [16, 16, 1], &[(src, e), (dst, f)], &push);
    r.end_stage();
    r.end_metric("second");
    let p = r.finish().unwrap();
    let kinds = step_kinds(&p, |_, groups| format!("d{}", groups[0]));
    assert_eq!(
        kinds,
        ["d1", "d1", "s0", "b", "d1", "d1", "s1", "b", "d1", "s2"]
    );
    assert_eq!(p.stages, ["a1 + b1", "a2 + b2", "a3"]);
    assert_eq!(p.timestamps(), 4);
}

/// Timing each pass: every dispatch behind a barrier, a stamp after
/// each named after its stage and shader, a repeat numbered.
#[test]
fn each_pass_runs_alone_and_is_named() {
    let mut r = Recorder::new(false);
    r.each_pass = true;
    let push = [0u8; 16];
    let lowpass = kernel(ShaderName::Lowpass);
    let (src, dst) = (binding::lowpass::SRC, binding::lowpass::DST);
    r.begin_metric(0, &["a", "b"]);
    let (a, b, c, d) = (r.own(0), r.own(1), r.own(2), r.own(3));
    r.dispatch(lowpass, [8, 8, 1], &[(src, a), (dst, b)], &push);
    r.dispatch(lowpass, [8, 8, 1], &[(src, a), (dst, c)], &push);
    r.end_stage();
    r.dispatch(lowpass, [8, 8, 1], &[(src, c), (dst, d)], &push);
    r.end_stage();
    r.end_metric("test");
    let p = r.finish().unwrap();
    let kinds = step_kinds(&p, |_, _| "d".into());
    assert_eq!(kinds, ["b", "d", "s0", "b", "d", "s1", "b", "d", "s2"]);
    assert_eq!(p.stages, ["a: lowpass", "a: lowpass #2", "b: lowpass"]);
    assert_eq!(p.timestamps(), 4);
}

/// The first dispatch that binds a kept buffer waits behind a barrier
/// (earlier frames wrote it); later ones only for their own hazards.
#[test]
fn a_kept_buffer_is_first_bound_behind_a_barrier() {
    let mut r = Recorder::new(false);
    r.begin_metric(0, &["a"]);
    let (kept, a, b) = (r.kept(0), r.own(0), r.own(1));
    let push = [0u8; 16];
    let lowpass = kernel(ShaderName::Lowpass);
    let (src, dst) = (binding::lowpass::SRC, binding::lowpass::DST);
    r.dispatch(lowpass, [8, 8, 1], &[(src, kept), (dst, a)], &push);
    r.dispatch(lowpass, [8, 8, 1], &[(src, kept), (dst, b)], &push);
    r.end_stage();
    r.end_metric("test");
    let p = r.finish().unwrap();
    let kinds = step_kinds(&p, |_, _| "d".into());
    assert_eq!(kinds, ["b", "d", "d", "s0"]);
}

/// A program whose passes bind the Ready word (they make buffers from the
/// reference, which a shared reference's earlier submissions wrote or
/// read) starts behind a barrier, with no kept buffer.
#[test]
fn a_pass_binding_the_ready_word_runs_behind_a_barrier() {
    let mut r = Recorder::new(false);
    r.begin_metric(0, &["a"]);
    let dwt = kernel(ShaderName::AdmDwt);
    let push = vec![0u8; ShaderName::AdmDwt.push_constant_bytes() as usize];
    use binding::adm_dwt as b;
    let bufs = [
        (b::PREV_REF, r.own(0)),
        (b::PREV_DIST, r.own(1)),
        (b::BANDS_REF, r.own(2)),
        (b::BANDS_DIST, r.own(3)),
        (b::REFERENCE_READY, Buf::Ready),
    ];
    r.dispatch(dwt, [1, 8, 2], &bufs, &push);
    r.end_stage();
    r.end_metric("test");
    let p = r.finish().unwrap();
    assert_eq!(step_kinds(&p, |_, _| "d".into()), ["b", "d", "s0"]);
}

/// A dispatch whose buffers are not its shader's bindings, a stage not
/// declared or one left out is refused.
#[test]
fn misuse_is_refused() {
    let push = [0u8; 16];
    let lowpass = kernel(ShaderName::Lowpass);
    let mut r = Recorder::new(false);
    r.begin_metric(0, &[]);
    let a = r.own(0);
    r.dispatch(lowpass, [1, 1, 1], &[(binding::lowpass::SRC, a)], &push);
    assert!(r.finish().is_err());
    let mut r = Recorder::new(false);
    r.begin_metric(0, &[]);
    let (a, b) = (r.own(0), r.own(1));
    let bufs = [(binding::lowpass::SRC, a), (binding::lowpass::DST, b)];
    r.dispatch(lowpass, [1, 1, 1], &bufs, &[0u8; 12]);
    assert!(r.finish().is_err());
    let mut r = Recorder::new(false);
    r.begin_metric(0, &[]);
    r.end_stage();
    assert!(r.finish().is_err());
    let mut r = Recorder::new(false);
    r.begin_metric(0, &["x"]);
    r.end_metric("test");
    assert!(r.finish().is_err());
}

/// A batch staggers its pairs by the span of the levels that bind a kept
/// buffer some dispatch writes, and not at all for kept buffers that are
/// only read.
#[test]
fn the_stagger_covers_the_levels_that_use_a_written_kept_buffer() {
    let push = [0u8; 16];
    let lowpass = kernel(ShaderName::Lowpass);
    let (src, dst) = (binding::lowpass::SRC, binding::lowpass::DST);
    let program = |kept_written: bool| {
        let mut r = Recorder::new(false);
        r.begin_metric(0, &["a"]);
        let (a, b, c, table) = (r.own(0), r.own(1), r.own(2), r.kept(0));
        if kept_written {
            // Reads the kept buffer, then writes it from what it read.
            r.dispatch(lowpass, [8, 8, 1], &[(src, table), (dst, a)], &push);
            r.dispatch(lowpass, [8, 8, 1], &[(src, a), (dst, table)], &push);
        } else {
            r.dispatch(lowpass, [8, 8, 1], &[(src, table), (dst, a)], &push);
        }
        r.dispatch(lowpass, [8, 8, 1], &[(src, a), (dst, b)], &push);
        r.dispatch(lowpass, [8, 8, 1], &[(src, b), (dst, c)], &push);
        r.end_stage();
        r.end_metric("test");
        r.finish().unwrap()
    };
    // Levels: the leading barrier's empty one, then reads the table and
    // writes a; writes the table and b (both read a); c.
    let written = program(true);
    assert_eq!(written.levels().len(), 4);
    assert_eq!(written.stagger(), 2);
    // The table only read: no stagger, though a barrier still leads.
    let read = program(false);
    assert_eq!(read.levels().len(), 4);
    assert_eq!(read.stagger(), 0);
    // One level that reads and writes a kept buffer: the pairs run one
    // level apart.
    let mut r = Recorder::new(false);
    r.begin_metric(0, &["a"]);
    let (a, b, table) = (r.own(0), r.own(1), r.kept(0));
    r.dispatch(lowpass, [8, 8, 1], &[(src, a), (dst, table)], &push);
    r.dispatch(lowpass, [8, 8, 1], &[(src, a), (dst, b)], &push);
    r.end_stage();
    r.end_metric("test");
    let one = r.finish().unwrap();
    assert_eq!(one.levels().len(), 2);
    assert_eq!(one.stagger(), 1);
}
