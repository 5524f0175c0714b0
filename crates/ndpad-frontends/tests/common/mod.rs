//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ndpad::{pad, reference, PadSpec, Tensor};

/// Pads with the fast kernel and the reference, checks they agree, returns the result.
pub fn run(x: &Tensor, spec: &PadSpec) -> Tensor {
    let fast = pad(x.view(), spec).unwrap_or_else(|e| panic!("pad failed: {e}"));
    let slow = reference::pad(x.view(), spec).unwrap_or_else(|e| panic!("reference failed: {e}"));
    assert_eq!(fast, slow, "kernel and reference disagree for {spec:?}");
    fast
}

/// The 3x4 matrix 1..=12 of the OpenVINO examples and peer notes.
pub fn x12() -> Tensor {
    Tensor::from_slice(&[3, 4], &(1..=12).collect::<Vec<i32>>()).unwrap()
}

/// The 3x2 float matrix of the ONNX examples.
pub fn onnx_x() -> Tensor {
    Tensor::from_slice(&[3, 2], &[1.0f32, 1.2, 2.3, 3.4, 4.5, 5.7]).unwrap()
}

/// Flattens rows.
pub fn flat<T: Copy>(rows: &[&[T]]) -> Vec<T> {
    rows.iter().flat_map(|r| r.iter().copied()).collect()
}

/// Asserts that `r` is an error whose message contains every one of `parts`.
#[track_caller]
pub fn assert_err<T: std::fmt::Debug, E: std::fmt::Display>(r: Result<T, E>, parts: &[&str]) {
    match r {
        Ok(v) => panic!("expected an error containing {parts:?}, got Ok({v:?})"),
        Err(e) => {
            let msg = e.to_string();
            for p in parts {
                assert!(msg.contains(p), "message {msg:?} lacks {p:?}");
            }
        }
    }
}

/// A minimal protobuf reader: enough of ONNX's TensorProto and ModelProto for the
/// backend-test files (no Python needed).
pub mod pb {
    /// One field of a message.
    #[derive(Clone, Debug)]
    pub enum Field<'a> {
        Varint(u64),
        Bytes(&'a [u8]),
        Fixed64(u64),
        Fixed32(u32),
    }

    fn varint(b: &[u8], pos: &mut usize) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let byte = b[*pos];
            *pos += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return v;
            }
            shift += 7;
        }
    }

    /// All fields of a message, in order.
    pub fn fields(b: &[u8]) -> Vec<(u32, Field<'_>)> {
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < b.len() {
            let key = varint(b, &mut pos);
            let (num, wire) = ((key >> 3) as u32, key & 7);
            let f = match wire {
                0 => Field::Varint(varint(b, &mut pos)),
                1 => {
                    let v = u64::from_le_bytes(b[pos..pos + 8].try_into().unwrap());
                    pos += 8;
                    Field::Fixed64(v)
                }
                2 => {
                    let n = varint(b, &mut pos) as usize;
                    let s = &b[pos..pos + n];
                    pos += n;
                    Field::Bytes(s)
                }
                5 => {
                    let v = u32::from_le_bytes(b[pos..pos + 4].try_into().unwrap());
                    pos += 4;
                    Field::Fixed32(v)
                }
                w => panic!("unsupported wire type {w}"),
            };
            out.push((num, f));
        }
        out
    }

    /// Varints of a (packed or repeated) field.
    pub fn ints(fs: &[(u32, Field<'_>)], num: u32) -> Vec<i64> {
        let mut out = Vec::new();
        for (n, f) in fs {
            if *n != num {
                continue;
            }
            match f {
                Field::Varint(v) => out.push(*v as i64),
                Field::Bytes(b) => {
                    let mut pos = 0;
                    while pos < b.len() {
                        out.push(varint(b, &mut pos) as i64);
                    }
                }
                _ => panic!("field {num} is not an integer"),
            }
        }
        out
    }

    /// The first length-delimited field `num`.
    pub fn bytes<'a>(fs: &[(u32, Field<'a>)], num: u32) -> Option<&'a [u8]> {
        fs.iter().find_map(|(n, f)| match f {
            Field::Bytes(b) if *n == num => Some(*b),
            _ => None,
        })
    }

    /// Every length-delimited field `num`.
    pub fn all_bytes<'a>(fs: &[(u32, Field<'a>)], num: u32) -> Vec<&'a [u8]> {
        fs.iter()
            .filter_map(|(n, f)| match f {
                Field::Bytes(b) if *n == num => Some(*b),
                _ => None,
            })
            .collect()
    }

    /// A TensorProto as an ndpad tensor (raw_data or the typed repeated fields).
    pub fn tensor(b: &[u8]) -> ndpad::Tensor {
        use ndpad::{DType, Tensor};
        let fs = fields(b);
        let dims: Vec<usize> = ints(&fs, 1).into_iter().map(|d| d as usize).collect();
        let dtype = DType::from_onnx_code(ints(&fs, 2)[0] as i32).unwrap();
        if let Some(raw) = bytes(&fs, 9) {
            return Tensor::from_bytes(dtype, &dims, raw.to_vec()).unwrap();
        }
        let mut raw = Vec::new();
        match dtype {
            DType::Float32 => {
                for (n, f) in &fs {
                    match (n, f) {
                        (4, Field::Bytes(b)) => raw.extend_from_slice(b),
                        (4, Field::Fixed32(v)) => raw.extend_from_slice(&v.to_le_bytes()),
                        _ => {}
                    }
                }
            }
            DType::Int64 => {
                for v in ints(&fs, 7) {
                    raw.extend_from_slice(&v.to_le_bytes());
                }
            }
            DType::Int32 => {
                for v in ints(&fs, 5) {
                    raw.extend_from_slice(&(v as i32).to_le_bytes());
                }
            }
            d => panic!("typed field decoding of {d} not supported"),
        }
        Tensor::from_bytes(dtype, &dims, raw).unwrap()
    }

    /// The opset of the default domain and the first node's string attributes.
    pub fn model(b: &[u8]) -> (i64, Vec<(String, String)>) {
        let fs = fields(b);
        let mut opset = 0;
        for imp in all_bytes(&fs, 8) {
            let f = fields(imp);
            let domain = bytes(&f, 1).unwrap_or(b"");
            if domain.is_empty() || domain == b"ai.onnx" {
                opset = ints(&f, 2)[0];
            }
        }
        let graph = fields(bytes(&fs, 7).unwrap());
        let node = fields(bytes(&graph, 1).unwrap());
        let attrs = all_bytes(&node, 5)
            .into_iter()
            .filter_map(|a| {
                let f = fields(a);
                let name = String::from_utf8(bytes(&f, 1)?.to_vec()).ok()?;
                let s = String::from_utf8(bytes(&f, 4)?.to_vec()).ok()?;
                Some((name, s))
            })
            .collect();
        (opset, attrs)
    }
}
