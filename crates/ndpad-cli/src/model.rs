//! `ndpad run`: ONNX graphs made of Pad nodes (and Identity / Constant).

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use ndpad::{numel, pad_with, Oversize, PadOptions, Tensor, TensorView};
use ndpad_formats::npy::NpyFile;
use ndpad_formats::onnx::{AttributeValue, Dim, Model, Node, ValueInfo};
use ndpad_formats::FormatError;
use ndpad_frontends::onnx::{OnnxPad, PadNode};
use ndpad_frontends::{IntInput, PadValue};

use crate::args::{ReflectOversize, RunCmd};
use crate::failure::{CmdResult, Failure};
use crate::info::{load_model, print_lines};
use crate::progress::Progress;
use crate::tensor_io::{
    check_output, check_readable, file_error, format_of, pad_error_text, pad_options,
    read_tensor_file, stage, to_owned, Format, Loaded,
};

/// A value of the graph.
pub type Value = Rc<Loaded>;

/// Reads the file for graph input `info` (raw .npy data takes its type from the model).
pub fn read_input(path: &Path, info: Option<&ValueInfo>) -> Result<Loaded, Failure> {
    let declared = info.and_then(|v| v.elem_type);
    if format_of(path, "input")? != Format::Npy {
        return read_tensor_file(path, None);
    }
    if crate::tensor_io::is_stdio(path) {
        // Raw data takes the model's declared type, as from a file.
        return crate::tensor_io::read_stdin_raw_as(None, declared);
    }
    check_readable(path)?;
    // Opened once; reopened with the declared type only when the file says its data is
    // raw. `run` has no --dtype flag: the element type of raw data is the model's.
    let at = path.display();
    match (NpyFile::open_as(path, None), declared) {
        (Err(FormatError::NpyRawDType { .. }), Some(d)) => NpyFile::open_as(path, Some(d)),
        (other, _) => other,
    }
    .map(|f| Loaded::Npy(Box::new(f)))
    .map_err(|e| match e {
        FormatError::NpyRawDType { .. } => Failure::rejected(format!(
            "{at}: {e}; the model declares no element type for this input"
        )),
        FormatError::DTypeOverride { .. } => Failure::rejected(format!(
            "{at}: {e} (the element type the model declares for this input)"
        )),
        other => file_error(path, other),
    })
}

/// Checks a graph input's type and known extents against the tensor given for it.
pub fn check_declared(name: &str, info: &ValueInfo, view: &TensorView<'_>) -> Result<(), String> {
    if let Some(d) = info.elem_type {
        if d != view.dtype() {
            return Err(format!(
                "graph input {name:?} is declared {d} but the tensor given is {}",
                view.dtype()
            ));
        }
    }
    if let Some(dims) = &info.shape {
        let fits = dims.len() == view.shape().len()
            && dims.iter().zip(view.shape()).all(|(d, &s)| match d {
                Dim::Value(v) => *v == s as u64,
                _ => true,
            });
        if !fits {
            let want: Vec<String> = dims.iter().map(ToString::to_string).collect();
            return Err(format!(
                "graph input {name:?} is declared of shape [{}] but the tensor given has shape {:?}",
                want.join(", "),
                view.shape()
            ));
        }
    }
    Ok(())
}

/// How a node is named in messages.
fn describe(i: usize, n: &Node) -> String {
    if n.name.is_empty() {
        format!("node {i} ({})", n.op_type)
    } else {
        format!("node {i} {:?} ({})", n.name, n.op_type)
    }
}

/// The values of a 1-D integer tensor (or `[1, n]`), as `IntInput`.
fn int_input(view: &TensorView<'_>, what: &str) -> Result<IntInput, String> {
    let dtype = view.dtype();
    let Some((lo, hi)) = dtype.int_range() else {
        // Not an integer type: the front end names the allowed types.
        return Ok(IntInput::unknown(dtype));
    };
    let shape = view.shape();
    let one_d = shape.len() == 1 || (shape.len() == 2 && shape[0] == 1);
    if !one_d {
        return Err(format!(
            "input {what:?} must be 1-D, but has shape {shape:?}"
        ));
    }
    let n = numel(shape).map_err(|e| e.to_string())?;
    let mut values = Vec::with_capacity(n.min(1 << 16));
    for i in 0..n {
        let Some(bits) = view.scalar_at(i).and_then(|s| s.bits()) else {
            return Err(format!("input {what:?}: element {i} cannot be read"));
        };
        // The element's bits (at most 64 of them), read as unsigned; above the type's
        // maximum they are a negative value in two's complement (signed types only).
        let raw = bits as i128;
        let value = if raw > hi { raw - (hi - lo + 1) } else { raw };
        let v = i64::try_from(value)
            .map_err(|_| format!("input {what:?}: element {i} = {bits} does not fit in int64"))?;
        values.push(v);
    }
    Ok(IntInput {
        dtype,
        values: Some(values),
    })
}

