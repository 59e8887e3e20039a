"""Does the memory stay true whatever the user's writing voice? The dev scenes of memory_truth, rewritten.

    python benchmarks/memory_truth_variants.py [--split dev,dev2,...] [--variant lower,typos,...] [--seed N]
        [--markdown PATH] [--json PATH] [--failures]

Every user turn of the **dev** scenes (``benchmarks/data/memory_truth_dev*.jsonl``; the held-out files are
never opened here) is rewritten by one deterministic, seeded *perturbation* that keeps its meaning, and the
scenes are run again through :mod:`memory_truth`'s agent loop. Each variant is a row next to the unperturbed
run (``none``) of the same process: probes right, how many probes flip each way against ``none``, stale
values shown, false writes. A reading that only fits tidy phrasing loses probes on the rows below ``none``.

The perturbations (``VARIANTS``):

- ``lower`` / ``upper``: the whole turn in lower case / in capitals;
- ``no_punct``: sentence punctuation dropped (``.`` ``,`` ``!`` ``?`` ``;`` ``:`` and dashes between words),
  case kept: one run-on line;
- ``dictation``: phone dictation without punctuation: ``no_punct``, lower case and no apostrophes
  ("ok so i switched to vim last week its faster");
- ``spoken``: dictation that kept the spoken punctuation: ``dictation`` with each sentence mark said as a
  word ("we moved to leeds full stop the dog is rex comma he is 3"); not drawn by ``mixed``;
- ``no_apostrophes``: "im", "dont", "ive", "thats", "sams";
- ``expanded``: contractions written out ("I am", "do not", "we have");
- ``typos``: in one plain word of five letters or more (two in a turn of more than 20 words) two
  neighbouring letters swapped ("swithced"); names (capitalised inside a sentence) are left alone: a slip in
  a name makes another name;
- ``regional``: British and Indian spellings and phrasings ("colour", "favourite", "organise", "flat",
  "holiday", "mobile", "kindly", "we have shifted to", "I stay in");
- ``fillers``: "um", "like", "you know", "I mean", "basically" put between words;
- ``markers``: a discourse marker in front ("so", "anyway,", "btw", "oh and", "ok so", "also");
- ``terse``: the leading "I" / "I've" / "we" dropped and "the" / "a" left out ("switched to vim last week");
- ``mixed``: each turn two of the above, drawn per turn.

**What the probes look for is never perturbed.** Every entry a scene's probes must show, must not show as
current, or that must be gone (each ``|`` alternative) is a *protected span* wherever the turn holds it (case
ignored): a span is changed only in case (``lower``, ``upper``, ``dictation``; the benchmark matches case-
insensitively), never split by a filler, never misspelt, its punctuation and apostrophes kept. So a probe's
verdict can change only because the reading of the turn changed.

The seed (``--seed``, default 33) and the scene, turn and variant name every random choice, so a run is
the same on every machine. The probe questions are asked as written.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import memory_truth as truth  # noqa: E402

Span = tuple[int, int]
Perturb = Callable[[str, list[Span], random.Random], str]

# --------------------------------------------------------------------------- protected spans


def protected_spans(text: str, entries: list[str]) -> list[Span]:
    """Where ``text`` holds one of ``entries``' alternatives (case ignored), merged and sorted."""
    found: list[Span] = []
    for entry in entries:
        for alt in entry.split("|"):
            alt = alt.strip()
            if alt:
                found += [m.span() for m in truth._pattern(alt).finditer(text)]
    merged: list[Span] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _pieces(text: str, spans: list[Span]) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, protected) in order."""
    out, at = [], 0
    for start, end in spans:
        if start > at:
            out.append((text[at:start], False))
        out.append((text[start:end], True))
        at = end
    if at < len(text):
        out.append((text[at:], False))
    return out


def _join(pieces: list[tuple[str, bool]]) -> tuple[str, list[Span]]:
    text, spans = "", []
    for piece, kept in pieces:
        if kept:
            spans.append((len(text), len(text) + len(piece)))
        text += piece
    return text, spans


def _free(change: Callable[[str], str]) -> Perturb:
    """A perturbation that rewrites the unprotected text only: each span is masked by a word-like token while
    ``change`` runs (so "VS Code, it's" still has a word before its comma), then put back."""

    def perturb(text: str, spans: list[Span], rng: random.Random) -> str:
        masked, kept = "", []
        for piece, protected in _pieces(text, spans):
            if protected:
                masked += f"Qz{len(kept)}zQ"
                kept.append(piece)
            else:
                masked += piece
        changed = change(masked)
        return re.sub(r"Qz(\d+)zQ", lambda m: kept[int(m.group(1))], changed)

    return perturb


def _words(text: str, spans: list[Span]) -> list[re.Match[str]]:
    """The words of ``text`` outside the protected spans."""
    return [
        m for m in re.finditer(r"[A-Za-z][A-Za-z']*", text) if not any(s < m.end() and m.start() < e for s, e in spans)
    ]


# --------------------------------------------------------------------------- the perturbations

_SENTENCE_PUNCT = re.compile(r"(?<=\w)[.,!?;:]+(?=\s|$)|(?<=\S)[.!?]+(?=\s|$)|\s+[-–—]+\s+|…|\.\.\.")


def _no_punct(text: str) -> str:
    text = _SENTENCE_PUNCT.sub(
        lambda m: " " if m.group().strip(" ") in "-–—" and m.group().startswith(" ") else "", text
    )
    text = re.sub(r"[\"“”()]", "", text)
    return re.sub(r"[ \t]{2,}", " ", text)


_SAID_MARKS = {
    ".": "full stop",
    ",": "comma",
    "?": "question mark",
    "!": "exclamation mark",
    ";": "semicolon",
    ":": "colon",
}


def _spoken(text: str) -> str:
    """Each sentence mark said as a word, as a dictation that kept the user's spoken punctuation writes it
    ("we moved to leeds full stop the dog is rex comma he is 3")."""
    text = _SENTENCE_PUNCT.sub(
        lambda m: f" {_SAID_MARKS[m.group()[0]]}" if m.group()[0] in _SAID_MARKS and m.group() != "..." else " ",
        text,
    )
    text = re.sub(r"[\"“”()]", "", text)
    return re.sub(r"[ \t]{2,}", " ", text)


def _no_apostrophes(text: str) -> str:
    return re.sub(r"(?<=[A-Za-z])[’'](?=[A-Za-z])", "", text)


_EXPAND = (
    (r"\b(I)'m\b", r"\1 am"),
    (r"\b(won)'t\b", "will not"),
    (r"\b(Won)'t\b", "Will not"),
    (r"\b(can)'t\b", r"\1not"),
    (r"\b(Can)'t\b", r"\1not"),
    (r"\b(\w+)n't\b", r"\1 not"),
    (r"\b(\w+)'re\b", r"\1 are"),
    (r"\b(\w+)'ve\b", r"\1 have"),
    (r"\b(\w+)'ll\b", r"\1 will"),
    (r"\b(I|you|we|they|he|she)'d\b", r"\1 would"),
    (r"\b([Hh]e|[Ss]he|[Ii]t|[Tt]hat|[Tt]here|[Ww]hat)'s (been|got)\b", r"\1 has \2"),
    (
        r"\b([Hh]e|[Ss]he|[Ii]t|[Tt]hat|[Tt]here|[Ww]hat|[Hh]ere|[Ll]et)'s\b",
        lambda m: m.group(1) + (" us" if m.group(1).lower() == "let" else " is"),
    ),
)


def _expanded(text: str) -> str:
    for pattern, repl in _EXPAND:
        text = re.sub(pattern, repl, text)  # type: ignore[arg-type]
    return text


def _typos(text: str, spans: list[Span], rng: random.Random) -> str:
    words = [
        m
        for m in _words(text, spans)
        if len(m.group()) >= 5
        and m.group().isalpha()
        and (m.group()[1:].islower() and (m.group()[0].islower() or re.search(r"(?:^|[.!?]\s+)$", text[: m.start()])))
    ]
    if not words:
        return text
    count = 2 if len(text.split()) > 20 and len(words) > 1 else 1
    chosen = sorted(rng.sample(words, count), key=lambda m: m.start(), reverse=True)
    for m in chosen:
        word = m.group()
        at = rng.randrange(1, len(word) - 2)  # never the first letter (names stay findable by their start)
        swapped = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
        text = text[: m.start()] + swapped + text[m.end() :]
    return text


_REGIONAL = (
    (r"\bcolor", "colour"),
    (r"\bfavorite", "favourite"),
    (r"\bflavor", "flavour"),
    (r"\bneighbor", "neighbour"),
    (r"\bbehavior", "behaviour"),
    (r"\bhumor", "humour"),
    (r"\bcenter\b", "centre"),
    (r"\btheater\b", "theatre"),
    (r"\bgray\b", "grey"),
    (r"\b(organ|real|recogn|apolog|priorit|optim|summar|analy)iz", r"\1is"),
    (r"\banalyze", "analyse"),
    (r"\b(travel|cancel|model|label)(ed|ing)\b", r"\1l\2"),
    (r"\bprogram\b", "programme"),
    (r"\bapartment\b", "flat"),
    (r"\bvacation\b", "holiday"),
    (r"\bcell ?phone\b", "mobile"),
    (r"\bmom\b", "mum"),
    (r"\bfall\b(?= (?:semester|term))", "autumn"),
    (r"\b(?:P|p)lease\b", "kindly"),
    (r"\b(we|I|they|he|she) (?:moved|relocated) to\b", r"\1 have shifted to"),
    (r"\b(I|we|they) live in\b", r"\1 stay in"),
    (r"\bI'm going to\b", "I am going to"),
    (r"\bgot\b", "have got"),
    (r"\bI have a\b", "I am having a"),
    (r"\bmaybe\b", "perhaps"),
)


def _regional(text: str) -> str:
    for pattern, repl in _REGIONAL:
        text = re.sub(pattern, lambda m, r=repl: _keep_case(m.group(), m.expand(r)), text)
    return text


def _keep_case(old: str, new: str) -> str:
    if old[:1].isupper() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


_FILLERS = ("um", "like", "you know", "I mean", "basically", "uh")


def _fillers(text: str, spans: list[Span], rng: random.Random) -> str:
    gaps = [m.start() for m in _words(text, spans)][1:]  # before a word, not the first one
    if not gaps:
        return text
    count = 1 if len(gaps) < 12 else 2
    for at in sorted(rng.sample(gaps, min(count, len(gaps))), reverse=True):
        filler = rng.choice(_FILLERS)
        text = text[:at] + (f"{filler}, " if rng.random() < 0.5 else f"{filler} ") + text[at:]
    return text


_MARKERS = ("so ", "anyway, ", "btw ", "oh and ", "ok so ", "also ", "right, so ", "and ")


def _markers(text: str, spans: list[Span], rng: random.Random) -> str:
    marker = rng.choice(_MARKERS)
    first = text[:1]
    if spans and spans[0][0] == 0 or re.match(r"I\b|I'|[A-Z]\w*[A-Z]|[A-Z][a-z]*\d", text):
        return marker + text  # "I", a name or an identifier keeps its capital
    return marker + first.lower() + text[1:]


_TERSE_LEAD = re.compile(r"(?:(?<=^)|(?<=[.!?]\s))(?:I've|I have|I|We've|We|we've|we)\s+(?=[a-z])")


def _terse(text: str, spans: list[Span], rng: random.Random) -> str:
    def drop(piece: str) -> str:
        piece = _TERSE_LEAD.sub("", piece)
        return re.sub(r"\b(?:the|a) (?=[a-z])", lambda m: "" if rng.random() < 0.5 else m.group(), piece)

    joined = _free(drop)(text, spans, rng)
    return joined[:1].upper() + joined[1:] if joined[:1].islower() and text[:1].isupper() else joined


def _case(change: Callable[[str], str]) -> Perturb:
    return lambda text, spans, rng: change(text)


VARIANTS: dict[str, tuple[Perturb, ...]] = {
    "lower": (_case(str.lower),),
    "upper": (_case(str.upper),),
    "no_punct": (_free(_no_punct),),
    "dictation": (_free(_no_punct), _free(_no_apostrophes), _case(str.lower)),
    "spoken": (_free(_spoken), _free(_no_apostrophes), _case(str.lower)),
    "no_apostrophes": (_free(_no_apostrophes),),
    "expanded": (_free(_expanded),),
    "typos": (_typos,),
    "regional": (_free(_regional),),
    "fillers": (_fillers,),
    "markers": (_markers,),
    "terse": (_terse,),
}
"""Each variant's steps, in order; the protected spans are found again before every step."""
MIXABLE = tuple(v for v in VARIANTS if v != "spoken")
"""What ``mixed`` draws from: the variants it drew from before ``spoken`` was added, so its row stays comparable."""


