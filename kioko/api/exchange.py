"""Export and import: every memory of a scope as JSON lines, restorable into any store.

An export is one header line, one line per record, and one end line with the count (so a cut-off
stream is noticed). A record line carries the whole record: content, metadata with its adjacency
list (``links``) and kept history, terms, times, the embedding bit for bit, and the version it had.
The user's entity graph (its triples, closed ones included) is exported with the user's own scope.

The user's webhook registrations travel too (their signing secrets with them, so receivers keep
verifying after a move: keep an export as safe as the key file).

Import writes records as they are, without linking them again (their links travel with them), and
skips a record the store already holds unchanged, so importing twice changes nothing. Every record
is checked first, as the API checks a write (the file whole, the scopes it may fill and the kinds they
hold, secrets, sizes, webhook registrations and their number, vector length), so a bad file writes
nothing; the file is read twice rather than held, so memory stays flat whatever its size. Records are then written 200 at a time: a store that fails
midway (unreachable, or a concurrent writer) keeps the whole batches before it, the error says how
many records were written, and running the same import again completes it (what is there is
skipped). The store stamps its own version counter, so ``version`` is the one field that may differ
after a move.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from kioko.api.errors import TooManyWebhooks
from kioko.api.json_depth import message as depth_message
from kioko.api.json_depth import too_deep
from kioko.api.webhook_records import WEBHOOK_AGENT, WEBHOOK_KIND, check_registration
from kioko.api.wire import record_in, stored_out
from kioko_core.graph.entities import GRAPH_AGENT, TRIPLE_KIND
from kioko_core.kinds.registry import MEMORY_TYPES
from kioko_core.layer.scoped import RESERVED_PREFIX, SESSIONS_AGENT
from kioko_core.linking import links
from kioko_core.linking.links import SHARED_USER
from kioko_core.privacy.secrets import DropSecrets, redact, redact_value
from kioko_core.store import InvalidRecordError, KiokoError, Record, Scope, Upsert, check_scope
from kioko_intelligence.summaries import LOG_KIND

FORMAT = "kioko-export"
FORMAT_VERSION = 1
BATCH = 200


OWN_AGENTS = (GRAPH_AGENT, WEBHOOK_AGENT, SESSIONS_AGENT)
"""Kioko's own scopes of a user that an export carries: the entity graph, the webhook registrations and the
turns of sessions not yet folded into their summaries (without them a moved store would summarise less)."""


def export_scopes(user_id: str, agent_ids: Iterable[str] = ()) -> list[Scope]:
    """The user's own scope, their entity graph, webhook registrations and session turns, and each agent named."""
    scopes = [check_scope((user_id, None)), *(Scope(user_id, agent) for agent in OWN_AGENTS)]
    scopes += [check_scope((user_id, a)) for a in agent_ids if a not in OWN_AGENTS]
    return list(dict.fromkeys(scopes))


def export_lines(layer: Any, user_id: str, agent_ids: Iterable[str] = ()) -> Iterator[str]:
    """The export of ``user_id`` (and ``agent_ids``) as JSON lines, each ending in a newline."""
    scopes = export_scopes(user_id, agent_ids)
    yield _line(
        {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "user_id": user_id,
            "agent_ids": [s.agent_id for s in scopes if s.agent_id is not None and s.agent_id not in OWN_AGENTS],
            "exported_at": time.time(),
        }
    )
    count = 0
    for scope in scopes:
        for record in layer.store.scan(scope):
            data = stored_out(record)
            yield _line({"record": data if scope.agent_id == WEBHOOK_AGENT else _without_secrets(data)})
            count += 1
    yield _line({"end": {"records": count}})


_secrets = DropSecrets()


