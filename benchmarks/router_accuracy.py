"""How often the write-path router decides what a reader expects, on a labelled set of conversation turns.

    python benchmarks/router_accuracy.py [--quick] [--semantic] [--llm SPEC] [--data PATH]
        [--markdown PATH] [--json PATH]

The set is ``benchmarks/data/router_turns.jsonl`` (its sources: ``benchmarks/data/README.md``). Each item
has setup turns, the turn, the operations a reader expects (one or more acceptable alternatives), and
words that must not appear in what is stored. For every item a fresh user gets the setup turns, routed
and applied by the offline intelligence (a setup line starting with ``?`` is a ``recall`` of the session
instead, so "that worked" has something to credit); then the turn is routed with ``dry_run=True`` in the
same session, and the ops that were not skipped are compared with the expectation:

- an alternative matches when the set of operation names is the same (``relation.add`` is left out unless
  the item expects one: with the graph on every profile slot adds one), and every slot the alternative
  names (``profile.set:location``, ``working.set:task``) is among the ops' slots;
- a **false write** is an op on a turn whose only expectation is nothing;
- a stored text is **unfaithful** when it holds a word that is neither in the item's turns nor in the
  rewrite's own vocabulary (``language.rewrite_vocabulary()``: "User", "has", the third person of the
  verbs it knows ...), or when it mixes persons ("User is trying to get my ..."), or holds a forbidden
  word of the item. Unfaithful items count as misses.

Accuracy is reported per operation (the first expected operation of an item, "several" when it expects
more than one kind, "nothing"), overall, and for the fixed split: the items whose position in their
section is 4, 8, 12 ... are held out (about 25 %), the rest is the train part the rules were tuned on.

``--quick`` routes every third item (the CI test's subset). ``--semantic`` measures ``router="semantic"``
(the rules, with the clauses they do not recognise classified against labelled prototypes by the shipped
MiniLM embedder) beside the rules. ``--llm`` routes with a model as well: a
``module:function`` that is a ``prompt -> text`` callable, or whatever ``kioko.intelligent(llm=...)``
accepts; without it only the offline router is measured. The markdown lists every miss as
``kioko manage --dry-run`` prints it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import kioko  # noqa: E402
from kioko_intelligence import Intelligence  # noqa: E402
from kioko_intelligence.language import rewrite_vocabulary  # noqa: E402
from kioko_intelligence.ops import SKIPPED, ManageReport  # noqa: E402
from kioko_intelligence.providers import is_provider_string  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "router_turns.jsonl"
SESSION = "bench-session"
TEXT_FIELDS = ("text", "title", "value", "context", "rationale", "chosen")
_TOKEN = re.compile(r"[a-z0-9]+")
_FIRST_PERSON_WORDS = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself)\b", re.IGNORECASE)
QUICK_EVERY = 3


@dataclass
class Item:
    id: str
    section: str
    split: str
    setup: list[str]
    turn: str
    expect: list[list[str]]
    forbid: list[str] = field(default_factory=list)

    @property
    def operation(self) -> str:
        """The row of the per-operation table: the first expected op, "several" or "nothing"."""
        first = self.expect[0]
        kinds = list(dict.fromkeys(op.split(":", 1)[0] for op in first))
        if not kinds:
            return "nothing"
        return kinds[0] if len(kinds) == 1 else "several"

    @property
    def expects_nothing(self) -> bool:
        return all(not alternative for alternative in self.expect)


def load(path: Path = DATA, quick: bool = False) -> list[Item]:
    items = [Item(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return items[::QUICK_EVERY] if quick else items


# --------------------------------------------------------------------------- judging one item


def names(report: ManageReport, keep_relations: bool) -> tuple[set[str], set[str]]:
    """The written ops' names, and the same with their slot (``profile.set:location``)."""
    plain, slotted = set(), set()
    for op in report.ops:
        if op.status == SKIPPED or (op.op == "relation.add" and not keep_relations):
            continue
        plain.add(op.op)
        slotted.add(op.op)
        if op.kind in ("profile", "working") and op.fields.get("key"):
            slotted.add(f"{op.op}:{op.fields['key']}")
    return plain, slotted


