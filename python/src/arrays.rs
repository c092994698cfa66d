//! numpy planes in: the arrays a caller hands over, checked (dtype, shape)
//! and seen through their strides without a copy (rows a row stride apart,
//! as the library's [`HostPlane`] takes them: a view such as `big[:, :,
//! :100]` or `clip[::2]` is read in place), and a frame's planes made into
//! the library's [`Pair`]. Only an array whose samples within a row are not
//! adjacent (`a[:, :, ::2]`, Fortran order), whose strides are negative or
//! overlap rows, or which is misaligned, is copied first (C-contiguous). The
//! Python side makes an array native-endian before it comes here; one of
//! another dtype or shape is refused with an [`InputError`] naming it,
//! never read wrongly.

use numpy::ndarray::Dimension;
use numpy::{
    PyArrayMethods, PyReadonlyArray, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use vkssim::api::{HostPlane, Pair};
use vkssim::io::Chroma;

use crate::errors::{InputError, OptionError};

/// A sample type a plane may have: `uint8` (8-bit video) or `uint16`.
pub trait Sample: numpy::Element + Copy + Send + Sync + 'static {
    /// The library's plane of `samples`, rows `stride` samples apart.
    fn plane(samples: &[Self], stride: usize) -> HostPlane<'_>;
}

impl Sample for u8 {
    fn plane(samples: &[u8], stride: usize) -> HostPlane<'_> {
        HostPlane::u8(samples, stride)
    }
}

impl Sample for u16 {
    fn plane(samples: &[u16], stride: usize) -> HostPlane<'_> {
        HostPlane::u16(samples, stride)
    }
}

/// One plane: rows of samples, `stride` samples apart.
#[derive(Clone, Copy)]
pub struct PlaneRef<'a, T> {
    /// The samples, from the first of the first row to the last of the last.
    pub samples: &'a [T],
    /// Samples from the start of one row to the start of the next.
    pub stride: usize,
}

impl<T: Sample> PlaneRef<'_, T> {
    /// The plane as the library takes it.
    pub fn host(&self) -> HostPlane<'_> {
        T::plane(self.samples, self.stride)
    }
}

/// The pair of the planes `reference` and `distorted` (luma, or luma, Cb and
/// Cr each).
pub fn pair<'a, T: Sample>(
    reference: &'a [PlaneRef<'a, T>],
    distorted: &'a [PlaneRef<'a, T>],
) -> Pair<'a> {
    let pair = Pair::new(reference[0].host(), distorted[0].host());
    match (reference, distorted) {
        ([_, rb, rr], [_, db, dr]) => {
            pair.with_chroma([rb.host(), rr.host()], [db.host(), dr.host()])
        }
        _ => pair,
    }
}

/// The dtype of an array, as numpy names it (for messages).
fn dtype_name(obj: &Bound<'_, PyAny>) -> String {
    obj.getattr("dtype")
        .and_then(|d| d.str())
        .map(|s| s.to_string())
        .unwrap_or_else(|_| obj.get_type().to_string())
}

/// `obj`, which must be a 3-d (frames, rows, columns) array of `T` (`what`
/// names it in errors); a copy when its strides cannot be read in place.
pub fn video<'py, T: Sample>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<PyReadonlyArray3<'py, T>> {
    readable(obj, what, "3-d numpy array (frames, height, width)")
}

/// `obj`, which must be a 2-d (rows, columns) array of `T`; a copy when
/// its strides cannot be read in place.
pub fn plane<'py, T: Sample>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<PyReadonlyArray2<'py, T>> {
    readable(obj, what, "2-d numpy array (height, width)")
}

