"""``GET /v1/kinds``: the kind registry's rows as the console reads them (names, routes, operations, colours),
open like ``/healthz`` because it holds no memory, and the same colours the graph page draws."""

from __future__ import annotations

from pathlib import Path

import httpx
from service_support import live_service

from kioko.api.auth import add_key
from kioko.graph_html import KIND_COLOURS
from kioko_core.kinds.registry import KINDS


def test_the_kinds_route_is_the_registry_and_agrees_with_the_graph_page(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.json"
    key = add_key(keys_file, name="ana-key", users=["ana"])
    with live_service("memory://", api_keys=keys_file) as (server, _layer):
        # no key: the kinds are the same for everyone and name no memory
        answer = httpx.get(f"{server.url}/v1/kinds")
        assert answer.status_code == 200, answer.text
        kinds = answer.json()
        # a memory route on the same server still wants its key
        refused = httpx.get(f"{server.url}/v1/memories", params={"user_id": "ana"})
        assert refused.status_code == 401
        headers = {"Authorization": f"Bearer {key}"}
        for row in kinds:
            if not row["keyed"]:  # every text kind has its routes where the row says
                listed = httpx.get(f"{server.url}{row['path']}", params={"user_id": "ana"}, headers=headers)
                assert listed.status_code == 200, (row["path"], listed.text)
    assert [row["name"] for row in kinds] == [info.name for info in KINDS]
    assert {row["name"]: row["colour"] for row in kinds} == KIND_COLOURS
    by_name = {row["name"]: row for row in kinds}
    episodes = by_name[next(info.name for info in KINDS if info.manager == "episodes")]
    assert episodes["noun"] != episodes["called"]  # link lines say "event", a person "episode"
    assert episodes["operation"] == "episode"
    assert "add" in episodes["actions"]
    assert by_name["summary"]["operation"] is None
    assert by_name["summary"]["actions"] == []
    assert by_name["strategy"]["path"] == "/v1/lessons"
    assert len({row["colour"] for row in kinds}) == len(kinds)  # no two kinds look alike
