// RUN: llm-opt %s -split-input-file -llm-verify-nesting="max-depth=5" -verify-diagnostics | FileCheck %s
// RUN: not llm-opt %s -split-input-file -llm-verify-nesting="max-depth=-1" 2>&1 | FileCheck %s --check-prefix=NEGOPT
// NEGOPT: error: llm-verify-nesting: max-depth must be at least 0, got -1
// The depth of a location that is itself too deep: no position to point at.
// RUN: not llm-opt %S/Inputs/deep-location.mlir -llm-verify-nesting="max-depth=5" 2>&1 | FileCheck %s --check-prefix=LOC
// LOC: <unknown>:0: error: llm-verify-nesting: the IR is refused: it nests more than 5 levels deep (op 'arith.constant'){{$}}
// An affine map's expressions count: 1 region + the map attribute + its
// expressions, 4 levels as MLIR builds d0 * 2 + (d0 * 3 + (d0 + 1)) (it
// passes with max-depth=6).
// RUN: not llm-opt %S/Inputs/deep-affine.mlir -llm-verify-nesting="max-depth=5" 2>&1 | FileCheck %s --check-prefix=AFFINE
// RUN: llm-opt %S/Inputs/deep-affine.mlir -llm-verify-nesting="max-depth=6" -o /dev/null
// AFFINE: deep-affine.mlir:5:1: error: llm-verify-nesting: the IR is refused: it nests more than 5 levels deep (op 'func.func' at line 5, column 1)

// Within 5 levels: the func sits in 1 region and holds [[1]] (4 levels:
// two arrays, an integer and its type i64), its type (a TypeAttr of a
// function type of i32: 3 levels) and its location (a file location: 1
// level).
// CHECK-LABEL: func.func private @within
// CHECK-SAME: {a = {{\[\[}}1]]}
func.func private @within() -> i32 attributes {a = [[1]]}

// -----

// 1 region + 5 levels: three arrays, an integer and its type.
// expected-error @+1 {{llm-verify-nesting: the IR is refused: it nests more than 5 levels deep (op 'func.func' at line 26, column 1)}}
func.func private @attribute() attributes {a = [[[1]]]}

// -----

// Types count as attributes do: 1 region + 5 levels,
// TypeAttr(function(tuple<tuple<i32>>)).
// expected-error @+1 {{it nests more than 5 levels deep (op 'func.func' at line 33, column 1)}}
func.func private @type(tuple<tuple<i32>>)

// -----

// Regions count: the constant sits in 4 regions and holds `0 : i32` (2
// levels); the first op that is too deep is reported.
func.func @regions() {
  scf.execute_region {
    scf.execute_region {
      // expected-error @+1 {{it nests more than 5 levels deep (op 'arith.constant' at line 43, column 12)}}
      %c = arith.constant 0 : i32
      %d = arith.constant 1 : i32
      scf.yield
    }
    scf.yield
  }
  return
}

// -----

// A recursive type (an identified struct that holds itself) is measured
// without looping.
// CHECK-LABEL: func.func private @recursive
func.func private @recursive() attributes {t = !llvm.struct<"node", (ptr, struct<"node">)>}
