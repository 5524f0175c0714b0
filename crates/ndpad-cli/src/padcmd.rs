//! `ndpad pad` and `ndpad shape`: a framework's Pad from the command line's flags.

use ndpad::{pad_with, DType, Scalar};
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::numpy::{NumpyPad, NumpyPadNode};
use ndpad_frontends::onnx::{OnnxPad, PadNode, MAX_OPSET};
use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
use ndpad_frontends::{FrontendError, PadValue, Resolved};

use crate::args::{Framework, PadArgs, PadCmd, ShapeCmd};
use crate::failure::{CmdResult, Failure};
use crate::progress::Progress;
use crate::tensor_io::{
    check_output, format_of, pad_error_text, pad_options, read_tensor_file, stem_name,
    write_tensor_file,
};

/// One framework's Pad, ready to be resolved against a shape.
pub enum Op {
    Onnx(OnnxPad, PadNode),
    OpenVino(OpenVinoPad, OvPadNode),
    Ngraph(NgPadNode),
    Numpy(NumpyPadNode),
}

impl Op {
    pub fn resolve(&self, shape: &[usize]) -> Result<Resolved, FrontendError> {
        match self {
            Op::Onnx(p, n) => p.resolve(n, shape),
            Op::OpenVino(p, n) => p.resolve(n, shape),
            Op::Ngraph(n) => NgraphPad.resolve(n, shape),
            Op::Numpy(n) => NumpyPad.resolve(n, shape),
        }
    }

    pub fn infer_shape(
        &self,
        shape: &[Option<usize>],
    ) -> Result<Vec<Option<usize>>, FrontendError> {
        match self {
            Op::Onnx(p, n) => p.infer_shape(n, shape),
            Op::OpenVino(p, n) => p.infer_shape(n, shape),
            Op::Ngraph(n) => NgraphPad.infer_shape(n, shape),
            Op::Numpy(n) => NumpyPad.infer_shape(n, shape),
        }
    }
}

