//! Decodes inputs without scoring them, each on its own thread at once (as
//! `vkssim score` reads its two inputs), and prints the frame rate: the
//! decoding side of the speed of scoring encoded inputs.
//!
//! ```sh
//! cargo run --release -p vkssim --features ffmpeg --example decode_rate -- ref.mp4 dist.mp4
//! # Each decoder with 8 threads (as `vkssim score --decode-threads 8`):
//! cargo run --release -p vkssim --features ffmpeg --example decode_rate -- --threads 8 ref.mp4 dist.mp4
//! ```

use std::path::Path;
use std::time::Instant;

use vkssim::io::{open_input_with, Check, DecodeOptions, LumaReader, Planes};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    let mut options = DecodeOptions::default();
    if paths.first().map(String::as_str) == Some("--threads") && paths.len() > 1 {
        options.threads = paths[1].parse()?;
        paths.drain(..2);
    }
    if paths.is_empty() {
        return Err("usage: decode_rate [--threads N] INPUT...".into());
    }
    let options = &options;
    let start = Instant::now();
    let counts = std::thread::scope(|s| {
        let threads: Vec<_> = paths
            .iter()
            .map(|p| {
                s.spawn(move || -> vkssim::Result<u64> {
                    let mut reader = open_input_with(Path::new(p), None, options)?;
                    let mut luma = vec![0u8; reader.format().luma_bytes()];
                    let mut n = 0;
                    while reader.read(&mut luma, Planes::Luma, Check::Range)? {
                        n += 1;
                    }
                    Ok(n)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("a decoding thread panicked"))
            .collect::<vkssim::Result<Vec<u64>>>()
    })?;
    let seconds = start.elapsed().as_secs_f64();
    let pairs = counts.iter().copied().min().unwrap_or(0);
    println!(
        "{} frames ({pairs} pairs) in {seconds:.3} s: {:.2} pairs/s",
        counts
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" + "),
        pairs as f64 / seconds
    );
    Ok(())
}
