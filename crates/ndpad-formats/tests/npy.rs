//! .npy reading and writing: every type, every error path (asserting the message),
//! memory mapping, and round-trip properties.

use ndpad::{DType, Layout, Tensor};
use ndpad_formats::npy::{parse_npy_header, read_npy, read_npy_as, write_npy, NpyBoxes, NpyFile};
use ndpad_formats::FormatError;
use proptest::prelude::*;

/// A version 1.0 file with header `dict` (padded as numpy pads it) and `data`.
fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    out.extend(((total - 10) as u16).to_le_bytes());
    out.extend(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out.extend(data);
    out
}

fn dict(descr: &str, fortran: bool, shape: &str) -> String {
    let f = if fortran { "True" } else { "False" };
    format!("{{'descr': '{descr}', 'fortran_order': {f}, 'shape': {shape}, }}")
}

fn err(bytes: &[u8]) -> String {
    read_npy(bytes).unwrap_err().to_string()
}

fn assert_err(bytes: &[u8], words: &[&str]) {
    let e = err(bytes);
    for w in words {
        assert!(e.contains(w), "{e:?} lacks {w:?}");
    }
}

#[test]
fn magic_version_and_lengths() {
    assert_err(b"", &["not a .npy file: the input is empty"]);
    assert_err(b"PK\x03\x04", &["not a .npy file", "PK\\x03\\x04"]);
    assert_err(
        b"\x93NUMPY",
        &["truncated", "magic string and version", "8 bytes"],
    );
    assert_err(b"\x93NUMPY\x09\x00\x00\x00", &["version 9.0"]);
    assert_err(b"\x93NUMPY\x01\x01\x00\x00", &["version 1.1"]);
    assert_err(
        b"\x93NUMPY\x01\x00\x05",
        &["header length field", "needs 10 bytes"],
    );
    assert_err(
        b"\x93NUMPY\x02\x00\x05\x00",
        &["header length field", "needs 12 bytes"],
    );
    assert_err(
        b"\x93NUMPY\x02\x00\x00\x00\x10\x00",
        &["header length 1048576 exceeds the limit of 65536"],
    );
    assert_err(
        b"\x93NUMPY\x01\x00\x40\x00{'descr'",
        &["truncated", "header needs 74 bytes", "only 18"],
    );
    let mut v3 = b"\x93NUMPY\x03\x00\x04\x00\x00\x00{\xff}\n".to_vec();
    assert_err(&v3, &["version 3.0 header must be UTF-8"]);
    v3[13] = b' ';
    assert_err(&v3, &["malformed .npy header", "'descr' is missing"]);
    let mut no_nl = npy(&dict("<f4", false, "()"), &[0; 4]);
    no_nl[127] = b' ';
    assert_err(&no_nl, &["does not end with a newline"]);
}

