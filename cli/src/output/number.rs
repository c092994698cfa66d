//! Number formatting that matches C's `printf`, so vkssim's files read exactly
//! like libvmaf's: `%.Nf` for the metric values (libvmaf uses `%.6f`) and `%.17g`
//! for `--precision max`, which prints every fp64 exactly enough to round-trip.

use std::fmt;
use std::str::FromStr;

/// How many digits the metric values get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `%.Nf`: N digits after the point (libvmaf: 6).
    Fixed(usize),
    /// `%.17g`: 17 significant digits, enough to give back the exact fp64.
    Max,
}

impl Precision {
    /// The most digits after the point [`Precision::Fixed`] takes.
    pub const MAX_DIGITS: usize = 40;
}

impl Default for Precision {
    fn default() -> Self {
        Precision::Fixed(6)
    }
}

impl FromStr for Precision {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "max" {
            return Ok(Precision::Max);
        }
        match s.parse::<usize>() {
            Ok(n) if n <= Self::MAX_DIGITS => Ok(Precision::Fixed(n)),
            _ => Err(format!(
                "`{s}` is not a precision: give a number of digits after the point (0 to 40) or `max`"
            )),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Precision::Fixed(n) => write!(f, "{n}"),
            Precision::Max => f.write_str("max"),
        }
    }
}

/// Formats `v` as C's `printf` would with this precision (`%.Nf` or `%.17g`),
/// including glibc's spelling of the special values (`inf`, `-inf`, `nan`,
/// `-nan`).
pub fn format_value(v: f64, precision: Precision) -> String {
    if let Some(s) = special(v) {
        return s.to_string();
    }
    match precision {
        Precision::Fixed(n) => format!("{v:.n$}"),
        Precision::Max => format_g17(v),
    }
}

/// `%.2f`, the format libvmaf uses for fps.
pub fn format_fixed(v: f64, digits: usize) -> String {
    match special(v) {
        Some(s) => s.to_string(),
        None => format!("{v:.digits$}"),
    }
}

/// glibc's spelling of infinities and NaNs, `None` for finite values.
fn special(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some(if v.is_sign_negative() { "-nan" } else { "nan" })
    } else if v.is_infinite() {
        Some(if v < 0.0 { "-inf" } else { "inf" })
    } else {
        None
    }
}

/// C's `%.17g` for a finite value: 17 significant digits, trailing zeros
/// removed, exponent form when the decimal exponent is below -4 or at least 17.
fn format_g17(v: f64) -> String {
    const P: i32 = 17;
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Rust's `{:.16e}` rounds exactly, like glibc, to 17 significant digits; its
    // exponent is the one `%g` decides with.
    let e_form = format!("{v:.16e}");
    let (mantissa, exp) = e_form
        .split_once('e')
        .expect("`{:e}` output always holds an `e`");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    if !(-4..P).contains(&exp) {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (P - 1 - exp) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

/// Removes trailing zeros after a decimal point, and the point if nothing follows.
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_matches_printf_spelling() {
        assert_eq!(format_value(0.5, Precision::Fixed(6)), "0.500000");
        assert_eq!(format_value(-0.0, Precision::Fixed(6)), "-0.000000");
        assert_eq!(format_value(f64::INFINITY, Precision::Fixed(6)), "inf");
        assert_eq!(format_value(f64::NEG_INFINITY, Precision::Fixed(6)), "-inf");
        assert_eq!(format_value(f64::NAN, Precision::Fixed(6)), "nan");
        // An exact tie rounds to even, as glibc does.
        assert_eq!(format_value(0.125, Precision::Fixed(2)), "0.12");
        assert_eq!(format_value(0.375, Precision::Fixed(2)), "0.38");
    }

    #[test]
    fn g17_matches_printf() {
        // Each expected string is what glibc's printf("%.17g") prints.
        assert_eq!(format_value(1.0, Precision::Max), "1");
        assert_eq!(format_value(0.1, Precision::Max), "0.10000000000000001");
        assert_eq!(format_value(1e-5, Precision::Max), "1.0000000000000001e-05");
        assert_eq!(format_value(0.0001, Precision::Max), "0.0001");
        assert_eq!(format_value(1e17, Precision::Max), "1e+17");
        assert_eq!(
            format_value(12345678901234567.0, Precision::Max),
            "12345678901234568"
        );
        assert_eq!(format_value(-2.5, Precision::Max), "-2.5");
        assert_eq!(format_value(0.0, Precision::Max), "0");
    }

    #[test]
    fn g17_round_trips_every_f32_value_it_is_given() {
        let mut x = 0x1234_5678u32;
        for _ in 0..10_000 {
            // xorshift32: deterministic, spread over all exponents.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let f = f32::from_bits(x);
            if !f.is_finite() {
                continue;
            }
            let v = f as f64;
            let s = format_value(v, Precision::Max);
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{s}");
        }
    }

    #[test]
    fn precision_parses() {
        assert_eq!("max".parse::<Precision>(), Ok(Precision::Max));
        assert_eq!("3".parse::<Precision>(), Ok(Precision::Fixed(3)));
        assert!("x".parse::<Precision>().is_err());
        assert!("-1".parse::<Precision>().is_err());
    }
}
