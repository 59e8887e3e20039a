"""Session-wide stores for the test matrix, and the CI rule that a store which cannot start fails the run.

Fixtures any test may use: ``postgres_service`` / ``qdrant_service`` (a :class:`services.Service`),
and one ``*_store_url`` per store of the matrix (``memory_store_url`` ... ``qdrant_server_store_url``),
each skipping (or, under ``CI=true``, failing) with the reason when its store cannot start. The
contract matrix gets a PostgreSQL database and a Qdrant collection of its own (``contract_store_url``),
since its stores hold 8-dimensional vectors.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # `import services` from the test modules and here

import services  # noqa: E402
from services import STORES, required_under_ci, store_unavailable, under_ci  # noqa: E402


def _patient_http_defaults(seconds: float = 60.0) -> None:
    """The tests' own httpx calls wait up to ``seconds`` instead of httpx's 5 s. CI runs on a busy 2-core
    machine where a loopback server's first /v1/openapi.json or a key check under load took longer than
    5 s (ReadTimeout in three service tests); a real hang still fails, a minute later. Kioko's clients
    pass their timeouts explicitly, so only calls that left httpx's default change."""
    try:
        import httpx
    except ImportError:  # the service extra is not installed: no HTTP test runs
        return
    patient = httpx.Timeout(seconds)
    functions = (httpx.Client.__init__, httpx.AsyncClient.__init__, httpx.get, httpx.post, httpx.put)
    for function in (*functions, httpx.patch, httpx.delete, httpx.head, httpx.options, httpx.request):
        defaults = function.__kwdefaults__
        if defaults is not None and "timeout" in defaults:
            defaults["timeout"] = patient


_patient_http_defaults()
# The suite's expected rankings, link counts and sample outputs were worked out with the lexical offline
# embedder, which kioko.connect() used by default until the semantic one became the default wherever its
# extra is installed (CI installs every extra). The suite keeps the offline default through the setting
# users have too (inherited by the servers and CLIs it starts); the semantic default has tests of its own
# (test_semantic.py), and KIOKO_EMBEDDER=semantic make test runs the whole suite on it.
os.environ.setdefault("KIOKO_EMBEDDER", "offline")
# The semantic model's prepared copy (kioko_core.embedding.semantic_cache) goes to a folder of the run's own, not the
# user's cache: inherited by the servers and CLIs the suite starts, so only the run's first embedding prepares it.
if not os.environ.get("KIOKO_CACHE_DIR"):
    os.environ["KIOKO_CACHE_DIR"] = tempfile.mkdtemp(prefix="kioko-test-cache-")
    atexit.register(shutil.rmtree, os.environ["KIOKO_CACHE_DIR"], True)

# ONNX Runtime (the semantic embedder) crashes the interpreter when it loads after usearch (both pybind11
# extensions; kioko_backends._ann.load_usearch loads it first for the same reason). Test modules import
# usearch directly (pytest.importorskip), so the suite loads ONNX Runtime before any of them.
if importlib.util.find_spec("onnxruntime") is not None:
    importlib.import_module("onnxruntime")
_outcomes: dict[str, Counter[str]] = defaultdict(Counter)


@pytest.fixture(autouse=True)
def _contexts_within_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every context any test builds in this process stays within its budget (the default one, 2,000 tokens,
    when the test gave none): a context that outgrows it fails the test that built it (#33)."""
    from kioko_core.recall import budget

    fit = budget.fit

    def checked(blocks: list[budget.Block], tokens: int | None) -> budget.Fitted:
        fitted = fit(blocks, tokens)
        if tokens is not None:
            assert budget.count_tokens(fitted.text) <= tokens, (
                f"a context of {budget.count_tokens(fitted.text)} tokens over its budget of {tokens}"
            )
        return fitted

    monkeypatch.setattr(budget, "fit", checked)


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory for the session's file-backed stores."""
    return tmp_path_factory.mktemp("stores")


@pytest.fixture(scope="session")
def postgres_service() -> Iterator[services.Service]:
    """PostgreSQL with pgvector for the whole session (see ``services.start_postgres``)."""
    service = services.start_postgres()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="session")
def qdrant_service() -> Iterator[services.Service]:
    """A Qdrant server for the whole session, when one can be had."""
    service = services.start_qdrant_server()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="session")
def memory_store_url() -> str:
    return "memory://"


@pytest.fixture(scope="session")
def sqlite_store_url(session_dir: Path) -> str:
    return f"sqlite:///{session_dir / 'contract.db'}"


@pytest.fixture(scope="session")
def postgresql_store_url(postgres_service: services.Service) -> str:
    """The session's PostgreSQL server, its default database (stores opened here share its tables)."""
    if not postgres_service.available:
        store_unavailable("postgresql", postgres_service.how)
    return postgres_service.url  # type: ignore[return-value]


@pytest.fixture(scope="session")
def postgresql_contract_url(postgresql_store_url: str, postgres_service: services.Service) -> str:
    """A database of the contract matrix's own: its dim-8 tables must not meet other tests' dim-256 ones."""
    try:
        return services.postgres_database(postgres_service, "kioko_contract")
    except Exception as error:
        store_unavailable("postgresql", f"cannot create a database for the contract suite: {error}")
        raise


