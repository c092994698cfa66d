//! Device-resident planes that are not plain packed buffers: luma in a host
//! `VkImage` (plane 0 of a multi-planar image, or a single-plane one), and
//! buffers in `EXCLUSIVE` sharing owned by another queue family. Each becomes
//! one device copy into a slot's packed raw buffer (`vkCmdCopyImageToBuffer`
//! or `vkCmdCopyBuffer`; never through the host), recorded in the slot's
//! prologue (`super::scorer::external`), between the queue-family ownership
//! acquire and release and the image layout transitions:
//!
//! 1. acquire from the host's family (when it differs from the engine's): a
//!    barrier with `oldLayout = newLayout =` the current layout, matching the
//!    release the host recorded on its own queue;
//! 2. transition to `TRANSFER_SRC_OPTIMAL`, copy, transition to the layout the
//!    host asked to get back;
//! 3. release to the host's family (`oldLayout = newLayout =` that layout),
//!    which the host matches with an acquire after the pair's signal.
//!
//! MSB-aligned samples (`R10X6`, `R12X4` and their multi-planar kin) are
//! shifted down exactly (`>> 6`, `>> 4`) by `glsl/msb_shift.comp` on the packed
//! copy, so the passes see the values libvmaf reads.

use ash::vk;

use super::commands;
use super::context::Gpu;
use super::pipeline::{self, groups, Kernel, Pipelines};
use super::scorer::ExternalPlane;
use super::shaders::{binding, ShaderName};
use crate::Result;

/// Plane 0 of a host image (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExternalImage {
    pub(crate) image: vk::Image,
    /// The aspect copied: `COLOR` (single-plane formats) or `PLANE_0`
    /// (multi-planar; barriers cover all planes).
    pub(crate) aspect: vk::ImageAspectFlags,
    pub(crate) array_layer: u32,
    /// The layout the image is in when the pair's work starts.
    pub(crate) layout: vk::ImageLayout,
    /// The layout the pair's work leaves it in.
    pub(crate) final_layout: vk::ImageLayout,
    /// The family to acquire from and release to; `None`: no transfer.
    pub(crate) owner: Option<u32>,
    /// Right shift of each 16-bit sample (0, 4 or 6).
    pub(crate) shift: u32,
}

/// Where one plane of a device-resident pair comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExternalSource {
    /// A host buffer; `owner`: the family it is acquired from and released
    /// back to (`EXCLUSIVE` sharing), `None` when no transfer is needed.
    Buffer {
        plane: ExternalPlane,
        owner: Option<u32>,
    },
    /// Plane 0 of a host image.
    Image(ExternalImage),
}

impl From<ExternalPlane> for ExternalSource {
    fn from(plane: ExternalPlane) -> Self {
        ExternalSource::Buffer { plane, owner: None }
    }
}

impl ExternalSource {
    /// The buffer to read in place, if this source may be.
    pub(crate) fn in_place(&self) -> Option<&ExternalPlane> {
        match self {
            ExternalSource::Buffer { plane, owner: None } => Some(plane),
            _ => None,
        }
    }

    /// Right shift of each sample after the copy.
    pub(crate) fn shift(&self) -> u32 {
        match self {
            ExternalSource::Image(i) => i.shift,
            ExternalSource::Buffer { .. } => 0,
        }
    }
}

/// The size of a packed plane being fetched.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlaneSize {
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// `width` times bytes per sample.
    pub(crate) row_bytes: u64,
}

