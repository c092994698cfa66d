//! [`MetricOutputs`]: the values one metric (or several) reports for one frame,
//! or at the end of a run, each under its libvmaf name and in the order the
//! `vmaf` CLI writes them.

use std::borrow::Cow;

/// Named fp64 values in libvmaf's output order (`psnr_y`, `mse_y`, `psnr_cb`,
/// ...). A name appears at most once; there may be any number of them (VMAF's
/// extractors and a bootstrap model report dozens), and a name is either
/// static (a metric's own) or owned (a model named at run time).
///
/// ```
/// use vkssim::metric::outputs::MetricOutputs;
/// let mut o = MetricOutputs::new();
/// o.push("psnr_y", 40.5);
/// o.push("psnr_cb", 45.0);
/// assert_eq!(o.get("psnr_cb"), Some(45.0));
/// assert_eq!(o.names().collect::<Vec<_>>(), ["psnr_y", "psnr_cb"]);
/// ```
#[derive(Clone, Default, PartialEq)]
pub struct MetricOutputs {
    /// `==` on each value, so a NaN differs from itself as an `f64` does.
    values: Vec<(Cow<'static, str>, f64)>,
}

impl std::fmt::Debug for MetricOutputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl MetricOutputs {
    /// No values.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `name = value` after the values already there.
    ///
    /// Panics if `name` is already there (a metric naming one output twice,
    /// or a set of metrics that was not checked, is a bug in vkssim, never
    /// bad input).
    pub fn push(&mut self, name: impl Into<Cow<'static, str>>, value: f64) {
        let name = name.into();
        assert!(
            self.get(&name).is_none(),
            "metric output {name} reported twice"
        );
        self.values.push((name, value));
    }

    /// Appends every value of `other`, in its order.
    ///
    /// Panics if a name is in both (see [`MetricOutputs::push`]).
    pub fn extend(&mut self, other: &MetricOutputs) {
        for (name, value) in &other.values {
            self.push(name.clone(), *value);
        }
    }

    /// The value reported as `name`, if any.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// Sets the value already reported as `name` (a value that arrives late:
    /// one that needs the next frame); `false` when there is no such name.
    pub fn set(&mut self, name: &str, value: f64) -> bool {
        match self.values.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => {
                *v = value;
                true
            }
            None => false,
        }
    }

    /// `(name, value)` pairs in output order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        self.values.iter().map(|(n, v)| (n.as_ref(), *v))
    }

    /// The names in output order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.values.iter().map(|(n, _)| n.as_ref())
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_finds_by_name() {
        let mut a = MetricOutputs::new();
        assert!(a.is_empty());
        a.push("x", 1.0);
        let mut b = MetricOutputs::new();
        b.push("z", f64::NAN);
        b.push("y", 2.0);
        a.extend(&b);
        assert_eq!(a.len(), 3);
        assert_eq!(a.names().collect::<Vec<_>>(), ["x", "z", "y"]);
        assert!(a.get("z").unwrap().is_nan());
        assert_eq!(a.get("w"), None);
        assert!(a.set("z", 3.0) && !a.set("w", 1.0));
        assert_eq!(a.get("z"), Some(3.0));
        let mut many = MetricOutputs::new();
        for k in 0..100 {
            many.push(format!("v{k}"), k as f64);
        }
        assert_eq!(many.get("v99"), Some(99.0));
    }

    #[test]
    #[should_panic(expected = "reported twice")]
    fn a_name_twice_is_a_bug() {
        let mut a = MetricOutputs::new();
        a.push("x", 1.0);
        a.push("x", 2.0);
    }
}
