//! `ndpad`: pad tensor files (.npy, ONNX .pb), run ONNX models made of Pad nodes, and
//! run ONNX backend-test directories.
//!
//! Exit codes: 0 success, 1 a failed test or a rejected input, 2 a usage error (a
//! problem visible on the command line alone, before any file is read).

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

use std::io::Write;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::failure::Failure;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
        Err(e) => e.exit(),
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
    let code = match result {
        Ok(code) => code,
        Err(Failure { code, message }) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "ndpad: error: {message}");
            if code == failure::USAGE {
                let _ = writeln!(err, "For more information, try '--help'.");
            }
            code
        }
    };
    std::process::exit(code);
}
