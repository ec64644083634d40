"""lower-to-llvm, step 0 (dedup): outlined functions that are the same code are one.

A network repeats layers of one shape (the seed 000 chain's two 3x3 convs and
their pads, a ResNet stage's blocks): outlined, their parallel loops (and loop
nests) are the same function but for names, and each copy cost the Python lowering and LLVM
as much as the first. `merge_identical_outlined` keeps the first of each set
of equal bodies and points the other forks (`llvm.mlir.addressof`) and calls
(outlined serial nests) at it, as TVM's compile engine reuses a lowered
function for a structurally equal one.

Equal means: the same ops in the same order with the same operands (numbered
by definition, not named; in any order for a commutative integer op), types, properties and attributes, where the alias
annotations of aliasing.py count by what they tell of the body's own accesses:
each access's group, numbered in the order the body first uses it, and which of
the body's groups its noalias list names (groups the body never uses tell it
nothing), so either copy's metadata gives every pair of accesses the same facts. Buffer names of local (per-thread) allocations
are names only, and a reloaded buffer's alignment claim (parallel.py) is
merged to the weakest of the copies'.

Arithmetic (`arith` ops: no effects, no regions) counts by what it computes, not by
where it stands: each result is a form, its op and its operands' forms, numbered in
a table the functions of a module share; a chain of one integer add (mul, and, or,
xor, min, max) with no overflow flags is one form over the multiset of its terms. The
simplifier orders an index's terms by the names of their loops, which differ from
layer to layer (`v54_...` before `v80_...`, but `v112_...` before `v54_...`), so the
same address was built in another order and the layers of a model with symbolic sizes
kept a copy each of their attention (12 x 4,400 ops for GPT-2).
"""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import Rewriter

from compiler.analysis.walk import walk_ops
from compiler.dialects import loop
from compiler.lowering.aliasing import ALIAS_SCOPES, MAY_ALIAS_SCOPES, NOALIAS_SCOPES
from compiler.lowering.memory import POINTER_ALIGN

_COMMUTATIVE = (
    arith.AddiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
    arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp,
)
"""Integer ops whose operands may come in either order (`i + o*4` in one layer, `o*4 + i`
in the next, as their names sort), and which also regroup: a chain of one of them without
overflow flags (wrapping arithmetic) is one form over its terms."""


class Forms:
    """Arithmetic forms by number, shared by the functions compared: equal forms get
    one number in every function, whatever the order their ops stand in."""

    def __init__(self) -> None:
        self.numbers: dict[Hashable, int] = {}
        self.terms: dict[int, tuple[Hashable, tuple[int, ...]]] = {}  # a chain's (op, terms)

    def number(self, op: Operation, operands: tuple[int, ...], signature: Hashable) -> int:
        """The (negative) number of `op`'s result, given its operands' numbers."""
        if not isinstance(op, _COMMUTATIVE):
            return self._number((op.name, signature, operands))
        chain = (op.name, signature)
        if not _wraps(op):
            return self._number((chain, tuple(sorted(operands))))
        terms: list[int] = []
        for x in operands:
            inner = self.terms.get(x)
            terms.extend(inner[1] if inner is not None and inner[0] == chain else (x,))
        flat = tuple(sorted(terms))
        number = self._number((chain, flat))
        self.terms.setdefault(number, (chain, flat))
        return number

    def _number(self, key: Hashable) -> int:
        return self.numbers.setdefault(key, -1 - len(self.numbers))


def _wraps(op: Operation) -> bool:
    """Whether an integer op has no overflow flags (wrapping arithmetic)."""
    flags = op.properties.get("overflowFlags")
    return not (isinstance(flags, arith.IntegerOverflowAttr) and flags.data)


