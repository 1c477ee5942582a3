"""Checks `llmc generate --prompt TEXT --tokenizer T` against the same
generation driven by ids, for test/llmc/generate-tokenizer.test:

  generate_text.py LLMC MODEL TOKENIZER PROMPT N

runs (1) `llmc generate MODEL --tokenizer TOKENIZER --prompt PROMPT
--max-new-tokens N --ignore-eos` (text out), (2) `llmc tokenize --text PROMPT`
for the prompt ids, (3) `llmc generate MODEL --prompt-ids IDS` (ids out) and
(4) `llmc tokenize --ids` on those ids; prints whether the text of (1) equals
the decoded ids of (4), and how many ids (3) produced.
"""

import subprocess
import sys

llmc, model, tokenizer, prompt, n = sys.argv[1:6]


def run(*args):
  proc = subprocess.run([llmc, *args], capture_output=True, text=True)
  if proc.returncode:
    sys.exit(f"llmc {' '.join(args)} failed:\n{proc.stderr}")
  return proc.stdout


text = run("generate", model, "--tokenizer", tokenizer, "--prompt", prompt,
           "--max-new-tokens", n, "--ignore-eos")
prompt_ids = run("tokenize", "--tokenizer", tokenizer, "--text", prompt).strip()
ids = run("generate", model, "--prompt-ids", prompt_ids, "--max-new-tokens", n).strip()
decoded = run("tokenize", "--tokenizer", tokenizer, "--ids", ids)
print(f"prompt ids: {prompt_ids}")
print(f"generated {len(ids.split(','))} ids")
print(f"text equal: {text == decoded}")
if text != decoded:
  print(f"  text:    {text!r}\n  decoded: {decoded!r}")
