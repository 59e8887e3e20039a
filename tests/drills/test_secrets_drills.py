"""Secrets drill: the formats the issue's round got through are refused, in every stored text field, and
look-alikes (commit SHAs, UUIDs, prose about passwords, command lines without a password) still pass.
"""

from __future__ import annotations

import pytest
from drill_tables import LOOK_ALIKES, SECRETS
from linking_support import layer, linking_stores, make_layer, matrix_store, store, user  # noqa: F401

import kioko
from kioko_core.privacy.secrets import DropSecrets, SecretDropped, redact
from kioko_core.store import Scope
from kioko_core.store.url import StoreURL

pytestmark = pytest.mark.drill


@pytest.mark.parametrize("name", list(SECRETS))
def test_each_secret_format_is_caught(name: str) -> None:
    """Every format of the table is found, and redact() takes the secret out of the text."""
    text = SECRETS[name]
    assert DropSecrets().check(text), f"{name} got through"
    with pytest.raises(SecretDropped):
        DropSecrets().enforce(f"Notes from the deploy: {text}")


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_pass(text: str) -> None:
    """Commit SHAs, UUIDs, prose about credentials and password-less command lines are not secrets."""
    assert DropSecrets().check(text) == []


def test_redact_removes_each_secret_value() -> None:
    for name in ("curl -u", "mysql -p", "http basic header", ".env password", "url query sslpassword"):
        assert "[redacted: " in redact(SECRETS[name]), name
    assert "s3cretPass" not in redact(SECRETS["curl -u"])


SECRET = SECRETS["curl -u"]


def test_secrets_in_ids_are_refused_and_nothing_is_stored(layer, user: str) -> None:  # noqa: F811
    """session_id and agent_id are stored with the memory: a secret in either refuses the write."""
    with pytest.raises(SecretDropped):
        layer.add("Line 3 keeps faulting with error E-217.", user_id=user, session_id=SECRET)
    with pytest.raises(SecretDropped):
        layer.add("Line 3 keeps faulting with error E-217.", user_id=user, agent_id="pgpass: " + SECRETS["jwt"])
    assert list(layer.store.scan(Scope(user, None))) == []


def test_a_secret_in_a_manual_links_why_is_refused(layer, user: str) -> None:  # noqa: F811
    """The why of a manual link is stored on both memories: a secret there refuses the link."""
    first = layer.add("Line 3 keeps faulting with error E-217.", user_id=user)
    second = layer.add("The plant's PLC network uses the 10.20.0.0/16 subnet.", user_id=user)
    before = [layer.get(m.id, user_id=user).version for m in (first, second)]
    with pytest.raises(SecretDropped):
        layer.graph.link(first.id, second.id, why=f"both need {SECRETS['database url with password']}", user_id=user)
    assert [layer.get(m.id, user_id=user).version for m in (first, second)] == before


def test_a_secret_in_an_entity_triple_is_refused(layer, user: str) -> None:  # noqa: F811
    """Subject, relation, object and source of a triple are stored: a secret in any refuses the fact."""
    layer.graph.add("Kioko", "uses", "pgvector", user_id=user)
    for triple in (
        ("Kumar", "has password", "hunter2x"),
        ("deploy bot", "uses", SECRET),
        (SECRETS["github token"], "owns", "repo"),
    ):
        with pytest.raises(SecretDropped):
            layer.graph.add(*triple, user_id=user)
    with pytest.raises(SecretDropped):
        layer.graph.add("Kioko", "uses", "Qdrant", user_id=user, source=SECRETS["jwt"])
    assert layer.entities.known(user_id=user) == 1


def test_a_url_with_a_secret_query_parameter_is_masked() -> None:
    """sslpassword=, api_key= and the like never show in a StoreURL's repr or str, nor in a connect error."""
    url = StoreURL.parse("postgresql://kumar:pw9@db:5432/app?sslmode=require&sslpassword=hunter22&x_api_key=k1")
    for shown in (repr(url), str(url)):
        assert "hunter22" not in shown
        assert "pw9" not in shown
        assert "k1" not in shown
        assert "sslmode=require" in shown
    with pytest.raises(kioko.KiokoError) as raised:
        kioko.connect("postgresql://kumar:pw9@127.0.0.1:1/app?sslpassword=hunter22&connect_timeout=1")
    assert "hunter22" not in str(raised.value)
    assert "pw9" not in str(raised.value)
