//! Reading tensor files by extension, and writing them atomically.

use std::fs;
use std::io::IsTerminal;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use ndpad::{DType, PadOptions, Tensor, TensorView};
use ndpad_formats::npy::{parse_npy_header, read_npy_as, NpyFile, NpyHeader, NpyStrings};
use ndpad_formats::onnx;
use ndpad_formats::FormatError;
use tempfile::NamedTempFile;

use crate::args::ExecArgs;
use crate::failure::Failure;

/// A tensor file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// NumPy `.npy`.
    Npy,
    /// ONNX `TensorProto` (`.pb`).
    Pb,
    /// A Zarr v3 array (a `.zarr` directory; `ndpad pad` only).
    Zarr,
}

/// The path that stands for standard input or output (`.npy` data).
pub const STDIO: &str = "-";

/// True for `-` (standard input or output).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// The format of `path` from its extension (a usage error when it has none ndpad
/// knows); `-` is `.npy` on standard input / output. An output `-` is refused when
/// standard output is a terminal (binary data would garble it), as zstd and gzip do.
pub fn format_of(path: &Path, role: &str) -> Result<Format, Failure> {
    if is_stdio(path) {
        if role == "output" && std::io::stdout().is_terminal() {
            return Err(Failure::usage(
                "refusing to write binary .npy data to a terminal: redirect standard output \
                 (`> out.npy`) or pipe it, or give an output file",
            ));
        }
        return Ok(Format::Npy);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    // A zarr node is told by its zarr.json, whatever its name; an output not named
    // as a tensor file is one too where it goes into an existing zarr group.
    let file_ext = matches!(ext.as_deref(), Some("npy" | "pb" | "onnx"));
    if ext.as_deref() != Some("zarr")
        && (crate::zarr::node_type(path).is_some()
            || (role == "output" && !file_ext && crate::zarr::in_group(path)))
    {
        return Ok(Format::Zarr);
    }
    match ext.as_deref() {
        Some("npy") => Ok(Format::Npy),
        Some("pb") => Ok(Format::Pb),
        Some("zarr") => Ok(Format::Zarr),
        Some("onnx") => Err(Failure::usage(format!(
            "{}: this is a model, not a tensor file; use `ndpad run {}` to run it \
             (`ndpad info` describes it)",
            path.display(),
            path.display()
        ))),
        _ => Err(Failure::usage(format!(
            "{}: cannot tell the {role}'s format: the name must end in .npy or .pb \
             (or be - for .npy on standard {}; `ndpad pad` also takes .zarr arrays, \
             `ndpad info` .zarr arrays and .onnx models)",
            path.display(),
            if role == "output" { "output" } else { "input" }
        ))),
    }
}

/// A message naming `path` and what is wrong with it. The library's messages about
/// the element type of raw .npy data name no flag; here they point at `--dtype`.
pub fn file_error(path: &Path, e: FormatError) -> Failure {
    match e {
        FormatError::Io { source, .. } => {
            Failure::rejected(format!("{}: {}", path.display(), io_text(&source)))
        }
        FormatError::NpyRawDType { .. } => Failure::rejected(format!(
            "{}: {e}; pass --dtype to say which",
            path.display()
        )),
        FormatError::DTypeOverride { dtype, .. } => {
            Failure::rejected(format!("{}: {e} (set by --dtype {dtype})", path.display()))
        }
        // These name the file themselves.
        FormatError::NotRegular { .. } | FormatError::Changed { .. } => {
            Failure::rejected(e.to_string())
        }
        other => Failure::rejected(format!("{}: {other}", path.display())),
    }
}

/// An I/O error's text without Rust's `(os error N)` suffix.
pub fn io_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// A tensor read from a file: a .npy file read whole, or owned.
pub enum Loaded {
    /// A `.npy` file, mapped when large.
    Npy(Box<NpyFile>),
    /// A tensor held in memory, with its name (a .pb's tensor name, a model value).
    Owned(Tensor, String),
    /// A `.npy` read from standard input, with its header.
    Piped(Tensor, Box<NpyHeader>),
}

impl Loaded {
    pub fn view(&self) -> TensorView<'_> {
        match self {
            Loaded::Npy(f) => f.view(),
            Loaded::Owned(t, _) | Loaded::Piped(t, _) => t.view(),
        }
    }

    /// The `.npy` header, for a tensor read from a `.npy` file or standard input.
    pub fn npy_header(&self) -> Option<&NpyHeader> {
        match self {
            Loaded::Npy(f) => Some(f.header()),
            Loaded::Piped(_, h) => Some(h),
            Loaded::Owned(..) => None,
        }
    }

    /// The kind and width of the strings of a `.npy` input (`U5`, `S3`).
    pub fn npy_strings(&self) -> Option<NpyStrings> {
        self.npy_header().and_then(NpyHeader::strings)
    }

    /// The tensor's own name, where the file gives one.
    pub fn name(&self) -> Option<&str> {
        match self {
            Loaded::Npy(_) | Loaded::Piped(..) => None,
            Loaded::Owned(_, n) if n.is_empty() => None,
            Loaded::Owned(_, n) => Some(n),
        }
    }
}

