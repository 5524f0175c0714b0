//! Element types and how they are laid out in memory.

use std::fmt;
use std::str::FromStr;

use crate::error::PadError;

/// Every element type of ONNX `Pad-25` (which covers OpenVINO's and nGraph's).
///
/// Fixed-width types are stored little-endian, one element after the other. The
/// packed sub-byte types ([`DType::Int4`], [`DType::Uint4`], [`DType::Float4E2M1`]: two
/// per byte; [`DType::Int2`], [`DType::Uint2`]: four per byte) are packed as ONNX
/// packs them: the first element in the lowest bits of the first byte. Strings are
/// held as [`crate::Strings`], not as bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`, one byte, 0 or 1.
    Bool,
    /// Signed 8-bit integer.
    Int8,
    /// Signed 16-bit integer.
    Int16,
    /// Signed 32-bit integer.
    Int32,
    /// Signed 64-bit integer.
    Int64,
    /// Unsigned 8-bit integer.
    Uint8,
    /// Unsigned 16-bit integer.
    Uint16,
    /// Unsigned 32-bit integer.
    Uint32,
    /// Unsigned 64-bit integer.
    Uint64,
    /// IEEE 754 half precision.
    Float16,
    /// bfloat16 (the upper half of a float32).
    BFloat16,
    /// IEEE 754 single precision.
    Float32,
    /// IEEE 754 double precision.
    Float64,
    /// Two float32: real, imaginary.
    Complex64,
    /// Two float64: real, imaginary.
    Complex128,
    /// UTF-8 text (variable length; [`crate::Strings`]).
    String,
    /// float8 E4M3, finite only (NaN = 0x7F/0xFF).
    Float8E4M3FN,
    /// float8 E4M3, finite only, no negative zero (NaN = 0x80).
    Float8E4M3FNUZ,
    /// float8 E5M2 (with infinities).
    Float8E5M2,
    /// float8 E5M2, no infinities, no negative zero (NaN = 0x80).
    Float8E5M2FNUZ,
    /// float8 E8M0: an exponent only (2^(e-127)); 0xFF is NaN; cannot represent 0.
    Float8E8M0,
    /// Signed 4-bit integer, two per byte.
    Int4,
    /// Unsigned 4-bit integer, two per byte.
    Uint4,
    /// float4 E2M1, two per byte.
    Float4E2M1,
    /// Signed 2-bit integer, four per byte.
    Int2,
    /// Unsigned 2-bit integer, four per byte.
    Uint2,
}

/// How the elements of a type are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `width` bytes per element (1, 2, 4, 8 or 16).
    Bytes(usize),
    /// `bits` bits per element (4 or 2), packed with the first element in the low bits.
    Packed(u32),
    /// Variable-length text ([`crate::Strings`]).
    Strings,
}

impl DType {
    /// All types, in a fixed order.
    pub const ALL: [DType; 26] = [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Uint8,
        DType::Uint16,
        DType::Uint32,
        DType::Uint64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
        DType::String,
        DType::Float8E4M3FN,
        DType::Float8E4M3FNUZ,
        DType::Float8E5M2,
        DType::Float8E5M2FNUZ,
        DType::Float8E8M0,
        DType::Int4,
        DType::Uint4,
        DType::Float4E2M1,
        DType::Int2,
        DType::Uint2,
    ];

    /// How elements of this type are stored.
    pub fn layout(self) -> Layout {
        use DType::*;
        match self {
            Bool | Int8 | Uint8 | Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ
            | Float8E8M0 => Layout::Bytes(1),
            Int16 | Uint16 | Float16 | BFloat16 => Layout::Bytes(2),
            Int32 | Uint32 | Float32 => Layout::Bytes(4),
            Int64 | Uint64 | Float64 | Complex64 => Layout::Bytes(8),
            Complex128 => Layout::Bytes(16),
            Int4 | Uint4 | Float4E2M1 => Layout::Packed(4),
            Int2 | Uint2 => Layout::Packed(2),
            String => Layout::Strings,
        }
    }

    /// Bits per element (strings count as 0: they have no fixed size).
    pub fn bits(self) -> u32 {
        match self.layout() {
            Layout::Bytes(w) => (w * 8) as u32,
            Layout::Packed(b) => b,
            Layout::Strings => 0,
        }
    }

