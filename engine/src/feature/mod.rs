//! libvmaf's VMAF feature extractors as exact CPU twins of libvmaf's
//! reference C path (`vmaf --cpumask 255`), one folder each: [`vif`]
//! (`integer_vif_scale0..3`), [`adm`] (`integer_adm2`, `integer_adm_scale0..3`)
//! and [`motion`] (`integer_motion`, `integer_motion2`; libvmaf 3.2's motion
//! as a second target). Each is stateless per frame (motion takes the
//! previous reference's blurred plane with the job). The pipeline (command
//! line, GPU) plugs them in through the extractor layer; `docs/vmaf.md` says
//! what each matches and what it refuses.

pub mod adm;
pub mod motion;
pub(crate) mod rows;
pub mod vif;
