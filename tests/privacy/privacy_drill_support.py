"""The privacy drill's pieces: fake secrets in the detectors' own formats, and the places they are looked for.

Every secret is generated for the run (nothing of it is in the source tree), so a byte of one found in a store
file, a dump, an export, an event, a log line or an output can only have come from the drill's own writes.
Each is looked for whole and by a distinctive part of its random body, case folded (index terms and entity
keys are lower-case), and the search is proven able to find: a control word written as an ordinary memory
must turn up wherever the store keeps text.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
WORDS = (
    "quasar marmot juniper obsidian tamarind halyard petrichor zephyr vellum cobalt basalt mistral "
    "gossamer tundra sorrel kestrel bramble lichen saffron umber".split()
)


@dataclass(frozen=True)
class Secret:
    """One planted secret: the sentence that carries it, and the byte strings that must be found nowhere."""

    kind: str
    text: str
    needles: tuple[str, ...]


class Forge:
    """Fake credentials of every format the detectors know, random for this run."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def token(self, n: int, alphabet: str = ALNUM) -> str:
        """``n`` random characters; with letters and digits both in (what a generated token has)."""
        body = [self.rng.choice(alphabet) for _ in range(n)]
        if alphabet in (ALNUM, B64, URLSAFE):
            body[n // 2] = self.rng.choice(string.digits)
            body[n // 2 + 1] = self.rng.choice(string.ascii_lowercase)
        return "".join(body)

    def secrets(self) -> list[Secret]:
        t, made = self.token, []

        def add(kind: str, text: str, *secret: str) -> None:
            needles: list[str] = []
            for value in secret:
                needles.append(value)
                middle = len(value) // 2
                needles.append(value[middle - 5 : middle + 5])  # a part of the random body
            made.append(Secret(kind, text, tuple(needles)))

        aws, aws_secret = "AKIA" + t(16, UPPER), self.rng.choice(ALNUM) + t(39, B64)
        add("aws", f"My AWS key is {aws} and the secret is {aws_secret}, keep it", aws, aws_secret)
        value = "ghp_" + t(36)
        add("github", f"Use {value} for the deploy bot.", value)
        value = "github_pat_" + t(22) + "_" + t(59)
        add("github_pat", f"the CI token: {value}", value)
        value = "glpat-" + t(20)
        add("gitlab", f"GitLab access {value} for the mirror", value)
        value = f"xoxb-{t(12, string.digits)}-{t(12, string.digits)}-{t(24)}"
        add("slack", f"our Slack bot runs as {value}", value)
        value = f"https://hooks.slack.com/services/T{t(8, UPPER)}/B{t(8, UPPER)}/{t(24)}"
        add("slack_webhook", f"alerts go to {value}", value)
        value = "sk_live_" + t(24)
        add("stripe", f"Stripe live key {value} for billing", value)
        value = "rk_test_" + t(24)
        add("stripe_restricted", f"restricted Stripe key {value}", value)
        value = "pk_live_" + t(24)
        add("stripe_publishable", f"checkout uses {value}", value)
        value = "sk-proj-" + t(40)
        add("openai", f"the model key is {value}", value)
        value = "AIza" + t(35, URLSAFE)
        add("google", f"maps key {value} in the app", value)
        value = f"SG.{t(22, URLSAFE)}.{t(43, URLSAFE)}"
        add("sendgrid", f"mail goes through {value} now", value)
        value = "hf_" + t(34)
        add("huggingface", f"download with {value} please", value)
        value = "npm_" + t(36)
        add("npm", f"publish token {value} for the package", value)
        claims = base64.urlsafe_b64encode(json.dumps({"sub": t(12), "exp": 1900000000}).encode()).decode().rstrip("=")
        value = f"eyJhbGciOiJIUzI1NiJ9.{claims}.{t(43, URLSAFE)}"
        add("jwt", f"session cookie {value} from staging", value)
        lines = [t(64, B64) for _ in range(3)]
        block = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----"
        add("private_key", f"here is the server key:\n{block}", *lines)
        value = t(40)
        add("bearer", f"call it with Authorization: Bearer {value}", value)
        password = t(14)
        value = base64.b64encode(f"deploy:{password}".encode()).decode()
        add("basic_auth", f"the header is Authorization: Basic {value}", value, password)
        value = t(18)
        add("connection_string", f"prod is postgresql://app:{value}@db.internal:5432/prod", value)
        value = t(32)
        add("url_query", f"export from https://api.example.com/v1/export?api_key={value}", value)
        value = t(7) + "!" + t(7)
        add("password", f"my password is {value}", value)
        words = self.rng.sample(WORDS, 4)
        phrase = " ".join(words)
        made.append(
            Secret(
                "passphrase", f"my password is {phrase}", (phrase, f"{words[1]} {words[2]}", f"{words[2]} {words[3]}")
            )
        )
        value = t(24)
        add("env", f"set DB_PASSWORD={value} in the env file", value)
        value = f"{t(9, string.digits)}:AA{t(33, URLSAFE)}"
        add("telegram", f"the bot token is {value}", value)
        value = "SK" + t(32, HEX)
        add("twilio", f"Twilio key {value}", value)
        value = "key-" + t(32)
        add("mailgun", f"Mailgun {value} for receipts", value)
        value = "dapi" + t(32, HEX)
        add("databricks", f"Databricks {value} for the job", value)
        value = "dop_v1_" + t(64, HEX)
        add("digitalocean", f"droplets via {value}", value)
        value = "shpat_" + t(32, HEX)
        add("shopify", f"shop admin {value}", value)
        value = t(86, B64) + "=="
        add(
            "azure",
            f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={value};EndpointSuffix=core.windows.net",
            value,
        )
        value = t(16)
        add("curl", f"curl -u deploy:{value} https://ci.internal/api", value)
        value = t(16)
        add("mysql", f"mysql -u root -p{value} prod", value)
        value = "ya29." + t(40, URLSAFE)
        add("google_oauth", f"the OAuth access is {value}", value)
        value = "glsa_" + t(32) + "_" + t(8, HEX)
        add("grafana", f"Grafana service account {value}", value)
        value = "gho_" + t(36)
        add("github_oauth", f"the OAuth app token {value}", value)
        value = "ASIA" + t(16, UPPER)
        add("aws_temporary", f"temporary credentials {value} until noon", value)
        value = f"xoxp-{t(12, string.digits)}-{t(12, string.digits)}-{t(32, HEX)}"
        add("slack_user", f"my own Slack token {value}", value)
        value = "sq0atp-" + t(22, URLSAFE)
        add("square", f"Square payments {value}", value)
        value = "LTAI" + t(16)
        add("alibaba", f"Alibaba Cloud {value}", value)
        value = "ghs_" + t(36)
        add("github_server", f"the app installation token {value}", value)
        return made


def needles_of(secrets: Iterable[Secret]) -> dict[str, str]:
    """Every needle (case folded) -> the kind of the secret it belongs to."""
    return {needle.lower(): secret.kind for secret in secrets for needle in secret.needles}


def found_in(text: str | bytes, needles: dict[str, str]) -> list[str]:
    """``kind: needle`` for every needle in ``text`` (case folded)."""
    haystack = (text.decode("utf-8", "replace") if isinstance(text, bytes) else text).lower()
    return [f"{kind}: {needle}" for needle, kind in needles.items() if needle in haystack]


def files_under(*roots: Path) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
        elif root.is_dir():
            yield from (p for p in sorted(root.rglob("*")) if p.is_file())


def strings_in(value: Any, seen: set[int] | None = None, depth: int = 0) -> Iterator[str]:
    """Every string reachable from ``value`` (dicts, sequences, sets, objects' attributes): an in-process
    store's or cache's whole content."""
    seen = set() if seen is None else seen
    if isinstance(value, str):
        yield value
        return
    if isinstance(value, bytes):
        yield value.decode("utf-8", "replace")
        return
    if value is None or isinstance(value, (int, float, bool)) or id(value) in seen or depth > 40:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for key, item in list(value.items()):
            yield from strings_in(key, seen, depth + 1)
            yield from strings_in(item, seen, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in list(value):
            yield from strings_in(item, seen, depth + 1)
    elif hasattr(value, "__dict__") and type(value).__module__.startswith(("kioko", "pydantic", "collections")):
        yield from strings_in(vars(value), seen, depth + 1)
    elif hasattr(value, "model_dump"):
        yield from strings_in(value.model_dump(exclude={"embedding"}), seen, depth + 1)
