// Bad input to `llmc run`: each case prints one diagnostic, exits with 1 and
// leaves no output file.
//
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: %python %S/Inputs/npytool.py save %t/good.npy --shape 2,3
//
// A missing model file.
// RUN: not llmc run %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: llmc: error: cannot open model '{{.*}}missing.mlir': No such file or directory
//
// Malformed MLIR and a verifier failure: file:line:col.
// RUN: not llmc run %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: malformed.mlir:3:10: error: use of undeclared SSA value name
//
// Binary data that is not MLIR (an ONNX model on stdin, or under a name
// without .onnx) is refused without quoting its bytes.
// RUN: %python -c "import sys; sys.stdout.buffer.write(b'\x08\x07\x12\x00binary' * 64)" > %t/model.bin
// RUN: not llmc run - < %t/model.bin 2>&1 | FileCheck %s --check-prefix=BINARY -DNAME=-
// RUN: not llmc run %t/model.bin 2>&1 | FileCheck %s --check-prefix=BINARY -DNAME=%t/model.bin
// The other commands that read a model say the same.
// RUN: not llmc compile %t/model.bin --emit=mlir -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BINARY -DNAME=%t/model.bin
// RUN: not llmc generate - --prompt-ids 1 < %t/model.bin 2>&1 | FileCheck %s --check-prefix=BINARY -DNAME=-
// RUN: not llmc tune %t/model.bin --tuning-cache %t/tuned.json 2>&1 | FileCheck %s --check-prefix=BINARY -DNAME=%t/model.bin
// RUN: not llmc calibrate %t/model.bin --data %t -o %t/q.mlir 2>&1 | FileCheck %s --check-prefix=BINARY -DNAME=%t/model.bin
// RUN: not ls %t/out.mlir %t/tuned.json %t/q.mlir
// BINARY: llmc: error: cannot parse '[[NAME]]': binary data that is not MLIR (text or bytecode); an ONNX model must be given as a file whose name ends in .onnx
// BINARY-NOT: binary{{$}}
// RUN: not llmc run %S/Inputs/verifier.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: verifier.mlir:4:3: error: type of return operand 0 ('tensor<3xf32>') doesn't match function result type ('tensor<4xf32>') in function @main
// VERIFY-NOT: note
//
// A self-recursive entry is refused before it is compiled (it used to
// compile and overflow the stack at run time).
// RUN: not llmc run %S/Inputs/recursive.mlir --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=RECURSIVE
// RUN: not llmc compile %S/Inputs/recursive.mlir -o %t/recursive.o --emit=obj 2>&1 | FileCheck %s --check-prefix=RECURSIVE
// RUN: not ls %t/recursive.o
// RECURSIVE: recursive.mlir:3:8: error: call cycle @main -> @main: recursive calls cannot be compiled
//
// Entries that cannot be run.
// RUN: not llmc run %s --entry nope 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: run-errors.mlir:1:1: error: entry function @nope not found (public functions: @main)
// RUN: not llmc run %S/Inputs/bad-entry.mlir --entry scalar 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: bad-entry.mlir:3:38: error: entry function @scalar: argument #1 has type 'i32'; only statically shaped tensors (without encoding) are supported
// RUN: not llmc run %S/Inputs/bad-entry.mlir --entry dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: bad-entry.mlir:6:20: error: argument #0 of @dynamic: dimension 0 of 'tensor<?xf32>' is dynamic but has no declared upper bound
// RUN: not llmc run %S/Inputs/bad-entry.mlir --entry complex 2>&1 | FileCheck %s --check-prefix=COMPLEX
// COMPLEX: bad-entry.mlir:9:1: error: entry function @complex: result #0 has element type 'complex<f32>'; supported: f32, f64, f16, bf16, i1, i8, i32, i64
// RUN: not llmc run %S/Inputs/bad-entry.mlir --entry hidden 2>&1 | FileCheck %s --check-prefix=PRIVATE
// PRIVATE: bad-entry.mlir:14:1: error: entry function @hidden is not public
// RUN: not llmc run %S/Inputs/bad-entry.mlir --entry decl 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: bad-entry.mlir:17:1: error: entry function @decl is a declaration (no body)
//
// Input files: missing, bad magic, truncated header and data, Fortran order,
// big-endian, wrong dtype, wrong shape.
// RUN: not llmc run %s --input arg0=%t/nofile.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: llmc: error: input 'arg0': {{.*}}nofile.npy: cannot read file: No such file or directory
// RUN: %python %S/Inputs/npytool.py save %t/magic.npy --shape 2,3 --bad-magic
// RUN: not llmc run %s --input arg0=%t/magic.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: llmc: error: input 'arg0': {{.*}}magic.npy: not a .npy file (bad magic string)
// RUN: %python %S/Inputs/npytool.py save %t/trunc.npy --shape 2,3 --truncate 4
// RUN: not llmc run %s --input arg0=%t/trunc.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: llmc: error: input 'arg0': {{.*}}trunc.npy: truncated .npy data: shape 2x3 of '<f4' needs 24 bytes, the file has 20
// RUN: %python %S/Inputs/npytool.py save %t/trunchdr.npy --shape 2,3 --truncate 80
// RUN: not llmc run %s --input arg0=%t/trunchdr.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=TRUNCHDR
// TRUNCHDR: llmc: error: input 'arg0': {{.*}}trunchdr.npy: truncated .npy header (header length 118, file size 72)
// RUN: %python %S/Inputs/npytool.py save %t/fortran.npy --shape 2,3 --fortran
// RUN: not llmc run %s --input arg0=%t/fortran.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: llmc: error: input 'arg0': {{.*}}fortran.npy: fortran_order arrays are not supported
// RUN: %python %S/Inputs/npytool.py save %t/big.npy --shape 2,3 --big-endian
// RUN: not llmc run %s --input arg0=%t/big.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: llmc: error: input 'arg0': {{.*}}big.npy: big-endian data ('>f4') is not supported
// RUN: %python %S/Inputs/npytool.py save %t/f64.npy --shape 2,3 --dtype float64
// RUN: not llmc run %s --input arg0=%t/f64.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: llmc: error: input 'arg0': {{.*}}f64.npy: expected dtype f32 ('<f4'), got '<f8' (f64)
// uint8 data is refused with the way in: its int8 view.
// RUN: %python %S/Inputs/npytool.py save %t/u8.npy --shape 2,3 --dtype uint8
// RUN: not llmc run %s --input arg0=%t/u8.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=U8
// U8: llmc: error: input 'arg0': {{.*}}u8.npy: unsupported dtype '|u1' (supported: <f4 <f8 <f2 |b1 |i1 <i4 <i8); uint8 data (a u8 quantized tensor) goes in as its int8 bits: arr.view(numpy.int8)
// RUN: %python %S/Inputs/npytool.py save %t/shape.npy --shape 3,2
// RUN: not llmc run %s --input arg0=%t/shape.npy --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: llmc: error: {{.*}}shape.npy: input 'arg0' expects tensor<2x3xf32>, the file holds shape 3x2
//
// Input names.
// RUN: not llmc run %s --input arg1=%t/good.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: llmc: error: unknown input 'arg1': the entry @main takes one input, arg0
// RUN: not llmc run %s --input x=%t/good.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN2
// UNKNOWN2: llmc: error: unknown input 'x': the entry @main takes one input, arg0
// RUN: not llmc run %s --input %t/good.npy 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: llmc: error: --input '{{.*}}good.npy' is not of the form NAME=FILE.npy
// RUN: not llmc run %s --input arg0=%t/good.npy --input arg0=%t/good.npy 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: llmc: error: input 'arg0' given twice
//
// Outputs must not overwrite the model or an input.
// RUN: cp %t/good.npy %t/out0.npy
// RUN: not llmc run %s --input arg0=%t/out0.npy --output-dir %t 2>&1 | FileCheck %s --check-prefix=CLOBBER
// CLOBBER: llmc: error: output '{{.*}}out0.npy' would overwrite input file '{{.*}}out0.npy'
// RUN: cmp %t/good.npy %t/out0.npy
// RUN: not llmc run %s --output-dir %t/good.npy 2>&1 | FileCheck %s --check-prefix=NOTDIR
// NOTDIR: llmc: error: --output-dir '{{.*}}good.npy' is not a directory
// RUN: cp %s %t/model.mlir
// RUN: not llmc run %t/model.mlir --output-dir %t/model.mlir 2>&1 | FileCheck %s --check-prefix=NOTDIR2
// NOTDIR2: llmc: error: --output-dir '{{.*}}model.mlir' is not a directory
// RUN: cmp %s %t/model.mlir
//
// Bad options.
// RUN: not llmc run %s --pipeline-options="nonsense=1" --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=PIPEOPT
// PIPEOPT: run-errors.mlir:1:1: error: invalid pipeline options 'nonsense=1': {{.*}}nonsense
// A bad boolean value: LLVM's parser prints the reason, llmc points to it.
// RUN: not llmc run %s --pipeline-options="parallel=maybe" --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=PIPEBOOL
// PIPEBOOL: 'maybe' is invalid value for boolean argument! Try 0 or 1
// PIPEBOOL: run-errors.mlir:1:1: error: invalid pipeline options 'parallel=maybe' (see the message above)
// RUN: not llmc run %s --repeat 0 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: llmc: error: --repeat must be at least 1
// RUN: not llmc run %s --repeat 3 --warmup=-1 2>&1 | FileCheck %s --check-prefix=WARMUP
// WARMUP: llmc: error: --warmup must be at least 0, got -1
// Without --tensor-parallel no MPI job was joined: the rank's program would
// abort in MPI_Allreduce.
// RUN: not llmc run %s --pipeline-options="tensor-parallel=2 rank=1" 2>&1 | FileCheck %s --check-prefix=TPOPT
// TPOPT: llmc: error: tensor-parallel= in --pipeline-options needs the MPI job that --tensor-parallel N joins: give --tensor-parallel N (under mpirun -np N) instead
// RUN: not llmc run %s --pipeline-options="rank=1  tensor-parallel=2" 2>&1 | FileCheck %s --check-prefix=TPOPT
// An option whose name only ends in tensor-parallel is not that option: the
// pipeline's own parser names it.
// RUN: not llmc run %s --pipeline-options="no-tensor-parallel=2" 2>&1 | FileCheck %s --check-prefix=TPNAME
// TPNAME: error: invalid pipeline options 'no-tensor-parallel=2': <Pass-Options-Parser>: no such option no-tensor-parallel
// RUN: not llmc 2>&1 | FileCheck %s --check-prefix=NOCMD
// NOCMD: llmc: error: expected a command
//
// None of the failing runs wrote anything.
// RUN: test ! -e %t/out/out0.npy

func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.add ins(%a, %a : tensor<2x3xf32>, tensor<2x3xf32>)
                  outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
