"""A fingerprint of ``analyze()`` on a large fixed sample, to show that a change to the text scan changes nothing.

    python benchmarks/analysis_snapshot.py --out after.json                      # this checkout's analysis
    python benchmarks/analysis_snapshot.py --root ../old-checkout --out before.json
    python benchmarks/analysis_snapshot.py --compare before.json after.json      # exit 1 on any difference

The sample is built by this file's own tree (so both runs analyse the very same texts): every LoCoMo turn
and question under ``--data``, 5,000 synthetic notes, 3,000 random character strings and 3,000 random runs
of tricky pieces (apostrophes, identifiers next to words, place nouns, the long s and the Kelvin sign), 40
long texts of those pieces, the drills' 1 MB text of names and identifiers, and ``long_text.py``'s texts at
20 KB, 100 KB and 1 MB. Each text is analysed alone and with known entity names; the fingerprint of a text
is a SHA-256 of everything the analysis holds (entities, terms, place terms, surfaces in order, words).
``kioko_core`` is imported from ``--root`` (default: this checkout), in a process of its own: the sample's
generators import this tree's ``kioko``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
KNOWN = ["kumar", "line 3", "pgvector", "mel", "kioko", "e-217", "station", "caroline"]
ALPHABET = "abcXYZ 019-._'\n\t:;!?()ſKıİ/@#E-217 Line 3 INC-4521 10.20.0.0/16 é"
PIECES = [
    "Line 3", "line 3's", "E-217", "Kumar", "Goal: Ship Kioko", "rock'n'roll", "INC-45A'b", "it's", "the",
    "Station 12", "10.20.0.0/16", "S7-1500", "Found it.", "Hey Mel!", "C++", ".NET", "ſite 4", "\u212ailn 2",
    "  ", "\n", "(pgvector),", "- ", "1) ", "Decision: Use X", "4B", "cell 4B", "pump A1", "Server A12b",
]  # fmt: skip


def sample(data: Path) -> list[str]:
    sys.path[:0] = [str(HERE)]
    from locomo_recall import load_conversation
    from long_text import dense_text, long_text
    from synthetic import generate_notes

    texts: list[str] = []
    for path in sorted(data.glob("*.json")):
        conversation = load_conversation(path)
        texts += [turn.document for turn in conversation.turns] + [question.text for question in conversation.questions]
    texts += [note.content for note in generate_notes(5000, seed=3)]
    rng = random.Random(5)
    texts += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 120))) for _ in range(3000)]
    texts += [" ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    texts += [" ".join(rng.choice(PIECES) for _ in range(rng.randint(800, 3000))) for _ in range(40)]
    texts.append("".join(rng.choice(ALPHABET) for _ in range(20000)))
    texts.append(dense_text(1_050_000))
    for size, seeds in ((20_000, 4), (100_000, 2), (1_000_000, 1)):
        texts += [long_text(size, seed) for seed in range(seeds)]
    return texts


def fingerprints(root: Path, texts: list[str]) -> list[str]:
    """Run in a process that has imported nothing of this tree, so ``kioko_core`` comes from ``root``."""
    sys.path.insert(0, str(root))
    from kioko_core.reading import analysis as text_module

    prints = []
    for number, text in enumerate(texts):
        text_module._scan.cache_clear()
        parts = []
        for known in ((), KNOWN if number % 2 else KNOWN[:3]):
            analysis = text_module.analyze(text, known)
            parts.append(
                [
                    analysis.entities,
                    analysis.terms,
                    sorted(analysis.place_terms),
                    list(analysis.surface.items()),
                    analysis.words,
                ]
            )
        prints.append(hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest())
    return prints


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout whose kioko_core is analysed")
    parser.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data" / "locomo")
    parser.add_argument("--out", type=Path, help="write the fingerprints here (JSON)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)  # the child process's sample
    args = parser.parse_args()
    if args.texts:
        args.out.write_text(json.dumps(fingerprints(args.root.resolve(), json.loads(args.texts.read_text()))))
        return
    if args.compare:
        before, after = (json.loads(path.read_text()) for path in args.compare)
        if len(before) != len(after):
            sys.exit(f"the two runs analysed different samples ({len(before)} and {len(after)} texts)")
        differ = [number for number, (one, two) in enumerate(zip(before, after)) if one != two]
        print(f"{len(before)} texts, {len(differ)} analysed differently" + (f": {differ[:20]}" if differ else ""))
        sys.exit(1 if differ else 0)
    if not args.out:
        parser.error("--out is needed (or --compare)")
    texts = sample(args.data)
    with tempfile.TemporaryDirectory() as folder:
        given = Path(folder) / "texts.json"
        given.write_text(json.dumps(texts))
        command = [sys.executable, str(Path(__file__).resolve()), "--texts", str(given), "--out", str(args.out)]
        subprocess.run([*command, "--root", str(args.root.resolve())], check=True)
    print(f"{len(texts)} texts analysed with {args.root.resolve()}")


if __name__ == "__main__":
    main()
