"""Mem0 OSS as a peer column of the memory-graph benchmark (``--peer mem0``; ``pip install 'kioko[peer]'``).

Mem0 gets the same texts, the same user and the same 256-dimensional vectors as Kioko (an adapter around
Kioko's :class:`~kioko_core.embedding.embedders.OfflineEmbedder` replaces its embedding model) and stores them in its
default vector store, Qdrant local mode, in a temporary directory. Memories are added with
``infer=False``, so Mem0 stores each text as it is instead of asking an LLM for facts: the LLM object
Mem0's constructor insists on gets a placeholder key, and a guard counts every call to it (there must be
none). Telemetry is switched off through ``MEM0_TELEMETRY`` before mem0 is imported, and every socket
connection is refused while Mem0 runs, so a run that tried the network fails instead of being measured.

Without spaCy (mem0's ``nlp`` extra) and fastembed (its ``extras``), Mem0's search is its dense search
plus its own ranking: its BM25 and entity boosts need those packages and a model download, which this
comparison does not allow. What one Mem0 cell measures, per size:

1. fill: the size's notes through ``Memory.add`` (a batch of messages per call, one memory each);
2. search: each question once untimed, then once timed, ``top_k`` = Kioko's recall limit;
3. add: the notes Kioko writes in its write phase, one ``add`` per note, the first few untimed.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata as package_metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from kioko_core.embedding.embedders import OfflineEmbedder
from kioko_core.recall.hybrid import RecallConfig

PEERS = ("mem0", "mem0-pgvector")
INSTALL_HINT = "pip install 'kioko[peer]' (mem0ai)"
VECTOR_STORES = {
    "mem0": "Qdrant local mode (qdrant-client, a path in a temporary directory): Mem0's default vector store",
    "mem0-pgvector": "pgvector on the benchmark's PostgreSQL (Mem0's HNSW index and its full-text keyword search)",
}
VECTOR_STORE = VECTOR_STORES["mem0"]


class PeerUnavailable(Exception):
    """The peer's package is not installed, or cannot be run offline; the message says what to do."""


class NetworkAttempt(RuntimeError):
    """Something tried to open a connection while the peer ran offline."""


def mem0_version() -> str | None:
    try:
        return package_metadata.version("mem0ai")
    except package_metadata.PackageNotFoundError:
        return None


_mem0_home: str | None = None


def load_mem0() -> Any:
    """Import mem0 with telemetry off and its home directory in a temporary place; PeerUnavailable if absent."""
    global _mem0_home
    if mem0_version() is None:
        raise PeerUnavailable(f"mem0ai is not installed: {INSTALL_HINT}")
    already = sys.modules.get("mem0.memory.telemetry")
    if already is not None and getattr(already, "MEM0_TELEMETRY", True):
        # mem0 reads the variable once, at import: too late to switch it off in this process
        raise PeerUnavailable("mem0 was imported with telemetry on before the benchmark could switch it off")
    os.environ["MEM0_TELEMETRY"] = "False"
    if _mem0_home is None:
        # mem0 creates its home (config.json, history) at import; keep it out of the user's ~/.mem0
        _mem0_home = tempfile.mkdtemp(prefix="kioko-bench-mem0-home-")
        atexit.register(shutil.rmtree, _mem0_home, True)
        os.environ["MEM0_DIR"] = _mem0_home
    import mem0
    from mem0.memory import telemetry

    if telemetry.MEM0_TELEMETRY:
        raise PeerUnavailable("mem0's telemetry is still on (MEM0_TELEMETRY was not read as False)")
    return mem0


# --------------------------------------------------------------------------- no network, no LLM


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _allowed(address: Any, port: int | None) -> bool:
    """A connection to the one local server the peer was given (its PostgreSQL), and nothing else."""
    return (
        port is not None
        and isinstance(address, tuple)
        and len(address) >= 2
        and address[0] in LOOPBACK
        and address[1] == port
    )


