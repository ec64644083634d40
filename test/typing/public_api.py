"""Static checks of the public API's types (run by `make typecheck`, never executed):
what a user's type checker sees for the main entry points."""

from typing import assert_type

import numpy as np

import compiler
from compiler import Function, build, ops, te
from compiler.runtime.module import LoadedFunction

n = te.var("n")
A = te.placeholder((n, 16), name="A")
k = te.reduce_axis((0, 16), name="k")
B = te.compute((n,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
assert_type(B, te.Tensor)
assert_type(te.sum(A[0, k], axis=k), te.Expr)
assert_type(te.max(A[0, k], axis=k), te.Expr)
pair = te.compute((n,), lambda i: (A[i, 0], A[i, 1]), name="P")
assert_type(pair, tuple[te.Tensor, ...])
C = ops.relu(B)
assert_type(C, te.Tensor)

s = te.create_schedule(C.op)
assert_type(s, te.Schedule)
stage = s[B]
assert_type(stage, te.Stage)
outer, inner = stage.split(B.op.axis[0], factor=8)
assert_type(outer, te.IterVar)
assert_type(stage.fuse(outer, inner), te.IterVar)

f = build(s, [A, C])
assert_type(f, Function)
f(np.zeros((4, 16), np.float32), np.zeros(4, np.float32))
assert_type(compiler.load_module("f.so"), LoadedFunction)
assert_type(compiler.__version__, str)
