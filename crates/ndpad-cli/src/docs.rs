//! `ndpad completions` and `ndpad man`: generated from the command line's definition.

use std::io::Write;

use clap::CommandFactory;

use crate::args::Cli;
use crate::failure::{CmdResult, Failure};
use crate::tensor_io::io_text;

fn stdout_failure(e: &std::io::Error) -> Failure {
    Failure::rejected(format!("writing to stdout: {}", io_text(e)))
}

/// Prints the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> CmdResult {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ndpad", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .map_err(|e| stdout_failure(&e))?;
    Ok(0)
}

/// Prints the man page of `ndpad`, then one section per command.
pub fn man() -> CmdResult {
    let cmd = Cli::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .map_err(|e| stdout_failure(&e))?;
    for sub in cmd.get_subcommands() {
        let sub = sub.clone().name(format!("ndpad-{}", sub.get_name()));
        clap_mangen::Man::new(sub)
            .render(&mut page)
            .map_err(|e| stdout_failure(&e))?;
    }
    let mut out = std::io::stdout().lock();
    out.write_all(&page)
        .and_then(|()| out.flush())
        .map_err(|e| stdout_failure(&e))?;
    Ok(0)
}
