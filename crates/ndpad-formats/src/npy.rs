//! NumPy `.npy` files (format versions 1.0, 2.0 and 3.0).
//!
//! Reading accepts every fixed-width numeric dtype ndpad has (`|b1`, `i1`..`i8`,
//! `u1`..`u8`, `f2`, `f4`, `f8`, `c8`, `c16`), fixed-width byte strings (`S`n) and
//! unicode strings (`U`n) as ndpad `string` tensors, C and Fortran order (Fortran
//! data is transposed to C order) and both byte orders (big-endian data is converted
//! to little-endian). Raw `V1`/`V2` data, which is how numpy stores the `ml_dtypes`
//! types (bfloat16, float8, int4, ...), is read only when the element type is given
//! explicitly ([`read_npy_as`], [`NpyFile::open_as`]).
//!
//! Writing always produces C-order little-endian data in format 1.0 (2.0 when the
//! header does not fit in 65535 bytes). Types numpy has no dtype for are written as
//! `ml_dtypes` writes them: `<V2` for bfloat16, `<V1` for the float8 types, and `<V1`
//! with one element per byte (in the low bits) for the packed 4- and 2-bit types.
//!
//! Nothing is allocated from header numbers before they are checked against the
//! bytes actually present.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use ndpad::{numel, DType, Layout, Tensor, TensorView};

use crate::error::FormatError;

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The longest header accepted, in bytes (numpy itself refuses headers over 10000
/// bytes by default).
pub const MAX_HEADER_LEN: usize = 1 << 16;

/// The most dimensions accepted (numpy's own limit is 64).
pub const MAX_NDIM: usize = 64;

/// Deepest nesting of tuples and lists accepted in a header.
const MAX_NESTING: usize = 8;

/// The parsed header of a `.npy` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    /// Format version (major, minor).
    pub version: (u8, u8),
    /// The numpy dtype string, e.g. `<f4`.
    pub descr: String,
    /// Whether the data is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The shape.
    pub shape: Vec<usize>,
    /// Offset of the first data byte from the start of the file.
    pub data_offset: usize,
}

/// numpy's two kinds of fixed-width strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StringKind {
    /// `S`n (bytes; `a`n is its old name): `n` bytes per element.
    Bytes,
    /// `U`n (unicode): `n` UCS-4 code points per element.
    Unicode,
}

/// How strings are written to a `.npy` file: their kind and the least width (in
/// bytes for `S`, in code points for `U`); a longer string widens the dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NpyStrings {
    /// `S` or `U`.
    pub kind: StringKind,
    /// The least width.
    pub width: usize,
}

impl NpyHeader {
    /// The kind and width of a string dtype (`<U5` is `Unicode` of width 5), `None`
    /// for other dtypes.
    pub fn strings(&self) -> Option<NpyStrings> {
        let d = parse_descr(&self.descr).ok()?;
        let kind = match d.kind {
            'U' => StringKind::Unicode,
            'S' | 'a' => StringKind::Bytes,
            _ => return None,
        };
        Some(NpyStrings {
            kind,
            width: d.size,
        })
    }
}

/// How the elements are stored in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    /// `width` bytes per element; byte-swap each `swap` bytes (0: no swap).
    Fixed { width: usize, swap: usize },
    /// A packed type stored one element per byte (ml_dtypes).
    Unpacked,
    /// `S`n: `width` bytes per element.
    Bytes { width: usize },
    /// `U`n: `chars` UCS-4 code points per element.
    Unicode { chars: usize, big: bool },
}

impl Elem {
    fn item_size(self) -> Option<usize> {
        match self {
            Elem::Fixed { width, .. } | Elem::Bytes { width } => Some(width),
            Elem::Unpacked => Some(1),
            Elem::Unicode { chars, .. } => chars.checked_mul(4),
        }
    }
}

/// A dtype descr split into its parts.
struct Descr {
    big: bool,
    kind: char,
    size: usize,
}

fn header_err(reason: impl Into<String>) -> FormatError {
    FormatError::NpyHeader {
        reason: reason.into(),
    }
}

fn descr_err(descr: &str, reason: impl Into<String>) -> FormatError {
    FormatError::NpyDescr {
        descr: descr.to_string(),
        reason: reason.into(),
    }
}

fn parse_descr(descr: &str) -> Result<Descr, FormatError> {
    let mut chars = descr.chars();
    let big = match chars.next() {
        Some('<') | Some('|') => false,
        Some('>') => true,
        Some('=') => {
            return Err(descr_err(
                descr,
                "byte order '=' (native) does not say how the file was written",
            ))
        }
        _ => {
            return Err(descr_err(
                descr,
                "expected a byte order ('<', '>' or '|') followed by a type code and size \
                 (structured and object dtypes are not supported)",
            ))
        }
    };
    let kind = chars
        .next()
        .ok_or_else(|| descr_err(descr, "missing the type code after the byte order"))?;
    if kind == 'O' {
        return Err(descr_err(
            descr,
            "object (pickled) arrays are not supported",
        ));
    }
    if kind == 'M' || kind == 'm' {
        let name = if kind == 'M' {
            "datetime64"
        } else {
            "timedelta64"
        };
        return Err(descr_err(
            descr,
            format!("{name} arrays are not supported (ndpad pads numbers, bool and strings)"),
        ));
    }
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 12 {
        return Err(descr_err(
            descr,
            format!("the item size {digits:?} is not a number"),
        ));
    }
    let size: usize = digits
        .parse()
        .map_err(|_| descr_err(descr, format!("the item size {digits:?} is not a number")))?;
    Ok(Descr { big, kind, size })
}

