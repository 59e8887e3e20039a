"""API keys: which users (and agents) a key may act for, or admin; whether it may write; its limits.

A key file is JSON: ``{"keys": [{"name": "kumar-laptop", "sha256": "<hex>", "users": ["kumar"]},
{"name": "dashboard", "sha256": "<hex>", "users": ["kumar"], "scopes": ["read"],
"rate_limit": "120/minute", "body_limit": 20000}, {"name": "ops", "sha256": "<hex>", "admin": true}]}``.
``scopes`` is ``["read", "write"]`` unless it says ``["read"]`` (a read-only key); ``rate_limit`` is
``N/second``, ``N/minute`` or ``N/hour`` (429 beyond); ``body_limit`` is bytes per request body (413);
``concurrency`` is how many of the key's requests run at once (the server's default when left out). Only the SHA-256 of a key is kept, on disk
and in memory: keys are long random strings (``kioko keys-new`` makes them), so a fast hash is
enough, and a leaked file names no key. A presented key is hashed and compared with every entry
in constant time, so the time taken says nothing about which entry came close.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from kioko.api.errors import Forbidden, Unauthorized
from kioko_core.privacy.secrets import get_logger
from kioko_core.store import InvalidRecordError

log = get_logger("kioko.http")

ENV_KEYS_FILE = "KIOKO_API_KEYS"
KEY_PREFIX = "kk_"


@dataclass(frozen=True)
class Rate:
    """``requests`` per ``seconds``: a bucket of ``requests`` tokens that refills at that pace."""

    requests: int
    seconds: float

    def __str__(self) -> str:
        unit = {1.0: "second", 60.0: "minute", 3600.0: "hour"}.get(self.seconds, f"{self.seconds:g}s")
        return f"{self.requests}/{unit}"


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a key's name and what it may touch."""

    name: str
    users: frozenset[str] = frozenset()
    agents: frozenset[str] | None = None
    """None: any agent of its users (and the users' own scopes); a set: only those agents."""
    admin: bool = False
    read_only: bool = False
    """Only reads: every route that changes something answers 403."""
    rate_limit: Rate | None = None
    body_limit: int | None = None
    """Bytes per request body for this key (the server's own limit applies too)."""
    concurrency: int | None = None
    """Requests of this key the server runs at once (more wait their turn, then 429); None: the server's default."""
    key_id: str = ""
    """The key's SHA-256 (what its rate is counted under; never the key)."""

    @property
    def bound_user(self) -> str | None:
        """The one user a non-admin key acts for (requests may then leave ``user_id`` out), else None."""
        if self.admin or len(self.users) != 1:
            return None
        return next(iter(self.users))

    def check_user(self, user_id: Any) -> None:
        """Raise :class:`Forbidden` unless this key may act for ``user_id`` (its agents aside)."""
        if not self.admin and (not isinstance(user_id, str) or user_id not in self.users):
            raise Forbidden(f"this API key ({self.name}) may not act for user {user_id!r}")

    def check(self, user_id: Any, agent_id: Any = None) -> None:
        """Raise :class:`Forbidden` unless this key may act for ``user_id`` (and ``agent_id``)."""
        if self.admin:
            return
        self.check_user(user_id)
        if self.agents is not None and agent_id not in self.agents:
            raise Forbidden(f"this API key ({self.name}) may not act for agent {agent_id!r}")

    def check_write(self) -> None:
        """Refuse (403) a write by a read-only key."""
        if self.read_only:
            raise Forbidden(f"this API key ({self.name}) is read-only")

    def require_admin(self) -> None:
        """Refuse (403) an admin call by a key that is not an admin key."""
        if not self.admin:
            raise Forbidden(f"this API key ({self.name}) is not an admin key")


OPEN = Principal("no-keys", admin=True)
"""What every request is when the server runs without keys (it then listens on loopback only)."""


