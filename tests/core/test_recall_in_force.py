"""A question that finds only a replaced memory is answered by the memory in force in its place (#33).

"Who is Hannah?" shares its one word with "User's girlfriend is Hannah.", which "She's my fiancee now."
replaced: the context shows the newer memory, never the old one as current. Real layers on memory:// and
SQLite files; the replacements are written as the supersede rules write them (``superseded_by``, or
``conflicted_by`` with a ``was`` note on the newer memory).
"""

from __future__ import annotations

import pytest

import kioko
from kioko_core.recall.sections import REPLACED_HOPS, answers, in_force
from kioko_core.store import Record

U = {"user_id": "wen"}


@pytest.fixture(params=["memory", "sqlite"])
def layer(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'in_force.db'}"
    with kioko.connect(url) as opened:
        yield opened


def _replace(layer, old: Record, new_text: str, *, unsure: bool = False) -> Record:
    if unsure:
        new = layer.add(new_text, metadata={"was": old.content}, **U)
        layer.update(old.id, metadata={"conflicted_by": new.id}, **U)
    else:
        new = layer.add(new_text, **U)
        layer.update(old.id, metadata={"superseded_by": new.id}, **U)
    return new


def test_a_superseded_memory_the_question_finds_hands_its_place_to_the_newer(layer) -> None:
    old = layer.add("My browser is Firefox.", **U)
    _replace(layer, old, "Switched to Brave last week.")
    layer.add("The office wifi is slow on Mondays.", **U)
    ctx = layer.recall("Which browser do I use?", **U)
    assert "Switched to Brave last week." in ctx.text
    assert "Firefox" not in ctx.text
    assert [m.record.content for m in ctx.memories] == ["Switched to Brave last week."]


def test_an_unsure_replacement_is_shown_with_its_was_note(layer) -> None:
    old = layer.add("User's girlfriend is Hannah.", **U)
    _replace(layer, old, "She's my fiancee now.", unsure=True)
    ctx = layer.recall("Who is Hannah?", **U)
    assert "- She's my fiancee now (was: User's girlfriend is Hannah)." in ctx.text


def test_a_chain_of_replacements_ends_at_the_memory_in_force(layer) -> None:
    first = layer.add("The release is on March 3.", **U)
    second = _replace(layer, first, "Release slipped to March 10.")
    third = _replace(layer, second, "Now it is April 2, after the audit.")
    ctx = layer.recall("When is the release?", **U)
    assert third.content in ctx.text
    assert "March 3" not in ctx.text
    assert "March 10" not in ctx.text


def test_a_replacement_of_another_part_of_the_memory_is_not_brought(layer) -> None:
    # the newer memory replaced the car; the question asks where the user lives
    old = layer.add("User drives a Golf and lives in Bristol.", **U)
    _replace(layer, old, "Sold the Golf, got a Tesla.")
    ctx = layer.recall("Where does the user live?", **U)
    assert "Tesla" not in ctx.text
    assert ctx.memories == []


def _record(id: str, text: str, terms: list[str], **metadata: str) -> Record:
    return Record(id=id, user_id="wen", kind="factual", content=text, terms=terms, metadata=metadata)


def test_answers_compares_the_question_words_with_the_part_replaced() -> None:
    old = _record("a", "User drives a Golf and lives in Bristol.", ["t:drive", "t:golf", "t:live", "t:bristol"])
    new = _record("b", "Sold the Golf, got a Tesla.", ["t:sold", "t:golf", "t:tesla"])
    assert answers(old, new, {"t:golf"})
    assert not answers(old, new, {"t:live"})
    # sharing no word, the newer memory replaced all of it
    assert answers(old, _record("c", "We moved to Cardiff.", ["t:move", "t:cardiff"]), {"t:live"})
    # one statement (no "and"): a newer one sharing words replaced all of it
    theme = _record("d", "Dark mode ftw, light themes burn my eyes.", ["t:dark", "t:mode", "t:light", "t:theme"])
    assert answers(theme, _record("e", "Light mode is growing on me.", ["t:light", "t:mode", "t:grow"]), {"t:theme"})
    # the question's words are held by a memory in force it found too: nothing to bring
    panda = _record("f", "We have a red Fiat Panda.", ["t:red", "t:fiat", "t:panda", "t:car"])
    assert not answers(panda, _record("g", "The Panda's gone.", ["t:panda"]), {"t:car"}, {"t:car"})
    assert answers(panda, _record("g", "The Panda's gone.", ["t:panda"]), {"t:car"}, set())


def test_a_memory_in_force_that_answers_the_question_keeps_the_replacement_out(layer) -> None:
    old = layer.add("We have a red Fiat Panda.", **U)
    _replace(layer, old, "The Panda has gone to the scrapyard.")
    layer.add("Our car is a grey Skoda Octavia now.", **U)
    ctx = layer.recall("What car do we have?", **U)
    assert "Skoda Octavia" in ctx.text
    assert "scrapyard" not in ctx.text


def test_in_force_stops_at_a_loop_a_missing_record_and_the_hop_limit() -> None:
    records = {str(i): _record(str(i), f"value {i}", [f"t:v{i}"], superseded_by=str(i + 1)) for i in range(10)}
    records["loop"] = _record("loop", "a", ["t:a"], superseded_by="loop2")
    records["loop2"] = _record("loop2", "b", ["t:b"], superseded_by="loop")
    records["gone"] = _record("gone", "c", ["t:c"], superseded_by="nowhere")
    records[str(REPLACED_HOPS)] = _record(str(REPLACED_HOPS), "in force", ["t:now"])
    reads: list[list[str]] = []

    def fetch(ids: list[str]) -> dict[str, Record]:
        reads.append(ids)
        return {i: records[i] for i in ids if i in records}

    found = in_force([records["0"], records["loop"], records["gone"]], fetch, set())
    assert {old: new.id for old, new in found.items()} == {"0": str(REPLACED_HOPS)}
    assert len(reads) <= REPLACED_HOPS
    # one hop short of the limit: nothing in force is reached within it
    records[str(REPLACED_HOPS)] = _record(str(REPLACED_HOPS), "again", ["t:x"], superseded_by="99")
    assert in_force([records["0"]], fetch, set()) == {}