/// The ndpad types numpy has a dtype of its own for, with numpy's type code; the item
/// size is the type's width ([`DType::layout`]). Reading ([`natural`]) and writing
/// ([`descr_of`]) both come from this table.
const NATIVE: [(DType, char); 14] = [
    (DType::Bool, 'b'),
    (DType::Int8, 'i'),
    (DType::Int16, 'i'),
    (DType::Int32, 'i'),
    (DType::Int64, 'i'),
    (DType::Uint8, 'u'),
    (DType::Uint16, 'u'),
    (DType::Uint32, 'u'),
    (DType::Uint64, 'u'),
    (DType::Float16, 'f'),
    (DType::Float32, 'f'),
    (DType::Float64, 'f'),
    (DType::Complex64, 'c'),
    (DType::Complex128, 'c'),
];

/// numpy's type code and item size for `t`, if numpy has a dtype of its own for it.
fn native(t: DType) -> Option<(char, usize)> {
    let &(_, kind) = NATIVE.iter().find(|(n, _)| *n == t)?;
    match t.layout() {
        Layout::Bytes(width) => Some((kind, width)),
        Layout::Packed(_) | Layout::Strings => None,
    }
}

/// The ndpad type numpy stores natively as (`kind`, `size`), if any.
fn natural(d: &Descr) -> Option<DType> {
    NATIVE
        .iter()
        .map(|&(t, _)| t)
        .find(|&t| native(t) == Some((d.kind, d.size)))
}

/// The types a raw `V`n dtype may hold, the likeliest first.
fn raw_candidates(size: usize) -> Vec<DType> {
    use DType::*;
    match size {
        1 => vec![
            Float8E4M3FN,
            Float8E4M3FNUZ,
            Float8E5M2,
            Float8E5M2FNUZ,
            Float8E8M0,
            Int4,
            Uint4,
            Float4E2M1,
            Int2,
            Uint2,
            Int8,
            Uint8,
        ],
        2 => vec![BFloat16, Float16, Int16, Uint16],
        _ => Vec::new(),
    }
}

fn join(types: &[DType]) -> String {
    types
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Decides how to read `descr`, with an optional explicit element type.
fn resolve(descr: &str, dtype: Option<DType>) -> Result<(DType, Elem), FormatError> {
    let d = parse_descr(descr)?;
    match d.kind {
        'S' | 'a' | 'U' => {
            if d.size == 0 {
                return Err(descr_err(descr, "strings of width 0 hold nothing"));
            }
            if let Some(t) = dtype.filter(|t| *t != DType::String) {
                return Err(FormatError::DTypeOverride {
                    dtype: t,
                    descr: descr.into(),
                    reason: "the file holds strings".into(),
                });
            }
            let elem = if d.kind == 'U' {
                Elem::Unicode {
                    chars: d.size,
                    big: d.big,
                }
            } else {
                Elem::Bytes { width: d.size }
            };
            Ok((DType::String, elem))
        }
        'V' => {
            let candidates = raw_candidates(d.size);
            if candidates.is_empty() {
                return Err(descr_err(
                    descr,
                    format!(
                        "raw data of {} bytes per element matches no ndpad type (only V1 and V2 are read)",
                        d.size
                    ),
                ));
            }
            let Some(t) = dtype else {
                return Err(FormatError::NpyRawDType {
                    descr: descr.into(),
                    candidates: join(&candidates),
                });
            };
            if !candidates.contains(&t) {
                return Err(FormatError::DTypeOverride {
                    dtype: t,
                    descr: descr.into(),
                    reason: format!(
                        "{} bytes per element can hold {}",
                        d.size,
                        join(&candidates)
                    ),
                });
            }
            let elem = match t.layout() {
                Layout::Packed(_) => Elem::Unpacked,
                _ => Elem::Fixed {
                    width: d.size,
                    // A byte order only matters for elements of more than one byte.
                    swap: if d.big && d.size > 1 { d.size } else { 0 },
                },
            };
            Ok((t, elem))
        }
        _ => {
            let Some(nat) = natural(&d) else {
                return Err(descr_err(
                    descr,
                    "ndpad reads bool, integers, float16/32/64, complex64/128, S and U strings \
                     and raw V1/V2 data",
                ));
            };
            if let Some(t) = dtype.filter(|t| *t != nat) {
                return Err(FormatError::DTypeOverride {
                    dtype: t,
                    descr: descr.into(),
                    reason: format!(
                        "the file holds {nat} values; an explicit type is only used for raw V1/V2 data"
                    ),
                });
            }
            let swap = match (d.big, d.kind) {
                (false, _) | (_, 'b') => 0,
                (true, 'c') => d.size / 2,
                (true, _) => d.size,
            };
            Ok((
                nat,
                Elem::Fixed {
                    width: d.size,
                    swap: if swap > 1 { swap } else { 0 },
                },
            ))
        }
    }
}

// ---------------------------------------------------------------------------------
// Header parsing: a tiny reader for the Python literal numpy writes.

#[derive(Debug)]
enum PyVal {
    Str(String),
    Bool(bool),
    Int(i128),
    Tuple(Vec<PyVal>),
    List,
    None,
}

struct Lexer<'a> {
    s: &'a [char],
    pos: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: char) -> Result<(), FormatError> {
        self.skip_ws();
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(x) => Err(header_err(format!(
                "expected {c:?} at character {} but found {x:?}",
                self.pos
            ))),
            None => Err(header_err(format!(
                "expected {c:?} at character {} but the header ended",
                self.pos
            ))),
        }
    }

    fn string(&mut self, quote: char) -> Result<String, FormatError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(header_err(format!(
                        "the string starting at character {start} is not closed"
                    )))
                }
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c) => out.push(c),
                        None => {
                            return Err(header_err(format!(
                                "the string starting at character {start} is not closed"
                            )))
                        }
                    }
                    self.pos += 1;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<PyVal, FormatError> {
        if depth > MAX_NESTING {
            return Err(header_err(format!(
                "values nest deeper than {MAX_NESTING} levels"
            )));
        }
        self.skip_ws();
        match self.peek() {
            Some(q @ ('\'' | '"')) => self.string(q).map(PyVal::Str),
            Some(open @ ('(' | '[')) => {
                let close = if open == '(' { ')' } else { ']' };
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    match self.peek() {
                        Some(',') => self.pos += 1,
                        Some(c) if c == close => {}
                        Some(c) => {
                            return Err(header_err(format!(
                                "expected ',' or {close:?} at character {} but found {c:?}",
                                self.pos
                            )))
                        }
                        None => return Err(header_err(format!("{open:?} is not closed"))),
                    }
                }
                Ok(if open == '(' {
                    PyVal::Tuple(items)
                } else {
                    PyVal::List
                })
            }
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let start = self.pos;
                let neg = c == '-';
                if neg {
                    self.pos += 1;
                }
                let mut v: i128 = 0;
                let mut any = false;
                while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
                    any = true;
                    v = v
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(i128::from(d)))
                        .filter(|v| *v <= i128::from(u64::MAX))
                        .ok_or_else(|| {
                            header_err(format!(
                                "the integer at character {start} does not fit in 64 bits"
                            ))
                        })?;
                    self.pos += 1;
                }
                if !any {
                    return Err(header_err(format!(
                        "expected digits after '-' at character {start}"
                    )));
                }
                if matches!(self.peek(), Some('L' | 'l')) {
                    self.pos += 1;
                }
                Ok(PyVal::Int(if neg { -v } else { v }))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                    self.pos += 1;
                }
                let word: String = self.s.get(start..self.pos).unwrap_or(&[]).iter().collect();
                match word.as_str() {
                    "True" => Ok(PyVal::Bool(true)),
                    "False" => Ok(PyVal::Bool(false)),
                    "None" => Ok(PyVal::None),
                    _ => Err(header_err(format!(
                        "unexpected word {word:?} at character {start}"
                    ))),
                }
            }
            Some(c) => Err(header_err(format!(
                "unexpected {c:?} at character {}",
                self.pos
            ))),
            None => Err(header_err("the header ended where a value was expected")),
        }
    }
}

