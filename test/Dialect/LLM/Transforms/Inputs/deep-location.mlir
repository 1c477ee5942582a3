// An op whose location nests 5 levels (four call sites over file
// locations); used by llm-verify-nesting.mlir.
#l0 = loc("x":1:1)
#l1 = loc(callsite(#l0 at "y":1:1))
#l2 = loc(callsite(#l1 at "y":2:1))
#l3 = loc(callsite(#l2 at "y":3:1))
#l4 = loc(callsite(#l3 at "y":4:1))
%c = arith.constant 0 : i32 loc(#l4)
