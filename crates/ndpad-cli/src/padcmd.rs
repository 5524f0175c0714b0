//! `ndpad pad` and `ndpad shape`: a framework's Pad from the command line's flags.

use ndpad::{pad_with, DType, Oversize, PadOptions};
use ndpad_formats::npy::{NpyBoxes, NpyStrings, StringKind};
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::numpy::{NumpyPad, NumpyPadNode};
use ndpad_frontends::onnx::{OnnxPad, PadNode, MAX_OPSET};
use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
use ndpad_frontends::{Dim, FrontendError, PadValue, Resolved};

use crate::args::{ByteLimit, Framework, PadArgs, PadCmd, ReflectOversize, ShapeCmd};
use crate::failure::{CmdResult, Failure};
use crate::progress::Progress;
use crate::tensor_io::{
    check_output, check_writable, file_error, format_of, is_stdio, pad_error_text, pad_options,
    read_tensor_file, stem_name, write_tensor_file, Format, Loaded,
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

    pub fn output_dims(&self, shape: &[Dim]) -> Result<Vec<Dim>, FrontendError> {
        match self {
            Op::Onnx(p, n) => p.output_dims(n, shape),
            Op::OpenVino(p, n) => p.output_dims(n, shape),
            Op::Ngraph(n) => NgraphPad.output_dims(n, shape),
            Op::Numpy(n) => NumpyPad.output_dims(n, shape),
        }
    }
}

/// Each framework's modes (as `--mode` takes them, lowercase).
const FRAMEWORK_MODES: [(Framework, &[&str]); 4] = [
    (Framework::Onnx, &["constant", "reflect", "edge", "wrap"]),
    (
        Framework::Openvino,
        &["constant", "edge", "reflect", "symmetric"],
    ),
    (
        Framework::Ngraph,
        &["constant", "edge", "reflect", "symmetric"],
    ),
    (
        Framework::Numpy,
        &["constant", "edge", "reflect", "symmetric", "wrap"],
    ),
];

/// A front end's error, with the frameworks that have the mode when the chosen one
/// lacks it.
pub fn frontend_text(e: &FrontendError, framework: Framework) -> String {
    if let FrontendError::UnsupportedMode { mode, .. } = e {
        let have: Vec<String> = FRAMEWORK_MODES
            .iter()
            .filter(|(f, modes)| {
                *f != framework && modes.iter().any(|m| m.eq_ignore_ascii_case(mode.trim()))
            })
            .map(|(f, _)| format!("--framework {}", f.name()))
            .collect();
        if !have.is_empty() {
            return format!("{e}; mode {mode:?} is in {}", have.join(", "));
        }
    }
    e.to_string()
}

/// A string constant cut to the width of a fixed-width string input (characters for
/// `U`, bytes for `S`, at a character boundary), as numpy casts `constant_values` to
/// the array's dtype.
pub fn fit_width(text: &str, strings: NpyStrings) -> String {
    match strings.kind {
        StringKind::Unicode => text.chars().take(strings.width).collect(),
        StringKind::Bytes => {
            let mut end = text.len().min(strings.width);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_string()
        }
    }
}

/// The flags of each framework, as `(flag, is given)`.
fn given_flags(a: &PadArgs) -> [(&'static str, bool); 10] {
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
        ("--reflect-oversize", a.reflect_oversize.is_some()),
    ]
}

