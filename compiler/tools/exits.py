"""How the command-line tools end on what they cannot report as a diagnostic: a closed
output pipe, and an internal error (a bug of ours: one line, not a traceback, unless
COMPILER_TRACEBACK asks for it)."""

from __future__ import annotations

import os
import sys

SIGPIPE_STATUS = 128 + 13
"""The shell's status for a process killed by SIGPIPE (the reader of its output went away)."""

INTERNAL_ERROR_STATUS = 2


def exit_on_broken_pipe() -> int:
    """After a BrokenPipeError on stdout: point stdout at /dev/null, so that the
    interpreter's final flush does not fail again, and return SIGPIPE's status
    (https://docs.python.org/3/library/signal.html#note-on-sigpipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return SIGPIPE_STATUS


def internal_error(err: Exception) -> int:
    """Reports `err` in one line and returns the internal-error status; with
    COMPILER_TRACEBACK set, re-raises it for its traceback."""
    if os.environ.get("COMPILER_TRACEBACK"):
        raise err
    print(f"internal error: {type(err).__name__}: {err}", file=sys.stderr)
    return INTERNAL_ERROR_STATUS
