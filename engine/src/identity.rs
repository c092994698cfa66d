//! One source of identities for the objects that must be told apart when
//! they come back (a frame slot and the scorer that handed it out, a shared
//! plane and the frame slots that read it): every call gives a number no
//! other object of the process has had.

use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A new identity, never 0 and never given before in this process.
pub(crate) fn next() -> u64 {
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn identities_are_new_each_time() {
        let (a, b) = (super::next(), super::next());
        assert!(a != 0 && b > a);
    }
}
