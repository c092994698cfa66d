//! Command pools and buffers, fences, semaphores, timestamp query pools, the
//! barriers between passes, and binding a pass's descriptor set and push
//! constants.

use ash::vk;

use super::context::Gpu;
use super::errors::{vk_ctx, vk_error};
use crate::Result;

/// A command pool of one queue family whose buffers are reset and resubmitted.
pub(crate) fn create_pool(gpu: &Gpu, family: u32, name: &str) -> Result<vk::CommandPool> {
    let info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(family)
        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    // SAFETY: valid device and create info.
    let pool = unsafe { gpu.device.raw.create_command_pool(&info, None) }
        .map_err(|r| vk_error(r, format!("creating command pool {name}")))?;
    gpu.device.name(pool, name);
    Ok(pool)
}

/// One primary command buffer from `pool`.
pub(crate) fn allocate_command_buffer(
    gpu: &Gpu,
    pool: vk::CommandPool,
    name: &str,
) -> Result<vk::CommandBuffer> {
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the pool is valid and owned by the caller.
    let cmd = unsafe { gpu.device.raw.allocate_command_buffers(&info) }
        .map_err(|r| vk_error(r, format!("allocating command buffer {name}")))?[0];
    gpu.device.name(cmd, name);
    Ok(cmd)
}

/// A fence, signalled at creation when `signaled`.
pub(crate) fn create_fence(gpu: &Gpu, signaled: bool, name: &str) -> Result<vk::Fence> {
    let flags = if signaled {
        vk::FenceCreateFlags::SIGNALED
    } else {
        vk::FenceCreateFlags::empty()
    };
    // SAFETY: valid device and create info.
    let fence = unsafe {
        gpu.device
            .raw
            .create_fence(&vk::FenceCreateInfo::default().flags(flags), None)
    }
    .map_err(|r| vk_error(r, format!("creating fence {name}")))?;
    gpu.device.name(fence, name);
    Ok(fence)
}

/// A binary semaphore.
pub(crate) fn create_semaphore(gpu: &Gpu, name: &str) -> Result<vk::Semaphore> {
    // SAFETY: valid device and create info.
    let s = unsafe {
        gpu.device
            .raw
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
    }
    .map_err(|r| vk_error(r, format!("creating semaphore {name}")))?;
    gpu.device.name(s, name);
    Ok(s)
}

/// A timestamp query pool of `count` queries.
pub(crate) fn create_timestamps(gpu: &Gpu, count: u32, name: &str) -> Result<vk::QueryPool> {
    let info = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::TIMESTAMP)
        .query_count(count);
    // SAFETY: valid device and create info.
    let pool = unsafe { gpu.device.raw.create_query_pool(&info, None) }
        .map_err(|r| vk_error(r, format!("creating query pool {name}")))?;
    gpu.device.name(pool, name);
    Ok(pool)
}

/// Begins recording `cmd` for repeated submission.
pub(crate) fn begin(gpu: &Gpu, cmd: vk::CommandBuffer) -> Result<()> {
    // SAFETY: the command buffer is not pending (its fence was waited on).
    unsafe {
        gpu.device
            .raw
            .begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
    }
    .map_err(vk_ctx("beginning a command buffer"))
}

/// Ends recording `cmd`.
pub(crate) fn end(gpu: &Gpu, cmd: vk::CommandBuffer) -> Result<()> {
    // SAFETY: `cmd` is recording.
    unsafe { gpu.device.raw.end_command_buffer(cmd) }.map_err(vk_ctx("ending a command buffer"))
}

