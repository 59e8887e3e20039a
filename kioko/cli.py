"""The ``kioko`` command: ``kioko demo``, ``kioko connect``, ``kioko related``, ``kioko manage``."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

DEMO_USER = "kumar-demo"


def _demo(args: argparse.Namespace) -> int:
    from . import connect, default_url

    url = args.store or default_url()
    memory = connect(url, auto_link=True)
    try:
        memory.forget_user(user_id=DEMO_USER)  # the demo starts from the same memories every run
        run_quick_start(memory, DEMO_USER, out=sys.stdout)
    finally:
        memory.close()
    print(f"\n(store: {memory.store!r}; user {DEMO_USER!r})")
    return 0


def run_quick_start(memory, user: str, out=sys.stdout) -> dict[str, str]:
    """Section 1 of the spec: nine memories, the links they make, and a recall that follows them."""
    import time

    t0 = time.time() - 3600
    ids: dict[str, str] = {}
    ids["goal"] = memory.goals.add("Ship the Kioko memory layer by December 15", user_id=user, created_at=t0).id
    memory.graph.add("Kioko", "uses", "pgvector", user_id=user)
    ids["decision"] = memory.decisions.add("We decided to use pgvector because we already run Postgres.",
                                           user_id=user, created_at=t0 + 60).id
    ids["jam"] = memory.episodes.add("The line 3 conveyor jammed twice this morning.", user_id=user,
                                     session_id="s1", created_at=t0 + 120).id
    ids["fault"] = memory.episodes.add("Line 3 keeps faulting with error E-217.", user_id=user, session_id="s1",
                                       created_at=t0 + 180).id
    ids["fix"] = memory.episodes.add("Found it: the encoder cable on line 3 was loose.", user_id=user,
                                     session_id="s1", created_at=t0 + 200).id
    ids["procedure"] = memory.procedures.add(
        "Clear a conveyor jam on line 3", ["Press stop", "Open the guard", "Remove the jammed bottle", "Reset the drive"],
        user_id=user, created_at=t0 + 300).id
    ids["lesson"] = memory.strategies.add(
        "reset the drive before reopening the guard (1/1 worked). Lesson: always check the photo-eye alignment "
        "after a jam", context="clearing conveyor jams", user_id=user, created_at=t0 + 400).id
    ids["tea"] = memory.preferences.add("User likes green tea.", user_id=user, created_at=t0 + 500).id
    ids["plc"] = memory.facts.add("The plant's PLC network uses the 10.20.0.0/16 subnet.", user_id=user,
                                  created_at=t0 + 600).id

    print("Links made at write time:", file=out)
    seen: set[tuple[str, str]] = set()
    for memory_id in ids.values():
        for link in memory.graph.links(memory_id, user_id=user):
            if (link.source, link.target) not in seen:
                seen.add((link.source, link.target))
                print(f"- {link.line()}\n    why: {link.why} | weight {link.weight:.3f} | by {link.by}", file=out)
    question = "line 3 is faulting with E-217 again"
    print(f"\nrecall({question!r}):\n", file=out)
    print(memory.recall(question, user_id=user).text, file=out)
    return ids


def _connect(args: argparse.Namespace) -> int:
    from . import connect

    memory = connect(args.store, auto_link=True)
    try:
        from tqdm import tqdm

        with tqdm(desc="linking", unit="memory", disable=args.quiet) as bar:
            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            result = memory.graph.connect(user_id=args.user, rebuild=args.rebuild, progress=progress)
    finally:
        memory.close()
    print(result)
    return 0


def _related(args: argparse.Namespace) -> int:
    from . import connect

    memory = connect(args.store)
    try:
        for item in memory.graph.related(args.memory_id, depth=args.depth, user_id=args.user):
            chain = " -> ".join(link.type for link in item.path)
            print(f"{item.score:.4f}  {item.record.content[:80]}  [{chain}]")
    finally:
        memory.close()
    return 0


def _manage(args: argparse.Namespace) -> int:
    from . import connect, default_url

    memory = connect(args.store or default_url())
    try:
        report = memory.manage(args.text, user_id=args.user, agent_id=args.agent, session_id=args.session,
                               dry_run=args.dry_run)
    finally:
        memory.close()
    if args.json:
        import json

        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.summary() + ("\n(dry run: nothing was written)" if args.dry_run else ""))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kioko", description="Kioko: linked memory for AI agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run the quick start: nine memories, their links, one recall")
    demo.add_argument("--store", help="store URL (default: $KIOKO_URL or a SQLite file in your data dir)")
    demo.set_defaults(run=_demo)
    link = sub.add_parser("connect", help="link memories written before linking was on")
    link.add_argument("--user", required=True)
    link.add_argument("--store")
    link.add_argument("--rebuild", action="store_true")
    link.add_argument("--quiet", action="store_true")
    link.set_defaults(run=_connect)
    related = sub.add_parser("related", help="what is connected to a memory, with the chain of links")
    related.add_argument("memory_id")
    related.add_argument("--user", required=True)
    related.add_argument("--depth", type=int, default=2)
    related.add_argument("--store")
    related.set_defaults(run=_related)
    manage = sub.add_parser("manage", help="decide (and apply) the memory operations for one turn, offline")
    manage.add_argument("text")
    manage.add_argument("--user", required=True)
    manage.add_argument("--agent")
    manage.add_argument("--session")
    manage.add_argument("--store")
    manage.add_argument("--dry-run", action="store_true", help="decide and report, write nothing")
    manage.add_argument("--json", action="store_true", help="print the report as JSON")
    manage.set_defaults(run=_manage)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except Exception as error:  # a typed, readable message instead of a traceback
        from kioko_core.store import KiokoError

        if isinstance(error, KiokoError):
            print(f"kioko: {error}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
