// Malformed input gives a located diagnostic and a non-zero exit, never a traceback.
// RUN: not compiler-opt %S/Inputs/bad_syntax.mlir 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not compiler-opt %S/Inputs/bad_verify.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not compiler-opt %S/Inputs/bad_verify.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not compiler-opt %S/Inputs/bad_verify.mlir -p 'schedule-ops{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not compiler-opt %S/Inputs/missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not compiler-run %S/Inputs/symbolic.mlir 2>&1 | filecheck %s --check-prefix=NODIM
// RUN: compiler-opt --help | filecheck %s --check-prefix=HELP
// RUN: compiler-opt --list-passes | filecheck %s --check-prefix=LIST

// SYNTAX: bad_syntax.mlir:2:51
// SYNTAX: Expected region!
// SYNTAX-NOT: Traceback

// VERIFY: bad_verify.mlir:3:5: error: te.read of a rank-2 tensor takes 2 indices, got 1
// VERIFY-NOT: Traceback

// PASS: error: Unrecognized passes: ['no-such-pass']
// OPTION: error: {{.*}}bogus
// MISSING: error: No such file or directory: {{.*}}missing.mlir
// NODIM: compiler-run: error: a has the symbolic dimension 'n': give --dim n=N

// HELP: --list-passes
// LIST:      default-pipeline{until=... order=... strided=... tighten-pad-regions=... check-bounds=... auto-schedule=... loop-partition=... fast-math=... fp-contract=... profile=...}
// LIST-NEXT:   The whole default pipeline as one pass
// LIST:      insert-bound-checks
// LIST-NEXT:   Check every load and store against its buffer's region (off by default).
// LIST:      instrument-stages
// LIST-NEXT:   Time each top-level loop nest: profiler marks around it, its stages recorded.
// LIST:      loop-partition{max-depth=...}
// LIST-NEXT:   Split loops at their likely conditions: a condition-free main loop and edge loops.
// LIST:      lower-to-llvm
// LIST:      schedule-ops
// LIST-NEXT:   Lower every `te.func` to a `loop.func` of loop nests, following its schedule.
// LIST:      storage-flatten