def hash_key(key: str) -> str:
    """The SHA-256 hex digest of ``key``: what a key file keeps instead of the key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A new random API key (Kioko's prefix and 32 random bytes, URL-safe)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


class KeyRing:
    """The keys a server accepts, as hashes."""

    def __init__(self, entries: Iterable[tuple[str, Principal]]) -> None:
        # no entries is a ring that refuses every key (the last key revoked): never a server without keys
        self._entries = [(bytes.fromhex(digest), principal) for digest, principal in entries]

    def __len__(self) -> int:
        return len(self._entries)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> KeyRing:
        """The keys of a JSON key file (``{"keys": [...]}``); a file that cannot be read is InvalidRecordError."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise InvalidRecordError(f"cannot read the API key file {str(path)!r}: {error}") from None
        return cls.from_config(data)

    @classmethod
    def from_config(cls, data: Any) -> KeyRing:
        """The keys of a parsed key file; each entry is checked (name, sha256, users or admin)."""
        entries = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise InvalidRecordError('an API key file is {"keys": [{"name", "sha256", "users" | "admin"}, ...]}')
        return cls(_entry(i, e) for i, e in enumerate(entries))

    def authenticate(self, presented: str | None) -> Principal:
        """The principal of ``presented``, or :class:`Unauthorized`. Every entry is compared, found or not."""
        if not self._entries:
            raise Unauthorized("this server's API key file holds no keys: every request is refused")
        if not presented:
            raise Unauthorized("an API key is required: send 'Authorization: Bearer <key>'")
        digest = hashlib.sha256(presented.encode("utf-8")).digest()
        found: Principal | None = None
        for stored, principal in self._entries:
            if hmac.compare_digest(stored, digest):
                found = principal
        if found is None:
            raise Unauthorized("the API key is not valid")
        return found


