//! Helpers shared by the examples: deterministic test planes that the GPU can
//! write with `vkCmdFillBuffer` (so device-resident frames never pass through
//! the host) and their host twins, raw Vulkan buffers and one-shot command
//! buffers, and an exact comparison against the CPU twin.

#![allow(dead_code)]

pub mod frames;
pub mod host;

use ash::vk;
use vkssim::{FrameScore, LumaFrame, SsimOptions};

/// Engine options with the Khronos validation layer on when
/// `VKSSIM_VALIDATION=1` (the library reads no environment variable; an
/// application, like these examples, may).
pub fn vk_options_from_env() -> vkssim::vk::VkOptions {
    vkssim::vk::VkOptions::default()
        .with_validation(std::env::var("VKSSIM_VALIDATION").is_ok_and(|v| v == "1"))
}

/// The 32-bit word repeated along row `y` of plane `seed`: four 8-bit samples
/// or two 16-bit samples, kept within `bit_depth`.
pub fn row_word(y: u32, seed: u32, bit_depth: u32) -> u32 {
    let mut h = y.wrapping_mul(0x9E37_79B9) ^ seed.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    if bit_depth <= 8 {
        h
    } else {
        let mask = (1u32 << bit_depth) - 1;
        (h & mask) | (((h >> 16) & mask) << 16)
    }
}

/// The distorted twin of [`row_word`]: the same rows, some of them changed.
pub fn distorted_word(y: u32, seed: u32, bit_depth: u32) -> u32 {
    if y % 3 == 0 {
        row_word(y, seed ^ 0x5555, bit_depth)
    } else {
        row_word(y, seed, bit_depth)
    }
}

/// A packed host plane whose row `y` repeats `word(y)`.
pub fn host_plane(width: u32, height: u32, bit_depth: u32, word: impl Fn(u32) -> u32) -> LumaFrame {
    let mut f = LumaFrame::zeroed(width, height, bit_depth);
    let row = f.row_bytes();
    for y in 0..height {
        let w = word(y).to_le_bytes();
        for (i, b) in f.bytes[y as usize * row..(y as usize + 1) * row]
            .iter_mut()
            .enumerate()
        {
            *b = w[i % 4];
        }
    }
    f
}

/// The samples of a packed host plane as 16-bit words (for `HostPlane::u16`).
pub fn as_u16(f: &LumaFrame) -> Vec<u16> {
    f.bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// A buffer with its own memory.
pub struct RawBuffer {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    pub size: u64,
}

/// Creates a buffer of `size` bytes with `usage` in memory with `props`.
///
/// # Safety
/// The handles must be valid and belong together.
pub unsafe fn create_buffer(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    device: &ash::Device,
    size: u64,
    usage: vk::BufferUsageFlags,
    props: vk::MemoryPropertyFlags,
) -> Result<RawBuffer, vk::Result> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buffer = device.create_buffer(&info, None)?;
        let req = device.get_buffer_memory_requirements(buffer);
        let mem = instance.get_physical_device_memory_properties(physical_device);
        let Some(type_index) = (0..mem.memory_type_count).find(|&i| {
            req.memory_type_bits & (1 << i) != 0
                && mem.memory_types[i as usize].property_flags.contains(props)
        }) else {
            device.destroy_buffer(buffer, None);
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        };
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        let memory = device.allocate_memory(&alloc, None)?;
        device.bind_buffer_memory(buffer, memory, 0)?;
        Ok(RawBuffer {
            buffer,
            memory,
            size,
        })
    }
}

/// Destroys a buffer and frees its memory.
///
/// # Safety
/// The device must no longer use the buffer.
pub unsafe fn destroy_buffer(device: &ash::Device, b: &RawBuffer) {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        device.destroy_buffer(b.buffer, None);
        device.free_memory(b.memory, None);
    }
}

/// Records, into `cmd`, the writes of a plane whose row `y` repeats `word(y)`:
/// `height` rows `row_pitch` bytes apart from `offset` (both multiples of 4),
/// padding included. The host never touches the samples.
///
/// # Safety
/// `cmd` must be recording; the buffer must hold the plane and have
/// `TRANSFER_DST` usage.
pub unsafe fn record_fill(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: u64,
    row_pitch: u64,
    height: u32,
    word: impl Fn(u32) -> u32,
) {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        for y in 0..height {
            device.cmd_fill_buffer(
                cmd,
                buffer,
                offset + y as u64 * row_pitch,
                row_pitch,
                word(y),
            );
        }
    }
}

/// A command pool on `family` and one primary command buffer from it.
///
/// # Safety
/// The device must be valid.
pub unsafe fn command_buffer(
    device: &ash::Device,
    family: u32,
) -> Result<(vk::CommandPool, vk::CommandBuffer), vk::Result> {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let pool = device.create_command_pool(
            &vk::CommandPoolCreateInfo::default()
                .queue_family_index(family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
            None,
        )?;
        let cmd = device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1),
        )?[0];
        Ok((pool, cmd))
    }
}

/// A global barrier from transfer writes to every later access.
///
/// # Safety
/// `cmd` must be recording.
pub unsafe fn transfer_to_all(device: &ash::Device, cmd: vk::CommandBuffer) {
    // SAFETY: the caller upholds this function's `# Safety` contract.
    unsafe {
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)];
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &barrier,
            &[],
            &[],
        );
    }
}

/// The CPU twin's score of a pair (itself bit-identical to libvmaf).
pub fn cpu_score(r: &LumaFrame, d: &LumaFrame, opts: &SsimOptions) -> FrameScore {
    vkssim::testing::cpu::score_frame(&r.view(), &d.view(), opts).expect("CPU twin")
}

/// Exits with an error unless `got` equals `want` bit for bit (l, c and s are
/// present in both exactly when `enable_lcs` asked for them).
pub fn check(label: &str, got: FrameScore, want: FrameScore, opts: &SsimOptions) {
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
    let lcs_bits = |s: &FrameScore| s.lcs().map(|v| v.map(f64::to_bits));
    let db_same = match (got.db(), want.db()) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    };
    if !(same(got.ssim(), want.ssim())
        && lcs_bits(&got) == lcs_bits(&want)
        && got.lcs().is_some() == opts.enable_lcs
        && db_same)
    {
        eprintln!("{label}: GPU {got:?} differs from the CPU twin {want:?}");
        std::process::exit(1);
    }
    println!(
        "{label}: float_ssim {:.17} (bit-identical to the CPU twin)",
        got.float_ssim()
    );
}

/// Exits with an error if any validation message was collected.
pub fn check_validation(messages: &[String]) {
    if !messages.is_empty() {
        for m in messages {
            eprintln!("validation: {m}");
        }
        eprintln!("{} validation message(s)", messages.len());
        std::process::exit(1);
    }
}
