"""Tiny tokenizer files and an independent reference, for test/llmc/tokenize*.

  tokenizers.py make DIR
      Trains tiny BPE models on a fixed corpus (Sennrich et al. 2016: merge
      the most frequent adjacent pair, repeatedly) and writes them as
        DIR/gpt2/vocab.json + merges.txt       GPT-2's release format
        DIR/gpt2-json/tokenizer.json           the same, Hugging Face format
                                               ("a b" merges)
        DIR/llama3/tokenizer.json              LLaMA-3 style: Split with the
                                               LLaMA-3 regex + ByteLevel,
                                               [a, b] merges, ignore_merges,
                                               BOS post-processor
        DIR/qwen2/tokenizer.json               Qwen2 style: NFC, the Qwen2
                                               regex, tokenizer_config.json
        DIR/spbpe/tokenizer.json               LLaMA-2 style: Prepend/Replace
                                               normalizer, `▁`, byte_fallback
      In the byte-level vocabularies byte B is token B.

  tokenizers.py check KIND FILE LLMC
      Encodes every text of TEXTS with the reference of KIND (gpt2, llama3,
      spbpe) and with `LLMC tokenize --tokenizer FILE --text`, decodes the
      ids with `--ids`, and prints one line per text and a summary; exits 1
      on any mismatch.

The reference is OpenAI's gpt-2 encoder.py algorithm (bytes_to_unicode,
get_pairs, bpe by merge rank) with the `regex` module (Debian's
python3-regex) for the pre-tokenization patterns, written independently of
llmc's C++.
"""

import json
import os
import subprocess
import sys
import unicodedata
from collections import Counter

import regex

