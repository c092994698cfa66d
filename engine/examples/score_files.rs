//! Scores two raw planar YUV files (or Y4M files, whose header gives the
//! format) through the library API: one `Engine`, one `Scorer`, host frames,
//! several in flight, results polled as they come and drained at the end.
//! Prints libvmaf's `float_ssim` of every frame and the mean. With `--check`,
//! also scores every frame on the CPU twin and exits non-zero unless each
//! result is bit-identical (and unless the validation layer, on with
//! `VKSSIM_VALIDATION=1`, stayed silent).
//!
//! Run: `cargo run -p vkssim --example score_files -- REF DIST WIDTH HEIGHT [BITDEPTH [420|422|444]] [--check]`

use std::path::Path;
use vkssim::api::ScoreQueue;

use vkssim::api::{Engine, HostPlane, Pair, ScorerDesc};
use vkssim::io::{open_input, Chroma, RawFormat};
use vkssim::vk::VkOptions;
use vkssim::{FrameScore, LumaFrame};

fn main() {
    if let Err(e) = run() {
        eprintln!("score_files: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    args.retain(|a| a != "--check");
    if !(4..=6).contains(&args.len()) {
        return Err(
            "usage: score_files REF DIST WIDTH HEIGHT [BITDEPTH [420|422|444]] [--check]".into(),
        );
    }
    let width: u32 = args[2].parse()?;
    let height: u32 = args[3].parse()?;
    let bit_depth: u32 = args.get(4).map_or(Ok(8), |b| b.parse())?;
    let chroma: Chroma = args.get(5).map_or(Ok(Chroma::C420), |c| c.parse())?;
    let raw = RawFormat::new(width, height, chroma, bit_depth);
    let mut reference = open_input(Path::new(&args[0]), Some(raw))?;
    let mut distorted = open_input(Path::new(&args[1]), Some(raw))?;

    // The library reads no environment variable; this application does.
    let engine = Engine::new(
        &VkOptions::default()
            .with_validation(std::env::var("VKSSIM_VALIDATION").is_ok_and(|v| v == "1")),
    )?;
    let desc = ScorerDesc::new(width, height, bit_depth);
    let mut scorer = engine.scorer(&desc)?;
    eprintln!(
        "{}: {} arithmetic, {:?} upload, {} pairs in flight",
        engine.device_name(),
        scorer.arithmetic().name(),
        scorer.upload_path(),
        scorer.queue_depth()
    );

    let mut frames: Vec<(LumaFrame, LumaFrame)> = Vec::new();
    let mut scores: Vec<FrameScore> = Vec::new();
    let print = |scores: &mut Vec<FrameScore>, s: FrameScore| {
        println!("frame {}: float_ssim {:.6}", scores.len(), s.float_ssim());
        scores.push(s);
    };
    loop {
        let (r, d) = match (reference.read_frame()?, distorted.read_frame()?) {
            (Some(r), Some(d)) => (r, d),
            (None, None) => break,
            _ => return Err("the files have different numbers of frames".into()),
        };
        if bit_depth > 8 {
            let (r16, d16) = (words(&r), words(&d));
            scorer.submit(Pair::new(
                HostPlane::u16(&r16, width as usize),
                HostPlane::u16(&d16, width as usize),
            ))?;
        } else {
            scorer.submit(Pair::new(
                HostPlane::u8(&r.bytes, width as usize),
                HostPlane::u8(&d.bytes, width as usize),
            ))?;
        }
        if check {
            frames.push((r, d));
        }
        while let Some(s) = scorer.poll() {
            print(&mut scores, s?);
        }
    }
    while let Some(s) = scorer.wait() {
        print(&mut scores, s?);
    }
    if scores.is_empty() {
        return Err("no frames".into());
    }
    let mean = scores.iter().map(|s| s.float_ssim()).sum::<f64>() / scores.len() as f64;
    println!("{} frames, mean float_ssim {mean:.6}", scores.len());

    if check {
        for (i, ((r, d), got)) in frames.iter().zip(&scores).enumerate() {
            let want = vkssim::testing::cpu::score_frame(
                &r.view(),
                &d.view(),
                &vkssim::SsimOptions::default(),
            )?;
            if got.ssim().to_bits() != want.ssim().to_bits() {
                return Err(format!("frame {i}: GPU {got:?}, CPU twin {want:?}").into());
            }
        }
        let messages = engine.validation_messages();
        if !messages.is_empty() {
            return Err(format!("validation messages: {messages:#?}").into());
        }
        println!("every frame bit-identical to the CPU twin");
    }
    Ok(())
}

/// The samples of a packed high-bit-depth plane as words.
fn words(f: &LumaFrame) -> Vec<u16> {
    f.bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}
