"""The ``ndpad`` command installed by ``pip install .`` (the console script that runs
the CLI compiled into the extension module), and how the tests find the command."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ndpad
from _helpers import REPO, cargo_built_ndpad, installed_ndpad, ndpad_command


def run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(installed_ndpad()), *args], capture_output=True,
                          timeout=300, **kwargs)


def test_pip_install_puts_ndpad_beside_python() -> None:
    assert installed_ndpad().is_file(), f"{installed_ndpad()} missing: pip install ."
    r = run("--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode() == f"ndpad {ndpad.__version__}\n"
    assert r.stderr == b""


def test_installed_ndpad_pads_a_file(tmp_path: Path) -> None:
    x = np.arange(48, dtype=np.uint8).reshape(6, 8)
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, x)
    r = run("pad", str(src), str(dst), "--mode", "reflect", "--pads", "2,2,2,2")
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    y = np.load(dst)
    assert y.dtype == np.uint8
    assert np.array_equal(y, np.pad(x, 2, mode="reflect"))
    # Through pipes: .npy in on stdin, out on stdout.
    r = run("pad", "-", "-", "--framework", "numpy", "--pad-width", "1:0",
            input=src.read_bytes())
    assert r.returncode == 0, r.stderr
    out = tmp_path / "piped.npy"
    out.write_bytes(r.stdout)
    assert np.array_equal(np.load(out), np.pad(x, ((1, 0), (1, 0))))


def test_installed_ndpad_exit_codes_and_messages(tmp_path: Path) -> None:
    r = run("pad", str(tmp_path / "missing.npy"), str(tmp_path / "o.npy"), "--pads", "1,1")
    assert r.returncode == 1
    assert r.stderr.decode().startswith("ndpad: error: ")
    assert "missing.npy" in r.stderr.decode()
    r = run("pad", "--no-such-flag")
    assert r.returncode == 2
    assert b"--no-such-flag" in r.stderr


def test_command_found_without_target_dir(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    """With CARGO_TARGET_DIR elsewhere, the tests run the installed command, not a
    stale or missing target/debug/ndpad."""
    monkeypatch.delenv("NDPAD_BIN", raising=False)
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path / "elsewhere"))
    found = ndpad_command()
    assert found == installed_ndpad()
    assert REPO / "target" not in found.parents
    r = subprocess.run([str(found), "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("ndpad ")


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in")
def test_cargo_fallback_uses_the_path_cargo_reports(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an installed command, the binary is where cargo says it built it
    (CARGO_TARGET_DIR honoured): a stand-in cargo reports a path under its target dir."""
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path / "tgt"))
    fake = tmp_path / "cargo"
    fake.write_text(
        "#!/bin/sh\n"
        "echo 'warning: noise'\n"
        "echo '{\"reason\":\"compiler-artifact\",\"target\":{\"name\":\"ndpad_cli\"},"
        "\"executable\":null}'\n"
        "echo \"{\\\"reason\\\":\\\"compiler-artifact\\\",\\\"target\\\":{\\\"name\\\":"
        "\\\"ndpad\\\"},\\\"executable\\\":\\\"$CARGO_TARGET_DIR/debug/ndpad\\\"}\"\n"
        "echo '{\"reason\":\"build-finished\",\"success\":true}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    assert cargo_built_ndpad(str(fake)) == tmp_path / "tgt" / "debug" / "ndpad"
    assert os.environ["CARGO_TARGET_DIR"] == str(tmp_path / "tgt")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals")
def test_binary_output_to_a_terminal_is_refused(tmp_path: Path) -> None:
    """``ndpad pad IN -`` with standard output a terminal: refused (exit 2), nothing
    written to the terminal, as zstd does; a pipe is fine (test above)."""
    import pty

    src = tmp_path / "in.npy"
    np.save(src, np.arange(6, dtype=np.uint8))
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([str(ndpad_command()), "pad", str(src), "-", "--pads", "1,1"],
                              stdout=follower, stderr=subprocess.PIPE, timeout=300)
        os.close(follower)
        follower = -1
        shown = b""
        try:
            while True:
                chunk = os.read(leader, 4096)
                if not chunk:
                    break
                shown += chunk
        except OSError:  # EIO: the terminal's other end is closed
            pass
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith(
        "ndpad: error: refusing to write binary .npy data to a terminal")
    assert shown == b""
