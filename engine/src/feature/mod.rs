//! libvmaf's feature extractors (the pieces a VMAF model reads), each an
//! exact CPU twin of libvmaf's reference C path in its own folder.

pub mod vif;
//! libvmaf's VMAF feature extractors (integer VIF, ADM and motion), each an
//! exact CPU twin of libvmaf's reference C path, one folder per extractor.
pub mod adm;