/// A Pad's constant value input.
fn pad_value(view: &TensorView<'_>) -> Result<PadValue, String> {
    let n = numel(view.shape()).map_err(|e| e.to_string())?;
    if n == 1 {
        if let Some(s) = view.scalar_at(0) {
            return Ok(PadValue::Scalar(s));
        }
    }
    if n <= 64 {
        // The front end reports the shape.
        return to_owned(view)
            .map(PadValue::Tensor)
            .map_err(|e| e.to_string());
    }
    Err(format!(
        "input \"constant_value\" must be a scalar or a one-element tensor, but has shape {:?}",
        view.shape()
    ))
}

fn attr_text(v: &AttributeValue) -> Option<String> {
    match v {
        AttributeValue::String(b) => String::from_utf8(b.clone()).ok(),
        _ => None,
    }
}

/// Runs the graph's nodes in order. `feeds` are the graph inputs given by the caller.
pub struct Runner<'m> {
    pub model: &'m Model,
    pub opts: PadOptions,
    /// What a reflect Pad wider than its (cropped) axis does.
    pub reflect_oversize: Oversize,
}

impl Runner<'_> {
    /// Computes every node; returns all named values.
    pub fn run(&self, feeds: HashMap<String, Value>) -> Result<HashMap<String, Value>, String> {
        let g = &self.model.graph;
        let opset = self
            .model
            .opset_version("")
            .ok_or("the model imports no opset of the default ONNX domain")?;
        let mut env: HashMap<String, Value> = HashMap::new();
        for init in &g.initializers {
            env.insert(
                init.name.clone(),
                Rc::new(Loaded::Owned(init.tensor.clone(), init.name.clone())),
            );
        }
        for (name, v) in feeds {
            env.insert(name, v);
        }
        for input in &g.inputs {
            if !env.contains_key(&input.name) {
                return Err(format!(
                    "graph input {:?} is not given (use --input {}=PATH)",
                    input.name, input.name
                ));
            }
        }
        for (i, node) in g.nodes.iter().enumerate() {
            let ctx = describe(i, node);
            if !(node.domain.is_empty() || node.domain == "ai.onnx") {
                return Err(format!(
                    "{ctx}: operator {}.{} is not supported: ndpad runs only Pad, Identity and Constant of the default ONNX domain",
                    node.domain, node.op_type
                ));
            }
            let get = |k: usize| -> Result<Option<Value>, String> {
                match node.inputs.get(k).map(String::as_str) {
                    None | Some("") => Ok(None),
                    Some(name) => env.get(name).cloned().map(Some).ok_or_else(|| {
                        format!("{ctx}: input {name:?} is not produced by an earlier node, an initializer or a graph input")
                    }),
                }
            };
            let out = match node.op_type.as_str() {
                "Pad" => {
                    if node.inputs.len() > 4 {
                        return Err(format!("{ctx}: has {} inputs; Pad has at most 4 (data, pads, constant_value, axes)", node.inputs.len()));
                    }
                    let data = get(0)?.ok_or(format!("{ctx}: the required input \"data\" is missing"))?;
                    let t = self.pad(node, opset, &data, get(1)?, get(2)?, get(3)?).map_err(|e| format!("{ctx}: {e}"))?;
                    Rc::new(Loaded::Owned(t, String::new()))
                }
                "Identity" => {
                    if node.inputs.len() != 1 || !node.attributes.is_empty() {
                        return Err(format!("{ctx}: Identity takes one input and no attributes"));
                    }
                    get(0)?.ok_or(format!("{ctx}: the required input is missing"))?
                }
                "Constant" => {
                    if !node.inputs.is_empty() {
                        return Err(format!("{ctx}: Constant takes no inputs"));
                    }
                    Rc::new(Loaded::Owned(constant(node).map_err(|e| format!("{ctx}: {e}"))?, String::new()))
                }
                other => {
                    return Err(format!(
                        "{ctx}: operator {other} is not supported: ndpad runs only Pad, Identity and Constant"
                    ))
                }
            };
            match node.outputs.as_slice() {
                [name] => {
                    if !name.is_empty() {
                        env.insert(name.clone(), out);
                    }
                }
                outs => {
                    return Err(format!(
                        "{ctx}: has {} outputs; {} has one",
                        outs.len(),
                        node.op_type
                    ));
                }
            }
        }
        Ok(env)
    }

    fn pad(
        &self,
        node: &Node,
        opset: i64,
        data: &Value,
        pads: Option<Value>,
        constant_value: Option<Value>,
        axes: Option<Value>,
    ) -> Result<Tensor, String> {
        let view = data.view();
        let mut p = PadNode::new(view.dtype());
        for a in &node.attributes {
            match a.name.as_str() {
                "mode" => {
                    p.mode = Some(
                        attr_text(&a.value)
                            .ok_or("attribute \"mode\" must be a STRING of UTF-8 text")?,
                    );
                }
                "pads" => match &a.value {
                    AttributeValue::Ints(v) => p.pads_attribute = Some(v.clone()),
                    _ => return Err("attribute \"pads\" must be INTS".into()),
                },
                "paddings" => match &a.value {
                    AttributeValue::Ints(v) => p.paddings = Some(v.clone()),
                    _ => return Err("attribute \"paddings\" must be INTS".into()),
                },
                "value" => match &a.value {
                    AttributeValue::Float(v) => p.value = Some(*v),
                    _ => return Err("attribute \"value\" must be a FLOAT".into()),
                },
                other => return Err(format!("Pad has no attribute {other:?}")),
            }
        }
        if let Some(v) = &pads {
            p.pads = Some(int_input(&v.view(), "pads")?);
        }
        if let Some(v) = &constant_value {
            p.constant_value = Some(pad_value(&v.view())?);
        }
        if let Some(v) = &axes {
            p.axes = Some(int_input(&v.view(), "axes")?);
        }
        let onnx = OnnxPad::new(opset)
            .map_err(|e| e.to_string())?
            .with_reflect_oversize(self.reflect_oversize);
        let r = onnx.resolve(&p, view.shape()).map_err(|e| e.to_string())?;
        pad_with(view, &r.spec, &self.opts).map_err(|e| pad_error_text(&e))
    }
}