def matches(alternative: list[str], plain: set[str], slotted: set[str]) -> bool:
    return {op.split(":", 1)[0] for op in alternative} == plain and all(op in slotted for op in alternative)


def stored_texts(report: ManageReport) -> list[str]:
    """What the written ops would store as text (titles, values, steps ...)."""
    texts: list[str] = []
    for op in report.ops:
        if op.status == SKIPPED:
            continue
        for name in TEXT_FIELDS:
            value = op.fields.get(name)
            if isinstance(value, str):
                texts.append(value)
        steps = op.fields.get("steps")
        if isinstance(steps, list):
            texts += [s for s in steps if isinstance(s, str)]
    return texts


def unfaithful(item: Item, report: ManageReport, vocabulary: frozenset[str]) -> list[str]:
    """Why the stored texts are not a faithful rewrite of what the user said: one line per problem."""
    said = set(_TOKEN.findall(" ".join([*item.setup, item.turn]).lower()))
    allowed = said | {t for word in vocabulary for t in _TOKEN.findall(word)}
    problems = []
    for text in stored_texts(report):
        foreign = [t for t in _TOKEN.findall(text.lower()) if t not in allowed]
        if foreign:
            problems.append(f"{text!r}: words the user did not say: {', '.join(dict.fromkeys(foreign))}")
        if text.startswith("User") and _FIRST_PERSON_WORDS.search(text):
            problems.append(f"{text!r}: mixes persons")
        for word in item.forbid:
            if re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE):
                problems.append(f"{text!r}: holds the forbidden word {word!r}")
    return problems


@dataclass
class Outcome:
    item: Item
    report: ManageReport
    correct: bool
    problems: list[str]
    written: set[str]


def judge(item: Item, report: ManageReport, vocabulary: frozenset[str]) -> Outcome:
    keep_relations = any(op.startswith("relation.") for alternative in item.expect for op in alternative)
    plain, slotted = names(report, keep_relations)
    problems = unfaithful(item, report, vocabulary)
    routed = any(matches(alternative, plain, slotted) for alternative in item.expect)
    return Outcome(item, report, routed and not problems, problems, plain)


# --------------------------------------------------------------------------- running a router


def route_all(items: list[Item], brain: Intelligence, label: str) -> list[Outcome]:
    """Each item with a user of its own on one in-memory layer: setup applied offline, the turn dry-run."""
    memory = kioko.intelligent("memory://")
    setup_brain = Intelligence(scheduler=False)
    vocabulary = rewrite_vocabulary()
    outcomes = []
    for number, item in enumerate(items):
        user = f"{label}-{number}"
        for turn in item.setup:
            if turn.startswith("?"):
                memory.recall(turn[1:], user_id=user, session_id=SESSION)
            else:
                setup_brain.manage(memory, turn, user_id=user, session_id=SESSION)
        report = brain.manage(memory, item.turn, user_id=user, session_id=SESSION, dry_run=True)
        outcomes.append(judge(item, report, vocabulary))
    memory.close()
    return outcomes


def model(spec: Any) -> Any:
    """``module:function`` is imported; anything else (a provider string, a callable) is handed to
    ``kioko.intelligent(llm=...)`` as it is."""
    if not isinstance(spec, str) or is_provider_string(spec):
        return spec  # "ollama:llama3.1" is a provider even where a module named ollama is installed
    module, _, name = spec.partition(":")
    if name and re.fullmatch(r"[\w.]+", module) and re.fullmatch(r"[\w.]+", name):
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError:
            pass
    return spec


def routers(llm: Any = None, semantic: bool = False) -> dict[str, Callable[[], Intelligence]]:
    chosen: dict[str, Callable[[], Intelligence]] = {"offline": lambda: Intelligence(scheduler=False)}
    if semantic:
        chosen["semantic"] = lambda: Intelligence("semantic", scheduler=False)
    if llm:
        chosen["llm"] = lambda: kioko.intelligent("memory://", llm=model(llm)).intelligence
    return chosen


# --------------------------------------------------------------------------- figures