/// Records the fetch of `src` into the packed buffer `dst` (`row_bytes *
/// height` bytes): acquire, transitions, one copy, release (module docs).
/// `family` is the engine's queue family (the one `cmd` records for).
///
/// # Safety
/// `cmd` must be a command buffer of this device recording on `family`; `src`
/// and `dst` must be valid objects of this device.
pub(crate) unsafe fn record_fetch(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    src: &ExternalSource,
    dst: vk::Buffer,
    size: PlaneSize,
    family: u32,
) {
    let d = &gpu.device.raw;
    match src {
        ExternalSource::Buffer { plane: p, owner } => {
            // Ownership moves for the whole buffer (what the host's matching
            // barriers name too).
            let whole = |b: vk::BufferMemoryBarrier<'static>| {
                b.buffer(p.buffer).offset(0).size(vk::WHOLE_SIZE)
            };
            if let Some(owner) = *owner {
                let acquire = whole(
                    vk::BufferMemoryBarrier::default()
                        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                        .src_queue_family_index(owner)
                        .dst_queue_family_index(family),
                );
                // SAFETY: `cmd` is recording on the engine's family and the barrier names the host's plane (this function's contract).
                unsafe { buffer_barrier(gpu, cmd, acquire, vk::PipelineStageFlags::TRANSFER) };
            }
            let regions: Vec<vk::BufferCopy> = if p.row_pitch == size.row_bytes {
                vec![vk::BufferCopy::default()
                    .src_offset(p.offset)
                    .dst_offset(0)
                    .size(size.row_bytes * size.height as u64)]
            } else {
                (0..size.height as u64)
                    .map(|y| {
                        vk::BufferCopy::default()
                            .src_offset(p.offset + y * p.row_pitch)
                            .dst_offset(y * size.row_bytes)
                            .size(size.row_bytes)
                    })
                    .collect()
            };
            // SAFETY: `cmd` is recording; the caller vouched that the host
            // buffer holds the plane; `dst` holds `row_bytes * height` bytes.
            unsafe { d.cmd_copy_buffer(cmd, p.buffer, dst, &regions) };
            if let Some(owner) = *owner {
                let release = whole(
                    vk::BufferMemoryBarrier::default()
                        .src_queue_family_index(family)
                        .dst_queue_family_index(owner),
                );
                // SAFETY: `cmd` is recording on the engine's family and the barrier names the host's plane (this function's contract).
                unsafe {
                    buffer_barrier(gpu, cmd, release, vk::PipelineStageFlags::BOTTOM_OF_PIPE)
                };
            }
        }
        ExternalSource::Image(img) => {
            // Barriers cover the whole image (every plane): a multi-planar
            // image that is not disjoint takes only COLOR there, and the host
            // states one layout and owner for the whole frame.
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .base_mip_level(0)
                .level_count(1)
                .base_array_layer(img.array_layer)
                .layer_count(1);
            let barrier = |old, new, families: Option<(u32, u32)>| {
                let (s, t) =
                    families.unwrap_or((vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED));
                vk::ImageMemoryBarrier::default()
                    .old_layout(old)
                    .new_layout(new)
                    .src_queue_family_index(s)
                    .dst_queue_family_index(t)
                    .image(img.image)
                    .subresource_range(range)
            };
            let transfer = vk::PipelineStageFlags::TRANSFER;
            if let Some(owner) = img.owner {
                // The acquire half of the host's release (same layouts).
                let acquire = barrier(img.layout, img.layout, Some((owner, family)))
                    .dst_access_mask(vk::AccessFlags::TRANSFER_READ);
                // SAFETY: `cmd` is recording on the engine's family and the barrier names the host's plane (this function's contract).
                unsafe {
                    image_barrier(
                        gpu,
                        cmd,
                        acquire,
                        (vk::PipelineStageFlags::TOP_OF_PIPE, transfer),
                    )
                };
            }
            // Earlier writes of the image on this queue (or, after a semaphore
            // wait, anywhere) complete before the transition.
            let to_src = barrier(img.layout, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, None)
                .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ);
            // SAFETY: `cmd` is recording on the engine's family and the barrier names the host's plane (this function's contract).
            unsafe {
                image_barrier(
                    gpu,
                    cmd,
                    to_src,
                    (vk::PipelineStageFlags::ALL_COMMANDS, transfer),
                )
            };
            let region = [vk::BufferImageCopy::default()
                .buffer_offset(0)
                .buffer_row_length(0)
                .buffer_image_height(0)
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(img.aspect)
                        .mip_level(0)
                        .base_array_layer(img.array_layer)
                        .layer_count(1),
                )
                .image_offset(vk::Offset3D::default())
                .image_extent(vk::Extent3D {
                    width: size.width,
                    height: size.height,
                    depth: 1,
                })];
            // SAFETY: `cmd` is recording; the caller vouched that the image has
            // TRANSFER_SRC usage and a plane 0 of at least width x height; it is
            // in TRANSFER_SRC_OPTIMAL (the barrier above); `dst` holds the plane.
            unsafe {
                d.cmd_copy_image_to_buffer(
                    cmd,
                    img.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    dst,
                    &region,
                )
            };
            // The copy's reads finish before the transition (an execution
            // dependency; later users of the image wait on the pair's signal).
            let back = barrier(
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                img.final_layout,
                None,
            );
            // SAFETY: `cmd` is recording on the engine's family and the barrier names the host's plane (this function's contract).
            unsafe { image_barrier(gpu, cmd, back, (transfer, transfer)) };
            if let Some(owner) = img.owner {
                let release = barrier(img.final_layout, img.final_layout, Some((family, owner)));
                // SAFETY: `cmd` is recording on the engine's family and the barrier names the host's plane (this function's contract).
                unsafe {
                    image_barrier(
                        gpu,
                        cmd,
                        release,
                        (transfer, vk::PipelineStageFlags::BOTTOM_OF_PIPE),
                    )
                };
            }
        }
    }
}

