//! Standard output and standard error without panics: `println!` and
//! `eprintln!` panic when the write fails (a closed pipe, a full disk, a closed
//! descriptor), so the CLI writes through these instead.
//!
//! - [`print`] writes to standard output and returns a [`StdoutError`] on
//!   failure. `main` turns a broken pipe (the reader went away, as in
//!   `vkssim ... | head -0`) into a quiet exit with status [`BROKEN_PIPE_STATUS`]
//!   (141, what a shell reports for a program killed by SIGPIPE, as coreutils
//!   programs are), and any other failure into one `vkssim: error: writing to
//!   standard output: ...` line and status 1.
//! - A standard output that was closed when vkssim started (`>&-`) is one the
//!   Rust runtime replaced with `/dev/null` opened read-write; [`print`] treats
//!   such a descriptor as closed (`EBADF`) rather than succeed having written
//!   nothing. (A standard output opened read-write on `/dev/null` by the caller
//!   looks the same and is refused too: redirect with `>/dev/null` instead.)
//! - [`note`] writes a line to standard error and ignores failure: there is
//!   nowhere left to report it.

use std::fmt;
use std::io::{self, Write};

/// The exit status of a run whose standard output is a pipe with no reader.
pub const BROKEN_PIPE_STATUS: u8 = 141;

/// A failed write to standard output.
#[derive(Debug)]
pub struct StdoutError(pub io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("writing to standard output")
    }
}

impl std::error::Error for StdoutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl StdoutError {
    /// Whether the reader of the pipe went away (`EPIPE`).
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Writes `text` to standard output and flushes it.
pub fn print(text: &str) -> Result<(), StdoutError> {
    if stdout_was_closed() {
        // EBADF: what the write would have given without the runtime's stand-in.
        return Err(StdoutError(io::Error::from_raw_os_error(9)));
    }
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(StdoutError)
}

/// Writes `line` and a newline to standard error, ignoring failure.
pub fn note(line: impl fmt::Display) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Whether descriptor 1 is the runtime's stand-in for a closed standard
/// output: the character device `/dev/null`, opened read-write (a shell's
/// `>/dev/null` opens it write-only).
#[cfg(target_os = "linux")]
pub(crate) fn stdout_was_closed() -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let (Ok(fd), Ok(null)) = (
        std::fs::metadata("/proc/self/fd/1"),
        std::fs::metadata("/dev/null"),
    ) else {
        return false;
    };
    if !fd.file_type().is_char_device() || fd.rdev() != null.rdev() {
        return false;
    }
    std::fs::read_to_string("/proc/self/fdinfo/1").is_ok_and(|info| read_write(&info))
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn stdout_was_closed() -> bool {
    false
}

/// Whether a `/proc/self/fdinfo` text has the access mode `O_RDWR`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn read_write(fdinfo: &str) -> bool {
    const O_ACCMODE: u32 = 0o3;
    const O_RDWR: u32 = 0o2;
    fdinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .is_some_and(|flags| flags & O_ACCMODE == O_RDWR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fdinfo_access_mode() {
        assert!(read_write("pos:\t0\nflags:\t0100002\nmnt_id:\t25\n"));
        assert!(!read_write("pos:\t0\nflags:\t0100001\nmnt_id:\t25\n"));
        assert!(!read_write("pos:\t0\nflags:\t0100000\n"));
        assert!(!read_write("garbage"));
    }

    #[test]
    fn broken_pipe_is_told_apart() {
        assert!(StdoutError(io::ErrorKind::BrokenPipe.into()).is_broken_pipe());
        let full = StdoutError(io::Error::from_raw_os_error(28));
        assert!(!full.is_broken_pipe());
        assert_eq!(full.to_string(), "writing to standard output");
    }
}
