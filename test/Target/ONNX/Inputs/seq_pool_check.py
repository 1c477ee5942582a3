# Compares `llmc run`'s outputs (DIR/<name>.npy) of the seq_pool model with
# torch's (REF.npz out<i>): the integer lengths and the gathered embedding
# rows must be equal, with the same dtype for the lengths; the score head's
# logits at the pooled positions and the masked mean within 1e-6 (a wrong
# position would differ by O(1)).
# Usage: seq_pool_check.py DIR REF.npz (test/Target/ONNX/integer-reductions.test)
import sys

import numpy as np

out, ref = sys.argv[1], np.load(sys.argv[2])
got = {k: np.load("%s/%s.npy" % (out, k))
       for k in ("pooled", "eot", "lengths", "mean")}
print("pooled close", bool(np.allclose(got["pooled"], ref["out0"],
                                       rtol=1e-6, atol=1e-6)))
print("eot exact", np.array_equal(got["eot"], ref["out1"]))
print("lengths exact", np.array_equal(got["lengths"], ref["out2"]),
      got["lengths"].dtype)
print("mean close", bool(np.allclose(got["mean"], ref["out3"], rtol=1e-6,
                                     atol=1e-6)))
