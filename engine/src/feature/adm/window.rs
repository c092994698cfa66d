//! The active window of a band: ADM scores only the centre of each band,
//! leaving out about a tenth of its width and height on each side.

/// A band's active window, half-open: rows `top..bottom`, columns `left..right`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Window {
    /// First row.
    pub top: usize,
    /// One past the last row.
    pub bottom: usize,
    /// First column.
    pub left: usize,
    /// One past the last column.
    pub right: usize,
}

/// `(int)(n · 0.1 - 0.5)`: what the window leaves out at each end of `n`.
fn margin(n: usize) -> usize {
    (n as f64 * 0.1 - 0.5).max(0.0) as usize
}

impl Window {
    /// The window of a `width x height` band.
    pub fn of(width: usize, height: usize) -> Self {
        let (mx, my) = (margin(width), margin(height));
        Self {
            top: my,
            bottom: height - my,
            left: mx,
            right: width - mx,
        }
    }

    /// Samples in the window.
    pub fn area(&self) -> usize {
        (self.bottom - self.top) * (self.right - self.left)
    }
}

/// `ceil(log2(n))` for `n ≥ 1`.
pub(super) fn ceil_log2(n: usize) -> u32 {
    (n as f64).log2().ceil() as u32
}

/// `(v + 2^(shift-1)) >> shift`, or `v` when `shift` is 0.
#[inline]
pub(super) fn round_shift_i64(v: i64, shift: u32) -> i64 {
    if shift == 0 {
        v
    } else {
        (v + (1i64 << (shift - 1))) >> shift
    }
}

/// `(v + 2^(shift-1)) >> shift`, or `v` when `shift` is 0.
#[inline]
pub(super) fn round_shift_u64(v: u64, shift: u32) -> u64 {
    if shift == 0 {
        v
    } else {
        (v + (1u64 << (shift - 1))) >> shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_of_960_is_95_to_865() {
        let w = Window::of(960, 540);
        assert_eq!((w.left, w.right), (95, 865));
        assert_eq!((w.top, w.bottom), (53, 487));
    }
}
