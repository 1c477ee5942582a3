# ===- llmc_subcommands.py - the command line of the test helpers ---------=== #
#
# Part of the llmc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------=== #
"""`helper.py COMMAND ARG...` for the integration tests' helper scripts
(test/Integration/Inputs/*.py): each command a function taking a fixed
number of string arguments and returning an exit code (None: 0); and
running `llmc run` from them."""

import inspect
import subprocess
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


def run_llmc(llmc, module, entry, threads, out_dir, args):
    """`llmc run MODULE --entry ENTRY --threads THREADS --output-dir OUT_DIR
    ARGS...`; prints the command and its output to stderr and returns False
    when it fails."""
    cmd = ([llmc, "run", module, "--entry", entry, "--threads", str(threads),
            "--output-dir", out_dir] + list(args))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print(" ".join(cmd), r.stdout, r.stderr, file=sys.stderr)
        return False
    return True
