#!/usr/bin/env python3
# ===- exit_code.py - run a command, print its exit status ---------------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""Runs argv[1:], forwards its stdout/stderr, then prints `exit code: N`
(negative for a signal) and exits 0, so FileCheck can check the exact status
of a tool that must fail cleanly."""

import subprocess
import sys

rc = subprocess.call(sys.argv[1:])
sys.stderr.flush()
print("exit code: %d" % rc, flush=True)
