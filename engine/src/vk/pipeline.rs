//! The compute pipelines of one arithmetic variant, their shared descriptor set
//! layout (six storage buffers) and push constants ([`Params`]).

use ash::vk;
use bytemuck::{Pod, Zeroable};

use super::context::Gpu;
use super::errors::vk_error;
use super::shaders::{shader, ArithVariant, ShaderSpirv};
use crate::{Error, Result};

/// The push constants of every pass.
///
/// KEEP IN SYNC with `glsl/include/common.glsl` (`Params`): same fields, same
/// order, all 32-bit (std430).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    /// Source luma width (self-test: number of cases).
    pub width: u32,
    /// Source luma height.
    pub height: u32,
    /// 8, 10, 12 or 16.
    pub bit_depth: u32,
    /// Decimation factor, 1 to 128.
    pub scale: u32,
    /// Decimated width.
    pub sw: u32,
    /// Decimated height.
    pub sh: u32,
    /// fp32 bits of `f32(1.0f / (scale * scale))`.
    pub tap_bits: u32,
    /// fp32 bits of C1.
    pub c1_bits: u32,
    /// fp32 bits of C2.
    pub c2_bits: u32,
    /// fp32 bits of C3.
    pub c3_bits: u32,
    /// 1 to also write the l, c and s terms.
    pub enable_lcs: u32,
    /// Unused; keeps the size a multiple of 8.
    pub reserved: u32,
}

const _: () = assert!(std::mem::size_of::<Params>() == 48);

/// The buffer bindings (set 0).
///
/// KEEP IN SYNC with `glsl/include/common.glsl` (the `binding = N` buffers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Binding {
    /// Raw reference samples (self-test: its inputs).
    RawRef = 0,
    /// Raw distorted samples.
    RawDist = 1,
    /// The two (decimated) fp32 planes.
    Decimated = 2,
    /// The five horizontal Gaussian planes.
    HFilter = 3,
    /// The five vertical Gaussian planes.
    VFilter = 4,
    /// Per-pixel terms as binary64 bits (self-test: its results).
    Terms = 5,
}

/// Number of bindings in the set.
pub const BINDINGS: u32 = 6;

/// The passes of one frame, in order.
pub const PASSES: [&str; 4] = ["decimate", "hfilter", "vfilter", "terms"];

/// One compute pipeline.
pub struct Pass {
    /// The pipeline.
    pub(crate) raw: vk::Pipeline,
    /// Its shader's workgroup size.
    pub(crate) local_size: [u32; 3],
}

/// The pipelines of one variant and their layouts.
pub struct Pipelines {
    /// The arithmetic variant the shaders were compiled for.
    pub(crate) variant: ArithVariant,
    pub(crate) set_layout: vk::DescriptorSetLayout,
    pub(crate) layout: vk::PipelineLayout,
    /// `decimate`, `hfilter`, `vfilter`, `terms`, `selftest`, by name.
    pub(crate) passes: Vec<(&'static str, Pass)>,
}

impl Pipelines {
    /// The pass named `name`.
    pub(crate) fn pass(&self, name: &str) -> Result<&Pass> {
        self.passes
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| p)
            .ok_or_else(|| Error::Unsupported(format!("shader {name} was not built")))
    }

    /// Creates the layouts and every pipeline of `variant`.
    pub(crate) fn new(gpu: &Gpu, variant: ArithVariant) -> Result<Self> {
        let device = &gpu.device.raw;
        let bindings: Vec<_> = (0..BINDINGS)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid device and create info.
        let set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
            .map_err(|r| vk_error(r, "creating the descriptor set layout"))?;
        gpu.device.name(set_layout, "vkssim set layout");
        let mut this = Self {
            variant,
            set_layout,
            layout: vk::PipelineLayout::null(),
            passes: Vec::new(),
        };
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(std::mem::size_of::<Params>() as u32)];
        let layouts = [set_layout];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&layouts)
            .push_constant_ranges(&ranges);
        // SAFETY: valid device and create info.
        match unsafe { device.create_pipeline_layout(&info, None) } {
            Ok(l) => this.layout = l,
            Err(r) => {
                this.destroy(gpu);
                return Err(vk_error(r, "creating the pipeline layout"));
            }
        }
        gpu.device.name(this.layout, "vkssim pipeline layout");
        for name in PASSES.iter().chain(std::iter::once(&"selftest")) {
            let spirv = match shader(name, variant) {
                Some(s) => s,
                None => {
                    this.destroy(gpu);
                    return Err(Error::Unsupported(format!(
                        "shader {name} ({}) was not built",
                        variant.name()
                    )));
                }
            };
            match create_pipeline(gpu, this.layout, spirv) {
                Ok(p) => this.passes.push((name, p)),
                Err(e) => {
                    this.destroy(gpu);
                    return Err(e);
                }
            }
        }
        Ok(this)
    }

    /// Destroys the pipelines and layouts. The device must no longer use them.
    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        let device = &gpu.device.raw;
        // SAFETY: the caller guarantees no pending use; each handle is destroyed once.
        unsafe {
            for (_, p) in self.passes.drain(..).rev() {
                device.destroy_pipeline(p.raw, None);
            }
            if self.layout != vk::PipelineLayout::null() {
                device.destroy_pipeline_layout(self.layout, None);
                self.layout = vk::PipelineLayout::null();
            }
            if self.set_layout != vk::DescriptorSetLayout::null() {
                device.destroy_descriptor_set_layout(self.set_layout, None);
                self.set_layout = vk::DescriptorSetLayout::null();
            }
        }
    }
}