/// Stores the value of dictionary key `key` in `slot`, refusing a key given twice.
fn set_once<T>(slot: &mut Option<T>, key: &str, value: T) -> Result<(), FormatError> {
    if slot.replace(value).is_some() {
        return Err(header_err(format!("key {key:?} appears twice")));
    }
    Ok(())
}

fn parse_dict(text: &str) -> Result<(String, bool, Vec<u64>), FormatError> {
    let chars: Vec<char> = text.chars().collect();
    let mut lx = Lexer { s: &chars, pos: 0 };
    lx.expect('{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        lx.skip_ws();
        if lx.peek() == Some('}') {
            lx.pos += 1;
            break;
        }
        let key = match lx.value(0)? {
            PyVal::Str(k) => k,
            other => {
                return Err(header_err(format!(
                    "dictionary keys must be strings, found {other:?}"
                )))
            }
        };
        lx.expect(':')?;
        let value = lx.value(0)?;
        match key.as_str() {
            "descr" => {
                let v = match value {
                    PyVal::Str(s) => s,
                    PyVal::List => {
                        return Err(descr_err(
                            "[...]",
                            "structured (record) dtypes are not supported",
                        ))
                    }
                    other => {
                        return Err(header_err(format!(
                            "'descr' must be a string, found {other:?}"
                        )))
                    }
                };
                set_once(&mut descr, &key, v)?;
            }
            "fortran_order" => {
                let PyVal::Bool(b) = value else {
                    return Err(header_err(format!(
                        "'fortran_order' must be True or False, found {value:?}"
                    )));
                };
                set_once(&mut fortran, &key, b)?;
            }
            "shape" => {
                let PyVal::Tuple(items) = value else {
                    return Err(header_err(format!(
                        "'shape' must be a tuple of integers, found {value:?}"
                    )));
                };
                if items.len() > MAX_NDIM {
                    return Err(header_err(format!(
                        "'shape' has {} dimensions, more than the limit of {MAX_NDIM}",
                        items.len()
                    )));
                }
                let mut dims = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let d = match item {
                        PyVal::Int(v) => u64::try_from(*v).map_err(|_| {
                            header_err(format!("'shape' entry {i} is negative ({v})"))
                        })?,
                        other => {
                            return Err(header_err(format!(
                                "'shape' entry {i} is not an integer: {other:?}"
                            )))
                        }
                    };
                    dims.push(d);
                }
                set_once(&mut shape, &key, dims)?;
            }
            _ => {
                return Err(header_err(format!(
                    "unexpected key {key:?} (expected 'descr', 'fortran_order' and 'shape')"
                )))
            }
        }
        lx.skip_ws();
        match lx.peek() {
            Some(',') => lx.pos += 1,
            Some('}') => {}
            Some(c) => {
                return Err(header_err(format!(
                    "expected ',' or '}}' at character {} but found {c:?}",
                    lx.pos
                )))
            }
            None => return Err(header_err("the dictionary is not closed")),
        }
    }
    lx.skip_ws();
    if lx.pos != chars.len() {
        return Err(header_err(format!(
            "unexpected text after the dictionary at character {}",
            lx.pos
        )));
    }
    let descr = descr.ok_or_else(|| header_err("the key 'descr' is missing"))?;
    let fortran = fortran.ok_or_else(|| header_err("the key 'fortran_order' is missing"))?;
    let shape = shape.ok_or_else(|| header_err("the key 'shape' is missing"))?;
    Ok((descr, fortran, shape))
}

