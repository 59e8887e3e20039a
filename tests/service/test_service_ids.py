"""Ids and bounds, in the library and over a real server: one id alphabet (no '/', so every id is reachable by
id), an id taken in another user's scope answered like a missing one (404: its existence is not confirmed),
``created_at`` bounded to years 1-9999 and finite, and ``created_after=nan`` refused."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from service_support import live_service

import kioko
from kioko.api.auth import add_key
from kioko_core.errors import IdTaken, IdUnavailable, InvalidRecordError
from kioko_core.layer.values import EARLIEST, LATEST

BAD_IDS = ["a/b", "../x", "a b", "a?b", "a#b", "a%2Fb", "", "x" * 201, "ключ", "a\nb"]
GOOD_IDS = ["note-1", "user:42", "a.b_c", "x" * 200, "team@site", "v1+2=3~"]


def test_the_library_takes_only_ids_of_the_alphabet() -> None:
    with kioko.connect("memory://", auto_link=False) as memory:
        for bad in BAD_IDS:
            with pytest.raises(InvalidRecordError, match="1-200 characters"):
                memory.add("a note", user_id="ana", id=bad)
            with pytest.raises(InvalidRecordError, match="item 0: id"):
                memory.add_many([{"content": "a note", "id": bad}], user_id="ana")
        for good in GOOD_IDS:
            assert memory.get(memory.add(f"note {good}", user_id="ana", id=good).id, user_id="ana").id == good
        for when in (1e308, -1e12, LATEST + 1, EARLIEST - 1):
            with pytest.raises(InvalidRecordError, match="year 1 and year 9999"):
                memory.add("an event", user_id="ana", created_at=when)
        assert memory.add("the first day", user_id="ana", created_at=EARLIEST).created_at == EARLIEST
        # an id another user's memory has: a typed error that says nothing of where
        with pytest.raises(IdUnavailable) as taken:
            memory.add("bo's try", user_id="bo", id="note-1")
        assert isinstance(taken.value, IdTaken)
        assert "scope" not in str(taken.value)


def test_over_http_ids_and_bounds_are_4xx_and_another_users_id_is_not_confirmed(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    ana = add_key(keys, name="ana", users=["ana"])
    bo = add_key(keys, name="bo", users=["bo"])
    with live_service("memory://", api_keys=keys) as (server, _):
        as_ana = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {ana}"})
        as_bo = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {bo}"})
        with as_ana, as_bo:
            assert as_ana.post("/v1/memories", json={"content": "Ana's note", "id": "shared-name"}).status_code == 201
            for bad in ("a/b", "a b", "x" * 201):
                answer = as_ana.post("/v1/memories", json={"content": "x", "id": bad})
                assert answer.status_code == 422, answer.text
            # bo tries ana's id: answered as a missing memory is, with nothing about another scope
            taken = as_bo.post("/v1/memories", json={"content": "Bo's note", "id": "shared-name"})
            missing = as_bo.get("/v1/memories/no-such-id")
            assert taken.status_code == missing.status_code == 404, taken.text
            assert "scope" not in taken.text
            assert "ana" not in taken.text.lower()
            for when in (1e308, -1e12):
                answer = as_ana.post("/v1/memories", json={"content": "an event", "created_at": when})
                assert answer.status_code == 422, answer.text
            for bound in ("nan", "inf", "-inf"):
                answer = as_ana.get("/v1/memories", params={"created_after": bound})
                assert answer.status_code == 422, (bound, answer.text)


def test_an_import_error_names_the_field_without_pydantics_urls() -> None:
    header = '{"format": "kioko-export", "version": 1, "user_id": "ana", "agent_ids": []}'
    bad = [
        ('{"id": 5, "user_id": "ana", "kind": "factual", "content": "x"}', "id: "),
        ('{"id": "n1", "user_id": "ana", "kind": "factual", "content": "x", "created_at": "soon"}', "created_at: "),
    ]
    with live_service("memory://") as (server, _):
        for record, field in bad:
            body = f'{header}\n{{"record": {record}}}\n'.encode()
            answer = httpx.post(
                f"{server.url}/v1/import", content=body, headers={"Content-Type": "application/x-ndjson"}
            )
            assert answer.status_code == 422, answer.text
            message = answer.json()["error"]["message"]
            assert field in message, message
            assert "http" not in message, message
            assert "pydantic" not in message, message
