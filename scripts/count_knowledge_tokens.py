#!/usr/bin/env python3
"""Token counts of each knowledge-pack component, as a Markdown table (knowledge/README.md).

Tokenizers: OpenAI's o200k_base and cl100k_base BPEs, shipped inside the PyPI package `bpe-openai`
(no download at run time):  python3 -m pip install bpe-openai && python3 scripts/count_knowledge_tokens.py
"""
from pathlib import Path

import bpe_openai

ROOT = Path(__file__).resolve().parent.parent / "knowledge"
PACKS = [("hopper", "Hopper (sm_90a)"), ("blackwell", "Blackwell (sm_100a)")]
COMPONENTS = [("params.md", "architecture parameters"), ("ptx.cuh", "PTX template functions"),
              ("contract.md", "architecture contract")]
ENCODINGS = ["o200k_base", "cl100k_base"]


def main() -> None:
    enc = {name: bpe_openai.get_encoding(name) for name in ENCODINGS}
    print("| pack | component | file | " + " | ".join(ENCODINGS) + " |")
    print("|---|---|---|" + "---|" * len(ENCODINGS))
    for folder, title in PACKS:
        totals = {name: 0 for name in ENCODINGS}
        for file, what in COMPONENTS:
            text = (ROOT / folder / file).read_text()
            counts = {name: len(enc[name].encode(text)) for name in ENCODINGS}
            for name in ENCODINGS:
                totals[name] += counts[name]
            print(f"| {title} | {what} | {folder}/{file} | " + " | ".join(f"{counts[n]:,}" for n in ENCODINGS) + " |")
        print(f"| {title} | total | | " + " | ".join(f"{totals[n]:,}" for n in ENCODINGS) + " |")


if __name__ == "__main__":
    main()
