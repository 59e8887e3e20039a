"""Drivers outside the repository as the contract grows (issue 28): the contract's version and changelog, failure
notes that say what a driver must add, ``-k`` in a driver's own test file, a driver's own install hint, and a
``dim`` option that can tell "not given" from 256.

A driver is played here by a module in a scratch directory, with a scratch ``.dist-info`` where an entry point
is needed (how an installed package announces it), run by pytest or ``python -m contract_tests`` in a child.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kioko
from contract_tests import CONTRACT_CLASSES
from contract_tests.versions import ADDED, CHANGES, addition_for, since
from kioko_core.errors import MissingExtraError
from kioko_core.store import CONTRACT_VERSION, Record, Scope, Upsert, cosines, reference_cosines
from kioko_core.store.driver import DIM, OPTIONAL_DIM, missing_extra, read_options
from kioko_core.store.registry import open_store
from kioko_core.store.url import StoreURL

ROOT = Path(kioko.__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "drivers.md"
VERSIONS_PAGE = ROOT / "docs" / "drivers-changes.md"

LAST_MONTHS_DRIVER = '''
from kioko_backends.memory import MemoryStore


class LastMonthsStore(MemoryStore):
    """Written against contract 1: get takes a bare string as one id (contract 2 refuses it)."""

    contract_version = 1

    def get(self, scope, ids):
        return super().get(scope, [ids] if isinstance(ids, str) else ids)
'''

OWN_TEST_FILE = """
import pytest
from contract_tests import StoreContractSuite


class TestMyStore(StoreContractSuite):
    @pytest.fixture
    def store_url(self):
        return "{url}"
"""


def driver_site(tmp_path: Path) -> Path:
    """A scratch site: the driver module and a dist-info whose entry point names it ``lastmonth://``."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "kioko_last_month.py").write_text(LAST_MONTHS_DRIVER, encoding="utf-8")
    info = site / "kioko_last_month-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kioko-last-month\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[kioko.stores]\nlastmonth = kioko_last_month:LastMonthsStore\n", encoding="utf-8"
    )
    return site


def child(arguments: list[str], cwd: Path, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("KIOKO_CONTRACT_URL", "PYTEST_ADDOPTS")}
    environment["PYTHONPATH"] = os.pathsep.join([*([str(site)] if site else []), str(ROOT)])
    return subprocess.run(
        [sys.executable, *arguments], capture_output=True, text=True, env=environment, cwd=cwd, timeout=600
    )


def collected(output: str) -> int:
    found = re.search(r"(\d+)(?:/\d+)? tests? (?:collected|selected)", output)
    return int(found.group(1)) if found else 0


def test_k_selects_a_contract_part_in_a_drivers_own_test_file(tmp_path: Path) -> None:
    """Without ``-p contract_tests.conftest`` (which the guide once did not mention, and selected 0 without)."""
    (tmp_path / "test_my_store.py").write_text(OWN_TEST_FILE.format(url="memory://"), encoding="utf-8")
    base = ["-m", "pytest", "test_my_store.py", "--collect-only", "-q", "-p", "no:cacheprovider"]
    plain = child([*base, "-k", "KnnContract"], tmp_path)
    with_plugin = child([*base, "-k", "KnnContract", "-p", "contract_tests.conftest"], tmp_path)
    assert plain.returncode == 0, plain.stdout[-2000:] + plain.stderr[-2000:]
    knn_ids = [line for line in plain.stdout.splitlines() if "::test_" in line]
    assert knn_ids
    assert all("TestMyStore::" in line for line in knn_ids)
    assert {line.split("::")[-1].split("[")[0] for line in knn_ids} == {
        name
        for name in vars(CONTRACT_CLASSES[[c.__name__ for c in CONTRACT_CLASSES].index("KnnContract")])
        if name.startswith("test_")
    }
    assert len(knn_ids) == collected(with_plugin.stdout), with_plugin.stdout[-2000:]


