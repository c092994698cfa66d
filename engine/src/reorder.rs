//! [`Reorder`]: items that arrive out of order, each with its index, handed on
//! in index order (the CPU twin's results from its worker threads, the
//! command line's reads from its reader threads).

use std::collections::BTreeMap;

/// Items by index, released in index order from a starting index (see the
/// module note).
///
/// ```
/// let mut r = vkssim::testing::Reorder::new();
/// r.insert(1, "b");
/// assert_eq!(r.pop_ready(), None); // 0 has not come
/// r.insert(0, "a");
/// assert_eq!((r.pop_ready(), r.pop_ready(), r.pop_ready()), (Some("a"), Some("b"), None));
/// assert_eq!(r.next_index(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct Reorder<T> {
    next: u64,
    waiting: BTreeMap<u64, T>,
}

impl<T> Default for Reorder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Reorder<T> {
    /// An empty buffer whose first index is 0.
    pub fn new() -> Self {
        Self {
            next: 0,
            waiting: BTreeMap::new(),
        }
    }

    /// Keeps `item`, the one of index `index`, until it is next. An index
    /// already released is ignored; one already waiting is replaced.
    pub fn insert(&mut self, index: u64, item: T) {
        if index >= self.next {
            self.waiting.insert(index, item);
        }
    }

    /// The next item in order, when it has arrived (the next index moves on).
    pub fn pop_ready(&mut self) -> Option<T> {
        let item = self.waiting.remove(&self.next)?;
        self.next += 1;
        Some(item)
    }

    /// Whether the next item in order has arrived.
    pub fn has_ready(&self) -> bool {
        self.waiting.contains_key(&self.next)
    }

    /// The index of the next item to release.
    pub fn next_index(&self) -> u64 {
        self.next
    }

    /// Moves past the next index without its item (one that will never
    /// come); gives that index.
    pub fn skip(&mut self) -> u64 {
        self.waiting.remove(&self.next);
        self.next += 1;
        self.next - 1
    }

    /// Items that arrived and wait for an earlier one.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any arrival order comes out in index order, each item once.
        #[test]
        fn any_order_comes_out_sorted(order in Just((0u64..40).collect::<Vec<_>>()).prop_shuffle()) {
            let mut r = Reorder::new();
            let mut out = Vec::new();
            for i in order {
                r.insert(i, i * 10);
                while let Some(v) = r.pop_ready() {
                    out.push(v);
                }
            }
            prop_assert_eq!(out, (0..40).map(|i| i * 10).collect::<Vec<_>>());
            prop_assert_eq!(r.waiting(), 0);
        }
    }

    #[test]
    fn a_skipped_index_is_passed_and_late_items_ignored() {
        let mut r = Reorder::new();
        r.insert(1, 'b');
        assert!(!r.has_ready());
        assert_eq!(r.skip(), 0);
        assert!(r.has_ready());
        assert_eq!(r.pop_ready(), Some('b'));
        r.insert(0, 'z');
        assert_eq!((r.pop_ready(), r.waiting()), (None, 0));
    }
}