#[test]
fn header_dictionary_errors() {
    let cases: &[(&str, &str)] = &[
        ("[1, 2]", "expected '{' at character 0 but found '['"),
        (
            "{'descr': '<f4', 'shape': (2,), }",
            "'fortran_order' is missing",
        ),
        (
            "{'fortran_order': False, 'shape': (2,), }",
            "'descr' is missing",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False}",
            "'shape' is missing",
        ),
        (
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (), }",
            "key \"descr\" appears twice",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}",
            "unexpected key \"x\"",
        ),
        (
            "{'descr': 4, 'fortran_order': False, 'shape': ()}",
            "'descr' must be a string",
        ),
        (
            "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}",
            "'fortran_order' must be True or False",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
            "'shape' must be a tuple",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': ('a',)}",
            "'shape' entry 0 is not an integer",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, -3)}",
            "'shape' entry 1 is negative (-3)",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
            "does not fit in 64 bits",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': ((((((((((1,),),),),),),),),),)}",
            "nest deeper than 8",
        ),
        ("{'descr' '<f4'}", "expected ':' at character 9"),
        (
            "{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}",
            "unexpected word \"Maybe\"",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x",
            "unexpected text after the dictionary",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1 2)}",
            "expected ',' or ')'",
        ),
        ("{1: 2}", "dictionary keys must be strings"),
        ("{'descr': '<f4' 'x'}", "expected ',' or '}'"),
        (
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}",
            "structured (record) dtypes are not supported",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-,)}",
            "expected digits after '-'",
        ),
        ("{'descr': 'abc", "is not closed"),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1",
            "'(' is not closed",
        ),
        ("{'descr': '<f4'", "the dictionary is not closed"),
        ("{'descr': ", "ended where a value was expected"),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': @}",
            "unexpected '@'",
        ),
    ];
    for (d, want) in cases {
        let e = err(&npy(d, &[]));
        assert!(e.contains(want), "{d}: {e:?} lacks {want:?}");
    }
    let many = format!("({})", vec!["1"; 65].join(", "));
    assert_err(
        &npy(&dict("<f4", false, &many), &[0; 4]),
        &["65 dimensions", "limit of 64"],
    );
    // Python 2 longs, double quotes and escapes are accepted.
    let ok = npy(
        "{\"descr\": '<i2', 'fortran_order': False, 'shape': (2L, 1L), }",
        &[1, 0, 2, 0],
    );
    assert_eq!(read_npy(&ok).unwrap().to_vec::<i16>().unwrap(), vec![1, 2]);
    let esc = npy(
        "{'de\\scr': '<i2', 'fortran_order': False, 'shape': (), }",
        &[1, 0],
    );
    assert_eq!(read_npy(&esc).unwrap().shape(), &[] as &[usize]);
}

#[test]
fn descr_errors() {
    let cases: &[(&str, &str)] = &[
        ("=f4", "byte order '=' (native)"),
        ("f4", "expected a byte order"),
        ("<", "missing the type code"),
        ("<f", "the item size \"\" is not a number"),
        ("<f4x", "the item size \"4x\" is not a number"),
        ("<f16", "ndpad reads bool, integers"),
        ("<M8", "datetime64 arrays are not supported"),
        ("<m8[ns]", "timedelta64 arrays are not supported"),
        ("|O", "object (pickled) arrays are not supported"),
        ("|S0", "strings of width 0"),
        ("<U0", "strings of width 0"),
        (
            "|V3",
            "raw data of 3 bytes per element matches no ndpad type",
        ),
        (
            "|V2",
            "raw dtype |V2, which does not name its element type: the caller must give one of bfloat16, float16, int16, uint16",
        ),
        (
            "|V1",
            "raw dtype |V1, which does not name its element type: the caller must give one of float8e4m3fn, float8e4m3fnuz, float8e5m2",
        ),
    ];
    for (descr, want) in cases {
        let e = err(&npy(&dict(descr, false, "(1,)"), &[0; 8]));
        assert!(e.contains(want), "{descr}: {e:?} lacks {want:?}");
        // A library message names no CLI flag.
        assert!(!e.contains("--dtype"), "{descr}: {e:?}");
    }
    let v2 = npy(&dict("<V2", false, "(1,)"), &[0; 2]);
    let e = read_npy_as(&v2, Some(DType::Int4)).unwrap_err().to_string();
    assert!(
        e.contains(
            "the element type int4 is not accepted for the .npy dtype <V2: 2 bytes per element can hold bfloat16"
        ),
        "{e}"
    );
    assert!(!e.contains("--dtype"), "{e}");
    let f4 = npy(&dict("<f4", false, "(1,)"), &[0; 4]);
    let e = read_npy_as(&f4, Some(DType::Int32))
        .unwrap_err()
        .to_string();
    assert!(e.contains("the file holds float32 values"), "{e}");
    assert!(read_npy_as(&f4, Some(DType::Float32)).is_ok());
    let s = npy(&dict("|S2", false, "(1,)"), b"ab");
    let e = read_npy_as(&s, Some(DType::Uint8)).unwrap_err().to_string();
    assert!(e.contains("the file holds strings"), "{e}");
    assert!(matches!(
        read_npy_as(&s, Some(DType::String)),
        Ok(t) if t.strings().unwrap() == ["ab"]
    ));
}

