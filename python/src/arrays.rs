//! numpy planes in: the arrays a caller hands over, checked (dtype, shape,
//! layout) and seen as sample slices without a copy, and a frame's planes
//! made into the library's [`Pair`]. The Python side makes an array
//! C-contiguous and native-endian before it comes here; an array that is
//! not, or of another dtype or shape, is refused with an [`InputError`]
//! naming it, never read wrongly.

use numpy::ndarray::Dimension;
use numpy::{PyReadonlyArray, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods};
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

/// One packed plane: rows of `width` samples.
#[derive(Clone, Copy)]
pub struct PlaneRef<'a, T> {
    /// The samples, row after row.
    pub samples: &'a [T],
    /// Samples per row.
    pub width: usize,
}

impl<T: Sample> PlaneRef<'_, T> {
    fn host(&self) -> HostPlane<'_> {
        T::plane(self.samples, self.width)
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

/// `obj`, which must be a C-contiguous 3-d (frames, rows, columns) array of
/// `T` (`what` names it in errors).
pub fn video<'py, T: Sample>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<PyReadonlyArray3<'py, T>> {
    contiguous(obj, what, "3-d numpy array (frames, height, width)")
}

/// `obj`, which must be a C-contiguous 2-d (rows, columns) array of `T`.
pub fn plane<'py, T: Sample>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<PyReadonlyArray2<'py, T>> {
    contiguous(obj, what, "2-d numpy array (height, width)")
}

/// `obj` as a C-contiguous array of `T` and `D`'s dimensions (`shape`
/// describes them in errors, `what` names the array).
fn contiguous<'py, T: Sample, D: Dimension>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    shape: &str,
) -> PyResult<PyReadonlyArray<'py, T, D>> {
    let a: PyReadonlyArray<'py, T, D> = obj.extract().map_err(|_| {
        InputError::new_err(format!(
            "{what}: expected a {shape} of {}, got {} of {}",
            std::any::type_name::<T>().replace("u", "uint"),
            shape_text(obj),
            dtype_name(obj)
        ))
    })?;
    if a.as_slice().is_err() {
        return Err(InputError::new_err(format!(
            "{what}: the array is not C-contiguous"
        )));
    }
    Ok(a)
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

/// The samples of a `(frames, rows, columns)` array, seen without the GIL.
#[derive(Clone, Copy)]
pub struct VideoRef<'a, T> {
    samples: &'a [T],
    width: usize,
    height: usize,
}

impl<'a, T: Sample> VideoRef<'a, T> {
    /// The samples of `array` (checked C-contiguous by [`video`]).
    pub fn of(array: &'a PyReadonlyArray3<'_, T>) -> Self {
        Self {
            samples: array.as_slice().unwrap_or(&[]),
            width: array.shape()[2],
            height: array.shape()[1],
        }
    }
}

/// Frame `i` of each of `planes`.
pub fn frame<'a, T: Sample>(planes: &[VideoRef<'a, T>], i: usize) -> Vec<PlaneRef<'a, T>> {
    planes
        .iter()
        .map(|p| {
            let n = p.width * p.height;
            PlaneRef {
                samples: p.samples.get(i * n..(i + 1) * n).unwrap_or(&[]),
                width: p.width,
            }
        })
        .collect()
}

/// The planes of one frame (each `(rows, columns)`).
pub fn planes2<'a, T: Sample>(planes: &'a [PyReadonlyArray2<'_, T>]) -> Vec<PlaneRef<'a, T>> {
    planes
        .iter()
        .map(|p| PlaneRef {
            samples: p.as_slice().unwrap_or(&[]),
            width: p.shape()[1],
        })
        .collect()
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