def perturb_turn(text: str, entries: list[str], variant: str, rng: random.Random) -> str:
    """``text`` rewritten by ``variant``; the spans holding ``entries`` keep their words."""
    steps = list(rng.sample(MIXABLE, 2)) if variant == "mixed" else [variant]
    for step in steps:
        for part in VARIANTS[step]:
            text = part(text, protected_spans(text, entries), rng)
    return re.sub(r"[ \t]{2,}", " ", text).strip() or text


def entries_of(scene: truth.Scene) -> list[str]:
    """Everything the scene's probes look for (shown, not current, gone)."""
    return [e for p in scene.probes for e in p.show + p.not_current] + list(scene.gone)


def variant_scene(scene: truth.Scene, variant: str, seed: int) -> truth.Scene:
    if variant == "none":
        return scene
    entries = entries_of(scene)
    sessions = []
    for s, session in enumerate(scene.sessions):
        turns = []
        for t, turn in enumerate(session):
            rng = random.Random(f"{seed}:{variant}:{scene.split}:{scene.id}:{s}:{t}")
            turns.append(truth.Turn(perturb_turn(turn.user, entries, variant, rng), turn.noop))
        sessions.append(turns)
    return dataclasses.replace(scene, sessions=sessions)


# --------------------------------------------------------------------------- the run and its report


