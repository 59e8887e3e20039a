"""The detectors of :mod:`kioko_core.privacy.secrets`: one row per kind of credential (its pattern, the group
that is the secret, and the test a match must pass to count), and the value tests those rows share.

They are specific on purpose: a vendor key by its prefix and shape, a password only where a value is actually
given ("my password is hunter2", ``pwd=...``), a card number only with a valid checksum and a network's range.
:mod:`~kioko_core.privacy.secrets` screens texts with them (and reads each row's literals once, to skip the
rows a text cannot match).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Detector:
    """One kind of secret: a pattern, and which group is the secret (the rest is kept by :func:`redact`)."""

    kind: str
    pattern: re.Pattern[str]
    group: str | int = 0
    accept: Callable[[re.Match[str]], bool] | None = None
    """Optional test of a match: it only counts when this returns True (a value that looks like a secret)."""
    anchored: bool = True
    """Whether a long text is searched from the pattern's anchors (``secrets._found``); False for a pattern whose first
    character is common (a digit), where ``re``'s own scan for it is several times faster."""

    def matches(self, text: str) -> Iterator[re.Match[str]]:
        for match in self.pattern.finditer(text):
            if self.accept is None or self.accept(match):
                yield match


# --------------------------------------------------------------------------- value tests

_PLACEHOLDER = re.compile(
    r"""^(?:\*+|x{3,}|X{3,}|\.{3,}|•+|<[^<>]*>|\[[^\[\]]*\]|\{\{?[^{}]*\}?\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|"""
    r"""%\(?[A-Za-z_]*\)?s|redacted|hidden|none|null|nil|n/a|empty|changeme|placeholder|example|secret|password)$""",
    re.IGNORECASE,
)

# Words that describe a password rather than being one: "the password is required".
_DESCRIPTIVE = frozenset(
    """
required optional mandatory needed necessary wrong right incorrect correct invalid valid expired expiring
missing empty blank set unset changed reset stored hashed encrypted salted weak strong long short secure
insecure ok okay fine same different protected hidden visible known unknown forgotten compromised leaked
rotated updated new old default temporary sensitive saved synced enabled disabled locked
unlocked shared private public there here gone ready good bad simple complex easy hard unchanged working
broken irrelevant useless obvious predictable random generated unique reused fixed
managed handled sent emailed texted printed written attached included listed shown masked obscured
""".split()
)

_STOP = frozenset(
    """
a an the is was are be been to of in on at for by with and or not no it its this that these those my our
your his her their too very also just still only then than so as if but from into onto about
""".split()
)

_CLAUSE_END = re.compile(r"""^\s*(?:$|[.,;:!?)"'\]]|\s+(?:and|but|so|or|please|thanks)\b)""", re.IGNORECASE)


def _is_placeholder(value: str) -> bool:
    # "[redacted:" is where redact() took a secret out: a redacted text is clean, and stays as it is
    return bool(_PLACEHOLDER.match(value)) or len(set(value)) == 1 or value.startswith("[redacted")


def _wordy(value: str) -> bool:
    """``reset-the-drive-first`` or ``16-characters-long``: English words joined, not a generated token."""
    parts = re.split(r"[-_./]", value)
    return sum(1 for part in parts if len(part) >= 4 and part.isalpha() and part.islower()) >= 2


def _token_like(value: str) -> bool:
    """A generated token: letters and digits mixed, or long and mixed-case, and not words joined by dashes."""
    if _is_placeholder(value) or _wordy(value):
        return False
    letters = [c for c in value if c.isalpha()]
    if letters and any(c.isdigit() for c in value):
        return True
    return len(value) >= 24 and any(c.isupper() for c in letters) and any(c.islower() for c in letters)


def _secret_value(test: Callable[[str], bool]) -> Callable[[re.Match[str]], bool]:
    return lambda match: test(match.group("secret"))


# --------------------------------------------------------------------------- detectors

_SEPARATOR = r"\s*(?:[:=]|=>|\s(?:is|was|are)\b)\s*"
_QUALIFIER = r"(?:\s+(?:for|to|of|on|at)(?:\s+[\w.@/-]+){1,4}?)?"
_PHRASE_SEPARATOR = r"\s*(?:[:=]|=>|->|\s-|\s(?:is|was|are)\b)\s*"
"""Between a passphrase's name and its words: as :data:`_SEPARATOR`, or a dash ("passphrase - maple river ...")."""