class _Structure:
    """The structural key of one function: values and alias groups numbered as met,
    arithmetic by form (`Forms`)."""

    def __init__(self, forms: Forms) -> None:
        self.forms = forms
        self.values: dict[SSAValue, int] = {}
        self.groups: dict[Attribute, int] = {}
        self.blocks: dict[Block, int] = {}
        self.items: list[Hashable] = []
        # a scope list's numbers, by the list (its accesses share one attribute: aliasing.py)
        self._numbered: dict[int, tuple[Attribute, tuple[int, ...]]] = {}

    def block(self, block: Block) -> None:
        self.blocks.setdefault(block, len(self.blocks))
        for arg in block.args:
            self.values[arg] = len(self.values)
        self.items.append(("block", tuple(arg.type for arg in block.args)))
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        operands = tuple(self.values[v] for v in op.operands)
        if _is_arith(op):
            signature = (tuple(r.type for r in op.results), self._properties(op), self._attributes(op))
            self.values[op.results[0]] = self.forms.number(op, operands, signature)
            return
        self.items.append(
            (
                op.name,
                operands,  # arithmetic, commutative or not, is a form (`Forms`)
                tuple(r.type for r in op.results),
                self._properties(op),
                self._attributes(op),
                tuple(self.blocks.setdefault(s, len(self.blocks)) for s in op.successors),
                len(op.regions),
            )
        )
        for result in op.results:
            self.values[result] = len(self.values)
        for region in op.regions:
            self.items.append(("region", len(region.blocks)))
            for block in region.blocks:
                self.block(block)

    def _properties(self, op: Operation) -> tuple[Hashable, ...]:
        props = op.properties
        if isinstance(op, loop.AllocOp) and op.is_local:  # an alloca: its name is a name
            props = {k: v for k, v in props.items() if k != "buffer_name"}
        return tuple(sorted(props.items()))

    def _attributes(self, op: Operation) -> tuple[Hashable, ...]:
        found: list[Hashable] = []
        for name, value in sorted(op.attributes.items()):
            if name == POINTER_ALIGN:
                continue  # merged to the weakest of the copies' claims (`_weakest_alignments`)
            if name in (ALIAS_SCOPES, NOALIAS_SCOPES, MAY_ALIAS_SCOPES) and isinstance(value, ArrayAttr):
                # the body's groups it names, by number (others tell the body nothing)
                known = self._numbered.get(id(value))  # the entry holds `value`: its id is not reused
                if known is None:
                    known = (value, tuple(sorted(self.groups[s] for s in value.data if s in self.groups)))
                    self._numbered[id(value)] = known
                if known[1]:  # none of the body's groups tells it nothing: as if no list
                    found.append((name, known[1]))
            else:
                found.append((name, value))
        return tuple(found)


def _is_arith(op: Operation) -> bool:
    """An op that computes one value from its operands alone (any `arith` op)."""
    return op.dialect_name() == "arith" and len(op.results) == 1 and not op.regions


def _placed_ops(func: loop.FuncOp) -> list[Operation]:
    """The ops of a function whose order counts (every op but arithmetic, `Forms`)."""
    return [op for op in walk_ops(func) if not _is_arith(op)]


def structural_key(func: loop.FuncOp, forms: Forms) -> tuple[Hashable, ...]:
    """What two functions share exactly when either can stand for the other: keys made
    with one `forms` table compare (the table gives the arithmetic their numbers)."""
    structure = _Structure(forms)
    for op in walk_ops(func):  # the body's alias groups, numbered as first used
        scopes = op.attributes.get(ALIAS_SCOPES)
        if isinstance(scopes, ArrayAttr):
            for scope in scopes.data:
                structure.groups.setdefault(scope, len(structure.groups))
    structure.items.append(func.function_type)
    structure.block(func.body.block)
    return tuple(structure.items)


def _weakest_alignments(kept: loop.FuncOp, copy: loop.FuncOp) -> None:
    """The alignment `kept` claims for each reloaded buffer, at most what `copy` claims
    (an intermediate's body claims its arena view's 64 bytes; the same code writing the
    output, an argument, claims none). The two walk alike: their keys are equal."""
    for mine, theirs in zip(_placed_ops(kept), _placed_ops(copy), strict=True):
        claim = mine.attributes.get(POINTER_ALIGN)
        if claim is None:
            continue
        other = theirs.attributes.get(POINTER_ALIGN)
        if other is None:
            del mine.attributes[POINTER_ALIGN]
        elif isinstance(claim, IntegerAttr) and isinstance(other, IntegerAttr) and other.value.data < claim.value.data:
            mine.attributes[POINTER_ALIGN] = other


def merge_identical_outlined(module: ModuleOp, outlined: list[loop.FuncOp]) -> None:
    """Erase each function of `outlined` equal to an earlier one; the forks and calls that
    named it name the earlier one."""
    kept: dict[tuple[Hashable, ...], loop.FuncOp] = {}
    renamed: dict[str, SymbolRefAttr] = {}
    forms = Forms()
    for func in outlined:
        first = kept.setdefault(structural_key(func, forms), func)
        if first is not func:
            renamed[func.sym_name.data] = SymbolRefAttr(first.sym_name.data)
            _weakest_alignments(first, func)
            Rewriter.erase_op(func)
    if not renamed:
        return
    for op in walk_ops(module):
        if isinstance(op, llvm.AddressOfOp) and op.global_name.root_reference.data in renamed:
            op.global_name = renamed[op.global_name.root_reference.data]
        elif isinstance(op, llvm.CallOp) and op.callee is not None and op.callee.root_reference.data in renamed:
            op.callee = renamed[op.callee.root_reference.data]
