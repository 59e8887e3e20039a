"""StoreURL: a parsed, immutable store address whose repr never shows a password."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from kioko_core.store import UnknownStoreError

SECRET_PARAMS = frozenset({"password", "api_key", "apikey", "token", "secret", "key"})
"""Query parameters whose values are hidden like a password."""

SECRET_PARAM_PARTS = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "sig")
"""A query parameter whose name contains one of these is hidden too (``sslpassword``, ``x-api-key``)."""


def is_secret_param(name: str) -> bool:
    """True for a query parameter whose value :meth:`StoreURL.render` hides."""
    lowered = name.lower()
    return lowered in SECRET_PARAMS or any(part in lowered for part in SECRET_PARAM_PARTS)


@dataclass(frozen=True)
class StoreURL:
    """``scheme://user:password@host:port/path?key=value``, parsed once.

    ``scheme`` keeps its ``+driver`` part (``postgresql+psycopg``); ``backend`` is the part before it.
    """

    scheme: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    host: str | None = None
    port: int | None = None
    path: str = ""
    query: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    hosts: tuple[tuple[str, int | None], ...] = ()
    """Every ``(host, port)`` of a URL naming several, in order (``postgresql://h1:5432,h2:5433/db``, libpq's
    failover list); ``host`` and ``port`` are then the first. Empty for a URL with one host or none."""

    @property
    def backend(self) -> str:
        return self.scheme.split("+", 1)[0]

    @classmethod
    def parse(cls, url: str | StoreURL) -> StoreURL:
        """Parse a URL; a bare path ending in ``.db`` (or ``.sqlite``) means a SQLite file."""
        if isinstance(url, StoreURL):
            return url
        if not isinstance(url, str) or not url.strip():
            raise UnknownStoreError(f"a store URL must be a non-empty string, got {url!r}")
        url = url.strip()
        if "://" not in url:
            if url.endswith((".db", ".sqlite", ".sqlite3")):
                # the same path sqlite:///<url> carries: one slash before a relative path, two before /abs
                return cls(scheme="sqlite", path="/" + url)
            raise UnknownStoreError(
                f"{_mask(url)!r} is not a store URL: use scheme://..., e.g. 'sqlite:///kioko.db' or 'memory://'"
            )
        parts = urlsplit(url)
        # qdrant+local://:memory: names a path, not a host and port
        if parts.netloc.startswith(":") and "@" not in parts.netloc:
            return cls(
                scheme=parts.scheme.lower(),
                path=unquote(parts.netloc + parts.path),
                query=MappingProxyType(dict(parse_qsl(parts.query, keep_blank_values=True))),
            )
        hosts: tuple[tuple[str, int | None], ...] = ()
        host: str | None
        port: int | None
        if "," in parts.netloc.rpartition("@")[2]:
            hosts = _host_list(parts.netloc.rpartition("@")[2], url)
            host, port = hosts[0]
        else:
            try:
                host, port = parts.hostname, parts.port
            except ValueError as error:
                raise UnknownStoreError(f"bad port in store URL {_mask(url)!r}: {error}") from None
        username = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password is not None else None
        return cls(
            scheme=parts.scheme.lower(),
            username=username,
            password=password,
            host=host,
            port=port,
            hosts=hosts,
            path=unquote(parts.path),
            query=MappingProxyType(dict(parse_qsl(parts.query, keep_blank_values=True))),
        )

    def render(self, hide_password: bool = True) -> str:
        """The URL as a string; the password is shown as ``***`` unless ``hide_password=False``."""
        auth = ""
        if self.username is not None or self.password is not None:
            auth = quote(self.username or "", safe="")
            if self.password is not None:
                auth += ":" + ("***" if hide_password else quote(self.password, safe=""))
            auth += "@"
        pairs = self.hosts or ((self.host or "", self.port),)
        hostport = ",".join(_hostport(host, port) for host, port in pairs)
        query = "&".join(
            f"{k}={'***' if hide_password and is_secret_param(k) else quote(v, safe='')}" for k, v in self.query.items()
        )
        return f"{self.scheme}://{auth}{hostport}{self.path}" + (f"?{query}" if query else "")

    def with_query(self, **values: str) -> StoreURL:
        merged = dict(self.query)
        merged.update(values)
        return replace(self, query=MappingProxyType(merged))

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"StoreURL({self.render()!r})"


def _host_list(netloc: str, url: str) -> tuple[tuple[str, int | None], ...]:
    """``h1:5432,h2,[::1]:5433`` as ``(host, port)`` pairs (a missing port is None: the driver's default)."""
    pairs: list[tuple[str, int | None]] = []
    for entry in netloc.split(","):
        match = re.fullmatch(r"(\[[^\]]+\]|[^:\[\]]*)(?::(\d*))?", entry)
        if match is None or not match[1]:
            raise UnknownStoreError(f"bad host {entry!r} in store URL {_mask(url)!r}: expected host or host:port")
        host = unquote(match[1].strip("[]")).lower()
        port = int(match[2]) if match[2] else None
        if port is not None and not 0 < port < 65536:
            raise UnknownStoreError(f"bad port in store URL {_mask(url)!r}: {port} is out of range 1-65535")
        pairs.append((host, port))
    return tuple(pairs)


def _hostport(host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown + (f":{port}" if port is not None else "")


def _mask(text: str) -> str:
    """Hide anything that looks like a password in a string that failed to parse."""
    if "@" in text and ":" in text.split("@", 1)[0]:
        head, tail = text.split("@", 1)
        text = head.rsplit(":", 1)[0] + ":***@" + tail
    return re.sub(
        r"([?&;])([^=&;#]+)=([^&;#]*)", lambda m: f"{m[1]}{m[2]}=***" if is_secret_param(m[2]) else m[0], text
    )


_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s\"'<>`]+")


def masked_url(url: str) -> str:
    """``url`` with its password shown as ``***`` (``https://user:***@host/...``) and the values of its secret
    query parameters too (``?token=***``); the rest as given. For webhook URLs, proxies and any URL a log line
    or an answer names (a store URL has :meth:`StoreURL.render`)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return _mask(url)
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        userinfo, _, hostport = authority.rpartition("@")
        user, colon, password = userinfo.partition(":")
        if colon and password:
            authority = f"{user}:***@{hostport}"
    tail = re.sub(
        r"([?&;])([^=&;#]+)=([^&;#]*)", lambda m: f"{m[1]}{m[2]}=***" if is_secret_param(m[2]) else m[0], tail
    )
    return f"{scheme}://{authority}{tail}"


def mask_credentials(text: str) -> str:
    """Every URL in ``text`` through :func:`masked_url` (the log filter runs every Kioko log line through it)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: masked_url(m[0]), text)
