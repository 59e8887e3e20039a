"""Maintenance tasks: rolling session summaries, reflection (offline and with a scripted model), consolidation.

Real stores throughout (memory:// and SQLite files); the two-process test runs real processes on one SQLite file.
"""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
import traceback

import pytest

import kioko
from kioko_core.store import Scope
from kioko_intelligence import Intelligence, summaries
from kioko_intelligence.maintenance import MaintenanceScheduler

U = {"user_id": "kumar"}
KUMAR = Scope("kumar", None)
DAY = 86400.0
EPISODES = [
    "Yesterday line 3 stopped with error E-217 during the night shift.",
    "The OPC UA endpoint 3 timed out on line 3 this morning.",
    "Error E-217 came back on line 3 after lunch.",
    "The conveyor on line 5 jammed twice during the late shift.",
]


@pytest.fixture(params=["memory", "sqlite"])
def url(request, tmp_path):
    return "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'tasks.db'}"


def _layer(url: str, **options) -> kioko.MemoryLayer:
    # these tests say on which turn a task falls due: it runs on that turn, not on the next turn that wrote
    # nothing (defer_after_writes has its own tests in test_turn_bookkeeping.py)
    scheduler = MaintenanceScheduler(defer_after_writes=0, **options)
    return kioko.MemoryLayer(kioko.open_store(url), intelligence=Intelligence(scheduler=scheduler))


def _summaries(memory, session_id: str) -> list:
    return [
        r
        for r in memory.memories(kinds={"summary"}, **U)
        if r.metadata.get("session_summary") and r.session_id == session_id
    ]


def _themes(memory) -> dict[str, list]:
    found: dict[str, list] = {}
    for record in memory.memories(kinds={"insight"}, **U):
        if record.metadata.get("theme"):
            found.setdefault(record.metadata["theme"], []).append(record)
    return found


# --------------------------------------------------------------------------- summarise session


def test_every_n_turns_of_a_session_fold_into_one_keyed_summary_updated_in_place(url) -> None:
    with _layer(url, summarize_every=3, reflect_after=0, consolidate_every=0) as memory:
        memory.record_turn(
            "I'm debugging ticket INC-4521, the drive shows error E-217 on line 3.", "Ok.", session_id="s1", **U
        )
        memory.record_turn("thanks!", session_id="s1", **U)
        assert _summaries(memory, "s1") == []
        assert summaries.session_log(memory, KUMAR, "s1")["turns"] == 2
        memory.record_turn("The encoder cable on line 3 was loose and we reseated it.", session_id="s1", **U)
        [first] = _summaries(memory, "s1")
        assert first.kind == "summary"
        assert first.id == summaries.summary_id(KUMAR, "s1")
        assert "INC-4521" in first.content  # the scratchpad is no memory
        assert "thanks" not in first.content
        # the episode keeps the cable already: a summary says only what the session's memories do not
        assert "encoder cable" not in first.content
        assert any("encoder cable" in r.content for r in memory.memories(kinds={"episodic"}, **U))
        assert first.metadata["turns_folded"] == 3
        assert summaries.session_log(memory, KUMAR, "s1")["waiting"] == []
        # another session counts on its own; its turns never reach s1's summary
        for text in ("Maybe the OPC UA endpoint 3 is flaky this week.", "hello", "ok"):
            memory.record_turn(text, session_id="s2", **U)
        memory.record_turn("Maybe the barcode scanner at station 12 is slower than usual today.", session_id="s1", **U)
        memory.record_turn("Can you check the logs?", session_id="s1", **U)
        assert "station 12" not in memory.get(first.id, **U).content  # two turns: not due yet
        memory.record_turn("We replaced the drive fan on line 3 as well.", session_id="s1", **U)
        [again] = _summaries(memory, "s1")
        assert again.id == first.id
        assert "station 12" in again.content
        assert "INC-4521" in again.content
        assert "OPC UA" not in again.content
        assert "OPC UA" in _summaries(memory, "s2")[0].content
        assert again.metadata["turns_folded"] == 6


