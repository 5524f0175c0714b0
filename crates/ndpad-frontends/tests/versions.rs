//! Version boundaries of ONNX Pad: something valid in version N and rejected in N-1,
//! and the version table checked against the spec's type lists.

mod common;

use common::assert_err;
use ndpad::{DType, Scalar};
use ndpad_frontends::onnx::{OnnxPad, PadNode, PadsSource, ValueSource, MAX_OPSET, VERSIONS};
use ndpad_frontends::IntInput;

fn ok(opset: i64, node: &PadNode, shape: &[usize]) -> Vec<usize> {
    OnnxPad::new(opset)
        .unwrap()
        .resolve(node, shape)
        .unwrap_or_else(|e| panic!("opset {opset}: {e}"))
        .output_shape
}

fn err(opset: i64, node: &PadNode, shape: &[usize], parts: &[&str]) {
    assert_err(OnnxPad::new(opset).unwrap().resolve(node, shape), parts);
}

/// A node with `pads` put where `opset` takes them.
fn node(opset: i64, dtype: DType, mode: &str, pads: Vec<i64>) -> PadNode {
    OnnxPad::new(opset)
        .unwrap()
        .node(dtype, mode, pads, None, None)
}

#[test]
fn opset_resolves_to_latest_version_at_or_below() {
    let expect = [
        (1, 1),
        (2, 2),
        (3, 2),
        (10, 2),
        (11, 11),
        (12, 11),
        (13, 13),
        (17, 13),
        (18, 18),
        (19, 19),
        (20, 19),
        (21, 21),
        (22, 21),
        (23, 23),
        (24, 24),
        (25, 25),
    ];
    for (opset, since) in expect {
        let op = OnnxPad::new(opset).unwrap();
        assert_eq!(op.version().since, since, "opset {opset}");
        assert_eq!(op.opset(), opset);
    }
    assert_eq!(OnnxPad::new(20).unwrap().name(), "ONNX Pad-19 (opset 20)");
    assert_eq!(OnnxPad::new(19).unwrap().name(), "ONNX Pad-19");
    assert_err(
        OnnxPad::new(0),
        &["ONNX opset 0 is not supported", "opsets 1 to 25"],
    );
    assert_err(OnnxPad::new(-3), &["opset -3"]);
    assert_err(OnnxPad::new(MAX_OPSET + 1), &["opset 26 is not supported"]);
}

#[test]
fn table_matches_the_spec() {
    let since: Vec<i64> = VERSIONS.iter().map(|v| v.since).collect();
    assert_eq!(since, vec![1, 2, 11, 13, 18, 19, 21, 23, 24, 25]);
    for v in &VERSIONS {
        let pads = match v.since {
            1 => PadsSource::PaddingsAttribute,
            2 => PadsSource::PadsAttribute,
            _ => PadsSource::PadsInput,
        };
        assert_eq!(v.pads, pads);
        let value = if v.since < 11 {
            ValueSource::FloatAttribute
        } else {
            ValueSource::Input
        };
        assert_eq!(v.value, value);
        assert_eq!(v.axes, v.since >= 18, "axes in {}", v.since);
        assert_eq!(
            v.modes.contains(&"wrap"),
            v.since >= 19,
            "wrap in {}",
            v.since
        );
        // No duplicates in a type list.
        let mut t = v.types.to_vec();
        t.sort();
        t.dedup();
        assert_eq!(t.len(), v.types.len());
    }
    // Type-list sizes as printed in the spec: 3, 3, 11, 16, 16, 16, 22, 23, 24, 26.
    let sizes: Vec<usize> = VERSIONS.iter().map(|v| v.types.len()).collect();
    assert_eq!(sizes, vec![3, 3, 11, 16, 16, 16, 22, 23, 24, 26]);
}

/// Each type's first version, read from the spec's type lists.
#[test]
fn every_type_boundary() {
    use DType::*;
    let first: &[(DType, i64)] = &[
        (Float16, 1),
        (Float32, 1),
        (Float64, 1),
        (Int8, 11),
        (Int16, 11),
        (Int32, 11),
        (Int64, 11),
        (Uint8, 11),
        (Uint16, 11),
        (Uint32, 11),
        (Uint64, 11),
        (BFloat16, 13),
        (Bool, 13),
        (Complex64, 13),
        (Complex128, 13),
        (String, 13),
        (Float8E4M3FN, 21),
        (Float8E4M3FNUZ, 21),
        (Float8E5M2, 21),
        (Float8E5M2FNUZ, 21),
        (Int4, 21),
        (Uint4, 21),
        (Float4E2M1, 23),
        (Float8E8M0, 24),
        (Int2, 25),
        (Uint2, 25),
    ];
    assert_eq!(first.len(), DType::ALL.len());
    for &(dtype, since) in first {
        for v in &VERSIONS {
            let n = node(v.since, dtype, "constant", vec![0, 1]);
            if v.since >= since {
                assert_eq!(ok(v.since, &n, &[2]), vec![3], "{dtype} in Pad-{}", v.since);
            } else {
                err(
                    v.since,
                    &n,
                    &[2],
                    &[
                        &format!("ONNX Pad-{}", v.since),
                        &format!("data of type {dtype} is not supported"),
                        "allowed: ",
                    ],
                );
            }
        }
    }
}

