"""The driver guide's example, ``jsonl://`` in ``docs/example_driver/``, keeps doing what the guide says.

``docs/drivers.md`` links the example's source, its ``pyproject.toml`` and its test file, and tells
driver authors that the driver passes the whole contract suite and opens through its entry point. These
tests hold the guide to that, without installing anything into the environment:

* the guide links each example file (and pastes none), and the snippets it shows are in those files;
* ``python -m contract_tests jsonl:///...`` passes in a child process that imports the module from a
  scratch directory and registers it with ``kioko.register_store``;
* the entry-point stanza of the example's ``pyproject.toml`` opens the driver through ``kioko.connect``:
  the child sees a scratch ``.dist-info`` directory written from that stanza, which is exactly how an
  installed package announces its entry points, so no ``register_store`` is involved;
* the example's own test file (the suite subclass the guide shows) passes under pytest the same way;
* its ``transactions=True`` holds when a writer is killed mid-batch, which the suite's crash test only
  checks for stores that also declare ``multi_process`` (this one does not).

Each child gets a copy of ``kioko_jsonl.py`` in a scratch directory rather than ``docs/example_driver``
itself, so leftovers of an editable install there (``*.egg-info``) cannot make a test pass.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from types import ModuleType

from kioko_core.store import Record, Scope, Upsert

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "drivers.md"
EXAMPLE = REPO / "docs" / "example_driver"
CHILD_PATIENCE = 600
"""Seconds a child run may take before it counts as hung (a guard against deadlock, not a timing check)."""

SKIPPABLE_BECAUSE = (
    "multi_process=False",
    "has no password",
    "ScopeGenerations is optional",
    "ScopeChanges is optional",
    "LinkStore is optional",
    "scopes() listing (optional)",
)
"""Why a contract test may skip on the example: it declares multi_process=False, its URL has no password,
and it has none of the optional capabilities a third-party driver need not have (a per-scope write
counter, a change log, links kept apart, a scope listing).

A skip for any other reason (persistent=False, say) means the example stopped being what the guide says.
"""

REGISTER_AND_RUN_SUITE = """
import sys
from kioko import register_store
from kioko_jsonl import JsonlStore
register_store("jsonl", JsonlStore)
from contract_tests.__main__ import main
sys.exit(main(sys.argv[1:]))
"""

WRITE_ONE_BIG_BATCH = """
import sys
from kioko_core.store import Record, Scope, Upsert
from kioko_jsonl import JsonlStore
path, user, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = JsonlStore(path, dim=8)
ops = [Upsert(record=Record(id=f"{user}-{n:05d}", user_id=user, kind="note", content="x" * 2000,
                           terms=["crash", str(n)], embedding=[1.0] + [0.5] * 7)) for n in range(count)]
print("ready", flush=True)
store.update_many(ops)
print("done", flush=True)
"""

CONNECT_THROUGH_ENTRY_POINT = """
import sys
import kioko
from kioko_core.store import registry
url = sys.argv[1]
assert not registry._registered, "this check must not rely on register_store"
layer = kioko.connect(url)
stored = layer.add("Kumar prefers green tea in the morning", user_id="kumar")
layer.close()
again = kioko.connect(url)
[found] = again.store.get(kioko.Scope("kumar"), [stored.id])
print(type(again.store.driver).__name__, again.store.dim, found.content, found.version)
again.close()
"""


EXAMPLE_FILES = ("kioko_jsonl.py", "pyproject.toml", "tests/test_contract.py")


def code_blocks(markdown: str) -> list[str]:
    """The bodies of the guide's fenced code blocks."""
    return re.findall(r"^```[a-z]*\n(.*?)^```$", markdown, re.S | re.M)


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
            f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8"
        )
        stores = project["entry-points"]["kioko.stores"]
        lines = "".join(f"{name} = {target}\n" for name, target in stores.items())
        (metadata / "entry_points.txt").write_text(f"[kioko.stores]\n{lines}", encoding="utf-8")
    return site


def load_driver(site: Path) -> ModuleType:
    """The scratch copy of the driver module, loaded under a private name without touching sys.path."""
    spec = importlib.util.spec_from_file_location(f"kioko_jsonl_copy_{abs(hash(site))}", site / "kioko_jsonl.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_child(arguments: list[str], site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run Python with the scratch site and this checkout importable; output is kept for the assertion."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO), *filter(None, [environment.get("PYTHONPATH")])])
    return subprocess.run(
        [sys.executable, *arguments], cwd=cwd, env=environment, capture_output=True, text=True, timeout=CHILD_PATIENCE
    )


def assert_suite_passed(result: subprocess.CompletedProcess[str]) -> None:
    """Exit status 0, over a hundred tests passed, none failed, and only the expected ones were skipped."""
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"the contract suite failed on the example driver:\n{output[-6000:]}"
    totals = [line for line in output.splitlines() if re.search(r"\d+ passed.* in [\d.]+s", line)]
    assert totals, f"no pytest summary line in the output:\n{output[-3000:]}"
    counts = {outcome: int(number) for number, outcome in re.findall(r"(\d+) (\w+)", totals[-1])}
    assert counts.get("passed", 0) >= 100, totals[-1]
    assert not counts.get("failed"), totals[-1]
    reasons = set(re.findall(r"SKIPPED \[\d+\] [^:]+:\d+: (.+)", output))
    unexpected = [reason for reason in reasons if not any(allowed in reason for allowed in SKIPPABLE_BECAUSE)]
    assert not unexpected, f"contract tests skipped for reasons the example should not have: {unexpected}"


