//! The element types the statistics and ramps take ([`Elem`]), the type a mean sums
//! in ([`Acc`]) and a ramp's computation type ([`Comp`]), with numpy's casts.

use std::ops::{Add, Div, Mul, Sub};

/// The accumulator of a mean: `f32` for `f32`, `f64` for the rest.
pub trait Acc: Copy + Add<Output = Self> + PartialEq + Send + Sync + 'static {
    /// 0.0, numpy's identity of `add`.
    const ZERO: Self;
    /// Neither infinite nor NaN.
    fn finite(self) -> bool;
}

impl Acc for f32 {
    const ZERO: Self = 0.0;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Acc for f64 {
    const ZERO: Self = 0.0;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// An element type the statistics and ramps take.
pub trait Elem: Copy + PartialOrd + bytemuck::Pod + Send + Sync + 'static {
    /// The type numpy's mean sums in.
    type Sum: Acc;
    /// A floating-point type (NaN, signed zeros).
    const FLOAT: bool;
    /// Whether mean and median are exact here: integers of at most 32 bits sum
    /// exactly in `f64`, in any order; 64-bit ones would need numpy's cast of
    /// out-of-range rounded means.
    const MEAN: bool;
    /// The largest finite value, as `f64`.
    const MAX_F64: f64;
    /// The bit that makes a NaN quiet (0 for integers).
    const QUIET: u64;
    /// The bits of the NaN numpy's maximum and minimum make (0 for integers).
    const CANONICAL_NAN: u64;
    /// The raw bits.
    fn bits(self) -> u64;
    /// A NaN.
    fn nan(self) -> bool;
    /// A zero of either sign (floats; `false` for integers).
    fn float_zero(self) -> bool;
    /// Negative sign bit.
    fn negative(self) -> bool;
    /// Infinite.
    fn inf(self) -> bool;
    /// The value in the mean's type.
    fn to_sum(self) -> Self::Sum;
    /// As `f32` (one rounding).
    fn to_f32(self) -> f32;
    /// As `f64` (one rounding).
    fn to_f64(self) -> f64;
    /// numpy's mean from a sum of `count` values (`None`: outside the type).
    fn mean_of(sum: Self::Sum, count: usize) -> Option<Self>;
    /// The type a mean's values are added in here: for integers of 32 bits or less an
    /// integer no sum of a mean's span (`MAX_MEAN_SPAN` values at most) overflows,
    /// whose sums are numpy's `f64` sums exactly, in any order (each below 2^53); for
    /// floats [`Elem::Sum`], added in numpy's order.
    type Wide: Copy + Add<Output = Self::Wide> + Send + Sync + 'static;
    /// 0 in [`Elem::Wide`].
    const WIDE_ZERO: Self::Wide;
    /// As [`Elem::Wide`].
    fn to_wide(self) -> Self::Wide;
    /// A sum in [`Elem::Wide`] as numpy's sum.
    fn sum_of_wide(sum: Self::Wide) -> Self::Sum;
    /// A ramp value computed in `f32`, as numpy's `astype` (integers: floored);
    /// `None` where numpy's cast overflows.
    fn from_f32(y: f32) -> Option<Self>;
    /// As [`Elem::from_f32`], from `f64`.
    fn from_f64(y: f64) -> Option<Self>;
    /// The value's place in its type's order, for the one-byte integers (a median
    /// counted in 256 bins); `None` for the other types.
    fn byte_rank(self) -> Option<u8> {
        None
    }
    /// The one-byte integer at place `rank` ([`Elem::byte_rank`]'s inverse).
    fn of_byte_rank(_rank: u8) -> Option<Self> {
        None
    }
}

macro_rules! float_elem {
    ($t:ty, $quiet:expr) => {
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        impl Elem for $t {
            type Sum = $t;
            const FLOAT: bool = true;
            const MEAN: bool = true;
            const MAX_F64: f64 = <$t>::MAX as f64;
            const QUIET: u64 = $quiet;
            const CANONICAL_NAN: u64 = <$t>::NAN.to_bits() as u64;
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn float_zero(self) -> bool {
                self == 0.0
            }
            fn negative(self) -> bool {
                self.is_sign_negative()
            }
            fn inf(self) -> bool {
                self.is_infinite()
            }
            fn to_sum(self) -> $t {
                self
            }
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            type Wide = $t;
            const WIDE_ZERO: $t = 0.0;
            fn to_wide(self) -> $t {
                self
            }
            fn sum_of_wide(sum: $t) -> $t {
                sum
            }
            fn mean_of(sum: $t, count: usize) -> Option<$t> {
                // numpy: true_divide(sum, intp(count)) runs in f64, cast back.
                Some((f64::from(sum) / count as f64) as $t)
            }
            fn from_f32(y: f32) -> Option<$t> {
                Some(y as $t)
            }
            #[allow(clippy::cast_possible_truncation)]
            fn from_f64(y: f64) -> Option<$t> {
                let v = y as $t;
                // numpy warns of an overflowing cast: left to numpy.
                (v.is_finite() || !y.is_finite()).then_some(v)
            }
        }
    };
}

float_elem!(f32, 1 << 22);
float_elem!(f64, 1 << 51);

macro_rules! int_elem {
    ($t:ty, $mean:expr, $wide:ty) => {
        int_elem!($t, $mean, $wide, None);
    };
    // `$wide`: the type a mean's values are added in (`f64` where means are declined);
    // `$bias`: the bits flipped to order a one-byte integer's bits as its values.
    ($t:ty, $mean:expr, $wide:ty, $bias:expr) => {
        #[allow(clippy::unnecessary_cast)]
        impl Elem for $t {
            type Sum = f64;
            const FLOAT: bool = false;
            const MEAN: bool = $mean;
            const MAX_F64: f64 = <$t>::MAX as f64;
            const QUIET: u64 = 0;
            const CANONICAL_NAN: u64 = 0;
            fn bits(self) -> u64 {
                self as u64
            }
            fn nan(self) -> bool {
                false
            }
            fn float_zero(self) -> bool {
                false
            }
            fn negative(self) -> bool {
                false
            }
            fn inf(self) -> bool {
                false
            }
            fn to_sum(self) -> f64 {
                self as f64
            }
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            type Wide = $wide;
            const WIDE_ZERO: $wide = 0 as $wide;
            fn to_wide(self) -> $wide {
                self as $wide
            }
            #[allow(clippy::cast_precision_loss)]
            fn sum_of_wide(sum: $wide) -> f64 {
                sum as f64
            }
            fn mean_of(sum: f64, count: usize) -> Option<$t> {
                int_of((sum / count as f64).round_ties_even())
            }
            fn from_f32(y: f32) -> Option<$t> {
                Self::from_f64(f64::from(y))
            }
            #[allow(clippy::cast_precision_loss)]
            fn from_f64(y: f64) -> Option<$t> {
                // floor(y) is in the type's range where y is (its ends are integers);
                // there `int_of`'s truncation is exact, one less below a negative y
                // that is not an integer. No call of libm's `floor`: x86-64's baseline
                // has no rounding instruction, and the call was a tenth of an integer
                // ramp's time.
                int_of::<$t>(y).map(|t| if (t as f64) > y { t - 1 } else { t })
            }
            fn byte_rank(self) -> Option<u8> {
                let bias: Option<u8> = $bias;
                bias.map(|b| (self as u8) ^ b)
            }
            fn of_byte_rank(rank: u8) -> Option<$t> {
                let bias: Option<u8> = $bias;
                bias.map(|b| (rank ^ b) as $t)
            }
        }

        impl IntOf for $t {
            fn int_of(v: f64) -> Option<$t> {
                // -2^(n-1) and 2^n are exact in f64; NaN fails both tests.
                let lo = <$t>::MIN as f64;
                let hi = (<$t>::MAX as f64) + 1.0;
                (v >= lo && v < hi).then(|| v as $t)
            }
        }
    };
}

trait IntOf: Sized {
    fn int_of(v: f64) -> Option<Self>;
}

fn int_of<T: IntOf>(v: f64) -> Option<T> {
    T::int_of(v)
}

int_elem!(i8, true, i32, Some(0x80));
int_elem!(i16, true, i32);
int_elem!(i32, true, i64);
int_elem!(i64, false, f64);
int_elem!(u8, true, u32, Some(0));
int_elem!(u16, true, u32);
int_elem!(u32, true, i64);
int_elem!(u64, false, f64);

/// The type `numpy.linspace` computes a ramp in (`f32` or `f64`).
pub trait Comp:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + PartialEq
    + Send
    + Sync
    + 'static
{
    /// 0.0.
    const ZERO: Self;
    /// The largest integer below which every integer is exact.
    const EXACT: usize;
    /// Half the gap between the type's two largest values: numpy's `edge - end` of an
    /// end value smaller than this never overflows (of a larger one it may, and warns).
    const QUIET_END: f64;
    /// An element's value (one rounding, numpy's cast).
    fn of<T: Elem>(t: T) -> Self;
    /// A count (exact below [`Comp::EXACT`]).
    fn count(n: usize) -> Self;
    /// `v`, when it is exactly representable and finite.
    fn exact(v: f64) -> Option<Self>;
    /// Neither infinite nor NaN.
    fn finite(self) -> bool;
    /// As an element, numpy's `floor` (integers) and `astype`.
    fn to<T: Elem>(self) -> Option<T>;
}

impl Comp for f32 {
    const ZERO: Self = 0.0;
    const EXACT: usize = 1 << 24;
    const QUIET_END: f64 = f64::from_bits((1023 + 103) << 52); // 2^103
    fn of<T: Elem>(t: T) -> f32 {
        t.to_f32()
    }
    fn count(n: usize) -> f32 {
        n as f32
    }
    #[allow(clippy::cast_possible_truncation)]
    fn exact(v: f64) -> Option<f32> {
        let c = v as f32;
        (c.is_finite() && f64::from(c) == v).then_some(c)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn to<T: Elem>(self) -> Option<T> {
        T::from_f32(self)
    }
}

impl Comp for f64 {
    const ZERO: Self = 0.0;
    const EXACT: usize = 1 << 53;
    const QUIET_END: f64 = f64::from_bits((1023 + 970) << 52); // 2^970
    fn of<T: Elem>(t: T) -> f64 {
        t.to_f64()
    }
    fn count(n: usize) -> f64 {
        n as f64
    }
    fn exact(v: f64) -> Option<f64> {
        v.is_finite().then_some(v)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn to<T: Elem>(self) -> Option<T> {
        T::from_f64(self)
    }
}