def _without_secrets(data: dict[str, Any]) -> dict[str, Any]:
    """A record as exported: one that holds a secret (kept before turns were redacted, or written by another
    tool) goes out redacted, its text and metadata ``[redacted: kind]`` and without the terms and entity
    names the secret gave it. Webhook registrations are not passed here: their signing secret is Kioko's own.
    """
    content, metadata = data.get("content") or "", data.get("metadata") or {}
    if not _secrets.check_record(content, metadata):
        return data
    clean = redact(content)
    words = (clean + " " + json.dumps(redact_value(metadata), ensure_ascii=False)).lower()
    metadata = redact_value(metadata)
    own = metadata.get("_kioko")
    if isinstance(own, dict) and isinstance(own.get("entities"), list):
        metadata["_kioko"] = {**own, "entities": [e for e in own["entities"] if str(e).lower() in words]}
    terms = [t for t in data.get("terms") or [] if t[:2] not in ("t:", "e:") or t[2:] in words]
    return {**data, "content": clean, "metadata": metadata, "terms": terms}


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def import_lines(
    layer: Any,
    lines: Iterable[str | bytes],
    *,
    allowed: Any = None,
    webhook_guard: Any = None,
    webhook_limit: int | None = None,
) -> dict[str, int]:
    """Restore an export into ``layer``'s store; returns ``{"records", "written", "unchanged"}``.

    ``allowed(user_id, agent_id)`` is called for every record's scope before anything is written (the
    service passes its key check); ``webhook_guard`` (a WebhookGuard) checks where an imported
    registration points as a registration is checked (None: its form only; deliveries are still
    guarded); ``webhook_limit``: the most registrations a user may have once the import is in (None: no cap).

    An import is a write like any other: each record is checked as the API checks what it writes
    (:func:`check_imported`: the scope, the kind its scope holds, secrets, the content's size, finite times, a
    webhook registration's target), so a file cannot plant what the routes would refuse. The whole stream
    is read and checked first: a malformed line, a missing end line or one bad record writes nothing. It is
    read twice, never held: a file that can seek is read again from where it started, any other stream is
    spooled to a temporary file (in memory up to :data:`SPOOL_IN_MEMORY` bytes) while it is checked, so
    memory stays flat whatever the size of the export. A store failure while writing raises the store's
    error, its message saying how many records were written; the same import run again completes it.
    """
    with _rereadable(lines) as again:
        records = 0
        scopes: set[Scope] = set()
        hooks: dict[str, set[str]] = {}
        dim = getattr(layer.store, "dim", None)
        for record in _read(again.first()):
            if allowed is not None and record.scope not in scopes:
                allowed(record.user_id, record.agent_id)
            scopes.add(record.scope)
            check_imported(layer, record, webhook_guard, dim)
            if record.agent_id == WEBHOOK_AGENT:
                hooks.setdefault(record.user_id, set()).add(record.id)
            records += 1
        if webhook_limit is not None:
            _check_webhook_limit(layer, hooks, webhook_limit)
        written = unchanged = 0
        try:
            for batch in _batches(_read(again.second(), checked=True), BATCH):
                by_scope: dict[Scope, list[Record]] = {}
                for record in batch:
                    by_scope.setdefault(record.scope, []).append(record)
                ops: list[Upsert] = []
                for scope, group in by_scope.items():
                    for record, current in zip(group, layer.store.get(scope, [r.id for r in group])):
                        if current is not None and same(current, record):
                            unchanged += 1
                        else:
                            ops.append(Upsert(record=record, expected_version=current.version if current else 0))
                if ops:
                    layer.store.update_many(ops)
                    written += len(ops)
        except KiokoError as error:
            # the same error (its type says what failed, and its HTTP status), told what the import got done
            error.args = (
                f"{error} (the import stopped after writing {written} of {records} records, "
                f"{unchanged} were already there; run the same import again to complete it)",
            )
            raise
        finally:
            for scope in scopes:
                layer.index.invalidate(scope)  # the layer's cached term statistics must see the new records
    return {"records": records, "written": written, "unchanged": unchanged}


SPOOL_IN_MEMORY = 4 * 1024 * 1024
"""Bytes of a non-seekable import kept in memory while it is checked; beyond, the spool is a temporary file."""


class _Twice:
    """An import's lines, readable twice: once to check them, once to write them."""

    def __init__(self, lines: Iterable[str | bytes]) -> None:
        self._lines = lines
        self._spool: Any = None
        self._start: int | None = None
        seekable = getattr(lines, "seekable", None)
        if callable(seekable) and seekable():
            self._start = lines.tell()  # type: ignore[attr-defined]
        else:
            self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY, mode="w+b")

    def first(self) -> Iterator[str | bytes]:
        if self._spool is None:
            yield from self._lines
            return
        for line in self._lines:
            data = line.encode("utf-8") if isinstance(line, str) else line
            self._spool.write(data if data.endswith(b"\n") else data + b"\n")
            yield line

    def second(self) -> Iterator[str | bytes]:
        if self._spool is None:
            self._lines.seek(self._start)  # type: ignore[attr-defined]
            return iter(self._lines)
        self._spool.seek(0)
        return iter(self._spool)

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()


@contextmanager
def _rereadable(lines: Iterable[str | bytes]) -> Iterator[_Twice]:
    twice = _Twice(lines)
    try:
        yield twice
    finally:
        twice.close()