@contextmanager
def no_network(local_port: int | None = None) -> Iterator[list[str]]:
    """Refuse every socket connection (Unix sockets, and ``local_port`` on the loopback, excepted) while the
    block runs; yields the attempts."""
    attempts: list[str] = []
    original_connect, original_connect_ex = socket.socket.connect, socket.socket.connect_ex
    original_create = socket.create_connection

    def refuse(what: str) -> NetworkAttempt:
        attempts.append(what)
        return NetworkAttempt(f"the Mem0 peer must run offline, but something tried to connect to {what}")

    def connect(self: socket.socket, address: Any) -> None:
        if self.family == socket.AF_UNIX or _allowed(address, local_port):
            return original_connect(self, address)
        raise refuse(repr(address))

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family == socket.AF_UNIX or _allowed(address, local_port):
            return original_connect_ex(self, address)
        raise refuse(repr(address))

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if _allowed(address, local_port):
            return original_create(address, *args, **kwargs)
        raise refuse(repr(address))

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.create_connection = create_connection  # type: ignore[assignment]
    try:
        yield attempts
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
        socket.create_connection = original_create


@dataclass
class LlmGuard:
    """Counts calls to the LLM Mem0 built; with ``infer=False`` there must be none."""

    calls: list[str] = field(default_factory=list)

    def install(self, llm: Any) -> None:
        for name in ("generate_response", "generate_response_async"):
            if hasattr(llm, name):
                setattr(llm, name, self._refusal(name))

    def _refusal(self, name: str) -> Callable[..., Any]:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            raise RuntimeError(f"Mem0 called its LLM ({name}) in a benchmark that runs with infer=False")

        return refuse


# --------------------------------------------------------------------------- Mem0 configured offline


def offline_embedding_class(mem0: Any, embedder: Any) -> Any:
    """A mem0 embedding model that answers with a Kioko embedder's vectors (the offline one, or the semantic
    one for LoCoMo); mem0 calls ``embed(text, action)``."""
    from mem0.embeddings.base import EmbeddingBase

    class KiokoEmbedding(EmbeddingBase):  # type: ignore[misc]
        def embed(self, text: str, memory_action: str | None = None) -> list[float]:
            vector: np.ndarray = embedder.embed(text)
            return vector.tolist()  # type: ignore[no-any-return]

    return KiokoEmbedding


@dataclass
class Mem0Instance:
    memory: Any
    guard: LlmGuard
    path: Path


@contextmanager
def open_mem0(
    workdir: Path, dim: int = 256, postgres_url: str | None = None, embedder: Any = None
) -> Iterator[Mem0Instance]:
    """A fresh Mem0 ``Memory`` in ``workdir``: Kioko's embedder (``embedder``, else the offline one at ``dim``),
    an LLM that is never called, and Qdrant local mode, or with ``postgres_url`` a pgvector table of its own
    (dropped afterwards)."""
    mem0 = load_mem0()
    if embedder is None:
        embedder = OfflineEmbedder(dim)
    dim = int(embedder.dim)
    workdir.mkdir(parents=True, exist_ok=True)
    placeholder = "placeholder-key-never-used"  # the OpenAI clients need a key to be built; no call is made
    vector_store: dict[str, Any] = {
        "provider": "qdrant",
        "config": {
            "collection_name": "bench",
            "embedding_model_dims": dim,
            "path": str(workdir / "qdrant"),  # instead of its default /tmp/qdrant, shared by every process
        },
    }
    if postgres_url is not None:
        table = f"mem0_{workdir.name}".replace("-", "_").lower()
        vector_store = {
            "provider": "pgvector",
            "config": {"connection_string": postgres_url, "collection_name": table, "embedding_model_dims": dim},
        }
    config = {
        "vector_store": vector_store,
        "embedder": {"provider": "openai", "config": {"api_key": placeholder, "embedding_dims": dim}},
        "llm": {"provider": "openai", "config": {"api_key": placeholder}},
        "history_db_path": str(workdir / "history.db"),
    }
    memory = mem0.Memory.from_config(config)
    # mem0 2.2 has no registry for custom embedders; Memory calls self.embedding_model.embed(text, action)
    memory.embedding_model = offline_embedding_class(mem0, embedder)()
    guard = LlmGuard()
    guard.install(memory.llm)
    try:
        yield Mem0Instance(memory, guard, workdir)
    finally:
        try:
            memory.close()  # its history database; the vector store's client is closed below
            if postgres_url is None:
                memory.vector_store.client.close()
            else:
                memory.vector_store.delete_col()
                memory.vector_store.connection_pool.close()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------- one size


@dataclass
class PeerSettings:
    writes: int
    recalls: int
    warmup: int
    phase_budget: float
    fill_batch: int
    progress: bool


class PeerSkip(Exception):
    """Mem0 cannot reach this size within the phase budget; the message says why."""


