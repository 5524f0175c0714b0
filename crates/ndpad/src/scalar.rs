//! A single value of any [`DType`]: the constant that padding writes.

use std::fmt;

use half::{bf16, f16};

use crate::dtype::{DType, Layout};
use crate::error::PadError;

/// One value of a given [`DType`], stored exactly (as the type's bit pattern, or as
/// text for strings).
///
/// ```
/// use ndpad::{DType, Scalar};
/// let v = Scalar::parse(DType::Int8, "-3").unwrap();
/// assert_eq!(v.to_le_bytes(), vec![0xFD]);
/// assert_eq!(Scalar::from(1.5f32).dtype(), DType::Float32);
/// assert_eq!(Scalar::zero(DType::String).as_str(), Some(""));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    dtype: DType,
    repr: Repr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Repr {
    Bits(u128),
    Text(String),
}

impl Scalar {
    /// The type's default pad value: 0, `false`, the empty string; for `float8e8m0`,
    /// which cannot represent 0, the all-zero bit pattern (2^-127, its smallest value).
    pub fn zero(dtype: DType) -> Scalar {
        let repr = if dtype == DType::String {
            Repr::Text(String::new())
        } else {
            Repr::Bits(0)
        };
        Scalar { dtype, repr }
    }

    /// A value from its raw bit pattern (little-endian two's complement for integers,
    /// IEEE bits for floats, the low `bits` bits for packed types, real part in the low
    /// half for complex types).
    ///
    /// # Errors
    /// [`PadError::InvalidValue`] when `dtype` is `string` or `bits` does not fit the
    /// type's width.
    pub fn from_bits(dtype: DType, bits: u128) -> Result<Scalar, PadError> {
        let width = dtype.bits();
        if dtype == DType::String || (width < 128 && bits >> width != 0) {
            return Err(PadError::InvalidValue {
                dtype,
                value: format!("bit pattern {bits:#x}"),
                reason: format!("does not fit in {width} bits"),
            });
        }
        if dtype == DType::Bool && bits > 1 {
            return Err(PadError::InvalidValue {
                dtype,
                value: format!("{bits}"),
                reason: "a bool is 0 or 1".into(),
            });
        }
        Ok(Scalar {
            dtype,
            repr: Repr::Bits(bits),
        })
    }

    /// A string value.
    pub fn string(s: impl Into<String>) -> Scalar {
        Scalar {
            dtype: DType::String,
            repr: Repr::Text(s.into()),
        }
    }

    /// The value's type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The raw bit pattern (`None` for strings).
    pub fn bits(&self) -> Option<u128> {
        match &self.repr {
            Repr::Bits(b) => Some(*b),
            Repr::Text(_) => None,
        }
    }

    /// The text of a string value (`None` for other types).
    pub fn as_str(&self) -> Option<&str> {
        match &self.repr {
            Repr::Text(s) => Some(s),
            Repr::Bits(_) => None,
        }
    }