/// The barriers every helper here records: between the `(src, dst)` stages,
/// each kind of barrier in its own list.
///
/// # Safety
/// `cmd` must be a command buffer of this device in the recording state, on a
/// queue family that supports the stages; each barrier must name valid
/// objects of this device.
pub(crate) unsafe fn pipeline_barrier(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    (src, dst): (vk::PipelineStageFlags, vk::PipelineStageFlags),
    memory: &[vk::MemoryBarrier<'_>],
    buffers: &[vk::BufferMemoryBarrier<'_>],
    images: &[vk::ImageMemoryBarrier<'_>],
) {
    // SAFETY: `cmd` is recording and the barriers name valid objects (this
    // function's contract).
    unsafe {
        gpu.device.raw.cmd_pipeline_barrier(
            cmd,
            src,
            dst,
            vk::DependencyFlags::empty(),
            memory,
            buffers,
            images,
        )
    };
}

/// Binds `set` as set 0 of `layout` for compute and pushes `constants` at
/// offset 0 (none for a shader without push constants): what every pass
/// does before its dispatch.
///
/// # Safety
/// `cmd` must be recording on a compute-capable queue family; `set` must be
/// compatible with `layout`, and `constants` within its push-constant range.
pub(crate) unsafe fn bind_set_and_constants(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    layout: vk::PipelineLayout,
    set: vk::DescriptorSet,
    constants: &[u8],
) {
    let d = &gpu.device.raw;
    // SAFETY: per the contract.
    unsafe {
        d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
        if !constants.is_empty() {
            d.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, constants);
        }
    }
}

/// A global memory barrier from `src` to `dst` (stage, access).
///
/// # Safety
/// `cmd` must be a command buffer of this device in the recording state, on a
/// queue family that supports the barrier's stages.
pub(crate) unsafe fn barrier(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    src: (vk::PipelineStageFlags, vk::AccessFlags),
    dst: (vk::PipelineStageFlags, vk::AccessFlags),
) {
    let barriers = [vk::MemoryBarrier::default()
        .src_access_mask(src.1)
        .dst_access_mask(dst.1)];
    // SAFETY: `cmd` is recording (this function's contract); the barrier
    // names no object.
    unsafe { pipeline_barrier(gpu, cmd, (src.0, dst.0), &barriers, &[], &[]) };
}

/// Shader writes of one compute pass made visible to the next pass.
///
/// # Safety
/// `cmd` must be a command buffer of this device in the recording state, on a
/// queue family that supports the barrier's stages.
pub(crate) unsafe fn compute_to_compute(gpu: &Gpu, cmd: vk::CommandBuffer) {
    // SAFETY: `cmd` is recording (this function's contract).
    unsafe {
        barrier(
            gpu,
            cmd,
            (
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_WRITE,
            ),
            (
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
            ),
        )
    };
}

/// Copies (transfer writes) made visible to the compute passes that read them.
///
/// # Safety
/// `cmd` must be a command buffer of this device in the recording state, on a
/// queue family that supports the barrier's stages.
pub(crate) unsafe fn transfer_to_compute(gpu: &Gpu, cmd: vk::CommandBuffer) {
    // SAFETY: `cmd` is recording (this function's contract).
    unsafe {
        barrier(
            gpu,
            cmd,
            (
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
            ),
            (
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_READ,
            ),
        )
    };
}

/// Shader writes made visible to the host.
///
/// # Safety
/// `cmd` must be a command buffer of this device in the recording state, on a
/// queue family that supports the barrier's stages.
pub(crate) unsafe fn compute_to_host(gpu: &Gpu, cmd: vk::CommandBuffer) {
    // SAFETY: `cmd` is recording (this function's contract).
    unsafe {
        barrier(
            gpu,
            cmd,
            (
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_WRITE,
            ),
            (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
        )
    };
}

/// A queue-family ownership transfer of `buffers` (release on the source queue
/// or acquire on the destination queue: record the same barrier on both).
///
/// # Safety
/// `cmd` must be a command buffer of this device in the recording state, on a
/// queue family that supports the barrier's stages.
pub(crate) unsafe fn ownership_barrier(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    buffers: &[vk::Buffer],
    families: (u32, u32),
    release: bool,
) {
    let barriers: Vec<_> = buffers
        .iter()
        .map(|&b| {
            vk::BufferMemoryBarrier::default()
                .src_access_mask(if release {
                    vk::AccessFlags::TRANSFER_WRITE
                } else {
                    vk::AccessFlags::empty()
                })
                .dst_access_mask(if release {
                    vk::AccessFlags::empty()
                } else {
                    vk::AccessFlags::SHADER_READ
                })
                .src_queue_family_index(families.0)
                .dst_queue_family_index(families.1)
                .buffer(b)
                .offset(0)
                .size(vk::WHOLE_SIZE)
        })
        .collect();
    let (src, dst) = if release {
        (
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
        )
    } else {
        (
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::COMPUTE_SHADER,
        )
    };
    // SAFETY: `cmd` is recording (this function's contract); the buffers are
    // the caller's, of this device.
    unsafe { pipeline_barrier(gpu, cmd, (src, dst), &[], &barriers, &[]) };
}

/// Submits `cmd` to `queue`, waits for it with a temporary fence, and returns.
///
/// # Safety
/// `cmd` must be an executable command buffer of this device, not pending,
/// allocated from a pool of `queue`'s family.
pub(crate) unsafe fn submit_and_wait(
    gpu: &Gpu,
    queue: vk::Queue,
    cmd: vk::CommandBuffer,
    what: &str,
) -> Result<()> {
    let fence = create_fence(gpu, false, what)?;
    let cmds = [cmd];
    let submits = [vk::SubmitInfo::default().command_buffers(&cmds)];
    // SAFETY: `cmd` is executable and `fence` unsignalled (the caller's, this
    // function's contract).
    let submitted = unsafe { gpu.submit(queue, &submits, fence) };
    // SAFETY: the fence is of this device, submitted with the work.
    let result =
        submitted.and_then(|_| unsafe { gpu.device.raw.wait_for_fences(&[fence], true, u64::MAX) });
    // SAFETY: the fence is no longer in use (waited on, or never submitted).
    unsafe { gpu.device.raw.destroy_fence(fence, None) };
    result.map_err(|r| vk_error(r, what.to_string()))
}
