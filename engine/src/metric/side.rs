//! [`SideValues`]: what a metric keeps of a frame beside its outputs, by
//! name and exactly, for the values it gives later (libvmaf's `flush`):
//! `psnr`'s integer sums of squared errors for the run's `apsnr`,
//! `float_ssim`'s plain mean when it reports dB. A frame's score carries
//! them to the run's collector, which hands every frame's to the metric's
//! [`super::Extractor::aggregate`]. They are never written as outputs.

/// One kept value: an exact integer or an fp64 value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Count(u64),
    Real(f64),
}

/// Values kept without a heap allocation: enough for every metric's of a
/// frame today (psnr's three sums, float_ssim's mean); more spill to a
/// vector.
const INLINE: usize = 4;

/// A frame's side values by name, in the order they were kept (see the
/// module note). A name appears at most once.
///
/// ```
/// use vkssim::metric::SideValues;
/// let mut v = SideValues::default();
/// v.push_count("psnr_sse_y", 1 << 60);
/// assert_eq!(v.count("psnr_sse_y"), Some(1 << 60));
/// assert_eq!(v.real("psnr_sse_y"), None);
/// ```
#[derive(Clone, Default)]
pub struct SideValues {
    /// The first `len` (at most [`INLINE`]) values.
    inline: [(&'static str, Value); INLINE],
    len: usize,
    /// The values after those.
    more: Vec<(&'static str, Value)>,
}

impl Default for Value {
    fn default() -> Self {
        Value::Count(0)
    }
}

impl SideValues {
    /// Keeps the integer `value` as `name`.
    ///
    /// Panics if `name` is already kept (a metric keeping one value twice
    /// is a bug in vkssim, never bad input).
    pub fn push_count(&mut self, name: &'static str, value: u64) {
        self.push(name, Value::Count(value));
    }

    /// Keeps the fp64 `value` as `name` (panics as
    /// [`SideValues::push_count`]).
    pub fn push_real(&mut self, name: &'static str, value: f64) {
        self.push(name, Value::Real(value));
    }

    /// The integer kept as `name`, if any.
    pub fn count(&self, name: &str) -> Option<u64> {
        match self.get(name)? {
            Value::Count(v) => Some(v),
            Value::Real(_) => None,
        }
    }

    /// The fp64 value kept as `name`, if any.
    pub fn real(&self, name: &str) -> Option<f64> {
        match self.get(name)? {
            Value::Real(v) => Some(v),
            Value::Count(_) => None,
        }
    }

    /// Keeps every value of `other` after these.
    pub fn extend(&mut self, other: &SideValues) {
        for &(name, value) in other.iter() {
            self.push(name, value);
        }
    }

    fn iter(&self) -> impl Iterator<Item = &(&'static str, Value)> + '_ {
        self.inline[..self.len].iter().chain(&self.more)
    }

    fn push(&mut self, name: &'static str, value: Value) {
        assert!(self.get(name).is_none(), "side value {name} kept twice");
        if self.len < INLINE {
            self.inline[self.len] = (name, value);
            self.len += 1;
        } else {
            self.more.push((name, value));
        }
    }

    fn get(&self, name: &str) -> Option<Value> {
        self.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

impl PartialEq for SideValues {
    /// The same names with the same values, in the same order (`==` on each
    /// value, as an `f64` compares).
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for SideValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(n, v)| (n, v)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_values_by_name_and_kind() {
        let mut a = SideValues::default();
        a.push_count("n", u64::MAX);
        a.push_real("x", -0.5);
        let mut b = SideValues::default();
        b.extend(&a);
        assert_eq!(b, a);
        // Beyond the inline values.
        for (k, name) in ["p", "q", "r", "s"].into_iter().enumerate() {
            b.push_count(name, k as u64);
        }
        assert_eq!(
            (b.count("s"), b.count("p"), b.real("x")),
            (Some(3), Some(0), Some(-0.5))
        );
        assert_ne!(b, a);
        assert_eq!((b.count("n"), b.real("x")), (Some(u64::MAX), Some(-0.5)));
        assert_eq!(
            (b.real("n"), b.count("x"), b.count("y")),
            (None, None, None)
        );
    }

    #[test]
    #[should_panic(expected = "kept twice")]
    fn a_name_twice_is_a_bug() {
        let mut a = SideValues::default();
        a.push_count("n", 1);
        a.push_real("n", 2.0);
    }
}
