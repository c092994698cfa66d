//! libvmaf's VMAF feature extractors (integer VIF, ADM and motion), each an
//! exact CPU twin of libvmaf's reference C path, one folder per extractor.

pub mod adm;