    /// The element's bytes as stored in a tensor: `width` little-endian bytes for
    /// fixed-width types, one byte holding the value in its low bits for packed types,
    /// the UTF-8 text for strings.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match (&self.repr, self.dtype.layout()) {
            (Repr::Text(s), _) => s.as_bytes().to_vec(),
            (Repr::Bits(b), Layout::Bytes(w)) => b.to_le_bytes()[..w].to_vec(),
            (Repr::Bits(b), _) => vec![*b as u8],
        }
    }

    /// Converts a number to `dtype` the way ONNX `Cast` does (used for Pad-1/Pad-2's
    /// float `value` attribute): floats round to nearest even; float8 and float4 types
    /// saturate finite values to their largest magnitude; integers truncate toward
    /// zero and saturate at the type's limits (NaN gives 0); bool is `v != 0`; complex
    /// types get a zero imaginary part.
    ///
    /// # Errors
    /// [`PadError::InvalidValue`] for `string`, which has no numeric value.
    pub fn from_f64(dtype: DType, v: f64) -> Result<Scalar, PadError> {
        use DType::*;
        let bits: u128 = match dtype {
            Bool => u128::from(v != 0.0),
            Int8 => (v as i8) as u8 as u128,
            Int16 => (v as i16) as u16 as u128,
            Int32 => (v as i32) as u32 as u128,
            Int64 => (v as i64) as u64 as u128,
            Uint8 => (v as u8) as u128,
            Uint16 => (v as u16) as u128,
            Uint32 => (v as u32) as u128,
            Uint64 => (v as u64) as u128,
            Int4 => (v.clamp(-8.0, 7.0) as i8 as u8 & 0x0F) as u128,
            Uint4 => v.clamp(0.0, 15.0) as u8 as u128,
            Int2 => (v.clamp(-2.0, 1.0) as i8 as u8 & 0x03) as u128,
            Uint2 => v.clamp(0.0, 3.0) as u8 as u128,
            Float16 => f16::from_f64(v).to_bits() as u128,
            BFloat16 => bf16::from_f64(v).to_bits() as u128,
            Float32 => (v as f32).to_bits() as u128,
            Float64 => v.to_bits() as u128,
            Complex64 => (v as f32).to_bits() as u128,
            Complex128 => v.to_bits() as u128,
            Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0
            | Float4E2M1 => minifloat::encode(dtype, v) as u128,
            String => {
                return Err(PadError::InvalidValue {
                    dtype,
                    value: v.to_string(),
                    reason: "a number cannot be a string pad value".into(),
                })
            }
        };
        Ok(Scalar {
            dtype,
            repr: Repr::Bits(bits),
        })
    }

    /// The value as a number (`None` for strings; the real part for complex types).
    pub fn to_f64(&self) -> Option<f64> {
        use DType::*;
        let b = self.bits()?;
        Some(match self.dtype {
            Bool | Uint8 | Uint16 | Uint32 | Uint64 | Uint4 | Uint2 => b as f64,
            Int8 => b as u8 as i8 as f64,
            Int16 => b as u16 as i16 as f64,
            Int32 => b as u32 as i32 as f64,
            Int64 => b as u64 as i64 as f64,
            Int4 => (((b as u8) << 4) as i8 >> 4) as f64,
            Int2 => (((b as u8) << 6) as i8 >> 6) as f64,
            Float16 => f16::from_bits(b as u16).to_f64(),
            BFloat16 => bf16::from_bits(b as u16).to_f64(),
            Float32 | Complex64 => f32::from_bits(b as u32) as f64,
            Float64 | Complex128 => f64::from_bits(b as u64),
            Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0
            | Float4E2M1 => minifloat::decode(self.dtype, b as u8),
            String => return None,
        })
    }

    /// Parses text as a value of `dtype`: integers in range (`-3`, `255`), floats
    /// (`1.5`, `-2e-3`, `nan`, `inf`, `-inf`), `true`/`false`/`1`/`0` for bool, `re,im`
    /// or `re` for complex types, any text for strings. A float is rounded to the
    /// nearest value of the type.
    ///
    /// # Errors
    /// [`PadError::InvalidValue`] naming the text and the type when it is not a value of
    /// the type: not a number, an integer out of range, a finite float beyond the
    /// type's largest finite value (`1e40` as `float32`, `500` as `float8e4m3fn`: an
    /// explicit `inf` or `nan` is fine), or a nonzero float that rounds to 0 (`1e-10` as
    /// `float16`). The same rules hold for every float type, float16 to float4.
    ///
    /// ```
    /// use ndpad::{DType, Scalar};
    /// let e = Scalar::parse(DType::Float32, "1e40").unwrap_err().to_string();
    /// assert_eq!(e, "invalid float32 value \"1e40\": out of range: the largest finite float32 is 3.4028235e38");
    /// let e = Scalar::parse(DType::Float16, "1e-10").unwrap_err().to_string();
    /// assert_eq!(e, "invalid float16 value \"1e-10\": rounds to 0: the smallest nonzero float16 is 5.960464477539063e-8");
    /// assert!(Scalar::parse(DType::Float32, "-inf").is_ok());
    /// ```
    pub fn parse(dtype: DType, text: &str) -> Result<Scalar, PadError> {
        use DType::*;
        let bad = |reason: &str| PadError::InvalidValue {
            dtype,
            value: text.to_string(),
            reason: reason.to_string(),
        };
        let t = text.trim();
        let int_in = |lo: i128, hi: i128| -> Result<u128, PadError> {
            let v: i128 = t
                .parse()
                .map_err(|e: std::num::ParseIntError| match e.kind() {
                    // Digits beyond 128 bits: an integer, out of any type's range.
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        bad(&format!("out of range {lo}..={hi}"))
                    }
                    _ => bad("not an integer"),
                })?;
            if v < lo || v > hi {
                return Err(bad(&format!("out of range {lo}..={hi}")));
            }
            let width = dtype.bits();
            Ok((v as u128) & ((1u128 << width) - 1))
        };
        let float = || -> Result<f64, PadError> { parse_f64(t).ok_or_else(|| bad("not a number")) };
        // A finite text that lands on infinity or (being nonzero) on zero.
        let in_range = |part: &str, value: Scalar| -> Result<Scalar, PadError> {
            check_float_range(dtype, part, &value).map_err(|reason| bad(&reason))?;
            Ok(value)
        };
        let bits = match dtype {
            String => return Ok(Scalar::string(text)),
            Bool => match t.to_ascii_lowercase().as_str() {
                "true" | "1" => 1,
                "false" | "0" => 0,
                _ => return Err(bad("expected true, false, 1 or 0")),
            },
            Int8 | Int16 | Int32 | Int64 | Uint8 | Uint16 | Uint32 | Uint64 | Int4 | Uint4
            | Int2 | Uint2 => {
                let (lo, hi) = dtype
                    .int_range()
                    .ok_or_else(|| bad("not an integer type"))?;
                int_in(lo, hi)?
            }
            Float32 => {
                let v: f32 = parse_f32(t).ok_or_else(|| bad("not a number"))?;
                return in_range(t, Scalar::from(v));
            }
            Complex64 | Complex128 => {
                let (re, im) = match t.split_once(',') {
                    Some((a, b)) => (a.trim(), b.trim()),
                    None => (t, "0"),
                };
                let form = "; write a complex value as re,im (`1,2` for 1+2j) or re alone";
                if dtype == Complex64 {
                    let part = |p: &str, which: &str| {
                        let v = parse_f32(p)
                            .ok_or_else(|| bad(&format!("{which} part is not a number{form}")))?;
                        in_range(p, Scalar::from(v))?;
                        Ok::<u128, PadError>(v.to_bits() as u128)
                    };
                    part(re, "real")? | (part(im, "imaginary")? << 32)
                } else {
                    let part = |p: &str, which: &str| {
                        let v = parse_f64(p)
                            .ok_or_else(|| bad(&format!("{which} part is not a number{form}")))?;
                        in_range(p, Scalar::from(v))?;
                        Ok::<u128, PadError>(v.to_bits() as u128)
                    };
                    part(re, "real")? | (part(im, "imaginary")? << 64)
                }
            }
            Float64 => return in_range(t, Scalar::from(float()?)),
            Float16 | BFloat16 | Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ
            | Float8E8M0 | Float4E2M1 => {
                let v = float()?;
                // float16 / bfloat16 overflow to infinity (checked below); the 8- and
                // 4-bit formats saturate.
                if !matches!(dtype, Float16 | BFloat16) && minifloat::overflows(dtype, v) {
                    return Err(bad(&beyond(dtype)));
                }
                return in_range(t, Scalar::from_f64(dtype, v)?);
            }
        };
        Ok(Scalar {
            dtype,
            repr: Repr::Bits(bits),
        })
    }
}

