"""Edits of a `loop.func`'s buffer arguments that decide what the ArgBinder sees.

`declare_strided` gives arguments symbolic strides (the `strided` option of
`make-packed-api`, `compile_module(strided_args=...)`); `order_arguments`
puts them in the caller's order (its `order` option, `compile_module(call_order=...)`).
Both run in `make-packed-api` and keep the body's uses.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, FunctionType

from compiler.diagnostics import PassError
from compiler.dialects import loop


def declare_strided(func: loop.FuncOp, names: Sequence[str], *, strict: bool = True) -> set[str]:
    """Give the named buffer arguments symbolic strides `<name>_stride<k>`, bound at call time.

    Arguments already strided keep their strides. Returns the names found;
    `strict` makes a missing one an error.
    """
    block = func.body.block
    by_name = {a.name_hint: a for a in block.args}
    found: set[str] = set()
    for name in names:
        arg = by_name.get(name)
        if arg is None or not isinstance(t := arg.type, loop.BufferType):
            if strict:
                raise PassError(
                    f"make-packed-api: @{func.sym_name.data} has no buffer argument '{name}'", func
                )
            continue
        found.add(name)
        if t.get_strides() is not None:
            continue
        strides = [f"{name}_stride{k}" for k in range(t.rank)]
        new = block.insert_arg(loop.BufferType(t.get_shape(), t.element_type, strides), arg.index)
        new.name_hint = name
        arg.replace_all_uses_with(new)
        block.erase_arg(arg)
    func.function_type = FunctionType.from_lists(list(block.arg_types), [])
    return found


def reorder_arguments(func: loop.FuncOp, order: Sequence[int]) -> None:
    """Permute the arguments: new argument k is old argument `order[k]` (attributes follow)."""
    if list(order) == list(range(len(func.args))):
        return
    block = func.body.block
    old = list(block.args)
    attrs = func.arg_attrs.data if func.arg_attrs is not None else None
    for i in order:
        new = block.insert_arg(old[i].type, len(block.args))
        new.name_hint = old[i].name_hint
        old[i].replace_all_uses_with(new)
    for arg in old:
        block.erase_arg(arg)
    func.function_type = FunctionType.from_lists(list(block.arg_types), [])
    if attrs is not None:
        func.arg_attrs = ArrayAttr([attrs[i] for i in order])


def order_arguments(func: loop.FuncOp, names: Sequence[str]) -> bool:
    """Put the arguments in the order of `names` if those are exactly their names (each
    once); whether they were."""
    position = {a.name_hint: k for k, a in enumerate(func.args)}
    if len(position) != len(func.args) or sorted(position, key=str) != sorted(names):
        return False
    reorder_arguments(func, [position[n] for n in names])
    return True
