"""A canonical text of a Python tensor-expression program and its schedule, without
building any IR: what `compiler.build` keys its cache by before it imports xDSL
(`compiler.graph_cache`).

The text is made by reflection, not by a list of the fields that matter: every
attribute of every object of the te classes reachable from the arguments (and the
schedule) is written, with the class's name, so a field added to an expression
class tomorrow is part of the key without anyone remembering it. Objects are
written once and referred to by their number afterwards: two reads of one tensor
and reads of two equal-looking tensors give different texts, as they give
different programs. The process-wide counters that name tensors and axes (`uid`)
are not written as numbers (they differ from one process to the next); their
order is (the IR emitter may sort by it), and the schedule's tables keyed by uid
name the objects instead.

Anything else (a callable, a NumPy scalar, an object of another module) makes
the program unkeyable (`Unkeyable`): `compiler.build` then keys it by its IR as
before. The text is finer than the IR (two programs that emit the same IR may
get two texts): that costs a cache miss, never a wrong hit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_TE_MODULES = (
    "compiler.te.extern",
    "compiler.te.nodes",
    "compiler.te.primitives",
    "compiler.te.reducers",
    "compiler.te.scan",
    "compiler.te.schedule",
    "compiler.te.tensors",
)
"""The modules whose objects are written field by field."""

_UID_TABLES = {("Schedule", "stages"), ("Schedule", "_group_of"), ("Schedule", "_redirected")}
"""The schedule's attributes whose ints are uids of tensors (keys, or pairs of them)."""


class Unkeyable(Exception):
    """The program holds something the canonical text cannot write."""


@dataclass
class Fingerprint:
    """The canonical text, and the extern functions the program calls (`te.extern`)."""

    text: str
    externs: list[str] = field(default_factory=list)


def fingerprint(roots: Iterable[object]) -> Fingerprint:
    """The canonical text of the objects `roots` (tensors, a schedule) and all they reach;
    raises `Unkeyable`."""
    writer = _Writer()
    parts = [writer.value(r) for r in roots]
    done = 0
    while done < len(writer.order):  # a worklist, not recursion: networks are deep chains
        parts.append(writer.record(writer.order[done]))
        done += 1
    return Fingerprint(writer.finish(parts), sorted(writer.externs))


_SLOT = "\x00"
"""Marks a uid-table slot in the text: `repr` never leaves this character in a string."""


class _Writer:
    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}  # id(object) -> its number
        self.order: list[Any] = []  # the objects by number (and kept alive: their ids stay unique)
        self.uids: dict[int, int] = {}  # uid -> number of the object carrying it
        self.externs: set[str] = set()

    def finish(self, parts: list[str]) -> str:
        """The text, its uid-table slots naming objects, and the order of the uids."""
        pieces = "\n".join(parts).split(_SLOT)
        for k in range(1, len(pieces), 2):  # odd pieces: the uids of the slots
            uid = int(pieces[k])
            if uid not in self.uids:
                raise Unkeyable(f"a schedule table names uid {uid}, which nothing reachable carries")
            pieces[k] = f"@{self.uids[uid]}"
        order = " ".join(str(n) for _, n in sorted(self.uids.items()))
        return f"{''.join(pieces)}\nuid order: {order}"

    def value(self, v: Any, uid_table: bool = False) -> str:
        kind = type(v)
        if v is None or kind is bool:
            return repr(v)
        if kind is int:
            return f"{_SLOT}{v}{_SLOT}" if uid_table else f"i{v}"
        if kind is float:
            return f"f{v!r}"
        if kind is str:
            return repr(v)
        if kind is tuple or kind is list:
            items = ",".join(self.value(x, uid_table) for x in v)
            return f"({items})" if kind is tuple else f"[{items}]"
        if kind is set or kind is frozenset:
            if not uid_table:
                raise Unkeyable("a set outside the schedule's uid tables (its order is not canonical)")
            return "<set " + ",".join(self.value(x, uid_table) for x in sorted(v)) + ">"
        if kind is dict:
            return "{" + ",".join(f"{self.value(k, uid_table)}:{self.value(x)}" for k, x in v.items()) + "}"
        return self.object(v)

    def object(self, obj: Any) -> str:
        """A reference to `obj`, numbered when first met (its record is written later)."""
        cls = type(obj)
        if cls.__module__ not in _TE_MODULES:
            raise Unkeyable(f"cannot key a {cls.__module__}.{cls.__qualname__}")
        number = self.numbers.get(id(obj))
        if number is None:
            number = self.numbers[id(obj)] = len(self.order)
            self.order.append(obj)
        return f"@{number}"

    def function(self, f: Any) -> str:
        """A function by its name, its bytecode and constants and the values it closes over
        (a fast form's `make`: `ops.conv2d_nchw`'s closes over its stride, padding, ...);
        what it calls of the compiler is in the key by the compiler's source digest."""
        code = getattr(f, "__code__", None)
        if code is None:
            raise Unkeyable(f"cannot key the callable {f!r}")
        cells = tuple(c.cell_contents for c in f.__closure__ or ())
        consts = tuple(c for c in code.co_consts if type(c) in (int, float, str, bool, type(None)))
        return (f"<{f.__module__}.{f.__qualname__} {code.co_code.hex()} {self.value(consts)} "
                f"{self.value(cells)} {self.value(f.__defaults__)}>")

    def record(self, obj: Any) -> str:
        """`#n class<attribute=value ...>` of the object numbered n."""
        cls = type(obj)
        number = self.numbers[id(obj)]
        if cls.__qualname__ == "ExternCall":
            self.externs.add(obj.func)
        if cls.__qualname__ == "FastForm":
            return f"#{number} tensors.FastForm<inputs={self.value(obj.inputs)} make={self.function(obj.make)}>"
        try:
            attributes = sorted(vars(obj).items())
        except TypeError:  # no __dict__ (slots): not a class of ours as written today
            raise Unkeyable(f"cannot key a {cls.__qualname__} (no attributes to read)") from None
        fields = []
        for name, v in attributes:
            if name == "uid" and type(v) is int:
                if v in self.uids:
                    raise Unkeyable(f"two objects carry uid {v}")
                self.uids[v] = number
                continue
            fields.append(f"{name}={self.value(v, (cls.__qualname__, name) in _UID_TABLES)}")
        where = cls.__module__.rsplit(".", 1)[1]
        return f"#{number} {where}.{cls.__qualname__}<{' '.join(fields)}>"
