//! The per-frame score of libvmaf 2.3.1's motion (`integer_motion`, a sum of
//! absolute differences of two blurred frames, finished in float) and the
//! min rule that makes `integer_motion2` from consecutive frames' scores.

use super::{BlurredPlane, MotionOptions};
use crate::{Error, Result};

/// `integer_motion` of a frame from its blurred plane `current` and that of
/// the frame read before it, `previous` (`None` for the first frame, which
/// scores 0; `opts.force_zero` scores 0 too, and any plane will do then).
///
/// The sum of |previous - current| over the plane is kept per row in 32 bits
/// (wrapping, as libvmaf's `uint32_t` does) and in 64 bits over the rows;
/// the score is `(float)(sad / 256.0) / (float)(width * height)`, a float
/// division widened to f64. [`Error::InvalidOption`] when the two planes'
/// sizes differ.
pub fn motion_score(
    previous: Option<&BlurredPlane>,
    current: &BlurredPlane,
    opts: &MotionOptions,
) -> Result<f64> {
    let Some(previous) = previous.filter(|_| !opts.force_zero) else {
        return Ok(0.0);
    };
    if (previous.width, previous.height) != (current.width, current.height) {
        return Err(Error::InvalidOption(format!(
            "motion: the previous frame is {}x{}, the current one {}x{}",
            previous.width, previous.height, current.width, current.height
        )));
    }
    let w = current.width as usize;
    let mut sad = 0u64;
    if w > 0 {
        for (a, b) in previous
            .samples
            .chunks_exact(w)
            .zip(current.samples.chunks_exact(w))
        {
            let row = a.iter().zip(b).fold(0u32, |acc, (&p, &c)| {
                acc.wrapping_add((p as i32 - c as i32).unsigned_abs())
            });
            sad += row as u64;
        }
    }
    Ok(score_from_sad(sad, current.width, current.height))
}

/// Motion from the sum of absolute differences `sad` between two blurred
/// `width` x `height` planes (each row's sum modulo 2^32, added in 64 bits):
/// libvmaf's float finish, in its types and order.
pub(crate) fn score_from_sad(sad: u64, width: u32, height: u32) -> f64 {
    let pixels = width.wrapping_mul(height) as f32;
    ((sad as f64 / 256.0) as f32 / pixels) as f64
}

/// `integer_motion2` of frame n from `motion` (frame n's [`motion_score`])
/// and `next` (frame n+1's, or `None` when frame n is the last of the
/// stream): the smaller of the two, or `motion` alone for the last frame.
/// Frame 0's is 0 (its motion is 0).
pub fn motion2_at(motion: f64, next: Option<f64>) -> f64 {
    match next {
        Some(next) if next < motion => next,
        _ => motion,
    }
}

/// Every frame's `integer_motion2` from every frame's [`motion_score`], in
/// frame order, the whole stream (its last frame included): [`motion2_at`]
/// on each frame and its successor.
pub fn motion2(motion: &[f64]) -> Vec<f64> {
    (0..motion.len())
        .map(|n| motion2_at(motion[n], motion.get(n + 1).copied()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(samples: Vec<u16>) -> BlurredPlane {
        BlurredPlane {
            width: 3,
            height: 2,
            samples,
        }
    }

    #[test]
    fn float_finish() {
        let a = plane(vec![0; 6]);
        let b = plane(vec![256, 512, 0, 0, 0, 256]);
        let o = MotionOptions::default();
        assert_eq!(
            motion_score(Some(&a), &b, &o).unwrap(),
            (4.0f32 / 6.0) as f64
        );
        assert_eq!(motion_score(None, &b, &o).unwrap(), 0.0);
        let z = MotionOptions {
            force_zero: true,
            ..o
        };
        assert_eq!(motion_score(Some(&a), &b, &z).unwrap(), 0.0);
    }

    #[test]
    fn min_rule() {
        assert_eq!(motion2(&[]), Vec::<f64>::new());
        assert_eq!(motion2(&[0.0]), [0.0]);
        assert_eq!(motion2(&[0.0, 3.0]), [0.0, 3.0]);
        assert_eq!(motion2(&[0.0, 3.0, 2.0, 5.0]), [0.0, 2.0, 2.0, 5.0]);
    }
}
