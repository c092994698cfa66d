//! File identity (device and inode): which of the paths given to `vkssim score`
//! name the same file or stream, so that it can refuse, before reading anything,
//! an output that would overwrite one of its inputs and one stream given as both
//! inputs. `-` is standard input for an input and standard output for an output.

use std::fs::{File, Metadata};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use anyhow::{bail, Result};

/// Which standard stream `-` stands for.
#[derive(Debug, Clone, Copy)]
pub enum Dash {
    /// `-` as an input.
    Stdin,
    /// `-` as an output.
    Stdout,
}

/// The file (or pipe, device, socket) a path names, following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    dev: u64,
    ino: u64,
    kind: Kind,
}

/// What kind of file an [`Identity`] is, as far as sharing it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Reading it does not consume it, writing it replaces it.
    Regular,
    /// A block device: seekable like a regular file.
    Block,
    /// A FIFO: data read by one reader is gone for the other, and what is
    /// written into it comes back out.
    Fifo,
    /// A character device or socket: a stream, but one that can be read and
    /// written independently (a terminal).
    Duplex,
    /// A folder or anything else.
    Other,
}

impl Identity {
    /// The identity of `path` (`-`: the standard stream `dash`), or `None` when it
    /// does not exist or cannot be looked at (the reader or writer reports that).
    pub fn of(path: &Path, dash: Dash) -> Option<Identity> {
        let meta = if path == Path::new("-") {
            let fd = match dash {
                Dash::Stdin => std::io::stdin().as_fd().try_clone_to_owned(),
                Dash::Stdout => std::io::stdout().as_fd().try_clone_to_owned(),
            };
            File::from(fd.ok()?).metadata().ok()?
        } else {
            std::fs::metadata(path).ok()?
        };
        Some(Self::from_metadata(&meta))
    }

    fn from_metadata(meta: &Metadata) -> Identity {
        let t = meta.file_type();
        let kind = if t.is_file() {
            Kind::Regular
        } else if t.is_block_device() {
            Kind::Block
        } else if t.is_fifo() {
            Kind::Fifo
        } else if t.is_char_device() || t.is_socket() {
            Kind::Duplex
        } else {
            Kind::Other
        };
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            kind,
        }
    }

    fn same(a: Option<Identity>, b: Option<Identity>) -> Option<Identity> {
        match (a, b) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }
}

/// Refuses the same stream (a pipe, FIFO, terminal or other device) given as
/// two of `inputs` (role and path): each would read alternate chunks of it.
/// One regular file given twice is fine (each input reads it on its own).
pub fn check_distinct_streams(inputs: &[(&str, &Path)]) -> Result<()> {
    let ids: Vec<Option<Identity>> = inputs
        .iter()
        .map(|(_, p)| Identity::of(p, Dash::Stdin))
        .collect();
    for (a, (ra, pa)) in inputs.iter().enumerate() {
        for (b, (rb, pb)) in inputs.iter().enumerate().skip(a + 1) {
            if let Some(id) = Identity::same(ids[a], ids[b]) {
                if matches!(id.kind, Kind::Fifo | Kind::Duplex) {
                    bail!(
                        "the {ra} {} and the {rb} {} are the same stream: each would read part of it; give each input its own file or pipe",
                        pa.display(),
                        pb.display()
                    );
                }
            }
        }
    }
    Ok(())
}

/// Refuses an output (`what`: the flag, `-o` or `--trace-chrome`) that is one of
/// the inputs (`inputs`: its role and path): writing it would destroy the input
/// or, for a FIFO, feed the output back in. A terminal or other character device
/// read and written at once (`-r - -o -` on a terminal) is allowed.
pub fn check_output_is_not_an_input(
    what: &str,
    output: &Path,
    inputs: &[(&str, &Path)],
) -> Result<()> {
    let Some(out) = Identity::of(output, Dash::Stdout) else {
        return Ok(());
    };
    if matches!(out.kind, Kind::Duplex | Kind::Other) {
        return Ok(());
    }
    for (role, input) in inputs {
        if Identity::of(input, Dash::Stdin) == Some(out) {
            bail!(
                "{what} {} is the same file as the {role} {}: refusing to overwrite an input; choose another output path",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_link_and_a_symlink_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::write(&a, "x").unwrap();
        let hard = dir.path().join("hard");
        std::fs::hard_link(&a, &hard).unwrap();
        let soft = dir.path().join("soft");
        std::os::unix::fs::symlink(&a, &soft).unwrap();
        let inputs = [("reference", a.as_path())];
        for out in [&a, &hard, &soft] {
            let err = check_output_is_not_an_input("-o", out, &inputs).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(&*out.to_string_lossy()), "{msg}");
            assert!(msg.contains(&*a.to_string_lossy()), "{msg}");
        }
        let other = dir.path().join("other");
        check_output_is_not_an_input("-o", &other, &inputs).unwrap();
        // One regular file as both inputs is fine.
        check_distinct_streams(&[("reference", &a), ("distorted input", &hard)]).unwrap();
    }

    #[test]
    fn one_fifo_is_refused_as_both_inputs_and_as_an_output() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(st.success());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        let err = check_distinct_streams(&[("reference", &fifo), ("distorted input", &link)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("same stream") && err.contains("link"), "{err}");
        let inputs = [("distorted input", fifo.as_path())];
        let err = check_output_is_not_an_input("-o", &link, &inputs).unwrap_err();
        assert!(err.to_string().contains("same file"), "{err}");
    }
}