    /// Bytes needed to hold `numel` elements of this type (`None` on overflow, `Some(0)`
    /// for strings, which are not stored as bytes).
    ///
    /// ```
    /// use ndpad::DType;
    /// assert_eq!(DType::Float32.byte_len(3), Some(12));
    /// assert_eq!(DType::Int4.byte_len(3), Some(2));
    /// assert_eq!(DType::Uint2.byte_len(5), Some(2));
    /// ```
    pub fn byte_len(self, numel: usize) -> Option<usize> {
        match self.layout() {
            Layout::Bytes(w) => numel.checked_mul(w),
            Layout::Packed(b) => {
                let per_byte = (8 / b) as usize;
                Some(numel / per_byte + usize::from(!numel.is_multiple_of(per_byte)))
            }
            Layout::Strings => Some(0),
        }
    }

    /// The ONNX `TensorProto.DataType` number of this type.
    pub fn onnx_code(self) -> i32 {
        use DType::*;
        match self {
            Float32 => 1,
            Uint8 => 2,
            Int8 => 3,
            Uint16 => 4,
            Int16 => 5,
            Int32 => 6,
            Int64 => 7,
            String => 8,
            Bool => 9,
            Float16 => 10,
            Float64 => 11,
            Uint32 => 12,
            Uint64 => 13,
            Complex64 => 14,
            Complex128 => 15,
            BFloat16 => 16,
            Float8E4M3FN => 17,
            Float8E4M3FNUZ => 18,
            Float8E5M2 => 19,
            Float8E5M2FNUZ => 20,
            Uint4 => 21,
            Int4 => 22,
            Float4E2M1 => 23,
            Float8E8M0 => 24,
            Uint2 => 25,
            Int2 => 26,
        }
    }

    /// The type with ONNX `TensorProto.DataType` number `code`.
    ///
    /// # Errors
    /// [`PadError::UnknownDType`] when the number names no type ndpad supports.
    pub fn from_onnx_code(code: i32) -> Result<DType, PadError> {
        DType::ALL
            .into_iter()
            .find(|d| d.onnx_code() == code)
            .ok_or_else(|| PadError::UnknownDType(format!("ONNX data type {code}")))
    }