def test_end_session_also_summarises_the_conversation_and_zero_turns_summaries_off(url) -> None:
    with _layer(url, summarize_every=10) as memory:
        memory.record_turn("Maybe the OPC UA endpoint 3 is flaky this week.", session_id="s1", **U)
        assert _summaries(memory, "s1") == []
        memory.end_session("s1", **U)
        [summary] = _summaries(memory, "s1")
        assert "OPC UA endpoint 3" in summary.content
        assert summaries.session_log(memory, KUMAR, "s1")["waiting"] == []
        memory.end_session("s1", **U)  # nothing waiting: the summary stays as it is
        assert [r.version for r in _summaries(memory, "s1")] == [summary.version]
    with _layer(url, summarize_every=0) as memory:
        for _ in range(3):
            memory.record_turn("The conveyor on line 5 jammed during the late shift.", session_id="off", **U)
        memory.end_session("off", **U)
        assert _summaries(memory, "off") == []
        assert summaries.session_log(memory, KUMAR, "off")["turns"] == 0


def test_the_session_logs_are_the_users_own_and_go_with_them(url) -> None:
    with _layer(url, summarize_every=5) as memory:
        memory.record_turn("The conveyor on line 5 jammed during the late shift.", session_id="s1", **U)
        memory.record_turn("Line 7 was down for an hour.", session_id="t1", user_id="asha")
        assert [r.content for r in memory.memories(**U) if r.kind == summaries.LOG_KIND] == []  # not among memories
        assert "line 5" not in memory.recall("line 5 conveyor", user_id="asha").text
        memory.forget_user(**U)
        assert summaries.session_log(memory, KUMAR, "s1")["turns"] == 0
        assert summaries.session_log(memory, Scope("asha", None), "t1")["turns"] == 1


def test_a_model_writes_the_summary_and_a_failing_model_falls_back_offline(url) -> None:
    prompts: list[str] = []

    def model(prompt: str) -> str:
        prompts.append(prompt)
        return "Kumar chased error E-217 on line 3; a loose encoder cable was the cause."

    def broken(prompt: str) -> str:
        raise TimeoutError("the model is asleep")

    turns = ["I'm debugging error E-217 on line 3 today.", "The encoder cable on line 3 was loose."]
    for llm, expected in (
        (model, "a loose encoder cable was the cause"),
        (broken, "encoder cable on line 3 was loose"),
    ):
        with kioko.connect(url) as memory:
            scheduler = MaintenanceScheduler(summarize_every=2, llm=llm)
            for text in turns:
                report = memory.manage(text, session_id="m", dry_run=True, **U)
                report.messages = [{"role": "user", "content": text}]
                scheduler.after_turn(memory, report, session_id="m", **U)
            [summary] = _summaries(memory, "m")
            assert expected in summary.content
            assert summary.metadata["by"] == ("llm" if llm is model else "offline")
            memory.forget_user(**U)
    assert "New turns:" in prompts[0]
    assert "E-217" in prompts[0]


def test_counters_and_the_session_log_survive_closing_and_reopening_sqlite(tmp_path) -> None:
    path = f"sqlite:///{tmp_path / 'restart.db'}"
    options = {"summarize_every": 3, "reflect_after": 1.0, "consolidate_every": 0}
    # each turn also says something no memory keeps (a hedge below the importance bar): the summary's matter
    texts = [f"{EPISODES[i]} Maybe the fan on line {i + 4} is noisy today." for i in range(3)]
    for i, text in enumerate(texts):
        with _layer(path, **options) as memory:  # a new process, in effect, for every turn
            memory.record_turn(text, session_id="s1", **U)
            counters = memory.intelligence.scheduler.counters(memory, **U)
            assert counters["turns"] == i + 1
            if i < 2:
                assert _summaries(memory, "s1") == []
                assert _themes(memory) == {}
                assert counters["new_episodes"] == i + 1
    with _layer(path, **options) as memory:
        assert len(_summaries(memory, "s1")) == 1  # the third turn, counted across restarts, folded them
        # and reflection was due on the third new episode: queued in the counters (one task a turn), it runs
        # with the next turn, in another process
        assert memory.intelligence.scheduler.counters(memory, **U)["pending"] == ["reflect"]
    with _layer(path, **options) as memory:
        memory.record_turn("thanks", session_id="s1", **U)
        assert set(_themes(memory)) >= {"line 3"}
        counters = memory.intelligence.scheduler.counters(memory, **U)
        assert counters["new_episodes"] == 0
        assert counters["new_importance"] == 0


# --------------------------------------------------------------------------- reflect


