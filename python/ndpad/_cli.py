"""The ``ndpad`` command that ``pip install .`` installs: the Rust command line,
compiled into the extension module (one build for the Python package and the CLI)."""

from __future__ import annotations

import sys


def main() -> None:
    """Runs ``ndpad`` with ``sys.argv`` and exits with its code (never returns)."""
    from ._ndpad import cli

    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    cli(sys.argv)
