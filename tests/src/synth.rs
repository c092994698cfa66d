//! Synthetic luma planes made in Rust, no ffmpeg needed: flat planes, black and
//! white, gradients, seeded noise, and noisy copies of a plane.

use vkssim::{frame::bytes_per_sample, LumaFrame};

/// The largest sample value at `bit_depth`.
pub fn peak(bit_depth: u32) -> u32 {
    (1u32 << bit_depth) - 1
}

/// A plane whose sample at (x, y) is `f(x, y)` (clamped to the bit depth).
pub fn from_fn(
    width: u32,
    height: u32,
    bit_depth: u32,
    mut f: impl FnMut(u32, u32) -> u32,
) -> LumaFrame {
    let bps = bytes_per_sample(bit_depth);
    let mut bytes = Vec::with_capacity(width as usize * height as usize * bps);
    for y in 0..height {
        for x in 0..width {
            let v = f(x, y).min(peak(bit_depth));
            if bps == 1 {
                bytes.push(v as u8);
            } else {
                bytes.extend_from_slice(&(v as u16).to_le_bytes());
            }
        }
    }
    LumaFrame {
        width,
        height,
        bit_depth,
        bytes,
    }
}

/// Every sample equal to `value`.
pub fn flat(width: u32, height: u32, bit_depth: u32, value: u32) -> LumaFrame {
    from_fn(width, height, bit_depth, |_, _| value)
}

/// A diagonal ramp over the full range.
pub fn gradient(width: u32, height: u32, bit_depth: u32) -> LumaFrame {
    let span = (width + height).max(2) as u64 - 2;
    from_fn(width, height, bit_depth, |x, y| {
        ((x + y) as u64 * peak(bit_depth) as u64 / span.max(1)) as u32
    })
}

/// A small deterministic generator (xorshift64*), enough for test planes.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is mapped to a fixed non-zero state).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n as u64) as u32
    }
}

/// Uniform noise over the full range.
pub fn noise(width: u32, height: u32, bit_depth: u32, seed: u64) -> LumaFrame {
    let mut rng = Rng::new(seed);
    let n = peak(bit_depth) + 1;
    from_fn(width, height, bit_depth, |_, _| rng.below(n))
}

/// A smooth pattern plus mild noise: closer to video than pure noise.
pub fn textured(width: u32, height: u32, bit_depth: u32, seed: u64) -> LumaFrame {
    let mut rng = Rng::new(seed);
    let p = peak(bit_depth) as f64;
    from_fn(width, height, bit_depth, |x, y| {
        let base = 0.5 + 0.3 * ((x as f64 * 0.11).sin() * (y as f64 * 0.07).cos());
        let jitter = (rng.below(1000) as f64 / 1000.0 - 0.5) * 0.1;
        ((base + jitter).clamp(0.0, 1.0) * p).round() as u32
    })
}

/// `frame` with each sample moved by up to `amplitude` (seeded), clamped.
pub fn perturb(frame: &LumaFrame, amplitude: u32, seed: u64) -> LumaFrame {
    let mut rng = Rng::new(seed);
    let view = frame.view();
    from_fn(frame.width, frame.height, frame.bit_depth, |x, y| {
        let v = view.sample(x as usize, y as usize) as i64;
        let d = rng.below(2 * amplitude + 1) as i64 - amplitude as i64;
        (v + d).clamp(0, peak(frame.bit_depth) as i64) as u32
    })
}