def test_the_guide_links_the_example_files_and_shows_only_what_they_hold() -> None:
    """Each example file is linked and exists; every snippet of the example the guide shows is in it."""
    guide = GUIDE.read_text(encoding="utf-8")
    for path in EXAMPLE_FILES:
        assert f"](example_driver/{path})" in guide, f"docs/drivers.md does not link example_driver/{path}"
        assert (EXAMPLE / path).is_file()
    sources = {path: (EXAMPLE / path).read_text(encoding="utf-8") for path in EXAMPLE_FILES}
    for block in code_blocks(guide):
        if "class TestJsonlStore" in block or "kioko.stores" in block:
            home = "tests/test_contract.py" if "class TestJsonlStore" in block else "pyproject.toml"
            missing = [line for line in block.splitlines() if line.strip() and line.strip() not in sources[home]]
            assert not missing, f"the guide shows lines that example_driver/{home} does not hold: {missing}"
        assert not any(block.strip() == source.strip() for source in sources.values()), "a whole file is pasted"


def test_the_guide_is_short_and_names_no_machine_paths() -> None:
    """About 300 lines, no session transcript and no paths of the machine it was written on."""
    guide = GUIDE.read_text(encoding="utf-8")
    assert len(guide.splitlines()) <= 350
    assert not re.search(r"/(work|home|Users|root)/|\$ cd |wt-drivers", guide)


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
    result = run_child(
        ["-m", "pytest", str(EXAMPLE / "tests"), "-q", "-p", "no:cacheprovider", "--rootdir", str(EXAMPLE)],
        site,
        tmp_path,
    )
    assert_suite_passed(result)


def test_a_killed_writer_leaves_its_batch_whole_or_absent(tmp_path: Path) -> None:
    """SIGKILL a process at several moments of a 1,500-record batch: reopened, the batch is all there or not at all.

    This is the promise behind the example's ``transactions=True``: a batch is one line, and a torn last
    line is dropped on open. The kill delays only vary where the kill lands; nothing asserts on timing.
    """
    site = scratch_site(tmp_path, with_entry_point=False)
    path, count = tmp_path / "crash.jsonl", 1500
    driver = load_driver(site)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(REPO)]))
    for attempt, delay in enumerate((0.0, 0.05, 0.2, 0.6)):
        user = f"writer-{attempt}"
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITE_ONE_BIG_BATCH, str(path), user, str(count)],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert writer.stdout is not None
            assert writer.stdout.readline().strip() == "ready"
            time.sleep(delay)  # not a timing assertion: it only varies where the kill lands
        finally:
            writer.kill()
            writer.communicate(timeout=CHILD_PATIENCE)
        store = driver.JsonlStore(str(path))  # the dead writer's lock went with its process
        try:
            ids = [f"{user}-{n:05d}" for n in range(count)]
            present = sum(record is not None for record in store.get(Scope(user), ids))
            assert present in (0, count), f"killed after {delay} s, the batch is half there: {present}/{count}"
            probe = Record(id=f"probe-{attempt}", user_id=user, kind="note")
            assert store.update_many([Upsert(record=probe)])[0].version == 1  # the file takes writes again
        finally:
            store.close()


def test_a_torn_last_batch_is_dropped_on_open(tmp_path: Path) -> None:
    """Half a batch line at the end of the file (what a crash mid-write leaves) is cut off; the rest stays."""
    site = scratch_site(tmp_path, with_entry_point=False)
    driver = load_driver(site)
    path, scope = tmp_path / "torn.jsonl", Scope("kumar")
    kept, torn, later = (
        Record(id=name, user_id="kumar", kind="note", terms=["t"]) for name in ("kept", "torn", "later")
    )
    store = driver.JsonlStore(str(path), dim=8)
    store.update_many([Upsert(record=kept)])
    store.update_many([Upsert(record=torn)])
    store.close()
    whole = path.read_bytes()
    last_line = whole[whole.rstrip(b"\n").rfind(b"\n") + 1 :]
    path.write_bytes(whole[: len(whole) - len(last_line)] + last_line[: len(last_line) // 2])  # no newline
    store = driver.JsonlStore(str(path))
    try:
        assert [r.id if r else None for r in store.get(scope, ["kept", "torn"])] == ["kept", None]
        store.update_many([Upsert(record=later)])
    finally:
        store.close()
    store = driver.JsonlStore(str(path))
    try:
        assert [r.id if r else None for r in store.get(scope, ["kept", "torn", "later"])] == ["kept", None, "later"]
        assert store.postings(scope, ["t"], limit=5).df == {"t": 2}
    finally:
        store.close()