#[test]
fn data_length_is_checked_before_allocating() {
    let d = dict("<f4", false, "(1000000, 1000000000)");
    let start = std::time::Instant::now();
    let e = err(&npy(&d, &[0; 16]));
    assert!(start.elapsed().as_millis() < 50);
    assert!(
        e.contains("shape [1000000, 1000000000] of <f4 needs 4000000000000000 bytes of data but 16 bytes follow the 128-byte header (file size 144 bytes)"),
        "{e}"
    );
    let too_long = npy(&dict("<i2", false, "(2,)"), &[0; 6]);
    assert!(err(&too_long).contains("needs 4 bytes of data but 6 bytes follow"));
    // Products past 2^128 saturate instead of overflowing.
    let big = format!("({})", ["18446744073709551615"; 3].join(", "));
    assert!(err(&npy(&dict("<f8", false, &big), &[]))
        .contains("needs 340282366920938463463374607431768211455 bytes"));
    // Zero-size tensors need no data.
    let empty = read_npy(&npy(&dict("<f8", false, "(0, 1000000000000)"), &[])).unwrap();
    assert_eq!(empty.shape(), &[0, 1_000_000_000_000]);
}

#[test]
fn element_errors_name_the_index() {
    assert_err(
        &npy(&dict("|b1", false, "(3,)"), &[1, 0, 2]),
        &["element 2: bool byte 2 is neither 0 nor 1"],
    );
    assert_err(
        &npy(&dict("|S2", false, "(2,)"), b"ok\xff\x00"),
        &["element 1: the byte string is not valid UTF-8"],
    );
    let mut u = Vec::new();
    u.extend(0x41u32.to_le_bytes());
    u.extend(0xD800u32.to_le_bytes());
    assert_err(
        &npy(&dict("<U1", false, "(2,)"), &u),
        &["element 1: 0xd800 is not a unicode code point"],
    );
    let int4 = npy(&dict("|V1", false, "(3,)"), &[0x07, 0xF8, 0x1F]);
    let e = read_npy_as(&int4, Some(DType::Int4))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("element 2: byte 0x1f is not a int4 value"),
        "{e}"
    );
    let uint4 = npy(&dict("|V1", false, "(2,)"), &[0x07, 0xF8]);
    let e = read_npy_as(&uint4, Some(DType::Uint4))
        .unwrap_err()
        .to_string();
    assert!(e.contains("element 1: byte 0xf8"), "{e}");
    // Sign-extended and masked int4 bytes both read.
    let ok = npy(&dict("|V1", false, "(3,)"), &[0x07, 0xF8, 0x08]);
    let t = read_npy_as(&ok, Some(DType::Int4)).unwrap();
    assert_eq!(t.bytes().unwrap(), &[0x87, 0x08]);
    let t = read_npy_as(
        &npy(&dict("|V1", false, "(5,)"), &[3, 2, 1, 0, 3]),
        Some(DType::Uint2),
    )
    .unwrap();
    assert_eq!(t.bytes().unwrap(), &[0b0001_1011, 0b11]);
}