/// Why a float parsed from `text` is not the value the text means: it overflowed to
/// infinity or a nonzero text underflowed to zero (`Err` with the reason).
fn check_float_range(dtype: DType, text: &str, value: &Scalar) -> Result<(), String> {
    let v = value.to_f64().unwrap_or(f64::NAN);
    // Only a text with digits is a finite number ("inf" and "nan" are meant).
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    if v.is_infinite() && text.bytes().any(|b| b.is_ascii_digit()) {
        return Err(beyond(dtype));
    }
    if v == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        return Err(format!(
            "rounds to 0: the smallest nonzero {dtype} is {}",
            limit_text(dtype, false)
        ));
    }
    Ok(())
}

/// The message for a finite value beyond a float type's largest finite value.
fn beyond(dtype: DType) -> String {
    format!(
        "out of range: the largest finite {dtype} is {}",
        limit_text(dtype, true)
    )
}

/// A float type's largest finite or smallest positive value, exactly (`float`: as
/// the shortest `f32` text).
fn limit_text(dtype: DType, largest: bool) -> String {
    let v = float_limit(dtype, largest);
    match dtype {
        DType::Float32 | DType::Complex64 => shorter(v as f32),
        _ => shorter(v),
    }
}

/// A float type's largest finite value (`largest`) or its smallest positive one.
fn float_limit(dtype: DType, largest: bool) -> f64 {
    use DType::*;
    match (dtype, largest) {
        (Float16, true) => f16::MAX.to_f64(),
        (Float16, false) => f16::from_bits(1).to_f64(),
        (BFloat16, true) => bf16::MAX.to_f64(),
        (BFloat16, false) => bf16::from_bits(1).to_f64(),
        (Float32 | Complex64, true) => f64::from(f32::MAX),
        (Float32 | Complex64, false) => f64::from(f32::from_bits(1)),
        (Float64 | Complex128, true) => f64::MAX,
        (Float64 | Complex128, false) => f64::from_bits(1),
        (d, true) => minifloat::largest(d),
        (d, false) => minifloat::smallest(d),
    }
}

