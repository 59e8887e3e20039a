"""Helpers of the forget drill: every string a process holds in Kioko's objects, every byte of a store's files.

Run as a script it is the drill's second process: it opens a store URL, then answers commands read from
stdin, one JSON line each: ``recall <user>|<query>`` (the contents recall returns), ``relations <user>|<entity>``
(the entity's triples, as lines) and ``held [attribute]`` (every string its layer, or that attribute of it, holds).
"""

from __future__ import annotations

import json
import sys
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

_OWN_MODULES = ("kioko", "kioko_core", "kioko_backends")


def held_strings(root: Any) -> list[str]:
    """Every str (and bytes, as latin-1) reachable from ``root`` through containers and Kioko's own objects.

    Objects of other libraries (sqlite3 connections, psycopg pools, qdrant clients) are not walked: what
    they keep is on disk or in the server, which the drill reads byte by byte.
    """
    found: list[str] = []
    seen: set[int] = set()
    todo: deque[Any] = deque([root])
    while todo:
        item = todo.popleft()
        if id(item) in seen or isinstance(item, (int, float, bool, type(None), np.ndarray, type)):
            continue
        seen.add(id(item))
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, (bytes, bytearray, memoryview)):
            found.append(bytes(item).decode("latin-1"))
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset, deque)):
            todo.extend(item)
        elif isinstance(item, BaseModel):
            todo.extend(vars(item).values())
        elif type(item).__module__.split(".")[0] in _OWN_MODULES or type(item).__module__ in ("tests", "__main__"):
            if hasattr(item, "__dict__"):
                todo.extend(vars(item).values())
            for slot in getattr(type(item), "__slots__", ()):
                todo.append(getattr(item, slot, None))
            if hasattr(item, "_items"):  # a bounded map keeps its entries behind a name of its own
                todo.append(item._items)
    return found


def file_bytes(directory: Path, prefix: str = "") -> dict[str, bytes]:
    """The raw bytes of every file under ``directory`` whose name starts with ``prefix``."""
    return {
        str(path): path.read_bytes()
        for path in sorted(directory.rglob(f"{prefix}*"))
        if path.is_file() and path.stat().st_size > 0
    }


def hits(needles: list[str], haystacks: dict[str, str | bytes]) -> list[str]:
    """``"needle in where"`` for each needle found (case-insensitive), as text and as UTF-8 bytes."""
    found = []
    for where, hay in haystacks.items():
        text = hay.decode("latin-1") if isinstance(hay, bytes) else hay
        lowered = text.lower()
        found.extend(f"{needle!r} in {where}" for needle in needles if needle.lower() in lowered)
    return found


def _serve(url: str) -> None:
    import kioko

    memory = kioko.connect(url, auto_link=True)
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "recall":
            user, _, query = argument.partition("|")  # recall <user>|<query>
            answer: Any = [m.record.content for m in memory.recall(query, user_id=user, plan=False).memories]
        elif command == "relations":  # relations <user>|<entity>: reads (and caches) the user's graph
            user, _, entity = argument.partition("|")
            answer = [t.line() for t in memory.graph.relations(entity, user_id=user)]
        elif command == "held":  # held <attribute of the layer>, e.g. held index, held index._scopes
            held: Any = memory
            for name in argument.split(".") if argument else []:  # held index._scopes: a dotted path
                held = getattr(held, name)
            answer = held_strings(held)
        else:
            answer = {"error": f"unknown command {command!r}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    memory.close()


if __name__ == "__main__":
    _serve(sys.argv[1])