#[test]
fn strings_and_orders() {
    // Fortran order, 2x3: memory holds columns.
    let t = read_npy(&npy(
        &dict("<i2", true, "(2, 3)"),
        &[1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6, 0],
    ))
    .unwrap();
    assert_eq!(t.to_vec::<i16>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
    let t = read_npy(&npy(&dict("|S1", true, "(2, 2)"), b"acbd")).unwrap();
    assert_eq!(t.strings().unwrap(), ["a", "b", "c", "d"]);
    // Big-endian complex swaps each half.
    let mut be = Vec::new();
    be.extend(1.5f32.to_be_bytes());
    be.extend((-2.0f32).to_be_bytes());
    let t = read_npy(&npy(&dict(">c8", false, "(1,)"), &be)).unwrap();
    let mut le = 1.5f32.to_le_bytes().to_vec();
    le.extend((-2.0f32).to_le_bytes());
    assert_eq!(t.bytes().unwrap(), le.as_slice());
    // Big-endian bfloat16 through an explicit type.
    let t = read_npy_as(
        &npy(&dict(">V2", false, "(1,)"), &[0x3f, 0x80]),
        Some(DType::BFloat16),
    )
    .unwrap();
    assert_eq!(t.bytes().unwrap(), &[0x80, 0x3f]);
    // Writing picks S for ASCII and U otherwise; interior NULs survive.
    let ascii = Tensor::from_strings(&[2], vec!["a\0b", ""]).unwrap();
    let bytes = write_npy(&ascii.view()).unwrap();
    assert_eq!(parse_npy_header(&bytes).unwrap().descr, "|S3");
    assert_eq!(read_npy(&bytes).unwrap(), ascii);
    let uni = Tensor::from_strings(&[2], vec!["日本", "abc"]).unwrap();
    let bytes = write_npy(&uni.view()).unwrap();
    assert_eq!(parse_npy_header(&bytes).unwrap().descr, "<U3");
    assert_eq!(read_npy(&bytes).unwrap(), uni);
    let empty = Tensor::from_strings(&[0], ndpad::Strings::new()).unwrap();
    let bytes = write_npy(&empty.view()).unwrap();
    assert_eq!(parse_npy_header(&bytes).unwrap().descr, "|S1");
    let nul = Tensor::from_strings(&[2], vec!["a", "b\0"]).unwrap();
    let e = write_npy(&nul.view()).unwrap_err();
    assert!(matches!(e, FormatError::Element { index: 1, .. }), "{e}");
    assert!(e.to_string().contains("ends with NUL"));
}

#[test]
fn written_descrs() {
    let want = [
        (DType::Bool, "|b1"),
        (DType::Int8, "|i1"),
        (DType::Int16, "<i2"),
        (DType::Int32, "<i4"),
        (DType::Int64, "<i8"),
        (DType::Uint8, "|u1"),
        (DType::Uint16, "<u2"),
        (DType::Uint32, "<u4"),
        (DType::Uint64, "<u8"),
        (DType::Float16, "<f2"),
        (DType::BFloat16, "<V2"),
        (DType::Float32, "<f4"),
        (DType::Float64, "<f8"),
        (DType::Complex64, "<c8"),
        (DType::Complex128, "<c16"),
        (DType::Float8E4M3FN, "<V1"),
        (DType::Float8E8M0, "<V1"),
        (DType::Int4, "<V1"),
        (DType::Uint2, "<V1"),
    ];
    for (d, descr) in want {
        let n = 3;
        let t = Tensor::from_bytes(d, &[n], vec![0; d.byte_len(n).unwrap()]).unwrap();
        let bytes = write_npy(&t.view()).unwrap();
        let h = parse_npy_header(&bytes).unwrap();
        assert_eq!(
            (h.descr.as_str(), h.version, h.data_offset % 64),
            (descr, (1, 0), 0),
            "{d}"
        );
        // Packed types are written one element per byte, as ml_dtypes does.
        assert_eq!(
            bytes.len() - h.data_offset,
            if descr == "<V1" {
                n
            } else {
                d.byte_len(n).unwrap()
            }
        );
    }
    // A shape the reader would refuse (too many dimensions) is not written.
    let shape = vec![1usize; 25000];
    let t = Tensor::from_bytes(DType::Uint8, &shape, vec![0]).unwrap();
    let e = write_npy(&t.view()).unwrap_err().to_string();
    assert!(
        e.contains("25000 dimensions, more than the limit of 64"),
        "{e}"
    );
}

#[test]
fn files_are_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let n = 40_000usize;
    let values: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let t = Tensor::from_slice(&[200, 200], &values).unwrap();
    let path = dir.path().join("big.npy");
    std::fs::write(&path, write_npy(&t.view()).unwrap()).unwrap();
    let f = NpyFile::open(&path).unwrap();
    assert_eq!(
        (f.dtype(), f.shape()),
        (DType::Float32, &[200usize, 200][..])
    );
    assert!(matches!(f.view().data(), ndpad::Data::Bytes(b) if b == t.bytes().unwrap()));

    // Big-endian and Fortran data are converted.
    let mut be = Vec::new();
    for v in &values {
        be.extend(v.to_be_bytes());
    }
    let path = dir.path().join("be.npy");
    std::fs::write(&path, npy(&dict(">f4", false, "(200, 200)"), &be)).unwrap();
    let f = NpyFile::open(&path).unwrap();
    assert_eq!(f.into_tensor(), t);

    // Big-endian one-byte raw elements need no conversion.
    let raw: Vec<u8> = (0..70_000u32).map(|i| i as u8).collect();
    let path = dir.path().join("v1.npy");
    std::fs::write(&path, npy(&dict(">V1", false, "(70000,)"), &raw)).unwrap();
    let f = NpyFile::open_as(&path, Some(DType::Float8E4M3FN)).unwrap();
    assert!(matches!(f.view().data(), ndpad::Data::Bytes(b) if b == raw.as_slice()));

    // More dimensions than a reader accepts are refused on write.
    let deep = Tensor::from_slice(&[1; 65], &[1u8]).unwrap();
    let e = write_npy(&deep.view()).unwrap_err().to_string();
    assert!(
        e.contains("65 dimensions, more than the limit of 64"),
        "{e}"
    );

    // A mapped bool file is still checked.
    let mut bools = vec![1u8; 70_000];
    bools[69_999] = 7;
    let path = dir.path().join("bool.npy");
    std::fs::write(&path, npy(&dict("|b1", false, "(70000,)"), &bools)).unwrap();
    let e = NpyFile::open(&path).unwrap_err().to_string();
    assert!(e.contains("element 69999: bool byte 7"), "{e}");

    // A lying header on disk fails at once.
    let path = dir.path().join("huge.npy");
    let mut lie = npy(&dict("<f8", false, "(1000000000000000,)"), &[]);
    lie.resize(100_000, 0);
    std::fs::write(&path, &lie).unwrap();
    let e = NpyFile::open(&path).unwrap_err().to_string();
    assert!(
        e.contains("[1000000000000000]") && e.contains("file size 100000 bytes"),
        "{e}"
    );

    let e = NpyFile::open(dir.path().join("missing.npy")).unwrap_err();
    assert!(matches!(e, FormatError::Io { .. }));
    assert!(e.to_string().contains("missing.npy"));
}

