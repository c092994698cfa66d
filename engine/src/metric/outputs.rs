//! [`MetricOutputs`]: the values one metric (or several) reports for one frame,
//! or at the end of a run, each under its libvmaf name and in the order the
//! `vmaf` CLI writes them.

/// Most values one frame reports (every metric together); a metric set that
/// would report more is refused when it is checked
/// ([`super::MetricSet::new`]).
pub const MAX_OUTPUTS: usize = 40;

/// Named fp64 values in libvmaf's output order (`psnr_y`, `mse_y`, `psnr_cb`,
/// ...). A name appears at most once. Held inline (at most [`MAX_OUTPUTS`]),
/// so that a [`crate::FrameScore`] stays `Copy`.
///
/// ```
/// use vkssim::metric::outputs::MetricOutputs;
/// let mut o = MetricOutputs::new();
/// o.push("psnr_y", 40.5);
/// o.push("psnr_cb", 45.0);
/// assert_eq!(o.get("psnr_cb"), Some(45.0));
/// assert_eq!(o.names().collect::<Vec<_>>(), ["psnr_y", "psnr_cb"]);
/// ```
#[derive(Clone, Copy)]
pub struct MetricOutputs {
    values: [(&'static str, f64); MAX_OUTPUTS],
    len: usize,
}

impl Default for MetricOutputs {
    fn default() -> Self {
        Self {
            values: [("", 0.0); MAX_OUTPUTS],
            len: 0,
        }
    }
}

impl PartialEq for MetricOutputs {
    /// The same names in the same order with the same values (`==` on each
    /// value, so a NaN differs from itself as an `f64` does).
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
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

    fn as_slice(&self) -> &[(&'static str, f64)] {
        &self.values[..self.len]
    }

    /// Appends `name = value` after the values already there.
    ///
    /// Panics if `name` is already there or [`MAX_OUTPUTS`] values are (a
    /// metric naming one output twice, or a set of metrics that was not
    /// checked, is a bug in vkssim, never bad input).
    pub fn push(&mut self, name: &'static str, value: f64) {
        assert!(
            self.get(name).is_none(),
            "metric output {name} reported twice"
        );
        assert!(
            self.len < MAX_OUTPUTS,
            "more than {MAX_OUTPUTS} metric outputs in one frame"
        );
        self.values[self.len] = (name, value);
        self.len += 1;
    }

    /// Appends every value of `other`, in its order.
    ///
    /// Panics if a name is in both (see [`MetricOutputs::push`]).
    pub fn extend(&mut self, other: &MetricOutputs) {
        for (name, value) in other.iter() {
            self.push(name, value);
        }
    }

    /// The value reported as `name`, if any.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.as_slice()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }

    /// `(name, value)` pairs in output order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.as_slice().iter().copied()
    }

    /// The names in output order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.as_slice().iter().map(|&(n, _)| n)
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<'a> IntoIterator for &'a MetricOutputs {
    type Item = (&'static str, f64);
    type IntoIter = std::iter::Copied<std::slice::Iter<'a, (&'static str, f64)>>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter().copied()
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
        let pairs: Vec<_> = (&a).into_iter().map(|(n, _)| n).collect();
        assert_eq!(pairs, ["x", "z", "y"]);
    }

    #[test]
    #[should_panic(expected = "reported twice")]
    fn a_name_twice_is_a_bug() {
        let mut a = MetricOutputs::new();
        a.push("x", 1.0);
        a.push("x", 2.0);
    }
}
