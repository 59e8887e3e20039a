"""The API key file is read again when it changes: a key added while the server runs works at once, a key
removed stops working (the last one too), a file that does not parse keeps the keys in force, and a file that
is gone refuses every key."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from service_support import live_service

from kioko.api.auth import add_key


def _status(server_url: str, key: str) -> int:
    with httpx.Client(base_url=server_url, headers={"Authorization": f"Bearer {key}"}) as api:
        return api.get("/v1/memories", params={"user_id": "kumar"}).status_code


def test_the_key_file_is_read_again_when_it_changes(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.json"
    first = add_key(keys_file, name="kumar-laptop", users=["kumar"])
    with live_service("memory://", api_keys=keys_file) as (server, layer):
        assert _status(server.url, first) == 200
        second = add_key(keys_file, name="kumar-phone", users=["kumar"])  # the server is not restarted
        assert _status(server.url, second) == 200
        assert _status(server.url, first) == 200

        kept = keys_file.read_text()
        keys_file.write_text(kept[: len(kept) // 2])  # a half-written file: the keys in force stay
        assert _status(server.url, first) == 200
        assert _status(server.url, second) == 200
        keys_file.unlink()  # a key file that is gone holds no keys: nobody is let in by it
        assert _status(server.url, second) == 401
        assert _status(server.url, first) == 401

        data = json.loads(kept)
        data["keys"] = [k for k in data["keys"] if k["name"] != "kumar-laptop"]
        keys_file.write_text(json.dumps(data))
        assert _status(server.url, first) == 401
        assert _status(server.url, second) == 200
