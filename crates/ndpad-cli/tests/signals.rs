//! Interrupted and disturbed runs: SIGINT / SIGTERM stop a pad promptly and leave
//! nothing behind; an input that is not a regular file is refused, not waited on; an
//! input truncated while it is read is an error, never a signal.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{listing, s, write};
use ndpad::Tensor;

/// One signal test at a time: they measure how fast the process stops.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The longest a pad may take to stop after the signal.
/// The goal is 0.2 s (5-100 ms measured on the 2-core VM, the end of a write and the
/// removal of its dirty pages included); the bound leaves room for a loaded machine.
const PROMPT: Duration = Duration::from_millis(500);

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ndpad"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A 16 MiB u8 image whose edge pad by 8192 is 400 MiB.
fn big_input(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("big.npy");
    write(
        &path,
        &Tensor::from_slice(&[4096, 4096], &vec![7u8; 4096 * 4096]).unwrap(),
    );
    path
}

/// Waits (up to 10 s) until `child` catches SIGINT and SIGTERM (its handlers are
/// installed: `SigCgt` in /proc), so that a loaded machine's slow start does not let
/// the signal find the default action.
fn wait_for_handlers(child: &Child) {
    let status = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("SigCgt:"))?.to_string();
                u64::from_str_radix(line["SigCgt:".len()..].trim(), 16).ok()
            })
            .unwrap_or(0);
        // Bit n - 1 for signal n: SIGINT 2, SIGTERM 15.
        if caught & (1 << 1) != 0 && caught & (1 << 14) != 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The resident memory of `child`, in MiB (0 once it is gone).
fn resident_mib(child: &Child) -> u64 {
    std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?.to_string();
            line["VmRSS:".len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib >> 10)
}

/// Sends `signal` to `child` once it is `busy`, then returns its exit code, stderr and
/// how long it took to exit after the signal.
fn interrupt(
    mut child: Child,
    signal: &str,
    busy: impl Fn(&Child) -> bool,
) -> (Option<i32>, String, Duration) {
    wait_for_handlers(&child);
    let started = Instant::now();
    while !busy(&child) {
        assert!(started.elapsed() < Duration::from_secs(20), "never busy");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the signal"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let sent = Instant::now();
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = child.wait().unwrap().code();
    let took = sent.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    (code, err, took)
}

#[test]
fn sigint_stops_an_in_memory_pad_and_leaves_nothing() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path());
    let out = dir.path().join("out.npy");
    for (signal, code, name) in [("-INT", 130, "SIGINT"), ("-TERM", 143, "SIGTERM")] {
        let child = spawn(&[
            "pad",
            s(&input),
            s(&out),
            "--mode",
            "edge",
            "--pads",
            "8192,8192,8192,8192",
            "--window-bytes",
            "64G",
        ]);
        // While the kernel writes the output (100 MiB of it resident) or the file is
        // written.
        let (got, err, took) = interrupt(child, signal, |c| resident_mib(c) >= 100);
        assert_eq!(got, Some(code), "{err}");
        assert_eq!(
            err.trim_end(),
            format!("ndpad: error: interrupted by {name}; nothing was written")
        );
        eprintln!("{name}: stopped {took:?} after the signal");
        assert!(took < PROMPT, "stopped {took:?} after {name}");
        assert_eq!(listing(dir.path()), ["big.npy"]);
    }
}

#[test]
fn sigint_stops_a_pad_by_windows_and_removes_its_temporary_file() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path());
    let out = dir.path().join("out.npy");
    let child = spawn(&[
        "pad",
        s(&input),
        s(&out),
        "--mode",
        "reflect",
        "--pads",
        "4000,4000,4000,4000",
        "--window-bytes",
        "1M",
    ]);
    // While windows are being written to the temporary file.
    let staged = |_: &Child| listing(dir.path()).iter().any(|n| n.ends_with(".tmp"));
    let (got, err, took) = interrupt(child, "-INT", staged);
    assert_eq!(got, Some(130), "{err}");
    assert!(took < PROMPT, "stopped {took:?} after SIGINT");
    assert_eq!(listing(dir.path()), ["big.npy"]);
}

#[test]
fn a_fifo_input_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["f.npy", "f.pb"] {
        let fifo = dir.path().join(name);
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let out = dir.path().join("out.npy");
        for args in [
            vec!["pad", s(&fifo), s(&out), "--pads", "1,1"],
            vec!["info", s(&fifo)],
        ] {
            let mut child = spawn(&args);
            let started = Instant::now();
            while child.try_wait().unwrap().is_none() {
                if started.elapsed() > Duration::from_secs(10) {
                    let _ = child.kill();
                    panic!("{args:?}: still waiting on the FIFO after 10 s");
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let output = child.wait_with_output().unwrap();
            assert_eq!(output.status.code(), Some(1));
            let err = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                err.trim_end(),
                format!(
                    "ndpad: error: {}: is a FIFO, not a regular file",
                    fifo.display()
                ),
                "{args:?}"
            );
        }
    }
}

#[test]
fn an_input_truncated_while_read_is_an_error_not_a_signal() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // 256 MiB: long enough to be read while the truncation comes.
    let path = dir.path().join("big.npy");
    write(
        &path,
        &Tensor::from_slice(&[16384, 16384], &vec![3u8; 16384 * 16384]).unwrap(),
    );
    let out = dir.path().join("out.npy");
    for delay in [0u64, 20, 40, 60, 80, 100, 150, 200] {
        let copy = dir.path().join("in.npy");
        std::fs::copy(&path, &copy).unwrap();
        let child = spawn(&["pad", s(&copy), s(&out), "--pads", "1,1,1,1"]);
        std::thread::sleep(Duration::from_millis(delay));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&copy)
            .unwrap()
            .set_len(1000)
            .unwrap();
        let output = child.wait_with_output().unwrap();
        // Exit 0 when the read finished first, 1 with a message naming the file
        // otherwise; never a signal (SIGBUS gives no exit code).
        let code = output.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "delay {delay}: {:?}",
            output.status
        );
        if code == Some(1) {
            let err = String::from_utf8_lossy(&output.stderr);
            assert!(err.contains(s(&copy)), "{err}");
        }
        let _ = std::fs::remove_file(&out);
    }
}

/// An output whose directory cannot take the staged file is refused before the pad
/// (it was found only after padding the whole input): here a 1 TiB pad in memory,
/// which would otherwise fail on the output limit, names the directory instead.
#[test]
fn an_unwritable_output_directory_is_found_before_padding() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.npy");
    write(&input, &Tensor::from_slice(&[2], &[1u8, 2]).unwrap());
    let out = dir.path().join("missing").join("out.npy");
    let output = Command::new(env!("CARGO_BIN_EXE_ndpad"))
        .args(["pad", s(&input), s(&out), "--pads", "1099511627776,0"])
        .args(["--window-bytes", "4398046511104"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.starts_with(&format!(
            "ndpad: error: {}: cannot create a temporary file in its directory: ",
            out.display()
        )),
        "{err}"
    );
}
