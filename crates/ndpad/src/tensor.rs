//! Owned tensors and borrowed views over callers' buffers.

use crate::dtype::{DType, Layout};
use crate::error::PadError;
use crate::os::PooledBuffer;
use crate::scalar::Scalar;
use crate::strings::Strings;

/// Number of elements of `shape`, checked.
///
/// # Errors
/// [`PadError::ShapeOverflow`] when the product does not fit in `usize`.
pub fn numel(shape: &[usize]) -> Result<usize, PadError> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| PadError::ShapeOverflow {
            shape: shape.to_vec(),
        })
}

/// Checks that a buffer of `got` bytes (or strings, when `strings`) holds a `dtype`
/// tensor of `shape`.
fn check_len(dtype: DType, shape: &[usize], got: usize, strings: bool) -> Result<(), PadError> {
    let n = numel(shape)?;
    let (expected, unit) = match dtype.layout() {
        Layout::Strings => (n, "strings"),
        _ => (
            dtype.byte_len(n).ok_or_else(|| PadError::ShapeOverflow {
                shape: shape.to_vec(),
            })?,
            "bytes",
        ),
    };
    if (dtype == DType::String) != strings {
        let given = if strings { "strings" } else { "bytes" };
        return Err(PadError::StorageMismatch {
            dtype,
            expected: unit,
            given,
        });
    }
    if expected != got {
        return Err(PadError::DataLength {
            dtype,
            shape: shape.to_vec(),
            expected,
            got,
            unit,
        });
    }
    Ok(())
}

/// A tensor's elements, borrowed.
#[derive(Clone, Copy, Debug)]
pub enum Data<'a> {
    /// Fixed-width or packed elements, little-endian.
    Bytes(&'a [u8]),
    /// String elements.
    Strings(&'a Strings),
}

/// A tensor's elements, borrowed mutably (the destination of [`crate::pad_into`]).
#[derive(Debug)]
pub enum DataMut<'a> {
    /// Fixed-width or packed elements, little-endian.
    Bytes(&'a mut [u8]),
    /// String elements.
    Strings(&'a mut Strings),
}

/// A tensor's elements, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// Fixed-width or packed elements, little-endian.
    Bytes(OwnedBytes),
    /// String elements.
    Strings(Strings),
}

/// The bytes of an owned tensor: a vector, or the pages of a large fresh output taken
/// from the output pool ([`PooledBuffer`]), which go back to the pool when they are
/// dropped, so that the next output of that size needs no new pages. Reads and writes
/// as a byte slice.
///
/// ```
/// let b = ndpad::OwnedBytes::from(vec![1u8, 2, 3]);
/// assert_eq!(&b[..], &[1, 2, 3]);
/// assert_eq!(b.into_vec(), vec![1, 2, 3]);
/// ```
pub struct OwnedBytes(Store);

/// Where [`OwnedBytes`] keep their bytes.
enum Store {
    Heap(Vec<u8>),
    Pooled(PooledBuffer),
}

impl OwnedBytes {
    /// The bytes as a vector: moved out of one, copied out of pooled pages (which then
    /// go back to the pool).
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Store::Heap(v) => v,
            Store::Pooled(p) => p.as_slice().to_vec(),
        }
    }

    /// Whether the bytes are pages of the output pool.
    pub fn is_pooled(&self) -> bool {
        matches!(self.0, Store::Pooled(_))
    }
}

impl From<Vec<u8>> for OwnedBytes {
    fn from(v: Vec<u8>) -> Self {
        OwnedBytes(Store::Heap(v))
    }
}

impl From<PooledBuffer> for OwnedBytes {
    fn from(p: PooledBuffer) -> Self {
        OwnedBytes(Store::Pooled(p))
    }
}

impl std::ops::Deref for OwnedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Store::Heap(v) => v,
            Store::Pooled(p) => p.as_slice(),
        }
    }
}

impl std::ops::DerefMut for OwnedBytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.0 {
            Store::Heap(v) => v,
            Store::Pooled(p) => p.as_mut_slice(),
        }
    }
}

