//! The command line: commands, flags and the parsers of their values.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ndpad::DType;
use ndpad_frontends::Dim;

const AFTER_HELP: &str = "\
Exit codes: 0 success, 1 a failed test or a rejected input, 2 a usage error,
130 / 143 stopped by SIGINT / SIGTERM (what was staged is removed).
Formats are chosen by extension: .npy (NumPy), .pb (ONNX TensorProto), .zarr (zarr
v3 arrays: `pad` and `info`) and .onnx (models: `run` and `info`); `-` reads .npy
from standard input or writes it to standard output (not to a terminal).
Outputs are little-endian and in C (row-major) order, whatever the input's byte order
and memory order: a big-endian or Fortran-order .npy comes out little-endian, C order.
A string .npy keeps its kind: `U` in, `U` out; `S` in, `S` out.";

/// Tensor padding, exact to ONNX Pad-1..25, OpenVINO Pad-1/12, nGraph Pad v0 and
/// numpy.pad, on .npy files, ONNX TensorProto (.pb) files and zarr v3 arrays (.zarr),
/// and ONNX models (.onnx) made of Pad nodes.
#[derive(Parser, Debug)]
#[command(name = "ndpad", version, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Pad a tensor file and write the result.
    #[command(after_help = PAD_HELP)]
    Pad(PadCmd),
    /// Shape inference only: print the padded shape of a tensor of the given shape.
    #[command(after_help = SHAPE_HELP)]
    Shape(ShapeCmd),
    /// Print the type, shape and size of a tensor file or zarr array (or summarize an
    /// .onnx model).
    Info(InfoCmd),
    /// Run an ONNX model made of Pad, Identity and Constant nodes.
    #[command(after_help = RUN_HELP)]
    Run(RunCmd),
    /// Run directories in the ONNX backend-test layout and compare with the expected
    /// outputs.
    #[command(after_help = ONNX_TEST_HELP)]
    OnnxTest(OnnxTestCmd),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsCmd),
    /// Print the man page (roff) of ndpad and its commands.
    #[command(after_help = "Example:\n  ndpad man > ndpad.1 && man ./ndpad.1")]
    Man,
}

const COMPLETIONS_HELP: &str = "\
Examples:
  ndpad completions bash > ~/.local/share/bash-completion/completions/ndpad
  ndpad completions zsh > ~/.zfunc/_ndpad
  ndpad completions fish > ~/.config/fish/completions/ndpad.fish";

#[derive(Args, Debug)]
pub struct CompletionsCmd {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

const PAD_HELP: &str = "\
Frameworks and their flags:
  onnx (default)  [--opset 1..25] --pads B1,..,Bn,E1,..,En [--axes A1,..]
                  modes: constant, reflect, edge, wrap (Pad-19 on)
  openvino        [--opset 1|12] --pads-begin B1,.. --pads-end E1,..
                  modes: constant, edge, reflect, symmetric
  ngraph          --padding-below .. --padding-above .. [--padding-interior ..]
                  modes: CONSTANT, EDGE, REFLECT
  numpy           --pad-width B1:E1,B2:E2,..  (or one B:E pair for every axis)
                  modes: constant, edge, reflect, symmetric, wrap
Mode names are case-insensitive. Negative numbers are accepted: --pads -1,0,2,3.
The output is written to a temporary file beside it and renamed into place only
after success; the input is never modified. INPUT or OUTPUT `-` is .npy on
standard input / output (ndpad pad - - --pads 1,1 < in.npy > out.npy); OUTPUT `-`
is refused when standard output is a terminal.
The output is little-endian and in C order (a big-endian or Fortran .npy comes out
little-endian, C order); a string .npy keeps its kind (U or S) and at least its
width.

--framework numpy is numpy.pad: strings pad with \"0\" by default (numpy's 0 cast to
the string type); a rank-0 array comes back unchanged; a --value longer than a
fixed-width string input (U5, S5) is cut to that width, as numpy's cast does.
--value is checked against the type: an integer out of range, a finite float beyond
the type's largest finite value (1e40 on float32) or a nonzero float that rounds to
0 (1e-10 on float16) is an error; inf, -inf and nan are allowed where the type has
them. Complex values are written re,im (1,2 for 1+2j).

