"""Where the server may send a webhook: public addresses over https, unless the operator allows more.

A tenant names a webhook's URL, and the server then POSTs to it from inside its own network: without
a guard that is a server-side request forgery (the cloud metadata service at 169.254.169.254, an admin
port on 127.0.0.1, a database on 10.0.0.5). :class:`WebhookGuard` refuses loopback, private (RFC 1918,
IPv6 unique local), link-local, multicast, unspecified, reserved and cloud-metadata addresses, and any
other address that is not globally routable, plus plain ``http``; the operator lifts it host by host
(``kioko serve --webhook-allow HOST``, ``create_app(webhook_allow=...)``).

It checks twice: at registration (a 422 saying why) and at every connection, on the address the
delivery actually uses. Between the two, a name can come to resolve elsewhere (DNS rebinding: public
when registered, 127.0.0.1 when delivered), so delivery resolves the name once, checks that address and
connects to it, keeping the name for the ``Host`` header and TLS (:meth:`WebhookGuard.transport`).
Importable without FastAPI (the import of an export checks registrations with it).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from kioko.api.errors import WebhookRefused

if TYPE_CHECKING:
    import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]
"""``resolve(host, port)`` -> the host's addresses as strings (the guard's only way to look a name up)."""


METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean ...
        "169.254.170.2",  # AWS ECS task credentials
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud (classic)
    )
)
METADATA_NAMES = frozenset(
    {"metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"}
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NUMERIC = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$", re.IGNORECASE)
"""A host made of numbers (``2130706433``, ``0x7f.1``, ``127.1``): an address in a form resolvers read
differently; only the dotted form ``ipaddress`` accepts is taken."""


def system_resolve(host: str, port: int) -> list[str]:
    """The operating system's resolver: every address of ``host``, in its order, without repeats."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise WebhookRefused(f"the webhook host {host!r} does not resolve ({error})") from None
    return list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))


