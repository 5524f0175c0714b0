//! Zarr v3 arrays on the command line: `ndpad pad IN.zarr OUT.zarr` ([`pad`]),
//! `IN.zarr OUT.npy` ([`read_whole`]), `IN.npy OUT.zarr` ([`pad_to_zarr`]) and
//! `ndpad info IN.zarr` ([`info`]). The work is the `ndpad-zarr` library's; this
//! module turns the flags into its options (`--chunks`, `--max-chunks`, `--threads`,
//! `--max-output-bytes`, and a memory budget of [`BUDGET_WINDOWS`] windows of
//! `--window-bytes`), shows its progress, asks it to stop on SIGINT / SIGTERM, tunes
//! the allocator ([`keep_freed_memory`]: a library must not) and words its errors.

use std::path::Path;
use std::sync::{Arc, Mutex};

use ndpad::{DType, Tensor};
use ndpad_zarr::{Progress as Event, Stage, ZarrArray, ZarrError, ZarrPadOptions};

use crate::args::{ByteLimit, PadCmd};
use crate::failure::{CmdResult, Failure};
use crate::padcmd::resolve_input;
use crate::progress::Progress;
use crate::tensor_io::{default_max_output_bytes, pad_error_text};

pub use ndpad_zarr::{in_group, node_type};

/// The memory budget of a zarr pad, in windows of `--window-bytes` (256 MiB by
/// default: 1 GiB).
const BUDGET_WINDOWS: u64 = 4;

/// The error of a command other than `pad` given a `.zarr` path.
pub fn only_pad(path: &Path) -> Failure {
    Failure::usage(format!(
        "{}: zarr arrays are read and written by `ndpad pad` (and described by \
         `ndpad info`) only (this command takes .npy and .pb files)",
        path.display()
    ))
}

/// The failure of a zarr error: a usage error for a bad `--chunks`, the signal's exit
/// code for an interrupted pad, the core's errors worded as the CLI words them.
fn failure(e: ZarrError) -> Failure {
    match e {
        ZarrError::Interrupted => crate::interrupt::failure(
            crate::interrupt::received().unwrap_or(signal_hook::consts::SIGINT),
        ),
        ZarrError::ChunksRank { .. } | ZarrError::ChunkExtentZero { .. } => {
            Failure::usage(e.to_string())
        }
        ZarrError::Pad { path, source } => {
            Failure::rejected(format!("{}: {}", path.display(), pad_error_text(&source)))
        }
        ZarrError::ChunkOverBudget { .. } => Failure::rejected(format!(
            "{e} (the budget is {BUDGET_WINDOWS} x --window-bytes)"
        )),
        e => Failure::rejected(e.to_string()),
    }
}

impl From<ZarrError> for Failure {
    fn from(e: ZarrError) -> Failure {
        failure(e)
    }
}

/// True for a path ending in `.zarr`, or a directory holding a zarr.json.
pub fn is_zarr(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zarr"))
        || node_type(path).is_some()
}

/// `ndpad info IN.zarr`.
pub fn info(cmd: &crate::args::InfoCmd) -> CmdResult {
    if cmd.values {
        return Err(Failure::usage(format!(
            "{}: --values is for .npy and .pb files, not zarr arrays",
            cmd.path.display()
        )));
    }
    crate::info::print_lines(&info_lines(&cmd.path)?)?;
    Ok(0)
}

/// Lines describing a zarr array (shape, data type, chunks, codecs, fill value).
pub fn info_lines(path: &Path) -> Result<Vec<String>, Failure> {
    let json = ndpad_zarr::array_json(path)?;
    let array = ndpad_zarr::open(path, &json).map_err(|e| ZarrError::At {
        path: path.to_path_buf(),
        source: Box::new(e),
    })?;
    let zarrs::array::ArrayMetadata::V3(meta) = array.metadata() else {
        return Err(Failure::rejected(format!(
            "{}: is not a zarr v3 array",
            path.display()
        )));
    };
    let show = |v: Option<&serde_json::Value>| v.map_or("-".to_string(), ToString::to_string);
    let dtype = meta.data_type.name();
    Ok(vec![
        format!("path: {}", path.display()),
        "format: zarr v3 array".to_string(),
        match ndpad_zarr::dtype_of(dtype) {
            Some(_) if dtype.starts_with("numpy.") => {
                format!("dtype: {dtype} (padded as int64 counts)")
            }
            Some(d) if d.onnx_name() != dtype => {
                format!("dtype: {dtype} (ONNX: {})", d.onnx_name())
            }
            Some(_) => format!("dtype: {dtype}"),
            None => format!("dtype: {dtype} (not padded by ndpad)"),
        },
        format!("shape: {:?}", meta.shape),
        format!("chunk grid: {}", show(json.get("chunk_grid"))),
        format!("chunk grid shape: {:?}", array.chunk_grid_shape()),
        format!("codecs: {}", show(json.get("codecs"))),
        format!("fill value: {}", show(json.get("fill_value"))),
    ])
}

/// The progress indicator the library's reports drive.
type Shown = Arc<Mutex<Option<Progress>>>;

/// A callback showing the library's progress: a bar over the chunks, a spinner while
/// a string array is padded in memory, each stage's name.
fn progress(shown: &Shown) -> ndpad_zarr::ProgressFn {
    let shown = Arc::clone(shown);
    Arc::new(move |event| {
        let Ok(mut slot) = shown.lock() else {
            return;
        };
        match event {
            Event::Chunks(n) => *slot = Some(Progress::bar(n, "padding chunks")),
            Event::ChunkDone => {
                if let Some(p) = slot.as_ref() {
                    p.inc();
                }
            }
            Event::Stage(stage) => {
                let message = match stage {
                    Stage::Padding => "padding",
                    Stage::Writing => "writing chunks",
                    Stage::Syncing => "syncing",
                    Stage::Moving => "moving into place",
                };
                match slot.as_ref() {
                    Some(p) => p.set_message(message),
                    None => *slot = Some(Progress::spinner(message)),
                }
            }
        }
    })
}

