// A function attribute that is an affine map of 4 levels of expressions
// (5 with the map); used by llm-verify-nesting.mlir.
#m = affine_map<(d0) -> (d0 * 2 + (d0 * 3 + (d0 + 1)))>

func.func private @f() attributes {m = #m}
