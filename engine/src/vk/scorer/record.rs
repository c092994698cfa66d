//! Recording a slot's command buffers once, at creation (and again when a
//! device-resident frame rebinds it): the staging copy and its ownership
//! transfer when there is one, then the frame's passes with their barriers and
//! timestamps.

use ash::vk;

use super::slots::ReferenceSource;
use super::stats::TIMESTAMPS;
use super::VkScorer;
use crate::vk::commands;
use crate::vk::pipeline::{FramePass, Params};
use crate::Result;

impl VkScorer {
    /// Records slot `i`'s command buffers once; they are resubmitted per frame.
    pub(super) fn record(&self, i: usize) -> Result<()> {
        self.record_with(i, &self.params)
    }

    /// Records slot `i`'s command buffers with push constants `p` (the
    /// scorer's own, or with [`Params::debug_writes`] for a debug frame).
    pub(super) fn record_with(&self, i: usize, p: &Params) -> Result<()> {
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let slot = &self.slots[i];
        let raw_bufs = [slot.raw[0].raw, slot.raw[1].raw];
        // A slot bound to the host's planes reads them where they are (or
        // the packed copies its prologue made): no staging copy, and its own
        // buffers are not moved between queue families.
        let staging = slot.staging.as_ref().filter(|_| !slot.reads_external);
        let transfer = slot.transfer_cmd.filter(|_| !slot.reads_external);
        let copy = |cmd: vk::CommandBuffer| {
            if let Some(st) = staging {
                let half = self.sizes.picture.bytes().next_multiple_of(4);
                // A shared reference is read where it is: only the
                // distorted plane is copied.
                let first = (slot.reference != ReferenceSource::Own) as usize;
                for (p, dst) in raw_bufs.iter().enumerate().skip(first) {
                    let region = [vk::BufferCopy::default()
                        .src_offset(p as u64 * half)
                        .dst_offset(0)
                        .size(half.min(slot.raw[p].size))];
                    // SAFETY: `cmd` is recording; both buffers are valid and the
                    // regions lie inside them.
                    unsafe { d.cmd_copy_buffer(cmd, st.raw, *dst, &region) };
                }
            }
        };
        let cmd = slot.cmd;
        if let (Some(tcmd), Some((tfamily, _))) = (transfer, gpu.device.transfer) {
            commands::begin(gpu, tcmd)?;
            copy(tcmd);
            // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
            unsafe {
                commands::ownership_barrier(
                    gpu,
                    tcmd,
                    &raw_bufs,
                    (tfamily, gpu.device.compute_family),
                    true,
                )
            };
            commands::end(gpu, tcmd)?;
            commands::begin(gpu, cmd)?;
            // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
            unsafe {
                commands::ownership_barrier(
                    gpu,
                    cmd,
                    &raw_bufs,
                    (tfamily, gpu.device.compute_family),
                    false,
                )
            };
        } else {
            commands::begin(gpu, cmd)?;
            if staging.is_some() {
                copy(cmd);
                // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
                unsafe { commands::transfer_to_compute(gpu, cmd) };
            }
        }
        if self.ssim_passes {
            // SAFETY: `cmd` is recording on the compute family (begun above).
            unsafe { self.record_ssim_passes(cmd, &[i], p, slot.queries) };
        } else if let Some(q) = slot.queries {
            // float_ssim is not asked for: its passes' timestamps are all
            // written at once (they take no time).
            // SAFETY: `cmd` is recording; the pool is the slot's and its
            // earlier work is done.
            unsafe {
                d.cmd_reset_query_pool(cmd, q, 0, TIMESTAMPS);
                d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, q, 0);
                for k in 0..FramePass::ALL.len() as u32 {
                    d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, q, k + 1);
                }
            }
        }
        self.record_metrics(cmd, i);
        // SAFETY: the command buffer is recording (begun above) on the family whose stages the barrier names.
        unsafe { commands::compute_to_host(gpu, cmd) };
        commands::end(gpu, cmd)
    }

    /// Records float_ssim's passes for every slot of `slots` with push
    /// constants `p`, pass by pass (each pass's dispatches of all the slots
    /// between one pair of barriers), with the timestamps of `queries` (reset
    /// first; TOP, then one after each pass): a slot's own command buffer
    /// (one slot) and a batch of device-resident pairs (`super::batch`).
    ///
    /// # Safety
    /// `cmd` must be recording on the compute family; the slots' sets and
    /// `queries` must belong to this scorer and outlive the command buffer.
    pub(super) unsafe fn record_ssim_passes(
        &self,
        cmd: vk::CommandBuffer,
        slots: &[usize],
        p: &Params,
        queries: Option<vk::QueryPool>,
    ) {
        let gpu = &self.gpu;
        let d = &gpu.device.raw;
        let extents = self.sizes.extents();
        let layout = self.pipelines.layout;
        if let Some(q) = queries {
            // SAFETY: `cmd` is recording (this function's contract); the pool
            // is this scorer's and its earlier work is done.
            unsafe {
                d.cmd_reset_query_pool(cmd, q, 0, TIMESTAMPS);
                d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, q, 0);
            }
        }
        for (k, frame_pass) in FramePass::ALL.into_iter().enumerate() {
            let [x, y, z] = frame_pass.groups(&extents);
            if k > 0 {
                // SAFETY: `cmd` is recording on the family whose stages the barrier names.
                unsafe { commands::compute_to_compute(gpu, cmd) };
            }
            // SAFETY: as above; the pipelines and layout outlive the command
            // buffer.
            unsafe {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.frame_pipelines[k])
            };
            for &i in slots {
                // SAFETY: as above; each slot's set is valid and bound to its
                // own buffers; the push constants match the layout's range.
                unsafe {
                    commands::bind_set_and_constants(
                        gpu,
                        cmd,
                        layout,
                        self.slots[i].set,
                        bytemuck::bytes_of(p),
                    );
                    d.cmd_dispatch(cmd, x, y, z);
                }
            }
            if let Some(q) = queries {
                // SAFETY: as above.
                unsafe {
                    d.cmd_write_timestamp(
                        cmd,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        q,
                        k as u32 + 1,
                    )
                };
            }
        }
    }
}
