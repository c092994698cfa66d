//! Where a ladder's GPU time goes: `--rungs K` scorers of VMAF's default
//! model share each frame's reference plane (`SharedPlanes`), submitted in
//! turn from one thread, so that rung 0's pair is always the one that makes
//! the planes ADM derives from the reference (it is on the queue
//! before the others ask) and the other rungs' pairs read them. Prints each
//! rung's pairs that made and read those planes, its mean GPU time per pass
//! over the timed pairs (`Scorer::take_gpu_pass_ns`; each pass alone with
//! `--each-pass`, else the levels of passes side by side) and its GPU busy
//! time per pair; then the same with every rung's reference copied into its
//! own slot (no shared plane, nothing shared). The reference and the
//! distorted frames are generated (deterministic rows) and uploaded from the
//! host; this times the device, not the host.
//!
//! Build: `cargo build --release -p vkssim --example ladder_passes`
//! Run:   `target/release/examples/ladder_passes [--width 3840] [--height 2160]
//!         [--rungs 4] [--frames 40] [--each-pass]`

mod common;

use common::{distorted_word, host_plane, row_word, vk_options_from_env};
use vkssim::api::{Engine, ScoreQueue, Scorer, ScorerDesc, SharedPlane};
use vkssim::metric::Models;
use vkssim::LumaFrame;

struct Args {
    width: u32,
    height: u32,
    rungs: usize,
    frames: u32,
    each_pass: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        width: 3840,
        height: 2160,
        rungs: 4,
        frames: 40,
        each_pass: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--each-pass" {
            a.each_pass = true;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let n: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: not a number: {value}"))?;
        match flag.as_str() {
            "--width" => a.width = n.clamp(16, 8192) as u32,
            "--height" => a.height = n.clamp(16, 8192) as u32,
            "--rungs" => a.rungs = n.clamp(1, 16) as usize,
            "--frames" => a.frames = n.clamp(2, 100_000) as u32,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

/// Submits one pair to `scorer`: its reference `shared`, or `reference`
/// copied into the slot.
fn submit(
    scorer: &mut Scorer,
    shared: Option<&SharedPlane>,
    reference: &LumaFrame,
    distorted: &LumaFrame,
) -> vkssim::Result<()> {
    let mut slots = scorer.slots();
    let mut slot = slots.acquire()?;
    match shared {
        Some(plane) => {
            slot.share_reference(plane)?;
            slot.distorted_mut().copy_from_slice(&distorted.bytes);
        }
        None => {
            let (a, b) = slot.planes_mut();
            a.copy_from_slice(&reference.bytes);
            b.copy_from_slice(&distorted.bytes);
        }
    }
    slots.submit(slot)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let (w, h) = (args.width, args.height);
    let engine = Engine::new(&vk_options_from_env().with_time_each_pass(args.each_pass))?;
    let desc = ScorerDesc::new(w, h, 8)
        .with_models(Models::default_model()?)
        .with_frames_in_flight(8);
    let planes = engine.shared_planes(&desc)?;
    let refs: Vec<LumaFrame> = (0..4)
        .map(|s| host_plane(w, h, 8, |y| row_word(y, s, 8)))
        .collect();
    let dist: Vec<LumaFrame> = (0..args.rungs as u32)
        .map(|s| host_plane(w, h, 8, |y| distorted_word(y, 10 + s, 8)))
        .collect();
    for shared in [true, false] {
        let mut scorers: Vec<Scorer> = (0..args.rungs)
            .map(|_| engine.scorer(&desc))
            .collect::<vkssim::Result<_>>()?;
        for k in 0..args.frames {
            let r = &refs[k as usize % refs.len()];
            let plane = if shared {
                let mut writer = planes.take()?;
                writer.bytes_mut().copy_from_slice(&r.bytes);
                Some(writer.share())
            } else {
                None
            };
            for (rung, scorer) in scorers.iter_mut().enumerate() {
                submit(scorer, plane.as_ref(), r, &dist[rung])?;
                while let Some(s) = scorer.poll() {
                    s?;
                }
            }
        }
        println!(
            "{}x{} VMAF, {} rungs, {} frames, reference {}:",
            w,
            h,
            args.rungs,
            args.frames,
            if shared {
                "shared"
            } else {
                "copied into each slot"
            }
        );
        for (rung, scorer) in scorers.iter_mut().enumerate() {
            scorer.finish();
            while let Some(s) = scorer.wait() {
                s?;
            }
            let host = scorer.diagnostics().ok_or("not a Vulkan scorer")?.host;
            let busy = host.gpu_busy_ns / host.gpu_frames.max(1) as f64 / 1e3;
            let passes = scorer.take_gpu_pass_ns().unwrap_or_default();
            let shown: Vec<String> = passes
                .iter()
                .filter(|(n, _)| n.contains("decimate") || n.contains("dwt") || n == "total")
                .map(|(n, ns)| format!("{n} {:.1}", ns / 1e3))
                .collect();
            println!(
                "  rung {rung}: made {} read {}; GPU busy {busy:.1} us a pair; {}",
                host.shared_reference_makes,
                host.shared_reference_reads,
                shown.join(", ")
            );
        }
    }
    Ok(())
}