GPT2_PAT = (r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+"""
            r"""|\s+(?!\S)|\s+""")
LLAMA3_PAT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+"""
              r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"""
              r"""|\s+(?!\S)|\s+""")
QWEN2_PAT = LLAMA3_PAT.replace(r"\p{N}{1,3}", r"\p{N}")
META = "\u2581"

CORPUS = """\
The quick brown fox jumps over the lazy dog. It's the dog's day, isn't it?
We'll see what they've done: 12345 apples and 678 oranges, 3.14159 pies.
Un café, s'il vous plaît! Déjà vu, naïve résumé, élève, où est la gare?
中文分词测试，中文文本。日本語のテキスト。한국어 텍스트.
Emoji 😀😀 and 🎉 party 🎉, hello world hello world hello there.
    indented    code:  def f(x):\treturn x*x  # comment
Straße, Ärger, Öl, Übermut; ÀÉÎÕÜ; Ελληνικά κείμενο; Русский текст.
""" * 3

TEXTS = [
    "Hello world",
    "hello world hello there",
    "The quick brown fox jumps over the lazy dog.",
    "It's the dog's day; we'll see what they've done, I'M SURE",
    "12345 apples, 3.14159 pies and 678901234 numbers",
    "Un café, s'il vous plaît! Déjà vu",
    "中文分词测试，中文文本。",
    "日本語のテキスト 한국어",
    "Emoji 😀😀 and 🎉 party",
    "whitespace   runs\t\ttabs\n\nnewlines \n  end  ",
    "   leading and trailing   ",
    "<|endoftext|>special<|endoftext|> tokens",
    "Straße Ärger Ελληνικά Русский",
    "x",
    " ",
    "unseen: zqxj WXYZ ~`^ ü ñ ø ∑ ∞ 🦀",
    "def f(x):\n    return x*x  # comment\n",
    "Line one.\r\nLine two!\n\n\nThe END'S NEAR, isn'T it",
    "x=1234567;y=(a+b)*c  \n\t ",
    "¿Qué? ¡Sí! ...!!! ",
    "decomposed: cafe\u0301 A\u030a",
]


def bytes_to_unicode():
    """OpenAI gpt-2 encoder.py: reversible byte -> printable character map."""
    bs = (list(range(ord("!"), ord("~") + 1)) +
          list(range(ord("¡"), ord("¬") + 1)) +
          list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(2**8):
        if b not in bs:
            bs.append(b)
            cs.append(2**8 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def get_pairs(word):
    return set(zip(word, word[1:]))


def bpe(word, ranks):
    """encoder.py's bpe(): merge the lowest-ranked pair until none is left."""
    word = tuple(word)
    if len(word) < 2:
        return list(word)
    pairs = get_pairs(word)
    while True:
        bigram = min(pairs, key=lambda p: ranks.get(p, float("inf")))
        if bigram not in ranks:
            break
        first, second = bigram
        new_word = []
        i = 0
        while i < len(word):
            try:
                j = word.index(first, i)
            except ValueError:
                new_word.extend(word[i:])
                break
            new_word.extend(word[i:j])
            i = j
            if i < len(word) - 1 and word[i] == first and word[i + 1] == second:
                new_word.append(first + second)
                i += 2
            else:
                new_word.append(word[i])
                i += 1
        word = tuple(new_word)
        if len(word) == 1:
            break
        pairs = get_pairs(word)
    return list(word)


def train(words, merges_wanted):
    """Sennrich et al. 2016: words is a Counter of symbol tuples."""
    words = Counter({tuple(w): c for w, c in words.items()})
    merges = []
    for _ in range(merges_wanted):
        pairs = Counter()
        for w, c in words.items():
            for p in zip(w, w[1:]):
                pairs[p] += c
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        if pairs[best] < 2:
            break
        merges.append(best)
        new = Counter()
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new[tuple(out)] += c
        words = new
    return merges


def byte_level_model(pattern, merges_wanted=300):
    b2u = bytes_to_unicode()
    words = Counter()
    for piece in regex.findall(pattern, CORPUS):
        words[tuple(b2u[b] for b in piece.encode("utf-8"))] += 1
    merges = train(words, merges_wanted)
    vocab = {b2u[b]: b for b in range(256)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


def spbpe_model(merges_wanted=200):
    words = Counter()
    for line in CORPUS.splitlines():
        text = META + line.replace(" ", META)
        words[tuple(text)] += 1
    # Characters seen at least twice are in the vocabulary; the others
    # (and unseen ones) fall back to bytes.
    chars = Counter(ch for w, c in words.items() for ch in w for _ in range(c))
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    for ch in sorted(ch for ch, c in chars.items() if c >= 6):
        vocab[ch] = len(vocab)
    words = Counter({tuple(ch if ch in vocab else "\0" for ch in w): c
                     for w, c in words.items()})
    merges = [m for m in train(words, merges_wanted) if "\0" not in m[0] + m[1]]
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


def added(content, id):
    return {"id": id, "content": content, "single_word": False,
            "lstrip": False, "rstrip": False, "normalized": False,
            "special": True}


def make(out):
    os.makedirs(os.path.join(out, "gpt2"), exist_ok=True)
    vocab, merges = byte_level_model(GPT2_PAT)
    eot = len(vocab)
    vocab["<|endoftext|>"] = eot
    with open(os.path.join(out, "gpt2", "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out, "gpt2", "merges.txt"), "w") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write("%s %s\n" % (a, b))

    def write(sub, obj):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
        with open(os.path.join(out, sub, "tokenizer.json"), "w") as f:
            json.dump(obj, f, ensure_ascii=False, indent=1)

    write("gpt2-json", {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added("<|endoftext|>", eot)],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                          "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True,
                           "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True,
                    "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False,
                  "vocab": {k: v for k, v in vocab.items()
                            if k != "<|endoftext|>"},
                  "merges": ["%s %s" % m for m in merges]}})

    vocab, merges = byte_level_model(LLAMA3_PAT)
    n = len(vocab)
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"]
    write("llama3", {
        "version": "1.0",
        "added_tokens": [added(s, n + i) for i, s in enumerate(specials)],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_PAT},
             "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False,
             "trim_offsets": True, "use_regex": False}]},
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True,
             "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": "<|begin_of_text|>",
                                          "type_id": 0}},
                        {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [], "special_tokens": {}}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True,
                    "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False,
                  "byte_fallback": False, "ignore_merges": True,
                  "vocab": vocab, "merges": [list(m) for m in merges]}})

    vocab, merges = byte_level_model(QWEN2_PAT)
    n = len(vocab)
    write("qwen2", {
        "version": "1.0",
        "added_tokens": [added("<|endoftext|>", n), added("<|im_end|>", n + 1)],
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_PAT},
             "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False,
             "trim_offsets": False, "use_regex": False}]},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": False,
                           "trim_offsets": False, "use_regex": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": False,
                    "trim_offsets": False, "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False,
                  "vocab": vocab, "merges": ["%s %s" % m for m in merges]}})
    with open(os.path.join(out, "qwen2", "tokenizer_config.json"), "w") as f:
        json.dump({"eos_token": "<|im_end|>"}, f)

    vocab, merges = spbpe_model()
    write("spbpe", {
        "version": "1.0",
        "added_tokens": [added("<unk>", 0), added("<s>", 1), added("</s>", 2)],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": META},
            {"type": "Replace", "pattern": {"String": " "},
             "content": META}]},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>",
                                                        "type_id": 0}},
                                      {"Sequence": {"id": "A",
                                                    "type_id": 0}}],
                           "pair": [], "special_tokens": {}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": META}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True,
                  "byte_fallback": True, "vocab": vocab,
                  "merges": ["%s %s" % m for m in merges]}})


