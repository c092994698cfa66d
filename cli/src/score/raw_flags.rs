//! `-w/-h/-p/-b` that no input uses: they describe raw YUV input, and when
//! every input of a pair contradicts them (each is encoded or Y4M, in a
//! layout of its own), nothing would read them, so the run is refused
//! rather than the flags silently ignored. A raw YUV input is read in
//! exactly their layout, and a Y4M input that contradicts them was refused
//! when it was opened, so an input that agrees with every flag given is
//! the one they describe.

use std::path::Path;

use anyhow::{bail, Result};
use vkssim::io::{RawFormat, VideoFormat};

use crate::plan::{Opt, Spelling};

/// Refuses `raw` (the flags given, `None`: none) when every one of
/// `inputs` (each input's path and format as opened, resized where asked)
/// contradicts at least one flag; the message names those flags (as
/// `spelling` does) and what each input is.
pub fn check_used(
    raw: Option<RawFormat>,
    inputs: &[(&Path, VideoFormat)],
    spelling: Spelling,
) -> Result<()> {
    let Some(raw) = raw else {
        return Ok(());
    };
    let flags = |f: &VideoFormat| {
        [
            raw.width
                .filter(|&w| w != f.width)
                .map(|w| spelling.number(Opt::Width, w)),
            raw.height
                .filter(|&h| h != f.height)
                .map(|h| spelling.number(Opt::Height, h)),
            raw.chroma
                .filter(|&c| c != f.chroma)
                .map(|c| spelling.word(Opt::PixelFormat, &c.to_string())),
            raw.bit_depth
                .filter(|&b| b != f.bit_depth)
                .map(|b| spelling.number(Opt::Bitdepth, b)),
        ]
    };
    let contradicted: Vec<_> = inputs.iter().map(|(_, f)| flags(f)).collect();
    if contradicted.iter().any(|c| c.iter().all(Option::is_none)) {
        return Ok(());
    }
    let named: Vec<String> = (0..4)
        .filter_map(|k| contradicted.iter().find_map(|c| c[k].clone()))
        .collect();
    let what: Vec<String> = inputs
        .iter()
        .map(|(path, f)| format!("{} is {f}", path.display()))
        .collect();
    bail!(
        "{} describe raw YUV input, but no input is raw YUV in that layout: {} (drop the \
         flags, or give the inputs' own layout)",
        named.join(", "),
        what.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use vkssim::io::Chroma;

    #[test]
    fn flags_some_input_agrees_with_are_taken() {
        let f = |w, c| VideoFormat::new(w, 24, 8, c).unwrap();
        let (a, b) = (Path::new("a.mkv"), Path::new("b.mkv"));
        let raw = Some(RawFormat::new(32, 24, Chroma::C444, 8));
        let both = [(a, f(32, Chroma::C420)), (b, f(32, Chroma::C444))];
        let flags = Spelling::Flags;
        assert!(check_used(raw, &both, flags).is_ok());
        assert!(check_used(None, &both[..1], flags).is_ok());
        let apart = [(a, f(32, Chroma::C420)), (b, f(40, Chroma::C444))];
        let e = check_used(raw, &apart, flags).unwrap_err().to_string();
        assert!(
            e.starts_with("-w/--width 32, -p/--pixel_format 444 describe"),
            "{e}"
        );
        let e = check_used(raw, &apart, Spelling::Keywords)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("width=32, pix_fmt='444' describe"), "{e}");
        assert!(
            e.contains("a.mkv is 32x24 420 8-bit, b.mkv is 40x24 444 8-bit"),
            "{e}"
        );
    }
}