/// One buffer barrier: acquires wait at `stage` (from the top of the pipe),
/// releases run after the transfer stage.
///
/// # Safety
/// `cmd` must be recording on a family with the transfer stage, and `b`
/// must name a valid buffer of this device.
unsafe fn buffer_barrier(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    b: vk::BufferMemoryBarrier<'_>,
    stage: vk::PipelineStageFlags,
) {
    let (src, dst) = if stage == vk::PipelineStageFlags::BOTTOM_OF_PIPE {
        (vk::PipelineStageFlags::TRANSFER, stage)
    } else {
        (vk::PipelineStageFlags::TOP_OF_PIPE, stage)
    };
    // SAFETY: this function's contract.
    unsafe { commands::pipeline_barrier(gpu, cmd, (src, dst), &[], &[b], &[]) };
}

/// One image barrier between the `(src, dst)` stages.
///
/// # Safety
/// `cmd` must be recording on a family with those stages, and `b` must name a
/// valid image of this device.
unsafe fn image_barrier(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    b: vk::ImageMemoryBarrier<'_>,
    (src, dst): (vk::PipelineStageFlags, vk::PipelineStageFlags),
) {
    // SAFETY: this function's contract.
    unsafe { commands::pipeline_barrier(gpu, cmd, (src, dst), &[], &[], &[b]) };
}

/// The `msb_shift` set of a slot's packed planes (`packed`: reference,
/// distorted), from `pool`.
pub(crate) fn shift_set(
    gpu: &Gpu,
    pipelines: &Pipelines,
    pool: vk::DescriptorPool,
    packed: [vk::Buffer; 2],
    name: &str,
) -> Result<vk::DescriptorSet> {
    let layout = pipelines.layout(ShaderName::MsbShift).set_layout;
    let whole = vk::WHOLE_SIZE;
    pipeline::allocate_set(
        gpu,
        pool,
        (ShaderName::MsbShift, layout),
        &[
            (binding::msb_shift::RAW_REF, packed[0], 0, whole),
            (binding::msb_shift::RAW_DIST, packed[1], 0, whole),
        ],
        name,
    )
}

/// Records the shift of the packed planes bound to `set` (made by
/// [`shift_set`], `words` 32-bit words each) by `shifts` (reference,
/// distorted) with `pass` (the `msb_shift` kernel). The packed copies must
/// be visible to compute reads and writes before, and the caller makes the
/// shifted values visible to the passes after.
pub(crate) fn record_shift(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    pass: &Kernel,
    set: vk::DescriptorSet,
    words: u32,
    shifts: [u32; 2],
) {
    let d = &gpu.device.raw;
    let constants = ShiftParams {
        words,
        shift_ref: shifts[0],
        shift_dist: shifts[1],
    };
    let local = pass.shader.local_size();
    // SAFETY: `cmd` is recording on the compute family; the pipeline was made
    // on `pass.layout`, whose push range is the 12 bytes pushed (checked at
    // compile time); the set's bindings point at buffers of at least `words`
    // words.
    unsafe {
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pass.raw);
        let constants = bytemuck::bytes_of(&constants);
        commands::bind_set_and_constants(gpu, cmd, pass.layout, set, constants);
        d.cmd_dispatch(cmd, groups(words, local[0]), 1, 2);
    }
}

/// The push constants of `glsl/msb_shift.comp` (its `Shift` block; size and
/// offsets checked against its SPIR-V at compile time by build.rs).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct ShiftParams {
    /// 32-bit words per plane.
    pub(crate) words: u32,
    /// The reference plane's shift: 0, 4 or 6.
    pub(crate) shift_ref: u32,
    /// The distorted plane's.
    pub(crate) shift_dist: u32,
}