def test_reflection_waits_for_the_importance_sum_and_three_new_episodes(url) -> None:
    with _layer(url, summarize_every=0, reflect_after=1.2, consolidate_every=0) as memory:
        brain = memory.intelligence
        memory.record_turn(EPISODES[0], session_id="s1", **U)
        memory.record_turn(EPISODES[1], session_id="s1", **U)
        counters = brain.scheduler.counters(memory, **U)
        assert counters["new_episodes"] == 2  # importance alone is not enough
        assert counters["new_importance"] >= 1.0
        assert _themes(memory) == {}
        memory.record_turn(EPISODES[2], session_id="s1", **U)
        themes = _themes(memory)
        assert set(themes) == {"line 3"}
        assert len(themes["line 3"]) == 1
        [theme] = themes["line 3"]
        assert theme.kind == "insight"
        assert theme.metadata["reflection"] is True
        assert len(theme.metadata["evidence"]) == 3
        assert "line" not in themes  # the word only came up inside "line 3": it gives way to the subject
        assert brain.scheduler.counters(memory, **U)["new_episodes"] == 0
    with _layer(url, summarize_every=0, reflect_after=0) as memory:
        memory.forget_user(**U)
        for text in EPISODES:
            memory.record_turn(text, session_id="s2", **U)
        assert _themes(memory) == {}  # reflect_after=0: reflection is off


def test_themes_are_updated_in_place_and_words_outside_subjects_count(url) -> None:
    with kioko.connect(url) as memory:
        for text in EPISODES[:3]:
            memory.add(text, memory_type="episodic", **U)
        first = memory.reflect(**U)
        [theme_id] = first["themes"]
        memory.add("The night shift saw E-217 on line 3 once more.", memory_type="episodic", **U)
        memory.add("A shift handover note mentions the jam on line 5.", memory_type="episodic", **U)
        second = memory.maintain(tasks=["reflect"], **U)["kumar"]["reflect"]
        themes = _themes(memory)
        assert theme_id in second["themes"]
        assert [r.id for r in themes["line 3"]] == [theme_id]
        assert "came up in 4 recent episodes" in themes["line 3"][0].content
        assert "e-217" in themes  # an identifier is a subject of its own
        assert "shift" in themes  # a plain word, said outside any subject, in three episodes
        assert memory.scoped(user_id="asha").reflect() == {"insights": [], "themes": [], "error": None}


def _scripted(answer):
    prompts: list[str] = []

    def model(prompt: str) -> str:
        prompts.append(prompt)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return model, prompts


def test_reflection_with_a_model_stores_insights_with_their_evidence(url) -> None:
    with kioko.connect(url) as memory:
        episodes = [memory.add(text, memory_type="episodic", **U) for text in EPISODES]
        other = memory.add("Asha's pump P-3 failed on line 9.", memory_type="episodic", user_id="asha")
        answer = {
            "insights": [
                {
                    "kind": "lesson",
                    "text": "Error E-217 on line 3 keeps coming back after fixes.",
                    "evidence": ["e1", "e3"],
                },
                {"kind": "preference", "text": "Kumar works night shifts.", "evidence": ["e1", other.id, "e99"]},
                {"kind": "fact", "text": "Asha's pump fails often.", "evidence": [other.id]},  # another user's: ignored
                {"kind": "goal", "text": "Fix line 3.", "evidence": ["e1"]},  # not a kind reflection may write
                {"kind": "fact", "text": "", "evidence": ["e2"]},
                "not an insight",
            ]
        }
        model, prompts = _scripted("Here you go:\n```json\n" + json.dumps(answer) + "\n```")
        result = MaintenanceScheduler(llm=model).reflect(memory, **U)
        assert result["error"] is None
        assert result["themes"] == []
        assert len(result["insights"]) == 2
        lesson, preference = (memory.get(i, **U) for i in result["insights"])
        assert lesson.kind == "strategy"
        assert lesson.metadata["reflection"] is True
        assert lesson.metadata["evidence"] == [episodes[0].id, episodes[2].id]
        assert preference.kind == "preference"
        assert preference.metadata["evidence"] == [episodes[0].id]
        assert "e1: Yesterday line 3 stopped" in prompts[0]
        assert "P-3" not in prompts[0]
        assert [r for r in memory.memories(user_id="asha") if r.metadata.get("reflection")] == []
        # the same insight found again is the same memory
        again = MaintenanceScheduler(llm=model).reflect(memory, **U)
        assert again["insights"] == result["insights"]