pub(crate) fn create_pipeline(
    gpu: &Gpu,
    layout: vk::PipelineLayout,
    spirv: &ShaderSpirv,
) -> Result<Pass> {
    let device = &gpu.device.raw;
    let info = vk::ShaderModuleCreateInfo::default().code(spirv.words);
    let label = format!("vkssim {} ({})", spirv.name, spirv.variant.name());
    // SAFETY: the words are SPIR-V produced by shaderc at build time.
    let module = unsafe { device.create_shader_module(&info, None) }
        .map_err(|r| vk_error(r, format!("creating shader module {label}")))?;
    gpu.device.name(module, &label);
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(c"main");
    let infos = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(layout)];
    // SAFETY: module and layout are valid; the create info is complete.
    let result =
        unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &infos, None) };
    // SAFETY: the module is no longer needed once the pipeline exists (or failed).
    unsafe { device.destroy_shader_module(module, None) };
    let pipeline = result
        .map_err(|(_, r)| vk_error(r, format!("creating pipeline {label}")))?
        .into_iter()
        .next()
        .ok_or_else(|| Error::Vulkan {
            result: vk::Result::ERROR_UNKNOWN,
            context: format!("creating pipeline {label}: no pipeline returned"),
        })?;
    gpu.device.name(pipeline, &label);
    Ok(Pass {
        raw: pipeline,
        local_size: spirv.local_size,
    })
}

/// Workgroup counts covering `n` invocations in groups of `local`.
pub(crate) fn groups(n: u32, local: u32) -> u32 {
    n.div_ceil(local.max(1))
}

/// A descriptor pool with room for `sets` sets of the vkssim layout.
pub(crate) fn create_descriptor_pool(
    gpu: &Gpu,
    sets: u32,
    name: &str,
) -> Result<vk::DescriptorPool> {
    let sizes = [vk::DescriptorPoolSize::default()
        .ty(vk::DescriptorType::STORAGE_BUFFER)
        .descriptor_count(sets * BINDINGS)];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(sets)
        .pool_sizes(&sizes);
    // SAFETY: valid device and create info.
    let pool = unsafe { gpu.device.raw.create_descriptor_pool(&info, None) }
        .map_err(|r| vk_error(r, format!("creating descriptor pool {name}")))?;
    gpu.device.name(pool, name);
    Ok(pool)
}

/// Allocates one set of `layout` from `pool` and points its six bindings at
/// `buffers` (in [`Binding`] order).
pub(crate) fn allocate_set(
    gpu: &Gpu,
    pool: vk::DescriptorPool,
    layout: vk::DescriptorSetLayout,
    buffers: [vk::Buffer; BINDINGS as usize],
    name: &str,
) -> Result<vk::DescriptorSet> {
    let layouts = [layout];
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(pool)
        .set_layouts(&layouts);
    // SAFETY: pool and layout are valid; the pool was sized for this set.
    let set = unsafe { gpu.device.raw.allocate_descriptor_sets(&info) }
        .map_err(|r| vk_error(r, format!("allocating descriptor set {name}")))?[0];
    gpu.device.name(set, name);
    let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
        .iter()
        .map(|&b| {
            [vk::DescriptorBufferInfo::default()
                .buffer(b)
                .offset(0)
                .range(vk::WHOLE_SIZE)]
        })
        .collect();
    let writes: Vec<_> = infos
        .iter()
        .enumerate()
        .map(|(i, info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(i as u32)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(info)
        })
        .collect();
    // SAFETY: the set and buffers are valid and the set is not in use.
    unsafe { gpu.device.raw.update_descriptor_sets(&writes, &[]) };
    Ok(set)
}