class Reference:
    """Encodes like the Hugging Face / OpenAI tokenizer of KIND."""

    def __init__(self, kind, path):
        self.kind = kind
        if os.path.isdir(path):
            path = os.path.join(path, "vocab.json")
        if path.endswith("vocab.json"):
            with open(path) as f:
                self.vocab = json.load(f)
            with open(os.path.join(os.path.dirname(path), "merges.txt")) as f:
                lines = f.read().split("\n")[1:]
            merges = [tuple(l.split(" ")) for l in lines if l]
            self.specials = {k: v for k, v in self.vocab.items()
                             if k.startswith("<|") and k.endswith("|>")}
        else:
            with open(path) as f:
                tj = json.load(f)
            self.vocab = tj["model"]["vocab"]
            merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
                      for m in tj["model"]["merges"]]
            self.specials = {t["content"]: t["id"] for t in tj["added_tokens"]}
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.pattern = {"llama3": LLAMA3_PAT, "qwen2": QWEN2_PAT}.get(
            kind, GPT2_PAT)
        self.b2u = bytes_to_unicode()
        self.u2b = {v: k for k, v in self.b2u.items()}
        self.id2tok = {v: k for k, v in self.vocab.items()}
        self.id2tok.update({v: k for k, v in self.specials.items()})

    def encode(self, text):
        ids = []
        alt = "|".join(regex.escape(s) for s in
                       sorted(self.specials, key=len, reverse=True))
        for part in regex.split("(%s)" % alt, text) if alt else [text]:
            if part in self.specials:
                ids.append(self.specials[part])
            elif part:
                if self.kind == "qwen2":
                    part = unicodedata.normalize("NFC", part)
                ids.extend(self.encode_segment(part))
        return ids

    def encode_segment(self, text):
        if self.kind == "spbpe":
            word = []
            for ch in META + text.replace(" ", META):
                if ch in self.vocab:
                    word.append(ch)
                else:
                    word.extend("<0x%02X>" % b for b in ch.encode("utf-8"))
            return [self.vocab[t] for t in bpe(word, self.ranks)]
        ids = []
        for piece in regex.findall(self.pattern, text):
            word = "".join(self.b2u[b] for b in piece.encode("utf-8"))
            if self.kind == "llama3" and word in self.vocab:
                ids.append(self.vocab[word])  # ignore_merges
                continue
            ids.extend(self.vocab[t] for t in bpe(word, self.ranks))
        return ids


