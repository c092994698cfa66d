//! `vkssim._native`, the Python package's native module: files scored as
//! the command line scores them ([`files`]), numpy arrays ([`memory`]), a
//! streaming scorer ([`scorer`]), their reports ([`result`]) and the
//! exceptions ([`errors`]), with keyword options read as typed values
//! ([`options`]). The Python side (`py/vkssim/`) makes the API of these:
//! `Result`, ladders, array layouts, progress bars.

mod arrays;
mod errors;
mod files;
mod memory;
mod options;
mod result;
mod run;
mod scorer;
mod watch;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<result::PyReport>()?;
    m.add_class::<scorer::PyScorer>()?;
    m.add_function(wrap_pyfunction!(files::score_files, m)?)?;
    m.add_function(wrap_pyfunction!(memory::score_arrays, m)?)?;
    m.add("VERSION", vkssim_cli::score::VERSION)?;
    Ok(())
}