/// Reads a tensor file; `dtype` is the element type of raw .npy data, and must match
/// the file's own type otherwise.
pub fn read_tensor_file(path: &Path, dtype: Option<DType>) -> Result<Loaded, Failure> {
    if is_stdio(path) {
        return read_stdin(dtype);
    }
    let format = format_of(path, "input")?;
    check_readable(path)?;
    match format {
        Format::Npy => NpyFile::open_as(path, dtype)
            .map(|f| Loaded::Npy(Box::new(f)))
            .map_err(|e| file_error(path, e)),
        Format::Pb => {
            let bytes = ndpad_formats::read_regular(path).map_err(|e| file_error(path, e))?;
            let t = onnx::read_tensor(&bytes).map_err(|e| file_error(path, e))?;
            if let Some(d) = dtype {
                if d != t.tensor.dtype() {
                    return Err(Failure::rejected(format!(
                        "{}: --dtype {d} does not match the tensor's own type {} (a .pb file \
                         declares its type; --dtype is for raw .npy data)",
                        path.display(),
                        t.tensor.dtype()
                    )));
                }
            }
            Ok(Loaded::Owned(t.tensor, t.name))
        }
        Format::Zarr => Err(crate::zarr::only_pad(path)),
    }
}

/// Reads a `.npy` from standard input.
pub fn read_stdin(dtype: Option<DType>) -> Result<Loaded, Failure> {
    read_stdin_raw_as(dtype, None)
}

/// Reads a `.npy` from standard input: `dtype` as [`read_tensor_file`] takes it;
/// `raw` is the type of raw (`V1`/`V2`) data when `dtype` is not given (`ndpad run`:
/// the model's declaration).
pub fn read_stdin_raw_as(dtype: Option<DType>, raw: Option<DType>) -> Result<Loaded, Failure> {
    use std::io::Read;
    let path = Path::new("<stdin>");
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::rejected(format!("<stdin>: {}", io_text(&e))))?;
    let header = parse_npy_header(&bytes).map_err(|e| file_error(path, e))?;
    let t = match (read_npy_as(&bytes, dtype), raw) {
        (Err(FormatError::NpyRawDType { .. }), Some(d)) if dtype.is_none() => {
            read_npy_as(&bytes, Some(d))
        }
        (other, _) => other,
    }
    .map_err(|e| file_error(path, e))?;
    Ok(Loaded::Piped(t, Box::new(header)))
}

/// Fails early, with a clear message, for a missing file or a directory.
pub fn check_readable(path: &Path) -> Result<(), Failure> {
    if is_stdio(path) {
        return Ok(());
    }
    let meta = fs::metadata(path)
        .map_err(|e| Failure::rejected(format!("{}: {}", path.display(), io_text(&e))))?;
    if meta.is_dir() {
        return Err(Failure::rejected(format!(
            "{}: is a directory, not a tensor file",
            path.display()
        )));
    }
    Ok(())
}

/// True when `a` and `b` name the same existing file (also through links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
        false
    }
    #[cfg(not(unix))]
    {
        matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    }
}

