//! A real Vulkan Video client: two H.264 Annex B streams decoded on the GPU by
//! the `gpu-video` crate (wgpu textures holding NV12 frames), the decoder's
//! device imported into vkssim, and every frame pair scored through the image
//! path without a frame leaving the GPU (`vkssim::video`, whose module docs
//! say what layout, queue family and synchronization the frames come with).
//!
//! With `--expect FILE` (one `float_ssim` per line, as the CPU path on the
//! ffmpeg-decoded frames gives them) every score must be equal as an fp64; it
//! prints `decoded frames identical to the CPU path: N/N` and exits 1 on any
//! difference. With `VKSSIM_VALIDATION=1` it turns on the Khronos validation
//! layer with synchronization validation for gpu-video's instance (through
//! the loader's `VK_INSTANCE_LAYERS`, since gpu-video creates the instance)
//! and exits 1 on any message. `--repeat N` decodes and scores the pair N
//! times on the same device and prints each run's frames/s; `--decode-only`
//! first times gpu-video alone on a device of its own (both streams decoded
//! into wgpu textures on two threads, nothing scored), to show where the time
//! goes.
//!
//! Where no device decodes H.264 with Vulkan Video (lavapipe, CI) it prints
//! why and exits with status 77, which `tools/run-tests.sh` reports as a skip.
//!
//! Run: `cargo run --release -p vkssim --features vulkan-video --example
//! vulkan_video -- REF.h264 DIST.h264 [--expect FILE] [--repeat N]`

mod common;

use std::path::PathBuf;

use vkssim::video::{StreamPair, VideoDevice, NO_DECODE_DEVICE};
use vkssim::Error;

/// The exit status for "nothing to test here" (automake's convention).
const SKIP: i32 = 77;

struct Args {
    reference: PathBuf,
    distorted: PathBuf,
    expect: Option<PathBuf>,
    repeat: u32,
    decode_only: bool,
}

fn main() {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("vulkan_video: {e}");
            eprintln!(
                "usage: vulkan_video REF.h264 DIST.h264 [--expect FILE] [--repeat N] [--decode-only]"
            );
            std::process::exit(2);
        }
    };
    match run(&args) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            if matches!(&e, Error::NoDevice(m) if m == NO_DECODE_DEVICE) {
                println!("vulkan_video: skipped: {e}");
                std::process::exit(SKIP);
            }
            eprintln!("vulkan_video: {e}");
            std::process::exit(1);
        }
    }
}

fn parse(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut files = Vec::new();
    let (mut expect, mut repeat, mut decode_only) = (None, 1, false);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--expect" => expect = Some(it.next().ok_or("--expect needs a file")?.into()),
            "--decode-only" => decode_only = true,
            "--repeat" => {
                let n = it.next().ok_or("--repeat needs a count")?;
                repeat = n
                    .parse()
                    .map_err(|_| format!("--repeat {n}: not a count"))?;
            }
            _ => files.push(PathBuf::from(a)),
        }
    }
    let [reference, distorted]: [PathBuf; 2] = files
        .try_into()
        .map_err(|_| "two streams are needed".to_string())?;
    Ok(Args {
        reference,
        distorted,
        expect,
        repeat: repeat.max(1),
        decode_only,
    })
}

