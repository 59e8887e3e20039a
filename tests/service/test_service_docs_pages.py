"""``/docs`` and ``/redoc`` work offline: their pages name only this server's own files, and those load."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

import kioko
from kioko.http import create_app
from kioko.http.live import LiveServer

pytest.importorskip("fastapi_offline", reason="the API pages' assets come with the service extra (fastapi-offline)")

REFERENCE = re.compile(r"""(?:src|href|url)\s*[=:(]\s*['"]?([^'"\s)>]+)""", re.IGNORECASE)
ANY_ADDRESS = re.compile(r"(?:https?:)?//[a-z0-9.-]+", re.IGNORECASE)


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
    """(the app's own address, the address of a parent app that mounts it at /kioko)."""
    layer = kioko.connect("memory://")
    parent = FastAPI()
    parent.mount("/kioko", create_app(layer))
    try:
        with LiveServer(create_app(layer)) as alone, LiveServer(parent) as mounted:
            yield alone.url, mounted.url + "/kioko"
    finally:
        layer.close()


def _references(html: str) -> list[str]:
    return [ref for ref in REFERENCE.findall(html) if not ref.startswith(("#", "data:"))]


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
@pytest.mark.parametrize("where", ["alone", "mounted"])
def test_the_api_pages_name_only_their_own_files_and_those_load(
    servers: tuple[str, str], page: str, where: str
) -> None:
    base = servers[0] if where == "alone" else servers[1]
    prefix = "" if where == "alone" else "/kioko"
    with httpx.Client(timeout=30) as client:
        answer = client.get(base + page)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/html")
        html = answer.text
        # nothing of another origin: no CDN, no web fonts, no validator badge, no remote favicon
        assert ANY_ADDRESS.findall(html) == [], ANY_ADDRESS.findall(html)
        refs = _references(html)
        scripts = [r for r in refs if r.endswith(".js")]
        assert scripts, refs
        assert all(r.startswith(prefix + "/docs-assets/") for r in scripts), refs
        openapi = f"{prefix}/v1/openapi.json"
        assert openapi in html
        origin = httpx.URL(base).copy_with(path="/", query=None)
        for ref in [*refs, openapi]:
            loaded = client.get(str(origin.join(ref)))
            assert loaded.status_code == 200, (ref, loaded.status_code)
            assert len(loaded.content) > 100, ref
        bundle = next(r for r in scripts if "swagger" in r or "redoc" in r)
        assert "javascript" in client.get(str(origin.join(bundle))).headers["content-type"]


def test_the_pages_are_not_in_the_api_document(servers: tuple[str, str]) -> None:
    spec: dict[str, Any] = httpx.get(servers[0] + "/v1/openapi.json", timeout=30).json()
    assert not [p for p in spec["paths"] if p.startswith(("/docs", "/redoc"))]
