//! The start-up self-test of the device's arithmetic (docs/exactness.md §5: check
//! the device, not the spec). `glsl/selftest.comp` runs `precise` a*b+c, fp32
//! division and sqrt, fp64 division, multiplication and addition, and the fp64
//! to fp32 rounding through the `arith.glsl` interface of one variant, on hard
//! cases (fused-vs-unfused, ties) and pseudo-random ones; the host computes the
//! same with IEEE arithmetic and every bit must match.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::commands;
use super::context::Gpu;
use super::pipeline::{self, groups, Params, Pipelines};
use super::shaders::{binding, ShaderName};
use crate::{Error, Result};

/// Words of input per case. KEEP IN SYNC with `glsl/selftest.comp`.
const IN_WORDS: usize = 8;
/// Results per case. KEEP IN SYNC with `glsl/selftest.comp`.
const OUT_VALUES: usize = 8;
/// Pseudo-random cases on top of the hand-picked ones.
const RANDOM_CASES: usize = 8192;

const OPS: [&str; OUT_VALUES] = [
    "precise fp32 a*b+c",
    "fp32 division",
    "fp32 sqrt",
    "fp64 division",
    "fp64 multiplication",
    "fp64 addition",
    "fp64 to fp32 rounding",
    "fp32 to fp64 widening",
];

/// One self-test case.
#[derive(Debug, Clone, Copy)]
struct Case {
    a: f32,
    b: f32,
    c: f32,
    x: f32,
    d: f64,
    e: f64,
}

impl Case {
    fn words(&self) -> [u32; IN_WORDS] {
        let d = self.d.to_bits();
        let e = self.e.to_bits();
        [
            self.a.to_bits(),
            self.b.to_bits(),
            self.c.to_bits(),
            self.x.to_bits(),
            d as u32,
            (d >> 32) as u32,
            e as u32,
            (e >> 32) as u32,
        ]
    }

    /// What an IEEE device gives for each result.
    fn expected(&self) -> [u64; OUT_VALUES] {
        [
            (self.a * self.b + self.c).to_bits() as u64,
            (self.a / self.b).to_bits() as u64,
            self.x.sqrt().to_bits() as u64,
            (self.d / self.e).to_bits(),
            (self.d * self.e).to_bits(),
            (self.d + self.e).to_bits(),
            (self.d as f32).to_bits() as u64,
            (self.a as f64).to_bits(),
        ]
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A normal fp32 of either sign with exponent in [-20, 20].
    fn f32(&mut self) -> f32 {
        let r = self.next();
        let exp = 127 - 20 + (r % 41) as u32;
        let bits = ((r >> 8) as u32 & 0x807F_FFFF) | (exp << 23);
        f32::from_bits(bits)
    }

    /// A normal fp64 of either sign with exponent in [-60, 60].
    fn f64(&mut self) -> f64 {
        let r = self.next();
        let exp = 1023 - 60 + (r % 121);
        let frac = self.next() & 0x000F_FFFF_FFFF_FFFF;
        f64::from_bits((r & (1 << 63)) | (exp << 52) | frac)
    }
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let e12 = 1.0 + f32::EPSILON * 2048.0; // 1 + 2^-12
                                           // (1 + 2^-12)^2 - 1: unfused 2^-11, fused 2^-11 + 2^-24.
    out.push(Case {
        a: e12,
        b: e12,
        c: -1.0,
        x: 2.0,
        d: 1.0,
        e: 3.0,
    });
    // Ties of the fp64 -> fp32 rounding: an fp32 value plus exactly half an ulp.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..256u64 {
        let base = rng.f32().abs() as f64;
        let half_ulp = f64::from_bits(base.to_bits() & 0xFFF0_0000_0000_0000) * 2f64.powi(-24);
        let d = if i % 2 == 0 {
            base + half_ulp
        } else {
            -(base + half_ulp)
        };
        let a = rng.f32();
        let b = rng.f32();
        out.push(Case {
            a,
            b,
            c: -(a * b),
            x: rng.f32().abs(),
            d,
            e: rng.f64(),
        });
    }
    for _ in 0..RANDOM_CASES {
        let a = rng.f32();
        let b = rng.f32();
        // c near -a*b makes contraction visible in the low bits.
        let c = if rng.next() % 2 == 0 {
            -(a * b)
        } else {
            rng.f32()
        };
        out.push(Case {
            a,
            b,
            c,
            x: rng.f32().abs(),
            d: rng.f64(),
            e: rng.f64(),
        });
    }
    out
}