/// Decodes and scores; `Ok(false)` when a score differs or validation spoke.
fn run(args: &Args) -> Result<bool, Error> {
    let validation = std::env::var("VKSSIM_VALIDATION").is_ok_and(|v| v == "1");
    if validation {
        // gpu-video creates the instance: the loader adds the layer.
        std::env::set_var("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation");
        std::env::set_var(
            "VK_LAYER_ENABLES",
            "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT",
        );
    }
    let expected = match &args.expect {
        Some(path) => Some(read_expected(path)?),
        None => None,
    };
    if args.decode_only {
        decode_only(args)?;
    }
    let video = VideoDevice::open(&vkssim::vk::VkOptions::default())?;
    let handles = video.engine().device_handles();
    let messenger = if validation {
        Some(
            // SAFETY: gpu-video's instance enables VK_EXT_debug_utils; the
            // messenger is destroyed below, before `video` (and the instance)
            // drops.
            unsafe { common::host::collect_messages(&handles.entry, &handles.instance) }.map_err(
                |e| Error::Vulkan {
                    result: e,
                    context: "creating a debug messenger".into(),
                },
            )?,
        )
    } else {
        None
    };
    println!(
        "device: {} (validation {})",
        video.name(),
        if validation { "on" } else { "off" }
    );
    let pair = StreamPair::new(&args.reference, &args.distorted);
    let mut all_same = true;
    for rep in 0..args.repeat {
        let mut scores = Vec::new();
        let run = video.score_streams(&pair, |f| {
            scores.push(f.score.float_ssim());
            Ok(())
        })?;
        let secs = run.elapsed.as_secs_f64();
        println!(
            "run {}: {} frames {}x{} decoded on the GPU and scored in {secs:.3} s: {:.1} frames/s",
            rep + 1,
            run.frames,
            run.width,
            run.height,
            run.frames as f64 / secs
        );
        if rep > 0 {
            continue;
        }
        let Some(expected) = &expected else {
            for (i, s) in scores.iter().enumerate() {
                println!("frame {i}: float_ssim {s:?}");
            }
            continue;
        };
        let mut same = 0;
        for (i, s) in scores.iter().enumerate() {
            match expected.get(i) {
                Some(e) if e.to_bits() == s.to_bits() => {
                    same += 1;
                    println!("frame {i}: float_ssim {s:?} identical");
                }
                Some(e) => {
                    println!("frame {i}: float_ssim {s:?} DIFFERS from the CPU path's {e:?}")
                }
                None => println!("frame {i}: float_ssim {s:?}, no expected score"),
            }
        }
        let total = scores.len().max(expected.len());
        println!("decoded frames identical to the CPU path: {same}/{total}");
        all_same &= same == total;
    }
    if let Some((du, m)) = messenger {
        // SAFETY: created above on this instance, which is still alive.
        unsafe { du.destroy_debug_utils_messenger(m, None) };
    }
    let messages = common::host::messages();
    for m in &messages {
        eprintln!("validation: {m}");
    }
    if validation {
        println!("validation messages: {}", messages.len());
    }
    Ok(all_same && messages.is_empty())
}

/// One `float_ssim` per line.
fn read_expected(path: &PathBuf) -> Result<Vec<f64>, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::io(path.clone(), source))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            l.trim().parse().map_err(|_| {
                Error::InvalidOption(format!("{}: line {}: not a number", path.display(), i + 1))
            })
        })
        .collect()
}

/// gpu-video alone: both streams decoded into wgpu textures on two threads of
/// a device of its own, the textures dropped; prints frames/s per stream
/// pair.
fn decode_only(args: &Args) -> Result<(), Error> {
    use gpu_video::parameters::{DecoderParameters, VulkanAdapterDescriptor};
    let fail = |e: &dyn std::fmt::Display| Error::Unsupported(format!("decode-only run: {e}"));
    let instance = gpu_video::VulkanInstance::new().map_err(|e| fail(&e))?;
    let adapter = instance
        .create_adapter(&VulkanAdapterDescriptor {
            supports_decoding: true,
            supports_encoding: false,
            compatible_surface: None,
        })
        .map_err(|_| Error::NoDevice(NO_DECODE_DEVICE.into()))?;
    let device = adapter
        .create_device(&Default::default())
        .map_err(|e| fail(&e))?;
    let start = std::time::Instant::now();
    let counts = std::thread::scope(|scope| {
        let threads: Vec<_> = [&args.reference, &args.distorted]
            .into_iter()
            .map(|path| {
                let device = device.clone();
                scope.spawn(move || -> Result<u64, Error> {
                    let bytes =
                        std::fs::read(path).map_err(|source| Error::io(path.clone(), source))?;
                    let mut decoder = device
                        .create_wgpu_textures_decoder_h264(DecoderParameters::default())
                        .map_err(|e| fail(&e))?;
                    let mut frames = 0u64;
                    for chunk in bytes.chunks(1 << 16) {
                        let out = decoder
                            .decode(gpu_video::EncodedInputChunk {
                                data: chunk,
                                pts: None,
                            })
                            .map_err(|e| fail(&e))?;
                        frames += out.len() as u64;
                    }
                    frames += decoder.flush().map_err(|e| fail(&e))?.len() as u64;
                    Ok(frames)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| {
                t.join()
                    .unwrap_or_else(|_| Err(fail(&"a decoder thread panicked")))
            })
            .collect::<Result<Vec<u64>, Error>>()
    })?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "decode only (gpu-video, two threads): {:?} frames in {secs:.3} s: {:.1} frame pairs/s",
        counts,
        counts.iter().copied().min().unwrap_or(0) as f64 / secs
    );
    Ok(())
}
