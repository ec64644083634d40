"""An on-disk cache of compiled object code, shared by every process of a user.

`jit.jit_compile` looks an object up before lowering to the llvm dialect and
running LLVM: a build that finds its object (but, say, no readable build entry)
runs the passes up to the flat loop IR (which also give the argument specs, the
failure table and the memory plan), then loads the object into an MCJIT engine
and skips lower-to-llvm, the conversion to LLVM IR, LLVM's optimization and its
code generation. The key (`cache_key`) is a SHA-256 of

* the lowered program: the text `Function` passes, which names the build entry's
  key below when the cache is on (else the flat loop IR after make-packed-api and
  storage-rewrite), with the names of the passes still to run (`jit_compile`'s
  default: the llvm-dialect module's text);
* how it is compiled: the object's kind (`jit`, or `pic` for shared
  libraries), the optimization level, the target triple, the host CPU's name
  and features, the LLVM version, whether libgomp is there;
* who compiles it: this distribution's version, xDSL's and llvmlite's, and a
  digest of the `compiler` package's Python sources, so a checkout whose
  version number did not move never loads an object its code would not
  produce now (the lowering after the key's IR is code of this package).

A second, earlier level serves `compiler.build` and `compile_module`: a build
entry (`build_cache()`, the `builds/` folder) is keyed by the program as
`compile_module` receives it (the te+sched module's text, before any pass),
the function's name, every option that changes the result, the target above
plus the host facts the auto-scheduler reads (vector width, cores, cache sizes),
and the same versions and source digest. It holds what the compiled function needs
besides the code (argument specs, failure table, memory plan) and the key of
its object entry, so a hit runs no pass at all (`compiler.build`'s
`_load_build`); the IR texts are recomputed when first asked for.

Before it, `compiler.build` looks in the `graphs/` folder (`graph_cache()`): the same
entries keyed by the Python program (its te graph and schedule, before any IR is
emitted: `compiler.graph_cache`), so that a hit imports neither xDSL nor a pass.

Where: `$COMPILER_CACHE_DIR`, else `$XDG_CACHE_HOME/xdsl-tensor-compiler`, else
`~/.cache/xdsl-tensor-compiler`; objects live in its `objects/` folder, build
entries in `builds/` and `graphs/`, one file a key. `COMPILER_CACHE=0` (or `false`, `off`, `no`) turns the cache off;
so does `compile_module(..., cache=False)`. Nothing evicts entries: delete the
folder to reclaim the space.

An entry is `MAGIC`, the key's digest, the payload's length and its SHA-256,
then the payload. It is written to a temporary file in the same folder,
fsynced and renamed over the entry (`os.replace`), so two processes writing at
once leave one whole entry and a reader never sees half of one. A truncated
or corrupt entry is reported with `warnings.warn` (`CacheWarning`), compiled
again and overwritten. A cache that cannot be written (read-only, full disk)
warns once and compiling goes on without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import sys
import tempfile
import warnings
from functools import cache
from pathlib import Path

DISTRIBUTION = "xdsl-tensor-compiler"
"""The cache folder's name (`compiler.DISTRIBUTION`; the api layer is out of reach here)."""

CACHE_FORMAT = 1
"""Bump when the layout of an entry changes."""

MAGIC = b"XTCOBJ\x00\x01"
_HEADER = struct.Struct("<8s32sQ32s")  # magic, key digest, payload length, payload SHA-256

OBJECTS = "objects"
"""The folder of object files, keyed by the program they compile (`jit.compile_object`)."""
BUILDS = "builds"
"""The folder of build entries, keyed by the program before any pass (`build_cache`)."""
GRAPHS = "graphs"
"""The folder of build entries keyed by the Python program, before any IR (`graph_cache`)."""

ENV_DIR = "COMPILER_CACHE_DIR"
ENV_SWITCH = "COMPILER_CACHE"
_OFF = {"0", "false", "off", "no"}


class CacheWarning(UserWarning):
    """A cache entry was unusable (it is compiled again) or could not be written."""


def cache_enabled(requested: bool | None = None) -> bool:
    """`requested` if given, else whether `$COMPILER_CACHE` leaves the cache on (the default)."""
    if requested is not None:
        return requested
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in _OFF


def cache_dir() -> Path:
    """The cache folder for this process's environment (read at every call)."""
    explicit = os.environ.get(ENV_DIR)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / DISTRIBUTION


@cache
def versions() -> dict[str, str]:
    """This distribution's version, xDSL's and llvmlite's (read from their dist-info folders'
    names: importing `importlib.metadata` would cost a warm build more than the rest of
    its key)."""
    return {DISTRIBUTION: _own_version(), "xdsl": _dist_version("xdsl"), "llvmlite": _dist_version("llvmlite")}


