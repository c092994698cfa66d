//! Scores frames that never leave the GPU: writes two luma planes into
//! `vk::Buffer`s on vkssim's own device with `vkCmdFillBuffer` (no host upload),
//! signals a semaphore, imports them (`Engine::import_buffer`) and scores them
//! through `Scorer::submit`, each pair waiting on that semaphore and signalling
//! another. One pair is read in place
//! (packed rows: zero-copy), one through padded rows at an offset (copied on the
//! device), then a host pair goes through the same scorer. Every score must be
//! bit-identical to the CPU twin's, at 8 and 10 bits, and (with
//! `VKSSIM_VALIDATION=1`) no validation message may appear.
//!
//! Run: `VKSSIM_VALIDATION=1 cargo run -p vkssim --example device_resident [WIDTH HEIGHT]`

mod common;

use ash::vk;
use common::*;
use vkssim::api::ScoreQueue;
use vkssim::api::{DevicePlane, Engine, HostPlane, Pair, SampleFormat, ScorerDesc, SemaphoreRef};
use vkssim::metric::MetricConfig;
use vkssim::SsimOptions;

fn main() {
    if let Err(e) = run() {
        eprintln!("device_resident: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let (width, height) = match args[..] {
        [w, h] => (w, h),
        [] => (352, 288),
        _ => return Err("usage: device_resident [WIDTH HEIGHT]".into()),
    };
    let engine = Engine::new(&vk_options_from_env())?;
    println!("device: {}", engine.device_name());
    for bit_depth in [8, 10] {
        score_on_device(&engine, width, height, bit_depth)?;
    }
    check_validation(&engine.validation_messages());
    Ok(())
}

fn score_on_device(
    engine: &Engine,
    width: u32,
    height: u32,
    bit_depth: u32,
) -> Result<(), Box<dyn std::error::Error>> {
    let h = engine.device_handles();
    let d = &h.device;
    let bps = if bit_depth > 8 { 2u64 } else { 1 };
    let row = width as u64 * bps;
    if row % 4 != 0 {
        return Err(format!("the fill pattern needs rows of a multiple of 4 bytes ({row})").into());
    }
    // Pair 0: packed rows at offset 0 (read in place). Pair 1: rows padded by
    // 64 bytes, starting 256 bytes in (copied on the device first).
    let layouts = [(0u64, row), (256u64, row + 64)];
    let seeds = [(1u32, 1u32), (7, 7)];
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST;
    let ssim = SsimOptions {
        enable_lcs: true,
        ..SsimOptions::default()
    };
    let desc =
        ScorerDesc::new(width, height, bit_depth).with_metrics(vec![MetricConfig::FloatSsim(ssim)]);
    let mut scorer = engine.scorer(&desc)?;
    let format = if bit_depth > 8 {
        SampleFormat::U16
    } else {
        SampleFormat::U8
    };

    // SAFETY: every object below is created on the engine's device, used on its
    // queue through `queue_submit`, and destroyed after the device is done.
    unsafe {
        let mut buffers = Vec::new();
        for &(offset, pitch) in &layouts {
            let size = offset + pitch * height as u64;
            buffers.push([
                create_buffer(
                    &h.instance,
                    h.physical_device,
                    d,
                    size,
                    usage,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                )?,
                create_buffer(
                    &h.instance,
                    h.physical_device,
                    d,
                    size,
                    usage,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                )?,
            ]);
        }
        let (pool, cmd) = command_buffer(d, h.queue_family)?;
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        for (k, &(offset, pitch)) in layouts.iter().enumerate() {
            let (rs, ds) = seeds[k];
            record_fill(d, cmd, buffers[k][0].buffer, offset, pitch, height, |y| {
                row_word(y, rs, bit_depth)
            });
            record_fill(d, cmd, buffers[k][1].buffer, offset, pitch, height, |y| {
                distorted_word(y, ds, bit_depth)
            });
        }
        transfer_to_all(d, cmd);
        d.end_command_buffer(cmd)?;
        let sem = |_| d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None);
        let filled = sem(0)?;
        // A timeline semaphore too, where the engine's device has them.
        let timeline = if engine.supports_timeline_semaphores() {
            let mut kind = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(0);
            Some(d.create_semaphore(
                &vk::SemaphoreCreateInfo::default().push_next(&mut kind),
                None,
            )?)
        } else {
            None
        };
        let scored: Vec<vk::Semaphore> = (0..layouts.len()).map(sem).collect::<Result<_, _>>()?;
        let cmds = [cmd];
        let signal = [filled];
        engine.queue_submit(
            &[vk::SubmitInfo::default()
                .command_buffers(&cmds)
                .signal_semaphores(&signal)],
            vk::Fence::null(),
        )?;

        for (k, &(offset, pitch)) in layouts.iter().enumerate() {
            let plane =
                |b: &RawBuffer| DevicePlane::new(b.buffer, pitch, format).with_offset(offset);
            let mut waits: Vec<SemaphoreRef> = Vec::new();
            let mut signals = vec![SemaphoreRef::binary(scored[k])];
            if k == 0 {
                waits.push(SemaphoreRef::binary(filled));
            } else if let Some(tl) = timeline {
                // The second pair waits for timeline value 1 (set by the
                // host's submission just before it) and sets 2 when scored.
                waits.push(SemaphoreRef::timeline(tl, 1));
                signals.push(SemaphoreRef::timeline(tl, 2));
            }
            if let (1, Some(tl)) = (k, timeline) {
                // The host's work (its decoder, say) sets value 1 first.
                let sems = [tl];
                let values = [1u64];
                let mut info =
                    vk::TimelineSemaphoreSubmitInfo::default().signal_semaphore_values(&values);
                engine.queue_submit(
                    &[vk::SubmitInfo::default()
                        .signal_semaphores(&sems)
                        .push_next(&mut info)],
                    vk::Fence::null(),
                )?;
            }
            let reference = engine.import_buffer(plane(&buffers[k][0]))?;
            let distorted = engine.import_buffer(plane(&buffers[k][1]))?;
            let mut pair = Pair::new(&reference, &distorted);
            for w in waits {
                pair = pair.wait(w);
            }
            for s in signals {
                pair = pair.signal(s);
            }
            scorer.submit(pair)?;
            if let (1, Some(tl)) = (k, timeline) {
                let sems = [tl];
                // The host waits for the score on the GPU timeline.
                let khr = ash::khr::timeline_semaphore::Device::new(&h.instance, d);
                let values = [2u64];
                khr.wait_semaphores(
                    &vk::SemaphoreWaitInfo::default()
                        .semaphores(&sems)
                        .values(&values),
                    10_000_000_000, // 10 s: an error, never a hang
                )?;
                println!("timeline semaphore: the pair waited for 1 and set 2");
            }
        }
        // A host pair through the same scorer.
        let hr = host_plane(width, height, bit_depth, |y| row_word(y, 11, bit_depth));
        let hd = host_plane(width, height, bit_depth, |y| {
            distorted_word(y, 11, bit_depth)
        });
        let (r16, d16) = (as_u16(&hr), as_u16(&hd));
        if bit_depth > 8 {
            scorer.submit(Pair::new(
                HostPlane::u16(&r16, width as usize),
                HostPlane::u16(&d16, width as usize),
            ))?;
        } else {
            scorer.submit(Pair::new(
                HostPlane::u8(&hr.bytes, width as usize),
                HostPlane::u8(&hd.bytes, width as usize),
            ))?;
        }

        let mut scores = Vec::new();
        while let Some(s) = scorer.wait() {
            scores.push(s?);
        }
        // Consume the signalled semaphores so they can be destroyed.
        let fence = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; scored.len()];
        engine.queue_submit(
            &[vk::SubmitInfo::default()
                .wait_semaphores(&scored)
                .wait_dst_stage_mask(&stages)],
            fence,
        )?;
        d.wait_for_fences(&[fence], true, u64::MAX)?;
        drop(scorer);
        d.destroy_fence(fence, None);
        for s in scored.iter().chain([&filled]).chain(timeline.as_ref()) {
            d.destroy_semaphore(*s, None);
        }
        d.destroy_command_pool(pool, None);
        for pair in &buffers {
            for b in pair {
                destroy_buffer(d, b);
            }
        }

        let opts = ssim;
        for (k, (rs, ds)) in seeds.iter().enumerate() {
            let r = host_plane(width, height, bit_depth, |y| row_word(y, *rs, bit_depth));
            let dd = host_plane(width, height, bit_depth, |y| {
                distorted_word(y, *ds, bit_depth)
            });
            let what = if k == 0 {
                "zero-copy"
            } else {
                "padded rows, device copy"
            };
            check(
                &format!("{width}x{height} {bit_depth}-bit device pair {k} ({what})"),
                scores[k].clone(),
                cpu_score(&r, &dd, &opts),
                &opts,
            );
        }
        check(
            &format!("{width}x{height} {bit_depth}-bit host pair on the same scorer"),
            scores[2].clone(),
            cpu_score(&hr, &hd, &opts),
            &opts,
        );
    }
    Ok(())
}
