#!/usr/bin/env python3
"""How many word pieces a SciFact ingest with local embeddings reads.

Counts, with all-MiniLM-L6-v2's own tokenizer, what the default ingest sends to the model:
each abstract's first 256-piece window (title + text: one pass over the chunks) and every
sentence embedded as title + sentence (sentence vectors, `SpanMode::Separate`). Ingest time
is this count divided by the embedder's word pieces per second (docs/benchmarks.d/embed.md,
"What SciFact ingest in ≤ 120 s would take").

    /tmp/st-venv/bin/python scripts/eval/scifact_word_pieces.py [../shared/data/scifact]
"""
import json
import os
import sys
from pathlib import Path

from tokenizers import Tokenizer

WINDOW = 256
data = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/scifact")
model = Path(os.environ.get("VERITY_MODEL_DIR", Path.home() / ".cache/verity/models/all-MiniLM-L6-v2"))
tok = Tokenizer.from_file(str(model / "tokenizer.json"))
tok.no_truncation()
tok.no_padding()


def pieces(text: str) -> int:
    return len(tok.encode(text, add_special_tokens=False).ids)


docs = full = window = sentences = sentence_pieces = title_pieces = 0
with open(data / "corpus.jsonl", encoding="utf-8") as f:
    for line in f:
        d = json.loads(line)
        docs += 1
        n = pieces(d["title"] + "\n\n" + d["text"])
        full += n + 2
        window += min(n, WINDOW - 2) + 2
        title = pieces(d["title"] + "\n\n")
        for s in d.get("sentences", []):
            sentences += 1
            sentence_pieces += pieces(s) + title + 2
            title_pieces += title
print(json.dumps({
    "abstracts": docs,
    "word_pieces_every_abstract": full,
    "word_pieces_first_windows": window,
    "sentences": sentences,
    "word_pieces_sentence_passes": sentence_pieces,
    "of_which_repeated_titles": title_pieces,
    "total_default_ingest": window + sentence_pieces,
}, indent=2))