/// The library's options from the command line.
fn options(cmd: &PadCmd, shown: &Shown) -> Result<ZarrPadOptions, Failure> {
    let chunks = match &cmd.chunks {
        Some(c) => {
            if let Some(bad) = c.0.iter().find(|&&x| x < 1) {
                return Err(Failure::usage(format!(
                    "--chunks: every extent must be at least 1 (got {bad})"
                )));
            }
            Some(c.0.iter().map(|&x| x.unsigned_abs()).collect())
        }
        None => None,
    };
    Ok(ZarrPadOptions {
        threads: cmd.exec.threads,
        chunks,
        max_chunks: cmd.max_chunks,
        max_memory: Some((cmd.window_bytes as u64).saturating_mul(BUDGET_WINDOWS)),
        // Only when given: a zarr output is written chunk by chunk, not held.
        max_output_bytes: match cmd.exec.max_output_bytes {
            Some(ByteLimit(limit)) => limit,
            None => None,
        },
        max_whole_bytes: Some(default_max_output_bytes()),
        interrupt: Some(crate::interrupt::pad_interrupt()),
        progress: Some(progress(shown)),
    })
}

/// Refuses a `--dtype` other than the array's own type.
fn check_dtype(given: Option<DType>, input: &ZarrArray) -> Result<(), Failure> {
    match given {
        Some(d) if d != input.dtype() => Err(Failure::rejected(format!(
            "{}: --dtype {d} does not match the array's own type {} (a zarr array declares \
             its type)",
            input.path().display(),
            input.type_name()
        ))),
        _ => Ok(()),
    }
}

/// Keeps freed memory in the process for reuse: each chunk's buffers (decoded input
/// chunks, the padded chunk, its encoding) are tens of megabytes, which glibc's
/// malloc would otherwise map fresh from the kernel and return on every free, so that
/// every chunk paid for zeroing its pages anew (a third of the time of a pad). One
/// arena (the threads' own arenas cannot hold allocations above 64 MiB) that neither
/// maps large allocations separately (`M_MMAP_MAX` 0: glibc refuses an
/// `M_MMAP_THRESHOLD` above 32 MiB, so 64 MiB chunks were still mapped fresh, 11% of
/// the samples in `clear_page_erms` at 768^3) nor trims its top: memory stays at its
/// peak, which the library's memory budget bounds.
#[allow(unsafe_code)]
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before this
    // command starts its threads.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// `ndpad pad IN.zarr OUT.zarr`.
pub fn pad(cmd: &PadCmd) -> CmdResult {
    let shown = Shown::default();
    let opts = options(cmd, &shown)?;
    let input = ZarrArray::open(&cmd.input)?;
    ndpad_zarr::check_output(Some(&cmd.input), &cmd.output)?;
    check_dtype(cmd.dtype, &input)?;
    let resolved = resolve_input(cmd, input.dtype(), input.shape(), None)?;
    if input.dtype() != DType::String {
        keep_freed_memory();
    }
    ndpad_zarr::pad_array(&input, &cmd.output, &resolved.spec, &opts)?;
    Ok(0)
}

/// `ndpad pad IN.npy OUT.zarr` (or `.pb`, or `-`): the input padded in memory (under
/// the output limit of a .npy output), written as a new zarr v3 array
/// ([`ndpad_zarr::write_tensor`]).
pub fn pad_to_zarr(cmd: &PadCmd) -> CmdResult {
    let shown = Shown::default();
    let opts = options(cmd, &shown)?;
    let input_path = (!crate::tensor_io::is_stdio(&cmd.input)).then_some(cmd.input.as_path());
    ndpad_zarr::check_output(input_path, &cmd.output)?;
    let input = crate::tensor_io::read_tensor_file(&cmd.input, cmd.dtype)?;
    let view = input.view();
    let dtype = view.dtype();
    if ndpad_zarr::zarr_name(dtype).is_none() {
        return Err(failure(ZarrError::NoZarrType {
            path: cmd.input.clone(),
            dtype,
        }));
    }
    let resolved = resolve_input(cmd, dtype, view.shape(), input.npy_strings())?;
    ndpad_zarr::check_new_array(
        input_path,
        dtype,
        &resolved.output_shape,
        &cmd.output,
        &opts,
    )?;
    if let Ok(mut slot) = shown.lock() {
        *slot = Some(Progress::spinner("padding"));
    }
    let padded = ndpad::pad_with(
        view,
        &resolved.spec,
        &crate::tensor_io::pad_options(&cmd.exec),
    )
    .map_err(|e| Failure::rejected(format!("{}: {}", cmd.output.display(), pad_error_text(&e))))?;
    drop(input);
    ndpad_zarr::write_tensor(&padded, &cmd.output, &opts)?;
    Ok(0)
}

/// A whole zarr array read into memory, for `ndpad pad IN.zarr OUT.npy` (or `.pb`):
/// refused when it is larger than half of the memory (the limit an output held in
/// memory has), or its chunks are bounded as a zarr pad bounds them.
pub fn read_whole(cmd: &PadCmd) -> Result<Tensor, Failure> {
    let input = ZarrArray::open(&cmd.input)?;
    check_dtype(cmd.dtype, &input)?;
    Ok(ndpad_zarr::read_array(
        &input,
        default_max_output_bytes(),
        cmd.max_chunks,
        Some(&crate::interrupt::pad_interrupt()),
    )?)
}
