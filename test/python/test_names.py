"""`compiler.names.fresh_name`: the one suffix rule of stage, group, symbol and buffer names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compiler.names import fresh_name


def test_a_free_name_is_kept() -> None:
    assert fresh_name("C.local", {"A", "B"}) == "C.local"


def test_the_first_free_suffix_is_taken() -> None:
    assert fresh_name("C.local", {"C.local", "C.local1"}) == "C.local2"
    assert fresh_name("main", {"main", "main_1", "main_3"}, "_") == "main_2"
    assert fresh_name("buf", {"buf"}, "#") == "buf#1"


@given(st.text(max_size=4), st.sets(st.text(max_size=6), max_size=12), st.sampled_from(["", "_", "#"]))
def test_the_name_is_free_and_the_smallest_suffix(base: str, taken: set[str], sep: str) -> None:
    name = fresh_name(base, taken, sep)
    assert name not in taken
    if name != base:
        assert base in taken
        k = int(name.removeprefix(base + sep))
        assert all(f"{base}{sep}{j}" in taken for j in range(1, k))
