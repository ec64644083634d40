# ruff: noqa: F821  (lit injects `config`)
import os
import sys

import lit.formats

config.name = "compiler"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.dirname(os.path.dirname(config.test_source_root))
# lit scrubs the environment: tools/ has compiler-opt and compiler-run; the venv's bin/ has filecheck
config.environment["PATH"] = os.pathsep.join(
    [os.path.join(root, "tools"), os.path.dirname(sys.executable), os.environ.get("PATH", "")]
)
config.environment["PYTHONPATH"] = root
# compiler-run compiles: keep the user's object cache (~/.cache/xdsl-tensor-compiler) out of it
config.environment["COMPILER_CACHE"] = "0"
config.substitutions.append(
    (
        "COMPILER_ROUNDTRIP",
        "compiler-opt %s --split-input-file | compiler-opt --split-input-file | filecheck %s "
        "&& compiler-opt %s --split-input-file --print-op-generic "
        "| compiler-opt --split-input-file | filecheck %s",
    )
)
