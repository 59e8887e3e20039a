"""A password given as words ("my password is correct horse battery staple") is a secret; talk about passwords
is not (issue 23). Both directions, several phrasings: the detector must catch the first list and none of the
second."""

from __future__ import annotations

import pytest

import kioko
from kioko_core.privacy.secrets import DropSecrets, redact

PHRASES = [
    "my password is correct horse battery staple",
    "My password is Correct Horse Battery Staple.",
    "the password is correct-horse-battery-staple, don't share it",
    "password: correct horse battery staple",
    "Our wifi password is purple elephant dancing quietly",
    "the vault passphrase is tango mirror velvet orbit canyon",
    "my login password was orange river falcon tulip and it still works",
    "pwd = granite lantern pepper hollow",
]

TALK = [
    "the password reset flow is broken",
    "I forgot my password again",
    "password policy requires 12 characters",
    "the password reset flow is broken again since the last deploy",
    "my password is too short and weak",
    "the password is stored in the vault now",
    "the password is the same as last year",
    "my password is something I never write down",
    "the password is what you set during onboarding",
    "the password was changed yesterday by the admin",
    "my password is twelve characters long with symbols",
    "the password is required for every login attempt",
    "my password is getting rejected by the portal",
    "the wifi password is on the fridge door",
    "the password is now managed through Okta SSO",
    "our password is basically useless against phishing attacks",
    "password rotation happens every ninety days for all staff",
    "the password is a random string of characters",
    "my password is being reset by IT tomorrow morning",
    "Is the password policy the same for contractors and staff?",
]


@pytest.mark.parametrize("text", PHRASES)
def test_a_password_given_as_words_is_a_secret(text: str) -> None:
    assert DropSecrets().check(text) == ["password"], text
    cleaned = redact(text)
    assert "horse" not in cleaned
    assert "[redacted: password]" in cleaned
    assert DropSecrets().check(cleaned) == []


@pytest.mark.parametrize("text", TALK)
def test_talk_about_passwords_is_not_a_secret(text: str) -> None:
    assert DropSecrets().check(text) == [], text


def test_the_passphrase_turn_is_refused_and_kept_nowhere() -> None:
    memory = kioko.intelligent("memory://")
    report = memory.record_turn("my password is correct horse battery staple", "ok", user_id="maya", session_id="c1")
    assert all(op.status == "skipped" for op in report.ops)
    kept = [r.model_dump_json(exclude={"embedding"}) for r in memory.store.scan(kioko.Scope("maya", "@sessions"))]
    assert kept
    assert not any("battery" in text for text in kept)
    with pytest.raises(kioko.SecretDropped):
        memory.add("my password is correct horse battery staple", user_id="maya")
