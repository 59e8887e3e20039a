"""What the drills run in child processes, and how they check a store afterwards.

Each worker opens its own layer on the store URL (a real process: its own connections and index cache),
waits at a barrier so the processes really race, does its writes and puts ``("ok", result)`` or
``("error", traceback)`` on the results queue. ``benchmarks/drills.py`` runs the same workers with
bigger numbers. Functions here are importable by name, as the ``forkserver`` start method needs.
"""

from __future__ import annotations

import multiprocessing
import random
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import kioko
from kioko_core.linking import links
from kioko_core.store import Record, Scope

BARRIER_TIMEOUT = 120.0
"""Seconds a worker waits for its siblings; a sibling that died must not hang the run."""

RESULT_TIMEOUT = 300.0
"""Seconds the parent waits for one worker's result."""

TOPICS = ("conveyor", "encoder", "drive", "guard", "photo-eye", "bottle")
"""Words every linked write uses, so memories written by different processes have reasons to link."""


def _run(results: Any, barrier: Any, body: Callable[[], Any]) -> None:
    try:
        if barrier is not None:
            barrier.wait(BARRIER_TIMEOUT)
        results.put(("ok", body()))
    except BaseException:  # the parent shows the child's traceback instead of waiting for a result
        results.put(("error", traceback.format_exc()))


def update_metadata(url: str, user: str, memory_id: str, worker: str, times: int, barrier: Any, results: Any) -> None:
    """``times`` updates of one memory: a metadata key of its own each time, the content every 4th time."""

    def body() -> int:
        with kioko.connect(url, auto_link=True) as layer:
            for i in range(times):
                content = f"Line 3 conveyor check {i} by {worker}." if i % 4 == 3 else None
                layer.update(memory_id, user_id=user, content=content, metadata={f"{worker}-{i}": i})
        return times

    _run(results, barrier, body)


def count_outcomes(
    url: str,
    user: str,
    procedure_id: str,
    goal_id: str,
    worker: str,
    times: int,
    notes: int,
    edit: str,
    barrier: Any,
    results: Any,
) -> None:
    """``times`` outcomes on one procedure (every third a failure) and ``notes`` progress notes on one goal.

    With ``edit`` "title" or "steps", every fourth outcome is followed by a change of the procedure's title
    (or of its steps) alone, which rebuilds its content from the part not given: a sibling editing the
    other part must find its last change kept.
    """

    def body() -> int:
        with kioko.connect(url, auto_link=True) as layer:
            for i in range(times):
                layer.procedures.outcome(procedure_id, i % 3 != 2, user_id=user)
                if edit and i % 4 == 3:
                    layer.procedures.update(procedure_id, user_id=user, **procedure_edit(edit, worker, i))
                if i < notes:
                    layer.goals.progress(goal_id, user_id=user, note=f"step {worker}-{i}")
        return times

    _run(results, barrier, body)


def procedure_edit(edit: str, worker: str, i: int) -> dict[str, Any]:
    """The change ``count_outcomes`` makes to the procedure's title or steps on its ``i``-th outcome."""
    if edit == "title":
        return {"title": f"Reset the drive ({worker} {i})"}
    return {"steps": ["Press stop", f"Reset the drive ({worker} {i})"]}


def linked_writes(url: str, user: str, worker: str, times: int, barrier: Any, results: Any) -> None:
    """``times`` memories that share topic words, each linked at write time; returns their ids."""

    def body() -> list[str]:
        written = []
        rng = random.Random(worker)
        with kioko.connect(url, auto_link=True) as layer:
            for i in range(times):
                topic, other = rng.sample(TOPICS, 2)
                text = f"Line 3 {topic} fault E-{100 + i % 7}: the {other} was checked by {worker} ({i})."
                written.append(layer.add(text, user_id=user, memory_type="episodic").id)
        return written

    _run(results, barrier, body)


def add_memories(url: str, user: str, texts: list[str], barrier: Any, results: Any) -> None:
    """Add ``texts`` as episodes (linked at write time) in this process; returns their ids."""

    def body() -> list[str]:
        with kioko.connect(url, auto_link=True) as layer:
            return [layer.add(text, user_id=user, memory_type="episodic").id for text in texts]

    _run(results, barrier, body)