/// The tensor of a Constant node.
fn constant(node: &Node) -> Result<Tensor, String> {
    let [a] = node.attributes.as_slice() else {
        return Err(format!(
            "Constant needs exactly one value attribute, has {}",
            node.attributes.len()
        ));
    };
    let err = |e: ndpad::PadError| e.to_string();
    let strings = |v: &[Vec<u8>]| -> Result<Vec<String>, String> {
        v.iter()
            .map(|b| String::from_utf8(b.clone()).map_err(|_| "a string is not UTF-8".to_string()))
            .collect()
    };
    match (a.name.as_str(), &a.value) {
        ("value", AttributeValue::Tensor(t)) => Ok(t.clone()),
        ("value_float", AttributeValue::Float(x)) => Tensor::from_slice(&[], &[*x]).map_err(err),
        ("value_floats", AttributeValue::Floats(x)) => {
            Tensor::from_slice(&[x.len()], x).map_err(err)
        }
        ("value_int", AttributeValue::Int(x)) => Tensor::from_slice(&[], &[*x]).map_err(err),
        ("value_ints", AttributeValue::Ints(x)) => Tensor::from_slice(&[x.len()], x).map_err(err),
        ("value_string", AttributeValue::String(s)) => {
            Tensor::from_strings(&[], strings(std::slice::from_ref(s))?).map_err(err)
        }
        ("value_strings", AttributeValue::Strings(s)) => {
            Tensor::from_strings(&[s.len()], strings(s)?).map_err(err)
        }
        (name, _) => Err(format!(
            "attribute {name:?} is not a supported Constant value (value, value_float(s), value_int(s), value_string(s))"
        )),
    }
}

