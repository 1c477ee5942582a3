# ===- llmc_subcommands.py - the command line of the test helpers ---------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""`helper.py COMMAND ARG...` for the integration tests' helper scripts
(test/Integration/Inputs/*.py): each command a function taking a fixed
number of string arguments and returning an exit code (None: 0)."""

import inspect
import sys


def main(doc, *commands):
    """Runs the function among `commands` named by sys.argv[1] with the
    remaining arguments and exits with its code; prints `doc` and exits with
    2 for an unknown command or a wrong number of arguments."""
    by_name = {f.__name__: f for f in commands}
    if len(sys.argv) >= 2 and sys.argv[1] in by_name:
        f = by_name[sys.argv[1]]
        if len(sys.argv) - 2 == len(inspect.signature(f).parameters):
            sys.exit(f(*sys.argv[2:]) or 0)
    print(doc, file=sys.stderr)
    sys.exit(2)
