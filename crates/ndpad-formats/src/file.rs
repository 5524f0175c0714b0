//! Input files: regular files only, read whole or at offsets, every failure naming
//! the file. A FIFO, socket or device is refused before it is read (a read from a
//! FIFO blocks until a writer comes, a device may never end), and a file that
//! shrinks or grows while it is read is an error, never a short tensor or a signal
//! (inputs are read, not memory-mapped: a mapped file truncated by another process
//! faults the reader with SIGBUS).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::FormatError;

/// Opens `path` for reading, refusing anything but a regular file; its size as it
/// was when opened.
///
/// # Errors
/// [`FormatError::Io`] when it cannot be opened; [`FormatError::NotRegular`] for a
/// FIFO, socket, device or directory.
///
/// ```
/// let e = ndpad_formats::open_regular(std::path::Path::new("/dev/null")).unwrap_err();
/// assert_eq!(e.to_string(), "/dev/null: is a character device, not a regular file");
/// ```
pub fn open_regular(path: &Path) -> Result<(File, u64), FormatError> {
    let name = || path.display().to_string();
    let io = |source| FormatError::Io {
        path: name(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Opening a FIFO for reading blocks until a writer opens it; without
        // blocking, the open returns at once and the check below refuses it.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(FormatError::NotRegular {
            path: name(),
            kind: kind_of(&meta.file_type()),
        });
    }
    Ok((file, meta.len()))
}

/// What a file that is not a regular file is, in words.
fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Reads exactly `buf.len()` bytes of `file` (named `path`) from its current
/// position; a file that ends sooner was changed while being read.
///
/// # Errors
/// [`FormatError::Io`] on a read error; [`FormatError::Changed`] when the file ends
/// before `buf` is full (`offset`, `size`: where `buf` starts in the file, and the
/// file's size when it was opened).
pub fn read_exact_named(
    file: &mut impl Read,
    path: &Path,
    buf: &mut [u8],
    offset: u64,
    size: u64,
) -> Result<(), FormatError> {
    let mut done = 0;
    while done < buf.len() {
        match file.read(&mut buf[done..]) {
            Ok(0) => {
                return Err(FormatError::Changed {
                    path: path.display().to_string(),
                    at: offset + done as u64,
                    size,
                })
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(FormatError::Io {
                    path: path.display().to_string(),
                    source,
                })
            }
        }
    }
    Ok(())
}

/// Reads a whole regular file: the bytes it had when opened, the allocation
/// fallible.
///
/// # Errors
/// As [`open_regular`] and [`read_exact_named`]; [`FormatError::Changed`] when the
/// file grew while being read; [`FormatError::Io`] (out of memory) when its size
/// cannot be allocated.
pub fn read_regular(path: &Path) -> Result<Vec<u8>, FormatError> {
    let (mut file, size) = open_regular(path)?;
    let mut bytes = alloc(path.display(), size)?;
    read_exact_named(&mut file, path, &mut bytes, 0, size)?;
    check_end(&mut file, path, size)?;
    Ok(bytes)
}

/// A zeroed buffer of `size` bytes for reading the file `path`, allocated fallibly.
pub(crate) fn alloc(path: impl std::fmt::Display, size: u64) -> Result<Vec<u8>, FormatError> {
    let oom = || FormatError::Io {
        path: path.to_string(),
        source: std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("cannot allocate {size} bytes to read it"),
        ),
    };
    let n = usize::try_from(size).map_err(|_| oom())?;
    ndpad::zeroed_vec(n).ok_or_else(oom)
}

/// Checks that `file`, read to byte `size`, ends there (it did not grow).
pub(crate) fn check_end(file: &mut impl Read, path: &Path, size: u64) -> Result<(), FormatError> {
    let mut one = [0u8; 1];
    loop {
        return match file.read(&mut one) {
            Ok(0) => Ok(()),
            Ok(_) => Err(FormatError::Changed {
                path: path.display().to_string(),
                at: size,
                size,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => Err(FormatError::Io {
                path: path.display().to_string(),
                source,
            }),
        };
    }
}
