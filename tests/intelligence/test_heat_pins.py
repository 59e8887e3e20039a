"""Heat and automatic pins: uses counted by recall and re-mentions, a fake clock, the pin task's rules."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kioko
from kioko_core.store import Scope
from kioko_intelligence import Intelligence
from kioko_intelligence.heat import heat_of, heats
from kioko_intelligence.maintenance import MAINTENANCE_USER, MaintenanceScheduler

U = {"user_id": "kumar"}
DAY = 86400.0
SUBNET = "The plant's PLC network uses the 10.20.0.0/16 subnet"
ROOT = Path(__file__).resolve().parents[2]


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def later(self, days: float) -> None:
        self.now += days * DAY


@pytest.fixture(params=["memory", "sqlite"])
def url(request, tmp_path):
    return "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'heat.db'}"


def _layer(url: str, clock: Clock, **options) -> tuple[kioko.MemoryLayer, MaintenanceScheduler]:
    scheduler = MaintenanceScheduler(clock=clock, **options)
    return kioko.MemoryLayer(kioko.open_store(url), intelligence=Intelligence(scheduler=scheduler)), scheduler


def _heat(memory, memory_id: str, clock: Clock, user_id: str = "kumar") -> float:
    memory.intelligence.scheduler.note_uses(memory, [], user_id=user_id, agent_id=None)  # what recall noted
    return heats(memory.store, Scope(MAINTENANCE_USER, None), Scope(user_id, None), clock())[memory_id]


def _automatic(memory, user_id: str = "kumar") -> list[str]:
    return sorted(r.id for r in memory.pinned(user_id=user_id) if r.metadata.get("pinned_by") == "auto")


def test_heat_is_uses_halved_every_28_days_plus_recency_with_a_7_day_half_life() -> None:
    now = 1_800_000_000.0
    assert heat_of([5, now], now) == pytest.approx(6.0)
    assert heat_of([5, now], now + 28 * DAY) == pytest.approx(2.5 + 0.0625)
    assert heat_of([4, now], now + 7 * DAY) == pytest.approx(4 * 0.5**0.25 + 0.5)
    for broken in (None, [], ["x", now], [float("nan"), now], {"uses": 3}):
        assert heat_of(broken, now) == 0.0


def test_five_differently_worded_questions_pin_a_fact_and_it_cools_down_unused(url) -> None:
    clock = Clock()
    memory, scheduler = _layer(url, clock)
    with memory:
        subnet = memory.facts.add(SUBNET, **U).id
        other = memory.facts.add("Station 12 uses a Siemens drive.", **U).id
        memory.profile.set("name", "Kumar", **U)
        for question in (
            "What subnet does the PLC network use?",
            "Which IP range is the PLC network on?",
            "PLC network addresses?",
            "Remind me of the plant's PLC subnet",
        ):
            assert subnet in [m.id for m in memory.recall(question, **U).memories]
        assert _heat(memory, subnet, clock) == pytest.approx(5.0)  # 4 uses + recency 1
        clock.later(1)
        assert scheduler.pin(memory, **U) == {"pinned": [], "unpinned": []}  # 4 * 0.975 + 0.906 < 5
        memory.recall("Is the PLC subnet a /16?", **U)
        assert scheduler.pin(memory, **U) == {"pinned": [subnet], "unpinned": []}
        assert _automatic(memory) == [subnet]
        assert other not in _automatic(memory)
        assert "Keep in mind (frequently needed):\n- " + SUBNET in memory.kv(**U).text
        # shown in the pinned section is not a use: ten questions about something else leave its heat alone
        before = _heat(memory, subnet, clock)
        for _ in range(10):
            ctx = memory.recall("Which drive does station 12 use?", **U)
            assert [m.signals for m in ctx.memories if m.id == subnet] == [{"pinned": 1.0}]
        assert _heat(memory, subnet, clock) == pytest.approx(before)
        assert scheduler.pin(memory, **U) == {"pinned": [other], "unpinned": []}  # that one was used ten times
        clock.later(14)  # still warm: 5 uses * 0.5^(15/28) + 0.5^(15/7) ~ 3.7
        assert scheduler.pin(memory, **U) == {"pinned": [], "unpinned": []}
        clock.later(14)  # below 3: unpinned; the one used ten times is still above (~4.9)
        assert scheduler.pin(memory, **U) == {"pinned": [], "unpinned": [subnet]}
        assert [r.id for r in memory.pinned(**U)] == [other]


def test_the_pin_task_runs_every_pin_every_turns(url) -> None:
    clock = Clock()
    memory, scheduler = _layer(url, clock, pin_every=3)
    with memory:
        subnet = memory.facts.add(SUBNET, **U).id
        scheduler.note_uses(memory, [subnet] * 1, **U, agent_id=None)
        for _ in range(5):
            scheduler.note_uses(memory, [subnet], user_id="kumar", agent_id=None)
        memory.record_turn("hi", session_id="s1", **U)
        memory.record_turn("thanks", session_id="s1", **U)
        assert memory.pinned(**U) == []
        memory.record_turn("ok", session_id="s1", **U)
        assert scheduler.counters(memory, **U)["pinned_at"] == 3
        assert _automatic(memory) == [subnet]


def test_a_re_mention_in_a_managed_turn_is_a_use(url) -> None:
    clock = Clock()
    memory, _ = _layer(url, clock)
    with memory:
        goal = memory.goals.add("Pass the Azure AI Engineer exam by March 31", **U).id
        memory.record_turn("I'm 60% done with the Azure AI Engineer exam prep.", session_id="s1", **U)
        assert memory.goals.get(goal, **U).metadata.get("progress") == pytest.approx(0.6)
        assert _heat(memory, goal, clock) == pytest.approx(2.0)


def test_at_most_max_pinned_automatic_pins_the_coldest_give_way_and_manual_pins_stay(url) -> None:
    clock = Clock()
    memory, scheduler = _layer(url, clock, max_pinned=3)
    with memory:
        ids = [memory.facts.add(f"Station {n} uses drive model D-{n}00.", **U).id for n in range(1, 6)]
        manual = memory.facts.add("The night shift starts at 22:00.", **U).id
        memory.pin(manual, **U)
        for uses, memory_id in zip((5, 6, 7, 8, 9), ids):
            for _ in range(uses):
                scheduler.note_uses(memory, [memory_id, manual], user_id="kumar", agent_id=None)
        assert scheduler.pin(memory, **U)["pinned"] == [ids[4], ids[3], ids[2]]
        assert _automatic(memory) == sorted(ids[2:])
        # a hotter memory comes: the coldest automatic pin gives way
        hot = memory.facts.add("Station 9 uses drive model D-900.", **U).id
        for _ in range(12):
            scheduler.note_uses(memory, [hot], user_id="kumar", agent_id=None)
        assert scheduler.pin(memory, **U) == {"pinned": [hot], "unpinned": [ids[2]]}
        assert _automatic(memory) == sorted([hot, ids[3], ids[4]])
        # long unused: every automatic pin goes, the manual pin stays (it is never touched)
        clock.later(120)
        assert sorted(scheduler.pin(memory, **U)["unpinned"]) == sorted([hot, ids[3], ids[4]])
        assert [r.id for r in memory.pinned(**U)] == [manual]
        # unpinned by hand: the scheduler leaves it alone however hot it gets
        memory.unpin(manual, **U)
        for _ in range(8):
            scheduler.note_uses(memory, [manual], user_id="kumar", agent_id=None)
        assert scheduler.pin(memory, **U)["pinned"] == []
        assert memory.pinned(**U) == []


def test_heat_belongs_to_its_user_and_is_forgotten_with_them(url) -> None:
    clock = Clock()
    memory, scheduler = _layer(url, clock)
    with memory:
        mine = memory.facts.add(SUBNET, **U).id
        for _ in range(6):
            memory.recall("PLC network subnet", **U)
            memory.recall("PLC network subnet", user_id="asha")
        assert heats(memory.store, Scope(MAINTENANCE_USER, None), Scope("asha", None), clock()) == {}
        scheduler.note_uses(memory, [mine] * 1, user_id="asha", agent_id=None)  # an id asha cannot reach
        assert scheduler.pin(memory, user_id="asha") == {"pinned": [], "unpinned": []}
        assert memory.maintain(tasks=["pin"], **U) == {"kumar": {"pin": {"pinned": [mine], "unpinned": []}}}
        memory.forget_user(**U)
        assert heats(memory.store, Scope(MAINTENANCE_USER, None), Scope("kumar", None), clock()) == {}


def test_pins_off_means_no_uses_counted_and_no_pin_task(url) -> None:
    clock = Clock()
    memory, scheduler = _layer(url, clock, pin_threshold=0)
    with memory:
        subnet = memory.facts.add(SUBNET, **U).id
        for _ in range(6):
            memory.recall("PLC network subnet", **U)
        assert heats(memory.store, Scope(MAINTENANCE_USER, None), Scope("kumar", None), clock()) == {}
        assert scheduler.pin(memory, **U) == {"pinned": [], "unpinned": []}
        assert subnet
    assert Intelligence(pin_threshold=8, max_pinned=3).scheduler.max_pinned == 3
    for bad in ({"max_pinned": -1}, {"pin_threshold": "5"}, {"pin_every": 1.5}, {"clock": 5}):
        with pytest.raises(kioko.InvalidRecordError):
            MaintenanceScheduler(**bad)


def test_heat_survives_a_restart_and_the_pinned_prefix_stays_byte_identical(tmp_path) -> None:
    path = f"sqlite:///{tmp_path / 'restart.db'}"
    with kioko.connect(path, intelligence=True) as memory:
        memory.profile.set("name", "Kumar", **U)
        subnet = memory.facts.add(SUBNET, **U).id
        for _ in range(3):
            memory.recall("PLC network subnet", **U)
    with kioko.connect(path, intelligence=True) as memory:
        for _ in range(2):
            memory.recall("Which subnet is the PLC network on?", **U)
        assert memory.maintain(tasks=["pin"], **U)["kumar"]["pin"]["pinned"] == [subnet]
        first = memory.kv(**U)
        # turns that change nothing in the prefix leave it byte-identical
        memory.record_turn("thanks!", session_id="s1", **U)
        memory.recall("Which drive does station 12 use?", **U)
        memory.facts.add("Station 12 uses a Siemens drive.", **U)
        second = memory.kv(**U)
        assert second.text.encode() == first.text.encode()
        assert second.digest == first.digest
        assert (
            first.text == "About the user:\n- User's name is Kumar.\n\nKeep in mind (frequently needed):\n- " + SUBNET
        )


PIN_IN_A_PROCESS = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    import kioko, json
    with kioko.connect({url!r}, intelligence=True) as memory:
        print(json.dumps(memory.maintain(tasks=["pin"], user_id="kumar")))
    """
)


def test_two_processes_running_the_pin_task_at_once_pin_each_memory_once(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'two.db'}"
    with kioko.connect(url, intelligence=True) as memory:
        ids = [memory.facts.add(f"Station {n} uses drive model D-{n}00.", **U).id for n in range(1, 8)]
        scheduler = memory.intelligence.scheduler
        for uses, memory_id in zip(range(5, 12), ids):
            for _ in range(uses):
                scheduler.note_uses(memory, [memory_id], user_id="kumar", agent_id=None)
    script = PIN_IN_A_PROCESS.format(root=str(ROOT), url=url)
    runs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    with kioko.connect(url) as memory:
        pinned = memory.pinned(**U)
        assert sorted(r.id for r in pinned) == sorted(ids[2:])  # the 5 hottest, each once
        assert all(r.metadata["pinned_by"] == "auto" for r in pinned)
    done = [json.loads(out)["kumar"]["pin"] for out in outputs]
    assert all(sorted(d["pinned"]) == sorted(set(d["pinned"])) and d["unpinned"] == [] for d in done)
    assert set(done[0]["pinned"]) | set(done[1]["pinned"]) == set(ids[2:])
