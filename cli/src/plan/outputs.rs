//! What a `vkssim score` run writes: each distorted input's scores (a file,
//! or a summary on standard output), in which format and precision, and the
//! `--trace-chrome` trace. With several `-d`, `--output-dir` or an `-o`
//! pattern, each input gets its own output.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::args::ScoreArgs;
use crate::output::{Format, Precision};

/// The outputs of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// Where each distorted input's scores go, in `-d` order (`-`: standard
    /// output; `None`: a summary on standard output).
    pub targets: Vec<Option<PathBuf>>,
    /// `--output-dir`: the folder the targets are in, created by the run
    /// once there is something to score.
    pub dir: Option<PathBuf>,
    /// The format of the files.
    pub format: Format,
    /// The digits of the values.
    pub precision: Precision,
    /// `--trace-chrome`: the trace file.
    pub trace: Option<PathBuf>,
}

/// Whether `args` ask for an output per distorted input: several `-d`,
/// `--output-dir`, or an `-o` pattern.
pub fn per_input(args: &ScoreArgs) -> bool {
    let pattern = args.output.as_deref().is_some_and(|o| {
        let o = o.to_string_lossy();
        o.contains("{name}") || o.contains("{index}")
    });
    args.distorted.len() > 1 || args.output_dir.is_some() || pattern
}

/// The outputs `args` give (`ladder`: one per input, see [`per_input`]), and
/// the trace at `trace`.
pub fn resolve(args: &ScoreArgs, ladder: bool, trace: Option<&Path>) -> Result<Outputs> {
    let format = args.format();
    let targets = if ladder {
        per_input_targets(args, format)?
    } else {
        vec![args.output.clone()]
    };
    Ok(Outputs {
        targets,
        dir: args.output_dir.clone(),
        format,
        precision: args.precision,
        trace: trace.map(Path::to_path_buf),
    })
}

/// Each distorted input's output: from `--output-dir`, from the `-o`
/// pattern, or none (a summary each). Two inputs that would write one file
/// (also through links) are refused by the preflight, naming both.
fn per_input_targets(args: &ScoreArgs, format: Format) -> Result<Vec<Option<PathBuf>>> {
    let ext = match format {
        Format::Xml => "xml",
        Format::Json => "json",
        Format::Csv => "csv",
        Format::Sub => "sub",
    };
    Ok(match (&args.output_dir, &args.output) {
        (Some(dir), _) => args
            .distorted
            .iter()
            .map(|d| {
                let mut name = stem(d);
                name.push(".");
                name.push(ext);
                Some(dir.join(name))
            })
            .collect(),
        (None, Some(pattern)) => {
            let text = pattern.to_string_lossy();
            if args.distorted.len() > 1 && !text.contains("{name}") && !text.contains("{index}") {
                bail!("-o {text}: with several -d, -o is a pattern with {{name}} (the distorted file's stem) or {{index}} (its position among the -d), or use --output-dir");
            }
            args.distorted
                .iter()
                .enumerate()
                .map(|(k, d)| Some(fill_pattern(pattern.as_os_str(), &stem(d), k)))
                .collect()
        }
        (None, None) => vec![None; args.distorted.len()],
    })
}

/// The stem that names an input's output: its file stem (`stdin` for `-`).
fn stem(p: &Path) -> OsString {
    if p == Path::new("-") {
        return "stdin".into();
    }
    p.file_stem()
        .map(ToOwned::to_owned)
        .unwrap_or_else(|| "output".into())
}

/// `pattern` with `{name}` replaced by `name` and `{index}` by `index`, in
/// one pass (a name that contains `{index}` stays as it is), byte for byte
/// (a name that is not UTF-8 is kept). A result of `-` is the file `./-`,
/// never standard output.
fn fill_pattern(pattern: &OsStr, name: &OsStr, index: usize) -> PathBuf {
    let p = pattern.as_bytes();
    let mut out = Vec::with_capacity(p.len() + name.len());
    let mut i = 0;
    while i < p.len() {
        if p[i..].starts_with(b"{name}") {
            out.extend_from_slice(name.as_bytes());
            i += "{name}".len();
        } else if p[i..].starts_with(b"{index}") {
            out.extend_from_slice(index.to_string().as_bytes());
            i += "{index}".len();
        } else {
            out.push(p[i]);
            i += 1;
        }
    }
    if out == b"-" {
        return PathBuf::from("./-");
    }
    PathBuf::from(OsString::from_vec(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_is_filled_in_one_pass() {
        let fill = |p: &str, n: &str, k| fill_pattern(OsStr::new(p), OsStr::new(n), k);
        assert_eq!(
            fill("o/{name}_{index}.json", "a", 3),
            Path::new("o/a_3.json")
        );
        // A name with a placeholder in it is not substituted again.
        assert_eq!(fill("{name}-{index}", "{index}", 1), Path::new("{index}-1"));
        assert_eq!(fill("{index}{name}", "{name}", 0), Path::new("0{name}"));
        // A stem `-` never turns the output into standard output.
        assert_eq!(fill("{name}", "-", 0), Path::new("./-"));
        let odd = OsStr::from_bytes(b"a\xff");
        assert_eq!(
            fill_pattern(OsStr::new("{name}.csv"), odd, 0)
                .as_os_str()
                .as_bytes(),
            b"a\xff.csv"
        );
    }
}
