//! Every Rust error becomes a Python exception here, and only here: bad input is a
//! `ValueError`, everything the GPU can do wrong a `GpuError`.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::PyErr;

use planar_hold::Error;

pyo3::create_exception!(
    planar_hold,
    GpuError,
    PyRuntimeError,
    "The GPU engine failed: no adapter (the message says how to install a software one), \
     device creation, device lost, out of memory or limits."
);

/// The Python exception of a Rust error.
pub(crate) fn py_err(e: Error) -> PyErr {
    match e {
        Error::TooManyGenerators { .. } | Error::NonFinite(_) | Error::Input(_) => {
            PyValueError::new_err(e.to_string())
        }
        _ => GpuError::new_err(e.to_string()),
    }
}

/// The `ValueError` of bad input, in words.
pub(crate) fn bad_input(message: String) -> PyErr {
    py_err(Error::Input(message))
}

/// An input error that names where it is ("case 3", "scene 0").
pub(crate) fn at(place: String, e: Error) -> Error {
    match e {
        Error::Input(message) => Error::Input(format!("{place}: {message}")),
        other => Error::Input(format!("{place}: {other}")),
    }
}