def _dist_version(package: str) -> str:
    """The version of the installed distribution named like `package`: its
    `<name>-<version>.dist-info` folder next to the package (PEP 627), else
    `importlib.metadata`'s answer."""
    module = sys.modules.get(package)  # a build has imported both; a cached one neither
    origin = getattr(module, "__file__", None)
    if origin is None:
        from importlib.util import find_spec

        spec = find_spec(package)  # finds the package without importing it
        origin = None if spec is None else spec.origin
    if origin is not None:
        site = Path(origin).parent.parent
        found = sorted(site.glob(f"{package}-*.dist-info"))
        if len(found) == 1:
            return found[0].name.removeprefix(f"{package}-").removesuffix(".dist-info")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def _own_version() -> str:
    """The version in the checkout's pyproject.toml (the truth for a checkout, whose
    installed metadata may be stale), else the installed distribution's."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        text = pyproject.read_text()
    except OSError:
        text = ""
    # the [project] table's name and version, read without tomllib (16 ms to import)
    table = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    if table is not None:
        fields = dict(re.findall(r'^(name|version)\s*=\s*"([^"]*)"', table.group(1), re.MULTILINE))
        if fields.get("name") == DISTRIBUTION and "version" in fields:
            return str(fields["version"])
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


@cache
def source_digest() -> str:
    """SHA-256 of the `compiler` package's Python sources as the file system states them:
    each file's path, size and modification time (what Python's own bytecode cache trusts;
    an edit changes them), not its bytes: reading every source cost a warm build in a new
    process a fifth of its time."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found: list[tuple[str, int, int]] = []
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        for file in files:
            if file.endswith(".py"):
                try:
                    facts = os.stat(os.path.join(folder, file))
                except OSError:
                    continue
                where = os.path.relpath(os.path.join(folder, file), package).replace(os.sep, "/")
                found.append((where, facts.st_size, facts.st_mtime_ns))
    digest = hashlib.sha256()
    for where, size, mtime in sorted(found):
        digest.update(f"{where}\x00{size}\x00{mtime}\n".encode())
    return digest.hexdigest()


def cache_key(program: str, *, kind: str, target: dict[str, str]) -> str:
    """The hex SHA-256 naming the object of `program` (the text of its lowered IR) compiled
    as `kind` for `target` (triple, cpu, features, opt, llvm...: `jit.target_description`)."""
    header = {
        "format": CACHE_FORMAT,
        "kind": kind,
        "target": target,
        "versions": versions(),
        "source": source_digest(),
    }
    digest = hashlib.sha256(json.dumps(header, sort_keys=True).encode())
    digest.update(b"\x00")
    digest.update(program.encode())
    return digest.hexdigest()


class ObjectCache:
    """The entries of one cache folder (`ObjectCache()`: the environment's objects;
    `ObjectCache(folder=BUILDS, suffix=".json")`: its build entries, `build_cache()`)."""

    def __init__(self, root: Path | str | None = None, *, folder: str = OBJECTS, suffix: str = ".o"):
        self.root = Path(root) if root is not None else cache_dir()
        self.objects = self.root / folder
        self.suffix = suffix

    def path(self, key: str) -> Path:
        return self.objects / f"{key}{self.suffix}"

    def load(self, key: str) -> bytes | None:
        """The object stored under `key`, or None (missing; unusable: warns)."""
        path = self.path(key)
        try:
            blob = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            warnings.warn(f"compiler cache: cannot read {path}: {err}", CacheWarning, stacklevel=3)
            return None
        problem = _check(blob, key)
        if problem is not None:
            warnings.warn(
                f"compiler cache: {path} is {problem}; compiling again and overwriting it",
                CacheWarning,
                stacklevel=3,
            )
            return None
        return blob[_HEADER.size :]

    def store(self, key: str, payload: bytes) -> Path | None:
        """Write an entry atomically; None (after one warning) when the folder is not writable."""
        path = self.path(key)
        header = _HEADER.pack(MAGIC, bytes.fromhex(key), len(payload), hashlib.sha256(payload).digest())
        tmp: str | None = None
        try:
            self.objects.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=".tmp", dir=self.objects)
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
            tmp = None
        except OSError as err:
            _warn_unwritable(str(self.root), err)
            return None
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        return path


def build_cache(root: Path | str | None = None) -> ObjectCache:
    """The build entries of a cache folder: what `compiler.build` needs besides the object
    (argument specs, failure table, memory plan, the object's key), as JSON."""
    return ObjectCache(root, folder=BUILDS, suffix=".json")


def graph_cache(root: Path | str | None = None) -> ObjectCache:
    """The build entries keyed by the Python program (`compiler.graph_cache`): a build entry
    and the extern functions the program calls, as JSON."""
    return ObjectCache(root, folder=GRAPHS, suffix=".json")


def _check(blob: bytes, key: str) -> str | None:
    """What is wrong with an entry, or None."""
    if len(blob) < _HEADER.size:
        return f"truncated ({len(blob)} bytes, shorter than its header)"
    magic, digest, length, checksum = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        return "not a cache entry of this format (bad magic)"
    if digest != bytes.fromhex(key):
        return "the entry of another key"
    payload = memoryview(blob)[_HEADER.size :]
    if len(payload) != length:
        return f"truncated ({len(payload)} of {length} payload bytes)"
    if hashlib.sha256(payload).digest() != checksum:
        return "corrupt (checksum mismatch)"
    return None


_warned_unwritable: set[str] = set()


def _warn_unwritable(root: str, err: OSError) -> None:
    if root not in _warned_unwritable:
        _warned_unwritable.add(root)
        warnings.warn(
            f"compiler cache: cannot write to {root} ({err}); compiling without it "
            f"(set {ENV_DIR} to a writable folder or {ENV_SWITCH}=0)",
            CacheWarning,
            stacklevel=4,
        )
