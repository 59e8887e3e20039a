"""The secret screen remembers its answer for short texts: Kioko's own records are written again and again with
the same strings (a heat record's memory ids, a session log's waiting turns), each re-screened before.
The answer stays the screen's: a secret is refused every time, a long text is always screened afresh."""

from __future__ import annotations

import uuid

import pytest

from kioko_core.bookkeeping import Bookkeeping
from kioko_core.intelligence.heat import note_uses
from kioko_core.registry import open_store
from kioko_core.secrets import REMEMBERED_CHARS, DropSecrets, SecretDropped, _remembered_kinds
from kioko_core.store import Scope

SECRET = "db password: hunter2-Xq9!zz"


def test_a_secret_is_refused_every_time_it_is_screened() -> None:
    screen = DropSecrets()
    first = screen.check(SECRET)
    assert first == ["password"]
    first.append("changed by the caller")  # the caller's list is its own: the remembered answer is untouched
    assert screen.check(SECRET) == ["password"]
    for _ in range(2):
        with pytest.raises(SecretDropped):
            screen.enforce("ordinary words", {"note": SECRET})


def test_a_long_text_is_screened_afresh_and_answered_the_same() -> None:
    long = "word " * (REMEMBERED_CHARS // 5 + 1) + SECRET
    before = _remembered_kinds.cache_info()
    assert DropSecrets().check(long) == ["password"] == DropSecrets().check(long)
    assert _remembered_kinds.cache_info().currsize == before.currsize  # not kept


def test_writing_a_heat_record_again_screens_no_memory_id_anew() -> None:
    store = Bookkeeping(open_store("memory://"), DropSecrets())
    ids = [uuid.uuid4().hex for _ in range(256)]
    where, scope = Scope("@maintenance", None), Scope("kumar", None)
    note_uses(store, where, scope, [(i, 1000.0) for i in ids])
    first = _remembered_kinds.cache_info()
    note_uses(store, where, scope, [(ids[0], 2000.0)])  # the record is written whole again: 256 ids
    again = _remembered_kinds.cache_info()
    assert again.misses == first.misses
    assert again.hits - first.hits >= 256
