//! `Scalar`'s text: `Display` is the shortest text `Scalar::parse` reads back as the
//! same value, for every type; `parse` refuses finite floats beyond a type's range
//! and nonzero floats that round to 0.

use ndpad::{DType, Scalar};
use proptest::prelude::*;

/// The same value: equal bits, or both NaN (NaN's payload and sign are not text).
fn same(a: &Scalar, b: &Scalar) -> bool {
    a == b || (a.to_string() == b.to_string() && a.to_string().contains("NaN"))
}

fn value(dtype: DType, raw: u128) -> Scalar {
    let width = dtype.bits();
    let bits = if width >= 128 {
        raw
    } else {
        raw & ((1u128 << width) - 1)
    };
    let bits = if dtype == DType::Bool { bits & 1 } else { bits };
    Scalar::from_bits(dtype, bits).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn display_then_parse_round_trips(index in 0..DType::ALL.len(), raw in any::<u128>()) {
        let dtype = DType::ALL[index];
        prop_assume!(dtype != DType::String);
        let x = value(dtype, raw);
        let text = x.to_string();
        let back = Scalar::parse(dtype, &text);
        prop_assert!(back.is_ok(), "{dtype} {x:?} displays {text:?}: {back:?}");
        let back = back.unwrap();
        prop_assert!(same(&back, &x), "{dtype} {x:?} -> {text:?} -> {back:?}");
    }

    #[test]
    fn strings_display_as_their_text(text in ".*") {
        let x = Scalar::string(text.clone());
        prop_assert_eq!(x.to_string(), text.clone());
        prop_assert_eq!(Scalar::parse(DType::String, &x.to_string()).unwrap(), x);
    }
}

#[test]
fn every_code_of_the_narrow_types_round_trips() {
    for dtype in DType::ALL {
        if dtype.bits() > 16 || dtype == DType::String {
            continue;
        }
        for bits in 0..(1u128 << dtype.bits()) {
            let Ok(x) = Scalar::from_bits(dtype, bits) else {
                continue;
            };
            let text = x.to_string();
            let back =
                Scalar::parse(dtype, &text).unwrap_or_else(|e| panic!("{dtype} {text}: {e}"));
            assert!(same(&back, &x), "{dtype} {bits:#x} -> {text:?} -> {back:?}");
        }
    }
}

#[test]
fn display_is_short() {
    let show = |d: DType, t: &str| Scalar::parse(d, t).unwrap().to_string();
    assert_eq!(show(DType::Float32, "1e-40"), "1e-40");
    assert_eq!(show(DType::Float32, "1e30"), "1e30");
    assert_eq!(show(DType::Float32, "123.5"), "123.5");
    assert_eq!(show(DType::Float64, "0.0001"), "1e-4");
    assert_eq!(show(DType::Float16, "0.0001"), "1e-4");
    assert_eq!(show(DType::Float16, "1000"), "1e3");
    assert_eq!(show(DType::Complex64, "1.5"), "1.5");
    assert_eq!(show(DType::Complex128, "1.5,-0"), "1.5,-0");
    assert_eq!(show(DType::Complex64, "0,2"), "0,2");
    assert_eq!(show(DType::Bool, "1"), "true");
    assert_eq!(show(DType::Int4, "-8"), "-8");
    assert_eq!(
        show(DType::Uint64, "18446744073709551615"),
        "18446744073709551615"
    );
    assert_eq!(Scalar::string("a \"b\"").to_string(), "a \"b\"");
    assert_eq!(Scalar::zero(DType::Float8E8M0).to_string(), "6e-39");
}

fn rejected(dtype: DType, text: &str) -> String {
    Scalar::parse(dtype, text).unwrap_err().to_string()
}

