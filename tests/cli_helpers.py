"""Helpers for the tests of the ``casino-env`` command's console behaviour."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)  # Linux


def run_into_closed_pipe(*args: str, lines: int = 2) -> tuple[str, str, int]:
    """Run ``python -m casino_env ARGS`` like ``casino-env ARGS | head -LINES``: read that many
    lines of its output, then close the pipe. Returns (lines read, stderr, exit status).

    The pipe is shrunk to one page (4 KiB) and read a byte at a time, so the command cannot
    write all of its output before the reader stops: it always meets the closed pipe."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen([sys.executable, "-m", "casino_env", *args], stdout=write_end,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    os.close(write_end)
    got = b""
    while got.count(b"\n") < lines:
        byte = os.read(read_end, 1)
        if not byte:
            break
        got += byte
    os.close(read_end)
    err = proc.stderr.read()
    proc.stderr.close()
    return got.decode(), err, proc.wait(timeout=120)