/// Checks that the flags fit the framework: what can be told before reading a file.
pub fn check_usage(a: &PadArgs) -> Result<(), Failure> {
    let (allowed, required): (&[&str], &[&str]) = match a.framework {
        Framework::Onnx => (
            &["--opset", "--pads", "--axes", "--reflect-oversize"],
            &["--pads"],
        ),
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

/// The pad `cmd` asks for, resolved for its input of `dtype` and `shape` (`strings`:
/// a fixed-width string input's kind and width); errors name the input.
pub fn resolve_input(
    cmd: &PadCmd,
    dtype: DType,
    shape: &[usize],
    strings: Option<NpyStrings>,
) -> Result<Resolved, Failure> {
    let named = |message: String| format!("{}: {message}", cmd.input.display());
    let op = build_op(&cmd.pad, dtype, strings).map_err(|f| Failure {
        message: named(f.message.clone()),
        ..f
    })?;
    op.resolve(shape)
        .map_err(|e| Failure::rejected(named(frontend_text(&e, cmd.pad.framework))))
}

/// Builds the framework's node for data of type `dtype` (after [`check_usage`]);
/// `strings` is the kind and width of a fixed-width string input, to which numpy cuts
/// a longer `--value`.
pub fn build_op(a: &PadArgs, dtype: DType, strings: Option<NpyStrings>) -> Result<Op, Failure> {
    // The front end reads the text as a value of the data's type (the rule and the
    // message the Python package's framework functions share).
    let value = a.value.as_ref().map(|text| {
        PadValue::Text(match strings {
            Some(st) if a.framework == Framework::Numpy => fit_width(text, st),
            _ => text.clone(),
        })
    });
    let list =
        |l: &Option<crate::args::IntList>| l.as_ref().map(|l| l.0.clone()).unwrap_or_default();
    Ok(match a.framework {
        Framework::Onnx => {
            let opset = a.opset.unwrap_or(MAX_OPSET);
            let oversize = match a.reflect_oversize {
                Some(ReflectOversize::Error) => Oversize::Error,
                Some(ReflectOversize::Repeat) | None => Oversize::Repeat,
            };
            let onnx = OnnxPad::new(opset)
                .map_err(|e| Failure::usage(e.to_string()))?
                .with_reflect_oversize(oversize);
            let node = onnx.node(
                dtype,
                &a.mode,
                list(&a.pads),
                value,
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
    let formats = (
        format_of(&cmd.input, "input")?,
        format_of(&cmd.output, "output")?,
    );
    match formats {
        (Format::Zarr, Format::Zarr) => return crate::zarr::pad(cmd),
        (_, Format::Zarr) => return crate::zarr::pad_to_zarr(cmd),
        _ => {}
    }
    if cmd.chunks.is_some() {
        return Err(Failure::usage(
            "--chunks applies to a .zarr output (its chunk shape)",
        ));
    }
    check_output(&cmd.output, &[&cmd.input])?;
    if let Some(code) = pad_by_windows(cmd)? {
        return Ok(code);
    }
    let input = if formats.0 == Format::Zarr {
        // A zarr array read whole into memory, then padded as a .npy input is.
        Loaded::Owned(crate::zarr::read_whole(cmd)?, String::new())
    } else {
        read_tensor_file(&cmd.input, cmd.dtype)?
    };
    let view = input.view();
    let strings = input.npy_strings();
    let resolved = resolve_input(cmd, view.dtype(), view.shape(), strings)?;
    check_writable(&cmd.output)?;
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
    // A zarr array's strings are text (numpy's `U`), however they are spelled.
    let style = match (formats.0, strings) {
        (Format::Zarr, None) => Some(NpyStrings {
            kind: StringKind::Unicode,
            width: 1,
        }),
        (_, style) => style,
    };
    write_tensor_file(
        &cmd.output,
        &out.view(),
        &name,
        style,
        opts.max_output_bytes,
    )?;
    progress.finish();
    Ok(0)
}

/// `ndpad pad` window by window, when the input is a `.npy` file readable by boxes
/// and the `.npy` output is larger than `--window-bytes`; `None` otherwise.
fn pad_by_windows(cmd: &PadCmd) -> Result<Option<i32>, Failure> {
    let npy = |p: &std::path::Path| !is_stdio(p) && matches!(format_of(p, ""), Ok(Format::Npy));
    if !npy(&cmd.input) || !npy(&cmd.output) {
        return Ok(None);
    }
    let input = NpyBoxes::open_as(&cmd.input, cmd.dtype).map_err(|e| file_error(&cmd.input, e))?;
    let Some(input) = input else {
        return Ok(None);
    };
    let dtype = input.dtype();
    let resolved = resolve_input(cmd, dtype, &input.header().shape, None)?;
    let bytes: u128 = resolved
        .output_shape
        .iter()
        .fold(dtype.byte_len(1).unwrap_or(1) as u128, |n, &d| {
            n.saturating_mul(d as u128)
        });
    if bytes <= cmd.window_bytes as u128 {
        return Ok(None);
    }
    // The output goes to disk, not memory: the limit is the space free there, unless
    // --max-output-bytes sets one.
    let too_large = |limit: u64, what: &str| {
        let e = ndpad::PadError::OutputTooLarge {
            shape: resolved.output_shape.clone(),
            bytes,
            limit,
        };
        Failure::rejected(format!("{}: {e}{what}", cmd.output.display()))
    };
    match cmd.exec.max_output_bytes {
        Some(ByteLimit(Some(limit))) if bytes > u128::from(limit) => {
            return Err(too_large(limit, " (set by --max-output-bytes)"))
        }
        Some(_) => {}
        None => {
            let free = free_space(&cmd.output);
            if bytes > u128::from(free) {
                return Err(too_large(
                    free,
                    " free on its file system (--max-output-bytes sets another limit)",
                ));
            }
        }
    }
    let opts = PadOptions {
        max_output_bytes: None,
        ..pad_options(&cmd.exec)
    };
    crate::windows::pad_npy(
        &input,
        &resolved.spec,
        &resolved.output_shape,
        &cmd.output,
        cmd.window_bytes,
        &opts,
    )
    .map(Some)
}

/// Bytes free to an unprivileged user on the file system `path` is written in (0 when
/// that cannot be told: a window-by-window output then needs --max-output-bytes).
fn free_space(path: &std::path::Path) -> u64 {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    rustix::fs::statvfs(dir).map_or(0, |s| s.f_bavail.saturating_mul(s.f_frsize))
}

/// Formats a shape: numbers, names, and `?` for unknown extents.
pub fn shape_text(shape: &[Dim]) -> String {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// `ndpad shape`.
pub fn shape(cmd: &ShapeCmd) -> CmdResult {
    check_usage(&cmd.pad)?;
    let op = build_op(&cmd.pad, cmd.dtype, None)?;
    let out = op.output_dims(&cmd.shape.0).map_err(|e| {
        Failure::rejected(format!(
            "shape {}: {}",
            shape_text(&cmd.shape.0),
            frontend_text(&e, cmd.pad.framework)
        ))
    })?;
    crate::info::print_lines(&[shape_text(&out)])?;
    Ok(0)
}