/// A tensor of `dtype` with arbitrary valid contents.
fn arb_tensor(dtype: DType) -> impl Strategy<Value = Tensor> {
    proptest::collection::vec(0usize..4, 0..4).prop_flat_map(move |shape| {
        let n: usize = shape.iter().product();
        let strings = proptest::collection::vec("[a-zé日\\x00 ]{0,4}[a-z]?", n);
        let bytes = proptest::collection::vec(any::<u8>(), dtype.byte_len(n).unwrap());
        (Just(shape), strings, bytes).prop_map(move |(shape, strings, mut bytes)| {
            if dtype == DType::String {
                let strings: Vec<String> = strings
                    .into_iter()
                    .map(|s| s.trim_end_matches('\0').to_string())
                    .collect();
                return Tensor::from_strings(&shape, strings).unwrap();
            }
            if dtype == DType::Bool {
                bytes.iter_mut().for_each(|b| *b &= 1);
            }
            if let Layout::Packed(bits) = dtype.layout() {
                let per = (8 / bits) as usize;
                let used = (n % per) as u32 * bits;
                if used != 0 {
                    *bytes.last_mut().unwrap() &= (1u8 << used) - 1;
                }
            }
            Tensor::from_bytes(dtype, &shape, bytes).unwrap()
        })
    })
}

fn explicit(dtype: DType) -> Option<DType> {
    use DType::*;
    match dtype {
        BFloat16 | Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0
        | Int4 | Uint4 | Float4E2M1 | Int2 | Uint2 => Some(dtype),
        _ => None,
    }
}