Example:
  ndpad pad examples/image.npy padded.npy --mode reflect --pads 2,2,2,2";

const SHAPE_HELP: &str = "\
Takes the same flags as `ndpad pad`. Unknown extents may be written `?` or as a
name (`batch`). A name survives where its axis is not padded; a padded named
extent prints as `?` (its padded size is not known), as ONNX shape inference gives it.

Example:
  ndpad shape --shape N,C,224,224 --pads 0,0,1,1,0,0,1,1     # [N, C, 226, 226]
  ndpad shape --shape N,C,H,W --pads 0,0,1,1,0,0,1,1         # [N, C, ?, ?]";

const RUN_HELP: &str = "\
Inputs that are initializers may be overridden by --input. Raw .npy data (bfloat16,
float8, int4 as ml_dtypes writes them) takes its type from the model's declaration.
Without --output, the graph outputs' types and shapes are printed.";

const ONNX_TEST_HELP: &str = "\
Each DIR holds model.onnx and test_data_set_*/ with input_N.pb and output_N.pb (or is
a directory of such directories). Prints one line per data set:
  PASS <dir> | FAIL <dir>: <first difference> | ERROR <dir>: <message>
then a summary. Arguments that are plain files are skipped. Integers, bool and strings
compare exactly; floats bit for bit, except that NaN equals NaN.";

/// What an ONNX reflect pad wider than the (cropped) axis does.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
#[value(rename_all = "lower")]
pub enum ReflectOversize {
    /// The reflection repeats (the ONNX spec's Example 2, the ONNX reference, numpy).
    Repeat,
    /// An error, as ONNX Runtime gives (also for reflecting one element left by
    /// cropping).
    Error,
}

/// The pad's framework.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
#[value(rename_all = "lower")]
pub enum Framework {
    /// ONNX Pad (opset 1-25).
    Onnx,
    /// OpenVINO Pad-1 / Pad-12.
    Openvino,
    /// nGraph Pad v0.
    Ngraph,
    /// numpy.pad.
    Numpy,
}

impl Framework {
    pub fn name(self) -> &'static str {
        match self {
            Framework::Onnx => "onnx",
            Framework::Openvino => "openvino",
            Framework::Ngraph => "ngraph",
            Framework::Numpy => "numpy",
        }
    }
}

/// A comma-separated list of integers (`1,-2,3`; empty for an empty list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntList(pub Vec<i64>);

/// `B1:E1,B2:E2,..` (numpy's pad_width); `N` alone is `N:N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadWidth(pub Vec<(i64, i64)>);

/// A shape with possibly unknown or named extents (`3,?,batch`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeArg(pub Vec<Dim>);

/// A byte limit (`1000`, `512M`, `8G`, `unlimited`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteLimit(pub Option<u64>);

/// `NAME=PATH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedPath {
    pub name: String,
    pub path: PathBuf,
}

