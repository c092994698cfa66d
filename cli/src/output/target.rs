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
//! exists and takes new files), so a typo fails before the first frame;
//! [`check_planned`] does the same for a path in a folder the run will create.
//! [`identity`] tells whether two output paths are one file (through links).
//! A temporary file is registered with [`crate::interrupt`], which removes it
//! when a signal ends the run. A failed write to standard output is a
//! [`StdoutError`], so that a broken pipe ends the run quietly.

use std::fs::{File, Metadata, OpenOptions, Permissions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::interrupt;
use crate::stdio::StdoutError;

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
        let target = Self::open_unchecked(path)?;
        let how = &target.how;
        match how {
            How::Stdout => {}
            How::Replace { dir, .. } => {
                interrupt::create_registered(|| temp_in(dir)).with_context(|| {
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
        Ok(target)
    }

    /// Resolves `path` (see the module note) without checking that it can be
    /// written.
    fn open_unchecked(path: &Path) -> Result<Target> {
        Ok(Target {
            given: path.to_path_buf(),
            how: resolve(path)?,
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
        let mut w = self.writer()?;
        if let Err(e) = io::copy(src, &mut w) {
            return Err(w.failed(e));
        }
        w.commit()
    }

    /// A writer of the output's whole content, written as the module note says
    /// once [`Writer::commit`] is called (dropped before that, a temporary file
    /// is removed and the path left as it was).
    pub fn writer(&self) -> Result<Writer<'_>> {
        let name = self.given.display();
        let sink = match &self.how {
            How::Stdout => {
                if crate::stdio::stdout_was_closed() {
                    return Err(StdoutError(io::Error::from_raw_os_error(libc::EBADF)).into());
                }
                Sink::Stdout(io::stdout().lock())
            }
            How::Through(p) | How::InPlace(p) => {
                // A device or FIFO is appended to; a hard-linked file is
                // truncated first and flushed to disk after.
                let in_place = matches!(self.how, How::InPlace(_));
                let f = OpenOptions::new()
                    .write(true)
                    .append(!in_place)
                    .truncate(in_place)
                    .open(p)
                    .with_context(|| format!("cannot open {name} for writing"))?;
                Sink::File { file: f, in_place }
            }
            How::Replace { path, dir } => {
                let (tmp, registered) = interrupt::create_registered(|| temp_in(dir))
                    .with_context(|| {
                        format!(
                            "{name}: cannot create a temporary file in {}",
                            dir.display()
                        )
                    })?;
                Sink::Temp {
                    tmp,
                    registered,
                    path: path.clone(),
                }
            }
        };
        Ok(Writer { target: self, sink })
    }

    /// Checks that the output's file system has room for `bytes` more (for a
    /// file: its folder's free space, counting a file rewritten in place as
    /// freed; nothing to check for standard output, a device or a FIFO).
    pub fn check_room(&self, bytes: u64) -> Result<()> {
        let (folder, freed) = match &self.how {
            How::Replace { dir, .. } => (dir.as_path(), 0),
            How::InPlace(p) => (
                p.parent().unwrap_or(Path::new(".")),
                std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
            ),
            How::Stdout | How::Through(_) => return Ok(()),
        };
        let Some(free) = available_bytes(folder) else {
            return Ok(());
        };
        let free = free.saturating_add(freed);
        if bytes > free {
            bail!(
                "cannot write {}: it needs {bytes} bytes ({:.1} GB) and its file system has {free} bytes ({:.1} GB) free",
                self.given.display(),
                bytes as f64 / 1e9,
                free as f64 / 1e9
            );
        }
        Ok(())
    }

    /// What the output is, for telling two outputs apart (see [`identity`]).
    pub fn identity(&self) -> Option<Identity> {
        match &self.how {
            How::Stdout | How::Through(_) => None,
            How::Replace { path, .. } | How::InPlace(path) => Some(identity_of_file(path)),
        }
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

/// The output's content on its way ([`Target::writer`]).
pub struct Writer<'a> {
    target: &'a Target,
    sink: Sink,
}

enum Sink {
    Stdout(io::StdoutLock<'static>),
    File {
        file: File,
        in_place: bool,
    },
    Temp {
        tmp: tempfile::NamedTempFile,
        registered: interrupt::Registered,
        path: PathBuf,
    },
}

impl Write for Writer<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Stdout(out) => out.write(buf),
            Sink::File { file, .. } => file.write(buf),
            Sink::Temp { tmp, .. } => tmp.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(out) => out.flush(),
            Sink::File { file, .. } => file.flush(),
            Sink::Temp { tmp, .. } => tmp.flush(),
        }
    }
}

impl Writer<'_> {
    /// The error to report for `e`, a failed write: naming the file (or the
    /// temporary file being written for it), or a [`StdoutError`] for standard
    /// output (so that a broken pipe ends the run quietly).
    pub fn failed(&self, e: io::Error) -> anyhow::Error {
        let name = self.target.given.display();
        match &self.sink {
            Sink::Stdout(_) => StdoutError(e).into(),
            Sink::File { .. } => anyhow::Error::new(e).context(format!("writing {name}")),
            Sink::Temp { tmp, .. } => anyhow::Error::new(e)
                .context(format!("writing {name} (as {})", tmp.path().display())),
        }
    }

    /// Finishes the output: flushes it, and puts a temporary file in place.
    pub fn commit(self) -> Result<()> {
        let name = self.target.given.display().to_string();
        match self.sink {
            Sink::Stdout(mut out) => out.flush().map_err(|e| StdoutError(e).into()),
            Sink::File { mut file, in_place } => file
                .flush()
                .and_then(|()| if in_place { file.sync_all() } else { Ok(()) })
                .with_context(|| format!("writing {name}")),
            Sink::Temp {
                tmp,
                registered,
                path,
            } => {
                keep_owner_and_mode(tmp.as_file(), &path)
                    .and_then(|()| tmp.as_file().sync_all())
                    .with_context(|| format!("writing {name} (as {})", tmp.path().display()))?;
                registered
                    .finish(|| tmp.persist(&path))
                    .map(drop)
                    .map_err(|e| e.error)
                    .with_context(|| format!("{name}: moving the finished file into place"))
            }
        }
    }
}

/// What an output file is, to tell whether two output paths are one file: an
/// existing regular file by its device and inode (so a hard link or a symlink
/// to it is the same), a new one by the absolute path it will have (its folder
/// resolved through links).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// An existing regular file.
    File {
        /// Device.
        dev: u64,
        /// Inode.
        ino: u64,
    },
    /// A file to be created at this absolute path.
    New(PathBuf),
}

/// The identity of `path`, a resolved output file (see [`Identity`]).
fn identity_of_file(path: &Path) -> Identity {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Identity::File {
            dev: m.dev(),
            ino: m.ino(),
        },
        _ => Identity::New(path.to_path_buf()),
    }
}