/// Runs the self-test with `pipelines` (one variant). `Ok(())` when every
/// result is bit-exact; [`Error::SelfTestFailed`] naming each failing operation
/// and one case otherwise.
pub(crate) fn run(gpu: &Gpu, pipelines: &Pipelines) -> Result<()> {
    let cases = cases();
    let n = cases.len();
    let input: Vec<u32> = cases.iter().flat_map(|c| c.words()).collect();
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let mut in_buf = gpu.create_buffer(
        "vkssim self-test inputs",
        (input.len() * 4) as u64,
        usage,
        MemoryLocation::CpuToGpu,
    )?;
    let mut out_buf = match gpu.create_buffer(
        "vkssim self-test results",
        (n * OUT_VALUES * 8) as u64,
        usage,
        MemoryLocation::GpuToCpu,
    ) {
        Ok(b) => b,
        Err(e) => {
            gpu.destroy_buffer(&mut in_buf);
            return Err(e);
        }
    };
    let mut pool = vk::DescriptorPool::null();
    let mut cmd_pool = vk::CommandPool::null();
    let result = (|| -> Result<Vec<u64>> {
        let mapped = in_buf.mapped_mut().ok_or_else(|| {
            Error::SelfTestFailed("the self-test input buffer is not host-visible".into())
        })?;
        mapped[..input.len() * 4].copy_from_slice(bytemuck::cast_slice(&input));
        let pass = *pipelines.selftest();
        let bindings = [
            (binding::selftest::RAW_REF, in_buf.raw, 0, vk::WHOLE_SIZE),
            (binding::selftest::TERMS, out_buf.raw, 0, vk::WHOLE_SIZE),
        ];
        pool = pipeline::create_descriptor_pool(
            gpu,
            1,
            bindings.len() as u32,
            "vkssim self-test descriptors",
        )?;
        let set_layout = pipelines.layout(ShaderName::Selftest).set_layout;
        let set = pipeline::allocate_set(
            gpu,
            pool,
            (ShaderName::Selftest, set_layout),
            &bindings,
            "vkssim self-test set",
        )?;
        cmd_pool = commands::create_pool(
            gpu,
            gpu.device.compute_family,
            "vkssim self-test command pool",
        )?;
        let cmd = commands::allocate_command_buffer(gpu, cmd_pool, "vkssim self-test commands")?;
        let params = Params {
            width: n as u32,
            ..Params::default()
        };
        commands::begin(gpu, cmd)?;
        let d = &gpu.device.raw;
        // SAFETY: `cmd` is recording; pipeline, layout and set are valid and
        // compatible; the push constants match the layout's range.
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pass.raw);
            let constants = bytemuck::bytes_of(&params);
            commands::bind_set_and_constants(gpu, cmd, pass.layout, set, constants);
            let local = pass.shader.local_size();
            d.cmd_dispatch(cmd, groups(n as u32, local[0]), 1, 1);
        }
        // SAFETY: `cmd` is recording (begun above) on the compute family; for the submission, it was ended above and is not pending.
        unsafe { commands::compute_to_host(gpu, cmd) };
        commands::end(gpu, cmd)?;
        // SAFETY: `cmd` is recording (begun above) on the compute family; for the submission, it was ended above and is not pending.
        unsafe {
            commands::submit_and_wait(
                gpu,
                gpu.device.compute_queue,
                cmd,
                "running the arithmetic self-test",
            )
        }?;
        let bytes = out_buf.mapped().ok_or_else(|| {
            Error::SelfTestFailed("the self-test result buffer is not host-visible".into())
        })?;
        Ok(bytes[..n * OUT_VALUES * 8]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect())
    })();
    // SAFETY: the work was waited on (or never submitted); each handle is
    // destroyed once.
    unsafe {
        if cmd_pool != vk::CommandPool::null() {
            gpu.device.raw.destroy_command_pool(cmd_pool, None);
        }
        if pool != vk::DescriptorPool::null() {
            gpu.device.raw.destroy_descriptor_pool(pool, None);
        }
    }
    gpu.destroy_buffer(&mut out_buf);
    gpu.destroy_buffer(&mut in_buf);
    let results = result?;

    let mut failures = Vec::new();
    for (op, name) in OPS.iter().enumerate() {
        let mut bad = 0usize;
        let mut first = None;
        for (i, case) in cases.iter().enumerate() {
            let want = case.expected()[op];
            let got = results[i * OUT_VALUES + op];
            if want != got {
                bad += 1;
                first.get_or_insert((i, *case, want, got));
            }
        }
        if let Some((i, case, want, got)) = first {
            failures.push(format!(
                "{name}: {bad} of {n} cases differ (case {i}: {case:?}, IEEE {want:#x}, device {got:#x})"
            ));
        }
    }
    if failures.is_empty() {
        tracing::debug!(
            variant = pipelines.variant.name(),
            cases = n,
            "arithmetic self-test passed"
        );
        Ok(())
    } else {
        Err(Error::SelfTestFailed(format!(
            "{} arithmetic on {}: {}",
            pipelines.variant.name(),
            gpu.device_name(),
            failures.join("; ")
        )))
    }
}
