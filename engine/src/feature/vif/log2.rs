//! The fixed-point base-2 logarithm of libvmaf's integer VIF: a 32768-entry
//! table of `log2(i)` in Q11 for `i` in 32768..=65535, and the two lookups
//! that normalise a 32 or 64-bit argument into that range.

use std::sync::OnceLock;

/// `2048 * log2(σ_nsq)`, σ_nsq = 131072 = 2^17: what `log2_32` of the noise
/// variance alone gives, subtracted from every denominator term.
pub(crate) const LOG2_NSQ: i64 = 2048 * 17;

/// The table: entry `i - 32768` is `2048 * log2(i)` rounded half away from
/// zero, where the logarithm is first rounded to binary32 (libvmaf takes it
/// from `log2f((float)i)`; skipping that rounding changes 38 entries).
pub(crate) fn table() -> &'static [u16; 32768] {
    static TABLE: OnceLock<Box<[u16; 32768]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0u16; 32768]);
        for (k, entry) in t.iter_mut().enumerate() {
            let log = log2_binary32(32768 + k as u32);
            // The product with 2048 is exact in binary32 and widened exactly.
            *entry = (f64::from(log) * 2048.0).round() as u16;
        }
        t
    })
}

/// `log2(i)` correctly rounded to binary32 (what glibc's `log2f` returns for
/// every entry of the table). The binary64 logarithm is within one binary64
/// ulp of the true value, so rounding it to binary32 is correct unless the
/// true value lies within that distance of a binary32 midpoint; the test
/// `table_uses_binary32_logs` checks the table against the platform's `log2f`.
fn log2_binary32(i: u32) -> f32 {
    f64::from(i).log2() as f32
}

/// `2048 * log2(x)` for `x >= 2^16` (libvmaf's `log2_32`): `x` shifted right
/// (truncating) until its top bit is bit 15, looked up, plus 2048 per shift.
#[cfg(test)]
pub(crate) fn log2_32(x: u32) -> i64 {
    debug_assert!(x >= 1 << 16);
    let shift = 16 - x.leading_zeros();
    i64::from(table()[(x >> shift) as usize - 32768]) + 2048 * i64::from(shift)
}

/// `2048 * log2(x)` for `x >= 2^16` (libvmaf's `log2_64`), as `log2_32`.
#[cfg(test)]
pub(crate) fn log2_64(x: u64) -> i64 {
    log2_in(table(), x)
}

/// `2048 * log2(x)` for `x >= 2^16` (libvmaf's `log2_64`, and its `log2_32`
/// of a 32-bit `x`) from the [`table`] `t`, which callers in a loop fetch
/// once.
#[inline(always)]
pub(crate) fn log2_in(t: &[u16; 32768], x: u64) -> i64 {
    debug_assert!(x >= 1 << 16);
    let shift = 48 - x.leading_zeros();
    // The shifted value's top bit is bit 15: its low 15 bits index the table.
    i64::from(t[(x >> shift) as usize & 0x7fff]) + 2048 * i64::from(shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_uses_binary32_logs() {
        let t = table();
        let mut differ_from_binary64 = 0;
        for i in 32768u32..=65535 {
            let from_log2f = (f64::from((i as f32).log2()) * 2048.0).round();
            assert_eq!(f64::from(t[(i - 32768) as usize]), from_log2f, "entry {i}");
            if (f64::from(i).log2() * 2048.0).round() != from_log2f {
                differ_from_binary64 += 1;
            }
        }
        assert_eq!(differ_from_binary64, 38);
        assert_eq!(t[0], 30720);
        assert_eq!(t[32767], 32768);
    }

    #[test]
    fn lookups_normalise_to_bit_15() {
        assert_eq!(log2_32(1 << 17), LOG2_NSQ);
        assert_eq!(log2_64(1 << 17), LOG2_NSQ);
        assert_eq!(log2_64(1 << 40), 2048 * 40);
        // 3 * 2^17 = 49152 << 3.
        assert_eq!(
            log2_32(3 << 17),
            i64::from(table()[49152 - 32768]) + 3 * 2048
        );
        assert_eq!(log2_32(u32::MAX), log2_64(u64::from(u32::MAX)));
    }
}