/// Refuses an output that is one of the inputs, or a directory.
pub fn check_output(output: &Path, inputs: &[&Path]) -> Result<(), Failure> {
    for input in inputs {
        if same_file(output, input) {
            return Err(Failure::rejected(format!(
                "{}: the output is the input file {}; ndpad never modifies its input, \
                 choose another output",
                output.display(),
                input.display()
            )));
        }
    }
    if output.is_dir() {
        return Err(Failure::rejected(format!(
            "{}: is a directory; give the output file's name",
            output.display()
        )));
    }
    Ok(())
}

/// An output written to a temporary file beside its destination, not yet in place,
/// or the bytes for standard output.
pub enum Staged {
    /// A file, renamed into place by [`Staged::commit`].
    File {
        /// The temporary file.
        tmp: NamedTempFile,
        /// Where it goes.
        dest: PathBuf,
    },
    /// `.npy` bytes for standard output, written by [`Staged::commit`].
    Stdout(Vec<u8>),
}

/// The directory an output is written in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `view` in the format of `dest`'s extension to a temporary file in `dest`'s
/// directory. Nothing is at `dest` until [`Staged::commit`]; dropping a `Staged`
/// removes the temporary file. Strings go to `.npy` with `strings`' kind and least
/// width where given (the input's: a `U` input gives a `U` output).
pub fn stage(
    dest: &Path,
    view: &TensorView<'_>,
    name: &str,
    strings: Option<NpyStrings>,
    limit: Option<u64>,
) -> Result<Staged, Failure> {
    let format = format_of(dest, "output")?;
    check_string_file(dest, view, format, strings, limit)?;
    if is_stdio(dest) {
        let mut out = Vec::new();
        ndpad_formats::npy::write_npy_strings_to(&mut out, view, strings)
            .map_err(|e| Failure::rejected(format!("<stdout>: {e}")))?;
        return Ok(Staged::Stdout(out));
    }
    stage_with(dest, |w| {
        let written = match format {
            Format::Npy => ndpad_formats::npy::write_npy_strings_to(&mut &mut *w, view, strings),
            Format::Pb => onnx::write_tensor_to(&mut &mut *w, view, name),
            Format::Zarr => return Err(crate::zarr::only_pad(dest)),
        };
        written.map_err(|e| match e {
            FormatError::Io { source, .. } => write_failure(dest, &source),
            other => Failure::rejected(format!("{}: {other}", dest.display())),
        })
    })
}

fn write_failure(dest: &Path, e: &std::io::Error) -> Failure {
    Failure::rejected(format!("{}: cannot write: {}", dest.display(), io_text(e)))
}

/// Runs `write` on a temporary file in `dest`'s directory (buffered), then flushes
/// and syncs it. Nothing is at `dest` until [`Staged::commit`]; dropping a `Staged`,
/// or a failure of `write`, removes the temporary file.
pub fn stage_with(
    dest: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), Failure>,
) -> Result<Staged, Failure> {
    let mut tmp = temporary(dest)?;
    let mut w = BufWriter::with_capacity(1 << 20, Stoppable(tmp.as_file_mut()));
    write(&mut w)?;
    w.flush().map_err(|e| write_failure(dest, &e))?;
    drop(w);
    tmp.as_file()
        .sync_all()
        .map_err(|e| write_failure(dest, &e))?;
    Ok(Staged::File {
        tmp,
        dest: dest.to_path_buf(),
    })
}

/// A new temporary file in `dest`'s directory, removed when dropped.
fn temporary(dest: &Path) -> Result<NamedTempFile, Failure> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ndpad-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As a plainly created file: 0666 less the umask.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir_of(dest)).map_err(|e| {
        Failure::rejected(format!(
            "{}: cannot create a temporary file in its directory: {}",
            dest.display(),
            io_text(&e)
        ))
    })
}

/// Checks, before any work, that an output can be staged beside `dest` (a file is
/// created there and removed); standard output always can.
pub fn check_writable(dest: &Path) -> Result<(), Failure> {
    if is_stdio(dest) {
        return Ok(());
    }
    temporary(dest).map(drop)
}

/// Bytes written to an output file per call: a signal stops a long write within one.
const WRITE_PIECE: usize = 16 << 20;

/// A writer that fails once SIGINT or SIGTERM arrived, asked before each piece of
/// at most [`WRITE_PIECE`] bytes.
struct Stoppable<W>(W);

