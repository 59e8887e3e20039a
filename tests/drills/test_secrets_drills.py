"""Secrets drill: the formats the issue's round got through are refused, in every stored text field, and
look-alikes (commit SHAs, UUIDs, prose about passwords, command lines without a password) still pass.
"""

from __future__ import annotations

import pytest

import kioko
from kioko_core.secrets import DropSecrets, SecretDropped, redact
from kioko_core.store import Scope
from kioko_core.url import StoreURL

from linking_support import layer, linking_stores, make_layer, matrix_store, store, user  # noqa: F401

pytestmark = pytest.mark.drill

SECRETS = {
    "azure storage connection string": "DefaultEndpointsProtocol=https;AccountName=kiokodata;AccountKey="
                                       "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;"
                                       "EndpointSuffix=core.windows.net",
    "azure shared access signature": "https://kioko.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig="
                                     "Q2hhbmdlTWVQbGVhc2VJdHNBVGVzdFNpZ25hdHVyZQ%3D%3D",
    "http basic header": "Authorization: Basic a3VtYXI6aHVudGVyMg==",
    "curl -u": "curl -u kumar:s3cretPass https://api.example.com/v1/items",
    "mysql -p": "mysql -h db -u root -pS3cr3tPw app",
    "sshpass": "sshpass -p 'Summer2024' ssh root@bastion",
    "passphrase as words": "my passphrase is correct horse battery staple",
    "aws access key id": "the deploy user is AKIAIOSFODNN7EXAMPLE",
    "aws secret key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "google api key": "maps key AIzaSyD-1234567890abcdefghijklmnopqrstu",
    "google oauth token": "ya29.a0AfH6SMBx3kioko_access_token_value_123",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJrdW1hciJ9.c2lnbmF0dXJlX29mX3RoZV90b2tlbg",
    "database url with password": "postgresql://kumar:Tr0ub4dor@db.internal:5432/kioko",
    "url query sslpassword": "postgresql://db.internal/app?sslmode=verify-full&sslpassword=hunter22",
    "ado.net connection string": "Server=db;Database=app;User Id=sa;Password=Hunter2!x;",
    ".env password": "DB_PASSWORD=Tr0ub4dor&3",
    ".env api key": "export OPENAI_API_KEY=sk-proj-abcdEFGH1234ijklMNOP5678",
    "shell PGPASSWORD": "PGPASSWORD=hunter2x psql -h db -U kumar",
    "github token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "slack token": "xoxb-1234567890-abcdefghijKLMN",
    "stripe live key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "digitalocean token": "dop_v1_" + "a" * 32 + "0123456789abcdef" * 2,
    "telegram bot token": "123456789:AA" + "Hd0k1oko_bot_token-ABCDEFGHIJKLMN",
    "private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "password in prose": "my password is hunter2",
}

LOOK_ALIKES = [
    "Fixed in commit 3f2a9c1e0b7d4a6f8e9c2b1a0d3e5f7a9b8c6d4e on main.",
    "Short sha 9fceb02 broke the build.",
    "Request 123e4567-e89b-12d3-a456-426614174000 timed out.",
    "the password reset flow is broken",
    "The password is required and must be 12+ characters.",
    "Line 3 keeps faulting with error E-217.",
    "The plant's PLC network uses the 10.20.0.0/16 subnet.",
    "The API key is in the team vault.",
    "Set DB_PASSWORD in the environment before deploying.",
    "curl -u $USER:$API_TOKEN https://api.example.com",
    "mysql -p prompts for the password",
    "mysql -h db -P 3306 -u app -p",
    "docker run -p 8080:80 nginx",
    "ssh -p 2222 kumar@bastion",
    "Basic authentication is deprecated; use OAuth.",
    "The Basic plan costs 10 dollars.",
    "postgresql://kumar@db:5432/app has no password in it",
    "export API_KEY=${API_KEY}",
    "TOKEN_TTL=3600",
    "PWD=/home/kumar/projects",
    "COMPASS_MODE=north",
    "the passphrase must be at least four words long",
    "my passphrase is stored in the vault",
    "the passphrase is four random dictionary words",
    "JWTs expire after 15 minutes; eyJ is only the header's prefix.",
    "AccountName=kiokodata;EndpointSuffix=core.windows.net",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "arn:aws:iam::123456789012:role/KiokoAdmin",
    "sk-learn-pipeline is a library",
    "https://example.com/search?q=token+limits&page=2",
    "git clone https://github.com/kioko/kioko.git",
    "Rotate the signing key every 90 days.",
]


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
        assert "[REDACTED]" in redact(SECRETS[name]), name
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
        layer.graph.link(first.id, second.id, why=f"both need {SECRETS['database url with password']}",
                         user_id=user)
    assert [layer.get(m.id, user_id=user).version for m in (first, second)] == before


def test_a_secret_in_an_entity_triple_is_refused(layer, user: str) -> None:  # noqa: F811
    """Subject, relation, object and source of a triple are stored: a secret in any refuses the fact."""
    layer.graph.add("Kioko", "uses", "pgvector", user_id=user)
    for triple in (("Kumar", "has password", "hunter2x"), ("deploy bot", "uses", SECRET),
                   (SECRETS["github token"], "owns", "repo")):
        with pytest.raises(SecretDropped):
            layer.graph.add(*triple, user_id=user)
    with pytest.raises(SecretDropped):
        layer.graph.add("Kioko", "uses", "Qdrant", user_id=user, source=SECRETS["jwt"])
    assert layer.entities.known(user_id=user) == 1


def test_a_url_with_a_secret_query_parameter_is_masked() -> None:
    """sslpassword=, api_key= and the like never show in a StoreURL's repr or str, nor in a connect error."""
    url = StoreURL.parse("postgresql://kumar:pw9@db:5432/app?sslmode=require&sslpassword=hunter22&x_api_key=k1")
    for shown in (repr(url), str(url)):
        assert "hunter22" not in shown and "pw9" not in shown and "k1" not in shown
        assert "sslmode=require" in shown
    with pytest.raises(kioko.KiokoError) as raised:
        kioko.connect("postgresql://kumar:pw9@127.0.0.1:1/app?sslpassword=hunter22&connect_timeout=1")
    assert "hunter22" not in str(raised.value) and "pw9" not in str(raised.value)
