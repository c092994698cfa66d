//! Words around numbers in messages: a counted noun in the singular or the
//! plural (`1 frame`, `2 frames`), and the article before a number (`an
//! 11x11 frame`, `a 64x48 frame`), so that no message reads `1 common
//! frames` or `a 8-bit`.

/// `n` and `noun`, plural (an `s` added) unless `n` is 1: `1 frame`,
/// `0 frames`, `3 common frames`.
pub fn count(n: u64, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} {noun}{s}")
}

/// The article before the number `n` as English says it: `an` before
/// eight, eleven and eighteen (8, 11, 18, 80 to 89, 800 to 899, 8 000,
/// 11 000, 18 000, ...), `a` otherwise.
pub fn article(n: u64) -> &'static str {
    let digits = n.to_string();
    // The number said first: the leading group of up to three digits.
    let lead = match digits.len() % 3 {
        0 => 3,
        k => k,
    };
    let group = &digits[..lead];
    if group.starts_with('8') || group == "11" || group == "18" {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_nouns_and_articles() {
        assert_eq!(count(1, "common frame"), "1 common frame");
        assert_eq!(count(0, "frame"), "0 frames");
        assert_eq!(count(2, "frame"), "2 frames");
        for n in [
            8, 11, 18, 80, 89, 800, 899, 8000, 8192, 11_000, 18_000, 800_000,
        ] {
            assert_eq!(article(n), "an", "{n}");
        }
        for n in [
            0, 1, 7, 10, 12, 64, 110, 118, 180, 1100, 1800, 1920, 110_000,
        ] {
            assert_eq!(article(n), "a", "{n}");
        }
    }
}