#[test]
fn finite_values_beyond_the_range_are_errors() {
    use DType::*;
    let cases: &[(DType, &str, &str)] = &[
        (
            Float32,
            "1e40",
            "out of range: the largest finite float32 is 3.4028235e38",
        ),
        (
            Float32,
            "-1e40",
            "out of range: the largest finite float32 is 3.4028235e38",
        ),
        (
            Float64,
            "1e400",
            "out of range: the largest finite float64 is 1.7976931348623157e308",
        ),
        (
            Float16,
            "65520",
            "out of range: the largest finite float16 is 65504",
        ),
        (
            BFloat16,
            "1e39",
            "out of range: the largest finite bfloat16 is 3.3895313892515355e38",
        ),
        (
            Float8E4M3FN,
            "465",
            "out of range: the largest finite float8e4m3fn is 448",
        ),
        (
            Float8E4M3FNUZ,
            "1000",
            "out of range: the largest finite float8e4m3fnuz is 240",
        ),
        (
            Float8E5M2,
            "1e6",
            "out of range: the largest finite float8e5m2 is 57344",
        ),
        (
            Float8E5M2FNUZ,
            "-1e6",
            "out of range: the largest finite float8e5m2fnuz is 57344",
        ),
        (
            Float8E8M0,
            "1e39",
            "out of range: the largest finite float8e8m0 is 1.7014118346046923e38",
        ),
        (
            Float4E2M1,
            "7",
            "out of range: the largest finite float4e2m1 is 6",
        ),
        (
            Complex64,
            "1e40,0",
            "out of range: the largest finite complex64 is 3.4028235e38",
        ),
        (
            Complex128,
            "0,-1e400",
            "out of range: the largest finite complex128",
        ),
    ];
    for &(dtype, text, reason) in cases {
        let e = rejected(dtype, text);
        assert!(
            e.starts_with(&format!("invalid {dtype} value {text:?}: ")) && e.contains(reason),
            "{dtype} {text}: {e}"
        );
    }
    // Within rounding of the largest value, explicit infinities and NaN are fine.
    for (dtype, text) in [
        (Float32, "3.4028235e38"),
        (Float16, "65519"),
        (Float8E4M3FN, "464"),
        (Float4E2M1, "6.9"),
        (Float32, "inf"),
        (Float16, "-inf"),
        (Float8E4M3FN, "nan"),
        (Float8E5M2, "inf"),
    ] {
        assert!(Scalar::parse(dtype, text).is_ok(), "{dtype} {text}");
    }
}

#[test]
fn nonzero_values_that_round_to_zero_are_errors() {
    use DType::*;
    let cases: &[(DType, &str, &str)] = &[
        (
            Float16,
            "1e-10",
            "rounds to 0: the smallest nonzero float16 is 5.960464477539063e-8",
        ),
        (
            BFloat16,
            "1e-50",
            "rounds to 0: the smallest nonzero bfloat16 is 9.183549615799121e-41",
        ),
        (
            Float32,
            "1e-50",
            "rounds to 0: the smallest nonzero float32 is 1e-45",
        ),
        (
            Float64,
            "-1e-400",
            "rounds to 0: the smallest nonzero float64 is 5e-324",
        ),
        (
            Float8E4M3FN,
            "1e-5",
            "rounds to 0: the smallest nonzero float8e4m3fn is 0.001953125",
        ),
        (
            Float8E5M2,
            "1e-9",
            "rounds to 0: the smallest nonzero float8e5m2 is 1.52587890625e-5",
        ),
        (
            Float4E2M1,
            "0.1",
            "rounds to 0: the smallest nonzero float4e2m1 is 0.5",
        ),
    ];
    for &(dtype, text, reason) in cases {
        let e = rejected(dtype, text);
        assert!(e.contains(reason), "{dtype} {text}: {e}");
    }
    // Zero itself, and float8e8m0 (no zero: the smallest value) are fine.
    assert!(Scalar::parse(Float16, "0.000").is_ok());
    assert!(Scalar::parse(Float16, "-0e5").is_ok());
    assert_eq!(Scalar::parse(Float8E8M0, "1e-50").unwrap().bits(), Some(0));
}

#[test]
fn complex_text_says_the_form_that_works() {
    let e = rejected(DType::Complex64, "1+2j");
    assert_eq!(
        e,
        "invalid complex64 value \"1+2j\": real part is not a number; write a complex value as re,im (`1,2` for 1+2j) or re alone"
    );
}
