//! libvmaf's feature extractors (the pieces a VMAF model reads), each an
//! exact CPU twin of libvmaf's reference C path in its own folder.

pub mod vif;
