//! The CLI's one error type: a message and the exit code it leads to.

/// Exit code of a failed test or a rejected input.
pub const REJECTED: i32 = 1;
/// Exit code of a usage error.
pub const USAGE: i32 = 2;

/// Why a command failed: printed as `ndpad: error: <message>`, then the process exits
/// with `code`.
#[derive(Debug)]
pub struct Failure {
    /// 1 (rejected input) or 2 (usage error).
    pub code: i32,
    /// What went wrong, naming the file or argument and the problem.
    pub message: String,
}

impl Failure {
    /// A usage error (exit code 2): visible on the command line alone.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: USAGE,
            message: message.into(),
        }
    }

    /// A rejected input (exit code 1).
    pub fn rejected(message: impl Into<String>) -> Failure {
        Failure {
            code: REJECTED,
            message: message.into(),
        }
    }
}

/// The result of a command: the exit code on success.
pub type CmdResult = Result<i32, Failure>;