def dev_splits() -> list[str]:
    return [s for s in truth.splits_present() if truth.is_dev(s)]


def run(splits: list[str], variants: list[str], seed: int) -> dict[str, Any]:
    scenes = [scene for split in splits for scene in truth.load(split)]
    results: dict[str, list[truth.SceneResult]] = {}
    changed: dict[str, int] = {}
    for variant in ["none", *(v for v in variants if v != "none")]:
        perturbed = [variant_scene(scene, variant, seed) for scene in scenes]
        changed[variant] = sum(
            a.user != b.user
            for old, new in zip(scenes, perturbed)
            for s_old, s_new in zip(old.sessions, new.sessions)
            for a, b in zip(s_old, s_new)
        )
        results[variant] = truth.measure(f"v-{variant}", None, perturbed)
        s = truth.summarise(results[variant])
        print(
            f"{variant}: probes right {truth.pct(s['right'], s['probes'])}, stale {s['stale']}, "
            f"false writes {truth.pct(s['false_writes'], s['noop_turns'])}",
            flush=True,
        )
    return {"scenes": scenes, "results": results, "changed": changed}


def _flips(base: list[truth.SceneResult], other: list[truth.SceneResult]) -> tuple[int, int, list[str]]:
    lost, won, where = 0, 0, []
    for b, o in zip(base, other):
        for pb, po in zip(b.probes, o.probes):
            if pb.right and not po.right:
                lost += 1
                where.append(f"{b.scene.split}/{b.scene.id} {pb.question!r}")
            elif po.right and not pb.right:
                won += 1
    return lost, won, where


