"""What the console needs from the public API, over a real server on loopback: the console's files at /ui with
their security headers, ``GET /v1/whoami``, a link's ``weight_now``, ``remaining`` from a limited connect(),
and the intelligence's counts for an admin only."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from service_support import live_service

import kioko
from kioko.api.auth import add_key
from kioko.console import STATIC
from kioko.http import create_app
from kioko.http.live import LiveServer
from kioko_core.store import Upsert

U = "ana"


def test_the_console_is_served_at_ui_with_its_headers(tmp_path: Path) -> None:
    with live_service(f"sqlite:///{tmp_path / 'k.db'}") as (server, _):
        page = httpx.get(f"{server.url}/ui/")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        # the page as shipped, with this server's console token filled in (kioko.http.browser)
        token = server.app.state.console_token
        assert len(token) >= 40
        assert page.text.count(token) == 1
        assert page.text.replace(token, "") == (STATIC / "index.html").read_text(encoding="utf-8")
        policy = page.headers["content-security-policy"]
        assert "default-src 'self'" in policy
        assert "connect-src 'self'" in policy
        assert "script-src 'self'" in policy
        assert page.headers["referrer-policy"] == "no-referrer"
        moved = httpx.get(f"{server.url}/ui", follow_redirects=False)
        assert moved.status_code == 307
        assert moved.headers["location"] == "/ui/"
        script = httpx.get(f"{server.url}/ui/vendor/cytoscape/cytoscape.esm.min.js")
        assert script.status_code == 200
        assert "javascript" in script.headers["content-type"]
        assert httpx.get(f"{server.url}/ui/vendor/cytoscape/LICENSE").status_code == 200
        for module in sorted((STATIC / "js").glob("*.js")):
            answer = httpx.get(f"{server.url}/ui/js/{module.name}")
            assert answer.status_code == 200, module.name
            assert "javascript" in answer.headers["content-type"], module.name
        assert httpx.get(f"{server.url}/ui/../pyproject.toml").status_code == 404
        # the console's routes are not part of the API's schema
        assert not [p for p in httpx.get(f"{server.url}/v1/openapi.json").json()["paths"] if p.startswith("/ui")]


def test_the_console_can_be_left_out(tmp_path: Path) -> None:
    with (
        kioko.connect(f"sqlite:///{tmp_path / 'k.db'}") as layer,
        LiveServer(create_app(layer, console=False)) as server,
    ):
        assert httpx.get(f"{server.url}/ui/").status_code == 404


def test_whoami_names_the_key_and_its_users(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    tenant = add_key(keys, name="tenant", users=["ana", "bo"])
    admin = add_key(keys, name="ops", admin=True)
    with live_service(f"sqlite:///{tmp_path / 'k.db'}", api_keys=keys) as (server, _):
        me = httpx.get(f"{server.url}/v1/whoami", headers={"Authorization": f"Bearer {tenant}"}).json()
        assert me == {"name": "tenant", "admin": False, "users": ["ana", "bo"], "agents": None}
        boss = httpx.get(f"{server.url}/v1/whoami", headers={"X-API-Key": admin}).json()
        assert boss == {"name": "ops", "admin": True, "users": None, "agents": None}
        nobody = httpx.get(f"{server.url}/v1/whoami")
        assert nobody.status_code == 401
        assert tenant not in nobody.text
    with live_service(f"sqlite:///{tmp_path / 'open.db'}") as (server, _):
        assert httpx.get(f"{server.url}/v1/whoami").json()["admin"] is True


def test_links_carry_their_faded_weight(tmp_path: Path) -> None:
    with live_service(f"sqlite:///{tmp_path / 'k.db'}") as (server, layer):
        year_ago = time.time() - 365 * 86400
        a = layer.add("Line 3 keeps faulting with error E-217.", user_id=U, memory_type="episodic", session_id="s1")
        b = layer.add(
            "Found it: the encoder cable on line 3 was loose.", user_id=U, memory_type="episodic", session_id="s1"
        )
        manual = layer.add("The line 3 encoder is a Sick DFS60.", user_id=U)
        layer.graph.link(manual.id, a.id, "related_to", 0.8, user_id=U)
        links = httpx.get(f"{server.url}/v1/memories/{a.id}/links", params={"user_id": U}).json()
        by_other = {k["source"] if k["target"] == a.id else k["target"]: k for k in links}
        auto = by_other[b.id]
        assert auto["by"] == "auto"
        assert auto["weight_now"] == pytest.approx(auto["weight"], abs=1e-3)
        assert by_other[manual.id]["weight_now"] == 0.8
        # a link last seen a year ago has faded by half a year's half-lives (180 days by default)
        stale = layer.get(a.id, user_id=U)
        for entry in (stale.system or {})["links"]:
            if entry["id"] == b.id:
                entry["seen"] = year_ago
        layer.store.update_many([Upsert(record=stale, expected_version=stale.version)])
        faded = {
            k["target"] if k["source"] == a.id else k["source"]: k
            for k in httpx.get(f"{server.url}/v1/memories/{a.id}/links", params={"user_id": U}).json()
        }[b.id]
        assert faded["weight_now"] == pytest.approx(faded["weight"] * 0.5 ** (365 / 180), abs=2e-3)


def test_a_limited_connect_says_how_many_remain(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.db'}"
    with kioko.connect(url, auto_link=False) as layer:
        for n in range(7):
            layer.add(f"Pump {n} on line 3 was serviced after the pressure alarm.", user_id=U, memory_type="episodic")
    with live_service(url) as (server, _):
        seen = []
        while True:
            report = httpx.post(f"{server.url}/v1/graph/connect", json={"user_id": U, "limit": 3}).json()
            seen.append((report["memories"], report["remaining"]))
            if not report["remaining"]:
                break
        assert seen == [(3, 4), (3, 1), (1, 0)]
        assert httpx.post(f"{server.url}/v1/graph/connect", json={"user_id": U}).json()["remaining"] == 0


def test_intelligence_counts_are_for_an_admin_only(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    tenant = add_key(keys, name="tenant", users=[U])
    admin = add_key(keys, name="ops", admin=True)
    with (
        kioko.intelligent(f"sqlite:///{tmp_path / 'k.db'}") as layer,
        LiveServer(create_app(layer, api_keys=keys)) as server,
    ):
        said = {"text": "We decided to use pgvector because we already run Postgres.", "user_id": U}
        assert httpx.post(f"{server.url}/v1/manage", json=said, headers={"X-API-Key": tenant}).status_code == 200
        mine = httpx.get(f"{server.url}/v1/intelligence", headers={"X-API-Key": tenant}).json()
        assert mine["enabled"] is True
        assert mine["stats"] is None
        everyone = httpx.get(f"{server.url}/v1/intelligence", headers={"X-API-Key": admin}).json()
        assert everyone["stats"]["turns"] == 1
        assert everyone["stats"]["operations"] >= 1
