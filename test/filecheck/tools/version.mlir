// -v/--version prints the distribution's name and version, xDSL's and LLVM's.
// RUN: compiler-opt --version | filecheck %s --check-prefixes=OPT,CHECK
// RUN: compiler-opt -v | filecheck %s --check-prefixes=OPT,CHECK
// RUN: compiler-run --version | filecheck %s --check-prefixes=EXEC,CHECK

// OPT: compiler-opt (xdsl-tensor-compiler) {{[0-9]+\.[0-9]+\.[0-9]+}}
// EXEC: compiler-run (xdsl-tensor-compiler) {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK-NEXT: xDSL 0.74.{{[0-9]+}}
// CHECK-NEXT: LLVM {{[0-9]+\.[0-9]+\.[0-9]+}} (llvmlite 0.50.{{[0-9]+}})
// CHECK-NOT: {{.}}
