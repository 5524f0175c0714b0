//! `ndpad info`: what a tensor file holds (or what a model is made of).

use std::io::Write;
use std::path::Path;

use ndpad::{numel, TensorView};
use ndpad_formats::onnx::{read_model, AttributeValue, Model, ValueInfo};

use crate::args::InfoCmd;
use crate::failure::{CmdResult, Failure};
use crate::tensor_io::{data_bytes, file_error, io_text, read_tensor_file, Loaded};

/// Most elements `--values` prints.
const MAX_VALUES: usize = 10_000;

/// Writes lines to stdout; a closed stdout is an error, never a panic.
pub fn print_lines(lines: &[String]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    for l in lines {
        writeln!(out, "{l}")
            .map_err(|e| Failure::rejected(format!("writing to stdout: {}", io_text(&e))))?;
    }
    out.flush()
        .map_err(|e| Failure::rejected(format!("writing to stdout: {}", io_text(&e))))
}

/// `ndpad info`.
pub fn info(cmd: &InfoCmd) -> CmdResult {
    let is_model = cmd
        .path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"));
    if is_model {
        let lines = model_info(&cmd.path, cmd.values)?;
        print_lines(&lines)?;
        return Ok(0);
    }
    let loaded = read_tensor_file(&cmd.path, cmd.dtype)?;
    let view = loaded.view();
    let mut lines = vec![format!("path: {}", cmd.path.display())];
    lines.push(match &loaded {
        Loaded::Npy(f) => {
            let h = f.header();
            format!(
                "format: npy {}.{}, descr {:?}, {} order",
                h.version.0,
                h.version.1,
                h.descr,
                if h.fortran_order { "Fortran" } else { "C" },
            )
        }
        Loaded::Piped(_, h) => format!(
            "format: npy {}.{}, descr {:?}, {} order, from standard input",
            h.version.0,
            h.version.1,
            h.descr,
            if h.fortran_order { "Fortran" } else { "C" },
        ),
        Loaded::Owned(_, name) => format!("format: ONNX TensorProto, name {name:?}"),
    });
    // numpy's name for a .npy file, ndpad's otherwise; ONNX's beside it where they differ.
    let name = match loaded.npy_header() {
        Some(h) => numpy_name(view.dtype(), h),
        None => view.dtype().name().to_string(),
    };
    let onnx = view.dtype().onnx_name();
    lines.push(if name == onnx {
        format!("dtype: {name}")
    } else {
        format!("dtype: {name} (ONNX: {onnx})")
    });
    lines.push(format!("shape: {:?}", view.shape()));
    let n = numel(view.shape()).unwrap_or(usize::MAX);
    lines.push(format!("elements: {n}"));
    let unit = if view.dtype() == ndpad::DType::String {
        " (of text)"
    } else {
        ""
    };
    lines.push(format!("bytes: {}{unit}", data_bytes(&view)));
    if cmd.values {
        if n > MAX_VALUES {
            lines.push(format!(
                "values: {n} elements, more than the {MAX_VALUES} --values prints"
            ));
        } else {
            lines.push("values:".into());
            lines.push(format_values(&view));
        }
    }
    print_lines(&lines)?;
    Ok(0)
}

/// numpy's name of a `.npy` file's dtype (`float32`, `str160` for `<U5`, `bytes24`
/// for `|S3`; ml_dtypes' names for the types numpy stores raw).
pub fn numpy_name(dtype: ndpad::DType, header: &ndpad_formats::npy::NpyHeader) -> String {
    use ndpad::DType::*;
    use ndpad_formats::npy::StringKind;
    if let Some(st) = header.strings() {
        return match st.kind {
            StringKind::Unicode => format!("str{}", st.width * 32),
            StringKind::Bytes => format!("bytes{}", st.width * 8),
        };
    }
    match dtype {
        Float8E4M3FN => "float8_e4m3fn",
        Float8E4M3FNUZ => "float8_e4m3fnuz",
        Float8E5M2 => "float8_e5m2",
        Float8E5M2FNUZ => "float8_e5m2fnuz",
        Float8E8M0 => "float8_e8m0fnu",
        Float4E2M1 => "float4_e2m1fn",
        other => other.name(),
    }
    .to_string()
}

