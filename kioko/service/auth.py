"""API keys: which users (and agents) a key may act for, or admin.

A key file is JSON: ``{"keys": [{"name": "kumar-laptop", "sha256": "<hex>", "users": ["kumar"]},
{"name": "ops", "sha256": "<hex>", "admin": true}]}``. Only the SHA-256 of a key is kept, on disk
and in memory: keys are long random strings (``kioko keys-new`` makes them), so a fast hash is
enough, and a leaked file names no key. A presented key is hashed and compared with every entry
in constant time, so the time taken says nothing about which entry came close.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from kioko_core.secrets import get_logger
from kioko_core.store import InvalidRecordError

from .errors import Forbidden, Unauthorized

log = get_logger("kioko.service")

ENV_KEYS_FILE = "KIOKO_API_KEYS"
KEY_PREFIX = "kk_"


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a key's name and what it may touch."""

    name: str
    users: frozenset[str] = frozenset()
    agents: frozenset[str] | None = None
    """None: any agent of its users (and the users' own scopes); a set: only those agents."""
    admin: bool = False

    def check(self, user_id: Any, agent_id: Any = None) -> None:
        """Raise :class:`Forbidden` unless this key may act for ``user_id`` (and ``agent_id``)."""
        if self.admin:
            return
        if not isinstance(user_id, str) or user_id not in self.users:
            raise Forbidden(f"this API key ({self.name}) may not act for user {user_id!r}")
        if self.agents is not None and agent_id not in self.agents:
            raise Forbidden(f"this API key ({self.name}) may not act for agent {agent_id!r}")

    def require_admin(self) -> None:
        if not self.admin:
            raise Forbidden(f"this API key ({self.name}) is not an admin key")


OPEN = Principal("no-keys", admin=True)
"""What every request is when the server runs without keys (it then listens on loopback only)."""


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


class KeyRing:
    """The keys a server accepts, as hashes."""

    def __init__(self, entries: Iterable[tuple[str, Principal]]) -> None:
        self._entries = [(bytes.fromhex(digest), principal) for digest, principal in entries]
        if not self._entries:
            raise InvalidRecordError("the API key file holds no keys")

    def __len__(self) -> int:
        return len(self._entries)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> KeyRing:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise InvalidRecordError(f"cannot read the API key file {str(path)!r}: {error}") from None
        return cls.from_config(data)

    @classmethod
    def from_config(cls, data: Any) -> KeyRing:
        entries = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise InvalidRecordError('an API key file is {"keys": [{"name", "sha256", "users" | "admin"}, ...]}')
        return cls(_entry(i, e) for i, e in enumerate(entries))

    def authenticate(self, presented: str | None) -> Principal:
        """The principal of ``presented``, or :class:`Unauthorized`. Every entry is compared, found or not."""
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
    force and logs why, so a bad edit never locks everyone out or lets anyone in.
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
        return self.current().authenticate(presented)


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
    return digest.lower(), Principal(name, frozenset(users), frozenset(agents) if agents is not None else None, admin)


def add_key(
    path: str | os.PathLike[str],
    *,
    name: str,
    users: list[str] | None = None,
    agents: list[str] | None = None,
    admin: bool = False,
) -> str:
    """Make a new key, add its hash to the file at ``path`` (created if missing) and return the key."""
    file = Path(path)
    data = json.loads(file.read_text(encoding="utf-8")) if file.exists() else {"keys": []}
    key = new_key()
    entry: dict[str, Any] = {"name": name, "sha256": hash_key(key)}
    if admin:
        entry["admin"] = True
    else:
        entry["users"] = list(users or [])
    if agents:
        entry["agents"] = list(agents)
    _entry(len(data["keys"]), entry)  # refuse an entry the server would refuse
    data["keys"].append(entry)
    file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.chmod(file, 0o600)
    return key