@pytest.mark.parametrize(
    "answer", ["I think line 3 is cursed.", '{"insights": [{"kind": "fact", "text": "oops"', RuntimeError("model down")]
)
def test_a_malformed_or_failing_model_never_breaks_reflection(url, answer) -> None:
    with kioko.connect(url) as memory:
        for text in EPISODES:
            memory.add(text, memory_type="episodic", **U)
        model, prompts = _scripted(answer)
        result = MaintenanceScheduler(llm=model).reflect(memory, **U)
        assert prompts
        assert result["insights"] == []
        assert result["error"]
        assert result["themes"]  # the offline themes stood in
        assert set(_themes(memory)) == {"line 3"}
        assert [r for r in memory.memories(**U) if r.metadata.get("reflection") and not r.metadata.get("theme")] == []
        # and through a managed turn, the failure never reaches the turn
        brain = Intelligence(scheduler=MaintenanceScheduler(llm=model, reflect_after=0.1, summarize_every=1))
        layer = kioko.MemoryLayer(memory.store, intelligence=brain)
        for text in EPISODES[:3]:
            report = layer.record_turn(text, session_id="x", **U)
            assert report.ops
        assert brain.stats()["maintenance_errors"] == 0


# --------------------------------------------------------------------------- consolidate


def test_consolidation_runs_every_n_applied_operations(url) -> None:
    with _layer(url, summarize_every=0, reflect_after=0, consolidate_every=3) as memory:
        scheduler = memory.intelligence.scheduler
        memory.add("Station 12 uses a Zebra scanner.", memory_type="fact", **U)
        memory.add("Station 12 uses a Zebra scanner!", memory_type="fact", **U)
        memory.record_turn(EPISODES[0], session_id="s1", **U)
        counters = scheduler.counters(memory, **U)
        assert counters["operations"] < 3
        assert counters["consolidated_at"] == 0
        assert len(list(memory.memories(kinds={"fact"}, **U))) == 2
        while scheduler.counters(memory, **U)["consolidated_at"] == 0:
            memory.record_turn(EPISODES[1 + scheduler.counters(memory, **U)["turns"] % 3], session_id="s1", **U)
        assert len(list(memory.memories(kinds={"fact"}, **U))) == 1  # the duplicates were merged


def test_consolidation_expires_folds_merges_and_forgets(url) -> None:
    now = time.time()
    with kioko.connect(url) as memory:
        expired = memory.add("Parking in lot B this week.", memory_type="fact", metadata={"expires_at": now - 60}, **U)
        current = memory.add(
            "Parking in lot C this month.", memory_type="fact", metadata={"expires_at": now + DAY}, **U
        )
        old = [
            memory.add(text, memory_type="episodic", created_at=now - (40 + i) * DAY, metadata={"importance": 0.7}, **U)
            for i, text in enumerate(EPISODES[:3])
        ]
        faded = memory.add(
            "Had a coffee with the night shift.",
            memory_type="episodic",
            created_at=now - 200 * DAY,
            metadata={"importance": 0.42},
            **U,
        )
        used = memory.add(
            "Checked the guard door on line 2.",
            memory_type="episodic",
            created_at=now - 200 * DAY,
            metadata={"importance": 0.42, "recalls": 2},
            **U,
        )
        heated = memory.add(
            "Looked at the spare parts shelf.",
            memory_type="episodic",
            created_at=now - 200 * DAY,
            metadata={"importance": 0.42},
            **U,
        )
        MaintenanceScheduler().note_uses(memory, [heated.id], agent_id=None, **U)  # a query retrieved it once
        unscored = memory.add("Visited the Pune warehouse.", memory_type="episodic", created_at=now - 400 * DAY, **U)
        fresh = memory.add(
            "Walked the line 2 guard round today.", memory_type="episodic", metadata={"importance": 0.3}, **U
        )
        keep = memory.add("The plant's PLC network uses the 10.20.0.0/16 subnet.", memory_type="fact", **U)
        copy = memory.add(
            "The plant's PLC network uses the 10.20.0.0/16 subnet", memory_type="fact", session_id="s9", **U
        )
        goal = memory.goals.add("Stabilise the PLC network by March", **U)
        memory.graph.link(copy.id, goal.id, "serves", user_id="kumar")
        result = memory.maintain(tasks=["consolidate"], **U)["kumar"]["consolidate"]
        assert result == {"expired": 1, "folded": 7, "merged": 1, "forgotten": 1}
        ids = {r.id for r in memory.memories(**U)}
        assert expired.id not in ids
        assert current.id in ids
        assert faded.id not in ids
        assert used.id in ids
        assert heated.id in ids
        assert fresh.id in ids
        assert unscored.id in ids  # added by hand, never scored: not the intelligence's to forget
        assert copy.id not in ids
        assert keep.id in ids
        assert goal.id in {x for link in memory.graph.links(keep.id, **U) for x in (link.source, link.target)}  # moved
        months = [r for r in memory.memories(kinds={"summary"}, **U) if r.metadata.get("month")]
        assert sum(len(m.metadata["folded"]) for m in months) == 7
        assert any("line 3" in m.content for m in months)
        assert {o.id for o in old} <= {i for m in months for i in m.metadata["folded"]}
        # a second run finds nothing left to do, and the summaries stay one per month
        assert memory.maintain(tasks=["consolidate"], **U)["kumar"]["consolidate"] == {
            "expired": 0,
            "folded": 0,
            "merged": 0,
            "forgotten": 0,
        }
        assert len([r for r in memory.memories(kinds={"summary"}, **U) if r.metadata.get("month")]) == len(months)