/// `obj` as an array of `T` and `D`'s dimensions that [`Strided::of`]
/// reads in place: `obj` itself, or a C-contiguous copy of it (`shape`
/// describes the dimensions in errors, `what` names the array).
fn readable<'py, T: Sample, D: Dimension>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    shape: &str,
) -> PyResult<PyReadonlyArray<'py, T, D>> {
    let refused = || {
        InputError::new_err(format!(
            "{what}: expected a {shape} of {}, got {} of {}",
            std::any::type_name::<T>().replace("u", "uint"),
            shape_text(obj),
            dtype_name(obj)
        ))
    };
    let a: PyReadonlyArray<'py, T, D> = obj.extract().map_err(|_| refused())?;
    if Strided::of(&a).is_some() {
        return Ok(a);
    }
    let numpy = obj.py().import("numpy")?;
    let copy = numpy.call_method1("ascontiguousarray", (obj,))?;
    copy.extract().map_err(|_| refused())
}

/// The shape of `obj` for messages (`shape (2, 3)`, or its type).
fn shape_text(obj: &Bound<'_, PyAny>) -> String {
    match obj.getattr("shape") {
        Ok(s) => format!(
            "shape {}",
            s.str().map(|s| s.to_string()).unwrap_or_default()
        ),
        Err(_) => format!("a {}", obj.get_type()),
    }
}

/// An array's samples as strides in samples, seen without the GIL: `count`
/// planes of `height` rows of `width` adjacent samples, rows `row_stride`
/// apart, planes `plane_stride` apart; `samples` runs from the first sample
/// to the last (padding between rows included, never read).
#[derive(Clone, Copy)]
pub struct Strided<'a, T> {
    samples: &'a [T],
    count: usize,
    height: usize,
    width: usize,
    row_stride: usize,
    plane_stride: usize,
}

impl<'a, T: Sample> Strided<'a, T> {
    /// The samples of `array` (2-d: one plane; 3-d: planes along the first
    /// axis) in place, or None when they cannot be read so: samples of a
    /// row not adjacent, a negative stride or one not a whole number of
    /// samples, rows that overlap, or a misaligned start.
    pub fn of<D: Dimension>(array: &'a PyReadonlyArray<'_, T, D>) -> Option<Self> {
        let size = std::mem::size_of::<T>();
        let (shape, bytes) = (array.shape(), array.strides());
        let n = shape.len();
        if !(2..=3).contains(&n) {
            return None;
        }
        // A stride along an axis of one sample or less is never stepped.
        let stride = |k: usize| -> Option<usize> {
            if shape[k] <= 1 {
                return Some(0);
            }
            let b = usize::try_from(bytes[k]).ok()?;
            (b % size == 0).then_some(b / size)
        };
        let (count, plane_stride) = if n == 3 {
            (shape[0], stride(0)?)
        } else {
            (1, 0)
        };
        let (height, width) = (shape[n - 2], shape[n - 1]);
        let row_stride = stride(n - 2)?.max(width);
        if (width > 1 && stride(n - 1)? != 1) || (height > 1 && stride(n - 2)? < width) {
            return None;
        }
        let data = array.data();
        if data.align_offset(std::mem::align_of::<T>()) != 0 {
            return None;
        }
        let len = if count == 0 || height == 0 || width == 0 {
            0
        } else {
            (count - 1) * plane_stride + (height - 1) * row_stride + width
        };
        let samples = if len == 0 {
            &[][..]
        } else {
            // SAFETY: `data` is the array's first sample, aligned for `T`
            // (checked); every stride is a non-negative whole number of
            // samples (checked), so the array's samples lie from `data` to
            // `data + len - 1`, the last one, and everything between the
            // first and the last lies in the one block of memory the array
            // views (numpy's allocation, or the block an exporter's buffer
            // describes), which `array`'s read-only borrow keeps alive and
            // unresized for `'a`. The samples between rows (a wider base
            // array's) are in that block too; nothing reads them.
            unsafe { std::slice::from_raw_parts(data.cast_const(), len) }
        };
        Some(Self {
            samples,
            count,
            height,
            width,
            row_stride,
            plane_stride,
        })
    }

