"""The literal screen in front of DropSecrets' detectors is sound: it never skips a detector that would match.

DropSecrets runs a detector only on texts that contain one of the literals every match of that detector
must contain (read from the compiled pattern by ``kioko_core.reading.regex_literals``). A wrong literal would let
a credential through, so: the literals are checked against every match of every detector on texts
generated from the detector's own pattern; every positive example in the tests is still caught, alone
and at the end of a ~1 MB text; the screened scan answers exactly what running every detector answers;
and the case folding used for case-insensitive detectors covers every character ``re`` folds to ASCII.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.privacy.secret_detectors import DETECTORS, kind_of
from kioko_core.privacy.secrets import ANCHORED_FROM, DropSecrets, SecretDropped, _screens, redact
from kioko_core.reading.regex_literals import anchor, anchored_finditer, casefold, required_literals
from kioko_core.store import Scope

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "drills"))
from drill_tables import SECRETS as DRILL_SECRETS  # noqa: E402
from secrets_support import SECRETS  # noqa: E402

EXAMPLES = [text for text, _kind_name, _secret in SECRETS] + list(DRILL_SECRETS.values())


def unscreened(text: str) -> list[str]:
    """What DropSecrets.check answered before the screen: every detector run on the whole text."""
    found: list[str] = []
    for detector in DETECTORS:
        for match in detector.matches(text):
            kind = kind_of(detector, match)
            if kind not in found:
                found.append(kind)
    return found


def holds_literal(index: int, text: str) -> bool:
    """The screen lets detector ``index`` run on ``text``."""
    screen = _screens()[index]
    if screen.needs is None:
        return True
    haystack = casefold(text) if screen.ignorecase else text
    return any(literal in haystack for literal in screen.needs)


# --------------------------------------------------------------------------- the literals themselves


def test_most_detectors_have_literals() -> None:
    """The screen only pays if it applies: all but the catch-all detectors have literals."""
    without = [detector.pattern.pattern[:40] for detector, screen in zip(DETECTORS, _screens()) if screen.needs is None]
    assert without == [], without


@pytest.mark.parametrize(
    "pattern, expected",
    [
        (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", {"AKIA", "ASIA"}),
        (r"\bgh[pousr]_[A-Za-z0-9]{20,}", {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}),
        (r"colou?r", {"color", "colour"}),
        (r"a*b+cd", {"cd"}),
        (r"(?:x|.)yz", {"yz"}),
        (r"\w+@\w+", {"@"}),
        (r"(?<![\w-])sk-(?P<secret>[A-Za-z0-9_-]{16,})", {"sk-"}),
        (r"(?:pin(?:\s+code)?|passcode)\s*=", {"pin", "passcode"}),
    ],
)
def test_literals_read_from_patterns(pattern: str, expected: set[str]) -> None:
    assert required_literals(re.compile(pattern)) == expected


@pytest.mark.parametrize(
    "pattern", [r".*", r"\w+", r"(?:abc)?\d", r"a|\d", r"(?i:token)\d", r"[^x]y?", r"(\w)\1", r"x{0,3}"]
)
def test_no_literal_when_a_match_needs_none(pattern: str) -> None:
    """An optional part, an alternative without a literal, or a flag inside a group: no literal, always run."""
    assert required_literals(re.compile(pattern)) is None


def test_case_insensitive_literals_are_lower_case() -> None:
    assert required_literals(re.compile(r"\bBearer\s+\w+", re.IGNORECASE)) == {"bearer"}
    assert required_literals(re.compile(r"\bBearer\s+\w+")) == {"Bearer"}


def test_casefolding_covers_every_character_re_matches_to_an_ascii_letter() -> None:
    """re.IGNORECASE matches a few non-ASCII characters to ASCII letters ("ſ" to "s"); casefolded() must
    turn each into that letter, or a case-insensitive detector's literal would be missed. Every code point."""
    everything = "".join(chr(code) for code in range(0x80, 0x110000) if not 0xD800 <= code <= 0xDFFF)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for match in re.finditer(letter, everything, re.IGNORECASE):
            assert casefold(match.group()) == letter, (hex(ord(match.group())), letter)
    assert casefold("PA\u017f\u017fWORD") == "password"
    assert DropSecrets().check("my pa\u017f\u017fword is Tr0ub4dor&3") == ["password"]
    assert DropSecrets().check("api_\u212aey = 3f9a2b7c4d5e6f708192a3b4c5d6e7f8") == ["api_key"]


# --------------------------------------------------------------------------- soundness on generated matches