def test_a_failing_newer_test_says_which_version_added_it_and_what_to_add(tmp_path: Path) -> None:
    site = driver_site(tmp_path)
    (tmp_path / "test_my_store.py").write_text(OWN_TEST_FILE.format(url="lastmonth://"), encoding="utf-8")
    result = child(
        ["-m", "pytest", "test_my_store.py", "-q", "-p", "no:cacheprovider", "-k", "a_string_where_a_list_belongs"],
        tmp_path,
        site,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    flat = " ".join(result.stdout.split())
    assert "Contract version 2 (of" in flat
    assert "The store declares contract_version=1." in flat
    assert "a bare string where a list of ids or terms belongs" in flat
    assert "docs/drivers-changes.md" in flat


def test_the_cli_lists_what_changed_since_the_drivers_version_and_what_a_failed_part_needs(tmp_path: Path) -> None:
    site = driver_site(tmp_path)
    result = child(
        ["-m", "contract_tests", "lastmonth://", "-q", "-p", "no:cacheprovider", "-k", "ArgumentContract"],
        ROOT,
        site,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    assert f"contract version {CONTRACT_VERSION}; the store was written for 1" in result.stdout
    for version in range(2, CONTRACT_VERSION + 1):
        assert f"  {version}: {CHANGES[version]}" in result.stdout
    assert "FAIL ArgumentContract" in result.stdout
    assert f"added in contract version 2: {ADDED['ArgumentContract'].must}" in result.stdout


def test_a_passing_store_is_untouched_by_the_notes() -> None:
    """The wrapped tests still take their fixtures and parameters (the reference store passes them)."""
    test = vars(CONTRACT_CLASSES[[c.__name__ for c in CONTRACT_CLASSES].index("ArgumentContract")])[
        "test_a_bad_k_is_refused"
    ]
    assert test.ArgumentContract is True
    assert hasattr(test, "pytestmark")
    with open_store("memory://", dim=8) as store:
        for k in (-1, 1.5, "3", None):
            test(None, store=store, scope=kioko.Scope("versions-user", None), k=k)


def test_versions_changelog_and_guide_agree() -> None:
    assert sorted(CHANGES) == list(range(1, CONTRACT_VERSION + 1))
    names = {c.__name__: c for c in CONTRACT_CLASSES}
    for key, addition in ADDED.items():
        cls_name, _, test_name = key.partition(".")
        assert cls_name in names, key
        if test_name:
            assert test_name in vars(names[cls_name]), key
        assert 2 <= addition.version <= CONTRACT_VERSION, key
        assert cls_name in CHANGES[addition.version], key
    assert addition_for("KnnContract", "test_ties_are_broken_by_id") is ADDED["KnnContract.test_ties_are_broken_by_id"]
    assert addition_for("KnnContract", "test_k_zero_returns_nothing") is None
    assert len(since(None)) == CONTRACT_VERSION
    assert since(CONTRACT_VERSION) == []
    page = VERSIONS_PAGE.read_text(encoding="utf-8")
    for version in CHANGES:
        assert f"\n## Version {version} (" in page, (
            f"docs/drivers-changes.md has no entry for contract version {version}"
        )
    assert "](drivers-changes.md)" in GUIDE.read_text(encoding="utf-8"), "the guide does not link the versions page"


def test_a_third_party_driver_states_its_own_install_hint() -> None:
    error = missing_extra("duckdb", None, ImportError("no duckdb", name="duckdb"), install="pip install 'kioko-duck'")
    assert "pip install 'kioko-duck'" in str(error)
    assert "kioko[" not in str(error)
    assert "pip install 'kioko[postgresql]'" in str(missing_extra("postgresql", "postgresql", ImportError("x")))


def test_an_entry_point_missing_its_library_names_its_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "kioko_needs_lib.py").write_text("import kioko_no_such_library_h28\n", encoding="utf-8")
    (site / "kioko_own_hint.py").write_text(
        textwrap.dedent("""
            from kioko_core.store.driver import missing_extra
            try:
                import kioko_no_such_library_h28
            except ImportError as error:
                raise missing_extra("ownhint", None, error, install="pip install 'own-hint[fast]'") from error
        """),
        encoding="utf-8",
    )
    info = site / "kioko_needs_lib-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kioko-needs-lib\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[kioko.stores]\nneedslib = kioko_needs_lib:Store\nownhint = kioko_own_hint:Store\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(MissingExtraError, match=r"pip install 'kioko-needs-lib' with its dependencies"):
        open_store("needslib://")
    with pytest.raises(MissingExtraError, match=r"pip install 'own-hint\[fast\]'$"):
        open_store("ownhint://")


def test_optional_dim_tells_not_given_from_256() -> None:
    url = StoreURL.parse("mine://")
    assert read_options(url, {}, {"dim": OPTIONAL_DIM})["dim"] is None
    assert read_options(url, {"dim": 256}, {"dim": OPTIONAL_DIM})["dim"] == 256
    assert read_options(StoreURL.parse("mine://?dim=384"), {}, {"dim": OPTIONAL_DIM})["dim"] == 384
    assert read_options(url, {}, {"dim": DIM})["dim"] == 256  # the old option, unchanged for drivers using it


def test_reference_cosines_tie_copies_exactly_and_equal_memorys_scores() -> None:
    """The guide sends a driver re-scoring candidates to reference_cosines: copies of one vector score to the
    bit alike (cosines, a BLAS product, does not promise it), and every score is memory://'s own."""
    rng = np.random.default_rng(28)
    blas_split = 0
    for dim in (8, 384):
        for n in (3, 13, 101):
            rows = [rng.standard_normal(dim).astype(np.float32) for _ in range(n)]
            copies = sorted(int(i) for i in rng.choice(n, size=min(n, 5), replace=False))
            for i in copies:
                rows[i] = rows[copies[0]].copy()
            query = rng.standard_normal(dim).astype(np.float32)
            scores = reference_cosines(query, rows)
            assert len({scores[i] for i in copies}) == 1
            blas_split += len({cosines(query, rows)[i] for i in copies}) > 1
            with open_store("memory://", dim=dim) as store:
                ids = [f"r{i:04d}" for i in range(n)]
                store.update_many(
                    [
                        Upsert(record=Record(id=i, user_id="u", kind="note", content="x", embedding=r))
                        for i, r in zip(ids, rows)
                    ]
                )
                answer = {neighbor.id: neighbor.score for neighbor in store.knn(Scope("u", None), query, n)}
            assert [answer[i] for i in ids] == scores
    print(f"cosines split copies of one vector in {blas_split} of 6 cases")
