"""Pins: the context's "Keep in mind" section, pin / unpin / pinned, and the byte-identical stable prefix."""

from __future__ import annotations

import pytest
from remote_support import fresh_url, serving

import kioko

U = {"user_id": "kumar"}
SUBNET = "The plant's PLC network uses the 10.20.0.0/16 subnet"


@pytest.fixture(params=["memory", "sqlite"])
def url(request, tmp_path):
    return "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'pins.db'}"


@pytest.fixture(params=["library", "remote"])
def open_memory(request, url, tmp_path):
    """Opens the layer under test over ``url``; ``remote``: over a new store of the same kind, served on loopback,
    and hands back a RemoteMemory to it."""
    if request.param == "library":
        yield lambda **options: kioko.connect(url, **options)
        return
    store = "memory" if url.startswith("memory") else "sqlite"
    with serving() as serve:
        yield lambda **options: serve(kioko.connect(fresh_url(store, tmp_path), **options))


def _plant(memory) -> str:
    memory.profile.set("name", "Kumar", **U)
    memory.instructions.add("Answer in short sentences.", **U)
    subnet = memory.facts.add(SUBNET, **U)
    memory.facts.add("Station 12 uses a Siemens drive.", **U)
    memory.goals.add("Stabilise line 3 by November 30", **U)
    return subnet.id


def test_a_pinned_memory_is_in_every_context_right_after_the_goals(open_memory) -> None:
    with open_memory() as memory:
        subnet = _plant(memory)
        assert "Keep in mind" not in memory.recall("Which drive does station 12 use?", **U).text
        memory.pin(subnet, **U)
        assert [r.id for r in memory.pinned(**U)] == [subnet]
        text = memory.recall("Which drive does station 12 use?", **U).text
        assert text.index("Open goals:") < text.index("Keep in mind (frequently needed):\n- " + SUBNET)
        shown = [m for m in memory.recall("Which drive does station 12 use?", **U).memories if m.id == subnet]
        assert shown[0].section == "pinned"
        assert shown[0].signals == {"pinned": 1.0}
        # retrieved on its own it stays in its section, once
        found = [m for m in memory.recall("PLC network subnet", **U).memories if m.id == subnet]
        assert len(found) == 1
        assert found[0].section == "memories"
        assert SUBNET in memory.recall("thanks!", **U, plan="auto").text
        assert SUBNET not in memory.recall("station 12", **U, section_limits={"pinned": 0}).text
        memory.unpin(subnet, **U)
        assert memory.pinned(**U) == []
        assert "Keep in mind" not in memory.recall("station 12", **U).text


def test_pins_stay_through_a_content_update_and_a_reopen(tmp_path) -> None:
    path = f"sqlite:///{tmp_path / 'pins.db'}"
    with kioko.connect(path) as memory:
        subnet = _plant(memory)
        memory.pin(subnet, **U)
        memory.facts.update(subnet, text=SUBNET + " (VLAN 20)", **U)
        before = memory.kv(**U)
        assert [r.id for r in memory.pinned(**U)] == [subnet]
    with kioko.connect(path) as memory:
        assert [r.id for r in memory.pinned(**U)] == [subnet]
        assert memory.kv(**U).text == before.text
        assert "(VLAN 20)" in before.text


def test_pins_belong_to_their_user(open_memory) -> None:
    with open_memory() as memory:
        subnet = _plant(memory)
        with pytest.raises(kioko.MemoryNotFound):
            memory.pin(subnet, user_id="asha")
        memory.pin(subnet, **U)
        assert memory.pinned(user_id="asha") == []
        assert SUBNET not in memory.recall("station 12", user_id="asha").text
        assert memory.kv(user_id="asha").text == ""


def test_only_recallable_memories_can_be_pinned_and_a_replaced_decision_is_not_shown(open_memory) -> None:
    with open_memory() as memory:
        _plant(memory)
        name = memory.profile.record("name", **U)
        with pytest.raises(kioko.InvalidRecordError):
            memory.pin(name.id, **U)
        old = memory.decisions.add("Decision: use Qdrant for the notes.", **U)
        memory.pin(old.id, **U)
        assert [r.id for r in memory.pinned(**U)] == [old.id]
        memory.decisions.supersede(old.id, "Decision: use pgvector for the notes.", **U)
        assert memory.pinned(**U) == []


def test_the_stable_prefix_is_byte_identical_across_turns_that_do_not_change_it(open_memory) -> None:
    with open_memory(intelligence=True) as memory:
        subnet = _plant(memory)
        memory.pin(subnet, **U)
        first = memory.kv(**U)
        assert first.text == (
            "About the user:\n- User's name is Kumar.\n\nInstructions:\n- Answer in short sentences."
            "\n\nKeep in mind (frequently needed):\n- " + SUBNET
        )
        assert first.memory_ids[-1] == subnet
        assert str(first) == first.text
        for turn in (
            "Which drive does station 12 use?",
            "Line 3 stopped again with error E-217.",
            "thanks!",
            "We decided to use pgvector because we already run Postgres.",
        ):
            memory.recall(turn, session_id="s1", **U)
            memory.record_turn(turn, "Noted.", session_id="s1", **U)
            memory.profile.set("name", "Kumar", **U)  # set again to the same value
            again = memory.kv(**U)
            assert again.text.encode() == first.text.encode()
            assert again.digest == first.digest
        memory.profile.set("location", "Pune", **U)
        changed = memory.kv(**U)
        assert changed.digest != first.digest
        assert "User's location is Pune." in changed.text