/// A one-line description of a value.
pub fn value_text(name: &str, v: &TensorView<'_>) -> String {
    format!("{name:?}: {} {:?}", v.dtype(), v.shape())
}

/// The kind and width of the string `.npy` inputs given with `--input`: the first
/// one's kind, the widest width.
fn feeds_kind(
    inputs: &[crate::args::NamedPath],
    env: &HashMap<String, Value>,
) -> Option<ndpad_formats::npy::NpyStrings> {
    let all: Vec<_> = inputs
        .iter()
        .filter_map(|i| env.get(&i.name).and_then(|v| v.npy_strings()))
        .collect();
    let first = *all.first()?;
    let width = all.iter().map(|s| s.width).max().unwrap_or(first.width);
    Some(ndpad_formats::npy::NpyStrings { width, ..first })
}

/// `ndpad run`.
pub fn run(cmd: &RunCmd) -> CmdResult {
    // Usage checks first: formats and duplicate outputs.
    for o in &cmd.outputs {
        format_of(&o.path, "output")?;
    }
    for i in &cmd.inputs {
        format_of(&i.path, "input")?;
    }
    for (k, o) in cmd.outputs.iter().enumerate() {
        if cmd.outputs[..k].iter().any(|p| p.path == o.path) {
            return Err(Failure::usage(format!(
                "{} is given as the output of two values",
                o.path.display()
            )));
        }
    }
    let mut in_paths: Vec<&Path> = cmd.inputs.iter().map(|i| i.path.as_path()).collect();
    in_paths.push(&cmd.model);
    for o in &cmd.outputs {
        check_output(&o.path, &in_paths)?;
    }
    let model = load_model(&cmd.model)?;
    let mp = cmd.model.display();
    let mut feeds = HashMap::new();
    for i in &cmd.inputs {
        let info = model.graph.inputs.iter().find(|v| v.name == i.name);
        let Some(info) = info else {
            let names: Vec<&str> = model.graph.inputs.iter().map(|v| v.name.as_str()).collect();
            return Err(Failure::rejected(format!(
                "{mp}: the model has no graph input {:?} (its inputs: {})",
                i.name,
                names.join(", ")
            )));
        };
        if feeds.contains_key(&i.name) {
            return Err(Failure::usage(format!("--input {} is given twice", i.name)));
        }
        let loaded = read_input(&i.path, Some(info))?;
        check_declared(&i.name, info, &loaded.view())
            .map_err(|e| Failure::rejected(format!("{}: {e}", i.path.display())))?;
        feeds.insert(i.name.clone(), Rc::new(loaded));
    }
    let runner = Runner {
        model: &model,
        opts: pad_options(&cmd.exec),
        reflect_oversize: match cmd.reflect_oversize {
            Some(ReflectOversize::Error) => Oversize::Error,
            Some(ReflectOversize::Repeat) | None => Oversize::Repeat,
        },
    };
    let progress = Progress::spinner("running");
    let env = runner
        .run(feeds)
        .map_err(|e| Failure::rejected(format!("{mp}: {e}")))?;
    if cmd.outputs.is_empty() {
        progress.finish();
        let mut lines = Vec::new();
        for o in &model.graph.outputs {
            match env.get(&o.name) {
                Some(v) => lines.push(format!("output {}", value_text(&o.name, &v.view()))),
                None => {
                    return Err(Failure::rejected(format!(
                        "{mp}: graph output {:?} is not computed by any node",
                        o.name
                    )))
                }
            }
        }
        print_lines(&lines)?;
        return Ok(0);
    }
    // Stage every output, then move them all into place.
    progress.set_message("writing");
    // A string output keeps the kind (U or S) of the .npy string inputs.
    let strings = feeds_kind(&cmd.inputs, &env);
    let mut staged = Vec::new();
    for o in &cmd.outputs {
        let Some(v) = env.get(&o.name) else {
            return Err(Failure::rejected(format!(
                "{mp}: the model computes no value {:?}",
                o.name
            )));
        };
        staged.push(stage(
            &o.path,
            &v.view(),
            &o.name,
            strings,
            runner.opts.max_output_bytes,
        )?);
    }
    for s in staged {
        s.commit()?;
    }
    progress.finish();
    Ok(0)
}