/// The most characters an element shows in a listing: longer text (a long string)
/// is cut to its first ones and `...`.
const ITEM_CHARS: usize = 64;

/// The values in numpy's nested-bracket layout, right-aligned.
pub fn format_values(view: &TensorView<'_>) -> String {
    let n = numel(view.shape()).unwrap_or(0);
    let cut = |s: String| match s.char_indices().nth(ITEM_CHARS) {
        Some(_) => s
            .chars()
            .take(ITEM_CHARS - 3)
            .chain("...".chars())
            .collect(),
        None => s,
    };
    let items: Vec<String> = (0..n)
        .map(|i| {
            view.scalar_at(i)
                .map_or("?".into(), |s| cut(element_text(&s)))
        })
        .collect();
    let width = items.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    let items: Vec<String> = items.into_iter().map(|s| format!("{s:>width$}")).collect();
    if view.shape().is_empty() {
        return items.first().cloned().unwrap_or_default();
    }
    if items.is_empty() {
        // As numpy prints any empty array (and without walking a huge outer extent).
        return "[]".into();
    }
    nested(view.shape(), &items, 0)
}

/// One element as text: floats in Rust's shortest round-trip form (`1.5`, `-0.0`,
/// `3.4028235e38`, `NaN`, `inf`), strings quoted, complex values as `(re, im)`,
/// everything else as the core prints it.
pub fn element_text(s: &ndpad::Scalar) -> String {
    use ndpad::DType::*;
    match (s.dtype(), s.to_f64()) {
        (Float32, Some(x)) => format!("{:?}", x as f32),
        (Float64 | Float16 | BFloat16, Some(x)) => format!("{x:?}"),
        (Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0, Some(x)) => {
            format!("{x:?}")
        }
        (Float4E2M1, Some(x)) => format!("{x:?}"),
        (String, _) => format!("{:?}", s.as_str().unwrap_or_default()),
        (Complex64 | Complex128, _) => {
            let text = s.to_string();
            let (re, im) = text.split_once(',').unwrap_or((&text, "0"));
            format!("({re}, {im})")
        }
        _ => s.to_string(),
    }
}

fn nested(shape: &[usize], items: &[String], depth: usize) -> String {
    let Some((&first, rest)) = shape.split_first() else {
        return items.first().cloned().unwrap_or_default();
    };
    if rest.is_empty() {
        return format!("[{}]", items.join(" "));
    }
    let block = rest.iter().product::<usize>();
    let parts: Vec<String> = (0..first)
        .map(|i| {
            let slice = items.get(i * block..(i + 1) * block).unwrap_or(&[]);
            nested(rest, slice, depth + 1)
        })
        .collect();
    let sep = format!("{}{}", "\n".repeat(rest.len()), " ".repeat(depth + 1));
    format!("[{}]", parts.join(&sep))
}

fn value_info_text(v: &ValueInfo) -> String {
    let dtype = v.elem_type.map_or("?".to_string(), |d| d.to_string());
    let shape = match &v.shape {
        None => "unknown rank".to_string(),
        Some(dims) => {
            let d: Vec<String> = dims.iter().map(ToString::to_string).collect();
            format!("[{}]", d.join(", "))
        }
    };
    format!("{:?}: {dtype} {shape}", v.name)
}

/// Reads a model file.
pub fn load_model(path: &Path) -> Result<Model, Failure> {
    let bytes = ndpad_formats::read_regular(path).map_err(|e| file_error(path, e))?;
    read_model(&bytes).map_err(|e| file_error(path, e))
}

/// An attribute's value as text.
fn attribute_text(v: &AttributeValue) -> String {
    let text = |b: &[u8]| format!("{:?}", String::from_utf8_lossy(b));
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    match v {
        AttributeValue::Float(x) => format!("{x:?}"),
        AttributeValue::Int(x) => x.to_string(),
        AttributeValue::String(b) => text(b),
        AttributeValue::Tensor(t) => tensor_text(&t.view()),
        AttributeValue::Floats(x) => list(x.iter().map(|v| format!("{v:?}")).collect()),
        AttributeValue::Ints(x) => list(x.iter().map(ToString::to_string).collect()),
        AttributeValue::Strings(x) => list(x.iter().map(|b| text(b)).collect()),
        AttributeValue::Tensors(x) => list(x.iter().map(|t| tensor_text(&t.view())).collect()),
    }
}