@pytest.fixture(scope="session")
def postgresql_partitioned_contract_url(postgresql_store_url: str, postgres_service: services.Service) -> str:
    """A database of its own whose tables are hash-partitioned by user (``?partitions=4``)."""
    try:
        url = services.postgres_database(postgres_service, "kioko_partitioned")
    except Exception as error:
        store_unavailable("postgresql-partitioned", f"cannot create a database for the partitioned tables: {error}")
        raise
    return url + ("&" if "?" in url else "?") + "partitions=4"


@pytest.fixture(scope="session")
def qdrant_local_store_url(session_dir: Path) -> str:
    return f"qdrant+local:///{session_dir / 'qdrant'}"


@pytest.fixture(scope="session")
def qdrant_edge_store_url(session_dir: Path) -> str:
    return f"qdrant+edge:///{session_dir / 'qdrant-edge'}"


@pytest.fixture(scope="session")
def qdrant_server_store_url(qdrant_service: services.Service) -> str:
    """A fresh collection on the session's Qdrant server (deleted when the session ends)."""
    if not qdrant_service.available:
        store_unavailable("qdrant-server", qdrant_service.how)
    return services.qdrant_collection(qdrant_service, "kioko_tests")


@pytest.fixture(scope="session")
def qdrant_server_contract_url(qdrant_server_store_url: str, qdrant_service: services.Service) -> str:
    """A collection of the contract matrix's own on the Qdrant server."""
    return services.qdrant_collection(qdrant_service, "kioko_contract")


CONTRACT_URL_FIXTURES = {
    "memory": "memory_store_url",
    "sqlite": "sqlite_store_url",
    "postgresql": "postgresql_contract_url",
    "postgresql-partitioned": "postgresql_partitioned_contract_url",
    "qdrant-local": "qdrant_local_store_url",
    "qdrant-edge": "qdrant_edge_store_url",
    "qdrant-server": "qdrant_server_contract_url",
}


@pytest.fixture
def contract_store_url(request: pytest.FixtureRequest, matrix_store: str) -> str:
    """The URL the contract matrix tests for store ``matrix_store`` (its own database or collection)."""
    return request.getfixturevalue(CONTRACT_URL_FIXTURES[matrix_store])


_store_of_test: dict[str, str] = {}


def _keep_file_order(items: list[pytest.Item]) -> None:
    """Tests of a module marked ``in_order`` run in the order the file defines them, wherever the random order
    put the module: each leaves the state the next one starts from (a killed primary, a promoted standby)."""
    slots: dict[str, list[int]] = {}  # each module's own places in the run, reordered among themselves
    for i, item in enumerate(items):
        if item.get_closest_marker("in_order") is not None:
            slots.setdefault(str(item.path), []).append(i)

    def defined(item: pytest.Item) -> tuple[int, str]:
        function = getattr(item, "function", None)
        return (function.__code__.co_firstlineno if function is not None else 0, item.nodeid)

    for places in slots.values():
        for slot, item in zip(places, sorted((items[i] for i in places), key=defined)):
            items[slot] = item


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Note each test's matrix store; mark the Qdrant server's tests skipped up front when it cannot start.

    Deciding before the run (an environment variable, a Docker ping) turns a hundred identical skips
    into one folded line per file in the summary, and the store matrix section names the reason.
    """
    _keep_file_order(items)
    qdrant_server_missing: str | None = None
    for item in items:
        callspec = getattr(item, "callspec", None)
        store = callspec.params.get("matrix_store") if callspec is not None else None
        if store not in STORES:
            continue
        _store_of_test[item.nodeid] = store
        if store == "qdrant-server":
            if qdrant_server_missing is None:
                qdrant_server_missing = services.qdrant_server_unavailable() or ""
            # a job that promises the server (KIOKO_TEST_REQUIRE) lets its tests run: the fixture then fails
            if qdrant_server_missing and not (under_ci() and store in required_under_ci()):
                services.UNAVAILABLE[store] = qdrant_server_missing
                item.add_marker(pytest.mark.skip(reason=f"qdrant-server store not run: {qdrant_server_missing}"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Each report names its matrix store (and why it could not start), so the store matrix summary also works
    under pytest-xdist, whose controlling process collects nothing and sees only the workers' reports."""
    outcome = yield
    store = _store_of_test.get(item.nodeid)
    if store is not None:
        report = outcome.get_result()
        report.user_properties.append(("matrix_store", store))
        if store in services.UNAVAILABLE:
            report.user_properties.append(("store_unavailable", services.UNAVAILABLE[store]))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    properties = dict(report.user_properties)
    store = properties.get("matrix_store")
    if store is None:
        return
    if "store_unavailable" in properties:
        services.UNAVAILABLE.setdefault(store, properties["store_unavailable"])
    if (
        report.when == "call"
        or (report.when == "setup" and not report.passed)
        or (report.when == "teardown" and report.failed)
    ):
        _outcomes[store]["error" if report.failed and report.when != "call" else report.outcome] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per matrix store: what ran, and for a store that could not start, why."""
    if not _outcomes:
        return
    terminalreporter.section("store matrix")
    for store in STORES:
        counts = _outcomes.get(store)
        if not counts:
            continue
        shown = ", ".join(f"{counts[o]} {o}" for o in ("passed", "failed", "error", "skipped") if counts[o])
        line = f"{store:<14} {shown}"
        if store in services.UNAVAILABLE:
            line += f"  -- NOT RUN: {services.UNAVAILABLE[store]}"
        terminalreporter.write_line(line)