proptest! {
    #[test]
    fn round_trip_every_type(t in proptest::sample::select(DType::ALL.to_vec()).prop_flat_map(arb_tensor)) {
        let bytes = write_npy(&t.view()).unwrap();
        let back = read_npy_as(&bytes, explicit(t.dtype())).unwrap();
        prop_assert_eq!(back, t);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = read_npy(&data);
        let mut file = npy(&dict("<f4", false, "(2,)"), &[]);
        file.extend(&data);
        let _ = read_npy(&file);
    }

    #[test]
    fn corrupted_files_never_panic(pos in 0usize..200, byte in any::<u8>(), d in proptest::sample::select(vec!["<U2", "|b1", ">c16", "|V1", "<f4"])) {
        let mut file = npy(&dict(d, true, "(2, 3)"), &[0; 96]);
        if let Some(b) = file.get_mut(pos) {
            *b = byte;
        }
        let _ = read_npy(&file);
        let _ = read_npy_as(&file, Some(DType::Int4));
    }
}

#[test]
fn string_kinds_are_kept_and_datetimes_refused() {
    use ndpad_formats::npy::{write_npy_strings_to, NpyStrings, StringKind};
    let t = Tensor::from_strings(&[2], vec!["ab", "c"]).unwrap();
    for (kind, width, descr) in [
        (StringKind::Unicode, 1, "<U2"),
        (StringKind::Unicode, 7, "<U7"),
        (StringKind::Bytes, 3, "|S3"),
    ] {
        let mut out = Vec::new();
        let style = Some(NpyStrings { kind, width });
        write_npy_strings_to(&mut out, &t.view(), style).unwrap();
        // What the CLI checks against its output limit is what is written.
        assert_eq!(
            ndpad_formats::npy::npy_len(&t.view(), style).unwrap(),
            out.len() as u128
        );
        let h = parse_npy_header(&out).unwrap();
        assert_eq!(h.descr, descr);
        let st = h.strings().unwrap();
        assert_eq!(st.kind, kind);
        assert_eq!(
            st.width,
            width.max(if kind == StringKind::Unicode { 2 } else { 3 })
        );
        assert_eq!(ndpad_formats::npy::read_npy(&out).unwrap(), t);
    }
    for (code, name) in [("M8[D]", "datetime64"), ("m8[s]", "timedelta64")] {
        let dict = format!("{{'descr': '<{code}', 'fortran_order': False, 'shape': (1,), }}");
        let file = npy(&dict, &[0u8; 8]);
        let e = ndpad_formats::npy::read_npy(&file).unwrap_err().to_string();
        assert!(
            e.contains(&format!("{name} arrays are not supported")) && !e.contains("item size"),
            "{e}"
        );
    }
}

#[test]
fn only_regular_files_are_read_and_changes_are_errors() {
    use ndpad_formats::{read_exact_named, read_regular};
    use std::path::Path;
    // Devices and directories are refused before any read (a FIFO likewise: the CLI's
    // tests make one).
    for (path, kind) in [("/dev/zero", "a character device"), ("/", "a directory")] {
        for e in [
            NpyFile::open(path).unwrap_err(),
            read_regular(Path::new(path)).unwrap_err(),
        ] {
            assert_eq!(
                e.to_string(),
                format!("{path}: is {kind}, not a regular file")
            );
        }
    }
    // A file shorter than its size when opened (truncated while being read).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.npy");
    let mut buf = [0u8; 10];
    let e = read_exact_named(&mut &[1u8, 2, 3][..], &path, &mut buf, 100, 110).unwrap_err();
    assert!(matches!(
        e,
        FormatError::Changed {
            at: 103,
            size: 110,
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        format!(
            "{}: the file changed while being read: it ended at byte 103, its size when \
             opened was 110 bytes",
            path.display()
        )
    );
    // The NpyBoxes reader names the file when its data is shorter than the header says.
    let t = Tensor::from_slice(&[300, 300], &vec![1.5f32; 90_000]).unwrap();
    std::fs::write(&path, write_npy(&t.view()).unwrap()).unwrap();
    let boxes = NpyBoxes::open_as(&path, None).unwrap().unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(1000)
        .unwrap();
    let e = boxes.read_box(&[200..300, 0..300]).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: the file changed while being read",
            path.display()
        )),
        "{e}"
    );
}