/// Parses the header at the start of a `.npy` file (the data need not follow).
///
/// # Errors
/// [`FormatError::NpyMagic`], [`FormatError::NpyVersion`],
/// [`FormatError::NpyHeaderTooLong`], [`FormatError::Truncated`] or
/// [`FormatError::NpyHeader`] naming the field at fault.
///
/// ```
/// use ndpad::{DType, Tensor};
/// use ndpad_formats::npy::{parse_npy_header, write_npy};
/// let t = Tensor::from_slice(&[2, 3], &[0f32; 6]).unwrap();
/// let h = parse_npy_header(&write_npy(&t.view()).unwrap()).unwrap();
/// assert_eq!((h.descr.as_str(), h.shape.as_slice(), h.data_offset), ("<f4", &[2, 3][..], 128));
/// ```
pub fn parse_npy_header(bytes: &[u8]) -> Result<NpyHeader, FormatError> {
    let got = bytes.len() as u64;
    let prefix = bytes.get(..MAGIC.len().min(bytes.len())).unwrap_or(&[]);
    if !MAGIC.starts_with(prefix) || prefix.is_empty() {
        return Err(FormatError::NpyMagic {
            found: prefix.to_vec(),
        });
    }
    let (Some(&major), Some(&minor)) = (bytes.get(6), bytes.get(7)) else {
        return Err(FormatError::Truncated {
            what: "magic string and version",
            needed: 8,
            got,
        });
    };
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(FormatError::NpyVersion { major, minor }),
    };
    let start = 8 + len_bytes;
    let Some(len_field) = bytes.get(8..start) else {
        return Err(FormatError::Truncated {
            what: "header length field",
            needed: start as u64,
            got,
        });
    };
    let hlen = len_field
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    if hlen > MAX_HEADER_LEN as u64 {
        return Err(FormatError::NpyHeaderTooLong {
            len: hlen,
            limit: MAX_HEADER_LEN as u64,
        });
    }
    // hlen <= MAX_HEADER_LEN, so this neither overflows nor truncates.
    let end = start + hlen as usize;
    let Some(raw) = bytes.get(start..end) else {
        return Err(FormatError::Truncated {
            what: "header",
            needed: end as u64,
            got,
        });
    };
    let text: String = if major == 3 {
        std::str::from_utf8(raw)
            .map_err(|e| header_err(format!("a version 3.0 header must be UTF-8: {e}")))?
            .to_string()
    } else {
        raw.iter().map(|&b| char::from(b)).collect()
    };
    if !text.ends_with('\n') {
        return Err(header_err("the header does not end with a newline"));
    }
    let (descr, fortran_order, dims) = parse_dict(&text)?;
    let shape = dims
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| header_err(format!("'shape' {dims:?} does not fit in memory")))?;
    Ok(NpyHeader {
        version: (major, minor),
        descr,
        fortran_order,
        shape,
        data_offset: end,
    })
}

/// A parsed header whose element type is resolved and whose data length is checked.
struct Checked {
    header: NpyHeader,
    dtype: DType,
    elem: Elem,
    numel: usize,
}

fn check(bytes: &[u8], dtype: Option<DType>) -> Result<Checked, FormatError> {
    check_header(parse_npy_header(bytes)?, dtype, bytes.len() as u64)
}

/// Checks a parsed header against the element type asked for and the size of the
/// whole input (`file_size` bytes, header included).
fn check_header(
    header: NpyHeader,
    dtype: Option<DType>,
    file_size: u64,
) -> Result<Checked, FormatError> {
    let (dt, elem) = resolve(&header.descr, dtype)?;
    let item = elem
        .item_size()
        .ok_or_else(|| descr_err(&header.descr, "the item size overflows"))?;
    let needed = std::iter::once(item)
        .chain(header.shape.iter().copied())
        .try_fold(1u128, |acc, d| acc.checked_mul(u128::try_from(d).ok()?))
        .unwrap_or(u128::MAX);
    let got = file_size.saturating_sub(header.data_offset as u64);
    if needed != u128::from(got) {
        return Err(FormatError::NpyDataLength {
            // The dims were read as u64, so they convert back.
            shape: header
                .shape
                .iter()
                .map(|&d| u64::try_from(d).unwrap_or(u64::MAX))
                .collect(),
            descr: header.descr,
            needed,
            got,
            header_len: header.data_offset as u64,
            file_size,
        });
    }
    // The data is present, so the element count fits.
    let n = numel(&header.shape)?;
    Ok(Checked {
        header,
        dtype: dt,
        elem,
        numel: n,
    })
}

/// Whether Fortran-ordered data of `shape` is laid out as C-ordered data is.
fn same_as_c(shape: &[usize], fortran: bool) -> bool {
    !fortran || shape.iter().filter(|&&d| d != 1).count() <= 1
}

/// Calls `f` with the position in Fortran order of each element of an array of
/// `shape`, the elements taken in C order.
fn for_each_fortran_position(shape: &[usize], mut f: impl FnMut(usize)) {
    // Fortran strides: the first axis fastest.
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    let mut strides = ndpad::index::c_strides(&reversed, 1).unwrap_or_default();
    strides.reverse();
    ndpad::index::for_each_index(shape, |index| {
        f(index.iter().zip(&strides).map(|(i, s)| i * s).sum());
    });
}

/// A Fortran-ordered array's bytes (`width` to an element) in C order.
fn transpose_bytes(shape: &[usize], width: usize, src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len());
    for_each_fortran_position(shape, |p| {
        let start = p * width;
        out.extend_from_slice(src.get(start..start + width).unwrap_or(&[]));
    });
    out
}

fn check_bools(bytes: &[u8]) -> Result<(), FormatError> {
    match bytes.iter().position(|&b| b > 1) {
        Some(index) => Err(FormatError::Element {
            index,
            reason: format!("bool byte {} is neither 0 nor 1", bytes[index]),
        }),
        None => Ok(()),
    }
}

