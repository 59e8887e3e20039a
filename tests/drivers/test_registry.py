"""Choosing a store by URL: parsing, password masking, unknown schemes, missing extras, third-party drivers."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kioko
from kioko_backends.memory import MemoryStore
from kioko_core.layer.memory_layer import MemoryLayer
from kioko_core.store import KiokoError, MissingExtraError, UnknownStoreError, registry
from kioko_core.store.registry import known_schemes, open_store, register_store
from kioko_core.store.url import StoreURL

PROJECT_ROOT = Path(kioko.__file__).resolve().parent.parent
SECRET = "s3cr3t-Pa55"


def run_python(script: str, *, extra_path: list[Path] = ()) -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter (project importable) and decode the JSON it prints last."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([*map(str, extra_path), str(PROJECT_ROOT)])
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=PROJECT_ROOT,
        check=False,
    )
    assert result.returncode == 0, f"subprocess failed:\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- parsing


def test_every_part_of_a_full_url_is_parsed() -> None:
    """Scheme with driver, user, percent-encoded password, host, port, path and query all land in place."""
    url = StoreURL.parse("postgresql+psycopg://kumar:p%40ss%2Fw0rd@db.example.org:5433/kioko?sslmode=require&dim=384")
    assert (url.scheme, url.backend) == ("postgresql+psycopg", "postgresql")
    assert (url.username, url.password) == ("kumar", "p@ss/w0rd")
    assert (url.host, url.port, url.path) == ("db.example.org", 5433, "/kioko")
    assert dict(url.query) == {"sslmode": "require", "dim": "384"}


@pytest.mark.parametrize(
    ("text", "scheme", "host", "port", "path"),
    [
        ("memory://", "memory", None, None, ""),
        ("sqlite:///relative.db", "sqlite", None, None, "/relative.db"),
        ("sqlite:////var/lib/kioko.db", "sqlite", None, None, "//var/lib/kioko.db"),
        ("kioko.db", "sqlite", None, None, "/kioko.db"),  # a bare path carries what sqlite:///kioko.db does
        ("/var/lib/kioko.db", "sqlite", None, None, "//var/lib/kioko.db"),
        ("data/memories.sqlite3", "sqlite", None, None, "/data/memories.sqlite3"),
        ("  spaced.sqlite  ", "sqlite", None, None, "/spaced.sqlite"),
        ("SQLite:///Upper.db", "sqlite", None, None, "/Upper.db"),
        ("qdrant://localhost:6333/memories", "qdrant", "localhost", 6333, "/memories"),
        ("qdrant+local://:memory:", "qdrant+local", None, None, ":memory:"),
        ("qdrant+local:////tmp/q", "qdrant+local", None, None, "//tmp/q"),
        ("postgresql://postgres:@/postgres?host=/tmp/socket", "postgresql", None, None, "/postgres"),
    ],
)
def test_url_forms(text: str, scheme: str, host: str | None, port: int | None, path: str) -> None:
    """Each documented URL form parses to the scheme, host, port and path its driver expects."""
    url = StoreURL.parse(text)
    assert (url.scheme, url.host, url.port, url.path) == (scheme, host, port, path)


def test_a_parsed_url_passes_through_parse_unchanged() -> None:
    """parse(StoreURL) is the same object: the registry may parse again without cost or change."""
    url = StoreURL.parse("memory://")
    assert StoreURL.parse(url) is url


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://kumar:p%40ss@db:5432/kioko?sslmode=require",
        "qdrant://localhost:6333/memories?https=true",
        "memory://",
        "sqlite:////abs/path.db",
    ],
)
def test_render_without_masking_round_trips(text: str) -> None:
    """render(hide_password=False) gives a URL that parses back to an equal value."""
    url = StoreURL.parse(text)
    assert StoreURL.parse(url.render(hide_password=False)) == url


def test_a_url_is_immutable() -> None:
    """Neither the fields nor the query mapping can be changed after parsing."""
    url = StoreURL.parse("postgresql://u:p@h/db?a=1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        url.host = "elsewhere"  # type: ignore[misc]
    with pytest.raises(TypeError):
        url.query["a"] = "2"  # type: ignore[index]


def test_with_query_returns_a_new_url() -> None:
    """with_query merges values into a copy and leaves the original alone."""
    url = StoreURL.parse("sqlite:///k.db?dim=8")
    changed = url.with_query(dim="16", timeout="5")
    assert dict(changed.query) == {"dim": "16", "timeout": "5"}
    assert dict(url.query) == {"dim": "8"}


@pytest.mark.parametrize("bad", ["", "   ", "not a url", "kumar:" + SECRET + "@dbhost/kioko", None, 42])
def test_what_is_not_a_url_is_refused_with_an_example(bad: Any) -> None:
    """A non-URL raises UnknownStoreError (a ValueError) that shows a correct form, never the password."""
    with pytest.raises(UnknownStoreError) as raised:
        StoreURL.parse(bad)
    assert isinstance(raised.value, ValueError)
    assert SECRET not in str(raised.value)


def test_a_bad_port_is_refused_without_showing_the_password() -> None:
    """A port that is not a number is a clear error, and the password in the URL stays hidden."""
    with pytest.raises(UnknownStoreError) as raised:
        StoreURL.parse(f"postgresql://kumar:{SECRET}@dbhost:port/kioko")
    assert "port" in str(raised.value)
    assert SECRET not in str(raised.value)


# --------------------------------------------------------------------------- password masking


def test_repr_and_str_mask_the_password() -> None:
    """repr, str, f-strings and %-formatting show *** where the password was."""
    url = StoreURL.parse(f"postgresql://kumar:{SECRET}@dbhost/kioko")
    for shown in (repr(url), str(url), f"{url}", "%s %r" % (url, url), repr([url]), url.render()):
        assert SECRET not in shown, shown
        assert "***" in shown, shown
    assert SECRET in url.render(hide_password=False)
    assert url.password == SECRET


@pytest.mark.parametrize(
    "text",
    [
        f"qdrant://localhost:6333/memories?api_key={SECRET}",
        f"postgresql://kumar@dbhost/kioko?password={SECRET}",
        f"qdrant://:{SECRET}@localhost:6333/memories",
    ],
)
def test_secrets_in_the_query_or_as_an_api_key_are_masked(text: str) -> None:
    """An API key or password given as a query parameter or an empty-user password is hidden too."""
    url = StoreURL.parse(text)
    assert SECRET not in repr(url)
    assert SECRET not in str(url)
    assert SECRET in url.render(hide_password=False)


def test_an_unknown_scheme_error_does_not_show_the_password() -> None:
    """Failing to find a driver never repeats the URL's password."""
    with pytest.raises(UnknownStoreError) as raised:
        open_store(f"nosuchstore://kumar:{SECRET}@host/db")
    assert SECRET not in "".join(traceback.format_exception(raised.value))


