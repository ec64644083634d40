"""`fresh_name`: a name not taken yet, the one suffix rule of every layer's names
(stages, groups, symbols, buffers). Standard library only (the base layer)."""

from __future__ import annotations

from collections.abc import Container


def fresh_name(base: str, taken: Container[str], sep: str = "") -> str:
    """`base` if it is free, else `base<sep>1`, `base<sep>2`, ...: the first free one.
    The caller records it as taken."""
    name, k = base, 1
    while name in taken:
        name, k = f"{base}{sep}{k}", k + 1
    return name