def ratio(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100.0 * hits / total:.1f} %)" if total else "0/0"


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    by_operation: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_split: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for outcome in outcomes:
        for row in (by_operation[outcome.item.operation], by_split[outcome.item.split]):
            row[0] += outcome.correct
            row[1] += 1
    nothing = [o for o in outcomes if o.item.expects_nothing]
    false_writes = [o for o in nothing if o.written]
    return {
        "items": len(outcomes),
        "correct": sum(o.correct for o in outcomes),
        "train": by_split["train"],
        "heldout": by_split["heldout"],
        "by_operation": dict(sorted(by_operation.items())),
        "nothing_items": len(nothing),
        "false_writes": len(false_writes),
        "unfaithful_items": sum(1 for o in outcomes if o.problems),
        "misses": [o.item.id for o in outcomes if not o.correct],
    }


def accuracy(figures: dict[str, Any]) -> float:
    return figures["correct"] / figures["items"] if figures["items"] else 0.0


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def markdown(
    results: dict[str, tuple[dict[str, Any], list[Outcome]]], quick: bool, seconds: float, flags: str = ""
) -> str:
    lines = [
        "# Router accuracy",
        "",
        f"`python benchmarks/router_accuracy.py{' --quick' if quick else ''}{flags}` at {commit()}, "
        f"{time.strftime('%Y-%m-%d')}, {seconds:.1f} s. The set and its sources: `benchmarks/data/`.",
        "",
        "| router | items | correct | train | held out | false writes | unfaithful stored text |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (figures, _) in results.items():
        lines.append(
            f"| {name} | {figures['items']} | {ratio(figures['correct'], figures['items'])} | "
            f"{ratio(*figures['train'])} | {ratio(*figures['heldout'])} | "
            f"{ratio(figures['false_writes'], figures['nothing_items'])} | {figures['unfaithful_items']} |"
        )
    names_ = list(results)
    lines += ["", "Per operation (the first operation an item expects):", ""]
    lines.append("| operation | " + " | ".join(names_) + " |")
    lines.append("|---|" + "---:|" * len(names_))
    operations = sorted({op for figures, _ in results.values() for op in figures["by_operation"]})
    for op in operations:
        cells = [ratio(*results[n][0]["by_operation"].get(op, [0, 0])) for n in names_]
        lines.append(f"| {op} | " + " | ".join(cells) + " |")
    for name, (_, outcomes) in results.items():
        misses = [o for o in outcomes if not o.correct]
        lines += ["", f"## Misses of the {name} router ({len(misses)})", ""]
        for outcome in misses:
            item = outcome.item
            expected = " / ".join(" + ".join(alt) if alt else "nothing" for alt in item.expect)
            lines.append(f"### {item.id} ({item.split})")
            lines.append("")
            lines.append("```")
            for turn in item.setup:
                lines.append(f"setup > {turn}")
            lines.append(f"you > {item.turn}")
            for line in outcome.report.summary().splitlines():
                lines.append(f"      {line}")
            lines.append(f"expected: {expected}")
            for problem in outcome.problems:
                lines.append(f"unfaithful: {problem}")
            lines.append("```")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def run(items: list[Item], llm: Any = None, semantic: bool = False) -> dict[str, tuple[dict[str, Any], list[Outcome]]]:
    results = {}
    for name, build in routers(llm, semantic).items():
        outcomes = route_all(items, build(), name)
        results[name] = (summary(outcomes), outcomes)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"every {QUICK_EVERY}rd item only")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--llm", default=None, help="module:function (prompt -> text) or a provider spec")
    parser.add_argument("--semantic", action="store_true", help="also the semantic router (the MiniLM model)")
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    items = load(args.data, args.quick)
    started = time.perf_counter()
    results = run(items, args.llm, args.semantic)
    seconds = time.perf_counter() - started
    for name, (figures, _) in results.items():
        print(
            f"{name}: {ratio(figures['correct'], figures['items'])} correct; train {ratio(*figures['train'])}, "
            f"held out {ratio(*figures['heldout'])}; false writes {ratio(figures['false_writes'], figures['nothing_items'])}; "
            f"unfaithful {figures['unfaithful_items']}"
        )
        for op, (hits, total) in figures["by_operation"].items():
            print(f"  {op:22} {ratio(hits, total)}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        flags = (" --semantic" if args.semantic else "") + (" --llm ..." if args.llm else "")
        args.markdown.write_text(markdown(results, args.quick, seconds, flags), encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {name: figures for name, (figures, _) in results.items()}
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
