//! Link-only crate: its build script adds Debian 12's static glslang and
//! SPIRV-Tools libraries after `shaderc-sys` on the link line, so that
//! `engine/build.rs` (which names this crate with `extern crate`) links shaderc.
//! It has no code.

pub use shaderc_sys;
