//! The `ndpad` command line as a library: [`main`] runs one command line and returns
//! its exit code. The `ndpad` binary (`src/main.rs`) and the Python package's `ndpad`
//! command (the extension's `cli`, installed by `pip install .`) both call it, so one
//! build serves both.
//!
//! Commands: pad tensor files (.npy, ONNX .pb, zarr v3 arrays), infer padded shapes,
//! describe files and ONNX models, run ONNX models made of Pad nodes, and run ONNX
//! backend-test directories.
//!
//! Exit codes: 0 success, 1 a failed test or a rejected input, 2 a usage error (a
//! problem visible on the command line alone, before any file is read), 130 / 143
//! stopped by SIGINT / SIGTERM (`interrupt`).

// No unsafe code but the one allowed call of mallopt (zarr.rs, `keep_freed_memory`).
#![deny(unsafe_code)]

mod args;
mod compare;
mod docs;
mod failure;
mod info;
mod interrupt;
mod model;
mod onnx_test;
mod padcmd;
mod progress;
mod tensor_io;
mod windows;
mod zarr;

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::failure::Failure;

/// Runs the command line `args` (the program's name first, as `std::env::args_os`
/// gives it) and returns the process's exit code: 0 success, 1 a failed test or a
/// rejected input, 2 a usage error, 128 + the signal's number when stopped by SIGINT
/// or SIGTERM. Installs the SIGINT / SIGTERM handlers: meant to be the whole process.
/// Everything it printed is flushed when it returns.
pub fn main<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let code = run(args);
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    code
}

fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // Help and version go to stdout (exit 0); usage errors to stderr (exit 2), with
        // the prefix of every other error: `ndpad: error: ...`.
        Err(e) => {
            let text = e.render().to_string();
            if text.starts_with("error:") {
                let _ = write!(std::io::stderr().lock(), "ndpad: {text}");
            } else {
                let _ = e.print();
            }
            return e.exit_code();
        }
    };
    interrupt::install();
    let result = match cli.command {
        Command::Pad(a) => padcmd::pad(&a),
        Command::Shape(a) => padcmd::shape(&a),
        Command::Info(a) if zarr::is_zarr(&a.path) => zarr::info(&a),
        Command::Info(a) => info::info(&a),
        Command::Run(a) => model::run(&a),
        Command::OnnxTest(a) => onnx_test::onnx_test(&a),
        Command::Completions(a) => docs::completions(a.shell),
        Command::Man => docs::man(),
    };
    // A command stopped by a signal fails with the signal's code and message, whatever
    // error its stop took the form of (its staged files are removed by now).
    let result = match (result, interrupt::received()) {
        (Err(_), Some(sig)) => Err(interrupt::failure(sig)),
        (result, _) => result,
    };
    match result {
        Ok(code) => code,
        Err(Failure { code, message }) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "ndpad: error: {message}");
            if code == failure::USAGE {
                let _ = writeln!(err, "For more information, try '--help'.");
            }
            code
        }
    }
}