def test_bad_thresholds_are_refused() -> None:
    for bad in ({"summarize_every": -1}, {"consolidate_every": 2.5}, {"reflect_after": "high"}, {"reflect_after": -1}):
        with pytest.raises(kioko.InvalidRecordError):
            MaintenanceScheduler(**bad)
    brain = Intelligence(summarize_every=20, reflect_after=5, consolidate_every=500)
    assert (brain.scheduler.summarize_every, brain.scheduler.reflect_after, brain.scheduler.consolidate_every) == (
        20,
        5,
        500,
    )
    off = Intelligence(summarize_every=None, reflect_after=None, consolidate_every=0).scheduler
    assert (off.summarize_every, off.reflect_after, off.consolidate_every) == (0, 0, 0)


# --------------------------------------------------------------------------- two processes


def _maintain_worker(path: str, worker: int, barrier, results) -> None:
    try:
        brain = Intelligence(summarize_every=3, reflect_after=1.0, consolidate_every=4)
        with kioko.MemoryLayer(kioko.open_store(path), intelligence=brain) as memory:
            barrier.wait(60)
            for i in range(6):
                text = (
                    f"Station {worker}{i} reported error E-217 on line 3 during shift {i}. "
                    f"Maybe the fan at station {worker}{i} is noisy today."
                )
                memory.record_turn(text, session_id="shared", **U)
            for _ in range(2):
                memory.maintain(**U)
        results.put(("ok", worker))
    except BaseException:  # noqa: BLE001 - the parent asserts on it
        results.put(("error", traceback.format_exc()))


def test_two_processes_maintaining_one_user_write_each_summary_and_theme_once(tmp_path) -> None:
    path = f"sqlite:///{tmp_path / 'two.db'}"
    with kioko.connect(path) as memory:
        memory.add("warm the store up", **U)
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_maintain_worker, args=(path, w, barrier, results)) for w in (1, 2)]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=300) for _ in processes]
    for process in processes:
        process.join(60)
    assert [kind for kind, _ in outcomes] == ["ok", "ok"], outcomes
    with kioko.connect(path) as memory:
        [summary] = _summaries(memory, "shared")
        assert summary.metadata["turns_folded"] == 12  # every turn folded once, none twice
        log = summaries.session_log(memory, KUMAR, "shared")
        assert log["turns"] == 12
        assert log["waiting"] == []
        themes = _themes(memory)
        assert themes
        assert all(len(records) == 1 for records in themes.values())
        assert {"line 3", "e-217"} <= set(themes)
        points = summary.metadata["points"]
        assert len(points) == len(set(points))
        assert [r.id for r in memory.memories(kinds={"summary"}, **U) if r.session_id == "shared"] == [summary.id]


def test_a_model_that_hangs_is_given_up_after_the_timeout(url) -> None:
    release = threading.Event()

    def hanging(prompt: str) -> str:
        release.wait(30)
        return "too late"

    try:
        brain = Intelligence(llm=hanging, timeout=0.2, summarize_every=0, reflect_after=0)
        assert brain.scheduler.ask is not None
        with kioko.connect(url) as memory:
            for text in EPISODES:
                memory.add(text, memory_type="episodic", **U)
            result = brain.scheduler.reflect(memory, **U)
            assert result["error"].startswith("TimeoutError")
            assert set(_themes(memory)) == {"line 3"}
        with pytest.raises(kioko.InvalidRecordError):
            MaintenanceScheduler(llm=hanging, timeout=0)
    finally:
        release.set()
