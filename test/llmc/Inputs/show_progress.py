#!/usr/bin/env python3
"""Makes llmc's progress line checkable (test/llmc/progress.mlir): copies
stdin to stdout with each carriage return shown as `<CR>` followed by a line
break and each clear-to-end-of-line (ESC [ K) as `<EL>`."""

import sys

text = sys.stdin.read()
sys.stdout.write(text.replace("\r", "<CR>\n").replace("\x1b[K", "<EL>"))