/// The flags of each framework, as `(flag, is given)`.
fn given_flags(a: &PadArgs) -> [(&'static str, bool); 9] {
    [
        ("--opset", a.opset.is_some()),
        ("--pads", a.pads.is_some()),
        ("--axes", a.axes.is_some()),
        ("--pads-begin", a.pads_begin.is_some()),
        ("--pads-end", a.pads_end.is_some()),
        ("--padding-below", a.padding_below.is_some()),
        ("--padding-above", a.padding_above.is_some()),
        ("--padding-interior", a.padding_interior.is_some()),
        ("--pad-width", a.pad_width.is_some()),
    ]
}

/// Checks that the flags fit the framework: what can be told before reading a file.
pub fn check_usage(a: &PadArgs) -> Result<(), Failure> {
    let (allowed, required): (&[&str], &[&str]) = match a.framework {
        Framework::Onnx => (&["--opset", "--pads", "--axes"], &["--pads"]),
        Framework::Openvino => (
            &["--opset", "--pads-begin", "--pads-end"],
            &["--pads-begin", "--pads-end"],
        ),
        Framework::Ngraph => (
            &["--padding-below", "--padding-above", "--padding-interior"],
            &["--padding-below", "--padding-above"],
        ),
        Framework::Numpy => (&["--pad-width"], &["--pad-width"]),
    };
    let fw = a.framework.name();
    let given = given_flags(a);
    for &(flag, given) in &given {
        if given && !allowed.contains(&flag) {
            return Err(Failure::usage(format!(
                "{flag} does not apply to --framework {fw} (its flags: {})",
                allowed.join(", ")
            )));
        }
    }
    for flag in required {
        if !given.iter().any(|(f, g)| f == flag && *g) {
            return Err(Failure::usage(format!("--framework {fw} needs {flag}")));
        }
    }
    match (a.framework, a.opset) {
        // The front end's own check, reported as a usage error before any file is read.
        (Framework::Onnx, Some(o)) => OnnxPad::new(o)
            .map(|_| ())
            .map_err(|e| Failure::usage(format!("--opset {o}: {e}"))),
        (Framework::Openvino, Some(o)) if o != 1 && o != 12 => Err(Failure::usage(format!(
            "--opset {o}: OpenVINO has Pad-1 and Pad-12 (use --opset 1 or 12)"
        ))),
        _ => Ok(()),
    }
}

/// Builds the framework's node for data of type `dtype` (after [`check_usage`]).
pub fn build_op(a: &PadArgs, dtype: DType) -> Result<Op, Failure> {
    let value = match &a.value {
        Some(text) => Some(
            Scalar::parse(dtype, text).map_err(|e| Failure::rejected(format!("--value: {e}")))?,
        ),
        None => None,
    };
    let list =
        |l: &Option<crate::args::IntList>| l.as_ref().map(|l| l.0.clone()).unwrap_or_default();
    Ok(match a.framework {
        Framework::Onnx => {
            let opset = a.opset.unwrap_or(MAX_OPSET);
            let onnx = OnnxPad::new(opset).map_err(|e| Failure::usage(e.to_string()))?;
            let node = onnx.node(
                dtype,
                &a.mode,
                list(&a.pads),
                value.map(PadValue::Scalar),
                a.axes.as_ref().map(|l| l.0.clone()),
            );
            Op::Onnx(onnx, node)
        }
        Framework::Openvino => {
            let version = if a.opset == Some(1) {
                OpenVinoPad::V1
            } else {
                OpenVinoPad::V12
            };
            let mut node = OvPadNode::new(dtype, &a.mode, list(&a.pads_begin), list(&a.pads_end));
            if let Some(v) = value {
                node = node.pad_value(v);
            }
            Op::OpenVino(version, node)
        }
        Framework::Ngraph => {
            let mut node = NgPadNode::new(
                dtype,
                &a.mode,
                list(&a.padding_below),
                list(&a.padding_above),
            );
            if let Some(i) = &a.padding_interior {
                node = node.interior(i.0.clone());
            }
            if let Some(v) = value {
                node = node.pad_value(v);
            }
            Op::Ngraph(node)
        }
        Framework::Numpy => {
            let widths = a
                .pad_width
                .as_ref()
                .map(|w| w.0.clone())
                .unwrap_or_default();
            let mut node = NumpyPadNode::new(dtype, &a.mode, widths);
            if let Some(v) = value {
                node = node.constant_values(v);
            }
            Op::Numpy(node)
        }
    })
}

/// `ndpad pad`.
pub fn pad(cmd: &PadCmd) -> CmdResult {
    check_usage(&cmd.pad)?;
    format_of(&cmd.input, "input")?;
    format_of(&cmd.output, "output")?;
    check_output(&cmd.output, &[&cmd.input])?;
    let input = read_tensor_file(&cmd.input, cmd.dtype)?;
    let view = input.view();
    let op = build_op(&cmd.pad, view.dtype()).map_err(|f| Failure {
        message: format!("{}: {}", cmd.input.display(), f.message),
        ..f
    })?;
    let resolved = op
        .resolve(view.shape())
        .map_err(|e| Failure::rejected(format!("{}: {e}", cmd.input.display())))?;
    let opts = pad_options(&cmd.exec);
    let progress = Progress::spinner("padding");
    let out = pad_with(view, &resolved.spec, &opts).map_err(|e| {
        Failure::rejected(format!("{}: {}", cmd.output.display(), pad_error_text(&e)))
    })?;
    progress.set_message("writing");
    let name = input
        .name()
        .map(str::to_string)
        .unwrap_or_else(|| stem_name(&cmd.output));
    write_tensor_file(&cmd.output, &out.view(), &name)?;
    progress.finish();
    Ok(0)
}

/// Formats a shape with `?` for unknown extents.
pub fn shape_text(shape: &[Option<usize>]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
        .collect();
    format!("[{}]", dims.join(", "))
}

/// `ndpad shape`.
pub fn shape(cmd: &ShapeCmd) -> CmdResult {
    check_usage(&cmd.pad)?;
    let op = build_op(&cmd.pad, cmd.dtype)?;
    let out = op
        .infer_shape(&cmd.shape.0)
        .map_err(|e| Failure::rejected(format!("shape {}: {e}", shape_text(&cmd.shape.0))))?;
    crate::info::print_lines(&[shape_text(&out)])?;
    Ok(0)
}
