"""Tuning logs: the best schedule found per workload, as JSON lines.

`compiler.tune` appends one record per tuning run (like AutoTVM's and Ansor's
logs); `compiler.build` without a schedule looks its workload up and uses the
best recorded schedule. A record:

    {"version": 1, "key": "3f1c...", "target": "znver3/v256/r16/c2",
     "workload": "C 512x512 <- A, B", "ms": 12.9, "baseline_ms": 14.1,
     "trials": 40, "seconds": 61.2, "schedule": "sched.schedule @main { ... }"}

The key hashes the `te.func` text (structure, shapes, dtypes, with the
function's name normalized) and the target (CPU, vector width, registers,
cores), so a log tuned on one machine is not used on another. Builds never
need the log: a missing file is no log, and a line that does not parse or
whose schedule does not fit the program (a stale record) is skipped with a
warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler.errors import IRError

if TYPE_CHECKING:  # xDSL and the IR are imported where used: `log_path` needs neither
    from xdsl.dialects.builtin import ModuleOp

    from compiler.analysis.target import Target
    from compiler.dialects import sched, te

LOG_ENV = "COMPILER_TUNING_LOG"
VERSION = 1


class TuningLogWarning(UserWarning):
    """A tuning log line that was skipped (corrupt, or stale for its program)."""


@dataclass
class Record:
    key: str
    ms: float
    schedule: str
    line: int  # 1-based line of the log
    data: dict[str, Any]


def log_path(tuning_log: str | os.PathLike[str] | None) -> Path | None:
    """The log to read: the argument, else $COMPILER_TUNING_LOG, else none."""
    path = tuning_log if tuning_log is not None else os.environ.get(LOG_ENV) or None
    return None if path is None else Path(path)


def function_of(module: ModuleOp, name: str) -> te.FuncOp:
    from compiler.dialects import te

    for op in module.ops:
        if isinstance(op, te.FuncOp) and op.sym_name.data == name:
            return op
    raise IRError(f"no te.func @{name} in the module")


def workload_text(func: te.FuncOp) -> str:
    """The function's text with its name normalized (`@main`)."""
    from xdsl.dialects.builtin import StringAttr

    clone = func.clone()
    clone.sym_name = StringAttr("main")
    return str(clone)


def workload_key(func: te.FuncOp, target: Target | None = None) -> str:
    from compiler.analysis.target import host_target

    target = target or host_target()
    digest = hashlib.sha256(f"{workload_text(func)}\n{target.key()}\nv{VERSION}".encode())
    return digest.hexdigest()[:24]


def read_log(path: Path) -> dict[str, Record]:
    """The best (fastest) record per key; corrupt lines are skipped with a warning."""
    best: dict[str, Record] = {}
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return best
    except OSError as err:
        warnings.warn(f"tuning log {path}: can't read it ({err}); building without it", TuningLogWarning, stacklevel=3)
        return best
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
            record = Record(str(data["key"]), float(data["ms"]), str(data["schedule"]), number, data)
            if data.get("version") != VERSION:
                raise IRError(f"version {data.get('version')!r}, expected {VERSION}")
        except (ValueError, KeyError, TypeError) as err:
            warnings.warn(f"tuning log {path}:{number}: skipped a corrupt line ({type(err).__name__}: {err})",
                          TuningLogWarning, stacklevel=3)
            continue
        if record.key not in best or record.ms < best[record.key].ms:
            best[record.key] = record
    return best


def parse_schedule(text: str, name: str) -> sched.ScheduleOp:
    """A `sched.schedule` op from its text, naming the function `name`."""
    from xdsl.dialects.builtin import SymbolRefAttr

    from compiler.context import make_context
    from compiler.dialects import sched
    from compiler.dialects.syntax import IRParser

    op = IRParser(make_context(), text).parse_op()
    if not isinstance(op, sched.ScheduleOp):
        raise IRError(f"expected a sched.schedule op, got {op.name}")
    op.func = SymbolRefAttr(name)
    return op


def install_schedule(module: ModuleOp, name: str, text: str) -> None:
    """Adds the schedule `text` to the function `name` (which has none); raises
    ValueError (and leaves the module as it was) when it does not fit the program."""
    from xdsl.utils.exceptions import ParseError, VerifyException

    try:
        op = parse_schedule(text, name)
    except ParseError as err:
        raise IRError(f"the schedule does not parse: {str(err).strip().splitlines()[-1]}") from None
    module.body.block.add_op(op)
    try:
        op.verify()
    except VerifyException as err:
        op.detach()
        op.erase()
        raise IRError(f"the schedule does not fit the program: {err}") from None


def apply_logged_schedule(module: ModuleOp, name: str, tuning_log: str | os.PathLike[str] | None) -> Record | None:
    """Installs the best logged schedule of the function `name` (which must have no
    schedule yet); None when there is no log or no usable record for it."""
    from compiler.schedule.model import schedule_of

    path = log_path(tuning_log)
    if path is None:
        return None
    func = function_of(module, name)
    if schedule_of(module, func) is not None:
        return None
    record = read_log(path).get(workload_key(func))
    if record is None:
        return None
    try:
        install_schedule(module, name, record.schedule)
    except ValueError as err:
        warnings.warn(f"tuning log {path}:{record.line}: skipped a stale record ({err})", TuningLogWarning, stacklevel=3)
        return None
    return record


def append_record(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Appends one record (one line, written at once)."""
    line = json.dumps({"version": VERSION, **data}, sort_keys=True) + "\n"
    with open(path, "a") as f:
        f.write(line)