_PASSWORD = re.compile(
    r"\b(?:[A-Za-z0-9]+[_-])*(?:passwords?|passwd|passphrase|pwd)"
    + _QUALIFIER
    + _SEPARATOR
    + r"""(?P<quote>['"`]?)(?P<secret>[^\s'"`,;]*[^\s'"`,;.!?)\]])(?P<rest>.{0,12})""",
    re.IGNORECASE,
)

_NAMED_KEY = re.compile(
    r"\b(?:[A-Za-z0-9]+[_-])*(?P<name>api[_ -]?keys?|apikeys?|api[_ -]?secret|secret(?:[_ -]?(?:access[_ -]?)?key)?"
    r"|access[_ -]?key(?:[_ -]?id)?|client[_ -]?secret|private[_ -]?key|signing[_ -]?key"
    r"|(?:access|auth|refresh|api|session|bearer|id|personal[_ -]access)?[_ -]?tokens?)"
    + _QUALIFIER
    + _SEPARATOR
    + r"""['"`]?(?P<secret>[A-Za-z0-9][A-Za-z0-9_\-./+=]{15,})""",
    re.IGNORECASE,
)

# A value that names where the password is rather than being it: a variable, a call, a path.
_REFERENCE = re.compile(r"^(?:[$%<{\[]|[A-Za-z_][\w.]*[\[(]|[~/][\w./-]*$)")


def _password_counts(match: re.Match[str]) -> bool:
    value = match.group("secret")
    if len(value) < 3 or _is_placeholder(value) or _REFERENCE.match(value):
        return False
    if match.group("quote"):
        return True
    if not value.isalpha():
        return len(value) >= 4  # "8" or "12+" describe a length; "hunter2" or "p@ss!" are passwords
    # a plain word counts only when it ends the clause and does not describe the password
    lowered = value.lower()
    if len(value) < 4 or lowered in _DESCRIPTIVE or lowered in _STOP:
        return False
    return bool(_CLAUSE_END.match(match.group("rest")))


DETECTORS: tuple[Detector, ...] = (
    Detector(
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"
        ),
    ),
    Detector("private_key", re.compile(r"\bPuTTY-User-Key-File-\d+:[^\n]*")),
    # vendor keys always carry digits: "sk-learn-pipeline" is a library, not a key
    Detector(
        "api_key",
        re.compile(r"(?<![\w-])sk-(?P<secret>[A-Za-z0-9_-]{16,})"),
        "secret",
        _secret_value(lambda value: any(c.isdigit() for c in value)),
    ),
    Detector("api_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    Detector("api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![\w-])")),
    Detector("api_key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    Detector("api_key", re.compile(r"\b(?:hf|npm)_[A-Za-z0-9]{30,}\b")),
    Detector("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    Detector("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{22,})\b")),
    Detector("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    Detector("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    Detector("slack_webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")),
    Detector("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    Detector(
        "bearer_token",
        re.compile(r"\bbearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)", re.IGNORECASE),
        "secret",
        _secret_value(_token_like),
    ),
    Detector(
        "connection_string",
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/@]*:(?P<secret>[^\s@/]+)@[^\s/@]+"),
        "secret",
        _secret_value(lambda value: not _is_placeholder(value)),
    ),
    Detector("password", _PASSWORD, "secret", _password_counts),
    Detector(
        "pin",
        re.compile(
            r"\b(?:pin(?:\s+code|\s+number)?|passcode)" + _QUALIFIER + _SEPARATOR + r"(?P<secret>\d{4,8})\b",
            re.IGNORECASE,
        ),
        "secret",
    ),
    Detector("api_key", _NAMED_KEY, "secret", _secret_value(_token_like)),
)


def _is_basic_credentials(value: str) -> bool:
    """An HTTP Basic credential: base64 of ``user:password``, both sides printable."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon) and bool(password) and decoded.isprintable()


def _given_value(value: str) -> bool:
    """A value really given on a command line or in a file: not empty, a placeholder or a variable."""
    return len(value) >= 3 and not _is_placeholder(value) and not value.startswith(("$", "%", "<", "{", "`"))


# Words that make "passphrase is ..." a description rather than the phrase itself ("correct" and "right"
# are left out: "correct horse battery staple" is the best-known passphrase of all).
_PHRASE_DESCRIBING = (_DESCRIPTIVE - {"correct", "right", "good", "simple", "easy"}) | frozenset(
    """
