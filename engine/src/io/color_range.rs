//! The colour range an input declares ([`DeclaredRange`]): a Y4M header's
//! `XCOLORRANGE=FULL|LIMITED`, an encoded stream's `color_range` or its
//! full-range (`yuvj`) pixel format. Raw YUV declares none. Scoring never
//! converts a range (libvmaf does not): the declaration is for telling the
//! user when two inputs' ranges differ.

use std::fmt;

/// A sample range: limited ("tv", luma 16 to 235 at 8 bits) or full ("pc",
/// 0 to 255).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorRange {
    /// Limited (studio, "tv", MPEG) range.
    Limited,
    /// Full ("pc", JPEG) range.
    Full,
}

impl fmt::Display for ColorRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ColorRange::Limited => "limited",
            ColorRange::Full => "full",
        })
    }
}

/// A range an input declares, and how it declares it, in the input's own
/// words (`XCOLORRANGE=FULL`, `color_range tv`, `pixel format yuvj420p`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeclaredRange {
    /// The range.
    pub range: ColorRange,
    /// Where the input says so.
    pub declared_by: String,
}

impl fmt::Display for DeclaredRange {
    /// `full range (XCOLORRANGE=FULL)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} range ({})", self.range, self.declared_by)
    }
}

/// Whether two inputs' declarations differ in range: one declares full
/// range and the other declares limited range or nothing (video without a
/// declaration is limited range by convention). Two inputs that declare
/// nothing, or limited and nothing, do not differ.
pub fn ranges_differ(a: Option<&DeclaredRange>, b: Option<&DeclaredRange>) -> bool {
    let range = |d: Option<&DeclaredRange>| d.map_or(ColorRange::Limited, |d| d.range);
    range(a) != range(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(range: ColorRange) -> DeclaredRange {
        DeclaredRange {
            range,
            declared_by: "test".into(),
        }
    }

    #[test]
    fn full_differs_from_limited_and_from_none_only() {
        let (full, limited) = (declared(ColorRange::Full), declared(ColorRange::Limited));
        assert!(ranges_differ(Some(&full), Some(&limited)));
        assert!(ranges_differ(None, Some(&full)));
        assert!(!ranges_differ(Some(&full), Some(&full)));
        assert!(!ranges_differ(Some(&limited), None));
        assert!(!ranges_differ(None, None));
        assert_eq!(full.to_string(), "full range (test)");
    }
}
