"""The whole store contract on every store of the matrix: memory, SQLite, PostgreSQL, Qdrant local and server.

Each store is opened once per session (one SQLite file, one PostgreSQL server, one Qdrant directory or
collection); the contract tests isolate themselves with fresh scopes, so the stores fill up as the run
goes, which is part of the point: a driver must stay right on a store that holds other data.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from services import STORES

import kioko
from contract_tests import StoreContractSuite

PROJECT_ROOT = Path(kioko.__file__).resolve().parent.parent


@pytest.fixture(scope="module", params=STORES)
def matrix_store(request: pytest.FixtureRequest) -> str:
    """The name of the store under test; module scope groups each store's tests together."""
    return request.param


class TestContractMatrix(StoreContractSuite):
    """Every contract test, once per store."""

    @pytest.fixture
    def store_url(self, contract_store_url: str) -> str:
        return contract_store_url


# --------------------------------------------------------------------------- the suite itself

# Broken stores, each the reference with one defect, installed as a real third-party distribution so
# `python -m contract_tests` opens them by URL exactly as it would a stranger's driver.
MUTANTS = '''
from kioko_backends.memory import MemoryStore
from kioko_core.store import Delete, Postings, Upsert


class LeakyGet(MemoryStore):
    """get ignores the scope."""
    def get(self, scope, ids):
        return [self._records.get(i) for i in ids]


class PiecemealBatch(MemoryStore):
    """update_many applies op by op, so a failing op leaves the earlier ones written."""
    def update_many(self, ops):
        return [super(PiecemealBatch, self).update_many([op])[0] for op in ops]


class ShortFilteredKnn(MemoryStore):
    """knn with a filter drops its last neighbour, like a post-filtered ANN index."""
    def knn(self, scope, vector, k, filter=None):
        found = super().knn(scope, vector, k, filter)
        return found[:-1] if filter is not None and found else found


class StutteringScan(MemoryStore):
    """scan yields the first record twice."""
    def scan(self, scope, filter=None, batch=500):
        for position, record in enumerate(super().scan(scope, filter, batch)):
            yield record
            if position == 0:
                yield record


class OldestFirstPostings(MemoryStore):
    """postings lists ids oldest first."""
    def postings(self, scope, terms, limit):
        answer = super().postings(scope, terms, 10**6)
        ids = {t: list(reversed(i))[:limit] for t, i in answer.ids.items()}
        return Postings(answer.n, answer.df, ids)


class BlindVersions(MemoryStore):
    """update_many ignores expected_version."""
    def update_many(self, ops):
        return super().update_many([op.model_copy(update={"expected_version": None}) for op in ops])
'''

MUTANT_CHECKS = {
    "leakyget": ("LeakyGet", "IsolationContract or GetContract"),
    "piecemeal": ("PiecemealBatch", "AtomicityContract"),
    "shortknn": ("ShortFilteredKnn", "KnnContract"),
    "stutterscan": ("StutteringScan", "ScanContract"),
    "oldestfirst": ("OldestFirstPostings", "PostingsContract"),
    "blindversions": ("BlindVersions", "VersionContract"),
}


@pytest.fixture(scope="module")
def mutant_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site directory holding the broken stores as an installed distribution with entry points."""
    site = tmp_path_factory.mktemp("mutants")
    (site / "kioko_contract_mutants.py").write_text(MUTANTS, encoding="utf-8")
    info = site / "kioko_contract_mutants-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: kioko-contract-mutants\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[kioko.stores]\n"
        + "".join(f"{scheme} = kioko_contract_mutants:{cls}\n" for scheme, (cls, _) in MUTANT_CHECKS.items()),
        encoding="utf-8",
    )
    return site


def run_contract_cli(*arguments: str, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m contract_tests ARGUMENTS`` in a fresh interpreter, the project (and ``site``) importable."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([*([str(site)] if site else []), str(PROJECT_ROOT)])
    environment.pop("KIOKO_CONTRACT_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "contract_tests", *arguments, "-q", "-p", "no:randomly"],
        capture_output=True,
        text=True,
        env=environment,
        cwd=PROJECT_ROOT,
        check=False,
    )


@pytest.mark.parametrize("scheme", sorted(MUTANT_CHECKS))
def test_the_suite_fails_a_store_with_one_defect(mutant_site: Path, scheme: str) -> None:
    """Each broken store fails its part of the contract, and python -m contract_tests exits non-zero."""
    _, parts = MUTANT_CHECKS[scheme]
    result = run_contract_cli(f"{scheme}://", "-k", parts, site=mutant_site)
    assert result.returncode == 1, f"the defect in {scheme}:// went unnoticed:\n{result.stdout[-3000:]}"
    assert "FAIL " in result.stdout
    assert " failed" in result.stdout


def test_the_cli_passes_the_reference_store_and_summarises_each_part() -> None:
    """On memory:// the chosen parts pass, exit 0, and the summary names each part with its outcome."""
    result = run_contract_cli("memory://", "-k", "PostingsContract or ScanContract or PersistenceContract")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "capabilities: transactions=True" in result.stdout
    for line in ("ok   PostingsContract", "ok   ScanContract", "skipped: the store declares persistent=False"):
        assert line in result.stdout


def test_the_cli_counts_no_test_run_as_a_failure() -> None:
    """A selection that matches nothing (pytest's status 5) exits 1, not 0."""
    result = run_contract_cli("memory://", "-k", "no_contract_test_has_this_name")
    assert result.returncode == 1
    assert "no contract test ran" in result.stderr


def test_the_cli_refuses_a_store_it_cannot_open() -> None:
    """An unknown scheme stops the run before pytest, with status 2 and the known schemes."""
    result = run_contract_cli("nosuchstore://")
    assert result.returncode == 2
    assert "known schemes" in result.stderr