#[test]
fn axes_from_18() {
    let n = PadNode::new(DType::Float32).pads(vec![1, 1]).axes(vec![0]);
    assert_eq!(ok(18, &n, &[2, 3]), vec![4, 3]);
    err(
        13,
        &n,
        &[2, 3],
        &[
            "ONNX Pad-13: has no input \"axes\"",
            "axes exist from Pad-18",
        ],
    );
    err(
        17,
        &n,
        &[2, 3],
        &["ONNX Pad-13 (opset 17): has no input \"axes\""],
    );
}

#[test]
fn wrap_from_19() {
    let n = PadNode::new(DType::Float32).mode("wrap").pads(vec![1, 1]);
    assert_eq!(ok(19, &n, &[2]), vec![4]);
    err(
        18,
        &n,
        &[2],
        &[
            "ONNX Pad-18: mode \"wrap\" is not supported",
            "supported: constant, reflect, edge)",
        ],
    );
    for opset in [1, 2] {
        err(
            opset,
            &node(opset, DType::Float32, "wrap", vec![1, 1]),
            &[2],
            &["mode \"wrap\""],
        );
    }
}

#[test]
fn pads_attribute_to_input_at_11() {
    // Pad-2 takes the attribute, Pad-11 the input.
    let attr = PadNode::new(DType::Float32).pads_attribute(vec![1, 1]);
    assert_eq!(ok(2, &attr, &[2]), vec![4]);
    assert_eq!(ok(10, &attr, &[2]), vec![4]);
    err(
        11,
        &attr,
        &[2],
        &[
            "ONNX Pad-11: has no attribute \"pads\"",
            "pads are an input since Pad-11",
        ],
    );
    let input = PadNode::new(DType::Float32).pads(vec![1, 1]);
    assert_eq!(ok(11, &input, &[2]), vec![4]);
    err(
        2,
        &input,
        &[2],
        &[
            "ONNX Pad-2: has no input \"pads\"",
            "the attribute \"pads\"",
        ],
    );
}

#[test]
fn paddings_renamed_pads_at_2() {
    let p1 = PadNode::new(DType::Float32).paddings(vec![1, 1]);
    assert_eq!(ok(1, &p1, &[2]), vec![4]);
    err(
        2,
        &p1,
        &[2],
        &[
            "ONNX Pad-2: has no attribute \"paddings\"",
            "attribute \"pads\"",
        ],
    );
    let p2 = PadNode::new(DType::Float32).pads_attribute(vec![1, 1]);
    err(
        1,
        &p2,
        &[2],
        &[
            "ONNX Pad-1: has no attribute \"pads\"",
            "attribute \"paddings\"",
        ],
    );
}

#[test]
fn negative_pads_from_2() {
    let p2 = PadNode::new(DType::Float32).pads_attribute(vec![-1, 0]);
    assert_eq!(ok(2, &p2, &[3]), vec![2]);
    let p1 = PadNode::new(DType::Float32).paddings(vec![-1, 0]);
    err(1, &p1, &[3], &["ONNX Pad-1: paddings[0] = -1 is negative"]);
}

#[test]
fn value_attribute_to_constant_value_input_at_11() {
    let attr = PadNode::new(DType::Float32)
        .pads_attribute(vec![1, 0])
        .value(2.0);
    assert_eq!(ok(2, &attr, &[1]), vec![2]);
    let input = PadNode::new(DType::Float32)
        .pads(vec![1, 0])
        .constant_value(Scalar::from(2.0f32));
    assert_eq!(ok(11, &input, &[1]), vec![2]);
    err(
        11,
        &PadNode::new(DType::Float32).pads(vec![1, 0]).value(2.0),
        &[1],
        &["ONNX Pad-11: has no attribute \"value\"", "constant_value"],
    );
    err(
        2,
        &PadNode::new(DType::Float32)
            .pads_attribute(vec![1, 0])
            .constant_value(Scalar::from(2.0f32)),
        &[1],
        &[
            "ONNX Pad-2: has no input \"constant_value\"",
            "float attribute \"value\"",
        ],
    );
}

#[test]
fn modes_common_to_all_versions() {
    for v in &VERSIONS {
        for mode in ["constant", "reflect", "edge", "CONSTANT", "Edge"] {
            let n = node(v.since, DType::Float32, mode, vec![1, 1]);
            assert_eq!(ok(v.since, &n, &[3]), vec![5], "{mode} in Pad-{}", v.since);
        }
        let n = node(v.since, DType::Float32, "symmetric", vec![1, 1]);
        err(
            v.since,
            &n,
            &[3],
            &[&format!(
                "ONNX Pad-{}: mode \"symmetric\" is not supported",
                v.since
            )],
        );
    }
}

#[test]
fn node_helper_places_inputs_per_version() {
    let op = OnnxPad::new(1).unwrap();
    let n = op.node(
        DType::Float32,
        "constant",
        vec![1, 2],
        Some(Scalar::from(0.5f64).into()),
        None,
    );
    assert_eq!(n.paddings, Some(vec![1, 2]));
    assert_eq!(n.value, Some(0.5));
    let n = OnnxPad::new(2)
        .unwrap()
        .node(DType::Float32, "edge", vec![1, 2], None, None);
    assert_eq!(n.pads_attribute, Some(vec![1, 2]));
    let n = OnnxPad::new(18).unwrap().node(
        DType::Float32,
        "edge",
        vec![1, 2],
        Some(Scalar::from(1.0f32).into()),
        Some(vec![0]),
    );
    assert_eq!(n.pads, Some(IntInput::i64(vec![1, 2])));
    assert_eq!(n.axes, Some(IntInput::i64(vec![0])));
    assert!(n.constant_value.is_some());
}
