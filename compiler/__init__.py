"""A TVM-style tensor-expression compiler on xDSL.

```python
import numpy as np
import compiler
from compiler import te

A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: A[i] * 2.0, name="B")
f = compiler.build([A, B])
a = np.ones(1024, np.float32); b = np.empty_like(a)
f(a, b)
```
"""

from compiler.build import Function, build, lower

__all__ = ["Function", "build", "lower"]
