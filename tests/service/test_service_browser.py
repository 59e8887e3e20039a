"""What a browser may ask of the service (kioko.http.browser), over a real server on loopback: the Host it
answers to (DNS rebinding), changes from another site, body types, CORS for configured origins only, and the
console's token on a server without keys. The browser itself is in tests/console/test_console_cross_site.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from service_support import live_service

import kioko
from kioko.api.auth import add_key
from kioko.http.browser import CONSOLE_HEADER, hostname, is_loopback_name

REBOUND = "attacker.example:8765"
"""The Host a page of attacker.example sends once its name resolves to 127.0.0.1."""


def _token(base: str) -> str:
    page = httpx.get(f"{base}/ui/").text
    found = re.search(r'<meta name="kioko-console" content="([^"]+)">', page)
    assert found, page[:400]
    return found.group(1)


def test_a_rebound_host_reads_nothing_from_a_keyless_server() -> None:
    with live_service("memory://") as (server, layer):
        layer.add("Ana's private note.", user_id="ana")
        foreign = {"Host": REBOUND}
        for path in ("/v1/whoami", "/v1/export?user_id=ana", "/v1/memories?user_id=ana", "/ui/", "/docs"):
            answer = httpx.get(server.url + path, headers=foreign)
            assert answer.status_code == 400, (path, answer.text)
            assert answer.json()["error"]["type"] == "HostNotAllowed"
            assert "private" not in answer.text
        # the all-users event stream is refused before it opens
        with httpx.stream("GET", f"{server.url}/v1/events", headers=foreign, timeout=10) as stream:
            assert stream.status_code == 400
        write = httpx.post(f"{server.url}/v1/memories", json={"content": "planted", "user_id": "ana"}, headers=foreign)
        assert write.status_code == 400
        assert [m.content for m in layer.memories(user_id="ana")] == ["Ana's private note."]
        # the names of this address and loopback's answer (port or not, IPv4 or a *.localhost name)
        port = server.url.rsplit(":", 1)[1]
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"kioko.localhost:{port}", "[::1]"):
            assert httpx.get(f"{server.url}/v1/whoami", headers={"Host": host}).status_code == 200, host


def test_allowed_hosts_name_the_server_and_keys_take_any_host(tmp_path: Path) -> None:
    with live_service("memory://", allowed_hosts=["kioko.internal"]) as (server, _):
        assert httpx.get(f"{server.url}/v1/whoami", headers={"Host": "kioko.internal:8080"}).status_code == 200
        assert httpx.get(f"{server.url}/v1/whoami", headers={"Host": "KIOKO.internal"}).status_code == 200
        assert httpx.get(f"{server.url}/v1/whoami", headers={"Host": "other.internal"}).status_code == 400
    keys = tmp_path / "keys.json"
    key = add_key(keys, name="ana", users=["ana"])
    # with keys the key is the guard (a browser never adds one by itself): a proxy's name needs no listing
    with live_service("memory://", api_keys=keys) as (server, _):
        auth = {"Authorization": f"Bearer {key}", "Host": "kioko.example.com"}
        assert httpx.get(f"{server.url}/v1/whoami", headers=auth).status_code == 200
    with live_service("memory://", api_keys=keys, allowed_hosts=["kioko.example.com"]) as (server, _):
        auth = {"Authorization": f"Bearer {key}", "Host": "elsewhere.example.com"}
        assert httpx.get(f"{server.url}/v1/whoami", headers=auth).status_code == 400


@pytest.mark.parametrize(
    ("headers", "kind"),
    [
        ({"Origin": "http://127.0.0.1:9"}, "CrossSiteRefused"),
        ({"Origin": "null"}, "CrossSiteRefused"),
        ({"Origin": "https://attacker.example"}, "CrossSiteRefused"),
        ({"Sec-Fetch-Site": "same-site"}, "CrossSiteRefused"),
        ({"Sec-Fetch-Site": "cross-site"}, "CrossSiteRefused"),
        ({"Content-Type": "text/plain"}, "UnsupportedMediaType"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, "UnsupportedMediaType"),
        ({"Content-Type": "multipart/form-data; boundary=x"}, "UnsupportedMediaType"),
    ],
)
def test_a_change_from_another_site_or_in_another_type_is_refused(headers: dict[str, str], kind: str) -> None:
    with live_service("memory://") as (server, layer):
        body = json.dumps({"content": "planted instruction", "user_id": "ana"}).encode()
        sent = {"Content-Type": "application/json", **headers}
        answer = httpx.post(f"{server.url}/v1/memories", content=body, headers=sent)
        assert answer.json()["error"]["type"] == kind, answer.text
        assert answer.status_code == (415 if kind == "UnsupportedMediaType" else 403)
        assert list(layer.memories(user_id="ana")) == []


def test_import_takes_json_lines_only(tmp_path: Path) -> None:
    with live_service("memory://") as (server, layer), kioko.connect("memory://") as scratch:
        scratch.add("Imported note.", user_id="ana")
        export = "".join(scratch.export_lines("ana")).encode()
        for kind in ("text/plain", "application/x-www-form-urlencoded", None):
            headers = {"Content-Type": kind} if kind else {}
            answer = httpx.post(f"{server.url}/v1/import", content=export, headers=headers)
            assert answer.status_code == 415, (kind, answer.text)
        assert list(layer.memories(user_id="ana")) == []
        for kind in ("application/x-ndjson", "application/json"):
            answer = httpx.post(f"{server.url}/v1/import", content=export, headers={"Content-Type": kind})
            assert answer.status_code == 200, answer.text
        assert [m.content for m in layer.memories(user_id="ana")] == ["Imported note."]


def test_a_keyless_server_serves_a_browser_only_with_its_console_token() -> None:
    with live_service("memory://") as (server, layer):
        token = _token(server.url)
        same_origin = {"Sec-Fetch-Site": "same-origin", "Origin": server.url}
        write = {"content": "from the console", "user_id": "ana"}
        # a browser's request (it says where it comes from) without the token, reads and writes alike
        assert httpx.get(f"{server.url}/v1/whoami", headers={"Sec-Fetch-Site": "same-origin"}).status_code == 403
        assert httpx.post(f"{server.url}/v1/memories", json=write, headers=same_origin).status_code == 403
        wrong = {**same_origin, CONSOLE_HEADER: token[:-2] + "xx"}
        assert httpx.post(f"{server.url}/v1/memories", json=write, headers=wrong).status_code == 403
        assert list(layer.memories(user_id="ana")) == []
        given = {**same_origin, CONSOLE_HEADER: token}
        assert httpx.post(f"{server.url}/v1/memories", json=write, headers=given).status_code == 201
        # the token opens no door to another site
        elsewhere = {"Origin": "http://127.0.0.1:9", "Sec-Fetch-Site": "same-site", CONSOLE_HEADER: token}
        assert httpx.post(f"{server.url}/v1/memories", json=write, headers=elsewhere).status_code == 403
        # a typed address (Sec-Fetch-Site: none), the API's schema and a client that is not a browser need none
        assert httpx.get(f"{server.url}/v1/whoami", headers={"Sec-Fetch-Site": "none"}).status_code == 200
        assert httpx.get(f"{server.url}/v1/openapi.json", headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
        assert httpx.get(f"{server.url}/v1/whoami").status_code == 200
        # the API page's "Try it out" sends it too
        assert token in httpx.get(f"{server.url}/docs").text
        # each server has its own
        with live_service("memory://") as (other, _):
            assert _token(other.url) != token


def test_cors_headers_only_for_configured_origins() -> None:
    app_origin = "https://app.example.com"
    with live_service("memory://", cors_origins=[app_origin]) as (server, layer):
        preflight = httpx.options(
            f"{server.url}/v1/memories",
            headers={
                "Origin": app_origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == app_origin
        write = httpx.post(
            f"{server.url}/v1/memories",
            json={"content": "from the app", "user_id": "ana"},
            headers={"Origin": app_origin, "Sec-Fetch-Site": "cross-site"},
        )
        assert write.status_code == 201
        assert write.headers["access-control-allow-origin"] == app_origin
        other = httpx.post(
            f"{server.url}/v1/memories",
            json={"content": "from elsewhere", "user_id": "ana"},
            headers={"Origin": "https://attacker.example"},
        )
        assert other.status_code == 403
        assert "access-control-allow-origin" not in other.headers
        assert [m.content for m in layer.memories(user_id="ana")] == ["from the app"]
    with live_service("memory://") as (server, _):
        answer = httpx.get(f"{server.url}/v1/whoami", headers={"Origin": "https://app.example.com"})
        assert not [h for h in answer.headers if h.startswith("access-control-")]


def test_host_names_are_read_strictly() -> None:
    assert hostname("LocalHost:8765") == "localhost"
    assert hostname("[::1]:80") == "::1"
    assert hostname("kioko.internal.") == "kioko.internal"
    for bad in ("", "a b", "evil.example@127.0.0.1", "127.0.0.1:port", "[::1", "x/y"):
        assert hostname(bad) is None, bad
    assert is_loopback_name("127.8.0.1")
    assert is_loopback_name("app.localhost")
    assert not is_loopback_name("localhost.attacker.example")
    assert not is_loopback_name("10.0.0.1")
