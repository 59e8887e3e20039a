"""The secret screen remembers its answer for short texts: Kioko's own records are written again and again with
the same strings (a heat record's memory ids, a session log's waiting turns), each re-screened before.
The answer stays the screen's: a secret is refused every time, a long text is always screened afresh."""

from __future__ import annotations

import uuid

import pytest

from kioko_core.layer.bookkeeping import Bookkeeping
from kioko_core.privacy.secrets import REMEMBERED_CHARS, DropSecrets, SecretDropped, _clean_cache
from kioko_core.store import Scope
from kioko_core.store.registry import open_store
from kioko_intelligence.heat import note_uses

SECRET = "db password: hunter2-Xq9!zz"


def test_a_secret_is_refused_every_time_it_is_screened() -> None:
    screen = DropSecrets()
    first = screen.check(SECRET)
    assert first == ["password"]
    first.append("changed by the caller")  # the caller's list is its own: the remembered answer is untouched
    assert screen.check(SECRET) == ["password"]
    assert SECRET not in _clean_cache  # only clean texts are remembered: a refused secret is kept nowhere
    for _ in range(2):
        with pytest.raises(SecretDropped):
            screen.enforce("ordinary words", {"note": SECRET})


def test_a_long_text_is_screened_afresh_and_answered_the_same() -> None:
    long = "word " * (REMEMBERED_CHARS // 5 + 1) + SECRET
    before = len(_clean_cache)
    assert DropSecrets().check(long) == ["password"] == DropSecrets().check(long)
    assert len(_clean_cache) == before  # not kept


def test_writing_a_heat_record_again_screens_no_memory_id_anew() -> None:
    store = Bookkeeping(open_store("memory://"), DropSecrets())
    ids = [uuid.uuid4().hex for _ in range(256)]
    where, scope = Scope("@maintenance", None), Scope("kumar", None)
    note_uses(store, where, scope, [(i, 1000.0) for i in ids])
    first = (_clean_cache.hits, _clean_cache.misses)
    note_uses(store, where, scope, [(ids[0], 2000.0)])  # the record is written whole again: 256 ids
    again = (_clean_cache.hits, _clean_cache.misses)
    assert again[1] == first[1]
    assert again[0] - first[0] >= 256