/// A tensor's type, shape and values (or how many there are, past the limit).
fn tensor_text(v: &TensorView<'_>) -> String {
    let n = numel(v.shape()).unwrap_or(usize::MAX);
    let values = if n > MAX_VALUES {
        format!("{n} elements, more than the {MAX_VALUES} --values prints")
    } else {
        format_values(v)
    };
    format!("{} {:?} {values}", v.dtype(), v.shape())
}

fn model_info(path: &Path, values: bool) -> Result<Vec<String>, Failure> {
    let m = load_model(path)?;
    let mut lines = vec![format!("path: {}", path.display())];
    lines.push(format!(
        "format: ONNX model, IR version {}, producer {:?} {:?}",
        m.ir_version, m.producer_name, m.producer_version
    ));
    let opsets: Vec<String> = m
        .opset_imports
        .iter()
        .map(|o| {
            let d = if o.domain.is_empty() {
                "ai.onnx"
            } else {
                &o.domain
            };
            format!("{d} {}", o.version)
        })
        .collect();
    lines.push(format!("opsets: {}", opsets.join(", ")));
    let inits: Vec<&str> = m
        .graph
        .initializers
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    for v in &m.graph.inputs {
        let tag = if inits.contains(&v.name.as_str()) {
            " (initializer)"
        } else {
            ""
        };
        lines.push(format!("input {}{tag}", value_info_text(v)));
    }
    for v in &m.graph.outputs {
        lines.push(format!("output {}", value_info_text(v)));
    }
    lines.push(format!("initializers: {}", inits.len()));
    if values {
        for t in &m.graph.initializers {
            lines.push(format!(
                "initializer {:?}: {}",
                t.name,
                tensor_text(&t.tensor.view())
            ));
        }
    }
    for (i, n) in m.graph.nodes.iter().enumerate() {
        // A Pad node shows its mode (the default, constant, where none is set).
        let mode = n
            .attributes
            .iter()
            .find(|a| a.name == "mode")
            .map(|a| attribute_text(&a.value));
        let mode = match (n.op_type.as_str(), mode) {
            (_, Some(m)) => format!(" mode {m}"),
            ("Pad", None) => " mode \"constant\"".to_string(),
            _ => String::new(),
        };
        lines.push(format!(
            "node {i} {:?}: {}{} ({}) -> ({}){mode}",
            n.name,
            if n.domain.is_empty() {
                String::new()
            } else {
                format!("{}.", n.domain)
            },
            n.op_type,
            n.inputs.join(", "),
            n.outputs.join(", ")
        ));
        if values {
            for a in &n.attributes {
                lines.push(format!(
                    "  attribute {}: {}",
                    a.name,
                    attribute_text(&a.value)
                ));
            }
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndpad::Tensor;

    #[test]
    fn nested_layout() {
        let t = Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 40, 5, 6]).unwrap();
        assert_eq!(format_values(&t.view()), "[[ 1  2  3]\n [40  5  6]]");
        let t = Tensor::from_slice(&[2, 1, 2], &[1u8, 2, 3, 4]).unwrap();
        assert_eq!(format_values(&t.view()), "[[[1 2]]\n\n [[3 4]]]");
        let t = Tensor::from_slice(&[], &[7i8]).unwrap();
        assert_eq!(format_values(&t.view()), "7");
        let t = Tensor::from_slice(&[0, 2], &[0f32; 0]).unwrap();
        assert_eq!(format_values(&t.view()), "[]");
    }

    /// A string longer than the formatter can pad (65535) panicked; long elements are
    /// cut to `ITEM_CHARS`.
    #[test]
    fn long_strings_are_cut() {
        let long = "é".repeat(70_000);
        let t = Tensor::from_strings(&[2], vec!["ab", long.as_str()]).unwrap();
        let cut = format!("\"{}...", "é".repeat(ITEM_CHARS - 4));
        assert_eq!(
            format_values(&t.view()),
            format!("[{:>64} {cut}]", "\"ab\"")
        );
    }
}
