"""The options of the default pipeline, declared once (`compiler.pipeline` uses them;
standard library only, so that a cached build, which runs no pass, need not import
the pipeline)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from compiler.errors import OptionError


@dataclass(frozen=True, kw_only=True)
class PipelineOptions:
    """The options of the default pipeline: `default_pipeline`, the `default-pipeline`
    pass (which has them as pass options, `check-bounds=true`), `compiler.lower`,
    `compiler.build` and `compiler.from_torch` (as keyword arguments)."""

    tighten_pad_regions: bool = True
    """Use the guards of lazy reads in bound inference (off: TVM's over-allocation)."""

    check_bounds: bool = False
    """Check every load and store against its buffer's region at run time."""

    auto_schedule: bool = False
    """First schedule the stages no `sched` op names, for the host (what `build()` does
    without a schedule; `auto-schedule` with options pins the target)."""

    loop_partition: bool = True
    """Split loops at their likely guards (`loop-partition`); off keeps the guards."""

    fast_math: bool = False
    """Let LLVM reassociate and contract float math (`lower-to-llvm{fast-math=true}`)."""

    fp_contract: bool = True
    """Fuse a*b+c into one FMA, rounded once (`lower-to-llvm{fp-contract=false}`: not)."""

    profile: bool = False
    """Time every top-level loop nest (`instrument-stages` at the end of the loop stage)."""

    @classmethod
    def of(cls, what: str, options: Mapping[str, object], base: PipelineOptions | None = None) -> PipelineOptions:
        """`base` (the defaults) with `options` (keyword arguments of `what`), each a
        known option with a bool value; an OptionError naming the argument otherwise."""
        known = {f.name for f in fields(cls)}
        changes: dict[str, bool] = {}
        for key, value in options.items():
            if key not in known:
                raise OptionError(f"{what}: unknown option '{key}' (options: {', '.join(sorted(known))})")
            if not isinstance(value, bool):
                raise OptionError(f"{what}: option '{key}' is True or False, got {value!r}")
            changes[key] = value
        return replace(base or cls(), **changes)

    def pipeline_fields(self) -> dict[str, bool]:
        """The options by name (for a dataclass that extends these)."""
        return {f.name: getattr(self, f.name) for f in fields(PipelineOptions)}
