"""The driver guide's example, ``jsonl://`` in ``docs/example_driver/``, keeps doing what the guide says.

``docs/drivers.md`` prints the example's source, its ``pyproject.toml`` and its test file, and tells
driver authors that the driver passes the whole contract suite and opens through its entry point. These
tests hold the guide to that, without installing anything into the environment:

* every listing in the guide is byte for byte the file it names, so what readers copy is what runs here;
* ``python -m contract_tests jsonl:///...`` passes in a child process that imports the module from a
  scratch directory and registers it with ``kioko.register_store``;
* the entry-point stanza of the example's ``pyproject.toml`` opens the driver through ``kioko.connect``:
  the child sees a scratch ``.dist-info`` directory written from that stanza, which is exactly how an
  installed package announces its entry points, so no ``register_store`` is involved;
* the example's own test file (the suite subclass the guide shows) passes under pytest the same way.

Each child gets a copy of ``kioko_jsonl.py`` in a scratch directory rather than ``docs/example_driver``
itself, so leftovers of an editable install there (``*.egg-info``) cannot make a test pass.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "drivers.md"
EXAMPLE = REPO / "docs" / "example_driver"
CHILD_PATIENCE = 600
"""Seconds a child run may take before it counts as hung (a guard against deadlock, not a timing check)."""

EXPECTED_SKIPS = {
    "the store declares multi_process=False, so it is never opened by two processes at once",
    "the store URL has no password, so there is none to hide",
}
"""The only contract tests the example may skip: it declares multi_process=False and has no password."""

REGISTER_AND_RUN_SUITE = """
import sys
from kioko import register_store
from kioko_jsonl import JsonlStore
register_store("jsonl", JsonlStore)
from contract_tests.__main__ import main
sys.exit(main(sys.argv[1:]))
"""

CONNECT_THROUGH_ENTRY_POINT = """
import sys
import kioko
from kioko_core import registry
url = sys.argv[1]
assert not registry._registered, "this check must not rely on register_store"
layer = kioko.connect(url)
stored = layer.add("Kumar prefers green tea in the morning", user_id="kumar")
layer.close()
again = kioko.connect(url)
[found] = again.store.get(kioko.Scope("kumar"), [stored.id])
print(type(again.store).__name__, again.store.dim, found.content, found.version)
again.close()
"""


def listings(markdown: str) -> dict[str, str]:
    """The code blocks marked ``<!-- include: example_driver/PATH -->`` in the guide, by PATH."""
    pattern = re.compile(r"<!-- include: example_driver/(\S+) -->\n```[a-z]*\n(.*?)^```$", re.S | re.M)
    return {path: body for path, body in pattern.findall(markdown)}


def scratch_site(tmp_path: Path, with_entry_point: bool) -> Path:
    """A directory holding a copy of the driver module, and optionally its entry point's metadata."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(EXAMPLE / "kioko_jsonl.py", site)
    if with_entry_point:
        project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        metadata = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
        metadata.mkdir()
        (metadata / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8")
        stores = project["entry-points"]["kioko.stores"]
        lines = "".join(f"{name} = {target}\n" for name, target in stores.items())
        (metadata / "entry_points.txt").write_text(f"[kioko.stores]\n{lines}", encoding="utf-8")
    return site


def run_child(arguments: list[str], site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run Python with the scratch site and this checkout importable; output is kept for the assertion."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(site), str(REPO), *filter(None, [environment.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, *arguments], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=CHILD_PATIENCE)


def assert_suite_passed(result: subprocess.CompletedProcess[str]) -> None:
    """Exit status 0, over a hundred tests passed, none failed, and only the expected ones were skipped."""
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"the contract suite failed on the example driver:\n{output[-6000:]}"
    totals = [line for line in output.splitlines() if re.search(r"\d+ passed.* in [\d.]+s", line)]
    assert totals, f"no pytest summary line in the output:\n{output[-3000:]}"
    counts = {outcome: int(number) for number, outcome in re.findall(r"(\d+) (\w+)", totals[-1])}
    assert counts.get("passed", 0) >= 100 and not counts.get("failed"), totals[-1]
    reasons = set(re.findall(r"SKIPPED \[\d+\] [^:]+:\d+: (.+)", output))
    assert reasons <= EXPECTED_SKIPS, f"unexpected skips: {sorted(reasons - EXPECTED_SKIPS)}"


def test_the_guide_lists_the_example_files_verbatim() -> None:
    """The driver, its pyproject.toml and its test file appear in docs/drivers.md exactly as they are."""
    shown = listings(GUIDE.read_text(encoding="utf-8"))
    assert set(shown) == {"kioko_jsonl.py", "pyproject.toml", "tests/test_contract.py"}, sorted(shown)
    for path, body in shown.items():
        assert body == (EXAMPLE / path).read_text(encoding="utf-8"), (
            f"docs/drivers.md shows another docs/example_driver/{path} than the real one: update the listing")


def test_python_m_contract_tests_passes_with_register_store(tmp_path: Path) -> None:
    """``python -m contract_tests jsonl:///...`` passes when the driver is registered at run time."""
    site = scratch_site(tmp_path, with_entry_point=False)
    url = f"jsonl://{tmp_path}/contract.jsonl"
    result = run_child(["-c", REGISTER_AND_RUN_SUITE, url, "-q"], site, tmp_path)
    assert_suite_passed(result)
    assert "ok   PersistenceContract" in result.stdout, "the persistence tests must run, not skip"


def test_entry_point_stanza_opens_the_driver_through_connect(tmp_path: Path) -> None:
    """kioko.connect("jsonl:///...") finds JsonlStore through the stanza alone, and data survives a reopen."""
    site = scratch_site(tmp_path, with_entry_point=True)
    result = run_child(["-c", CONNECT_THROUGH_ENTRY_POINT, f"jsonl://{tmp_path}/memories.jsonl"], site, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["JsonlStore", "256", *"Kumar prefers green tea in the morning".split(), "1"]


def test_the_examples_own_test_file_passes(tmp_path: Path) -> None:
    """The suite subclass in docs/example_driver/tests passes under pytest, the scheme found by entry point."""
    site = scratch_site(tmp_path, with_entry_point=True)
    result = run_child(["-m", "pytest", str(EXAMPLE / "tests"), "-q", "-p", "no:cacheprovider",
                        "--rootdir", str(EXAMPLE)], site, tmp_path)
    assert_suite_passed(result)
