"""DropSecrets: credentials are refused with a typed error and nothing is written; ordinary text passes.

Every secret below is a made-up example in the shape of a real one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from remote_support import REMOTE_SURFACES, remote_surface, server  # noqa: F401  (server: a fixture)
from secrets_support import SECRETS

from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.privacy.secrets import MARKER, DropSecrets, SecretDropped, redact
from kioko_core.store import InvalidRecordError, Scope

U = "kumar"


ORDINARY = [
    "the password reset flow was slow",
    "Line 3 keeps faulting with error E-217.",
    "I'm debugging ticket INC-4521, the drive shows error E-217 on line 3.",
    "The plant's PLC network uses the 10.20.0.0/16 subnet.",
    "OPC UA servers listen on port 4840 by default.",
    "Decision: Vector database - chose pgvector because we already run Postgres.",
    "Goal: Ship the Kioko memory layer by December 15.",
    "The password is required for login.",
    "Passwords are stored hashed in the vault.",
    "password: 8 characters minimum",
    "Password: see the team vault",
    "the password is too short",
    "change your password every 90 days",
    "The API key is stored in Vault.",
    "the access token expires after 3600 seconds",
    "We use sk-learn-pipeline-builder for the models",
    "The store is at postgresql://kumar@db.local/kioko",
    "postgresql://kumar:${DB_PASS}@db.local/kioko",
    "password = os.environ['DB_PASS']",
    "The secret is to reset the drive before reopening the guard",
    "Pin 12 is ground; pin 3 is 24V",
    "commit 3f9a2b7c4d5e6f708192a3b4c5d6e7f8a9b0c1d2 fixed the encoder bug",
    "The bearer of bad news arrived at 9:30",
    "Found it: the encoder cable on line 3 was loose.",
    "Clear a conveyor jam on line 3: 1) Press stop; 2) Open the guard; 3) Remove the jammed bottle",
    "Email kumar@example.com about work order WO-2024-0113",
]


LIBRARY_ONLY = pytest.mark.parametrize("memory", ["library"], indirect=True)
"""For a test that counts what the store holds underneath the surface."""


@pytest.fixture(params=["library", *REMOTE_SURFACES])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryLayer]:
    """A linking layer with the typed managers; ``remote-<store>``: a new store of that kind served on loopback,
    through RemoteMemory (the same calls over HTTP)."""
    if request.param != "library":
        with remote_surface(request, request.param, tmp_path, auto_link=True) as remote:
            yield remote
        return
    layer = MemoryLayer(MemoryStore(), auto_link=True)
    yield layer
    layer.close()


def count(memory: MemoryLayer, user_id: str = U) -> int:
    return sum(1 for _ in memory.store.scan(Scope(user_id)))


# --------------------------------------------------------------------------- the detector


@pytest.mark.parametrize("text, kind, secret", SECRETS, ids=[k + ":" + t[:24] for t, k, _ in SECRETS])
def test_secrets_are_found_by_kind(text: str, kind: str, secret: str) -> None:
    assert kind in DropSecrets().check(text)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    """Talk about credentials, codes, numbers and addresses is not a credential."""
    assert DropSecrets().check(text) == []


@pytest.mark.parametrize("text, kind, secret", SECRETS, ids=[k + ":" + t[:24] for t, k, _ in SECRETS])
def test_redact_removes_the_secret_and_keeps_the_rest(text: str, kind: str, secret: str) -> None:
    cleaned = redact(text)
    named = [kind for found in MARKER.finditer(cleaned) for kind in found.group(1).split(", ")]
    assert secret not in cleaned, cleaned
    assert kind in named, cleaned
    assert DropSecrets().check(cleaned) == []
    assert redact(cleaned) == cleaned


def test_redact_keeps_the_readable_part() -> None:
    assert redact("password: hunter2") == "password: [redacted: password]"
    assert (
        redact("postgresql://kumar:s3cretpw@db.local:5432/kioko")
        == "postgresql://kumar:[redacted: connection_string]@db.local:5432/kioko"
    )
    assert redact("Line 3 keeps faulting with error E-217.") == "Line 3 keeps faulting with error E-217."


def test_metadata_values_and_keys_are_checked() -> None:
    """A secret under a telling key ({"password": "..."}) or nested in metadata counts; the layer's bookkeeping does not."""
    secrets = DropSecrets()
    assert secrets.check_record("User's wifi", {"password": "GuestNet2024"}) == ["password"]
    assert secrets.check_record("note", {"notes": [{"text": "token=8f14e45fceea167a5a36dedd4bea2543"}]}) == ["token"]
    assert (
        secrets.check_record("note", {"_kioko": {"links": [{"id": "sk-0000example0000example", "type": "serves"}]}})
        == []
    )
    assert secrets.check_record("note", {"links": ["token=8f14e45fceea167a5a36dedd4bea2543"]}) == ["token"]


