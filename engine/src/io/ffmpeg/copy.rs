//! Copies a plane of a decoded frame (rows `linesize` bytes apart, with
//! padding) into vkssim's packed layout (rows of exactly `width` samples).
//! [`copy_plane`] takes any plane, so chroma can be delivered the same way as
//! luma; the readers use plane 0 today.

use ffmpeg_next::frame;

use crate::io::VideoFormat;
use crate::{Error, Result};

/// The size in samples of plane `plane` of a frame of `format` (0: luma; 1
/// and 2: chroma; 3: alpha), `None` for a plane the format does not have.
pub(crate) fn plane_size(format: &VideoFormat, plane: usize) -> Option<(u32, u32)> {
    match plane {
        0 => Some((format.width, format.height)),
        p if p <= format.chroma.extra_planes() as usize => {
            Some(format.chroma.plane_size(format.width, format.height))
        }
        _ => None,
    }
}

/// Copies plane `plane` of `frame` (whose layout is `format`) into the start
/// of `dst`, packed; returns the bytes written. `dst` too short is
/// [`Error::BufferSize`]; a plane the frame lacks, or whose rows are shorter
/// than the format says, is [`Error::Internal`] (the caller checked the
/// frame's format).
pub(crate) fn copy_plane(
    frame: &frame::Video,
    format: &VideoFormat,
    plane: usize,
    dst: &mut [u8],
) -> Result<usize> {
    let (w, h) = plane_size(format, plane)
        .ok_or_else(|| Error::Internal(format!("a {format} frame has no plane {plane}")))?;
    let row = w as usize * format.bytes_per_sample();
    let rows = h as usize;
    let needed = row * rows;
    if dst.len() < needed {
        return Err(Error::BufferSize {
            what: format!("plane {plane} of a {format} frame"),
            needed,
            actual: dst.len(),
        });
    }
    // SAFETY: `frame` is a valid, decoded AVFrame owned by `frame` for the
    // whole borrow; reading its data pointer and line size fields is sound.
    let (data, linesize) = unsafe {
        let f = &*frame.as_ptr();
        (f.data[plane], f.linesize[plane] as isize)
    };
    if data.is_null() || linesize.unsigned_abs() < row {
        return Err(Error::Internal(format!(
            "plane {plane} of a decoded {format} frame has no data or rows of {linesize} bytes"
        )));
    }
    for (y, out) in dst[..needed].chunks_exact_mut(row).enumerate() {
        // SAFETY: FFmpeg guarantees that row `y` < the plane's height starts
        // at `data + y * linesize` (linesize may be negative for a bottom-up
        // frame) and holds at least the plane's width in samples, `row`
        // bytes, which the checks above and the format check the caller made
        // (the frame's width, height and pixel format are `format`'s) bound.
        let src = unsafe { std::slice::from_raw_parts(data.offset(y as isize * linesize), row) };
        out.copy_from_slice(src);
    }
    Ok(needed)
}
