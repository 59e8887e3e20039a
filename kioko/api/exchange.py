"""Export and import: every memory of a scope as JSON lines, restorable into any store.

An export is one header line, one line per record, and one end line with the count (so a cut-off
stream is noticed). A record line carries the whole record: content, metadata with its adjacency
list (``links``) and kept history, terms, times, the embedding bit for bit, and the version it had.
The user's entity graph (its triples, closed ones included) is exported with the user's own scope.

The user's webhook registrations travel too (their signing secrets with them, so receivers keep
verifying after a move: keep an export as safe as the key file).

Import writes records as they are, without linking them again (their links travel with them), and
skips a record the store already holds unchanged, so importing twice changes nothing. Every record
is checked first (the file whole, the scopes it may fill, secrets, webhook registrations, vector
length), so a bad file writes nothing. Records are then written 200 at a time: a store that fails
midway (unreachable, or a concurrent writer) keeps the whole batches before it, the error says how
many records were written, and running the same import again completes it (what is there is
skipped). The store stamps its own version counter, so ``version`` is the one field that may differ
after a move.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from kioko_core.entities import GRAPH_AGENT
from kioko_core.linking import links as L
from kioko_core.scoped import SESSIONS_AGENT
from kioko_core.secrets import DropSecrets, redact, redact_value
from kioko_core.store import InvalidRecordError, KiokoError, Record, Scope, Upsert, check_scope

from .webhook_records import WEBHOOK_AGENT, check_registration
from .wire import record_in, stored_out

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
    layer: Any, lines: Iterable[str | bytes], *, allowed: Any = None, webhook_guard: Any = None
) -> dict[str, int]:
    """Restore an export into ``layer``'s store; returns ``{"records", "written", "unchanged"}``.

    ``allowed(user_id, agent_id)`` is called for every record's scope before anything is written (the
    service passes its key check); ``webhook_guard`` (a WebhookGuard) checks where an imported
    registration points as a registration is checked (None: its form only; deliveries are still
    guarded). The whole stream is read and checked first: a malformed line, a missing end line or one
    bad record writes nothing. A store failure while writing raises the store's error, its
    message saying how many records were written; the same import run again completes it.
    """
    records = list(_read(lines))
    for scope in {r.scope for r in records}:
        if allowed is not None:
            allowed(scope.user_id, scope.agent_id)
    dim = getattr(layer.store, "dim", None)
    for record in records:
        if record.agent_id == WEBHOOK_AGENT:
            check_registration(record, webhook_guard)  # its signing secret belongs there
        else:
            # an import is a write like any other: a hand-made file must not smuggle in a secret
            layer.secrets.enforce(record.content, record.metadata)
        if dim is not None and record.embedding is not None and record.embedding.shape[0] != dim:
            raise InvalidRecordError(
                f"record {record.id!r} has a {record.embedding.shape[0]}-dimensional vector; "
                f"this store holds {dim} (open it with ?dim={record.embedding.shape[0]})"
            )
    written = unchanged = 0
    try:
        for start in range(0, len(records), BATCH):
            batch = records[start : start + BATCH]
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
            f"{error} (the import stopped after writing {written} of {len(records)} records, "
            f"{unchanged} were already there; run the same import again to complete it)",
        )
        raise
    finally:
        for scope in {r.scope for r in records}:
            layer.index.invalidate(scope)  # the layer's cached term statistics must see the new records
    return {"records": len(records), "written": written, "unchanged": unchanged}


def _read(lines: Iterable[str | bytes]) -> Iterator[Record]:
    header = end = None
    found: list[Record] = []
    for number, raw in enumerate(lines, 1):
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if not text.strip():
            continue
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
            found.append(record_in(data["record"]))
        except (ValueError, TypeError, KeyError) as error:
            raise InvalidRecordError(f"line {number}: not a valid record: {error}") from None
    if header is None:
        raise InvalidRecordError("the import is empty")
    if end is None or end.get("records") != len(found):
        raise InvalidRecordError(
            "the import ends early (no end line, or fewer records than it announced); nothing was written"
        )
    yield from found


def same(a: Record, b: Record) -> bool:
    """Equal in everything an export carries except the store's version counter (the bookkeeping compared as the
    layer reads it, wherever each record carries it)."""
    a, b = L.upgraded(a), L.upgraded(b)
    if a.model_dump(exclude={"embedding", "version"}) != b.model_dump(exclude={"embedding", "version"}):
        return False
    if a.embedding is None or b.embedding is None:
        return a.embedding is None and b.embedding is None
    return bool(np.array_equal(a.embedding, b.embedding))
