//! numpy's `2 * edge - chunk` for each element type ([`OddElem`]), in the array's
//! type with numpy's casting, and the floating-point exceptions numpy's ufuncs would
//! report ([`FpFlags`]).

use half::{bf16, f16};

/// The IEEE exceptions one of numpy's ufunc calls raises (numpy warns of each, or
/// raises, as `numpy.errstate` says: "overflow encountered in multiply").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exceptions {
    /// A finite operation gave an infinity ("overflow encountered").
    pub overflow: bool,
    /// An operation gave a NaN from non-NaN operands (`inf - inf`, `0 * inf`), or read
    /// a signaling NaN ("invalid value encountered").
    pub invalid: bool,
}

impl Exceptions {
    /// No exception.
    pub const NONE: Exceptions = Exceptions {
        overflow: false,
        invalid: false,
    };

    /// Both sets of exceptions.
    #[must_use]
    pub fn or(self, other: Exceptions) -> Exceptions {
        Exceptions {
            overflow: self.overflow || other.overflow,
            invalid: self.invalid || other.invalid,
        }
    }

    /// Any exception.
    pub fn any(self) -> bool {
        self.overflow || self.invalid
    }
}

/// The floating-point exceptions numpy's `2 * edge` (`multiply`) and `- chunk`
/// (`subtract`) would have raised. Underflow and division by zero cannot happen
/// here: a difference that is subnormal is exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpFlags {
    /// A value numpy computes differently on different machines: the complex product
    /// `2 * edge` of an edge with an infinite or NaN part (numpy's SIMD loops fuse
    /// its multiplications and additions where the processor has FMA, which changes
    /// the NaNs, the infinities and the exceptions of such products). The values
    /// here are those of the unfused formula; the caller should let numpy compute them.
    pub undetermined: bool,
    /// The exceptions of `2 * edge`.
    pub multiply: Exceptions,
    /// The exceptions of `2 * edge - chunk`'s difference.
    pub subtract: Exceptions,
}

impl FpFlags {
    /// No exception.
    pub const NONE: FpFlags = FpFlags {
        undetermined: false,
        multiply: Exceptions::NONE,
        subtract: Exceptions::NONE,
    };

    /// Both sets of exceptions.
    #[must_use]
    pub fn or(self, other: FpFlags) -> FpFlags {
        FpFlags {
            undetermined: self.undetermined || other.undetermined,
            multiply: self.multiply.or(other.multiply),
            subtract: self.subtract.or(other.subtract),
        }
    }

    /// Any exception, or an undetermined value.
    pub fn any(self) -> bool {
        self.undetermined || self.multiply.any() || self.subtract.any()
    }

    /// The flags of `2 * edge` and of the difference.
    fn of(multiply: Exceptions, subtract: Exceptions) -> FpFlags {
        FpFlags {
            undetermined: false,
            multiply,
            subtract,
        }
    }
}

/// An element type whose odd reflection is computed here: `Self` names numpy's type,
/// [`OddElem::Store`] is how an element is stored.
pub trait OddElem: 'static {
    /// An element's bytes (native byte order).
    type Store: Copy + bytemuck::Pod + Send + Sync + 'static;
    /// `2 * edge - chunk` as numpy computes it on arrays of this type.
    fn odd(edge: Self::Store, chunk: Self::Store) -> Self::Store;
    /// Whether `result` may come with an exception (checked with [`OddElem::flags`]).
    fn suspicious(result: Self::Store) -> bool;
    /// The exceptions numpy reports for `2 * edge - chunk`.
    fn flags(edge: Self::Store, chunk: Self::Store) -> FpFlags;
}

macro_rules! int_odd {
    ($($t:ty),*) => {$(
        impl OddElem for $t {
            type Store = $t;
            #[inline]
            fn odd(edge: $t, chunk: $t) -> $t {
                // numpy: the Python int 2 is cast to the array's type (NEP 50), and
                // integer arrays wrap around silently.
                edge.wrapping_mul(2).wrapping_sub(chunk)
            }
            #[inline]
            fn suspicious(_: $t) -> bool {
                false
            }
            fn flags(_: $t, _: $t) -> FpFlags {
                FpFlags::NONE
            }
        }
    )*};
}

int_odd!(i8, i16, i32, i64, u8, u16, u32, u64);

/// numpy's bool: `2 * edge` is an `int64` array (a bool array and a Python int),
/// `- chunk` too, and the assignment back casts it to bool (non-zero: true).
/// Stored as one byte.
#[derive(Clone, Copy, Debug)]
pub enum NpBool {}

impl OddElem for NpBool {
    type Store = u8;
    #[inline]
    fn odd(edge: u8, chunk: u8) -> u8 {
        // numpy's cast of a bool to int64 is its truth (0 or 1).
        let e = i64::from(edge != 0);
        let c = i64::from(chunk != 0);
        u8::from(2 * e - c != 0)
    }
    #[inline]
    fn suspicious(_: u8) -> bool {
        false
    }
    fn flags(_: u8, _: u8) -> FpFlags {
        FpFlags::NONE
    }
}

/// An IEEE binary type the exceptions are judged on.
trait Ieee: Copy {
    fn nan(self) -> bool;
    fn inf(self) -> bool;
    fn signaling(self) -> bool;
}

macro_rules! ieee {
    ($t:ty, $quiet:expr) => {
        impl Ieee for $t {
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn inf(self) -> bool {
                self.is_infinite()
            }
            fn signaling(self) -> bool {
                // Judged on the bits behind an optimization barrier: optimized, the
                // test of a value that also enters arithmetic was folded to false
                // (a signaling NaN edge went unreported in release builds only).
                let bits = std::hint::black_box(self).to_bits();
                <$t>::from_bits(bits).is_nan() && bits & $quiet == 0
            }
        }
    };
}