impl AsRef<[u8]> for OwnedBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Clone for OwnedBytes {
    /// A copy on the heap, wherever the original lies.
    fn clone(&self) -> Self {
        OwnedBytes::from(self.to_vec())
    }
}

impl PartialEq for OwnedBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for OwnedBytes {}

impl std::fmt::Debug for OwnedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// A borrowed tensor: type, shape and the caller's buffer (no copy is made).
///
/// ```
/// use ndpad::{DType, TensorView};
/// let bytes = [1u8, 2, 3, 4, 5, 6];
/// let v = TensorView::from_bytes(DType::Uint8, &[2, 3], &bytes).unwrap();
/// assert_eq!(v.shape(), &[2, 3]);
/// assert!(TensorView::from_bytes(DType::Float32, &[2, 3], &bytes).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct TensorView<'a> {
    dtype: DType,
    shape: Vec<usize>,
    data: Data<'a>,
}

impl<'a> TensorView<'a> {
    /// A view of fixed-width or packed elements.
    ///
    /// # Errors
    /// [`PadError::DataLength`] when `bytes` does not hold exactly the elements of
    /// `shape` (or `dtype` is `string`), [`PadError::ShapeOverflow`] for an impossible
    /// shape.
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: &'a [u8]) -> Result<Self, PadError> {
        check_len(dtype, shape, bytes.len(), false)?;
        Ok(TensorView {
            dtype,
            shape: shape.to_vec(),
            data: Data::Bytes(bytes),
        })
    }

    /// A view of string elements.
    ///
    /// # Errors
    /// [`PadError::DataLength`] when the number of strings does not match `shape`.
    pub fn from_strings(shape: &[usize], strings: &'a Strings) -> Result<Self, PadError> {
        check_len(DType::String, shape, strings.len(), true)?;
        Ok(TensorView {
            dtype: DType::String,
            shape: shape.to_vec(),
            data: Data::Strings(strings),
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements.
    pub fn data(&self) -> Data<'a> {
        self.data
    }

    /// Element `i` (row-major) as a [`Scalar`], or `None` when out of range.
    ///
    /// ```
    /// use ndpad::{Scalar, Tensor};
    /// let t = Tensor::from_slice(&[2], &[5i16, -7]).unwrap();
    /// assert_eq!(t.view().scalar_at(1), Some(Scalar::from(-7i16)));
    /// assert_eq!(t.view().scalar_at(2), None);
    /// ```
    pub fn scalar_at(&self, i: usize) -> Option<Scalar> {
        match (self.data, self.dtype.layout()) {
            (Data::Strings(s), _) => s.get(i).map(Scalar::string),
            (Data::Bytes(b), Layout::Bytes(w)) => {
                let bytes = b.get(i.checked_mul(w)?..i.checked_mul(w)?.checked_add(w)?)?;
                let mut le = [0u8; 16];
                le[..w].copy_from_slice(bytes);
                Scalar::from_bits(self.dtype, u128::from_le_bytes(le)).ok()
            }
            (Data::Bytes(b), Layout::Packed(bits)) => {
                if i >= numel(&self.shape).ok()? {
                    return None;
                }
                Scalar::from_bits(self.dtype, u128::from(crate::packed::get(b, bits, i)?)).ok()
            }
            (Data::Bytes(_), Layout::Strings) => None,
        }
    }
}

/// A mutable borrowed tensor: the caller's output buffer.
#[derive(Debug)]
pub struct TensorViewMut<'a> {
    dtype: DType,
    shape: Vec<usize>,
    data: DataMut<'a>,
}

impl<'a> TensorViewMut<'a> {
    /// A mutable view of fixed-width or packed elements.
    ///
    /// # Errors
    /// As [`TensorView::from_bytes`].
    pub fn from_bytes(
        dtype: DType,
        shape: &[usize],
        bytes: &'a mut [u8],
    ) -> Result<Self, PadError> {
        check_len(dtype, shape, bytes.len(), false)?;
        Ok(TensorViewMut {
            dtype,
            shape: shape.to_vec(),
            data: DataMut::Bytes(bytes),
        })
    }

