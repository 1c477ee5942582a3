// RUN: llm-opt %s --llm-fix-mpi-symbols | FileCheck %s
// OpenMPI's MPI_SUM is &ompi_mpi_op_sum; the datatype and communicator
// symbols keep their names.
// CHECK: llvm.mlir.global external @ompi_mpi_op_sum()
// CHECK: llvm.mlir.global external @ompi_mpi_float()
// CHECK: llvm.mlir.addressof @ompi_mpi_op_sum
// CHECK: llvm.mlir.addressof @ompi_mpi_float
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
  llvm.mlir.global external @ompi_mpi_sum() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
  llvm.mlir.global external @ompi_mpi_float() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_datatype_t", opaque>
  llvm.func @f() -> !llvm.ptr {
    %0 = llvm.mlir.addressof @ompi_mpi_sum : !llvm.ptr
    %1 = llvm.mlir.addressof @ompi_mpi_float : !llvm.ptr
    llvm.return %0 : !llvm.ptr
  }
}
