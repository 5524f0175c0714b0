//! ONNX protobuf: `TensorProto` (`.pb` tensor files) and `ModelProto` (`.onnx`).
//!
//! The messages are declared by hand in [`proto`] with `prost` (no `protoc`), using
//! the field numbers of `onnx.proto`. Reading first walks the wire format to count
//! what decoding would allocate ([`ProtoLimits`]), then decodes, then converts into
//! ndpad's types, checking every length against `dims` before allocating.
//!
//! `TensorProto` data is read from `raw_data` or from the typed field of its type:
//! `float_data` (float, complex64), `int32_data` (bool, int8, int16, int32, uint8,
//! uint16, float16 and bfloat16 as bit patterns, the float8 types, and the packed 4-
//! and 2-bit types as one packed byte per entry), `int64_data` (int64),
//! `uint64_data` (uint32, uint64), `double_data` (double, complex128) and
//! `string_data` (strings, which must be UTF-8). Writing uses `raw_data` (and
//! `string_data` for strings). External data and segments are refused.

pub mod proto;

mod model;
mod scan;
mod tensor;

pub use model::{
    model_from_proto, model_to_proto, read_model, read_model_with, write_model, Attribute,
    AttributeValue, Dim, Graph, Model, Node, OpsetImport, ValueInfo,
};
pub use scan::ProtoLimits;
pub use tensor::{
    read_tensor, read_tensor_with, tensor_from_proto, tensor_to_proto, write_tensor,
    write_tensor_to, NamedTensor,
};
