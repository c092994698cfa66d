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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideValues {
    values: Vec<(&'static str, Value)>,
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
        for &(name, value) in &other.values {
            self.push(name, value);
        }
    }

    fn push(&mut self, name: &'static str, value: Value) {
        assert!(self.get(name).is_none(), "side value {name} kept twice");
        if self.values.capacity() == 0 {
            // One allocation per frame for the few values metrics keep.
            self.values.reserve_exact(4);
        }
        self.values.push((name, value));
    }

    fn get(&self, name: &str) -> Option<Value> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
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
