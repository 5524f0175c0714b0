//! `TensorProto` to and from [`Tensor`].

use ndpad::{numel, DType, Data, Layout, Tensor, TensorView};
use prost::Message;

use super::proto::TensorProto;
use super::scan::{self, Kind, ProtoLimits};
use crate::error::FormatError;

/// A tensor with the name it has in a `TensorProto` (empty when unnamed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedTensor {
    /// The name.
    pub name: String,
    /// The tensor.
    pub tensor: Tensor,
}

/// The typed field that holds a type's data when `raw_data` does not.
fn typed_field(dtype: DType) -> &'static str {
    use DType::*;
    match dtype {
        Float32 | Complex64 => "float_data",
        Int64 => "int64_data",
        Uint32 | Uint64 => "uint64_data",
        Float64 | Complex128 => "double_data",
        String => "string_data",
        _ => "int32_data",
    }
}

/// The allowed range of an `int32_data` entry for `dtype`, and its width in bytes.
fn int32_range(dtype: DType) -> (i64, i64, usize) {
    use DType::*;
    match dtype {
        Bool => (0, 1, 1),
        Int8 => (-128, 127, 1),
        Int16 => (-32768, 32767, 2),
        Uint16 | Float16 | BFloat16 => (0, 65535, 2),
        Int32 => (i64::from(i32::MIN), i64::from(i32::MAX), 4),
        // uint8, float8 and the packed types (one packed byte per entry).
        _ => (0, 255, 1),
    }
}

/// Clears the bits after the last element of a packed buffer.
fn clear_padding(dtype: DType, n: usize, bytes: &mut [u8]) {
    if let Layout::Packed(bits) = dtype.layout() {
        ndpad::packed::clear_unused_bits(bytes, bits, n);
    }
}

fn field_err(name: &str, field: &'static str, reason: String) -> FormatError {
    FormatError::TensorField {
        name: name.to_string(),
        field,
        reason,
    }
}