    /// Plane `i` (None past the last).
    pub fn plane(&self, i: usize) -> Option<PlaneRef<'a, T>> {
        if i >= self.count {
            return None;
        }
        if self.samples.is_empty() {
            return Some(PlaneRef {
                samples: &[],
                stride: self.width,
            });
        }
        let start = i * self.plane_stride;
        let end = start + (self.height - 1) * self.row_stride + self.width;
        Some(PlaneRef {
            samples: self.samples.get(start..end)?,
            stride: self.row_stride,
        })
    }
}

/// The samples of an array [`video`] or [`plane`] gave (readable in place:
/// they checked it).
pub fn strided<'a, T: Sample, D: Dimension>(
    array: &'a PyReadonlyArray<'_, T, D>,
) -> Strided<'a, T> {
    Strided::of(array).unwrap_or(Strided {
        samples: &[],
        count: 0,
        height: 0,
        width: 0,
        row_stride: 0,
        plane_stride: 0,
    })
}

/// Frame `i` of each of `planes`.
pub fn frame<'a, T: Sample>(planes: &[Strided<'a, T>], i: usize) -> Vec<PlaneRef<'a, T>> {
    planes
        .iter()
        .map(|p| {
            p.plane(i).unwrap_or(PlaneRef {
                samples: &[],
                stride: p.width,
            })
        })
        .collect()
}

/// The planes of one frame (each `(rows, columns)`).
pub fn planes2<'a, T: Sample>(planes: &'a [PyReadonlyArray2<'_, T>]) -> Vec<PlaneRef<'a, T>> {
    let one: Vec<Strided<'a, T>> = planes.iter().map(strided).collect();
    frame(&one, 0)
}

/// The chroma layout of planes of `chroma` (width, height) beside luma of
/// `luma` (width, height): `None` for luma alone; an error when the two
/// chroma planes differ or fit no layout (`what` names the input).
pub fn chroma_of(
    luma: (usize, usize),
    chroma: &[(usize, usize)],
    what: &str,
) -> PyResult<Option<Chroma>> {
    match chroma {
        [] => Ok(None),
        [cb, cr] => {
            if cb != cr {
                return Err(InputError::new_err(format!(
                    "{what}: the Cb plane is {}x{} but the Cr plane is {}x{}",
                    cb.0, cb.1, cr.0, cr.1
                )));
            }
            let (w, h) = (luma.0 as u32, luma.1 as u32);
            [Chroma::C420, Chroma::C422, Chroma::C444]
                .into_iter()
                .find(|c| {
                    let (cw, ch) = c.plane_size(w, h);
                    (cw as usize, ch as usize) == *cb
                })
                .map(Some)
                .ok_or_else(|| {
                    InputError::new_err(format!(
                        "{what}: chroma planes of {}x{} fit no layout of {}x{} luma (4:2:0, 4:2:2 or 4:4:4)",
                        cb.0, cb.1, w, h
                    ))
                })
        }
        _ => Err(InputError::new_err(format!(
            "{what}: expected luma alone or (luma, Cb, Cr), got {} planes",
            chroma.len() + 1
        ))),
    }
}

/// The bit depth of frames of `T` samples, from the caller's `bit_depth`
/// (required for `uint16`: 10, 12 or 16).
pub fn bit_depth<T: Sample>(given: Option<u32>) -> PyResult<u32> {
    let bytes = std::mem::size_of::<T>();
    match (bytes, given) {
        (1, None | Some(8)) => Ok(8),
        (1, Some(b)) => Err(OptionError::new_err(format!(
            "bitdepth={b} with uint8 arrays: 8-bit samples are uint8, deeper ones uint16"
        ))),
        (_, Some(b @ (10 | 12 | 16))) => Ok(b),
        (_, Some(b)) => Err(OptionError::new_err(format!(
            "bitdepth={b} with uint16 arrays: 10, 12 or 16"
        ))),
        (_, None) => Err(OptionError::new_err(
            "uint16 arrays need bitdepth= (10, 12 or 16): their samples are stored as they are, not shifted",
        )),
    }
}