fn parse_f64(t: &str) -> Option<f64> {
    t.parse::<f64>().ok()
}

fn parse_f32(t: &str) -> Option<f32> {
    t.parse::<f32>().ok()
}

impl fmt::Display for Scalar {
    /// The shortest text that [`Scalar::parse`] reads back as this value: integers
    /// and `true` / `false` as they are; floats in the shorter of plain and exponent
    /// notation with the fewest digits that round back (`0.1`, `1e-40`, `65504`,
    /// `-0`, `NaN`, `inf`, `-inf`); complex values as `re,im` (`re` alone when the
    /// imaginary part is +0); strings as their text, unquoted.
    ///
    /// ```
    /// use ndpad::{DType, Scalar};
    /// for (d, text) in [(DType::Float16, "0.1"), (DType::Float32, "1e-40"), (DType::Complex64, "1.5,-2")] {
    ///     let v = Scalar::parse(d, text).unwrap();
    ///     assert_eq!(v.to_string(), text);
    ///     assert_eq!(Scalar::parse(d, &v.to_string()).unwrap(), v);
    /// }
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = match &self.repr {
            Repr::Text(s) => return f.write_str(s),
            Repr::Bits(b) => *b,
        };
        match self.dtype {
            DType::Bool => write!(f, "{}", b != 0),
            DType::Complex64 | DType::Complex128 => {
                let (part, half) = if self.dtype == DType::Complex64 {
                    (DType::Float32, 32)
                } else {
                    (DType::Float64, 64)
                };
                let mask = (1u128 << half) - 1;
                let re = Scalar::from_bits(part, b & mask).map_err(|_| fmt::Error)?;
                let im = b >> half;
                if im == 0 {
                    write!(f, "{re}")
                } else {
                    let im = Scalar::from_bits(part, im).map_err(|_| fmt::Error)?;
                    write!(f, "{re},{im}")
                }
            }
            DType::Uint64 => write!(f, "{b}"),
            DType::Int64 => write!(f, "{}", b as u64 as i64),
            DType::Float32 => f.write_str(&shorter(f32::from_bits(b as u32))),
            DType::Float64 => f.write_str(&shorter(f64::from_bits(b as u64))),
            d if d.is_integer() => write!(f, "{}", self.to_f64().unwrap_or(f64::NAN)),
            _ => f.write_str(&self.shortest_text()),
        }
    }
}

/// The shorter of Rust's plain and exponent forms of a float (both are the shortest
/// digits that round back); `NaN`, `inf`, `-inf` as they are.
fn shorter<T: fmt::Display + fmt::LowerExp + Copy>(v: T) -> String {
    let plain = v.to_string();
    let exp = format!("{v:e}");
    if exp.len() < plain.len() {
        exp
    } else {
        plain
    }
}