/// Converts a decoded `TensorProto` into a tensor (taking its buffers, not copying
/// `raw_data`).
///
/// # Errors
/// [`FormatError::ExternalData`] for external data; [`FormatError::TensorField`]
/// naming the field for a segment, an unknown `data_type`, negative or overflowing
/// `dims`, data in a field other than the type's, a data length that does not match
/// `dims`, an out-of-range `int32_data` entry, a bool other than 0 or 1, or a
/// `string_data` entry that is not UTF-8.
///
/// ```
/// use ndpad_formats::onnx::{proto::TensorProto, tensor_from_proto};
/// let p = TensorProto { dims: vec![2], data_type: 7, int64_data: vec![5, -6], ..Default::default() };
/// let t = tensor_from_proto(p).unwrap().tensor;
/// assert_eq!(t.to_vec::<i64>().unwrap(), vec![5, -6]);
/// let bad = TensorProto { dims: vec![3], data_type: 7, int64_data: vec![5, -6], ..Default::default() };
/// assert!(tensor_from_proto(bad).unwrap_err().to_string().contains("int64_data: has 2 values"));
/// ```
pub fn tensor_from_proto(p: TensorProto) -> Result<NamedTensor, FormatError> {
    let name = p.name;
    if p.data_location == 1 || !p.external_data.is_empty() {
        let location = p
            .external_data
            .iter()
            .find(|e| e.key == "location")
            .map_or(String::new(), |e| format!(", location {:?}", e.value));
        return Err(FormatError::ExternalData { name, location });
    }
    if p.data_location != 0 {
        return Err(field_err(
            &name,
            "data_location",
            format!(
                "{} is neither DEFAULT (0) nor EXTERNAL (1)",
                p.data_location
            ),
        ));
    }
    if let Some(s) = &p.segment {
        return Err(field_err(
            &name,
            "segment",
            format!(
                "segmented tensors (begin {}, end {}) are not supported",
                s.begin, s.end
            ),
        ));
    }
    if p.data_type == 0 {
        return Err(field_err(
            &name,
            "data_type",
            "is 0 (UNDEFINED): the tensor has no element type".into(),
        ));
    }
    let dtype = DType::from_onnx_code(p.data_type).map_err(|_| {
        field_err(
            &name,
            "data_type",
            format!("{} is not a data type ndpad supports", p.data_type),
        )
    })?;
    if p.dims.len() > crate::npy::MAX_NDIM {
        return Err(field_err(
            &name,
            "dims",
            format!(
                "has {} dimensions, more than the limit of {}",
                p.dims.len(),
                crate::npy::MAX_NDIM
            ),
        ));
    }
    let mut shape = Vec::with_capacity(p.dims.len());
    for (i, &d) in p.dims.iter().enumerate() {
        let d = usize::try_from(d).map_err(|_| {
            field_err(
                &name,
                "dims",
                format!("entry {i} is {d}; dimensions must not be negative"),
            )
        })?;
        shape.push(d);
    }
    let n = numel(&shape).map_err(|_| {
        field_err(
            &name,
            "dims",
            format!("{:?} has more elements than fit in memory", p.dims),
        )
    })?;
    let complex = matches!(dtype, DType::Complex64 | DType::Complex128);
    let need_bytes = dtype.byte_len(n).ok_or_else(|| {
        field_err(
            &name,
            "dims",
            format!(
                "{:?} of {dtype} needs more bytes than fit in memory",
                p.dims
            ),
        )
    })?;

    let expected = typed_field(dtype);
    let counts = [
        ("float_data", p.float_data.len()),
        ("int32_data", p.int32_data.len()),
        ("string_data", p.string_data.len()),
        ("int64_data", p.int64_data.len()),
        ("double_data", p.double_data.len()),
        ("uint64_data", p.uint64_data.len()),
    ];
    for (field, count) in counts {
        if count != 0 && field != expected {
            return Err(field_err(
                &name,
                field,
                format!(
                    "has {count} values, but a {dtype} tensor keeps its data in {expected}{}",
                    if dtype == DType::String {
                        ""
                    } else {
                        " or raw_data"
                    }
                ),
            ));
        }
    }
    let typed_count = counts
        .iter()
        .find(|(f, _)| *f == expected)
        .map_or(0, |c| c.1);

    if !p.raw_data.is_empty() {
        if dtype == DType::String {
            return Err(field_err(
                &name,
                "raw_data",
                "string tensors keep their data in string_data".into(),
            ));
        }
        if typed_count != 0 {
            return Err(field_err(
                &name,
                "raw_data",
                format!("is set together with {expected} ({typed_count} values)"),
            ));
        }
        if p.raw_data.len() != need_bytes {
            return Err(field_err(
                &name,
                "raw_data",
                format!(
                    "has {} bytes but dims {:?} of {dtype} need {need_bytes}",
                    p.raw_data.len(),
                    p.dims
                ),
            ));
        }
        let mut bytes = p.raw_data;
        if dtype == DType::Bool {
            if let Some(i) = bytes.iter().position(|&b| b > 1) {
                return Err(field_err(
                    &name,
                    "raw_data",
                    format!("bool element {i} is {}, not 0 or 1", bytes[i]),
                ));
            }
        }
        clear_padding(dtype, n, &mut bytes);
        return Ok(NamedTensor {
            name,
            tensor: Tensor::from_bytes(dtype, &shape, bytes)?,
        });
    }

    let want = match dtype.layout() {
        Layout::Packed(_) => need_bytes,
        _ if complex => n.saturating_mul(2),
        _ => n,
    };
    if typed_count != want {
        return Err(field_err(
            &name,
            expected,
            format!(
                "has {typed_count} values but dims {:?} of {dtype} need {want}{}",
                p.dims,
                if p.dims.is_empty() {
                    " (a tensor with no dims is a scalar)"
                } else {
                    ""
                }
            ),
        ));
    }
    let tensor = match expected {
        "string_data" => {
            // Into one shared text as they are checked, each message's bytes freed
            // after it (not every string held twice).
            let mut strings = ndpad::Strings::new();
            for (i, s) in p.string_data.into_iter().enumerate() {
                strings.push(std::str::from_utf8(&s).map_err(|e| {
                    field_err(
                        &name,
                        "string_data",
                        format!("element {i} is not valid UTF-8: {e}"),
                    )
                })?);
            }
            Tensor::from_strings(&shape, strings)?
        }
        "float_data" => Tensor::from_bytes(
            dtype,
            &shape,
            p.float_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
        )?,
        "double_data" => Tensor::from_bytes(
            dtype,
            &shape,
            p.double_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
        )?,
        "int64_data" => Tensor::from_bytes(
            dtype,
            &shape,
            p.int64_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
        )?,
        "uint64_data" => {
            let mut bytes = Vec::with_capacity(need_bytes);
            for (i, &v) in p.uint64_data.iter().enumerate() {
                if dtype == DType::Uint32 {
                    let v = u32::try_from(v).map_err(|_| {
                        field_err(
                            &name,
                            "uint64_data",
                            format!("value {v} at index {i} is out of range for uint32"),
                        )
                    })?;
                    bytes.extend(v.to_le_bytes());
                } else {
                    bytes.extend(v.to_le_bytes());
                }
            }
            Tensor::from_bytes(dtype, &shape, bytes)?
        }
        _ => {
            let (lo, hi, width) = int32_range(dtype);
            let mut bytes = Vec::with_capacity(need_bytes);
            for (i, &v) in p.int32_data.iter().enumerate() {
                let w = i64::from(v);
                if w < lo || w > hi {
                    return Err(field_err(
                        &name,
                        "int32_data",
                        format!(
                            "value {v} at index {i} is out of range for {dtype} ({lo}..={hi}{})",
                            if matches!(dtype.layout(), Layout::Packed(_)) {
                                ": one byte of packed elements per entry"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                bytes.extend(v.to_le_bytes().get(..width).unwrap_or(&[]));
            }
            clear_padding(dtype, n, &mut bytes);
            Tensor::from_bytes(dtype, &shape, bytes)?
        }
    };
    Ok(NamedTensor { name, tensor })
}

/// Converts a tensor into a `TensorProto`: `raw_data` for every type but strings,
/// `string_data` for strings.
///
/// # Errors
/// [`FormatError::Unwritable`] when a dimension does not fit in an `int64`.
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::onnx::tensor_to_proto;
/// let t = Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap();
/// let p = tensor_to_proto(&t.view(), "x").unwrap();
/// assert_eq!((p.dims, p.data_type, p.raw_data.len()), (vec![2], 1, 8));
/// ```
pub fn tensor_to_proto(view: &TensorView<'_>, name: &str) -> Result<TensorProto, FormatError> {
    let mut p = proto_head(view, name)?;
    match view.data() {
        Data::Bytes(b) => p.raw_data = b.to_vec(),
        Data::Strings(s) => p.string_data = s.iter().map(|s| s.as_bytes().to_vec()).collect(),
    }
    Ok(p)
}

/// A `TensorProto` with the view's dims, type and `name`, and no data.
fn proto_head(view: &TensorView<'_>, name: &str) -> Result<TensorProto, FormatError> {
    let dims = view
        .shape()
        .iter()
        .map(|&d| {
            i64::try_from(d).map_err(|_| FormatError::Unwritable {
                dtype: view.dtype(),
                reason: format!("dimension {d} does not fit in an int64"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TensorProto {
        dims,
        data_type: view.dtype().onnx_code(),
        name: name.to_string(),
        ..TensorProto::default()
    })
}

/// Reads a serialized `TensorProto` (an ONNX `.pb` tensor file) with the default
/// [`ProtoLimits`].
///
/// # Errors
/// [`FormatError::Protobuf`] for bytes that are not a valid `TensorProto`,
/// [`FormatError::Limit`] over the limits, and every error of [`tensor_from_proto`].
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::onnx::{read_tensor, write_tensor};
/// let t = Tensor::from_strings(&[2], vec!["a", "é"]).unwrap();
/// let back = read_tensor(&write_tensor(&t.view(), "s").unwrap()).unwrap();
/// assert_eq!((back.name.as_str(), back.tensor), ("s", t));
/// assert!(read_tensor(&[0x0a, 0x05]).unwrap_err().to_string().contains("TensorProto"));
/// ```
pub fn read_tensor(bytes: &[u8]) -> Result<NamedTensor, FormatError> {
    read_tensor_with(bytes, &ProtoLimits::default())
}

/// Reads a serialized `TensorProto` under explicit limits.
///
/// # Errors
/// As [`read_tensor`].
///
/// ```
/// use ndpad_formats::onnx::{read_tensor_with, ProtoLimits};
/// let limits = ProtoLimits { max_messages: 0, max_strings: 0 };
/// // A tensor with one string_data entry.
/// let err = read_tensor_with(&[0x10, 0x08, 0x32, 0x00], &limits).unwrap_err();
/// assert!(err.to_string().contains("strings (1) exceeds the limit of 0"), "{err}");
/// ```
pub fn read_tensor_with(bytes: &[u8], limits: &ProtoLimits) -> Result<NamedTensor, FormatError> {
    tensor_from_proto(scan::decode(bytes, Kind::Tensor, "TensorProto", limits)?)
}

/// Serializes a tensor as a `TensorProto` (see [`tensor_to_proto`]).
///
/// # Errors
/// As [`tensor_to_proto`].
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::onnx::write_tensor;
/// let t = Tensor::from_slice(&[1], &[7u8]).unwrap();
/// // dims [1], data_type 2 (uint8), name "x", raw_data [7]
/// assert_eq!(write_tensor(&t.view(), "x").unwrap(), [0x08, 0x01, 0x10, 0x02, 0x42, 0x01, b'x', 0x4a, 0x01, 0x07]);
/// ```
pub fn write_tensor(view: &TensorView<'_>, name: &str) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::new();
    write_tensor_to(&mut out, view, name)?;
    Ok(out)
}

/// Serializes a tensor as a `TensorProto` to `w`, streaming its elements: the message
/// without its data is encoded first, then the `raw_data` field (number 9) is written
/// straight from the view, so no second copy of the data is made. The bytes are those
/// of [`write_tensor`] (prost encodes fields in number order, and no field after
/// `raw_data` is set).
///
/// # Errors
/// As [`tensor_to_proto`], and [`FormatError::Io`] when `w` fails.
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::onnx::{write_tensor, write_tensor_to};
/// let t = Tensor::from_slice(&[2], &[1.5f32, -2.0]).unwrap();
/// let mut out = Vec::new();
/// write_tensor_to(&mut out, &t.view(), "y").unwrap();
/// assert_eq!(out, write_tensor(&t.view(), "y").unwrap());
/// ```
pub fn write_tensor_to<W: std::io::Write>(
    w: &mut W,
    view: &TensorView<'_>,
    name: &str,
) -> Result<(), FormatError> {
    let io = |source| FormatError::Io {
        path: "TensorProto output".to_string(),
        source,
    };
    match view.data() {
        Data::Strings(_) => w
            .write_all(&tensor_to_proto(view, name)?.encode_to_vec())
            .map_err(io),
        Data::Bytes(bytes) => {
            // The message without its data; `raw_data` follows.
            let p = proto_head(view, name)?;
            w.write_all(&p.encode_to_vec()).map_err(io)?;
            if !bytes.is_empty() {
                let mut head = vec![0x4a]; // field 9, length-delimited
                prost::encoding::encode_varint(bytes.len() as u64, &mut head);
                w.write_all(&head).map_err(io)?;
                w.write_all(bytes).map_err(io)?;
            }
            Ok(())
        }
    }
}
