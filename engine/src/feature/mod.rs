//! libvmaf's feature extractors (the pieces a VMAF model reads), each an
//! exact CPU twin of libvmaf's reference C path in its own folder.

pub mod vif;
//! libvmaf's VMAF feature extractors (integer VIF, ADM and motion), each an
//! exact CPU twin of libvmaf's reference C path, one folder per extractor.
pub mod adm;
//! libvmaf's VMAF feature extractors as exact CPU twins (integer VIF, ADM and
//! motion), one folder each; the pipeline (command line, GPU) plugs them in
//! later. Each twin reproduces libvmaf's reference C path (`vmaf --cpumask
//! 255`) bit for bit; `/work/shared/design/vmaf.md` lists the arithmetic.
pub mod motion;
