//! libvmaf's VMAF feature extractors as exact CPU twins (integer VIF, ADM and
//! motion), one folder each; the pipeline (command line, GPU) plugs them in
//! later. Each twin reproduces libvmaf's reference C path (`vmaf --cpumask
//! 255`) bit for bit; `/work/shared/design/vmaf.md` lists the arithmetic.

pub mod motion;