    /// The name of the type in messages and listings: ONNX's names (`int64`,
    /// `float8e4m3fn`, ...) but `float32` and `float64` where ONNX says `float` and
    /// `double` ([`DType::onnx_name`]).
    pub fn name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            Uint8 => "uint8",
            Uint16 => "uint16",
            Uint32 => "uint32",
            Uint64 => "uint64",
            Float16 => "float16",
            BFloat16 => "bfloat16",
            Float32 => "float32",
            Float64 => "float64",
            Complex64 => "complex64",
            Complex128 => "complex128",
            String => "string",
            Float8E4M3FN => "float8e4m3fn",
            Float8E4M3FNUZ => "float8e4m3fnuz",
            Float8E5M2 => "float8e5m2",
            Float8E5M2FNUZ => "float8e5m2fnuz",
            Float8E8M0 => "float8e8m0",
            Int4 => "int4",
            Uint4 => "uint4",
            Float4E2M1 => "float4e2m1",
            Int2 => "int2",
            Uint2 => "uint2",
        }
    }

    /// The name ONNX gives the type (`TensorProto.DataType`, lower case): [`DType::name`]
    /// but `float` for float32 and `double` for float64.
    ///
    /// ```
    /// use ndpad::DType;
    /// assert_eq!(DType::Float64.onnx_name(), "double");
    /// assert_eq!(DType::Float64.name(), "float64");
    /// assert_eq!(DType::Int4.onnx_name(), "int4");
    /// ```
    pub fn onnx_name(self) -> &'static str {
        match self {
            DType::Float32 => "float",
            DType::Float64 => "double",
            other => other.name(),
        }
    }

    /// True for the signed integer types (`int2` .. `int64`).
    ///
    /// ```
    /// use ndpad::DType;
    /// assert!(DType::Int4.is_signed_integer());
    /// assert!(!DType::Uint8.is_signed_integer() && !DType::Float32.is_signed_integer());
    /// ```
    pub fn is_signed_integer(self) -> bool {
        use DType::*;
        matches!(self, Int2 | Int4 | Int8 | Int16 | Int32 | Int64)
    }

    /// True for types whose values are integers (not bool).
    pub fn is_integer(self) -> bool {
        use DType::*;
        matches!(
            self,
            Int8 | Int16
                | Int32
                | Int64
                | Uint8
                | Uint16
                | Uint32
                | Uint64
                | Int4
                | Uint4
                | Int2
                | Uint2
        )
    }

    /// The inclusive range `(min, max)` of the values of an integer type: `int2`
    /// through `int64` and `uint2` through `uint64`. `None` for every other type,
    /// `bool` included (as [`DType::is_integer`], which is true exactly when this is
    /// `Some`).
    ///
    /// ```
    /// use ndpad::DType;
    /// assert_eq!(DType::Int4.int_range(), Some((-8, 7)));
    /// assert_eq!(DType::Uint2.int_range(), Some((0, 3)));
    /// assert_eq!(DType::Int64.int_range(), Some((i64::MIN.into(), i64::MAX.into())));
    /// assert_eq!(DType::Uint64.int_range(), Some((0, u64::MAX.into())));
    /// assert_eq!(DType::Bool.int_range(), None);
    /// assert_eq!(DType::Float32.int_range(), None);
    /// ```
    pub fn int_range(self) -> Option<(i128, i128)> {
        if !self.is_integer() {
            return None;
        }
        let bits = self.bits();
        Some(if self.is_signed_integer() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = PadError;

    /// Parses a type name ([`DType::name`]: `float32`, `int4`, ...) or ONNX's
    /// (`float`, `double`), also accepting the common aliases `f32`, `f64`, `f16`, `bf16`, `i8`..`i64`,
    /// `u8`..`u64`, `c64`, `c128`, `str` (case-insensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "float" | "f32" => Some(DType::Float32),
            "double" | "f64" => Some(DType::Float64),
            "f16" | "half" => Some(DType::Float16),
            "bf16" => Some(DType::BFloat16),
            "i8" => Some(DType::Int8),
            "i16" => Some(DType::Int16),
            "i32" => Some(DType::Int32),
            "i64" => Some(DType::Int64),
            "u8" => Some(DType::Uint8),
            "u16" => Some(DType::Uint16),
            "u32" => Some(DType::Uint32),
            "u64" => Some(DType::Uint64),
            "c64" => Some(DType::Complex64),
            "c128" => Some(DType::Complex128),
            "str" => Some(DType::String),
            "boolean" => Some(DType::Bool),
            _ => None,
        };
        alias
            .or_else(|| DType::ALL.into_iter().find(|d| d.name() == lower))
            .ok_or_else(|| PadError::UnknownDType(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        for d in DType::ALL {
            assert_eq!(d.name().parse::<DType>().unwrap(), d);
            assert_eq!(d.onnx_name().parse::<DType>().unwrap(), d);
            assert_eq!(DType::from_onnx_code(d.onnx_code()).unwrap(), d);
        }
        let err = "float7".parse::<DType>().unwrap_err();
        assert!(err.to_string().contains("float7"), "{err}");
        assert!(DType::from_onnx_code(99)
            .unwrap_err()
            .to_string()
            .contains("99"));
    }

    #[test]
    fn int_ranges() {
        use DType::*;
        let want: [(DType, i128, i128); 12] = [
            (Int2, -2, 1),
            (Uint2, 0, 3),
            (Int4, -8, 7),
            (Uint4, 0, 15),
            (Int8, i8::MIN.into(), i8::MAX.into()),
            (Uint8, 0, u8::MAX.into()),
            (Int16, i16::MIN.into(), i16::MAX.into()),
            (Uint16, 0, u16::MAX.into()),
            (Int32, i32::MIN.into(), i32::MAX.into()),
            (Uint32, 0, u32::MAX.into()),
            (Int64, i64::MIN.into(), i64::MAX.into()),
            (Uint64, 0, u64::MAX.into()),
        ];
        for (d, lo, hi) in want {
            assert_eq!(d.int_range(), Some((lo, hi)), "{d}");
        }
        for d in DType::ALL {
            assert_eq!(d.int_range().is_some(), d.is_integer(), "{d}");
        }
        assert_eq!(Bool.int_range(), None);
    }

    #[test]
    fn packed_lengths() {
        assert_eq!(DType::Int4.byte_len(0), Some(0));
        assert_eq!(DType::Int4.byte_len(4), Some(2));
        assert_eq!(DType::Int2.byte_len(4), Some(1));
        assert_eq!(DType::Int2.byte_len(9), Some(3));
        assert_eq!(DType::Float64.byte_len(usize::MAX), None);
    }
}