impl Scalar {
    /// The shortest decimal text that [`Scalar::parse`] reads back as exactly this
    /// value of a narrow float type (`0.1` for the float16 nearest to 0.1, not its
    /// exact binary value `0.0999755859375`), in plain or exponent notation, whichever
    /// is shorter; `NaN`, `inf`, `-inf` as they are.
    fn shortest_text(&self) -> String {
        let v = self.to_f64().unwrap_or(f64::NAN);
        if !v.is_finite() {
            return v.to_string();
        }
        let mut best: Option<String> = None;
        for digits in 0..17 {
            for text in [format!("{v:.digits$}"), format!("{v:.digits$e}")] {
                let shorter = best.as_ref().is_none_or(|b| text.len() < b.len());
                if shorter && self.reads_back(&text) {
                    best = Some(text);
                }
            }
        }
        best.unwrap_or_else(|| v.to_string())
    }
}

impl Scalar {
    /// Whether [`Scalar::parse`] reads `text` back as this value of a narrow float
    /// type (what `parse` does for them, without building its error messages, which
    /// display values themselves).
    fn reads_back(&self, text: &str) -> bool {
        let Some(v) = parse_f64(text) else {
            return false;
        };
        let narrow = matches!(self.dtype, DType::Float16 | DType::BFloat16);
        // float8e8m0 has no zero: "0" reads back as its smallest value, but a nonzero
        // value is not shown as 0.
        let zero_for_nonzero = v == 0.0 && self.to_f64() != Some(0.0);
        !zero_for_nonzero
            && (narrow || !minifloat::overflows(self.dtype, v))
            && Scalar::from_f64(self.dtype, v).is_ok_and(|back| back == *self)
    }
}

macro_rules! scalar_from {
    ($($t:ty => $d:ident, $conv:expr;)*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                let conv: fn($t) -> u128 = $conv;
                Scalar { dtype: DType::$d, repr: Repr::Bits(conv(v)) }
            }
        }
    )*};
}

scalar_from! {
    bool => Bool, |v| u128::from(v);
    i8 => Int8, |v| v as u8 as u128;
    i16 => Int16, |v| v as u16 as u128;
    i32 => Int32, |v| v as u32 as u128;
    i64 => Int64, |v| v as u64 as u128;
    u8 => Uint8, |v| v as u128;
    u16 => Uint16, |v| v as u128;
    u32 => Uint32, |v| v as u128;
    u64 => Uint64, |v| v as u128;
    f16 => Float16, |v| v.to_bits() as u128;
    bf16 => BFloat16, |v| v.to_bits() as u128;
    f32 => Float32, |v| v.to_bits() as u128;
    f64 => Float64, |v| v.to_bits() as u128;
}

impl From<&str> for Scalar {
    fn from(v: &str) -> Scalar {
        Scalar::string(v)
    }
}

impl From<String> for Scalar {
    fn from(v: String) -> Scalar {
        Scalar::string(v)
    }
}

/// Decoding and rounding for the 8- and 4-bit float formats.
pub(crate) mod minifloat {
    use crate::dtype::DType;

    /// The value of code `c` in format `dtype` (NaN for NaN codes).
    pub fn decode(dtype: DType, c: u8) -> f64 {
        let (exp_bits, man_bits, bias): (u32, u32, i32) = match dtype {
            DType::Float8E4M3FN => (4, 3, 7),
            DType::Float8E4M3FNUZ => (4, 3, 8),
            DType::Float8E5M2 => (5, 2, 15),
            DType::Float8E5M2FNUZ => (5, 2, 16),
            DType::Float4E2M1 => (2, 1, 1),
            DType::Float8E8M0 => {
                return if c == 0xFF {
                    f64::NAN
                } else {
                    2f64.powi(i32::from(c) - 127)
                };
            }
            _ => return f64::NAN,
        };
        let total = 1 + exp_bits + man_bits;
        let sign = (c >> (total - 1)) & 1;
        let e = ((c >> man_bits) as u32) & ((1 << exp_bits) - 1);
        let m = (c as u32) & ((1 << man_bits) - 1);
        match dtype {
            DType::Float8E4M3FN if e == 15 && m == 7 => return f64::NAN,
            DType::Float8E4M3FNUZ | DType::Float8E5M2FNUZ if c == 0x80 => return f64::NAN,
            DType::Float8E5M2 if e == 31 => {
                return if m == 0 {
                    if sign == 1 {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    }
                } else {
                    f64::NAN
                }
            }
            _ => {}
        }
        let frac = f64::from(m) / f64::from(1u32 << man_bits);
        let mag = if e == 0 {
            frac * 2f64.powi(1 - bias)
        } else {
            (1.0 + frac) * 2f64.powi(e as i32 - bias)
        };
        if sign == 1 {
            -mag
        } else {
            mag
        }
    }

