//! Where an output's bytes go (`-o`, `FILE.partial`, `--trace-chrome`) and how
//! they are written without damaging what is already there:
//!
//! - `-`: standard output.
//! - A new path, or a regular file with one link: a temporary file in the same
//!   folder, flushed to disk, then renamed over the path, so a reader sees the old
//!   file or the new one, never half of one. A new file's mode follows the umask
//!   (0666 less the umask); a replaced file keeps its mode, and its owner and group
//!   where the process may set them (as root).
//! - A regular file with several hard links: truncated and rewritten in place, so
//!   that every link sees the new content (this is not atomic).
//! - A symlink: followed; its final target is written by these rules and the link
//!   stays a link. A dangling link creates its target.
//! - Anything else (a character device, FIFO or socket) and a descriptor path
//!   (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`): opened for writing as it is,
//!   in append mode, never created, truncated or renamed over (so
//!   `-o /dev/stdout >> log` appends to the log).
//!
//! [`Target::open`] checks up front that the output can be written (its folder
//! exists and takes new files), so a typo fails before the first frame.

use std::fs::{File, Metadata, OpenOptions, Permissions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

/// An output path, resolved and checked.
#[derive(Debug)]
pub struct Target {
    /// The path as the user gave it (for messages).
    given: PathBuf,
    how: How,
}

#[derive(Debug)]
enum How {
    /// `-`.
    Stdout,
    /// Temporary file and rename, at this (resolved) path in this folder.
    Replace { path: PathBuf, dir: PathBuf },
    /// Truncate and rewrite this regular file (it has several hard links).
    InPlace(PathBuf),
    /// Open this path for writing as it is (device, FIFO, descriptor path).
    Through(PathBuf),
}

/// Symlinks followed at most, as the kernel's limit.
const MAX_LINKS: usize = 40;

impl Target {
    /// Resolves `path` (see the module note) and checks that it can be written:
    /// its folder exists and takes a new file, or the file itself opens for
    /// writing. Character devices and FIFOs are not opened here.
    pub fn open(path: &Path) -> Result<Target> {
        let how = resolve(path)?;
        match &how {
            How::Stdout => {}
            How::Replace { dir, .. } => {
                temp_in(dir).with_context(|| {
                    format!(
                        "cannot write {}: cannot create a file in the folder {}",
                        path.display(),
                        dir.display()
                    )
                })?;
            }
            How::InPlace(p) => {
                // Opening without truncating changes nothing.
                OpenOptions::new()
                    .write(true)
                    .open(p)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            How::Through(p) => {
                std::fs::metadata(p).with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
        Ok(Target {
            given: path.to_path_buf(),
            how,
        })
    }

    /// Whether writing replaces the content of a file (rather than sending it
    /// down standard output, a device or a FIFO).
    pub fn is_file(&self) -> bool {
        matches!(self.how, How::Replace { .. } | How::InPlace(_))
    }

    /// Writes `bytes` as the whole content of the output.
    pub fn write(&self, bytes: &[u8]) -> Result<()> {
        self.write_from(&mut &*bytes)
    }

    /// Writes everything `src` reads as the whole content of the output.
    pub fn write_from(&self, src: &mut dyn Read) -> Result<()> {
        let name = self.given.display();
        match &self.how {
            How::Stdout => {
                let mut out = io::stdout().lock();
                io::copy(src, &mut out)
                    .and_then(|_| out.flush())
                    .context("writing to standard output")?;
            }
            How::Through(p) | How::InPlace(p) => {
                // A device or FIFO is appended to; a hard-linked file is
                // truncated first and flushed to disk after.
                let in_place = matches!(self.how, How::InPlace(_));
                let mut f = OpenOptions::new()
                    .write(true)
                    .append(!in_place)
                    .truncate(in_place)
                    .open(p)
                    .with_context(|| format!("cannot open {name} for writing"))?;
                io::copy(src, &mut f)
                    .and_then(|_| if in_place { f.sync_all() } else { Ok(()) })
                    .with_context(|| format!("writing {name}"))?;
            }
            How::Replace { path, dir } => {
                let mut tmp = temp_in(dir).with_context(|| {
                    format!(
                        "{name}: cannot create a temporary file in {}",
                        dir.display()
                    )
                })?;
                io::copy(src, &mut tmp)
                    .and_then(|_| keep_owner_and_mode(tmp.as_file(), path))
                    .and_then(|()| tmp.as_file().sync_all())
                    .with_context(|| format!("{}: writing", tmp.path().display()))?;
                tmp.persist(path)
                    .map_err(|e| e.error)
                    .with_context(|| format!("{name}: moving the finished file into place"))?;
            }
        }
        Ok(())
    }

    /// An unnamed scratch file that vanishes when closed, even when the process
    /// is killed: on the output's file system for a file, in the system's
    /// temporary folder otherwise. For output written over a whole run (a trace)
    /// before it goes to [`Target::write_from`].
    pub fn scratch(&self) -> Result<File> {
        let file = match &self.how {
            How::Replace { dir, .. } => tempfile::tempfile_in(dir),
            _ => tempfile::tempfile(),
        };
        file.with_context(|| {
            format!(
                "cannot create a temporary file for {}",
                self.given.display()
            )
        })
    }
}

/// A new file in `dir`, named `.vkssim-*.tmp`, created with mode 0666 less the
/// umask.
fn temp_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(".vkssim-")
        .suffix(".tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)
}

/// Gives `tmp` the owner, group and mode of the file at `path`, if there is one.
/// Setting the owner is best effort: only root may give a file away.
fn keep_owner_and_mode(tmp: &File, path: &Path) -> io::Result<()> {
    let old: Metadata = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let new = tmp.metadata()?;
    if (old.uid(), old.gid()) != (new.uid(), new.gid()) {
        let _ = std::os::unix::fs::fchown(tmp, Some(old.uid()), Some(old.gid()));
    }
    // After the owner: changing it clears set-user-ID bits.
    tmp.set_permissions(Permissions::from_mode(old.mode() & 0o7777))
}

/// Classifies `path` (see the module note).
fn resolve(path: &Path) -> Result<How> {
    if path == Path::new("-") {
        return Ok(How::Stdout);
    }
    if path.as_os_str().is_empty() {
        bail!("cannot write an output to an empty path");
    }
    if path.as_os_str().as_bytes().ends_with(b"/") {
        bail!("cannot write {}: it names a folder", path.display());
    }
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let Some(name) = p.file_name().map(ToOwned::to_owned) else {
            bail!("cannot write {}: it names a folder", path.display());
        };
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let dir = std::fs::canonicalize(dir).with_context(|| {
            format!("cannot write {}: folder {}", path.display(), dir.display())
        })?;
        if !dir.is_dir() {
            bail!(
                "cannot write {}: {} is not a folder",
                path.display(),
                dir.display()
            );
        }
        if is_descriptor_folder(&dir) {
            return Ok(How::Through(path.to_path_buf()));
        }
        let full = dir.join(&name);
        let meta = match std::fs::symlink_metadata(&full) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(How::Replace { path: full, dir });
            }
            Err(e) => {
                return Err(e).with_context(|| format!("cannot write {}", path.display()));
            }
        };
        let t = meta.file_type();
        if t.is_symlink() {
            let target = std::fs::read_link(&full)
                .with_context(|| format!("cannot write {}", path.display()))?;
            p = dir.join(target);
        } else if t.is_file() {
            return Ok(if meta.nlink() > 1 {
                How::InPlace(full)
            } else {
                How::Replace { path: full, dir }
            });
        } else if t.is_dir() {
            bail!("cannot write {}: it is a folder", path.display());
        } else {
            return Ok(How::Through(full));
        }
    }
    bail!(
        "cannot write {}: too many levels of symbolic links",
        path.display()
    )
}

/// Whether `dir` (canonical) is a process's descriptor folder, `/proc/PID/fd` or
/// `/proc/PID/task/TID/fd` (where `/dev/fd` and `/dev/stdout` lead).
fn is_descriptor_folder(dir: &Path) -> bool {
    let parts: Vec<_> = dir.components().collect();
    let proc_fd = |rest: &[Component]| {
        rest.last() == Some(&Component::Normal("fd".as_ref()))
            && (rest.len() == 2
                || (rest.len() == 4 && rest[1] == Component::Normal("task".as_ref())))
    };
    matches!(parts.as_slice(), [Component::RootDir, Component::Normal(p), rest @ ..] if *p == "proc" && proc_fd(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_file_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.xml");
        std::fs::write(&path, "old").unwrap();
        Target::open(&path).unwrap().write(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn a_missing_folder_fails_up_front_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/out.xml");
        let err = Target::open(&path).unwrap_err();
        assert!(format!("{err:#}").contains("out.xml"), "{err:#}");
    }

    #[test]
    fn descriptor_paths_are_written_through() {
        assert!(matches!(
            resolve(Path::new("/dev/stdout")).unwrap(),
            How::Through(_)
        ));
        assert!(matches!(
            resolve(Path::new("/proc/self/fd/2")).unwrap(),
            How::Through(_)
        ));
        assert!(is_descriptor_folder(Path::new("/proc/1/task/1/fd")));
        assert!(!is_descriptor_folder(Path::new("/proc/1/fdinfo")));
        assert!(!is_descriptor_folder(Path::new("/home/fd")));
    }
}
