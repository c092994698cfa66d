//! The models built into vkssim, as libvmaf builds them in: libvmaf's own
//! JSON files (`engine/models/`, see its README for origin and licence).

/// The model used when none is named.
pub const DEFAULT_VERSION: &str = "vmaf_v0.6.1";

/// The built-in models: libvmaf's version name and the file's text.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("vmaf_v0.6.1", include_str!("../../models/vmaf_v0.6.1.json")),
    (
        "vmaf_v0.6.1neg",
        include_str!("../../models/vmaf_v0.6.1neg.json"),
    ),
    (
        "vmaf_4k_v0.6.1",
        include_str!("../../models/vmaf_4k_v0.6.1.json"),
    ),
    (
        "vmaf_b_v0.6.3",
        include_str!("../../models/vmaf_b_v0.6.3.json"),
    ),
];

/// The JSON text of built-in model `version`.
pub fn built_in(version: &str) -> Option<&'static str> {
    BUILT_IN
        .iter()
        .find(|(v, _)| *v == version)
        .map(|(_, text)| *text)
}