pub fn parse_int_list(s: &str) -> Result<IntList, String> {
    if s.trim().is_empty() {
        return Ok(IntList(Vec::new()));
    }
    s.split(',')
        .enumerate()
        .map(|(i, item)| {
            item.trim()
                .parse::<i64>()
                .map_err(|e| format!("item {} {:?} is not an integer ({e})", i + 1, item.trim()))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(IntList)
}

pub fn parse_pad_width(s: &str) -> Result<PadWidth, String> {
    if s.trim().is_empty() {
        return Err("expected B1:E1,B2:E2,.. (one before:after pair per axis)".into());
    }
    let num = |t: &str, i: usize| {
        t.trim()
            .parse::<i64>()
            .map_err(|e| format!("pair {} has {:?}, which is not an integer ({e})", i + 1, t))
    };
    s.split(',')
        .enumerate()
        .map(|(i, pair)| match pair.split_once(':') {
            Some((b, e)) => Ok((num(b, i)?, num(e, i)?)),
            None => {
                let n = num(pair, i)?;
                Ok((n, n))
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(PadWidth)
}

pub fn parse_shape(s: &str) -> Result<ShapeArg, String> {
    if s.trim().is_empty() {
        return Ok(ShapeArg(Vec::new()));
    }
    s.split(',')
        .enumerate()
        .map(|(i, d)| {
            let d = d.trim();
            if d.is_empty() {
                return Err(format!("extent {} is empty", i + 1));
            }
            if d.starts_with('-') {
                return Err(format!("extent {} is negative ({d})", i + 1));
            }
            if d.chars().all(|c| c.is_ascii_digit()) {
                d.parse::<usize>()
                    .map(Dim::Known)
                    .map_err(|e| format!("extent {} {d:?}: {e}", i + 1))
            } else if d == "?" {
                Ok(Dim::Unknown)
            } else if d.chars().all(|c| c.is_alphanumeric() || c == '_')
                && d.chars().next().is_some_and(|c| !c.is_ascii_digit())
            {
                Ok(Dim::Named(d.to_string()))
            } else {
                Err(format!(
                    "extent {} {d:?} is neither a number, `?` nor a name",
                    i + 1
                ))
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(ShapeArg)
}

pub fn parse_byte_limit(s: &str) -> Result<ByteLimit, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("unlimited") || t.eq_ignore_ascii_case("none") {
        return Ok(ByteLimit(None));
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?} is not a byte count (e.g. 1000, 512M, 8G, unlimited)"))?;
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => {
            return Err(format!(
                "unknown unit {other:?} (use K, M, G or T, powers of 1024)"
            ))
        }
    };
    n.checked_mul(1u64 << shift)
        .map(|v| ByteLimit(Some(v)))
        .ok_or_else(|| format!("{s:?} does not fit in 64 bits"))
}

pub fn parse_dtype(s: &str) -> Result<DType, String> {
    s.parse::<DType>().map_err(|_| {
        let names: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
        format!("unknown data type {s:?} (known: {})", names.join(", "))
    })
}

pub fn parse_named_path(s: &str) -> Result<NamedPath, String> {
    match s.split_once('=') {
        Some((name, path)) if !path.is_empty() => Ok(NamedPath {
            name: name.to_string(),
            path: PathBuf::from(path),
        }),
        _ => Err(format!("{s:?} is not NAME=PATH")),
    }
}

/// How the pad is described: shared by `pad` and `shape`.
#[derive(Args, Debug, Clone)]
pub struct PadArgs {
    /// Pad mode in the framework's own names, case-insensitive.
    #[arg(long, default_value = "constant")]
    pub mode: String,
    /// Constant value, parsed as the tensor's own type (integers; floats with nan,
    /// inf, -inf; true/false; `re,im` for complex; any text for strings).
    #[arg(long, allow_hyphen_values = true, value_name = "V")]
    pub value: Option<String>,
    /// Which framework's Pad semantics to follow.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Framework::Onnx)]
    pub framework: Framework,
    /// ONNX opset (1-25, default 25) or OpenVINO Pad version (1 or 12, default 12).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub opset: Option<i64>,
    /// ONNX: begin pads of every axis, then end pads (negative crops).
    #[arg(long, value_name = "B1,..,E1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub pads: Option<IntList>,
    /// ONNX (opset 18+): the axes --pads applies to (negative counts from the back).
    #[arg(long, value_name = "A1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub axes: Option<IntList>,
    /// OpenVINO: pads before each axis.
    #[arg(long, value_name = "B1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub pads_begin: Option<IntList>,
    /// OpenVINO: pads after each axis.
    #[arg(long, value_name = "E1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub pads_end: Option<IntList>,
    /// nGraph: pads below each axis.
    #[arg(long, value_name = "B1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub padding_below: Option<IntList>,
    /// nGraph: pads above each axis.
    #[arg(long, value_name = "E1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub padding_above: Option<IntList>,
    /// nGraph: elements inserted between neighbours on each axis (constant mode).
    #[arg(long, value_name = "I1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub padding_interior: Option<IntList>,
    /// numpy: before:after per axis, or one pair for every axis.
    #[arg(long, value_name = "B1:E1,..", value_parser = parse_pad_width, allow_hyphen_values = true)]
    pub pad_width: Option<PadWidth>,
    /// ONNX: a reflect pad wider than the axis (after cropping) repeats the reflection
    /// (default, the spec's Example 2 and the ONNX reference) or is an error (ONNX
    /// Runtime).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub reflect_oversize: Option<ReflectOversize>,
}

/// How the work is carried out: shared by `pad`, `run` and `onnx-test`.
#[derive(Args, Debug, Clone)]
pub struct ExecArgs {
    /// Refuse outputs larger than this, before allocating them. Suffixes K, M, G, T
    /// (powers of 1024), or `unlimited`. Default: half of the physical memory (8G
    /// where that is unknown).
    #[arg(long, value_name = "BYTES", value_parser = parse_byte_limit)]
    pub max_output_bytes: Option<ByteLimit>,
    /// Threads to pad with (0: all cores; at most 1024).
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1024))]
    pub threads: usize,
}

#[derive(Args, Debug)]
pub struct PadCmd {
    /// The tensor to pad (.npy or .pb, or a zarr v3 array: a directory with a
    /// zarr.json, a group's member too; padded into a zarr output chunk by chunk,
    /// keeping its chunks, codecs and fill value, or read whole into a .npy / .pb
    /// output); never modified.
    pub input: PathBuf,
    /// Where to write the result (.npy, .pb, or .zarr or a new member of an existing
    /// zarr group); replaced only after success.
    pub output: PathBuf,
    /// The element type of raw .npy data (V1/V2, as ml_dtypes writes bfloat16, float8,
    /// int4, ...); must match the file otherwise.
    #[arg(long, value_name = "T", value_parser = parse_dtype)]
    pub dtype: Option<DType>,
    #[command(flatten)]
    pub pad: PadArgs,
    #[command(flatten)]
    pub exec: ExecArgs,
    /// A .npy output of a fixed-width type larger than this is written window by
    /// window from a .npy input read by boxes, never held whole: files larger than
    /// memory pad in about this much memory (--max-output-bytes then defaults to the
    /// space free on the output's file system). Suffixes K, M, G, T (powers of 1024).
    #[arg(long, value_name = "BYTES", default_value = "256M", value_parser = parse_window_bytes)]
    pub window_bytes: usize,
    /// Zarr output: its chunk shape (one extent per axis; default: the zarr input's,
    /// or chunks of at most 4 MiB for a .npy / .pb input).
    #[arg(long, value_name = "C1,..", value_parser = parse_int_list, allow_hyphen_values = true)]
    pub chunks: Option<IntList>,
    /// Zarr: refuse an input or output of more chunks than this (counting the chunks
    /// inside shards), before any work.
    #[arg(long, value_name = "N", default_value_t = ndpad_zarr::DEFAULT_MAX_CHUNKS)]
    pub max_chunks: u64,
}

/// A window size: a byte count of at least 4 KiB.
pub fn parse_window_bytes(s: &str) -> Result<usize, String> {
    match parse_byte_limit(s)? {
        ByteLimit(Some(n)) if n >= 4096 => {
            usize::try_from(n).map_err(|_| format!("{s:?} is too large"))
        }
        ByteLimit(Some(n)) => Err(format!("{n} bytes is below the least window of 4096 bytes")),
        ByteLimit(None) => Err("a window must have a size (e.g. 256M)".into()),
    }
}

#[derive(Args, Debug)]
pub struct ShapeCmd {
    /// The input shape: extents separated by commas; `?` or a name for an unknown
    /// extent; empty for a scalar.
    #[arg(long, value_name = "D1,..", value_parser = parse_shape, allow_hyphen_values = true)]
    pub shape: ShapeArg,
    /// The element type (float32, int64, ..., ONNX's names or aliases: float, f16, u8, ...).
    #[arg(long, value_name = "T", value_parser = parse_dtype, default_value = "float32")]
    pub dtype: DType,
    #[command(flatten)]
    pub pad: PadArgs,
}

#[derive(Args, Debug)]
pub struct InfoCmd {
    /// A tensor file (.npy, .pb; `-` for .npy on standard input), a zarr v3 array
    /// (.zarr) or an ONNX model (.onnx).
    pub path: PathBuf,
    /// The element type of raw .npy data (V1/V2).
    #[arg(long, value_name = "T", value_parser = parse_dtype)]
    pub dtype: Option<DType>,
    /// Also print the values (up to 10000 elements); for a model, the values of its
    /// initializers and every node's attributes.
    #[arg(long)]
    pub values: bool,
}

#[derive(Args, Debug)]
pub struct RunCmd {
    /// The model (.onnx).
    pub model: PathBuf,
    /// Feed the graph input NAME from the tensor file PATH (.npy or .pb; `-` for
    /// .npy on standard input). Repeatable.
    #[arg(long = "input", value_name = "NAME=PATH", value_parser = parse_named_path)]
    pub inputs: Vec<NamedPath>,
    /// Write the value NAME (a graph output or any node's output) to PATH (.npy or
    /// .pb; `-` for .npy on standard output). Repeatable.
    #[arg(long = "output", value_name = "NAME=PATH", value_parser = parse_named_path)]
    pub outputs: Vec<NamedPath>,
    /// A reflect Pad wider than the axis (after cropping) repeats the reflection
    /// (default, the spec's Example 2 and the ONNX reference) or is an error (ONNX
    /// Runtime).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub reflect_oversize: Option<ReflectOversize>,
    #[command(flatten)]
    pub exec: ExecArgs,
}

#[derive(Args, Debug)]
pub struct OnnxTestCmd {
    /// Test directories (model.onnx + test_data_set_*), or directories of them.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub exec: ExecArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(parse_int_list("-1, 0,2,3").unwrap().0, vec![-1, 0, 2, 3]);
        assert_eq!(parse_int_list("").unwrap().0, Vec::<i64>::new());
        assert!(parse_int_list("1,,2").unwrap_err().contains("item 2"));
        assert_eq!(parse_pad_width("1:2,3").unwrap().0, vec![(1, 2), (3, 3)]);
        assert!(parse_pad_width("1:x").is_err());
        assert_eq!(
            parse_shape("3,?,batch,0").unwrap().0,
            vec![
                Dim::Known(3),
                Dim::Unknown,
                Dim::Named("batch".into()),
                Dim::Known(0)
            ]
        );
        assert!(parse_shape("3,-1").is_err());
        assert!(parse_shape("3,4x").is_err());
        assert_eq!(parse_byte_limit("8G").unwrap(), ByteLimit(Some(8 << 30)));
        assert_eq!(parse_byte_limit("1000").unwrap(), ByteLimit(Some(1000)));
        assert_eq!(parse_byte_limit("unlimited").unwrap(), ByteLimit(None));
        assert!(parse_byte_limit("99999999999T").is_err());
        assert!(parse_byte_limit("5X").is_err());
        assert_eq!(
            parse_named_path("a=b=c").unwrap(),
            NamedPath {
                name: "a".into(),
                path: "b=c".into()
            }
        );
        assert!(parse_named_path("ab").is_err());
    }
}
