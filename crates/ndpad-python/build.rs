//! PyO3's configuration names (`Py_GIL_DISABLED`, `PyPy`, ...) for this crate's code:
//! `raw::add_refs` counts references in place only where the count is the object's
//! first word.

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
