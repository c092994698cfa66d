//! Per-thread reuse of ADM's band-sized buffers. A frame fills some twenty
//! int32 planes of a quarter of the picture each (bands, decoupled parts,
//! weighted parts); fresh ones for every frame cost more in page faults than
//! the arithmetic on them. Buffers come from here zeroed, and those given
//! back wait for the thread's next frame.

use std::cell::RefCell;

/// The most buffers a thread keeps.
const KEEP: usize = 32;

thread_local! {
    static FREE: RefCell<Vec<Vec<i32>>> = const { RefCell::new(Vec::new()) };
}

/// `n` zeros, in a buffer given back earlier on this thread when there is one.
pub(super) fn zeroed(n: usize) -> Vec<i32> {
    let mut v = FREE.with(|f| f.borrow_mut().pop()).unwrap_or_default();
    v.clear();
    v.resize(n, 0);
    v
}

/// Keeps `buffers` for this thread's next [`zeroed`] calls.
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
