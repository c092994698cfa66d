//! Device-resident test pairs: planes of the engine's device written by the
//! GPU (`device_pairs`), the CPU twin's score of each (`want_for`), and
//! their submission mixed with host pairs (`submit_in_order`).
//! Shared by the API tests that import them (tests/api.rs,
//! tests/api_device_ring.rs); the including crate has `mod common` (the
//! examples' Vulkan helpers).

use super::common;
use vkssim::api::ScoreQueue;
use vkssim::api::{DevicePlane, Engine, HostPlane, ImportedPlane, Pair, SampleFormat, Scorer};
use vkssim::{testing::cpu, FrameScore, LumaFrame, SsimOptions};

/// Buffers of the engine's device holding GPU-written planes.
pub struct DevicePair {
    pub bufs: [common::RawBuffer; 2],
    pub offset: u64,
    pub pitch: u64,
    pub seed: u32,
}

/// Creates and fills (on the GPU) pairs of `w x h` 8-bit planes at the given
/// (offset, row pitch, seed).
pub fn device_pairs(
    engine: &Engine,
    w: u32,
    h: u32,
    layouts: &[(u64, u64, u32)],
) -> Vec<DevicePair> {
    use ash::vk;
    let hd = engine.device_handles();
    let d = &hd.device;
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST;
    // SAFETY: objects of the engine's device, submitted through the engine and
    // waited for before returning.
    unsafe {
        let mut pairs = Vec::new();
        for &(offset, pitch, seed) in layouts {
            let size = offset + pitch * h as u64;
            let mk = || {
                common::create_buffer(
                    &hd.instance,
                    hd.physical_device,
                    d,
                    size,
                    usage,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                )
                .expect("buffer")
            };
            pairs.push(DevicePair {
                bufs: [mk(), mk()],
                offset,
                pitch,
                seed,
            });
        }
        let (pool, cmd) = common::command_buffer(d, hd.queue_family).expect("commands");
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
            .expect("begin");
        for p in &pairs {
            let s = p.seed;
            common::record_fill(d, cmd, p.bufs[0].buffer, p.offset, p.pitch, h, |y| {
                common::row_word(y, s, 8)
            });
            common::record_fill(d, cmd, p.bufs[1].buffer, p.offset, p.pitch, h, |y| {
                common::distorted_word(y, s, 8)
            });
        }
        common::transfer_to_all(d, cmd);
        d.end_command_buffer(cmd).expect("end");
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .expect("fence");
        let cmds = [cmd];
        engine
            .queue_submit(&[vk::SubmitInfo::default().command_buffers(&cmds)], fence)
            .expect("submit");
        d.wait_for_fences(&[fence], true, u64::MAX).expect("wait");
        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
        let _ = w;
        pairs
    }
}

pub fn destroy_pairs(engine: &Engine, pairs: &[DevicePair]) {
    let hd = engine.device_handles();
    for p in pairs {
        for b in &p.bufs {
            // SAFETY: the scorer that read them has waited for its work.
            unsafe { common::destroy_buffer(&hd.device, b) };
        }
    }
}

pub fn want_for(w: u32, h: u32, seed: u32, opts: &SsimOptions) -> FrameScore {
    let r = common::host_plane(w, h, 8, |y| common::row_word(y, seed, 8));
    let d = common::host_plane(w, h, 8, |y| common::distorted_word(y, seed, 8));
    cpu::score_frame(&r.view(), &d.view(), opts).unwrap()
}

/// Imports both planes of every pair (8-bit, at the pair's offset and pitch).
///
/// # Safety
/// The pairs' buffers must hold their planes and outlive every use of the
/// imports (the scorers that read them, until their work is done).
pub unsafe fn import_pairs(engine: &Engine, pairs: &[DevicePair]) -> Vec<[ImportedPlane; 2]> {
    pairs
        .iter()
        .map(|p| {
            [0, 1].map(|k| {
                let plane = DevicePlane::new(p.bufs[k].buffer, p.pitch, SampleFormat::U8)
                    .with_offset(p.offset);
                // SAFETY: forwarded from this function's contract.
                unsafe { engine.import_buffer(plane) }.expect("import")
            })
        })
        .collect()
}

/// Submits imported pair `k` for each `k` of `order` (9: `host`, a host
/// pair instead), taking results as they come; every result, in order.
pub fn submit_in_order(
    scorer: &mut Scorer,
    imports: &[[ImportedPlane; 2]],
    order: &[usize],
    host: [&LumaFrame; 2],
) -> Vec<FrameScore> {
    let mut got = Vec::new();
    for &k in order {
        if k == 9 {
            let [r, d] = host.map(|f| HostPlane::u8(&f.bytes, f.width as usize));
            scorer.submit(Pair::new(r, d)).expect("host pair");
        } else {
            let [r, d] = &imports[k];
            scorer.submit(Pair::new(r, d)).expect("device pair");
        }
        while let Some(s) = scorer.poll() {
            got.push(s.expect("result"));
        }
    }
    while let Some(s) = scorer.wait() {
        got.push(s.expect("result"));
    }
    assert_eq!(got.len(), order.len());
    got
}

/// Scores the host pair `[r, d]` through one frame slot of `scorer` (the
/// readers' path): its planes written in place, submitted, its result.
pub fn score_in_slot(scorer: &mut Scorer, [r, d]: [&LumaFrame; 2]) -> FrameScore {
    let mut slots = scorer.slots();
    let mut slot = slots.acquire().expect("acquire");
    let (a, b) = slot.planes_mut();
    a.copy_from_slice(&r.bytes);
    b.copy_from_slice(&d.bytes);
    slots.submit(slot).expect("submit");
    slots.wait().expect("a result").expect("score")
}