/// The tensor of a checked file's `data`. Owned data of a fixed-width type in C order
/// becomes the tensor's buffer, byte-swapped where it lies (a big-endian file read
/// whole is not held twice); borrowed data is copied.
fn decode(c: &Checked, data: Cow<'_, [u8]>) -> Result<Tensor, FormatError> {
    let shape = &c.header.shape;
    let c_order = same_as_c(shape, c.header.fortran_order);
    match c.elem {
        Elem::Fixed { width, swap } => {
            if c.dtype == DType::Bool {
                check_bools(&data)?;
            }
            let mut out = if c_order {
                data.into_owned()
            } else {
                transpose_bytes(shape, width, &data)
            };
            if swap > 1 {
                out.chunks_exact_mut(swap).for_each(<[u8]>::reverse);
            }
            Ok(Tensor::from_bytes(c.dtype, shape, out)?)
        }
        Elem::Unpacked => {
            let bits = c.dtype.bits();
            let mask = (1u8 << bits) - 1;
            let signed = c.dtype.is_signed_integer();
            let ones = 0xFFu8 >> bits;
            let data = if c_order {
                data
            } else {
                Cow::Owned(transpose_bytes(shape, 1, &data))
            };
            let len = c
                .dtype
                .byte_len(c.numel)
                .ok_or_else(|| ndpad::PadError::ShapeOverflow {
                    shape: shape.clone(),
                })?;
            let mut out = vec![0u8; len];
            for (i, &b) in data.iter().enumerate() {
                let v = b & mask;
                let high = b >> bits;
                let sign = v >> (bits - 1) == 1;
                if high != 0 && !(signed && sign && high == ones) {
                    return Err(FormatError::Element {
                        index: i,
                        reason: format!(
                            "byte {b:#04x} is not a {} value ({bits} bits in the low bits of each byte)",
                            c.dtype
                        ),
                    });
                }
                ndpad::packed::set(&mut out, bits, i, v);
            }
            Ok(Tensor::from_bytes(c.dtype, shape, out)?)
        }
        // Decoded into one shared text and a span an element (a `String` each took
        // some 70 bytes an element of `|S1`).
        Elem::Bytes { width } => {
            let mut strings = ndpad::Strings::new();
            for (index, chunk) in data.chunks_exact(width).enumerate() {
                let end = chunk.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                let s = std::str::from_utf8(chunk.get(..end).unwrap_or(&[])).map_err(|e| {
                    FormatError::Element {
                        index,
                        reason: format!("the byte string is not valid UTF-8: {e}"),
                    }
                })?;
                strings.push(s);
            }
            finish_strings(shape, c_order, strings)
        }
        Elem::Unicode { chars, big } => {
            let mut strings = ndpad::Strings::new();
            let mut s = String::new();
            for (index, chunk) in data.chunks_exact(chars * 4).enumerate() {
                s.clear();
                let mut codes: Vec<u32> = chunk
                    .chunks_exact(4)
                    .map(|b| {
                        let a = [b[0], b[1], b[2], b[3]];
                        if big {
                            u32::from_be_bytes(a)
                        } else {
                            u32::from_le_bytes(a)
                        }
                    })
                    .collect();
                while codes.last() == Some(&0) {
                    codes.pop();
                }
                for cp in codes {
                    s.push(char::from_u32(cp).ok_or_else(|| FormatError::Element {
                        index,
                        reason: format!("{cp:#x} is not a unicode code point"),
                    })?);
                }
                strings.push(&s);
            }
            finish_strings(shape, c_order, strings)
        }
    }
}

fn finish_strings(
    shape: &[usize],
    c_order: bool,
    mut strings: ndpad::Strings,
) -> Result<Tensor, FormatError> {
    if !c_order {
        let mut c = ndpad::Strings::new();
        for_each_fortran_position(shape, |p| c.push(strings.get(p).unwrap_or_default()));
        strings = c;
    }
    Ok(Tensor::from_strings(shape, strings)?)
}

/// Reads a `.npy` file held in memory.
///
/// # Errors
/// Every error of [`parse_npy_header`]; [`FormatError::NpyDescr`] for a dtype ndpad
/// cannot represent; [`FormatError::NpyRawDType`] for raw `V1`/`V2` data (use
/// [`read_npy_as`]); [`FormatError::NpyDataLength`] when the shape does not match
/// the bytes present; [`FormatError::Element`] for a bool byte other than 0 or 1 or
/// a string that is not valid text.
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::npy::{read_npy, write_npy};
/// let t = Tensor::from_slice(&[3], &[1i16, -2, 3]).unwrap();
/// assert_eq!(read_npy(&write_npy(&t.view()).unwrap()).unwrap(), t);
/// assert!(read_npy(b"\x93NUMPY\x01\x00").unwrap_err().to_string().contains("header length"));
/// ```
pub fn read_npy(bytes: &[u8]) -> Result<Tensor, FormatError> {
    read_npy_as(bytes, None)
}

/// Reads a `.npy` file held in memory, with an explicit element type for raw `V1`/`V2`
/// data (bfloat16, float8 and the packed types as `ml_dtypes` stores them). For other
/// dtypes, `dtype` must be `None` or the file's own type.
///
/// # Errors
/// As [`read_npy`]; [`FormatError::DTypeOverride`] when `dtype` does not fit the file's
/// dtype, [`FormatError::Element`] when a raw byte is not a value of a packed type.
///
/// ```
/// use ndpad::DType;
/// use ndpad_formats::npy::read_npy_as;
/// let mut file = b"\x93NUMPY\x01\x00\x76\x00{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }".to_vec();
/// file.resize(127, b' ');
/// file.push(b'\n');
/// file.extend([0x80, 0x3f, 0x00, 0xc0]); // bfloat16 1.0, -2.0
/// let err = read_npy_as(&file, None).unwrap_err().to_string();
/// assert!(err.contains("raw dtype <V2, which does not name its element type: the caller must give one of bfloat16, float16"), "{err}");
/// let t = read_npy_as(&file, Some(DType::BFloat16)).unwrap();
/// assert_eq!(t.bytes().unwrap(), &[0x80, 0x3f, 0x00, 0xc0]);
/// ```
pub fn read_npy_as(bytes: &[u8], dtype: Option<DType>) -> Result<Tensor, FormatError> {
    let c = check(bytes, dtype)?;
    decode(
        &c,
        Cow::Borrowed(bytes.get(c.header.data_offset..).unwrap_or(&[])),
    )
}

// ---------------------------------------------------------------------------------
// Writing.