def refusal(address: Address) -> str | None:
    """Why ``address`` is not one a webhook may reach by default, or None for a public address."""
    inner = _embedded(address)
    if inner is not None:
        return refusal(inner)
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    for test, reason in (
        (address.is_unspecified, "the unspecified address"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (address.is_private, "a private address"),
        (address.is_reserved, "a reserved address"),
    ):
        if test:
            return reason
    if not address.is_global:
        return "not a public address"
    return None


def _embedded(address: Address) -> Address | None:
    """The IPv4 address inside an IPv6 one that carries it (mapped, 6to4, NAT64), which is where it goes."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _name(host: str) -> str:
    return host.lower().rstrip(".")


class WebhookGuard:
    """The webhook policy of one server.

    ``allow``: hosts the operator trusts although they are not public, and which may use plain http:
    names (matched exactly, case-insensitively), addresses, or networks (``10.1.0.0/16``). An address or
    network also admits a name that resolves into it. ``only``: when given, the only hosts a webhook may
    name at all (``create_app(webhook_hosts=...)``); the operator named them, so they count as allowed.
    ``resolve``: how names become addresses (the system's resolver by default; tests pass their own).
    """

    def __init__(
        self,
        allow: Iterable[str] = (),
        *,
        only: Iterable[str] | None = None,
        resolve: Resolver | None = None,
    ) -> None:
        self.only = frozenset(_name(h) for h in only) if only is not None else None
        self.allowed = tuple(_name(str(entry).strip()) for entry in allow if str(entry).strip())
        """The ``allow`` entries as given (for messages)."""
        entries = list(self.allowed) + sorted(self.only or ())
        networks: list[Network] = []
        names: set[str] = set()
        for entry in entries:
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                names.add(entry)
        self.names: frozenset[str] = frozenset(names)
        self.networks: tuple[Network, ...] = tuple(networks)
        self.resolve: Resolver = resolve or system_resolve

    def __repr__(self) -> str:
        return f"WebhookGuard(allow={list(self.allowed)}, only={sorted(self.only) if self.only is not None else None})"

    # ---------------------------------------------------------------- the checks

    def allows_address(self, address: Address) -> bool:
        """Whether the operator allowed ``address`` (one of the networks given to the guard)."""
        return any(address.version == net.version and address in net for net in self.networks)

    def allows_host(self, host: str) -> bool:
        """The operator named ``host`` (or, for an address, a network holding it)."""
        literal = _literal(host)
        return self.allows_address(literal) if literal is not None else _name(host) in self.names

    def check_address(self, host: str, address: Address) -> None:
        """WebhookRefused unless ``address`` (what ``host`` resolved to) may receive webhooks: a private, loopback or
        metadata address is refused unless the operator allowed it."""
        if self.allows_address(address):
            return
        reason = refusal(address)
        if reason is not None:
            shown = host if str(address) == host else f"{host} ({address})"
            raise WebhookRefused(
                f"webhooks may not be sent to {shown}: {reason}; the server's operator can allow it "
                "(kioko serve --webhook-allow HOST)"
            )

    def check_url(self, url: Any, *, resolve: bool = True) -> None:
        """WebhookRefused unless the server may POST to ``url``; ``resolve=False`` skips the name lookup."""
        parts = urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise WebhookRefused("a webhook url must be an absolute http(s) URL")
        host = _name(parts.hostname)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise WebhookRefused("the webhook url's port is not a number from 0 to 65535") from None
        if self.only is not None and host not in self.only:
            raise WebhookRefused(f"this server delivers webhooks only to {sorted(self.only)}")
        if self.allows_host(host):
            return
        literal = self._static(host)  # an internal address or name is named as such, whatever the scheme
        if parts.scheme != "https":
            raise WebhookRefused(
                f"a webhook url must use https (http only to a host the operator allows; {host} is not one)"
            )
        if literal is None and resolve:
            self.addresses(host, port)

    def _static(self, host: str) -> Address | None:
        """The checks that need no lookup: a literal address, a numeric trick, a name known to be internal."""
        literal = _literal(host)
        if literal is not None:
            self.check_address(host, literal)
            return literal
        if _NUMERIC.match(host):
            raise WebhookRefused(f"webhook host {host!r} is a number but not a dotted address; write the address")
        if host == "localhost" or host.endswith(".localhost"):
            raise WebhookRefused(f"webhooks may not be sent to {host}: a loopback name")
        if host in METADATA_NAMES:
            raise WebhookRefused(f"webhooks may not be sent to {host}: a cloud metadata name")
        return None

    def addresses(self, host: str, port: int) -> list[Address]:
        """``host``'s addresses, each checked (all must pass: one internal answer refuses the name)."""
        literal = self._static(host) if not self.allows_host(host) else _literal(host)
        if literal is not None:
            return [literal]
        found = [a for a in (_literal(s) for s in self.resolve(host, port)) if a is not None]
        if not found:
            raise WebhookRefused(f"the webhook host {host!r} does not resolve to an address")
        if _name(host) not in self.names:
            for address in found:
                self.check_address(host, address)
        return found

    def pin(self, scheme: str, host: str, port: int) -> str:
        """At connect time: the one address to connect to for ``host``, checked now (WebhookRefused if not)."""
        if self.only is not None and _name(host) not in self.only:
            raise WebhookRefused(f"this server delivers webhooks only to {sorted(self.only)}")
        if scheme != "https" and not self.allows_host(host):
            raise WebhookRefused(f"a webhook to {host} must use https")
        return str(self.addresses(host, port)[0])

    def transport(self, **options: Any) -> httpx.BaseTransport:
        """An httpx transport that connects every request to the address :meth:`pin` checked.

        The URL's host becomes that address, while the ``Host`` header (set when the request was built)
        and the TLS server name (``sni_hostname``) keep the name, so certificates are checked against it.
        """
        import httpx

        guard, inner = self, httpx.HTTPTransport(**options)

        class PinnedTransport(httpx.BaseTransport):
            def handle_request(self, request: httpx.Request) -> httpx.Response:
                url = request.url
                port = url.port or (443 if url.scheme == "https" else 80)
                address = guard.pin(url.scheme, url.host, port)
                if address != url.host:
                    request.url = url.copy_with(host=address)
                    request.extensions = {**request.extensions, "sni_hostname": url.host}
                return inner.handle_request(request)

            def close(self) -> None:
                inner.close()

        return PinnedTransport()
