//! Where things are: the workspace, cargo's target directory, the `vmaf` CLI that
//! `libvmaf-sys` builds, and the `vkssim` binary (built on demand).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives inside the workspace")
}

/// The cargo profile directory the running test was built into
/// (`target/debug`, `target/release`, ...): the test binary sits in its `deps/`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let mut dir = exe.parent().expect("exe has a parent").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir
}

/// Cargo's target directory (the profile directory's parent).
pub fn target_dir() -> PathBuf {
    profile_dir()
        .parent()
        .expect("profile dir has a parent")
        .to_path_buf()
}

/// The `vmaf` command-line tool built by libvmaf-sys' build script
/// (`<profile>/build/libvmaf-sys-*/out/build/tools/vmaf`; the newest if several).
pub fn vmaf_cli() -> PathBuf {
    let build = profile_dir().join("build");
    let entries = std::fs::read_dir(&build).unwrap_or_else(|e| panic!("{}: {e}", build.display()));
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("libvmaf-sys-"))
        .map(|e| e.path().join("out/build/tools/vmaf"))
        .filter(|p| p.is_file())
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| panic!("no vmaf CLI under {}/libvmaf-sys-*", build.display()))
}

/// The `vkssim` binary, built from the workspace's current sources into the
/// running test's target directory and profile (cargo has released its build lock
/// by the time tests run, and the build is a no-op when the binary is fresh).
pub fn vkssim_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let profile = profile_dir();
        let profile_name = profile
            .file_name()
            .expect("profile dir has a name")
            .to_string_lossy()
            .into_owned();
        let target = target_dir();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(workspace_root())
            .args(["build", "--quiet", "-p", "vkssim-cli", "--bin", "vkssim"])
            .env("CARGO_TARGET_DIR", &target);
        let out_profile = match profile_name.as_str() {
            "debug" => "debug".to_string(),
            other => {
                cmd.args(["--profile", other]);
                other.to_string()
            }
        };
        let status = cmd.status().expect("cannot run cargo to build vkssim");
        assert!(status.success(), "building vkssim failed ({status})");
        let bin = target.join(out_profile).join("vkssim");
        assert!(bin.is_file(), "{} was not built", bin.display());
        bin
    })
}
