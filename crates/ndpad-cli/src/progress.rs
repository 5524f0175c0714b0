//! A progress indicator on stderr, shown only on a terminal and only once the work has
//! taken more than a second.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work shorter than this shows nothing.
const DELAY: Duration = Duration::from_secs(1);

/// A spinner or bar that appears after [`DELAY`] and is cleared when dropped.
pub struct Progress {
    bar: Option<ProgressBar>,
    stop: Option<Sender<()>>,
    waiter: Option<JoinHandle<()>>,
}

impl Progress {
    /// An indeterminate spinner with a message.
    pub fn spinner(message: &str) -> Progress {
        Progress::start(None, message)
    }

    /// A bar of `len` steps.
    pub fn bar(len: u64, message: &str) -> Progress {
        Progress::start(Some(len), message)
    }

    fn start(len: Option<u64>, message: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress {
                bar: None,
                stop: None,
                waiter: None,
            };
        }
        let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::hidden());
        let style = match len {
            Some(_) => ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({elapsed})")
                .map(|s| s.progress_chars("=> ")),
            None => ProgressStyle::with_template("{spinner} {msg} ({elapsed})"),
        };
        if let Ok(style) = style {
            bar.set_style(style);
        }
        bar.set_message(message.to_string());
        let shown = bar.clone();
        let (tx, rx) = mpsc::channel::<()>();
        let waiter = std::thread::spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(DELAY) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Progress {
            bar: Some(bar),
            stop: Some(tx),
            waiter: Some(waiter),
        }
    }

    pub fn set_message(&self, message: &str) {
        if let Some(b) = &self.bar {
            b.set_message(message.to_string());
        }
    }

    pub fn inc(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// Runs `f` (which prints to stdout) with the bar hidden, so lines do not mix.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// Clears the indicator.
    pub fn finish(self) {
        drop(self);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(w) = self.waiter.take() {
            let _ = w.join();
        }
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