def _check_budget(phase: str, started: float, done: int, total: int, budget: float, after: int) -> None:
    if done < after or done >= total:
        return
    elapsed = time.perf_counter() - started
    projected = elapsed / done * total
    if projected > budget:
        raise PeerSkip(
            f"Mem0's {phase} would take about {projected:.0f} s, over the {budget:.0f} s phase budget "
            f"({done} of {total} took {elapsed:.0f} s)"
        )


def _ms(values: Sequence[float], q: float | None = None) -> float | None:
    if not values:
        return None
    value = statistics.median(values) if q is None else float(np.percentile(values, q))
    return round(float(value), 2)


def _disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def empty_peer_result(size: int, name: str = "mem0") -> dict[str, Any]:
    return {
        "peer": name,
        "size": size,
        "skipped": None,
        "error": None,
        "fill_s": None,
        "add_ms": None,
        "add_p95_ms": None,
        "search_ms": None,
        "search_p95_ms": None,
    }


def run_mem0_cell(
    size: int,
    user: str,
    fill_texts: Sequence[str],
    write_texts: Sequence[str],
    questions: Sequence[str],
    settings: PeerSettings,
    workdir: Path,
    postgres_url: str | None = None,
) -> dict[str, Any]:
    """Fill Mem0 with ``fill_texts``, time ``questions`` and ``add`` of ``write_texts``; never raises.

    With ``postgres_url`` Mem0 stores its vectors there (pgvector), and connections to that server are the
    only ones allowed."""
    name = "mem0" if postgres_url is None else "mem0-pgvector"
    result = empty_peer_result(size, name)
    port = (urlsplit(postgres_url).port or 5432) if postgres_url is not None else None
    try:
        with no_network(port) as attempts:
            result.update(_measure(size, user, fill_texts, write_texts, questions, settings, workdir, postgres_url))
        if attempts:  # a refused connection that Mem0 swallowed still counts
            raise NetworkAttempt(f"connections were attempted: {attempts}")
    except PeerSkip as reason:
        result["skipped"] = str(reason)
    except PeerUnavailable as reason:
        result["skipped"] = str(reason)
    except Exception as error:
        result["error"] = f"{type(error).__name__}: {error}"
    return result


def _measure(
    size: int,
    user: str,
    fill_texts: Sequence[str],
    write_texts: Sequence[str],
    questions: Sequence[str],
    settings: PeerSettings,
    workdir: Path,
    postgres_url: str | None,
) -> dict[str, Any]:
    from tqdm import tqdm

    name = "mem0" if postgres_url is None else "mem0-pgvector"
    label = f"{name}/{size}"
    limit = RecallConfig().limit
    measured: dict[str, Any] = {"top_k": limit, "vector_store": VECTOR_STORES[name], "llm_calls": 0}
    with open_mem0(workdir, postgres_url=postgres_url) as peer:
        memory = peer.memory
        started = time.perf_counter()
        with tqdm(
            total=len(fill_texts), desc=f"  {label} fill", unit="mem", disable=not settings.progress, leave=False
        ) as bar:
            for start in range(0, len(fill_texts), settings.fill_batch):
                batch = fill_texts[start : start + settings.fill_batch]
                memory.add([{"role": "user", "content": text} for text in batch], user_id=user, infer=False)
                bar.update(len(batch))
                done = start + len(batch)
                _check_budget("fill", started, done, len(fill_texts), settings.phase_budget, settings.fill_batch)
        measured["fill_s"] = round(time.perf_counter() - started, 2)
        stored = len(memory.get_all(filters={"user_id": user}, top_k=len(fill_texts) + 10)["results"])
        if stored != len(fill_texts):
            raise RuntimeError(f"Mem0 holds {stored} memories after filling {len(fill_texts)}")
        # files only: a pgvector table's size is the server's (not counted here)
        measured["disk_mb"] = round(_disk_bytes(peer.path) / 2**20, 1) if postgres_url is None else None

        started = time.perf_counter()
        for done, question in enumerate(questions, 1):  # untimed: qdrant-client's and numpy's first calls
            memory.search(question, filters={"user_id": user}, top_k=limit)
            _check_budget("search", started, done, 2 * len(questions), settings.phase_budget, 3)
        searches: list[float] = []
        returned: list[int] = []
        for question in tqdm(questions, desc=f"  {label} search", disable=not settings.progress, leave=False):
            before = time.perf_counter()
            found = memory.search(question, filters={"user_id": user}, top_k=limit)["results"]
            searches.append((time.perf_counter() - before) * 1000.0)
            returned.append(len(found))
        measured.update(search_ms=_ms(searches), search_p95_ms=_ms(searches, 95))
        measured["search_returned_mean"] = round(statistics.mean(returned), 2) if returned else None

        pending = list(write_texts)
        timed = len(pending) - settings.warmup
        if timed < 1:
            raise ValueError("write_texts must hold more notes than the warm-up")
        adds: list[float] = []
        started = time.perf_counter()
        for number, text in enumerate(tqdm(pending, desc=f"  {label} add", disable=not settings.progress, leave=False)):
            before = time.perf_counter()
            memory.add(text, user_id=user, infer=False)
            if number >= settings.warmup:
                adds.append((time.perf_counter() - before) * 1000.0)
            _check_budget("adds", started, number + 1, len(pending), settings.phase_budget, settings.warmup + 2)
        measured.update(add_ms=_ms(adds), add_p95_ms=_ms(adds, 95), adds=len(adds), searches=len(searches))
        measured["llm_calls"] = len(peer.guard.calls)
        if peer.guard.calls:  # the guard raised inside mem0, which may have swallowed it
            raise RuntimeError(f"Mem0 called its LLM {len(peer.guard.calls)} times with infer=False")
    return measured