class KeyFile:
    """The keys of a key file, read again when the file changes (``kioko keys-new`` while the server runs).

    Every request compares the file's modification time, size and inode with the last read: one
    ``stat``, no read. A change that does not parse (a half-written file, a typo) keeps the keys in
    force and logs why, so a bad edit never locks everyone out. A file with no keys left (the last one
    revoked) or no file at all refuses every request: revoking a key always revokes it, and a server given
    a key file never falls back to serving without keys.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._seen = self._stamp()
        self._ring = KeyRing.from_file(self.path)  # a bad file at start is an error, not a warning

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size, info.st_ino)

    def current(self) -> KeyRing:
        """The key ring, reloaded first when the file changed since the last look."""
        stamp = self._stamp()
        if stamp != self._seen:
            with self._lock:
                if stamp != self._seen:
                    self._seen = stamp
                    if stamp is None:
                        self._ring = KeyRing(())
                        log.error("API key file %s is gone: every request is refused until it is back", self.path)
                        return self._ring
                    try:
                        self._ring = KeyRing.from_file(self.path)
                        log.info("API keys reloaded from %s: %d key(s)", self.path, len(self._ring))
                    except InvalidRecordError as error:
                        log.error(
                            "API key file %s changed but cannot be used (%s); the previous keys stay", self.path, error
                        )
        return self._ring

    def __len__(self) -> int:
        return len(self.current())

    def authenticate(self, presented: str | None) -> Principal:
        """The caller a presented key (or its absence) stands for, by the keys in force now (they may be reloaded)."""
        return self.current().authenticate(presented)


SCOPES = ("read", "write")
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(second|minute|hour)\s*$")
_PER = {"second": 1.0, "minute": 60.0, "hour": 3600.0}


def parse_rate(text: Any) -> Rate:
    """``"120/minute"`` -> Rate(120, 60.0); InvalidRecordError for anything else."""
    found = _RATE.match(text) if isinstance(text, str) else None
    if found is None or int(found.group(1)) < 1:
        raise InvalidRecordError(f"a rate limit is N/second, N/minute or N/hour with N >= 1, got {text!r}")
    return Rate(int(found.group(1)), _PER[found.group(2)])


def _entry(index: int, entry: Any) -> tuple[str, Principal]:
    if not isinstance(entry, dict):
        raise InvalidRecordError(f"API key entry {index} must be an object")
    name = str(entry.get("name") or f"key-{index}")
    digest = entry.get("sha256")
    if digest is None and isinstance(entry.get("key"), str):
        digest = hash_key(entry["key"])  # a plain key is accepted, but only its hash is kept
    if not isinstance(digest, str) or len(digest) != 64:
        raise InvalidRecordError(f"API key entry {name!r} needs a 'sha256' (64 hex digits)")
    try:
        bytes.fromhex(digest)
    except ValueError:
        raise InvalidRecordError(f"API key entry {name!r}: 'sha256' is not hex") from None
    admin = entry.get("admin") is True
    users = entry.get("users", [])
    agents = entry.get("agents")
    if not admin and (not isinstance(users, list) or not users or not all(isinstance(u, str) and u for u in users)):
        raise InvalidRecordError(f"API key entry {name!r} needs 'users' (a list of user ids) or 'admin': true")
    if agents is not None and (not isinstance(agents, list) or not all(isinstance(a, str) and a for a in agents)):
        raise InvalidRecordError(f"API key entry {name!r}: 'agents' must be a list of agent ids")
    scopes = entry.get("scopes", list(SCOPES))
    if not isinstance(scopes, list) or "read" not in scopes or not set(scopes) <= set(SCOPES):
        raise InvalidRecordError(f'API key entry {name!r}: \'scopes\' is ["read"] or ["read", "write"]')
    rate = parse_rate(entry["rate_limit"]) if entry.get("rate_limit") is not None else None
    body_limit = entry.get("body_limit")
    if body_limit is not None and (isinstance(body_limit, bool) or not isinstance(body_limit, int) or body_limit < 1):
        raise InvalidRecordError(f"API key entry {name!r}: 'body_limit' is a number of bytes >= 1")
    concurrency = entry.get("concurrency")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
    ):
        raise InvalidRecordError(f"API key entry {name!r}: 'concurrency' is a number of requests >= 1")
    digest = digest.lower()
    return digest, Principal(
        name,
        frozenset(users),
        frozenset(agents) if agents is not None else None,
        admin,
        read_only="write" not in scopes,
        rate_limit=rate,
        body_limit=body_limit,
        concurrency=concurrency,
        key_id=digest,
    )


def _read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"keys": []}
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise InvalidRecordError(f"{path} is not an API key file")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace the file whole (a temporary file renamed over it), mode 0600: a server reading it meanwhile
    sees the old keys or the new ones, never half a file."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2) + "\n")
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def add_key(
    path: str | os.PathLike[str],
    *,
    name: str,
    users: list[str] | None = None,
    agents: list[str] | None = None,
    admin: bool = False,
    read_only: bool = False,
    rate_limit: str | None = None,
    body_limit: int | None = None,
    concurrency: int | None = None,
) -> str:
    """Make a new key, add its hash to the file at ``path`` (created if missing) and return the key."""
    file = Path(path)
    data = _read(file)
    if any(isinstance(e, dict) and e.get("name") == name for e in data["keys"]):
        raise InvalidRecordError(f"the key file already has a key named {name!r} (rotate or revoke it)")
    key = new_key()
    entry: dict[str, Any] = {"name": name, "sha256": hash_key(key)}
    if admin:
        entry["admin"] = True
    else:
        entry["users"] = list(users or [])
    if agents:
        entry["agents"] = list(agents)
    if read_only:
        entry["scopes"] = ["read"]
    if rate_limit is not None:
        entry["rate_limit"] = rate_limit
    if body_limit is not None:
        entry["body_limit"] = body_limit
    if concurrency is not None:
        entry["concurrency"] = concurrency
    _entry(len(data["keys"]), entry)  # refuse an entry the server would refuse
    data["keys"].append(entry)
    _write(file, data)
    return key


def revoke_key(path: str | os.PathLike[str], name: str) -> None:
    """Take the key named ``name`` out of the file; a running server refuses it from its next request."""
    file = Path(path)
    data = _read(file)
    kept = [e for e in data["keys"] if not (isinstance(e, dict) and e.get("name") == name)]
    if len(kept) == len(data["keys"]):
        raise InvalidRecordError(f"the key file has no key named {name!r}")
    data["keys"] = kept
    _write(file, data)


def rotate_key(path: str | os.PathLike[str], name: str) -> str:
    """Give the key named ``name`` a new secret, keeping what it may do; returns the new key.
    The old key stops working at a running server's next request."""
    file = Path(path)
    data = _read(file)
    entries = [e for e in data["keys"] if isinstance(e, dict) and e.get("name") == name]
    if not entries:
        raise InvalidRecordError(f"the key file has no key named {name!r}")
    key = new_key()
    for entry in entries:
        entry.pop("key", None)
        entry["sha256"] = hash_key(key)
    _write(file, data)
    return key