fn descr_of(
    view: &TensorView<'_>,
    style: Option<NpyStrings>,
) -> Result<(String, Elem), FormatError> {
    use DType::*;
    let fixed = |s: &str, w: usize| Ok((s.to_string(), Elem::Fixed { width: w, swap: 0 }));
    match view.dtype() {
        BFloat16 => fixed("<V2", 2),
        Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0 => fixed("<V1", 1),
        Int4 | Uint4 | Float4E2M1 | Int2 | Uint2 => Ok(("<V1".to_string(), Elem::Unpacked)),
        String => {
            let ndpad::Data::Strings(strings) = view.data() else {
                return Err(FormatError::Unwritable {
                    dtype: String,
                    reason: "the tensor holds no strings".into(),
                });
            };
            for (index, s) in strings.iter().enumerate() {
                if s.ends_with('\0') {
                    return Err(FormatError::Element {
                        index,
                        reason: "the string ends with NUL, which numpy's fixed-width strings \
                                 cannot keep"
                            .into(),
                    });
                }
            }
            let kind = match style {
                Some(st) => st.kind,
                None if strings.distinct().all(|s| s.is_ascii()) => StringKind::Bytes,
                None => StringKind::Unicode,
            };
            let least = style.map_or(1, |st| st.width).max(1);
            if kind == StringKind::Bytes {
                let width = strings
                    .distinct()
                    .map(|s| s.len())
                    .max()
                    .unwrap_or(0)
                    .max(least);
                Ok((format!("|S{width}"), Elem::Bytes { width }))
            } else {
                let chars = strings
                    .distinct()
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(least);
                Ok((format!("<U{chars}"), Elem::Unicode { chars, big: false }))
            }
        }
        t => {
            let (kind, width) = native(t).ok_or_else(|| FormatError::Unwritable {
                dtype: t,
                reason: "numpy has no dtype for it".into(),
            })?;
            // One-byte types have no byte order.
            let order = if width == 1 { '|' } else { '<' };
            fixed(&format!("{order}{kind}{width}"), width)
        }
    }
}