def write_until_killed(url: str, user: str, worker: str, started: Any) -> None:
    """Linked writes and updates forever; the parent kills this process with SIGKILL mid-write."""
    with kioko.connect(url, auto_link=True) as layer:
        rng = random.Random(worker)
        ids: list[str] = []
        for i in range(1_000_000):
            topic, other = rng.sample(TOPICS, 2)
            ids.append(
                layer.add(
                    f"Line 3 {topic} fault E-{i % 9}: the {other} ({worker} {i}).", user_id=user, memory_type="episodic"
                ).id
            )
            if i % 3 == 2:
                layer.update(rng.choice(ids), user_id=user, metadata={"touched": i})
            if i == 3:
                started.set()


# --------------------------------------------------------------------------- running and checking


def _context() -> Any:
    """Workers are forked from a server process that imported kioko once (the "forkserver" method).

    Each worker is still a process of its own, with its own connections and index cache, started from a
    clean single-threaded server rather than from the test process; but it no longer imports numpy and
    kioko afresh, which on a loaded CI machine was most of a drill's time.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["kioko", "drill_workers"])
    return context


def run_workers(target: Callable[..., None], arguments: list[tuple]) -> list[Any]:
    """Start one spawned process per argument tuple (a barrier and a results queue are appended)."""
    context = _context()
    barrier = context.Barrier(len(arguments))
    results = context.Queue()
    processes = [context.Process(target=target, args=(*args, barrier, results)) for args in arguments]
    for process in processes:
        process.start()
    answers = []
    try:
        for _ in processes:
            status, value = results.get(timeout=RESULT_TIMEOUT)
            if status != "ok":
                raise AssertionError(f"a worker failed:\n{value}")
            answers.append(value)
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()
    return answers


def kill_mid_write(url: str, user: str, worker: str, after: float) -> None:
    """Start a writer, let it run ``after`` seconds past its first writes, then SIGKILL it."""
    context = _context()
    started = context.Event()
    process = context.Process(target=write_until_killed, args=(url, user, worker, started))
    process.start()
    try:
        if not started.wait(120):
            raise AssertionError("the writer never started writing")
        time.sleep(after)
    finally:
        process.kill()
        process.join(30)


@dataclass
class GraphCheck:
    """What a scope's adjacency lists look like: every link must be stored on both ends."""

    records: int = 0
    links: int = 0
    asymmetric: list[tuple[str, str]] = field(default_factory=list)
    dangling: list[tuple[str, str]] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        return not self.asymmetric and not self.dangling


def check_graph(records: Iterable[Record]) -> GraphCheck:
    """Count asymmetric links (one end forgot it) and dangling ones (the other memory is gone)."""
    by_id = {r.id: r for r in records}
    check = GraphCheck(records=len(by_id))
    for record in by_id.values():
        for entry in links.link_entries(record):
            if entry.get("shared"):
                continue  # a link into the shared knowledge base is stored on the user's side only
            check.links += 1
            other = by_id.get(entry["id"])
            if other is None:
                check.dangling.append((record.id, entry["id"]))
            elif links.entry_for(other, record.id) is None:
                check.asymmetric.append((record.id, entry["id"]))
    return check


def scope_records(url: str, user: str) -> list[Record]:
    with kioko.connect(url) as layer:
        return list(layer.store.scan(Scope(user, None)))


def cross_process_links(records: Iterable[Record], writer_of: dict[str, str]) -> tuple[int, int]:
    """(links between memories written by different processes, all links), each link counted once."""
    seen: set[frozenset[str]] = set()
    across = 0
    for record in records:
        for entry in links.link_entries(record):
            pair = frozenset((record.id, entry["id"]))
            if pair in seen or entry["id"] not in writer_of or record.id not in writer_of:
                continue
            seen.add(pair)
            across += writer_of[record.id] != writer_of[entry["id"]]
    return across, len(seen)