characters chars words letters digits symbols minimum maximum least most required policy rule rules format
length entropy bits dictionary diceware generated chosen picked memorable
""".split()
)


# Words that end the phrase: the sentence goes on about the password ("my password is something I never
# write down", "... what you set at onboarding"), so what came before is no phrase of four words.
_PHRASE_ENDS = _STOP | frozenset(
    """
i me we us you he him she they them it's i'm what which who whom whose where when why how that's there's
do does did doing have has had having will would can could should shall must may might being been get got
getting never always sometimes usually often now later today tomorrow yesterday again already still please
""".split()
)


def _phrase_counts(match: re.Match[str]) -> bool:
    """A passphrase given as words ("correct horse battery staple"): four or more plain words before the
    clause goes on ("... and it works"), none of them describing a passphrase."""
    words: list[str] = []
    for word in re.split(r"[ -]", match.group("secret").lower()):
        if word in _PHRASE_ENDS:
            break
        words.append(word)
    return len(words) >= 4 and not any(word in _PHRASE_DESCRIBING for word in words)


# ---- card numbers: Luhn-valid, of a card network's prefix and length, laid out as cards are printed


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


# (first digits, lengths): Visa, Mastercard (51-55 and 2221-2720), Mir, American Express, Discover, JCB, Diners Club,
# UnionPay, Maestro. A number of another prefix is an id that happens to pass the check digit (one in ten do).
_CARD_RANGES: tuple[tuple[int, int, frozenset[int]], ...] = (
    (4, 4, frozenset({13, 16, 19})),
    (51, 55, frozenset({16})),
    (2221, 2720, frozenset({16})),
    (2200, 2204, frozenset({16, 17, 18, 19})),
    (34, 34, frozenset({15})),
    (37, 37, frozenset({15})),
    (6011, 6011, frozenset(range(16, 20))),
    (644, 649, frozenset(range(16, 20))),
    (65, 65, frozenset(range(16, 20))),
    (3528, 3589, frozenset(range(16, 20))),
    (300, 305, frozenset(range(14, 20))),
    (36, 36, frozenset(range(14, 20))),
    (38, 39, frozenset(range(16, 20))),
    (62, 62, frozenset(range(16, 20))),
    (5018, 5018, frozenset(range(12, 20))),
    (5020, 5020, frozenset(range(12, 20))),
    (5038, 5038, frozenset(range(12, 20))),
    (5893, 5893, frozenset(range(12, 20))),
    (6304, 6304, frozenset(range(12, 20))),
    (6759, 6759, frozenset(range(12, 20))),
    (6761, 6763, frozenset(range(12, 20))),
)


def _card_network(digits: str) -> bool:
    for low, high, lengths in _CARD_RANGES:
        width = len(str(low))
        if low <= int(digits[:width]) <= high and len(digits) in lengths:
            return True
    return False


def _card_layout(groups: list[int]) -> bool:
    """How cards print their numbers: fours with a shorter last group (4-4-4-4, 4-4-4-4-3), or 4-6-5 / 4-6-4."""
    if groups in ([4, 6, 5], [4, 6, 4]):
        return True
    return len(groups) >= 3 and all(g == 4 for g in groups[:-1]) and 1 <= groups[-1] <= 4


# A label right before the number that says what else it is: "order id 4000...", "tracking number ...".
_NOT_A_CARD = re.compile(
    r"\b(?:orders?|tracking|track|isbn(?:-1[03])?|invoice|ticket|ref|reference|serial|imei|phone|tel|fax|mobile"
    r"|ids?|part|confirmation|barcode|ean|upc|gtin|case|build|iban|sku|booking|shipment|parcel|transaction|txn"
    r"|receipt|policy|customer|member|membership)"
    r"(?:\s+(?:number|no|num|id|code))?\s*[:#.]*\s*$",
    re.IGNORECASE,
)


def _card_counts(match: re.Match[str]) -> bool:
    raw, separator = match.group("secret"), match.group("sep")  # the pattern keeps to one separator
    if separator:
        groups = raw.split(separator)
        if not _card_layout([len(group) for group in groups]):
            return False  # 4-4-4-4 is how a card prints, 4-4-4-4-4 or 4-6-4-1 is something else
        digits = "".join(groups)
    else:
        digits = raw
    if not (13 <= len(digits) <= 19 and _luhn(digits) and _card_network(digits)):
        return False
    return not _NOT_A_CARD.search(match.string[max(0, match.start() - 40) : match.start()])


# ---- a passphrase named after its words: "velvet tiger orchard lamp is the passphrase"

# Words between "is the" and "passphrase" that describe what follows, so the words before are no phrase:
# "a long random sentence is the best password".
_RANKING = _DESCRIPTIVE | frozenset("best worst ideal perfect usual typical kind sort type recommended".split())


def _phrase_before_counts(match: re.Match[str]) -> bool:
    """Four or more plain words just before "is the passphrase", none describing one, read back from the verb."""
    if any(word.lower() in _RANKING for word in (match.group("between") or "").split()):
        return False
    words: list[str] = []
    for word in reversed(re.split(r"[ -]", match.group("secret").lower())):
        if word in _PHRASE_ENDS or word in _PHRASE_DESCRIBING or word in _CONNECTIVES:
            break
        words.append(word)
    return len(words) >= 4


# words that lead into a sentence rather than being part of a phrase ("I think", "remember")
_CONNECTIVES = frozenset("think guess believe remember note say said says told tell".split())


# A variable whose name says it holds a credential, set in a .env file or a shell (KEY=value).
# PWD and PASS only after a prefix (DB_PWD, SMTP_PASS): a shell's own PWD is the working directory.
_ENV_SECRET_NAME = (
    r"(?:[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|SECRET_KEY|TOKEN|API_?KEY|ACCESS_KEY"
    r"|PRIVATE_KEY|AUTH_KEY|CREDENTIALS?|CONNECTION_STRING)|[A-Z][A-Z0-9_]*_(?:PWD|PASS))"
)

_EXTRA_DETECTORS: tuple[Detector, ...] = (
    # Azure storage / Service Bus connection strings and shared access signatures
    Detector(
        "connection_string",
        re.compile(
            r"\b(?:AccountKey|SharedAccessKey|SharedSecretValue)\s*=\s*(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
            re.IGNORECASE,
        ),
        "secret",
    ),
    Detector("connection_string", re.compile(r"[?&;]sig=(?P<secret>[A-Za-z0-9%+/]{20,}(?:%3D|=){0,2})"), "secret"),
    # HTTP Basic: "Authorization: Basic dXNlcjpwYXNz" (the value decodes to user:password)
    Detector(
        "basic_auth",
        re.compile(r"\bbasic\s+(?P<secret>[A-Za-z0-9+/]{6,}={0,2})(?![\w+/=])", re.IGNORECASE),
        "secret",
        _secret_value(_is_basic_credentials),
    ),
    # command lines: curl -u user:pass, mysql -pPASSWORD, sshpass -p pass
    Detector(
        "password",
        re.compile(r"""\b(?:curl|wget|http)\b[^\n|;&]*?\s(?:-u|--user)[\s=]*['"]?[^\s:'"]*:(?P<secret>[^\s'"]+)"""),
        "secret",
        _secret_value(_given_value),
    ),
    Detector(
        "password",
        re.compile(
            r"""\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p(?P<secret>[^\s'"-][^\s'"]*)"""
        ),
        "secret",
        _secret_value(_given_value),
    ),
    Detector(
        "password", re.compile(r"""\bsshpass\s+-p\s*['"]?(?P<secret>[^\s'"]+)"""), "secret", _secret_value(_given_value)
    ),
    # a passphrase or recovery phrase given as words
    Detector(
        "password",
        re.compile(
            r"\b(?:pass\s?phrase|seed\s+phrase|recovery\s+phrase|mnemonic)"
            + _PHRASE_SEPARATOR
            + r"""['"]?(?P<secret>[A-Za-z]+(?:[ -][A-Za-z]+){3,23})['"]?(?P<rest>.{0,12})""",
            re.IGNORECASE,
        ),
        "secret",
        _phrase_counts,
    ),
    # a password given as words: "my password is correct horse battery staple" (the plain password detector
    # takes one word and leaves "correct" as a description; "the password reset flow" gives no value at all)
    Detector(
        "password",
        re.compile(
            r"\b(?:passwords?|passwd|pwd|passcode)"
            + _QUALIFIER
            + _PHRASE_SEPARATOR
            + r"""['"]?(?P<secret>[A-Za-z]+(?:[ -][A-Za-z]+){3,23})['"]?(?P<rest>.{0,12})""",
            re.IGNORECASE,
        ),
        "secret",
        _phrase_counts,
    ),
    # the words first, then what they are: "velvet tiger orchard lamp is the passphrase"
    Detector(
        "password",
        re.compile(
            r"(?P<secret>[A-Za-z]+(?:[ -][A-Za-z]+){3,23})\s+(?:is|was)\s+(?:(?:the|my|our|your|his|her|their)\s+)?"
            r"(?P<between>(?:[A-Za-z]+\s+){0,2}?)(?:pass\s?phrase|password|passwd)\b",
            re.IGNORECASE,
        ),
        "secret",
        _phrase_before_counts,
    ),
    # a card number (13-19 digits, spaced or dashed as printed, or not at all), whatever is around it; every
    # network's numbers start with 2-6, which also gives the screen its literals. The look-behinds come after
    # that first digit so that re scans for it (a pattern opening with a look-behind is tried at every position)
    Detector(
        "card_number",
        re.compile(
            r"(?P<secret>[2-6](?<![\w+#/.-].)(?<!\d[ -].)(?:\d{12,18}|\d{3}(?P<sep>[ -])(?:\d{4}|\d{6})(?:(?P=sep)\d{1,5}){1,3}))"
            r"(?![\w/-]|[.,]\d)"
        ),
        "secret",
        _card_counts,
        anchored=False,
    ),
    # a URL's query string: ?password=..., &sslpassword=..., &api_key=...
    Detector(
        "connection_string",
        re.compile(
            r"""[?&](?:[A-Za-z_]*password|passwd|pass|pwd|secret|(?:access|auth|api|refresh|id|session)?_?token"""
            r"""|api_?key|access_?key)=(?P<secret>[^&\s#'"]+)""",
            re.IGNORECASE,
        ),
        "secret",
        _secret_value(_given_value),
    ),
    # .env lines and shell assignments: DB_PASSWORD=..., export OPENAI_API_KEY=..., PGPASSWORD=... psql
    Detector(
        "env_secret",
        re.compile(
            r"(?<![\w$.-])(?:export[ \t]+)?" + _ENV_SECRET_NAME + r"""[ \t]*=[ \t]*['"]?(?P<secret>[^\s'"#]+)"""
        ),
        "secret",
        _secret_value(lambda v: _given_value(v) and v.lower() not in {"true", "false", "none", "null"}),
    ),
    # cloud and SaaS keys recognisable by their prefix and shape
    Detector("api_key", re.compile(r"\bya29\.[A-Za-z0-9_-]{20,}")),  # Google OAuth access
    Detector("api_key", re.compile(r"\bLTAI[A-Za-z0-9]{12,20}\b")),  # Alibaba Cloud
    Detector("api_key", re.compile(r"\bdop_v1_[a-f0-9]{64}\b")),  # DigitalOcean
    Detector("api_key", re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b")),  # Shopify
    Detector("api_key", re.compile(r"\bdapi[a-f0-9]{32}(?:-\d)?\b")),  # Databricks
    Detector("api_key", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}")),  # PyPI upload token
    Detector("api_key", re.compile(r"\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,}")),  # Square
    Detector("api_key", re.compile(r"\bkey-[0-9a-zA-Z]{32}\b")),  # Mailgun
    Detector("api_key", re.compile(r"\bSK[0-9a-f]{32}\b")),  # Twilio API key
    Detector("api_key", re.compile(r"\bAKCp[0-9A-Za-z]{60,}")),  # Artifactory
    Detector("api_key", re.compile(r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b")),  # Grafana
    Detector("api_key", re.compile(r"\bpk_live_[A-Za-z0-9]{16,}\b")),  # Stripe, live
    # Telegram bot (the token may end in "-", after which \b would need a word character)
    Detector("token", re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])")),
    Detector("token", re.compile(r"\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,38}\b")),  # Discord bot
)

DETECTORS = DETECTORS + _EXTRA_DETECTORS


def kind_of(detector: Detector, match: re.Match[str]) -> str:
    """A named key's kind comes from its name ("session token" is a token); the others from the detector."""
    if detector.pattern is not _NAMED_KEY:
        return detector.kind
    name = match.group("name").lower()
    return "token" if "token" in name else "private_key" if "private" in name else "api_key"