fn header_for(descr: &str, shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // Format 1.0: with at most MAX_NDIM dimensions the header is far below its
    // 64 KiB limit.
    let prefix = 10;
    let unpadded = prefix + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let hlen = u16::try_from(total - prefix).unwrap_or(u16::MAX);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend([1, 0]);
    out.extend(hlen.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

fn io_err(path: &str) -> impl FnOnce(std::io::Error) -> FormatError + '_ {
    move |source| FormatError::Io {
        path: path.to_string(),
        source,
    }
}

/// The bytes [`write_npy_strings_to`] writes for `view` and `strings`: the header and
/// the elements at their width in the file (a string tensor's elements all take the
/// longest one's width, however little text they share in memory).
///
/// # Errors
/// As [`write_npy_strings_to`], for what it would refuse before writing.
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::npy::npy_len;
/// let t = Tensor::from_strings(&[3], vec!["a", "bcd", ""]).unwrap();
/// assert_eq!(npy_len(&t.view(), None).unwrap(), 128 + 3 * 3);
/// ```
pub fn npy_len(view: &TensorView<'_>, strings: Option<NpyStrings>) -> Result<u128, FormatError> {
    let (descr, elem) = descr_of(view, strings)?;
    check_ndim(view)?;
    let item = elem.item_size().unwrap_or(usize::MAX) as u128;
    let n = numel(view.shape())? as u128;
    Ok(header_for(&descr, view.shape()).len() as u128 + n * item)
}

/// Refuses more dimensions than the reader takes.
fn check_ndim(view: &TensorView<'_>) -> Result<(), FormatError> {
    if view.shape().len() > MAX_NDIM {
        return Err(FormatError::Unwritable {
            dtype: view.dtype(),
            reason: format!(
                "{} dimensions, more than the limit of {MAX_NDIM}",
                view.shape().len()
            ),
        });
    }
    Ok(())
}

/// Writes `view` as a `.npy` file to `w` (C order, little-endian, format 1.0).
/// Strings are written as `S` when they are all ASCII, else as `U`
/// ([`write_npy_strings_to`] chooses).
///
/// # Errors
/// [`FormatError::Io`] when writing fails; [`FormatError::Element`] for a string
/// ending in NUL (numpy's fixed-width strings drop trailing NULs).
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::npy::write_npy_to;
/// let t = Tensor::from_strings(&[2], vec!["a", "bcd"]).unwrap();
/// let mut out = Vec::new();
/// write_npy_to(&mut out, &t.view()).unwrap();
/// assert!(out.windows(4).any(|w| w == b"|S3\'"));
/// ```
pub fn write_npy_to<W: Write>(w: &mut W, view: &TensorView<'_>) -> Result<(), FormatError> {
    write_npy_strings_to(w, view, None)
}

/// [`write_npy_to`] with the strings' kind and least width given (a string tensor
/// read from a `U` file goes back as `U`, whatever its text): `None` chooses as
/// [`write_npy_to`] does; other types ignore it.
///
/// # Errors
/// As [`write_npy_to`].
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::npy::{write_npy_strings_to, NpyStrings, StringKind};
/// let t = Tensor::from_strings(&[2], vec!["a", "bcd"]).unwrap();
/// let mut out = Vec::new();
/// let style = NpyStrings { kind: StringKind::Unicode, width: 5 };
/// write_npy_strings_to(&mut out, &t.view(), Some(style)).unwrap();
/// assert!(out.windows(4).any(|w| w == b"<U5\'"));
/// ```
pub fn write_npy_strings_to<W: Write>(
    w: &mut W,
    view: &TensorView<'_>,
    strings: Option<NpyStrings>,
) -> Result<(), FormatError> {
    let (descr, elem) = descr_of(view, strings)?;
    check_ndim(view)?;
    let ctx = "npy output";
    w.write_all(&header_for(&descr, view.shape()))
        .map_err(io_err(ctx))?;
    match (view.data(), elem) {
        (ndpad::Data::Bytes(b), Elem::Fixed { .. }) => w.write_all(b).map_err(io_err(ctx)),
        (ndpad::Data::Bytes(b), Elem::Unpacked) => {
            let n = numel(view.shape())?;
            let out = ndpad::packed::unpack(b, view.dtype().bits(), n).ok_or_else(|| {
                FormatError::Unwritable {
                    dtype: view.dtype(),
                    reason: format!("cannot allocate {n} bytes to widen the elements"),
                }
            })?;
            w.write_all(&out).map_err(io_err(ctx))
        }
        (ndpad::Data::Strings(s), Elem::Bytes { width }) => {
            let mut out = Vec::with_capacity(s.len().saturating_mul(width));
            for x in s {
                out.extend_from_slice(x.as_bytes());
                out.resize(out.len() + width - x.len(), 0);
            }
            w.write_all(&out).map_err(io_err(ctx))
        }
        (ndpad::Data::Strings(s), Elem::Unicode { chars, .. }) => {
            let mut out = Vec::with_capacity(s.len().saturating_mul(chars * 4));
            for x in s {
                let mut k = 0;
                for c in x.chars() {
                    out.extend((c as u32).to_le_bytes());
                    k += 1;
                }
                out.resize(out.len() + (chars - k) * 4, 0);
            }
            w.write_all(&out).map_err(io_err(ctx))
        }
        _ => Err(FormatError::Unwritable {
            dtype: view.dtype(),
            reason: "its storage does not match its type".into(),
        }),
    }
}

/// The header of a `.npy` file of a `dtype` tensor of `shape` in C order, to be
/// followed by its data as ndpad holds it (little-endian): for writing a file piece
/// by piece. Fixed-width types only (strings and packed types are stored otherwise).
///
/// # Errors
/// [`FormatError::Unwritable`] for strings, packed types, types numpy has no dtype
/// for, and more than [`MAX_NDIM`] dimensions.
///
/// ```
/// use ndpad::DType;
/// use ndpad_formats::npy::{npy_header, parse_npy_header};
/// let h = parse_npy_header(&npy_header(DType::Float32, &[2, 3]).unwrap()).unwrap();
/// assert_eq!((h.descr.as_str(), h.shape.as_slice()), ("<f4", &[2, 3][..]));
/// ```
pub fn npy_header(dtype: DType, shape: &[usize]) -> Result<Vec<u8>, FormatError> {
    let unwritable = |reason: String| FormatError::Unwritable { dtype, reason };
    if !matches!(dtype.layout(), Layout::Bytes(_)) {
        return Err(unwritable(
            "only fixed-width types are written piece by piece".into(),
        ));
    }
    if shape.len() > MAX_NDIM {
        return Err(unwritable(format!(
            "{} dimensions, more than the limit of {MAX_NDIM}",
            shape.len()
        )));
    }
    let empty = TensorView::from_bytes(dtype, &[0], &[])?;
    let (descr, _) = descr_of(&empty, None)?;
    Ok(header_for(&descr, shape))
}

/// A `.npy` file of a fixed-width type, little-endian, in C order, read box by box
/// (positioned reads: the file is neither mapped nor read whole), for files larger
/// than memory.
///
/// The file must not be modified while it is open.
#[derive(Debug)]
pub struct NpyBoxes {
    file: File,
    name: String,
    /// The file's size when opened.
    size: u64,
    header: NpyHeader,
    dtype: DType,
    width: usize,
}

impl NpyBoxes {
    /// Opens `path` to read boxes of it; `dtype` as [`read_npy_as`] takes it.
    /// `Ok(None)` when its data cannot be read in place (strings, packed types,
    /// big-endian or Fortran-order data): read it whole ([`NpyFile`]) instead.
    ///
    /// # Errors
    /// [`FormatError::Io`] when the file cannot be read; the header errors of
    /// [`read_npy`]; [`FormatError::NpyDataLength`] when the file's length does not
    /// match its header.
    pub fn open_as(
        path: impl AsRef<Path>,
        dtype: Option<DType>,
    ) -> Result<Option<NpyBoxes>, FormatError> {
        use std::io::Read;
        let path = path.as_ref();
        let name = path.display().to_string();
        let (file, file_size) = crate::file::open_regular(path)?;
        let mut head = Vec::new();
        (&file)
            .take(MAX_HEADER_LEN as u64 + 16)
            .read_to_end(&mut head)
            .map_err(io_err(&name))?;
        let header = parse_npy_header(&head)?;
        let (dtype, elem) = resolve(&header.descr, dtype)?;
        let Elem::Fixed { width, swap: 0 } = elem else {
            return Ok(None);
        };
        if !same_as_c(&header.shape, header.fortran_order) {
            return Ok(None);
        }
        let needed = std::iter::once(width)
            .chain(header.shape.iter().copied())
            .try_fold(1u128, |acc, d| acc.checked_mul(d as u128))
            .unwrap_or(u128::MAX);
        let got = file_size.saturating_sub(header.data_offset as u64);
        if needed != u128::from(got) {
            return Err(FormatError::NpyDataLength {
                shape: header.shape.iter().map(|&d| d as u64).collect(),
                descr: header.descr,
                needed,
                got,
                header_len: header.data_offset as u64,
                file_size,
            });
        }
        Ok(Some(NpyBoxes {
            file,
            name,
            size: file_size,
            header,
            dtype,
            width,
        }))
    }

    /// The file's header.
    pub fn header(&self) -> &NpyHeader {
        &self.header
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The box `region` (a range of coordinates per axis, inside the shape) as C-order
    /// bytes, read with one positioned read per contiguous run of the file.
    ///
    /// # Errors
    /// [`FormatError::Io`] when reading fails or the box cannot be allocated;
    /// [`FormatError::Element`] for a bool byte other than 0 or 1; a header error for
    /// a region outside the shape.
    pub fn read_box(&self, region: &[std::ops::Range<usize>]) -> Result<Vec<u8>, FormatError> {
        use std::os::unix::fs::FileExt;
        let shape = &self.header.shape;
        if region.len() != shape.len()
            || region
                .iter()
                .zip(shape)
                .any(|(r, &d)| r.start > r.end || r.end > d)
        {
            return Err(header_err(format!(
                "the box {region:?} is not inside the shape {shape:?}"
            )));
        }
        let dims: Vec<usize> = region.iter().map(|r| r.len()).collect();
        let total = numel(&dims)?
            .checked_mul(self.width)
            .ok_or_else(|| header_err("the box's size overflows"))?;
        let mut out = crate::file::alloc(&self.name, total as u64)?;
        if total == 0 {
            return Ok(out);
        }
        ndpad::index::try_for_each_run(shape, region, self.width, |k, offset, run| {
            self.file
                .read_exact_at(
                    &mut out[k * run..(k + 1) * run],
                    (self.header.data_offset + offset) as u64,
                )
                .map_err(|source| match source.kind() {
                    // The file was shorter than its header says when opened.
                    std::io::ErrorKind::UnexpectedEof => FormatError::Changed {
                        path: self.name.clone(),
                        at: self.file.metadata().map_or(0, |m| m.len()),
                        size: self.size,
                    },
                    _ => FormatError::Io {
                        path: self.name.clone(),
                        source,
                    },
                })
        })?;
        if self.dtype == DType::Bool {
            check_bools(&out)?;
        }
        Ok(out)
    }
}

/// Encodes `view` as a `.npy` file in memory.
///
/// # Errors
/// As [`write_npy_to`].
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::npy::{read_npy, write_npy};
/// let t = Tensor::from_slice(&[2, 2], &[1.5f64, 2.0, -0.0, f64::NAN]).unwrap();
/// let bytes = write_npy(&t.view()).unwrap();
/// assert_eq!(bytes.len(), 128 + 32);
/// assert_eq!(read_npy(&bytes).unwrap(), t);
/// ```
pub fn write_npy(view: &TensorView<'_>) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::new();
    write_npy_to(&mut out, view)?;
    Ok(out)
}

// ---------------------------------------------------------------------------------
// Files.

/// A `.npy` file read into memory. When the data is C-order and of a fixed-width type
/// (the common case), its bytes are read straight into the tensor's buffer (and
/// byte-swapped there if big-endian); otherwise (Fortran order, strings, packed types)
/// they are converted. The file is read, not memory-mapped: a file truncated by another
/// process while it is read is an error ([`FormatError::Changed`]), where a mapped
/// one would fault the reader with SIGBUS.
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::npy::{write_npy, NpyFile};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("x.npy");
/// let t = Tensor::from_slice(&[100_000], &vec![7u8; 100_000]).unwrap();
/// std::fs::write(&path, write_npy(&t.view()).unwrap()).unwrap();
/// let f = NpyFile::open(&path).unwrap();
/// assert_eq!(f.view().shape(), &[100_000]);
/// assert_eq!(f.into_tensor(), t);
/// ```
pub struct NpyFile {
    header: NpyHeader,
    dtype: DType,
    tensor: Tensor,
}

impl std::fmt::Debug for NpyFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpyFile")
            .field("header", &self.header)
            .field("dtype", &self.dtype)
            .finish()
    }
}