def test_secret_dropped_is_a_typed_error_that_never_repeats_the_secret() -> None:
    with pytest.raises(SecretDropped) as caught:
        DropSecrets().enforce("My API key is sk-EXAMPLE-not-a-real-key-000")
    assert isinstance(caught.value, InvalidRecordError)
    assert caught.value.kinds == ["api_key"]
    assert "sk-EXAMPLE" not in str(caught.value)
    assert "api_key" in str(caught.value)


# --------------------------------------------------------------------------- on the write path

REFUSED: list[tuple[str, Callable[[MemoryLayer], Any]]] = [
    ("facts", lambda m: m.facts.add("User's API key is sk-EXAMPLE-not-a-real-key-000", user_id=U)),
    ("episodes", lambda m: m.episodes.add("Logged in with password: hunter2", user_id=U, session_id="s1")),
    ("knowledge", lambda m: m.knowledge.add("Prod DB: postgresql://kumar:s3cretpw@db.local/kioko", user_id=U)),
    (
        "procedures",
        lambda m: m.procedures.add(
            "Deploy", ["export TOKEN=ghp_EXAMPLEexample0000EXAMPLEexample00", "run deploy"], user_id=U
        ),
    ),
    ("decisions", lambda m: m.decisions.add("use the key AKIAIOSFODNN7EXAMPLE for backups", user_id=U)),
    ("instructions", lambda m: m.instructions.add("Sign requests with Bearer abcDEF123456ghiJKL789mno", user_id=U)),
    ("profile", lambda m: m.profile.set("password", "swordfish", user_id=U)),
    ("working", lambda m: m.working.set("token", "xoxb-000000000000-EXAMPLEexample", user_id=U, session_id="s1")),
    ("metadata", lambda m: m.facts.add("User's wifi works again", user_id=U, metadata={"password": "GuestNet2024"})),
]


@LIBRARY_ONLY
@pytest.mark.parametrize("name, write", REFUSED, ids=[name for name, _ in REFUSED])
def test_typed_managers_refuse_secrets_and_write_nothing(
    memory: MemoryLayer, name: str, write: Callable[[MemoryLayer], Any]
) -> None:
    memory.facts.add("User lives in Pune.", user_id=U)
    before = count(memory)
    with pytest.raises(SecretDropped):
        write(memory)
    assert count(memory) == before


def test_secret_in_a_note_leaves_the_memory_unchanged(memory: MemoryLayer) -> None:
    """Notes live only in metadata; a secret there is refused and the goal stays as it was."""
    goal = memory.goals.add("Stabilise line 3 by November 30", user_id=U)
    procedure = memory.procedures.add("Reset the relay", ["Press reset"], user_id=U)
    with pytest.raises(SecretDropped):
        memory.goals.progress(goal.id, 0.5, user_id=U, note="the admin password is Summer2024!")
    with pytest.raises(SecretDropped):
        memory.procedures.outcome(procedure.id, True, user_id=U, note="used pwd=Tr0ub4dor&3")
    assert memory.get(goal.id, user_id=U).version == goal.version
    assert memory.get(procedure.id, user_id=U).metadata["successes"] == 0


@LIBRARY_ONLY
def test_layer_add_refuses_secrets(memory: MemoryLayer) -> None:
    """MemoryLayer.add itself runs DropSecrets on every write (the spec's processor), whatever the kind."""
    before = count(memory)
    with pytest.raises(SecretDropped):
        memory.add("My API key is sk-EXAMPLE-not-a-real-key-000, keep it for later.", user_id=U)
    with pytest.raises(SecretDropped):
        memory.add("-----BEGIN OPENSSH PRIVATE KEY-----", user_id=U, memory_type="working", session_id="s1")
    assert count(memory) == before


@pytest.mark.parametrize("text", ORDINARY[:8])
def test_ordinary_text_with_codes_is_stored(memory: MemoryLayer, text: str) -> None:
    """Error codes, tickets, subnets and ports go through every write path."""
    assert memory.facts.add(text, user_id=U).content == text
    assert memory.add(text, user_id=U, memory_type="episodic").content == text
    assert memory.working.set("note", text, user_id=U, session_id="s1").metadata["value"] == text
