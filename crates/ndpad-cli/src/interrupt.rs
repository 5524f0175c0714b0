//! SIGINT (Ctrl-C) and SIGTERM: the command stops at its next check (between parts
//! of a pad, windows, chunks and output writes), everything it staged is removed as
//! its guards drop, and the process exits with 128 + the signal's number (130 for
//! SIGINT, 143 for SIGTERM). A second signal ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crate::failure::Failure;

/// Whether a signal arrived, and which.
struct Received {
    any: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
}

static RECEIVED: OnceLock<Received> = OnceLock::new();

/// The signals that stop a command.
#[cfg(unix)]
const SIGNALS: [i32; 2] = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
#[cfg(not(unix))]
const SIGNALS: [i32; 1] = [signal_hook::consts::SIGINT];

/// Installs the handlers (once, at start).
pub fn install() {
    let received = RECEIVED.get_or_init(|| Received {
        any: Arc::new(AtomicBool::new(false)),
        which: Arc::new(AtomicUsize::new(0)),
    });
    for sig in SIGNALS {
        // The first signal sets the flags; a second one, finding them set, exits.
        // Registration fails only for forbidden signals (not these): then the
        // default action (termination) stays, which is the best left.
        let code = 128 + sig;
        let _ =
            signal_hook::flag::register_conditional_shutdown(sig, code, Arc::clone(&received.any));
        let _ = signal_hook::flag::register_usize(sig, Arc::clone(&received.which), sig as usize);
        let _ = signal_hook::flag::register(sig, Arc::clone(&received.any));
    }
}

/// The signal that arrived, if one did.
pub fn received() -> Option<i32> {
    let r = RECEIVED.get()?;
    if !r.any.load(Ordering::SeqCst) {
        return None;
    }
    Some(match r.which.load(Ordering::SeqCst) {
        0 => SIGNALS[0],
        s => s as i32,
    })
}

/// `Err` once a signal arrived: the failure that ends the command.
pub fn check() -> Result<(), Failure> {
    received().map_or(Ok(()), |sig| Err(failure(sig)))
}

/// The failure of a command stopped by `sig`: exit code 128 + `sig`.
pub fn failure(sig: i32) -> Failure {
    let name = match sig {
        2 => "SIGINT",
        15 => "SIGTERM",
        _ => "a signal",
    };
    Failure {
        code: 128 + sig,
        message: format!("interrupted by {name}; nothing was written"),
    }
}

/// The kernel's question between parts of a pad.
pub fn pad_interrupt() -> ndpad::Interrupt {
    ndpad::Interrupt::new(|| received().is_some())
}
