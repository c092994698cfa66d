//! Decodes inputs without scoring them, each on its own thread at once (as
//! `vkssim score` reads its two inputs), and prints the frame rate: the
//! decoding side of the speed of scoring encoded inputs.
//!
//! ```sh
//! cargo run --release -p vkssim --features ffmpeg --example decode_rate -- ref.mp4 dist.mp4
//! ```

use std::path::Path;
use std::time::Instant;

use vkssim::io::open_input;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return Err("usage: decode_rate INPUT...".into());
    }
    let start = Instant::now();
    let counts = std::thread::scope(|s| {
        let threads: Vec<_> = paths
            .iter()
            .map(|p| {
                s.spawn(move || -> vkssim::Result<u64> {
                    let mut reader = open_input(Path::new(p), None)?;
                    let mut luma = vec![0u8; reader.format().luma_bytes()];
                    let mut n = 0;
                    while reader.read_luma(&mut luma)? {
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