def report(data: dict[str, Any], command: str, seconds: float, seed: int, failures: bool) -> str:
    results = data["results"]
    base = results["none"]
    turns = sum(len(s) for scene in data["scenes"] for s in scene.sessions)
    splits = sorted({scene.split for scene in data["scenes"]}, key=lambda n: (len(n), n))
    lines = [
        "# Memory truth in other voices: the dev scenes perturbed",
        "",
        f"`{command}` (seed {seed}), {time.strftime('%Y-%m-%d')}, {seconds:.0f} s, one process. Dev halves only "
        f"({', '.join(splits)}: {len(data['scenes'])} scenes, {turns} user turns); the held-out files are never "
        "opened. Perturbations and protected spans: `benchmarks/memory_truth_variants.py`.",
        "",
        "| variant | turns changed | probes right | vs none | lost | won | stale shown | false writes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    b = truth.summarise(base)
    for variant, res in results.items():
        s = truth.summarise(res)
        lost, won, _ = _flips(base, res)
        lines.append(
            f"| {variant} | {data['changed'][variant]}/{turns} | {truth.pct(s['right'], s['probes'])} | "
            f"{s['right'] - b['right']:+d} | {lost} | {won} | {s['stale']} | "
            f"{truth.pct(s['false_writes'], s['noop_turns'])} |"
        )
    if failures:
        for variant, res in results.items():
            if variant == "none":
                continue
            _, _, where = _flips(base, res)
            if where:
                lines += ["", f"## {variant}: probes right unperturbed, wrong here ({len(where)})", ""]
                lines += [f"- {w}" for w in where]
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", help="dev halves to run, comma-separated (default: every dev file)")
    parser.add_argument(
        "--variant", help=f"variants, comma-separated (default: all: {', '.join([*VARIANTS, 'mixed'])})"
    )
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--failures", action="store_true", help="list the probes each variant loses")
    parser.add_argument("--show", help="print one dev scene's turns under --variant (no run)")
    parser.add_argument("--scene", help="run one dev scene under --variant: its turns, writes and contexts")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--json", type=Path, dest="json_path")
    args = parser.parse_args(argv)
    present = dev_splits()
    splits = [s.strip() for s in args.split.split(",") if s.strip()] if args.split else present
    for split in splits:
        if split not in present:
            parser.error(f"{split!r} is no dev half ({', '.join(present)}); held-out halves are never perturbed")
    known = ["none", *VARIANTS, "mixed"]
    variants = [v.strip() for v in args.variant.split(",") if v.strip()] if args.variant else known[1:]
    for variant in variants:
        if variant not in known:
            parser.error(f"unknown variant {variant!r} ({', '.join(known)})")
    if args.show:
        found = [s for split in present for s in truth.load(split) if s.id == args.show]
        if not found:
            parser.error(f"no dev scene {args.show!r}")
        for variant in variants:
            print(f"## {variant}")
            for session in variant_scene(found[0], variant, args.seed).sessions:
                for turn in session:
                    print("  ", turn.user)
        return 0
    if args.scene:
        found = [s for split in present for s in truth.load(split) if s.id == args.scene]
        if not found:
            parser.error(f"no dev scene {args.scene!r}")
        for variant in variants:
            result = truth.measure(f"v-{variant}", None, [variant_scene(found[0], variant, args.seed)])[0]
            print(f"## {variant}")
            for w in result.writes:
                print("  write:", w)
            for p in result.probes:
                print(f"  Q {p.question} right={p.right} missing={p.missing} stale={p.stale}")
                print("    " + p.context.replace("\n", "\n    "))
        return 0
    started = time.time()
    data = run(splits, variants, args.seed)
    command = "python benchmarks/memory_truth_variants.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = report(data, command.strip(), time.time() - started, args.seed, args.failures)
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text, encoding="utf-8")
    if args.json_path:
        base = data["results"]["none"]
        out = {}
        for variant, res in data["results"].items():
            lost, won, where = _flips(base, res)
            out[variant] = {
                **truth.summarise(res),
                "turns_changed": data["changed"][variant],
                "lost": lost,
                "won": won,
                "lost_probes": where,
            }
        args.json_path.parent.mkdir(parents=True, exist_ok=True)
        args.json_path.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