def test_a_failed_postgresql_connection_does_not_show_the_password() -> None:
    """A server that refuses the connection gives a KiokoError whose message and chain hide the password."""
    with pytest.raises(KiokoError) as raised:
        open_store(f"postgresql://kumar:{SECRET}@127.0.0.1:1/kioko", dim=8)
    assert SECRET not in "".join(traceback.format_exception(raised.value))


# --------------------------------------------------------------------------- unknown schemes, missing extras


def test_an_unknown_scheme_names_the_known_ones() -> None:
    """The error lists every built-in scheme and says how a third-party driver registers."""
    with pytest.raises(UnknownStoreError) as raised:
        kioko.connect("mongodb://localhost/kioko")
    message = str(raised.value)
    for scheme in ("memory", "sqlite", "postgresql", "qdrant", "qdrant+local", "qdrant+edge"):
        assert scheme in message
    assert "kioko.stores" in message
    assert "register_store" in message


MISSING_LIBRARY = """
    import json, sys
    sys.modules[{library!r}] = None  # what Python does for a package that is not installed: import fails
    from kioko_core.store.registry import open_store
    try:
        open_store({url!r}, dim=8)
    except ImportError as error:
        print(json.dumps({{"type": type(error).__name__, "message": str(error)}}))
    else:
        print(json.dumps({{"type": None, "message": "opened"}}))
"""


