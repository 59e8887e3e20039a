"""DropSecrets: credentials never become memories (spec: graph memory section 9, intelligent memory "Safety").

A memory layer keeps what it is told for a long time, shows it to models and ships it in exports, so a
credential written into it is a leak waiting to happen. :class:`DropSecrets` recognises the credentials
people paste into conversations (API keys, tokens, passwords, private keys, connection strings with a
password) and the write is refused with :class:`SecretDropped`. Nothing of the write is stored.

A conversation turn is not refused but redacted (:func:`redact`): each secret becomes a marker naming its
kind, ``[redacted: aws_access_key]``, before a router or a model reads the turn, so the session log, the
summary, reports, events and webhooks hold the marker and never the secret, and an operation quoting a
marker is refused like a secret (:func:`secret_kinds`). Error messages (every ``KiokoError``) and Kioko's
log lines (:func:`get_logger`) are redacted the same way. docs/privacy.md says what is kept where.

The detectors are deliberately specific: a vendor key by its prefix and shape, a password only where a
value is actually given ("my password is hunter2", ``pwd=...``). Ordinary text about credentials ("the
password reset flow was slow"), incident and error codes (``INC-4521``, ``E-217``) and addresses
(``10.20.0.0/16``) pass.

Usage, in :meth:`MemoryLayer.add` and anywhere else a memory is written::

    DropSecrets().enforce(content, metadata)       # raises SecretDropped, naming the kinds found
    DropSecrets().check("my api key is sk-...")    # -> ["api_key"]
    redact("password: hunter2")                    # -> "password: [redacted: password]"
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from kioko_core import errors as _errors
from kioko_core.errors import SecretDropped
from kioko_core.privacy.held_texts import keeps_text
from kioko_core.privacy.secret_detectors import DETECTORS, Detector, kind_of
from kioko_core.reading.regex_literals import Anchor, anchor, anchored_finditer, casefold, required_literals
from kioko_core.store.url import mask_credentials
from kioko_core.telemetry import count

# The layer's own metadata key (links, entity keys, ids): never the caller's text. Every other key is checked.
_BOOKKEEPING_KEYS = frozenset({"_kioko"})


@dataclass(frozen=True)
class _Screen:
    """What a detector's pattern says about its matches, read from the compiled pattern (never by hand)."""

    needs: frozenset[str] | None
    """Literals one of which every match contains (lower-case when the pattern ignores case), or None."""
    ignorecase: bool
    starts: Anchor | None
    """Where every match starts (at a literal, or in a run of known characters just before one), or None."""


# Most detectors start with \b or a look-behind, which makes re try them at every position of a text: on a
# 1 MB text, running every detector was 0.65 of the add's 1.2 s. A detector whose literals a text lacks
# cannot match it and is skipped; on a long text, one that can is tried only where a match can start.
# Read once, on the first text screened rather than at import: reading ~50 compiled patterns takes tens of
# milliseconds that a process which never screens a text (a CLI recall, a worker starting) should not pay.
@functools.cache
def _screens() -> tuple[_Screen, ...]:
    return tuple(
        _Screen(
            required_literals(detector.pattern),
            bool(detector.pattern.flags & re.IGNORECASE),
            anchor(detector.pattern) if detector.anchored else None,
        )
        for detector in DETECTORS
    )


ANCHORED_FROM = 4096
"""Texts at least this long are searched from the anchors; shorter ones by the plain search, cheaper there."""


def _found(text: str) -> Iterator[tuple[Detector, re.Match[str]]]:
    """Every detector's accepted matches in ``text``: the same as running every detector's pattern over it."""
    folded: str | None = None
    for detector, screen in zip(DETECTORS, _screens()):
        haystack = text
        if screen.ignorecase:
            if folded is None:
                folded = casefold(text)
            haystack = folded
        if screen.needs is not None and not any(literal in haystack for literal in screen.needs):
            continue  # a match would contain one of the literals: none there, no match possible
        if screen.starts is not None and len(text) >= ANCHORED_FROM and len(haystack) == len(text):
            matches = anchored_finditer(detector.pattern, screen.starts, text, haystack)
        else:
            matches = detector.pattern.finditer(text)
        for match in matches:
            if detector.accept is None or detector.accept(match):
                yield detector, match