ieee!(f32, 1 << 22);
ieee!(f64, 1 << 51);
ieee!(f16, 1 << 9);
ieee!(bf16, 1 << 6);

/// The exceptions of one operation `a op b = r` (IEEE 754's, as x86 raises them).
fn op_flags<A: Ieee, B: Ieee, R: Ieee>(a: A, b: B, r: R) -> Exceptions {
    let finite = |x: bool, y: bool| !x && !y;
    Exceptions {
        overflow: r.inf() && finite(a.inf() || a.nan(), b.inf() || b.nan()),
        invalid: a.signaling() || b.signaling() || (r.nan() && !a.nan() && !b.nan()),
    }
}

macro_rules! float_odd {
    ($t:ty) => {
        impl OddElem for $t {
            type Store = $t;
            #[inline]
            fn odd(edge: $t, chunk: $t) -> $t {
                2.0 * edge - chunk
            }
            #[inline]
            fn suspicious(result: $t) -> bool {
                !result.is_finite()
            }
            fn flags(edge: $t, chunk: $t) -> FpFlags {
                let m = 2.0 * edge;
                FpFlags::of(op_flags(2.0 as $t, edge, m), op_flags(m, chunk, m - chunk))
            }
        }
    };
}

float_odd!(f32);
float_odd!(f64);

impl OddElem for f16 {
    type Store = f16;
    #[inline]
    fn odd(edge: f16, chunk: f16) -> f16 {
        // numpy's float16 loops compute in float32 and round each result to float16.
        let m = f16::from_f32(2.0 * edge.to_f32());
        f16::from_f32(m.to_f32() - chunk.to_f32())
    }
    #[inline]
    fn suspicious(result: f16) -> bool {
        !result.is_finite()
    }
    fn flags(edge: f16, chunk: f16) -> FpFlags {
        let m = f16::from_f32(2.0 * edge.to_f32());
        let r = f16::from_f32(m.to_f32() - chunk.to_f32());
        FpFlags::of(op_flags(edge, edge, m), op_flags(m, chunk, r))
    }
}

/// ml_dtypes' float32 to bfloat16: round to nearest even, a NaN becomes the
/// canonical quiet NaN of its sign.
fn bf16_of(x: f32) -> bf16 {
    if x.is_nan() {
        bf16::from_bits(if x.is_sign_negative() { 0xFFC0 } else { 0x7FC0 })
    } else {
        bf16::from_f32(x)
    }
}

impl OddElem for bf16 {
    type Store = bf16;
    #[inline]
    fn odd(edge: bf16, chunk: bf16) -> bf16 {
        // ml_dtypes computes in float32 and rounds each result to bfloat16.
        let m = bf16_of(2.0 * edge.to_f32());
        bf16_of(m.to_f32() - chunk.to_f32())
    }
    #[inline]
    fn suspicious(result: bf16) -> bool {
        !result.is_finite()
    }
    fn flags(edge: bf16, chunk: bf16) -> FpFlags {
        // The float32 operations raise the exceptions (the casts raise none).
        let m32 = 2.0 * edge.to_f32();
        let m = bf16_of(m32);
        let r32 = m.to_f32() - chunk.to_f32();
        FpFlags::of(op_flags(edge, edge, m32), op_flags(m, chunk, r32))
    }
}

/// numpy's complex type of parts `F`, stored as `[real, imaginary]`.
#[derive(Clone, Copy, Debug)]
pub struct Complex<F>(std::marker::PhantomData<F>);

macro_rules! complex_odd {
    ($t:ty) => {
        impl OddElem for Complex<$t> {
            type Store = [$t; 2];
            #[inline]
            fn odd(edge: [$t; 2], chunk: [$t; 2]) -> [$t; 2] {
                let [er, ei] = edge;
                // numpy: (2 + 0j) * edge, the complex product in full, then the
                // difference part by part. With a finite edge the products are exact
                // and numpy's fused and unfused products agree, bit for bit.
                let re = 2.0 * er - 0.0 * ei;
                let im = 2.0 * ei + 0.0 * er;
                [re - chunk[0], im - chunk[1]]
            }
            #[inline]
            fn suspicious(result: [$t; 2]) -> bool {
                // A non-finite edge makes a non-finite result (2 * inf, 0 * inf).
                !(result[0].is_finite() && result[1].is_finite())
            }
            fn flags(edge: [$t; 2], chunk: [$t; 2]) -> FpFlags {
                let ([er, ei], [cr, ci]) = (edge, chunk);
                // A non-finite edge: undetermined, with the unfused formula's
                // exceptions (`0 * inf` is invalid fused or not).
                let undetermined = !(er.is_finite() && ei.is_finite());
                let two: $t = 2.0;
                let zero: $t = 0.0;
                let (a, b) = (two * er, zero * ei);
                let (c, d) = (two * ei, zero * er);
                let (re, im) = (a - b, c + d);
                // The product's parts are numpy's `multiply`, the rest `subtract`.
                let multiply = op_flags(two, er, a)
                    .or(op_flags(zero, ei, b))
                    .or(op_flags(two, ei, c))
                    .or(op_flags(zero, er, d))
                    .or(op_flags(a, b, re))
                    .or(op_flags(c, d, im));
                let subtract = op_flags(re, cr, re - cr).or(op_flags(im, ci, im - ci));
                FpFlags {
                    undetermined,
                    ..FpFlags::of(multiply, subtract)
                }
            }
        }
    };
}

complex_odd!(f32);
complex_odd!(f64);
