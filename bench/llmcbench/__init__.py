# ===- __init__.py - bench/run's modules ----------------------------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""bench/run's modules: workloads (torch definitions, ONNX export, FLOP and
byte counts), pyworker (the torch / numpy trial process), stats (medians,
output check, roofline) and report (derived figures, markdown, chart)."""
