//! Emits the static libraries Debian 12's `libshaderc.a` needs, in link order.
//!
//! Debian's `libshaderc_combined.a` lacks glslang and its `libshaderc.so` is
//! underlinked, so the `shaderc` crate's own link lines are not enough there
//! (`docs/hardware.md`, "shaderc against Debian 12"). The order
//! matters: each library only resolves symbols of those before it.

fn main() {
    let dir = std::env::var("VKSSIM_SHADERC_LIB_DIR")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu".to_string());
    println!("cargo:rerun-if-env-changed=VKSSIM_SHADERC_LIB_DIR");
    println!("cargo:rustc-link-search=native={dir}");
    for lib in [
        "SPIRV",
        "glslang",
        "MachineIndependent",
        "OSDependent",
        "GenericCodeGen",
        "OGLCompiler",
        "HLSL",
        "glslang-default-resource-limits",
        "SPIRV-Tools-opt",
        "SPIRV-Tools",
    ] {
        println!("cargo:rustc-link-lib=static={lib}");
    }
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
