"""Loopback ports for servers the tests start, and for ports nothing listens on.

A port the kernel hands out for ``bind(("127.0.0.1", 0))`` comes from its ephemeral range, the same range every
outgoing connection of the machine takes its local port from: between closing the probe and the server's own
bind, another worker's client connection (a test talking to PostgreSQL or to another server) may take that very
port, and the server then fails with "address already in use" (seen once in CI). So these ports come from below
the ephemeral range, where no outgoing connection is ever placed, chosen at random with the system's generator:
pytest-randomly seeds ``random`` alike in every xdist worker, which would give two workers the same ports.
"""

from __future__ import annotations

import secrets
import socket
import subprocess
from pathlib import Path

LOWEST = 20_000
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _first_ephemeral() -> int:
    """The lowest port of the kernel's ephemeral range (Linux reads it from /proc; 32768 elsewhere)."""
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def free_port() -> int:
    """A loopback TCP port nothing is bound to now, outside the ephemeral range when that leaves room."""
    top = _first_ephemeral()
    if top - LOWEST < 1_000:  # a machine whose ephemeral range starts low: the kernel's own choice
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])
    for _ in range(200):
        port = LOWEST + secrets.randbelow(top - LOWEST)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free loopback port between {LOWEST} and {top} after 200 tries")


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """End a server the test started: SIGTERM, then SIGKILL if it has not gone in 15 s."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