/// The identity of the output `path` (symlinks followed), `None` for standard
/// output, a device, a FIFO or a descriptor path (written through, never
/// replaced). A path in a folder that does not exist yet (one the run will
/// create) is identified by the path it will have.
pub fn identity(path: &Path) -> Result<Option<Identity>> {
    if let Some(planned) = planned_path(path) {
        return Ok(Some(Identity::New(planned)));
    }
    Ok(Target::open_unchecked(path)?.identity())
}

/// Checks that `path` can be written: as [`Target::open`], or when `path` is
/// in `planned_dir` (a folder the run creates before it writes anything), as
/// [`check_planned`].
pub fn check_writable(path: &Path, planned_dir: Option<&Path>) -> Result<()> {
    if planned_dir.is_some_and(|dir| in_folder(path, dir)) {
        check_planned(path)
    } else {
        Target::open(path).map(drop)
    }
}

/// Whether `path`'s folder is `dir` or inside it, compared as written (made
/// absolute): the folder may not exist yet.
pub fn in_folder(path: &Path, dir: &Path) -> bool {
    let abs = |p: &Path| {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        p.components().collect::<PathBuf>()
    };
    abs(path)
        .parent()
        .is_some_and(|folder| folder.starts_with(abs(dir)))
}

/// Checks that `path` can be written once the run has created the folders it
/// is missing: as [`Target::open`] when its folder exists; otherwise the
/// nearest folder that exists must take new entries and the missing names must
/// fit the file system's limit.
pub fn check_planned(path: &Path) -> Result<()> {
    let Some(planned) = planned_path(path) else {
        return Target::open(path).map(drop);
    };
    let (existing, _) = nearest_existing(&planned);
    if !existing.is_dir() {
        bail!(
            "cannot write {}: {} is not a folder",
            path.display(),
            existing.display()
        );
    }
    interrupt::create_registered(|| temp_in(&existing)).with_context(|| {
        format!(
            "cannot write {}: cannot create anything in the folder {}",
            path.display(),
            existing.display()
        )
    })?;
    let limit = name_max(&existing);
    if let Some(long) = planned
        .strip_prefix(&existing)
        .into_iter()
        .flat_map(|p| p.components())
        .find(|c| c.as_os_str().len() > limit)
    {
        bail!(
            "cannot write {}: the name {} is longer than the file system's {limit} bytes",
            path.display(),
            long.as_os_str().to_string_lossy()
        );
    }
    Ok(())
}

/// When the folder of `path` does not exist: the absolute path the file will
/// have once the missing folders are created (the nearest existing folder
/// resolved through links, the rest as written, `..` taken lexically: a
/// folder that does not exist is no link). `None` when the folder exists (or
/// `path` is `-`).
fn planned_path(path: &Path) -> Option<PathBuf> {
    if path == Path::new("-") || path.as_os_str().is_empty() {
        return None;
    }
    let parent = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if std::fs::symlink_metadata(parent).is_ok() {
        return None;
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let (existing, rest) = nearest_existing(&abs);
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    for c in rest.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// The nearest ancestor of `abs` (an absolute path) that exists, and the rest
/// of `abs` after it.
fn nearest_existing(abs: &Path) -> (PathBuf, PathBuf) {
    let mut existing = abs.to_path_buf();
    while std::fs::symlink_metadata(&existing).is_err() {
        if !existing.pop() {
            break;
        }
    }
    let rest = abs
        .strip_prefix(&existing)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    (existing, rest)
}

/// The longest file name `dir`'s file system takes (255 where it cannot be
/// asked).
pub fn name_max(dir: &Path) -> usize {
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return 255;
    };
    // SAFETY: `c` is a NUL-terminated path.
    let n = unsafe { libc::pathconf(c.as_ptr(), libc::_PC_NAME_MAX) };
    if n > 0 {
        n as usize
    } else {
        255
    }
}

/// The bytes an unprivileged writer may still put on `dir`'s file system.
fn available_bytes(dir: &Path) -> Option<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` is plain data, filled in by the call.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a valid out pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
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