def _around(detector_index: int) -> st.SearchStrategy[str]:
    """A text with a match of the detector's pattern somewhere in it, amid random and ordinary text."""
    pattern = DETECTORS[detector_index].pattern
    filler = st.text(alphabet=st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
        ["", " ", "the token was rotated ", "\n", "Line 3 keeps faulting. "]
    )
    return st.tuples(filler, st.from_regex(pattern, fullmatch=True), filler).map("".join)


@pytest.mark.parametrize("index", range(len(DETECTORS)), ids=[f"{i}-{d.kind}" for i, d in enumerate(DETECTORS)])
# health checks judge how fast and how large generation is (AKCp needs 60+ characters), not the property
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_match_of_a_detector_contains_one_of_its_literals(index: int, data: st.DataObject) -> None:
    """On texts generated from the detector's own pattern, every match the pattern finds holds a literal,
    and the screened check answers what running every detector answers."""
    text = data.draw(_around(index))
    for match in DETECTORS[index].pattern.finditer(text):
        assert holds_literal(index, match.group()), (match.group(), _screens()[index].needs)
        assert holds_literal(index, text)
    assert DropSecrets().check(text) == unscreened(text)


# --------------------------------------------------------------------------- searching from the anchors

ANCHORED = [index for index, screen in enumerate(_screens()) if screen.starts is not None]


def test_most_detectors_have_anchors() -> None:
    """Where matches start is read for all but a few detectors (those with a character category before
    their literal run the plain search, which is as right, only slower)."""
    assert len(ANCHORED) >= len(DETECTORS) - 3


@pytest.mark.parametrize(
    "pattern, literals, lead",
    [
        (r"\bpin\s*=", {"pin"}, ""),
        (r"\b(?:[a-c]+_)*token", {"token"}, "_abc"),
        (r"(?<!\w)(?:sk|rk)_live_\w+", {"sk_live_", "rk_live_"}, ""),
        (r"\bkey(?:s|_id)?\b", {"key"}, ""),
        (r"(?:x-)?TOKEN=", {"TOKEN=", "x-TOKEN="}, ""),
    ],
)
def test_anchors_read_from_patterns(pattern: str, literals: set[str], lead: str) -> None:
    found = anchor(re.compile(pattern))
    assert found is not None
    assert found.literals == literals
    assert "".join(sorted(found.lead)) == lead


@pytest.mark.parametrize("pattern", [r"\w+@x", r".*token", r"(?:\d+:)?AA", r"\b[^a]token"])
def test_no_anchor_when_what_comes_first_is_unbounded(pattern: str) -> None:
    assert anchor(re.compile(pattern)) is None


def _ascii_around(index: int) -> st.SearchStrategy[str]:
    """ASCII text with several matches of the detector's pattern in it (the anchored search needs text whose
    case-folded form is as long as itself, which ASCII always is)."""
    ascii_text = st.characters(codec="ascii")
    piece = st.from_regex(DETECTORS[index].pattern, fullmatch=True, alphabet=ascii_text) | st.sampled_from(
        ["", " ", "the token was rotated ", "\n", "api_key", "my password is ", "pin: ", "x", "-", "__"]
    )
    return st.lists(piece | st.text(alphabet=ascii_text, max_size=6), min_size=1, max_size=8).map("".join)


@pytest.mark.parametrize("index", ANCHORED, ids=[f"{i}-{DETECTORS[i].kind}" for i in ANCHORED])
# as above: generated texts may be slow or large to make, which says nothing about the search
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_anchored_search_finds_what_finditer_finds(index: int, data: st.DataObject) -> None:
    """Trying a detector only where a match can start gives the very matches of re's own search."""
    text = data.draw(_ascii_around(index))
    pattern, screen = DETECTORS[index].pattern, _screens()[index]
    assert screen.starts is not None
    folded = casefold(text) if screen.ignorecase else text
    expected = [(m.span(), m.groupdict()) for m in pattern.finditer(text)]
    assert [(m.span(), m.groupdict()) for m in anchored_finditer(pattern, screen.starts, text, folded)] == expected
    # the same with the fallback to the plain search forced
    assert [m.span() for m in anchored_finditer(pattern, screen.starts, text, folded, limit=0.0)] == [
        span for span, _ in expected
    ]


def test_long_texts_take_the_anchored_search_and_answer_the_same() -> None:
    """A text over ANCHORED_FROM characters, with secrets of every kind spread through ordinary text."""
    filler = _long_ordinary_text(ANCHORED_FROM)
    text = "\n".join(f"{filler[: 40 * (i % 7)]} {example}" for i, example in enumerate(EXAMPLES + SHAPES))
    assert len(text) >= ANCHORED_FROM
    assert DropSecrets().check(text) == unscreened(text)
    assert DropSecrets().check(text + filler) == unscreened(text + filler)


