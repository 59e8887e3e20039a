"""Card numbers and passphrases given as words are refused like every other credential, and their look-alikes
(order numbers, ISBNs, phone numbers, tracking numbers, dates, Luhn-invalid ids, talk about passwords) pass
(issue 35). Both halves of tests/privacy/secrets_corpus.py; benchmarks/secrets_screen.py prints the counts."""

from __future__ import annotations

import pytest
from secrets_corpus import HELD, TUNE

import kioko
from kioko_core.privacy.secrets import DropSecrets, redact

KNOWN_FALSE_REFUSALS = {
    "a good passphrase is four or five random words": "the one-word password detector takes 'four' as the "
    "password (the clause ends at 'or'); found on the held half after tuning, left as measured",
}


def _look_alikes() -> list[object]:
    cases: list[object] = []
    for half, texts in (("tune", TUNE.look_alikes), ("held", HELD.look_alikes)):
        for text in texts:
            reason = KNOWN_FALSE_REFUSALS.get(text)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(text, id=f"{half}:{text[:30]}", marks=marks))
    return cases


@pytest.mark.parametrize("text", [*TUNE.secrets, *HELD.secrets])
def test_a_card_number_or_a_passphrase_is_refused(text: str) -> None:
    kinds = DropSecrets().check(text)
    assert kinds, text
    cleaned = redact(text)
    assert "[redacted: " in cleaned, cleaned
    assert DropSecrets().check(cleaned) == [], cleaned


@pytest.mark.parametrize("text", _look_alikes())
def test_a_look_alike_passes(text: str) -> None:
    assert DropSecrets().check(text) == [], text


def test_the_number_itself_is_what_redact_takes_out() -> None:
    text = "card 4111 1111 1111 1111 exp 12/27 cvv 123, ISBN 978-0-306-40615-7"
    assert redact(text) == "card [redacted: card_number] exp 12/27 cvv 123, ISBN 978-0-306-40615-7"
    assert DropSecrets().check("4111 1111 1111 1112") == []  # one digit off: the check digit fails
    assert DropSecrets().check("order id 4111111111111111") == []  # labelled as something else
    assert DropSecrets().check("4111 1111 1111 1111 2222") == []  # 20 digits: no card is that long


def test_a_card_or_a_passphrase_is_never_stored() -> None:
    with kioko.connect("memory://") as memory:
        for text in (
            "Pay with 4012 8888 8888 1881, exp 09/26, cvv 123",
            "note: velvet tiger orchard lamp is the passphrase",
        ):
            with pytest.raises(kioko.SecretDropped):
                memory.add(text, user_id="maya")
            with pytest.raises(kioko.SecretDropped):
                memory.add("travel notes", user_id="maya", metadata={"payment": text})
        kept = memory.add("Order 112-4567890-1234567 ships with ISBN 978-0-306-40615-7", user_id="maya")
        assert [r.id for r in memory.memories(user_id="maya")] == [kept.id]
