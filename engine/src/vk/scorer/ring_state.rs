//! [`RingState`]: which slots of a scorer's ring are free, handed out to be
//! filled, or submitted and not yet scored, as a state machine with no Vulkan
//! in it (unit-tested without a device). The scorer keeps the Vulkan side:
//! it creates slots when every one is busy and finishes the oldest frame when
//! it needs room, as this state tells it.
//!
//! A slot is in one of three states: free; *filling* (handed out, in the
//! order handed out, coming back in any order); *pending* (submitted, in
//! submission order, which is the order results come out). Free slots are
//! taken round-robin from the one after the last taken, so a ring whose slots
//! come back in order is used in order.

use std::collections::VecDeque;

/// See the module documentation.
#[derive(Debug, Default)]
pub(crate) struct RingState {
    /// Submitted and not yet scored, oldest first.
    pending: VecDeque<usize>,
    /// Handed out, in the order handed out.
    filling: VecDeque<usize>,
    /// Where the search for a free slot starts.
    next: usize,
}

impl RingState {
    /// Slots that are not free.
    pub(crate) fn busy(&self) -> usize {
        self.pending.len() + self.filling.len()
    }

    /// Whether no slot of a ring of `slots` is free.
    pub(crate) fn all_busy(&self, slots: usize) -> bool {
        self.busy() >= slots
    }

    /// The free slot [`RingState::take_free`] would take in a ring of `slots`.
    pub(crate) fn next_free(&self, slots: usize) -> Option<usize> {
        let busy = |i: &usize| self.pending.contains(i) || self.filling.contains(i);
        (0..slots)
            .map(|k| (self.next + k) % slots.max(1))
            .find(|i| !busy(i))
    }

    /// Takes the next free slot of a ring of `slots` (still free until it is
    /// handed out or submitted).
    pub(crate) fn take_free(&mut self, slots: usize) -> Option<usize> {
        let i = self.next_free(slots)?;
        self.next = (i + 1) % slots;
        Some(i)
    }

    /// Slot `i` is handed out to be filled.
    pub(crate) fn hand_out(&mut self, i: usize) {
        self.filling.push_back(i);
    }

    /// Whether slot `i` is handed out.
    #[cfg(test)]
    pub(crate) fn is_filling(&self, i: usize) -> bool {
        self.filling.contains(&i)
    }

    /// Slots handed out.
    pub(crate) fn filling(&self) -> usize {
        self.filling.len()
    }

    /// Slot `i`, taken free (or taken back), is submitted: it is the newest
    /// pending slot.
    pub(crate) fn submit_taken(&mut self, i: usize) {
        self.pending.push_back(i);
    }

    /// Slot `i` comes back from whoever filled it (it is free until it is
    /// submitted with [`RingState::submit_taken`]); `false` when it was not
    /// handed out.
    pub(crate) fn take_back(&mut self, i: usize) -> bool {
        let Some(k) = self.filling.iter().position(|&s| s == i) else {
            return false;
        };
        self.filling.remove(k);
        true
    }

    /// Every handed-out slot comes back unused.
    pub(crate) fn reclaim_all(&mut self) {
        self.filling.clear();
    }

    /// Slots pending.
    pub(crate) fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The `k`-th oldest pending slot.
    pub(crate) fn pending_at(&self, k: usize) -> Option<usize> {
        self.pending.get(k).copied()
    }

    /// The oldest pending slot.
    pub(crate) fn oldest(&self) -> Option<usize> {
        self.pending.front().copied()
    }

    /// The oldest pending slot is scored: it is free again.
    pub(crate) fn finish_oldest(&mut self) -> Option<usize> {
        self.pending.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_go_round_robin_and_results_come_in_submission_order() {
        let mut r = RingState::default();
        let n = 3;
        let a = r.take_free(n).unwrap();
        r.hand_out(a);
        let b = r.take_free(n).unwrap();
        r.hand_out(b);
        assert_eq!((a, b), (0, 1));
        // Given back out of order: b is scored first.
        assert!(r.take_back(b));
        r.submit_taken(b);
        assert!(r.take_back(a));
        r.submit_taken(a);
        assert_eq!((r.oldest(), r.pending_at(1)), (Some(1), Some(0)));
        let c = r.take_free(n).unwrap();
        r.hand_out(c);
        assert_eq!(c, 2);
        assert!(r.all_busy(n));
        assert_eq!((r.next_free(n), r.take_free(n)), (None, None));
        assert_eq!(r.finish_oldest(), Some(1));
        // The search goes on after the last one taken, wrapping round.
        assert_eq!(r.take_free(n), Some(1));
        assert_eq!((r.busy(), r.filling(), r.pending()), (2, 1, 1));
    }

    #[test]
    fn a_slot_comes_back_once() {
        let mut r = RingState::default();
        let i = r.take_free(2).unwrap();
        r.hand_out(i);
        assert!(r.is_filling(i));
        assert!(r.take_back(i));
        r.submit_taken(i);
        assert!(!r.take_back(i), "twice, or submitted: not handed out");
        let j = r.take_free(2).unwrap();
        r.hand_out(j);
        assert!(r.take_back(j));
        assert!(!r.is_filling(j));
        assert_eq!(r.next_free(2), Some(j));
        r.hand_out(j);
        r.reclaim_all();
        assert_eq!((r.filling(), r.pending()), (0, 1));
    }

    #[test]
    fn a_pair_already_on_the_device_is_submitted_without_being_handed_out() {
        let mut r = RingState::default();
        let i = r.take_free(1).unwrap();
        r.submit_taken(i);
        assert!(r.all_busy(1));
        assert_eq!(r.finish_oldest(), Some(i));
        assert_eq!(r.finish_oldest(), None);
        assert!(!r.all_busy(1));
    }
}