# --------------------------------------------------------------------------- ratios and the table


RATIOS = (
    ("write_off_ratio", "write_off_ms", "add_ms"),
    ("write_on_ratio", "write_on_ms", "add_ms"),
    ("recall0_ratio", "recall0_ms", "search_ms"),
    ("recall3_ratio", "recall3_ms", "search_ms"),
)
"""Kioko's median over Mem0's: below 1, Kioko takes less time."""


def ratios(kioko: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    """Kioko/Mem0 for one Kioko store at the size Mem0 was measured at (None where either is missing)."""
    row: dict[str, Any] = {"store": kioko["store"], "size": kioko["size"]}
    for name, ours, theirs in RATIOS:
        a, b = kioko.get(ours), peer.get(theirs)
        row[name] = round(a / b, 3) if a is not None and b else None
    return row


def peer_rows(results: Sequence[dict[str, Any]], peers: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    by_size = {p["size"]: p for p in peers}
    return [ratios(r, by_size[r["size"]]) for r in results if r["size"] in by_size]


def _cell(value: float | None, p95: float | None = None) -> str:
    if value is None:
        return "-"
    text = f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"
    if p95 is not None:
        text += f" (p95 {p95:.0f})" if p95 >= 10 else f" (p95 {p95:.1f})"
    return text


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def markdown_section(
    results: Sequence[dict[str, Any]],
    peers: Sequence[dict[str, Any]],
    version: str | None,
    skipped: str | None = None,
    name: str = "mem0",
) -> str:
    """Mem0's own times per size, then Kioko/Mem0 per Kioko store and size."""
    if skipped:
        return f"\nMem0 OSS: not measured, {skipped}.\n"
    lines = [
        "",
        f"Mem0 OSS {version or '(not installed)'} beside it: same texts and user, Kioko's offline embedder "
        f"(256 dimensions), add(infer=False), search(top_k={RecallConfig().limit}); vector store: "
        f"{VECTOR_STORES[name]}.",
        "",
        "| peer | memories | fill (s) | add | search | on disk (MB) | LLM calls |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in peers:
        if p.get("skipped") or p.get("error"):
            lines.append(f"| {p['peer']} | {p['size']} | not measured: {p.get('skipped') or p.get('error')} ||||| |")
            continue
        lines.append(
            f"| {p['peer']} | {p['size']} | {p['fill_s']} | {_cell(p['add_ms'], p['add_p95_ms'])} | "
            f"{_cell(p['search_ms'], p['search_p95_ms'])} | {p.get('disk_mb') or '-'} | {p['llm_calls']} |"
        )
    rows = peer_rows(results, peers)
    if rows:
        lines += [
            "",
            "Kioko / Mem0 (medians; below 1, Kioko takes less time):",
            "",
            "| store | memories | write, linking off | write, linking on | recall, links=0 | recall, links=3 |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r['store']} | {r['size']} | {_ratio(r['write_off_ratio'])} | {_ratio(r['write_on_ratio'])} | "
            f"{_ratio(r['recall0_ratio'])} | {_ratio(r['recall3_ratio'])} |"
            for r in rows
        ]
    return "\n".join(lines) + "\n"