# --------------------------------------------------------------------------- the known examples


@pytest.mark.parametrize("text", EXAMPLES)
def test_every_positive_example_is_still_caught(text: str) -> None:
    """Each example of the secret tests and drills is found, with the same kinds as without the screen."""
    assert DropSecrets().check(text) == unscreened(text) != []
    with pytest.raises(SecretDropped):
        DropSecrets().enforce(text)


# Made-up values in the shape of the vendor formats the other tables have no example of.
SHAPES = [
    "PuTTY-User-Key-File-3: ssh-ed25519",
    "SG.EXAMPLEexample0000.EXAMPLEexample0000example",
    "hf_EXAMPLEexample0000EXAMPLEexample00",
    "npm_EXAMPLEexample0000EXAMPLEexample00",
    "glpat-EXAMPLEexample0000exam",
    "https://hooks.slack.com/services/T0000/B0000/EXAMPLEexample0000",
    "LTAI0000EXAMPLE0000",
    "shpat_" + "0123456789abcdef" * 2,
    "dapi" + "0123456789abcdef" * 2,
    "pypi-AgEIcHlwaS5vcmc" + "EXAMPLEexample0000" * 3,
    "sq0atp-EXAMPLEexample0000exam",
    "key-" + "EXAMPLEexample0000EXAMPLEexample",
    "SK" + "0123456789abcdef" * 2,
    "AKCp" + "EXAMPLEexample0000" * 4,
    "glsa_" + "EXAMPLEexample0000EXAMPLEexample" + "_0123abcd",
    "pk_live_EXAMPLEexample0000",
    "MTAwMDAwMDAwMDAwMDAwMDAw.GEXAMP.EXAMPLEexample0000EXAMPLEexam",
]


@pytest.mark.parametrize("index", range(len(DETECTORS)), ids=[f"{i}-{d.kind}" for i, d in enumerate(DETECTORS)])
def test_each_detector_fires_on_an_example(index: int) -> None:
    """No detector is left without a positive case, and on each of its cases the screened check reports
    its kind, as running every detector does."""
    detector = DETECTORS[index]
    texts = [text for text in EXAMPLES + SHAPES if list(detector.matches(text))]
    assert texts, f"no example for detector {index} ({detector.kind})"
    for text in texts:
        assert kind_of(detector, next(detector.matches(text))) in DropSecrets().check(text) == unscreened(text)


# --------------------------------------------------------------------------- long texts


def _long_ordinary_text(size: int) -> str:
    """~``size`` characters of ordinary notes and log lines, with the words that make word detectors run."""
    lines = [
        "Line {n} keeps faulting with error E-{n}7; the password reset flow was slow for tenant t{n}.",
        "2026-01-0{d}T10:{n:02d}:00Z INFO api: token refresh scheduled in {n} minutes, see https://docs.example.com/x",
        "The API key is stored in Vault; the access token expires after 3600 seconds. Pin {n} is ground.",
        "Decision: chose pgvector because we already run Postgres. Request id {n} took {n}1 ms.",
    ]
    parts: list[str] = []
    total = 0
    n = 0
    while total < size:
        line = lines[n % len(lines)].format(n=n % 60, d=n % 9 + 1)
        parts.append(line)
        total += len(line) + 1
        n += 1
    return "\n".join(parts)


@pytest.fixture(scope="module")
def megabyte() -> str:
    text = _long_ordinary_text(1_000_000)
    assert DropSecrets().check(text) == []
    return text


def test_secrets_at_the_end_of_a_megabyte_are_found(megabyte: str) -> None:
    """Every example, buried after ~1 MB of ordinary text, is found: the same kinds as without the screen."""
    tail = "\n".join(EXAMPLES)
    text = megabyte + "\n" + tail
    assert DropSecrets().check(text) == unscreened(text)
    assert set(DropSecrets().check(text)) == set(unscreened(tail))
    assert redact(text) == redact(megabyte) + "\n" + redact(tail)


@pytest.mark.parametrize(
    "secret",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "xoxb-000000000000-EXAMPLEexample",
        "password: hunter2",
        "postgresql://kumar:s3cretpw@db.local:5432/kioko",
    ],
)
def test_a_long_memory_with_a_secret_at_its_end_is_refused(megabyte: str, secret: str) -> None:
    """Through the layer: a 1 MB memory ending with a credential is refused and nothing is stored."""
    layer = MemoryLayer(MemoryStore(), limits={"content_bytes": 2_000_000})
    try:
        with pytest.raises(SecretDropped):
            layer.add(megabyte + " and finally " + secret, user_id="kumar")
        assert list(layer.store.scan(Scope("kumar"))) == []
    finally:
        layer.close()
