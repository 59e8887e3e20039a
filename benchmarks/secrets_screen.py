"""The secret screen on its corpus: refusals and false refusals per half (not a test: nothing asserts).

    python benchmarks/secrets_screen.py                 # prints the table
    python benchmarks/secrets_screen.py --show          # also every miss and every false refusal (tune half only)

Rows: the drill's table (tests/drills/drill_tables.py: credential formats and their look-alikes) and the two
halves of tests/privacy/secrets_corpus.py (card numbers and passphrases given as words, and the order numbers,
ISBNs, phone numbers, dates and talk about passwords that must pass). The ``held`` half was not read while the
card and passphrase detectors were tuned; its misses are listed only as counts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "drills"), str(ROOT / "tests" / "privacy")]

import drill_tables as tables  # noqa: E402
from secrets_corpus import HALVES  # noqa: E402

from kioko_core.privacy.secrets import DropSecrets  # noqa: E402


def row(name: str, secrets: list[str], look_alikes: list[str], show: bool) -> str:
    screen = DropSecrets()
    missed = [text for text in secrets if not screen.check(text)]
    false = [text for text in look_alikes if screen.check(text)]
    if show:
        for text in missed:
            print(f"  missed   [{name}] {text}")
        for text in false:
            print(f"  refused  [{name}] {text}  {screen.check(text)}")
    return f"| {name} | {len(secrets) - len(missed)}/{len(secrets)} | {len(false)}/{len(look_alikes)} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list the misses and false refusals of the tune half")
    args = parser.parse_args()
    lines = ["| set | secrets refused | look-alikes refused (false refusals) |", "|---|---|---|"]
    lines.append(row("drill table", list(tables.SECRETS.values()), list(tables.LOOK_ALIKES), args.show))
    for name, half in HALVES.items():
        lines.append(row(name, list(half.secrets), list(half.look_alikes), args.show and name == "tune"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
