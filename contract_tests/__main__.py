"""``python -m contract_tests URL [pytest options]``: the whole contract suite against one store.

Prints the store's declared capabilities, runs every contract test with pytest, prints how each part
of the contract fared (with the reasons for anything skipped), and exits with pytest's status; a run in
which no test ran (pytest's status 5, e.g. a ``-k`` that matches nothing) counts as a failure.

Examples::

    python -m contract_tests memory://
    python -m contract_tests sqlite:////tmp/contract.db -x -q
    python -m contract_tests 'postgresql://me:secret@localhost/kioko' -k Knn
"""

from __future__ import annotations

import os
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

# only light imports before pytest starts: the contract modules must be imported under its assert rewriting
from contract_tests import URL_ENVIRONMENT_VARIABLE
from contract_tests.versions import ADDED, since
from kioko_core.store import CONTRACT_VERSION, KiokoError
from kioko_core.store.registry import open_store
from kioko_core.store.url import StoreURL

DIM = 8
"""The vector length the suite opens stores with (``contract_tests.support.DIM``)."""

USAGE = __doc__.split("\n\n")[0] + "\n\nusage: python -m contract_tests URL [pytest options]"


class ContractTally:
    """A pytest plugin object that counts outcomes per contract class and keeps skip reasons."""

    def __init__(self) -> None:
        self.owner: dict[str, str] = {}
        self.outcomes: dict[str, Counter[str]] = defaultdict(Counter)
        self.skip_reasons: dict[str, set[str]] = defaultdict(set)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            function = getattr(item, "function", None)
            qualified = getattr(function, "__qualname__", "")
            self.owner[item.nodeid] = qualified.split(".")[0] if "." in qualified else "other"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        part = self.owner.get(report.nodeid, "other")
        if report.when == "call":
            outcome = report.outcome
        elif report.failed:
            outcome = "error"
        elif report.skipped and report.when == "setup":
            outcome = "skipped"
        else:
            return
        self.outcomes[part][outcome] += 1
        if outcome == "skipped" and isinstance(report.longrepr, tuple):
            self.skip_reasons[part].add(str(report.longrepr[2]).removeprefix("Skipped: "))

    def summary(self) -> str:
        from contract_tests.suite import CONTRACT_CLASSES  # imported by the run by now

        order = [cls.__name__ for cls in CONTRACT_CLASSES] + sorted(
            set(self.outcomes) - {cls.__name__ for cls in CONTRACT_CLASSES}
        )
        lines = ["", "contract summary:"]
        for part in order:
            counts = self.outcomes.get(part)
            if not counts:
                continue
            shown = ", ".join(f"{counts[o]} {o}" for o in ("passed", "failed", "error", "skipped") if counts[o])
            verdict = "FAIL" if counts["failed"] or counts["error"] else "ok"
            lines.append(f"  {verdict:<4} {part:<24} {shown}")
            if verdict == "FAIL" and part in ADDED:  # what a driver written before this part must add
                lines.append(f"{'':31}added in contract version {ADDED[part].version}: {ADDED[part].must}")
            lines.extend(f"{'':31}skipped: {reason}" for reason in sorted(self.skip_reasons.get(part, ())))
        return "\n".join(lines)


def describe(url: str) -> str:
    """A few lines naming the store and its capabilities; opening it also proves the URL works."""
    store = open_store(url, dim=DIM)
    try:
        declared = store.capabilities
        flags = ", ".join(
            f"{name}={getattr(declared, name)}"
            for name in ("transactions", "native_knn", "persistent", "multi_process", "approximate_knn")
        )
        lines = [
            f"store: {StoreURL.parse(url).render()} ({type(store).__name__}, dim={store.dim})",
            f"capabilities: {flags}",
        ]
        lines.extend(f"note: {note}" for note in declared.notes)
        lines.extend(contract_lines(getattr(store, "contract_version", None)))
        return "\n".join(lines)
    finally:
        store.close()


def contract_lines(declared: Any) -> list[str]:
    """The suite's contract version and, for a store that says which one it was written for, what changed since."""
    if not isinstance(declared, int) or isinstance(declared, bool):
        return [f"contract version {CONTRACT_VERSION} (the store declares no contract_version)"]
    if declared >= CONTRACT_VERSION:
        return [f"contract version {CONTRACT_VERSION} (the store was written for {declared})"]
    changed = since(declared)
    return [
        f"contract version {CONTRACT_VERSION}; the store was written for {declared}, and since then the contract "
        "added (docs/drivers-changes.md):",
        *(f"  {line}" for line in changed),
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the suite; return the process exit status."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments or arguments[0] in {"-h", "--help"}:
        print(USAGE)
        return 0 if arguments else 2
    url, pytest_arguments = arguments[0], arguments[1:]
    try:
        print(describe(url), flush=True)
    except (KiokoError, ValueError, ImportError, OSError) as error:
        print(f"cannot open the store: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    os.environ[URL_ENVIRONMENT_VARIABLE] = url
    tally = ContractTally()
    # no cache directory: the suite may run from a read-only site-packages
    status = pytest.main(
        [str(Path(__file__).with_name("test_store_url.py")), "-p", "no:cacheprovider", *pytest_arguments],
        plugins=[tally],
    )
    print(tally.summary())
    if status == pytest.ExitCode.NO_TESTS_COLLECTED:
        print("no contract test ran: that is a failure, not a pass", file=sys.stderr)
        return 1
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