@pytest.mark.parametrize(
    ("library", "url", "extra"),
    [
        ("qdrant_client", "qdrant+local:////tmp/kioko-never-created", "qdrant"),
        ("qdrant_edge", "qdrant+edge:////tmp/kioko-never-created", "qdrant-edge"),
        ("qdrant_client", f"qdrant://:{SECRET}@localhost:6333/memories", "qdrant"),
        ("psycopg", f"postgresql://kumar:{SECRET}@localhost/kioko", "postgres"),
    ],
)
def test_a_missing_driver_library_names_the_extra_to_install(library: str, url: str, extra: str) -> None:
    """Without the driver's library, opening raises MissingExtraError naming ``pip install 'kioko[extra]'``."""
    answer = run_python(MISSING_LIBRARY.format(library=library, url=url))
    assert answer["type"] == "MissingExtraError", answer
    assert f"pip install 'kioko[{extra}]'" in answer["message"]
    assert SECRET not in answer["message"]


def test_missing_extra_error_is_an_import_error() -> None:
    """Code that already catches ImportError for optional libraries keeps working."""
    assert issubclass(MissingExtraError, ImportError)
    assert issubclass(MissingExtraError, KiokoError)


# --------------------------------------------------------------------------- register_store


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Registrations made by a test are undone after it."""
    saved = dict(registry._registered)
    try:
        yield
    finally:
        registry._registered.clear()
        registry._registered.update(saved)


class RecordingStore(MemoryStore):
    """A real memory store that remembers how it was opened."""

    opened_with: tuple[StoreURL, dict[str, Any]] | None = None

    @classmethod
    def from_url(cls, url: StoreURL, dim: int | None = None, **options: Any) -> RecordingStore:
        store = cls(dim=dim or 16)
        store.opened_with = (url, {"dim": dim, **options})
        return store


def test_a_registered_class_opens_with_the_parsed_url_and_options(clean_registry: None) -> None:
    """``from_url`` receives a StoreURL and every option given to open_store."""
    register_store("recording", RecordingStore)
    store = open_store("recording://here/there?x=1", dim=12, flavour="plain")
    assert isinstance(store, RecordingStore)
    assert store.dim == 12
    url, options = store.opened_with
    assert isinstance(url, StoreURL)
    assert (url.host, url.path, dict(url.query)) == ("here", "/there", {"x": "1"})
    assert options == {"dim": 12, "flavour": "plain"}


def test_a_registered_factory_without_from_url_is_called(clean_registry: None) -> None:
    """A plain callable is called as ``factory(url, **options)``."""
    calls: list[tuple[StoreURL, dict[str, Any]]] = []

    def factory(url: StoreURL, **options: Any) -> MemoryStore:
        calls.append((url, options))
        return MemoryStore(dim=options.get("dim", 4))

    register_store("factory", factory)
    assert open_store("factory://", dim=6).dim == 6
    assert calls[0][0].scheme == "factory"
    assert calls[0][1] == {"dim": 6}


def test_schemes_are_case_insensitive_and_listed(clean_registry: None) -> None:
    """A scheme registered in mixed case opens in any case and appears in known_schemes()."""
    register_store("MixedCase", RecordingStore)
    assert isinstance(open_store("MIXEDCASE://"), RecordingStore)
    assert "mixedcase" in known_schemes()


def test_a_scheme_cannot_be_taken_twice_without_clobber(clean_registry: None) -> None:
    """Registering a taken scheme (registered or built-in) is refused unless clobber=True."""
    register_store("twice", RecordingStore)
    with pytest.raises(ValueError, match="clobber"):
        register_store("twice", MemoryStore)
    with pytest.raises(ValueError, match="clobber"):
        register_store("sqlite", MemoryStore)
    register_store("twice", MemoryStore.from_url, clobber=True)
    assert type(open_store("twice://")) is MemoryStore


def test_a_dotted_target_is_imported_only_when_opened(
    clean_registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``"module:Class"`` targets load lazily, so a broken driver breaks only its own URLs."""
    module = "kioko_throwaway_driver_" + tmp_path.name.replace("-", "_")
    (tmp_path / f"{module}.py").write_text("import kioko_library_that_is_not_installed\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    register_store("throwaway", f"{module}:Store")
    assert module not in sys.modules
    with pytest.raises(ImportError) as raised:
        open_store("throwaway://")
    assert "kioko_library_that_is_not_installed" in str(raised.value)
    assert isinstance(open_store("memory://"), MemoryStore)


# --------------------------------------------------------------------------- entry points


DRIVER_PACKAGE = '''
"""A third-party Kioko driver, as small as one can be: the reference store under another scheme."""
from kioko_backends.memory import MemoryStore


class ThirdPartyStore(MemoryStore):
    @classmethod
    def from_url(cls, url, dim=None, **options):
        store = cls(dim=int(dim or url.query.get("dim", 32)))
        store.opened_path = url.path
        return store
'''

OPEN_BY_ENTRY_POINT = """
    import json
    import kioko
    from kioko_core.store import Scope, Upsert, Record
    try:
        layer = kioko.connect("thirdparty://somewhere/data?dim=4")
    except kioko.UnknownStoreError as error:
        print(json.dumps({"opened": False, "known": kioko.known_schemes(), "error": str(error)}))
    else:
        store = layer.store.driver
        store.update_many([Upsert(record=Record(id="a", user_id="u", kind="note", embedding=[1, 0, 0, 0]))])
        print(json.dumps({
            "opened": True, "class": type(store).__module__ + "." + type(store).__name__, "dim": store.dim,
            "path": store.opened_path, "known": kioko.known_schemes(),
            "found": [r.id for r in store.get(Scope("u"), ["a"])],
        }))
"""


def build_distribution(site: Path) -> None:
    """Write an installed distribution into ``site``: a package plus its .dist-info with the entry point."""
    package = site / "kioko_thirdparty_driver"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(DRIVER_PACKAGE, encoding="utf-8")
    info = site / "kioko_thirdparty_driver-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: kioko-thirdparty-driver\nVersion: 0.1.0\nRequires-Dist: kioko\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[kioko.stores]\nthirdparty = kioko_thirdparty_driver:ThirdPartyStore\n", encoding="utf-8"
    )
    (info / "top_level.txt").write_text("kioko_thirdparty_driver\n", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


def test_an_installed_distribution_registers_its_scheme_by_entry_point(tmp_path: Path) -> None:
    """A distribution with a ``kioko.stores`` entry point makes kioko.connect('thirdparty://') open its class."""
    build_distribution(tmp_path / "site")
    answer = run_python(OPEN_BY_ENTRY_POINT, extra_path=[tmp_path / "site"])
    assert answer["opened"], answer
    assert answer["class"] == "kioko_thirdparty_driver.ThirdPartyStore"
    assert (answer["dim"], answer["path"], answer["found"]) == (4, "/data", ["a"])
    assert "thirdparty" in answer["known"]
    assert "sqlite" in answer["known"]


def test_without_the_distribution_the_scheme_is_unknown(tmp_path: Path) -> None:
    """The control: the same script fails with UnknownStoreError when the distribution is not on the path."""
    answer = run_python(OPEN_BY_ENTRY_POINT)
    assert not answer["opened"]
    assert "thirdparty" not in answer["known"]


# --------------------------------------------------------------------------- kioko.connect


def test_connect_takes_a_config_dict() -> None:
    """``{"url": ..., **options}`` opens the URL with the options."""
    layer = kioko.connect({"url": "memory://", "dim": 5})
    assert isinstance(layer.store.driver, MemoryStore)
    assert layer.store.dim == 5


def test_connect_refuses_a_config_dict_without_url() -> None:
    """A dict without 'url' is a clear error that shows the expected shape."""
    with pytest.raises(UnknownStoreError, match="url"):
        kioko.connect({"dim": 5})


def test_connect_returns_an_existing_layer_as_it_is() -> None:
    layer = kioko.connect("memory://")
    assert kioko.connect(layer) is layer
    assert isinstance(layer, MemoryLayer)


def test_connect_without_a_target_uses_kioko_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no argument, KIOKO_URL names the store."""
    monkeypatch.setenv("KIOKO_URL", "memory://?dim=7")
    layer = kioko.connect()
    assert isinstance(layer.store.driver, MemoryStore)
    assert layer.store.dim == 7
