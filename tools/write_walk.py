"""The write walk: which of the project's source files one linked ``MemoryLayer.add`` passes through, in order.

    python tools/write_walk.py [--earlier 6] [--without-id] [--list] [--json PATH]

A layer over ``memory://`` with the offline embedder and linking on is given ``--earlier`` memories of one user
and session first (so the linker has candidates to read, score and link), then the one ``add`` that is walked: a
note sharing their words, so it links. Nothing else runs while the walk is recorded. The walked add names its
id; ``--without-id`` walks an add without one (as most are), which first looks for a stored copy of the text.

What is counted, exactly. :func:`sys.setprofile` reports every Python function call and return in the thread.
The walk *follows the new memory's content*: a function call is followed when one of its named parameters holds
that content, i.e. the text itself, a record whose ``content`` it is, an object holding such a record under
``record`` (a Draft, an Upsert), or a list, tuple or dict holding one of these (two levels deep). A *step* is a
moment control passes into a project source file (``kioko/``, ``kioko_core/``, ``kioko_backends/``,
``kioko_intelligence/``) from a different one, by the call of a followed function defined there or by a return
into a followed function defined there (from any callee). Calls and returns inside one file are no step;
functions that are not handed the content (the index's statistics, the scoring of a candidate pair, telemetry)
and code outside the project (the standard library, pydantic, numpy) make no step of their own, so a walk is the
path the content takes, not every function the write runs. C functions are not reported by the profiler.
The first step is the entry into ``MemoryLayer.add``. Printed:

- ``steps``: the number of steps, i.e. the length of the walk as a sequence of files;
- ``files``: how many distinct files the walk entered;
- ``returns``: steps into a file the walk had already entered and left (``steps - files``);
- per file, how many times it was entered.

``--list`` prints the walk itself, one step a line (the file and the function entered or returned to).
The figures depend on the code only: fixed ids, times and texts, the offline embedder, no threads.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("KIOKO_EMBEDDER", "offline")

import kioko  # noqa: E402

PACKAGES = ("kioko", "kioko_core", "kioko_backends", "kioko_intelligence")
USER = "walker"
SESSION = "trip"
EARLIER = (
    "Booked the train to Lisbon for the conference on Friday",
    "The Lisbon conference talk is about memory layers for agents",
    "Packed the laptop charger and the train tickets for Lisbon",
    "Maria recommended a cafe near the Lisbon conference venue",
    "The conference hotel in Lisbon is next to the train station",
    "Rehearsed the conference talk twice, the demo still needs work",
    "Asked Maria which train leaves Lisbon after the conference",
    "The talk slides mention the memory layer's linker and recall",
)
WALKED = "Maria and I take the early train back from Lisbon after the conference talk"


def project_file(path: str) -> str | None:
    """The path of ``path`` inside the project when it is one of the project's source files, else None."""
    try:
        relative = Path(path).resolve().relative_to(ROOT)
    except ValueError:
        return None
    return str(relative) if relative.parts and relative.parts[0] in PACKAGES else None


def carries(value: Any, text: str, depth: int = 0) -> bool:
    """Whether ``value`` holds the memory's content ``text`` (see the module for what "holds" means)."""
    if isinstance(value, str):
        return value == text
    if getattr(value, "content", None) == text:
        return True
    record = getattr(value, "record", None)
    if record is not None and not isinstance(value, type) and getattr(record, "content", None) == text:
        return True
    if depth < 2 and isinstance(value, (list, tuple)):
        return any(carries(item, text, depth + 1) for item in value)
    if depth < 2 and isinstance(value, dict):
        return any(carries(item, text, depth + 1) for item in value.values())
    return False


class Walk:
    """The steps of a profiled stretch of code that follows ``text`` (see the module for what a step is)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.steps: list[tuple[str, str]] = []
        self._files: dict[str, str | None] = {}
        self._followed: set[int] = set()
        self._current: str | None = None

    def _file(self, frame: FrameType) -> str | None:
        path = frame.f_code.co_filename
        if path not in self._files:
            self._files[path] = project_file(path)
        return self._files[path]

    def _enter(self, frame: FrameType, where: str) -> None:
        if where != self._current:
            self._current = where
            self.steps.append((where, frame.f_code.co_qualname))

    def _follows(self, frame: FrameType) -> bool:
        code = frame.f_code
        named = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        values = frame.f_locals
        return any(carries(values.get(name), self.text) for name in named)

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            where = self._file(frame)
            if where is not None and self._follows(frame):
                self._followed.add(id(frame))
                self._enter(frame, where)
        elif event == "return":
            self._followed.discard(id(frame))
            caller = frame.f_back
            if caller is not None and id(caller) in self._followed:
                where = self._file(caller)
                if where is not None:
                    self._enter(caller, where)


def walk_one_add(earlier: int, with_id: bool = True) -> Walk:
    memory = kioko.connect("memory://", auto_link=True)
    base = 1_700_000_000.0
    for number, text in enumerate((EARLIER * (1 + earlier // len(EARLIER)))[:earlier]):
        memory.add(
            text,
            user_id=USER,
            session_id=SESSION,
            memory_type="episodic",
            id=f"e{number:03d}",
            created_at=base + 60 * number,
        )
    walk = Walk(WALKED)
    sys.setprofile(walk.profile)
    try:
        stored = memory.add(
            WALKED,
            user_id=USER,
            session_id=SESSION,
            memory_type="episodic",
            id="walked" if with_id else None,
            created_at=base + 60 * earlier,
        )
    finally:
        sys.setprofile(None)
    # the walk ends where add returned to this script: the last step recorded is inside the project
    if not stored.system or not stored.system.get("links"):
        raise SystemExit("the walked add made no link: the walk would not show the linker")
    memory.close()
    return walk


def figures(walk: Walk) -> dict[str, Any]:
    entered = Counter(where for where, _ in walk.steps)
    return {
        "steps": len(walk.steps),
        "files": len(entered),
        "returns": len(walk.steps) - len(entered),
        "entered": dict(entered.most_common()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--earlier", type=int, default=6, help="memories added before the walked one")
    parser.add_argument("--without-id", action="store_true", help="walk an add that names no id")
    parser.add_argument("--list", action="store_true", help="print the walk, one step a line")
    parser.add_argument("--json", type=Path, help="write the figures and the walk here")
    args = parser.parse_args()
    walk = walk_one_add(args.earlier, with_id=not args.without_id)
    result = figures(walk)
    if args.list:
        for number, (where, function) in enumerate(walk.steps, 1):
            print(f"{number:4d}  {where}  {function}")
    print(f"steps {result['steps']}  files {result['files']}  returns {result['returns']}")
    for where, times in result["entered"].items():
        print(f"  {times:4d}  {where}")
    if args.json:
        args.json.write_text(json.dumps({**result, "walk": walk.steps}, indent=1) + "\n")


if __name__ == "__main__":
    main()
