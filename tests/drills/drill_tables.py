"""The drills' tables: secrets and their look-alikes, bad inputs to the layer; shared by the tests in this
folder and by ``benchmarks/drills.py``."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import KiokoError, Scope

SECRETS = {
    "azure storage connection string": "DefaultEndpointsProtocol=https;AccountName=kiokodata;AccountKey="
    "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;"
    "EndpointSuffix=core.windows.net",
    "azure shared access signature": "https://kioko.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig="
    "Q2hhbmdlTWVQbGVhc2VJdHNBVGVzdFNpZ25hdHVyZQ%3D%3D",
    "http basic header": "Authorization: Basic a3VtYXI6aHVudGVyMg==",
    "curl -u": "curl -u kumar:s3cretPass https://api.example.com/v1/items",
    "mysql -p": "mysql -h db -u root -pS3cr3tPw app",
    "sshpass": "sshpass -p 'Summer2024' ssh root@bastion",
    "passphrase as words": "my passphrase is correct horse battery staple",
    "aws access key id": "the deploy user is AKIAIOSFODNN7EXAMPLE",
    "aws secret key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "google api key": "maps key AIzaSyD-1234567890abcdefghijklmnopqrstu",
    "google oauth token": "ya29.a0AfH6SMBx3kioko_access_token_value_123",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJrdW1hciJ9.c2lnbmF0dXJlX29mX3RoZV90b2tlbg",
    "database url with password": "postgresql://kumar:Tr0ub4dor@db.internal:5432/kioko",
    "url query sslpassword": "postgresql://db.internal/app?sslmode=verify-full&sslpassword=hunter22",
    "ado.net connection string": "Server=db;Database=app;User Id=sa;Password=Hunter2!x;",
    ".env password": "DB_PASSWORD=Tr0ub4dor&3",
    ".env api key": "export OPENAI_API_KEY=sk-proj-abcdEFGH1234ijklMNOP5678",
    "shell PGPASSWORD": "PGPASSWORD=hunter2x psql -h db -U kumar",
    "github token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "slack token": "xoxb-1234567890-abcdefghijKLMN",
    "stripe live key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "digitalocean token": "dop_v1_" + "a" * 32 + "0123456789abcdef" * 2,
    "telegram bot token": "123456789:AA" + "Hd0k1oko_bot_token-ABCDEFGHIJKLMN",
    "private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "password in prose": "my password is hunter2",
}

LOOK_ALIKES = [
    "Fixed in commit 3f2a9c1e0b7d4a6f8e9c2b1a0d3e5f7a9b8c6d4e on main.",
    "Short sha 9fceb02 broke the build.",
    "Request 123e4567-e89b-12d3-a456-426614174000 timed out.",
    "the password reset flow is broken",
    "The password is required and must be 12+ characters.",
    "Line 3 keeps faulting with error E-217.",
    "The plant's PLC network uses the 10.20.0.0/16 subnet.",
    "The API key is in the team vault.",
    "Set DB_PASSWORD in the environment before deploying.",
    "curl -u $USER:$API_TOKEN https://api.example.com",
    "mysql -p prompts for the password",
    "mysql -h db -P 3306 -u app -p",
    "docker run -p 8080:80 nginx",
    "ssh -p 2222 kumar@bastion",
    "Basic authentication is deprecated; use OAuth.",
    "The Basic plan costs 10 dollars.",
    "postgresql://kumar@db:5432/app has no password in it",
    "export API_KEY=${API_KEY}",
    "TOKEN_TTL=3600",
    "PWD=/home/kumar/projects",
    "COMPASS_MODE=north",
    "the passphrase must be at least four words long",
    "my passphrase is stored in the vault",
    "the passphrase is four random dictionary words",
    "JWTs expire after 15 minutes; eyJ is only the header's prefix.",
    "AccountName=kiokodata;EndpointSuffix=core.windows.net",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "arn:aws:iam::123456789012:role/KiokoAdmin",
    "sk-learn-pipeline is a library",
    "https://example.com/search?q=token+limits&page=2",
    "git clone https://github.com/kioko/kioko.git",
    "Rotate the signing key every 90 days.",
]


Call = Callable[[MemoryLayer, str, str], Any]
"""``call(layer, user, existing_id)``: one call with one bad argument."""

GOOD = "Line 3 keeps faulting with error E-217."


def _add(**given: Any) -> Call:
    def call(layer: MemoryLayer, user: str, _: str) -> Any:
        arguments = {"content": GOOD, "user_id": user, **given}
        return layer.add(arguments.pop("content"), **arguments)

    return call


BAD_INPUTS: dict[str, Call] = {
    "content empty": _add(content=""),
    "content blank": _add(content=" \n\t "),
    "content None": _add(content=None),
    "content a number": _add(content=217),
    "content bytes": _add(content=b"Line 3 fault"),
    "content with NUL": _add(content="Line 3\x00 fault"),
    "content lone surrogate": _add(content="Line 3 \ud800 fault"),
    "content over the size limit": _add(content="x " * 200_000),
    "user_id empty": _add(user_id=""),
    "user_id None": _add(user_id=None),
    "user_id a number": _add(user_id=5),
    "user_id with NUL": _add(user_id="kumar\x00"),
    "agent_id empty": _add(agent_id=""),
    "agent_id a number": _add(agent_id=7),
    "session_id a number": _add(session_id=3),
    "memory_type unknown": _add(memory_type="gossip"),
    "memory_type None": _add(memory_type=None),
    "metadata a string": _add(metadata="line 3"),
    "metadata a list": _add(metadata=["line 3"]),
    "metadata NaN": _add(metadata={"score": math.nan}),
    "metadata infinity": _add(metadata={"score": math.inf}),
    "metadata an object": _add(metadata={"thing": object()}),
    "metadata a set": _add(metadata={"tags": {"a", "b"}}),
    "metadata a datetime": _add(metadata={"when": datetime(2026, 1, 1)}),
    "metadata a bytes value": _add(metadata={"raw": b"\x00\x01"}),
    "metadata with NUL": _add(metadata={"note": "a\x00b"}),
    "created_at NaN": _add(created_at=math.nan),
    "created_at infinity": _add(created_at=math.inf),
    "created_at a word": _add(created_at="yesterday"),
    "id empty": _add(id=""),
    "id a number": _add(id=42),
    "id too long": _add(id="x" * 500),
    "update of a missing memory": lambda layer, user, _: layer.update("no-such-id", user_id=user, metadata={"a": 1}),
    "update metadata a list": lambda layer, user, mid: layer.update(mid, user_id=user, metadata=[1]),
    "update content empty": lambda layer, user, mid: layer.update(mid, user_id=user, content=""),
    "update metadata NaN": lambda layer, user, mid: layer.update(mid, user_id=user, metadata={"x": math.nan}),
    "update by another user": lambda layer, user, mid: layer.update(mid, user_id=user + "-other", metadata={"a": 1}),
    "recall query None": lambda layer, user, _: layer.recall(None, user_id=user),
    "recall query a number": lambda layer, user, _: layer.recall(5, user_id=user),
    "recall query over the size limit": lambda layer, user, _: layer.recall("line " * 20_000, user_id=user),
    "recall user_id empty": lambda layer, user, _: layer.recall("line 3", user_id=""),
    "link to itself": lambda layer, user, mid: layer.graph.link(mid, mid, user_id=user),
    "link weight 0": lambda layer, user, mid: layer.graph.link(mid, "no-such-id", weight=0, user_id=user),
    "link weight 2": lambda layer, user, mid: layer.graph.link(mid, "no-such-id", weight=2, user_id=user),
    "link type unknown": lambda layer, user, mid: layer.graph.link(mid, "no-such-id", type="likes", user_id=user),
    "link to a missing memory": lambda layer, user, mid: layer.graph.link(mid, "no-such-id", user_id=user),
    "triple with empty subject": lambda layer, user, _: layer.graph.add("", "uses", "pgvector", user_id=user),
    "triple valid_from NaN": lambda layer, user, _: layer.graph.add(
        "Kioko", "uses", "pgvector", user_id=user, valid_from=math.nan
    ),
    "get of another user's memory": lambda layer, user, mid: layer.get(mid, user_id=user + "-other"),
    "delete of a missing memory": lambda layer, user, _: layer.delete("no-such-id", user_id=user),
}


def outcome(layer: MemoryLayer, user: str, existing: str, call: Call) -> str:
    """``"accepted"``, or the name of the typed error; anything but a KiokoError fails the drill."""
    try:
        call(layer, user, existing)
    except KiokoError as error:
        return type(error).__name__
    except Exception as error:  # noqa: BLE001  (an untyped error is what the drill looks for)
        return f"untyped {type(error).__name__}"
    return "accepted"


def stored_state(layer: MemoryLayer, user: str) -> list[tuple[str, int, str]]:
    """Every record of the user's scope and graph scope, as (id, version, content)."""
    return sorted(
        (r.id, r.version, r.content) for agent in (None, "@graph") for r in layer.store.scan(Scope(user, agent))
    )