REMEMBERED_CHARS = 1024
"""Texts up to this long are remembered when found clean (:data:`REMEMBERED_TEXTS` of them, the least recently
screened giving way; a secret is never kept): Kioko's own records are written again and again with the same strings (a heat record's
256 memory ids, a session log's waiting turns), and screening a memory id costs about 0.1 ms."""
REMEMBERED_TEXTS = 8192


def _kinds_in(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for detector, match in _found(text):
        kind = kind_of(detector, match)
        if kind not in found:
            found.append(kind)
    return tuple(found)


class _CleanTexts:
    """The short texts last screened and found clean, least recently screened first out. Only clean ones: a
    text that held a secret is refused and never kept, so it is screened again (and refused again) each time."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.hits = self.misses = 0
        self._items: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, text: object) -> bool:
        return text in self._items

    def check(self, text: str) -> list[str]:
        with self._lock:
            if text in self._items:
                self._items.move_to_end(text)
                self.hits += 1
                return []
            self.misses += 1
        found = list(_kinds_in(text))
        if not found:
            with self._lock:
                self._items[text] = None
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        return found

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


# the detectors never change in a process, so a clean text stays clean; the texts are memories' words, emptied
# by a forget like every cache keyed by text
_clean_cache = keeps_text(_CleanTexts(REMEMBERED_TEXTS))


# --------------------------------------------------------------------------- the processor


class DropSecrets:
    """A write processor: finds credentials in a memory so the write can be refused.

    ``check(text)`` lists the kinds found (``[]`` for ordinary text); ``enforce(content, metadata)``
    raises :class:`SecretDropped` when the content or any string in the metadata holds one. Kinds:
    ``api_key``, ``token``, ``aws_access_key``, ``github_token``, ``gitlab_token``, ``slack_token``,
    ``slack_webhook``, ``jwt``, ``bearer_token``, ``basic_auth``, ``password``, ``pin``, ``private_key``,
    ``connection_string``, ``env_secret``, ``card_number``. Stateless and thread-safe: one instance can serve every write.

    Besides the content and metadata, every other text a write stores (user, agent and session ids, a
    link's ``why``, an entity triple's names) is passed to :meth:`enforce` and checked the same way.
    """

    def check(self, text: str) -> list[str]:
        """The kinds of secret in ``text``, in the order of the detectors, each once; ``[]`` when clean."""
        if not isinstance(text, str) or not text:
            return []
        return _clean_cache.check(text) if len(text) <= REMEMBERED_CHARS else list(_kinds_in(text))

    def check_record(self, content: str, metadata: Mapping[str, Any] | None = None) -> list[str]:
        """Like :meth:`check`, over the content and every string in the metadata (``key: value`` pairs too)."""
        found = self.check(content)
        for text in _metadata_texts(metadata or {}):
            found += [kind for kind in self.check(text) if kind not in found]
        return found

    def enforce(self, content: str, metadata: Mapping[str, Any] | None = None, *fields: Any) -> None:
        """Raise :class:`SecretDropped` if the content, the metadata or one of the other stored texts
        ``fields`` (ids, a link's why, a triple's names; None and non-strings are skipped) holds a secret."""
        kinds = self.check_record(content, metadata)
        for text in fields:
            if isinstance(text, str):
                kinds += [kind for kind in self.check(text) if kind not in kinds]
        if kinds:
            for kind in kinds:
                count("secrets_refused_total", kind=kind)
            raise SecretDropped(kinds)

    def __call__(self, content: str, metadata: Mapping[str, Any] | None = None) -> None:
        self.enforce(content, metadata)

    def __repr__(self) -> str:
        return "DropSecrets()"


def _metadata_texts(value: Any, key: str | None = None, depth: int = 0) -> Iterable[str]:
    """Strings in (nested) metadata; a string under a key is also seen as ``key: value`` ({"password": "x"})."""
    if depth > 6:
        return
    if isinstance(value, str):
        yield f"{key.replace('_', ' ')}: {value}" if key else value
        if key:
            yield value
    elif isinstance(value, Mapping):
        for name, item in value.items():
            if depth == 0 and name in _BOOKKEEPING_KEYS:
                continue
            if isinstance(name, str):
                yield name  # a key is stored as it is: {"ghp_...": 1} keeps the token as much as a value would
            yield from _metadata_texts(item, str(name), depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _metadata_texts(item, key if isinstance(item, str) else None, depth + 1)


REDACTED = "[REDACTED]"
"""What stands for a whole value withheld without a kind (a field named like a password, say)."""


def marker(kinds: Iterable[str]) -> str:
    """What stands in a text where a secret was: ``[redacted: aws_access_key]`` (the detectors' kinds)."""
    return f"[redacted: {', '.join(dict.fromkeys(kinds))}]"


MARKER = re.compile(r"\[redacted: ([a-z_]+(?:, [a-z_]+)*)\]")
"""A :func:`marker` in a text: a secret was there (a turn is redacted before a router reads it)."""


def redact(text: str) -> str:
    """``text`` with every secret :class:`DropSecrets` would find replaced by a :func:`marker` naming its kind.

    Where a secret is given as a value ("password: hunter2", ``postgresql://kumar:pw@db``), only the value
    goes; the rest stays readable: ``"password: [redacted: password]"``. A redacted text holds no secret
    :meth:`DropSecrets.check` finds, and redacting it again changes nothing.
    """
    if not isinstance(text, str) or not text:
        return text
    spans: list[tuple[int, int, str]] = []
    for detector, match in _found(text):
        start, end = match.span(detector.group)
        spans.append((start, end, kind_of(detector, match)))
    if not spans:
        return text
    merged: list[tuple[int, int, list[str]]] = []
    for start, end, kind in sorted(spans):
        if merged and start <= merged[-1][1]:
            first, last, kinds = merged[-1]
            merged[-1] = (first, max(last, end), kinds if kind in kinds else [*kinds, kind])
        else:
            merged.append((start, end, [kind]))
    pieces: list[str] = []
    position = 0
    for start, end, kinds in merged:
        pieces.append(text[position:start])
        pieces.append(marker(kinds))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def redact_value(value: Any, depth: int = 0) -> Any:
    """``value`` with :func:`redact` applied to every string in it (dicts, lists and tuples walked; keys too)."""
    if isinstance(value, str):
        return redact(value)
    if depth > 12:
        return value
    if isinstance(value, Mapping):
        return {redact(k) if isinstance(k, str) else k: redact_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_value(v, depth + 1) for v in value)
    return value


def secret_kinds(value: Any) -> list[str]:
    """The kinds of secret in ``value`` (any string in it): found by the detectors, or named by a marker
    that stands where one was (a redacted turn's "my key is [redacted: api_key]" is no memory to keep)."""
    found: list[str] = []
    for text in _strings(value):
        for kind in DropSecrets().check(text) + [k for m in MARKER.finditer(text) for k in m.group(1).split(", ")]:
            if kind not in found:
                found.append(kind)
    return found


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth <= 12 and isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth <= 12 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item, depth + 1)


class RedactingFilter(logging.Filter):
    """A log filter that redacts a record's message and traceback before any handler formats them.

    Installed on every Kioko logger (:func:`get_logger`): an exception's message can quote what was being
    written, and a request line the path it asked for.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call: leave it to the handler's own error path
            return True
        record.msg, record.args = scrub(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = scrub(record.stack_info)
        return True


def scrub(text: str) -> str:
    """What a log line or an error message may show of ``text``: every URL's password as ``***``
    (``https://user:***@host/...``, whatever the password looks like), then :func:`redact`."""
    return redact(mask_credentials(text))


_FILTER = RedactingFilter()


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` with the :class:`RedactingFilter` on it (a logger's filters see only what
    is logged on it, not its children's records, so every module logs through its own filtered logger)."""
    logger = logging.getLogger(name)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    return logger


_errors.scrub_messages(scrub)  # every KiokoError's message is redacted from now on


__all__ = [
    "MARKER",
    "REDACTED",
    "DropSecrets",
    "RedactingFilter",
    "SecretDropped",
    "get_logger",
    "marker",
    "redact",
    "redact_value",
    "scrub",
    "secret_kinds",
]
