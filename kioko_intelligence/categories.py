"""A small built-in lexicon of common things a person has or uses one of: the slot world knowledge names.

"My browser of choice is Firefox" and, weeks later, "I switched to Brave" share no word: only knowing that
both are browsers says that the second replaces the first. This module knows that for a few hundred common
products and kinds (browsers, editors, operating systems, phones, cars, banks, diets, time zones ...), and
nothing else: a value it does not list is left to the frame rules of :mod:`.slots`.

Each category says whether a person usually has **one** value at a time (a phone, a browser, a diet: a
newer one replaces the older) or **several** (programming languages, databases: a newer one replaces the
older only when the two statements also share a word of their own, "favourite", "for work" ...).
Ambiguous everyday words ("go", "edge", "arc", "fish", "bear") are left out on purpose: a false slot would
hide a true memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Category:
    name: str
    single: bool
    """A person has one value at a time (a newer one replaces the older without more evidence)."""
    values: tuple[str, ...]
    nouns: tuple[str, ...] = ()
    """Words that name the category itself ("browser"): a memory saying one is about the slot."""


CATEGORIES: tuple[Category, ...] = (
    Category(
        "browser",
        True,
        ("firefox", "chrome", "google chrome", "chromium", "safari", "brave", "microsoft edge", "opera", "vivaldi"),
        ("browser",),
    ),
    Category(
        "editor",
        True,
        (
            "vim",
            "neovim",
            "nvim",
            "emacs",
            "vs code",
            "vscode",
            "visual studio code",
            "sublime text",
            "helix",
            "nano",
            "notepad++",
            "intellij",
            "intellij idea",
            "pycharm",
            "webstorm",
            "eclipse",
            "xcode",
            "android studio",
            "visual studio",
            "netbeans",
        ),
        ("editor", "ide"),
    ),
    Category(
        "operating system",
        True,
        ("windows", "macos", "mac os", "os x", "linux", "ubuntu", "debian", "fedora", "arch linux", "linux mint"),
        ("operating system", "os"),
    ),
    Category(
        "phone",
        True,
        ("iphone", "pixel", "galaxy", "oneplus", "xiaomi", "fairphone", "motorola", "huawei", "nokia"),
        ("phone", "smartphone", "mobile"),
    ),
    Category(
        "laptop", True, ("thinkpad", "macbook", "macbook pro", "macbook air", "chromebook", "dell xps"), ("laptop",)
    ),
    Category(
        "search engine",
        True,
        ("google", "bing", "duckduckgo", "ecosia", "kagi", "startpage", "qwant"),
        ("search engine", "search"),
    ),
    Category("shell", True, ("bash", "zsh", "powershell", "nushell", "tcsh"), ("shell",)),
    Category("keyboard", True, ("keychron", "moonlander", "ergodox", "hhkb", "das keyboard"), ("keyboard",)),
    Category(
        "car",
        True,
        (
            "civic",
            "corolla",
            "prius",
            "niro",
            "model 3",
            "model y",
            "tesla",
            "honda",
            "toyota",
            "kia",
            "volkswagen",
            "vw",
            "bmw",
            "audi",
            "skoda",
            "volvo",
            "hyundai",
            "nissan",
            "renault",
            "peugeot",
            "fiat",
            "subaru",
            "mazda",
        ),
        ("car", "drive"),
    ),
    Category(
        "bank",
        True,
        (
            "barclays",
            "hsbc",
            "lloyds",
            "natwest",
            "monzo",
            "revolut",
            "starling",
            "santander",
            "n26",
            "wells fargo",
            "citibank",
            "bank of america",
        ),
        ("bank",),
    ),
    Category(
        "internet provider",
        True,
        ("virgin media", "bt", "comcast", "xfinity", "verizon", "at&t", "talktalk", "spectrum", "vodafone"),
        ("internet", "broadband", "provider", "isp"),
    ),
    Category(
        "diet",
        True,
        (
            "vegan",
            "vegetarian",
            "pescatarian",
            "plant-based",
            "plant based",
            "keto",
            "paleo",
            "carnivore",
            "omnivore",
            "flexitarian",
        ),
        ("diet",),
    ),
    Category(
        "seat",
        True,
        ("window seat", "aisle seat", "middle seat", "window person", "aisle person", "exit row", "bulkhead seat"),
        ("seat",),
    ),
    Category(
        "time zone",
        True,
        (
            "cet",
            "cest",
            "gmt",
            "bst",
            "utc",
            "pst",
            "pdt",
            "est",
            "edt",
            "pacific time",
            "eastern time",
            "central time",
            "mountain time",
            "jst",
            "aest",
        ),
        ("timezone", "time zone"),
    ),
    Category(
        "notes app",
        True,
        ("notion", "obsidian", "evernote", "onenote", "logseq", "apple notes", "google keep"),
        ("notes", "note-taking"),
    ),
    Category("task app", True, ("todoist", "ticktick", "omnifocus", "trello", "asana"), ("tasks", "to-do", "todo")),
    Category(
        "music service", True, ("spotify", "apple music", "tidal", "deezer", "youtube music"), ("music", "streaming")
    ),
    Category(
        "email service",
        True,
        ("gmail", "fastmail", "outlook", "hotmail", "proton mail", "protonmail", "yahoo mail", "icloud mail"),
        ("email", "mail"),
    ),
    Category(
        "streaming service",
        False,
        ("netflix", "disney+", "hulu", "prime video", "hbo max", "apple tv+", "paramount+"),
        ("streaming", "tv"),
    ),
    Category(
        "ci service",
        True,
        ("jenkins", "github actions", "gitlab ci", "circleci", "travis ci", "buildkite", "teamcity"),
        ("ci", "continuous integration"),
    ),
    Category(
        "web framework",
        False,
        ("react", "svelte", "vue", "angular", "django", "flask", "rails", "laravel", "next.js", "fastapi"),
        ("framework",),
    ),
    Category(
        "programming language",
        False,
        (
            "python",
            "rust",
            "golang",
            "java",
            "kotlin",
            "scala",
            "javascript",
            "typescript",
            "ruby",
            "php",
            "c#",
            "c++",
            "swift",
            "zig",
            "haskell",
            "elixir",
            "clojure",
            "julia",
            "perl",
            "lua",
            "dart",
            "ocaml",
        ),
        ("language", "programming language"),
    ),
    Category(
        "database",
        False,
        ("postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb", "redis", "cassandra", "dynamodb"),
        ("database", "db"),
    ),
    Category(
        "hosting",
        False,
        ("aws", "gcp", "google cloud", "azure", "hetzner", "digitalocean", "linode", "heroku", "vercel", "netlify"),
        ("hosting", "cloud", "host"),
    ),
    Category(
        "payment provider",
        False,
        ("stripe", "adyen", "paypal", "braintree", "mollie", "klarna"),
        ("payments", "payment"),
    ),
)


@dataclass(frozen=True)
class Mention:
    category: Category
    value: str
    """The value as the lexicon spells it (``"vs code"``): two mentions with the same one are the same thing."""
    said: str
    """The words the text used, with a model after a product name ("Pixel 8", "iPhone 12")."""


_MODEL = r"(?:\s+(?:pro|max|plus|mini|ultra|air|[a-z]?\d\w*(?:\.\d+)*))*"
"""A model after a product name: "iPhone 12 Pro", "Galaxy S21", "Pixel 8"."""


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[Category, str, re.Pattern[str]], ...]:
    found = []
    every = [(category, value) for category in CATEGORIES for value in category.values]
    # longest spelling first, across categories: "Google Cloud" is hosting before "Google" is a search engine
    for category, value in sorted(every, key=lambda pair: len(pair[1]), reverse=True):
        words = r"\s+".join(re.escape(w) for w in value.split())
        pattern = re.compile(rf"(?<![\w.+#-])(?:{words}){_MODEL}(?![\w+#])", re.IGNORECASE)
        found.append((category, value, pattern))
    return tuple(found)


def mentions(text: str) -> list[Mention]:
    """The category values ``text`` names, longest spelling first (``"google chrome"`` is one mention)."""
    taken: list[tuple[int, int]] = []
    found: list[Mention] = []
    for category, value, pattern in _patterns():
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append((match.start(), match.end()))
            found.append(Mention(category, value, match.group(0)))
    return found


def about(text: str) -> list[str]:
    """The categories of the things ``text`` names, by their first noun, when it does not name them itself
    ("User is on a Pixel 8" -> ``["phone"]``): the words a question asks with."""
    found = []
    for mention in mentions(text):
        noun = mention.category.nouns[0] if mention.category.nouns else mention.category.name
        if noun not in found and not names_category(text, mention.category):
            found.append(noun)
    return found


def names_category(text: str, category: Category) -> bool:
    """Does ``text`` use one of the words that name ``category`` ("browser", "editor")?"""
    return any(re.search(rf"\b{re.escape(noun)}s?\b", text, re.IGNORECASE) for noun in category.nouns)