def _batches(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    batch: list[Record] = []
    for record in records:
        batch.append(record)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


_KIND_OF_OWN_SCOPE = {GRAPH_AGENT: TRIPLE_KIND, SESSIONS_AGENT: LOG_KIND, WEBHOOK_AGENT: WEBHOOK_KIND}
"""What each of Kioko's own scopes of a user holds; the user's and their agents' scopes hold memories."""


def check_imported(layer: Any, record: Record, webhook_guard: Any = None, dim: int | None = None) -> None:
    """InvalidRecordError (or SecretDropped, TooLargeError) unless ``record`` is one the API could have written:
    a user's or agent's scope (the reserved ones only as the export carries them), the kind that scope holds,
    no secret, content within the layer's limit, finite times, a vector of the store's length, and in
    ``@webhooks`` a registration ``POST /v1/webhooks`` would have accepted."""
    scope = check_scope(record.scope)
    if scope.user_id.startswith(RESERVED_PREFIX) and scope.user_id != SHARED_USER:
        raise InvalidRecordError(f"record {record.id!r}: user_id {scope.user_id!r} is reserved and cannot be imported")
    agent = scope.agent_id
    if agent is not None and agent.startswith(RESERVED_PREFIX) and agent not in OWN_AGENTS:
        raise InvalidRecordError(f"record {record.id!r}: agent_id {agent!r} is reserved and cannot be imported")
    if not (math.isfinite(record.created_at) and math.isfinite(record.updated_at)):
        raise InvalidRecordError(f"record {record.id!r}: created_at and updated_at must be finite")
    if agent == WEBHOOK_AGENT:
        check_registration(record, webhook_guard)  # its signing secret belongs there
    else:
        expected = _KIND_OF_OWN_SCOPE.get(agent or "")
        if expected is not None and record.kind != expected:
            raise InvalidRecordError(f"record {record.id!r}: {agent!r} holds {expected!r} records, not {record.kind!r}")
        if expected is None:
            if record.kind not in MEMORY_TYPES:
                raise InvalidRecordError(
                    f"record {record.id!r}: unknown kind {record.kind!r}; a memory is one of {sorted(MEMORY_TYPES)}"
                )
            limits = getattr(layer, "limits", None)
            if limits is not None:
                limits.check_content(record.content)
        # an import is a write like any other: a hand-made file must not smuggle in a secret
        layer.secrets.enforce(record.content, record.metadata, record.id, record.session_id)
    if dim is not None and record.embedding is not None and record.embedding.shape[0] != dim:
        raise InvalidRecordError(
            f"record {record.id!r} has a {record.embedding.shape[0]}-dimensional vector; "
            f"this store holds {dim} (open it with ?dim={record.embedding.shape[0]})"
        )


def _check_webhook_limit(layer: Any, imported: dict[str, set[str]], limit: int) -> None:
    for user_id, ids in imported.items():
        held = {r.id for r in layer.store.scan(Scope(user_id, WEBHOOK_AGENT))}
        if len(held | ids) > limit:
            raise TooManyWebhooks(
                f"user {user_id!r} would have {len(held | ids)} webhooks after this import; the limit is {limit}"
            )


def _read(lines: Iterable[str | bytes], checked: bool = False) -> Iterator[Record]:
    """The records of an export's lines; the header, the end line and its count are checked as they come (a
    second read of lines already ``checked`` skips that)."""
    header = end = None
    count = 0
    for number, raw in enumerate(lines, 1):
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if not text.strip():
            continue
        if too_deep(text.encode("utf-8", "surrogatepass")):  # the parser recurses per level: check first
            raise InvalidRecordError(f"line {number} of the import: {depth_message()}")
        try:
            data = json.loads(text)
        except ValueError as error:
            raise InvalidRecordError(f"line {number} of the import is not JSON: {error}") from None
        if not isinstance(data, dict):
            raise InvalidRecordError(f"line {number} of the import is not a JSON object")
        if header is None:
            if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
                raise InvalidRecordError(
                    f"not a Kioko export (format {FORMAT!r} version {FORMAT_VERSION} expected on the first line)"
                )
            header = data
            continue
        if end is not None:
            raise InvalidRecordError(f"line {number}: nothing may follow the end line")
        if "end" in data:
            end = data["end"]
            continue
        if not isinstance(data.get("record"), dict):
            raise InvalidRecordError(f'line {number}: expected {{"record": ...}}')
        try:
            record = record_in(data["record"])
        except (ValueError, TypeError, KeyError) as error:
            raise InvalidRecordError(f"line {number}: not a valid record: {_problems(error)}") from None
        count += 1
        yield record
    if checked:
        return
    if header is None:
        raise InvalidRecordError("the import is empty")
    if not isinstance(end, dict) or end.get("records") != count:
        raise InvalidRecordError(
            "the import ends early (no end line, or fewer records than it announced); nothing was written"
        )


def same(a: Record, b: Record) -> bool:
    """Equal in everything an export carries except the store's version counter (the bookkeeping compared as the
    layer reads it, wherever each record carries it)."""
    a, b = links.upgraded(a), links.upgraded(b)
    if a.model_dump(exclude={"embedding", "version"}) != b.model_dump(exclude={"embedding", "version"}):
        return False
    if a.embedding is None or b.embedding is None:
        return a.embedding is None and b.embedding is None
    return bool(np.array_equal(a.embedding, b.embedding))


def _problems(error: Exception) -> str:
    """A record's problems as ``field: message``; pydantic's own text adds a documentation URL per problem,
    which an API's error body should not carry."""
    listed = getattr(error, "errors", None)
    if not callable(listed):
        return str(error)
    try:
        problems = listed(include_url=False)
    except TypeError:
        return str(error)
    return "; ".join(
        f"{'.'.join(str(p) for p in problem.get('loc', ())) or 'record'}: {problem.get('msg', 'invalid')}"
        for problem in problems[:10]
    )