def stream(llmc, path, ids):
    """The concatenated output of `llmc tokenize --ids ... --stream`, and
    whether every line held complete UTF-8 text."""
    out = subprocess.run([llmc, "tokenize", "--tokenizer", path, "--stream",
                          "--ids=" + ",".join(map(str, ids))],
                         capture_output=True, check=True).stdout
    text = ""
    for line in out.decode("utf-8").splitlines():
        text += json.loads(line.split(": ", 1)[1])
    return text


def check(kind, path, llmc):
    ref = Reference(kind, path)
    bad = 0
    for text in TEXTS:
        want = ref.encode(text)
        out = subprocess.run([llmc, "tokenize", "--tokenizer", path,
                              "--text=" + text], capture_output=True,
                             check=True).stdout.decode("utf-8")
        got = [int(x) for x in out.strip().split(",") if x]
        dec = subprocess.run([llmc, "tokenize", "--tokenizer", path,
                              "--ids=" + ",".join(map(str, got))],
                             capture_output=True, check=True).stdout
        dec = dec.decode("utf-8")[:-1]  # llmc adds a newline
        if kind == "qwen2":
            text = unicodedata.normalize("NFC", text)
        ok = got == want and dec == text and stream(llmc, path, got) == text
        bad += not ok
        print("%s %s %d tokens %r" % (kind, "ok" if ok else "MISMATCH",
                                       len(got), text))
        if not ok:
            print("  llmc ids %s\n  ref  ids %s\n  decoded %r" %
                  (got, want, dec))
    print("%s: %d of %d texts match the reference, round-trip and stream" %
          (kind, len(TEXTS) - bad, len(TEXTS)))
    return 1 if bad else 0


def make_spm(out):
    """A tiny sentencepiece model (Kudo & Richardson 2018), trained by
    Debian's python3-sentencepiece."""
    import sentencepiece as spm
    os.makedirs(out, exist_ok=True)
    corpus = os.path.join(out, "corpus.txt")
    with open(corpus, "w") as f:
        f.write(CORPUS)
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=os.path.join(out, "tiny"),
        vocab_size=400, model_type="bpe", byte_fallback=True,
        character_coverage=0.98, minloglevel=2)


def check_spm(path, llmc):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=path)
    bad = 0
    for text in TEXTS:
        want = sp.encode(text)
        out = subprocess.run([llmc, "tokenize", "--tokenizer", path,
                              "--text=" + text], capture_output=True,
                             check=True).stdout.decode("utf-8")
        got = [int(x) for x in out.strip().split(",") if x]
        dec = subprocess.run([llmc, "tokenize", "--tokenizer", path,
                              "--ids=" + ",".join(map(str, got))],
                             capture_output=True, check=True).stdout
        dec = dec.decode("utf-8")[:-1]
        ok = (got == want and dec == sp.decode(want) and
              stream(llmc, path, got) == dec)
        bad += not ok
        print("spm %s %d tokens %r" % ("ok" if ok else "MISMATCH", len(got),
                                       text))
        if not ok:
            print("  llmc ids %s\n  spm  ids %s\n  decoded %r\n  spm %r" %
                  (got, want, dec, sp.decode(want)))
    print("spm: %d of %d texts match the sentencepiece library and stream" %
          (len(TEXTS) - bad, len(TEXTS)))
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "make-spm":
        make_spm(sys.argv[2])
    elif sys.argv[1] == "check-spm":
        sys.exit(check_spm(*sys.argv[2:4]))
    elif sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:5]))
    else:
        sys.exit("usage: tokenizers.py make DIR | check KIND FILE LLMC")
