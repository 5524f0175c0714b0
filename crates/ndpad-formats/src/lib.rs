//! Tensor file formats (in progress).