impl<W: Write> Write for Stoppable<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if crate::interrupt::received().is_some() {
            return Err(std::io::Error::other("interrupted"));
        }
        self.0.write(&buf[..buf.len().min(WRITE_PIECE)])
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl Staged {
    /// Renames the temporary file into place (replacing what was there), unless a
    /// signal arrived (the temporary file is then removed).
    pub fn commit(self) -> Result<(), Failure> {
        crate::interrupt::check()?;
        let (tmp, dest) = match self {
            Staged::File { tmp, dest } => (tmp, dest),
            Staged::Stdout(bytes) => {
                let mut out = std::io::stdout().lock();
                return out
                    .write_all(&bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| Failure::rejected(format!("<stdout>: {}", io_text(&e))));
            }
        };
        tmp.persist(&dest).map(|_| ()).map_err(|e| {
            Failure::rejected(format!(
                "{}: cannot move the result into place: {}",
                dest.display(),
                io_text(&e.error)
            ))
        })
    }
}

/// Writes one tensor file atomically (a string tensor's file no larger than `limit`).
pub fn write_tensor_file(
    dest: &Path,
    view: &TensorView<'_>,
    name: &str,
    strings: Option<NpyStrings>,
    limit: Option<u64>,
) -> Result<(), Failure> {
    stage(dest, view, name, strings, limit)?.commit()
}

/// Refuses a string tensor whose file would exceed the output limit: in memory the
/// elements share their text, in a `.npy` file each takes the longest one's width; a
/// `.pb` file holds each element's text as a buffer of its own (24 bytes) and a
/// field (up to 3 bytes of framing for text this long).
fn check_string_file(
    dest: &Path,
    view: &TensorView<'_>,
    format: Format,
    strings: Option<NpyStrings>,
    limit: Option<u64>,
) -> Result<(), Failure> {
    let (ndpad::Data::Strings(s), Some(limit)) = (view.data(), limit) else {
        return Ok(());
    };
    let failed = |e: String| Failure::rejected(format!("{}: {e}", dest.display()));
    let bytes = match format {
        Format::Npy => {
            ndpad_formats::npy::npy_len(view, strings).map_err(|e| failed(e.to_string()))?
        }
        _ => s.iter().map(|x| x.len() as u128 + 27).sum(),
    };
    if bytes > u128::from(limit) {
        let e = ndpad::PadError::OutputTooLarge {
            shape: view.shape().to_vec(),
            bytes,
            limit,
        };
        return Err(failed(pad_error_text(&e)));
    }
    Ok(())
}

/// The tensor name to give a .pb output: its file stem.
pub fn stem_name(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("output")
        .to_string()
}

/// An owned copy of a view.
pub fn to_owned(view: &TensorView<'_>) -> Result<Tensor, ndpad::PadError> {
    match view.data() {
        ndpad::Data::Bytes(b) => Tensor::from_bytes(view.dtype(), view.shape(), b.to_vec()),
        ndpad::Data::Strings(s) => Tensor::from_strings(view.shape(), s.clone()),
    }
}

/// Bytes a tensor's elements take (strings: their text).
pub fn data_bytes(view: &TensorView<'_>) -> u128 {
    match view.data() {
        ndpad::Data::Bytes(b) => b.len() as u128,
        ndpad::Data::Strings(s) => s.iter().map(|x| x.len() as u128).sum(),
    }
}

/// The default output limit: half of the physical memory, or 8 GiB where that is not
/// known.
pub fn default_max_output_bytes() -> u64 {
    physical_memory().map_or(8 << 30, |m| m / 2)
}

fn physical_memory() -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// The kernel options from the command line.
pub fn pad_options(exec: &ExecArgs) -> PadOptions {
    PadOptions {
        threads: exec.threads,
        max_output_bytes: match exec.max_output_bytes {
            Some(limit) => limit.0,
            None => Some(default_max_output_bytes()),
        },
        interrupt: Some(crate::interrupt::pad_interrupt()),
        ..PadOptions::default()
    }
}

/// A core error's text, pointing at `--max-output-bytes` when that is what refused it.
pub fn pad_error_text(e: &ndpad::PadError) -> String {
    match e {
        ndpad::PadError::OutputTooLarge { .. } => {
            format!("{e} (set by --max-output-bytes; see --help)")
        }
        _ => e.to_string(),
    }
}
