//! libvmaf's `psnr` on the device: `glsl/psnr.comp` sums each row's squared
//! errors of luma and (when psnr reads chroma) the Cb and Cr planes, which
//! then travel in the slot's upload buffers after the luma plane
//! ([`super::PictureLayout`]), into one host-visible buffer per slot; the
//! host adds the rows in uint64 and finishes with
//! [`crate::metric::psnr::frame_outputs`]. The same pass records, per row,
//! the first sample above the bit depth (10 and 12-bit) in every plane it
//! reads.

use super::super::recorder::{Buf, BufferDecl, Recorder};
use super::super::{not_mapped, VkScorer};
use super::{FrameFinish, GpuMetric, MetricContext, MetricDebug, PlaneRange};
use crate::metric::psnr::{self, PsnrGeometry, PsnrOptions};
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{Kernel, Pipelines, PsnrParams, Spec};
use crate::vk::shaders::{binding, ShaderName};
use crate::{Error, FrameScore, Result};

/// The stage psnr times: its sums.
pub(in crate::vk::scorer) const STAGES: [&str; 1] = ["psnr"];

/// psnr's plan (see the module docs).
pub(in crate::vk::scorer) struct PsnrGpu {
    opts: PsnrOptions,
    geometry: PsnrGeometry,
    params: PsnrParams,
    kernel: Kernel,
    /// The chroma planes' stored size, when psnr reads them.
    stored_chroma: Option<(u32, u32)>,
}

impl PsnrGpu {
    /// The plan for frames of `ctx`'s format (psnr's checks first).
    pub(super) fn new(
        gpu: &Gpu,
        pipelines: &Pipelines,
        ctx: &MetricContext,
        opts: &PsnrOptions,
    ) -> Result<Self> {
        let (width, height, bit_depth) = ctx.format;
        let g = psnr::check_geometry(width, height, bit_depth, ctx.chroma, opts)?;
        let stored = ctx.chroma.plane_size(width, height);
        let mut params = PsnrParams::default();
        for p in 0..g.planes.min(2) {
            let (w, h) = g.plane_sizes[p];
            let (sw, sh) = if p == 0 { (width, height) } else { stored };
            params.stride[p] = sw;
            params.rows[p] = sh;
            params.width[p] = w;
            params.height[p] = h;
        }
        let spec = Spec::new(bit_depth, 1, false);
        Ok(Self {
            opts: *opts,
            geometry: g,
            params,
            kernel: pipelines.kernel(gpu, ShaderName::Psnr, Some(spec))?,
            stored_chroma: (g.planes > 1).then_some(stored),
        })
    }

    /// The exact sums of squared errors of the planes psnr scores, from the
    /// device's row sums.
    fn sse(&self, rows: &Buffer) -> Result<[u64; 3]> {
        let bytes = rows.mapped().ok_or_else(not_mapped)?;
        let stride = self.geometry.height as usize;
        let mut sse = [0u64; 3];
        for (k, s) in sse.iter_mut().enumerate().take(self.geometry.planes) {
            for r in 0..self.params.height[PsnrParams::index(k)] as usize {
                let at = (k * stride + r) * 8;
                let c = &bytes[at..at + 8];
                *s += u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            }
        }
        Ok(sse)
    }
}

gpu_plan!(PsnrOptions => PsnrGpu);

impl GpuMetric for PsnrGpu {
    fn feature(&self) -> &'static str {
        psnr::FEATURE
    }

    fn stage_names(&self) -> &'static [&'static str] {
        &STAGES
    }

    fn buffers(&self) -> Vec<BufferDecl> {
        // Each row's sum per plane, then each row's range record per
        // picture and plane (glsl/psnr.comp).
        let rows = 9 * self.geometry.height as u64 * 8;
        vec![BufferDecl::host("psnr row sums", rows)]
    }

    fn record(&self, r: &mut Recorder) {
        use binding::psnr as b;
        let bufs = [
            (b::RAW_REF, Buf::Raw(0)),
            (b::RAW_DIST, Buf::Raw(1)),
            (b::ROW_SSE, r.own(0)),
        ];
        // One workgroup per row of each plane (its invocations stride
        // along the row).
        let extent = [1, self.geometry.height, self.geometry.planes as u32];
        r.dispatch(self.kernel, extent, &bufs, bytemuck::bytes_of(&self.params));
        r.end_stage();
    }

    fn finish(
        &self,
        _s: &VkScorer,
        bufs: &[Buffer],
        _decided: Option<FrameScore>,
        out: &mut FrameFinish,
    ) -> Result<()> {
        let rows = bufs
            .first()
            .ok_or_else(|| Error::Internal("psnr without its buffers".into()))?;
        let sse = self.sse(rows)?;
        out.outputs
            .extend(&psnr::frame_outputs(&sse, &self.geometry, &self.opts));
        psnr::keep_sse(&sse, &self.geometry, &mut out.side);
        Ok(())
    }

    /// The first sample above the bit depth of each picture, in raster order
    /// of its luma, Cb and Cr planes, from the row records (none at 8 and 16
    /// bits, where nothing is recorded).
    fn sample_range(&self, bufs: &[Buffer], bit_depth: u32) -> Result<[Option<PlaneRange>; 2]> {
        let mut found = [None; 2];
        if bit_depth != 10 && bit_depth != 12 {
            return Ok(found);
        }
        let rows = bufs
            .first()
            .ok_or_else(|| Error::Internal("psnr without its buffers".into()))?;
        let bytes = rows.mapped().ok_or_else(not_mapped)?;
        let stride = self.params.rows[0] as usize;
        for (picture, slot) in found.iter_mut().enumerate() {
            'planes: for plane in 0..self.geometry.planes {
                for row in 0..self.params.rows[PsnrParams::index(plane)] as usize {
                    let at = (3 * stride + (picture * 3 + plane) * stride + row) * 8;
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&bytes[at..at + 8]);
                    let rec = u64::from_le_bytes(b);
                    if rec != u64::MAX {
                        *slot = Some(PlaneRange {
                            picture,
                            plane,
                            x: rec as u32,
                            y: row as u32,
                            value: (rec >> 32) as u32,
                        });
                        break 'planes;
                    }
                }
            }
        }
        Ok(found)
    }

    fn chroma(&self) -> Option<((u32, u32), (u32, u32))> {
        Some((self.stored_chroma?, self.geometry.plane_sizes[1]))
    }

    fn debug(&self, _s: &VkScorer, bufs: &[Buffer], out: &mut MetricDebug) -> Result<()> {
        if let Some(rows) = bufs.first() {
            out.psnr_sse = Some(self.sse(rows)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vk::shaders::Access::{Read, Write};

    /// psnr's shader reads the two raw planes and writes the rows' sums, as
    /// its comments say, with a layout of its own.
    #[test]
    fn the_shader_has_its_own_bindings() {
        let name = ShaderName::Psnr;
        assert_eq!(name.bindings(), &[(0, Read), (1, Read), (2, Write)]);
        assert_eq!(name.layout_source(), name);
        assert_eq!(
            [
                binding::psnr::RAW_REF,
                binding::psnr::RAW_DIST,
                binding::psnr::ROW_SSE
            ],
            [0, 1, 2]
        );
    }
}