    /// A mutable view of string elements.
    ///
    /// # Errors
    /// As [`TensorView::from_strings`].
    pub fn from_strings(shape: &[usize], strings: &'a mut Strings) -> Result<Self, PadError> {
        check_len(DType::String, shape, strings.len(), true)?;
        Ok(TensorViewMut {
            dtype: DType::String,
            shape: shape.to_vec(),
            data: DataMut::Strings(strings),
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub(crate) fn data_mut(&mut self) -> &mut DataMut<'a> {
        &mut self.data
    }
}

/// Rust number types that are stored as a [`DType`]'s bytes.
pub trait Element: bytemuck::Pod {
    /// The matching type.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(impl Element for $t { const DTYPE: DType = DType::$d; })*};
}
element!(i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => Uint8, u16 => Uint16,
    u32 => Uint32, u64 => Uint64, f32 => Float32, f64 => Float64,
    half::f16 => Float16, half::bf16 => BFloat16);

/// An owned tensor.
///
/// ```
/// use ndpad::Tensor;
/// let t = Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
/// assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    data: Buffer,
}

impl Tensor {
    /// A tensor of fixed-width or packed elements.
    ///
    /// # Errors
    /// As [`TensorView::from_bytes`].
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: Vec<u8>) -> Result<Self, PadError> {
        Tensor::from_owned_bytes(dtype, shape, bytes.into())
    }

    /// [`Tensor::from_bytes`] over bytes that may lie in the output pool.
    pub(crate) fn from_owned_bytes(
        dtype: DType,
        shape: &[usize],
        bytes: OwnedBytes,
    ) -> Result<Self, PadError> {
        check_len(dtype, shape, bytes.len(), false)?;
        Ok(Tensor {
            dtype,
            shape: shape.to_vec(),
            data: Buffer::Bytes(bytes),
        })
    }

    /// A tensor of strings (a [`Strings`], or a `Vec` of `String` or `&str`).
    ///
    /// # Errors
    /// As [`TensorView::from_strings`].
    pub fn from_strings(shape: &[usize], strings: impl Into<Strings>) -> Result<Self, PadError> {
        let strings = strings.into();
        check_len(DType::String, shape, strings.len(), true)?;
        Ok(Tensor {
            dtype: DType::String,
            shape: shape.to_vec(),
            data: Buffer::Strings(strings),
        })
    }

    /// A tensor copied from a slice of numbers.
    ///
    /// # Errors
    /// As [`TensorView::from_bytes`].
    pub fn from_slice<T: Element>(shape: &[usize], values: &[T]) -> Result<Self, PadError> {
        Tensor::from_bytes(T::DTYPE, shape, bytemuck::cast_slice(values).to_vec())
    }

    /// The elements as numbers of type `T` (`None` if `T` is not the tensor's type).
    pub fn to_vec<T: Element>(&self) -> Option<Vec<T>> {
        match &self.data {
            Buffer::Bytes(b) if T::DTYPE == self.dtype => Some(
                b.chunks_exact(std::mem::size_of::<T>())
                    .map(bytemuck::pod_read_unaligned)
                    .collect(),
            ),
            _ => None,
        }
    }

    /// A borrowed view of this tensor.
    pub fn view(&self) -> TensorView<'_> {
        let data = match &self.data {
            Buffer::Bytes(b) => Data::Bytes(b),
            Buffer::Strings(s) => Data::Strings(s),
        };
        TensorView {
            dtype: self.dtype,
            shape: self.shape.clone(),
            data,
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements.
    pub fn data(&self) -> &Buffer {
        &self.data
    }

    /// The bytes of a non-string tensor.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            Buffer::Bytes(b) => Some(&**b),
            Buffer::Strings(_) => None,
        }
    }

    /// The strings of a string tensor.
    pub fn strings(&self) -> Option<&Strings> {
        match &self.data {
            Buffer::Strings(s) => Some(s),
            Buffer::Bytes(_) => None,
        }
    }

    /// Splits the tensor into its parts.
    pub fn into_parts(self) -> (DType, Vec<usize>, Buffer) {
        (self.dtype, self.shape, self.data)
    }
}
