//! Per-thread reuse of ADM's band-sized buffers. A frame fills some twenty
//! int32 planes of a quarter of the picture each (bands, decoupled parts,
//! weighted parts); fresh ones for every frame cost more in page faults than
//! the arithmetic on them. Buffers come from here with stale values (every
//! caller writes each of its values before reading it), and those given back
//! wait for the thread's next frame.

use std::cell::RefCell;

/// The most buffers a thread keeps.
const KEEP: usize = 32;

thread_local! {
    static FREE: RefCell<Vec<Vec<i32>>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `n` values, given back earlier on this thread when there is
/// one: its values are unspecified (stale or zero), so the caller must
/// write every one of them before reading any.
pub(super) fn filled_later(n: usize) -> Vec<i32> {
    let mut v = FREE.with(|f| f.borrow_mut().pop()).unwrap_or_default();
    v.truncate(n);
    v.resize(n, 0);
    v
}

/// Keeps `buffers` for this thread's next [`filled_later`] calls.
pub(super) fn give(buffers: impl IntoIterator<Item = Vec<i32>>) {
    FREE.with(|f| {
        let mut f = f.borrow_mut();
        for v in buffers {
            if f.len() < KEEP {
                f.push(v);
            }
        }
    });
}