impl NpyFile {
    /// Opens a `.npy` file.
    ///
    /// # Errors
    /// [`FormatError::Io`] when the file cannot be opened, read or mapped; every error
    /// of [`read_npy`].
    ///
    /// ```
    /// use ndpad_formats::npy::NpyFile;
    /// let err = NpyFile::open("/nonexistent/x.npy").unwrap_err();
    /// assert!(err.to_string().contains("/nonexistent/x.npy"));
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<NpyFile, FormatError> {
        NpyFile::open_as(path, None)
    }

    /// Opens a `.npy` file with an explicit element type for raw `V1`/`V2` data (see
    /// [`read_npy_as`]).
    ///
    /// # Errors
    /// As [`NpyFile::open`] and [`read_npy_as`].
    ///
    /// ```
    /// use ndpad::{DType, Tensor};
    /// use ndpad_formats::npy::{write_npy, NpyFile};
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("b.npy");
    /// let t = Tensor::from_bytes(DType::BFloat16, &[1], vec![0x80, 0x3f]).unwrap();
    /// std::fs::write(&path, write_npy(&t.view()).unwrap()).unwrap();
    /// assert!(NpyFile::open(&path).is_err());
    /// assert_eq!(NpyFile::open_as(&path, Some(DType::BFloat16)).unwrap().into_tensor(), t);
    /// ```
    pub fn open_as(path: impl AsRef<Path>, dtype: Option<DType>) -> Result<NpyFile, FormatError> {
        let path = path.as_ref();
        let (mut file, size) = crate::file::open_regular(path)?;
        // The header: at most what `parse_npy_header` accepts.
        let mut head = crate::file::alloc(path.display(), size.min(MAX_HEADER_LEN as u64 + 16))?;
        crate::file::read_exact_named(&mut file, path, &mut head, 0, size)?;
        let c = check_header(parse_npy_header(&head)?, dtype, size)?;
        // The data: what followed the header in `head`, then the rest of the file
        // (its size was checked against the header's shape).
        let offset = c.header.data_offset.min(head.len());
        let mut data = crate::file::alloc(path.display(), size - offset as u64)?;
        let from_head = head.len() - offset;
        data[..from_head].copy_from_slice(&head[offset..]);
        crate::file::read_exact_named(
            &mut file,
            path,
            &mut data[from_head..],
            head.len() as u64,
            size,
        )?;
        crate::file::check_end(&mut file, path, size)?;
        // C-order data of a fixed-width type is the tensor's buffer as read.
        let tensor = decode(&c, Cow::Owned(data))?;
        Ok(NpyFile {
            header: c.header,
            dtype: c.dtype,
            tensor,
        })
    }

    /// The file's header.
    pub fn header(&self) -> &NpyHeader {
        &self.header
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape (C order).
    pub fn shape(&self) -> &[usize] {
        &self.header.shape
    }

    /// The tensor.
    pub fn view(&self) -> TensorView<'_> {
        self.tensor.view()
    }

    /// The tensor, owned.
    pub fn into_tensor(self) -> Tensor {
        self.tensor
    }
}
