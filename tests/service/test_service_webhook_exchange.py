"""Webhook registrations belong to their user: exported and imported with them, removed when they are forgotten;
and an import that fails while writing says what it wrote, and completes when run again."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from service_support import Receiver, live_service, receiver  # noqa: F401  (fixture)

import kioko
from kioko.api.exchange import BATCH, export_lines, import_lines
from kioko.api.webhook_records import WEBHOOK_AGENT
from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import Scope, StoreError

U = "kumar"


def _ndjson(api: httpx.Client, lines: list[str]) -> httpx.Response:
    return api.post("/v1/import", content="".join(lines).encode(), headers={"content-type": "application/x-ndjson"})


def test_a_users_webhooks_travel_with_the_export_and_go_with_forget_user(receiver: Receiver) -> None:  # noqa: F811
    with (
        live_service("memory://", webhook_hosts={"127.0.0.1"}) as (server, layer),
        httpx.Client(base_url=server.url) as api,
    ):
        hook = api.post("/v1/webhooks", json={"url": receiver.url, "user_id": U, "events": ["memory.added"]}).json()
        api.post("/v1/webhooks", json={"url": receiver.url, "user_id": "krutika"})
        api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
        dump = api.get("/v1/export", params={"user_id": U}).text.splitlines(keepends=True)
        hooks_in_dump = [json.loads(line)["record"] for line in dump if WEBHOOK_AGENT in line]
        assert [(r["id"], r["metadata"]["secret"]) for r in hooks_in_dump] == [(hook["id"], hook["secret"])]

        assert api.delete(f"/v1/users/{U}/memories").json()["deleted"] == 2  # the memory and the registration
        assert api.get("/v1/webhooks", params={"user_id": U}).json() == []
        assert list(layer.store.scan(Scope(U, WEBHOOK_AGENT))) == []
        assert len(api.get("/v1/webhooks", params={"user_id": "krutika"}).json()) == 1  # another user's stays

        assert _ndjson(api, dump).json()["written"] == len(dump) - 2
        assert [h["id"] for h in api.get("/v1/webhooks", params={"user_id": U}).json()] == [hook["id"]]
        api.post("/v1/memories", json={"content": "The encoder cable was loose.", "user_id": U})
        delivered = receiver.wait_for(2)  # krutika's hook saw nothing of kumar's; kumar's two adds arrived
        assert [json.loads(r["body"])["data"]["user_id"] for r in delivered] == [U, U]


def test_the_library_and_the_cli_forget_a_users_webhooks_too() -> None:
    with (
        kioko.connect("memory://") as layer,
        live_service("memory://", webhook_allow=["127.0.0.1"]) as (
            server,
            served,
        ),
    ):
        with httpx.Client(base_url=server.url) as api:
            api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook", "user_id": U})
            api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
            dump = api.get("/v1/export", params={"user_id": U}).text.splitlines(keepends=True)
        assert import_lines(layer, dump)["written"] == 2
        assert len(list(layer.store.scan(Scope(U, WEBHOOK_AGENT)))) == 1
        assert layer.forget_user(user_id=U) == 2
        assert list(layer.store.scan(Scope(U, WEBHOOK_AGENT))) == []


@pytest.mark.parametrize(
    "change",
    [
        {"url": "http://10.0.0.5/hook"},  # a host the server does not deliver to
        {"url": "file:///etc/passwd"},
        {"secret": "short"},
        {"events": ["memory.exploded"]},
        {"extra": "field"},
    ],
)
def test_an_imported_registration_is_checked_like_a_registration(change: dict[str, Any]) -> None:
    with (
        live_service("memory://", webhook_hosts={"127.0.0.1"}) as (server, layer),
        httpx.Client(base_url=server.url) as api,
    ):
        api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook", "user_id": U})
        api.post("/v1/memories", json={"content": "Line 3 keeps faulting.", "user_id": U})
        dump = api.get("/v1/export", params={"user_id": U}).text.splitlines(keepends=True)
        api.delete(f"/v1/users/{U}/memories")
        lines = []
        for line in dump:
            data = json.loads(line)
            if data.get("record", {}).get("agent_id") == WEBHOOK_AGENT:
                data["record"]["metadata"].update(change)
                if "url" in change:
                    data["record"]["content"] = change["url"]
            lines.append(json.dumps(data) + "\n")
        refused = _ndjson(api, lines)
        assert refused.status_code == 422, refused.text
        assert api.get("/v1/memories", params={"user_id": U}).json()["items"] == []  # nothing of the file written
        assert api.get("/v1/webhooks", params={"user_id": U}).json() == []


class FailingOnce(MemoryStore):
    """A memory store that fails its ``fail_at``-th batch write once, as a store that went away would.

    Writes are counted from :meth:`arm` on: the layer built over the store writes its store mark first."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at, self.calls = fail_at, -1

    def arm(self) -> None:
        self.calls = 0

    def update_many(self, ops: Any) -> Any:
        self._fail_on_cue()
        return super().update_many(ops)

    def update_with_links(self, ops: Any, changes: Any) -> Any:  # the batch of a layer over links kept apart
        self._fail_on_cue()
        return super().update_with_links(ops, changes)

    def _fail_on_cue(self) -> None:
        if self.calls < 0:  # not armed yet
            return
        self.calls += 1
        if self.calls == self.fail_at:
            raise StoreError("the store went away")


def test_an_import_cut_off_by_the_store_says_what_it_wrote_and_completes_when_run_again() -> None:
    with kioko.connect("memory://", auto_link=False) as source:
        source.add_many([f"Station {i} runs the line 3 conveyor." for i in range(BATCH + 50)], user_id=U)
        dump = list(export_lines(source, U))
    store = FailingOnce(fail_at=2)  # the second batch fails: the first (BATCH records) stays written
    target = MemoryLayer(store, auto_link=False)
    store.arm()
    with pytest.raises(StoreError) as failed:
        import_lines(target, dump)
    assert f"after writing {BATCH} of {BATCH + 50} records" in str(failed.value)
    assert len(list(target.memories(user_id=U))) == BATCH  # whole batches only
    assert import_lines(target, dump) == {"records": BATCH + 50, "written": 50, "unchanged": BATCH}
    assert import_lines(target, dump)["written"] == 0