    /// The largest finite value of `dtype`.
    pub fn largest(dtype: DType) -> f64 {
        (0..codes(dtype))
            .map(|c| decode(dtype, c as u8))
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max)
    }

    /// The smallest positive value of `dtype`.
    pub fn smallest(dtype: DType) -> f64 {
        (0..codes(dtype))
            .map(|c| decode(dtype, c as u8))
            .filter(|x| x.is_finite() && *x > 0.0)
            .fold(f64::INFINITY, f64::min)
    }

    /// True when the finite `v` lies beyond the largest finite value of `dtype` by
    /// more than rounding to nearest (ties to even) would bring back: it would round to
    /// the next binade, which the format does not have.
    pub fn overflows(dtype: DType, v: f64) -> bool {
        if !v.is_finite() {
            return false;
        }
        let max = largest(dtype);
        let a = v.abs();
        if a <= max {
            return false;
        }
        let code = encode(dtype, max);
        // The step from the largest value to the next one the format would have.
        let step = if dtype == DType::Float8E8M0 {
            max
        } else {
            max - decode(dtype, code - 1)
        };
        let mid = max + step / 2.0;
        // A tie rounds to the even code: to the largest value when its code is even.
        a > mid || (a == mid && code & 1 == 1)
    }

    pub(crate) fn codes(dtype: DType) -> u32 {
        if dtype == DType::Float4E2M1 {
            16
        } else {
            256
        }
    }

    fn nan_code(dtype: DType) -> u8 {
        match dtype {
            DType::Float8E4M3FN => 0x7F,
            DType::Float8E5M2 => 0x7E,
            DType::Float8E8M0 => 0xFF,
            // float4e2m1 has no NaN: ONNX leaves it undefined; ndpad writes +0.
            DType::Float4E2M1 => 0x0,
            _ => 0x80,
        }
    }

    /// Rounds `v` to the nearest code of `dtype` (ties to the even code), saturating
    /// finite values (and infinities of formats without infinity) at the largest
    /// magnitude. An exhaustive search over the 16/256 codes: simple and exact.
    pub fn encode(dtype: DType, v: f64) -> u8 {
        if v.is_nan() {
            return nan_code(dtype);
        }
        if dtype == DType::Float8E5M2 && v.is_infinite() {
            return if v > 0.0 { 0x7C } else { 0xFC };
        }
        let mut best: Option<(u8, f64)> = None;
        for c in 0..codes(dtype) {
            let c = c as u8;
            let x = decode(dtype, c);
            if !x.is_finite() {
                continue;
            }
            // Keep the sign of zero: -0.0 encodes as negative zero where it exists.
            if x == 0.0 && v == 0.0 && x.is_sign_negative() != v.is_sign_negative() {
                continue;
            }
            let dist = (x - v).abs();
            let better = match best {
                None => true,
                Some((bc, bd)) => dist < bd || (dist == bd && c & 1 == 0 && bc & 1 == 1),
            };
            if better {
                best = Some((c, dist));
            }
        }
        best.map(|(c, _)| c).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_the_shortest_text_that_reads_back() {
        let show = |d: DType, v: f64| Scalar::from_f64(d, v).unwrap().to_string();
        assert_eq!(show(DType::Float32, 0.1), "0.1");
        assert_eq!(show(DType::Float16, 0.1), "0.1");
        assert_eq!(show(DType::BFloat16, 2.71), "2.7");
        assert_eq!(show(DType::Float8E4M3FN, 0.1), "0.1");
        assert_eq!(show(DType::Float16, 65504.0), "65504");
        assert_eq!(show(DType::Float16, -0.0), "-0");
        assert_eq!(show(DType::Float16, 1.5e-5), "1.5e-5");
        assert_eq!(show(DType::Float64, 0.1), "0.1");
        assert_eq!(show(DType::Float16, f64::NEG_INFINITY), "-inf");
        assert_eq!(Scalar::zero(DType::Float8E8M0).to_string(), "6e-39");
        for d in [
            DType::Float16,
            DType::BFloat16,
            DType::Float8E5M2,
            DType::Float4E2M1,
        ] {
            for v in [0.0, 0.3, -1.75, 2.5e-3, 7.0, 1234.5] {
                let x = Scalar::from_f64(d, v).unwrap();
                assert_eq!(Scalar::parse(d, &x.to_string()).unwrap(), x, "{d} {v}");
            }
        }
    }

    #[test]
    fn parse_ranges_and_messages() {
        assert_eq!(
            Scalar::parse(DType::Uint8, "255").unwrap().bits(),
            Some(255)
        );
        let e = Scalar::parse(DType::Uint8, "256").unwrap_err().to_string();
        assert!(
            e.contains("256") && e.contains("uint8") && e.contains("0..=255"),
            "{e}"
        );
        assert_eq!(Scalar::parse(DType::Int4, "-8").unwrap().bits(), Some(8));
        assert!(Scalar::parse(DType::Int2, "2").is_err());
        assert_eq!(Scalar::parse(DType::Bool, "TRUE").unwrap().bits(), Some(1));
        assert!(Scalar::parse(DType::Float32, "nan")
            .unwrap()
            .to_f64()
            .unwrap()
            .is_nan());
        assert_eq!(
            Scalar::parse(DType::Float32, "-inf").unwrap().to_f64(),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(
            Scalar::parse(DType::Int64, "-9223372036854775808")
                .unwrap()
                .bits(),
            Some(1u128 << 63)
        );
        let c = Scalar::parse(DType::Complex64, "1.5, -2").unwrap();
        assert_eq!(
            c.to_le_bytes(),
            [1.5f32.to_le_bytes(), (-2f32).to_le_bytes()].concat()
        );
        assert_eq!(
            Scalar::parse(DType::String, " a b ").unwrap().as_str(),
            Some(" a b ")
        );
        assert!(Scalar::parse(DType::Float64, "x1")
            .unwrap_err()
            .to_string()
            .contains("x1"));
    }

    #[test]
    fn minifloat_round_trip_and_rounding() {
        for d in [
            DType::Float8E4M3FN,
            DType::Float8E4M3FNUZ,
            DType::Float8E5M2,
            DType::Float8E5M2FNUZ,
            DType::Float8E8M0,
            DType::Float4E2M1,
        ] {
            for c in 0..minifloat::codes(d) {
                let x = minifloat::decode(d, c as u8);
                if x.is_finite() {
                    assert_eq!(minifloat::decode(d, minifloat::encode(d, x)), x, "{d} {c}");
                }
            }
        }
        assert_eq!(minifloat::encode(DType::Float8E4M3FN, 1000.0), 0x7E); // saturates at 448
        assert_eq!(minifloat::decode(DType::Float8E4M3FN, 0x7E), 448.0);
        assert_eq!(minifloat::decode(DType::Float4E2M1, 0x7), 6.0);
        assert_eq!(minifloat::encode(DType::Float4E2M1, 2.5), 0x4); // tie to even: 2
        assert_eq!(minifloat::encode(DType::Float8E5M2, f64::INFINITY), 0x7C);
        assert_eq!(minifloat::decode(DType::Float8E8M0, 127), 1.0);
        assert_eq!(
            Scalar::from_f64(DType::Float8E4M3FN, -0.0).unwrap().bits(),
            Some(0x80)
        );
    }

    #[test]
    fn casts() {
        assert_eq!(
            Scalar::from_f64(DType::Int8, -1.7).unwrap().bits(),
            Some(0xFF)
        );
        assert_eq!(
            Scalar::from_f64(DType::Uint8, 300.0).unwrap().bits(),
            Some(255)
        );
        assert_eq!(
            Scalar::from_f64(DType::Float64, 0.1f32 as f64)
                .unwrap()
                .to_f64(),
            Some(0.10000000149011612)
        );
        assert!(Scalar::from_f64(DType::String, 1.0).is_err());
        assert!(Scalar::from_bits(DType::Int4, 16).is_err());
        assert!(Scalar::from_bits(DType::Bool, 2).is_err());
        assert_eq!(
            Scalar::from_bits(DType::Int4, 15).unwrap().to_f64(),
            Some(-1.0)
        );
    }
}
