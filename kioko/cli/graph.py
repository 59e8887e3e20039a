"""The link and graph commands: related, link, explain, trace, connect, graph."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from kioko.cli.app import GRAPH, Command
from kioko.cli.one_call import from_operation
from kioko.cli.support import Agent, Json, Store, UsageProblem, User, err, new_table, opened, out, print_json, short


@from_operation(
    "graph.related",
    arguments={"memory_id": "The memory to start from."},
    options={"depth": ("--depth",), "limit": ("--limit", "-n")},
    helps={"depth": "Links to follow.", "limit": "How many, best first."},
)
def related(
    *,
    args: dict[str, Any],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """What is connected to a memory, best first, with the chain of links to each."""
    from kioko.views import related_view

    with opened(store) as memory:
        items = memory.graph.related(**args, user_id=user, agent_id=agent)
    if json:
        return print_json([related_view(i) for i in items])
    if not items:
        return out().print("nothing is linked to this memory", markup=False)
    table = new_table("score", "memory", "type", "through")
    for item in items:
        table.add_row(
            f"{item.score:.4f}",
            f"{short(item.record.content, 60)}\n{item.record.id}",
            item.record.kind,
            " -> ".join(link.type for link in item.path),
        )
    out().print(table)


def link(
    *,
    source: Annotated[str, typer.Argument(help="The memory the link goes from.")],
    target: Annotated[str, typer.Argument(help="The memory the link goes to.")],
    link_type: Annotated[
        str, typer.Option("--type", "-t", help="resolves, serves, applies_to, refines, related_to ...")
    ] = "related_to",
    why: Annotated[str, typer.Option("--why", help="Why they belong together.")] = "",
    weight: Annotated[float, typer.Option("--weight", min=0.0, max=1.0)] = 1.0,
    remove: Annotated[bool, typer.Option("--remove", help="Unlink them instead.")] = False,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Link two memories by hand (a manual link never fades), or --remove the link between them."""
    from kioko.views import link_view

    with opened(store) as memory:
        if remove:
            removed = memory.graph.unlink(source, target, user_id=user, agent_id=agent)
            if json:
                return print_json({"source": source, "target": target, "unlinked": removed})
            return out().print("unlinked" if removed else "they were not linked", markup=False)
        made = memory.graph.link(source, target, type=link_type, weight=weight, why=why, user_id=user, agent_id=agent)
    if json:
        return print_json(link_view(made))
    out().print(f"linked: {made.line()}", markup=False)


@from_operation(
    "graph.explain", arguments={"a": "One memory.", "b": "The other memory."}, rename={"a": "first", "b": "second"}
)
def explain(
    *,
    args: dict[str, Any],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Why two memories are (or are not) linked: every signal, scored from scratch."""
    from kioko.views import score_view

    with opened(store) as memory:
        score = memory.graph.explain(**args, user_id=user, agent_id=agent)
    if json:
        return print_json(score_view(score))
    console = out()
    state = f"linked as {score.type}" if score.linked else "not linked"
    console.print(f"score {score.score:.3f}: {state}", markup=False)
    if score.why:
        console.print(f"why: {score.why}", markup=False)
    table = new_table("signal", "value")
    for name, value in score.signals.items():
        table.add_row(name, f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(table)


@from_operation(
    "graph.trace",
    arguments={"a": "Where the chain starts.", "b": "Where it should end."},
    options={"max_depth": ("--max-depth",)},
    rename={"a": "first", "b": "second"},
)
def trace(
    *,
    args: dict[str, Any],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """The shortest chain of links from one memory to another."""
    from kioko.views import link_view

    with opened(store) as memory:
        chain = memory.graph.trace(**args, user_id=user, agent_id=agent)
    if json:
        return print_json([link_view(k) for k in chain])
    if not chain:
        return out().print(f"no chain of at most {args['max_depth']} links joins them", markup=False)
    for step, found in enumerate(chain, 1):
        out().print(f"{step}. {found.line()}\n   why: {found.why or '-'}", markup=False)


def connect(
    *,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Re-derive every automatic link.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many memories.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Link memories written before linking was on (with a progress bar: count, rate, time left)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    console = err()
    # a bar only where a person watches: never into --json, a pipe or a log file
    show = not (quiet or json) and console.is_terminal
    with opened(store, auto_link=True) as memory:
        with Progress(
            TextColumn("linking"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=console,
            disable=not show,
            transient=False,
        ) as bar:
            task = bar.add_task("linking", total=None, rate="")
            started = time.perf_counter()

            def progress(done: int, total: int) -> None:
                rate = done / max(time.perf_counter() - started, 1e-9)
                bar.update(task, completed=done, total=total, rate=f"{rate:,.0f} memories/s")

            result = memory.graph.connect(
                user_id=user, agent_id=agent, rebuild=rebuild, limit=limit, progress=progress
            ).to_dict()
    if json:
        return print_json(result)
    out().print(
        f"linked {result['memories']} memories: {result['links']} links made, {result['dropped']} dropped "
        f"in {result['duration_ms'] / 1000:.2f} s",
        markup=False,
    )


def graph(
    *,
    output_format: Annotated[str, typer.Option("--format", "-f", help="dot, json or html.")] = "html",
    center: Annotated[str | None, typer.Option("--center", help="Draw around this memory only.")] = None,
    depth: Annotated[int, typer.Option("--depth", min=1, max=6)] = 2,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many memories.")] = 120,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here, not to stdout.")] = None,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """The memory graph: Graphviz DOT, JSON, or a self-contained HTML page to open in a browser."""
    from kioko.graph_html import to_dot, to_html

    chosen = "json" if json else output_format.lower()
    if chosen not in ("dot", "json", "html"):
        raise UsageProblem(f"--format must be dot, json or html, not {output_format!r}")
    with opened(store) as memory:
        drawn = memory.graph.memories(user_id=user, agent_id=agent, center=center, depth=depth, limit=limit).to_dict()
    if chosen == "json":
        import json as json_module

        text = json_module.dumps(drawn, indent=2, ensure_ascii=False, default=str) + "\n"
    elif chosen == "dot":
        text = to_dot(drawn)
    else:
        text = to_html(drawn, f"Kioko memory graph: {user}")
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        err().print(
            f"wrote {output} ({drawn['stats']['nodes']} memories, {drawn['stats']['edges']} links)", markup=False
        )


COMMANDS = (
    Command(related, rich_help_panel=GRAPH),
    Command(link, rich_help_panel=GRAPH),
    Command(explain, rich_help_panel=GRAPH),
    Command(trace, rich_help_panel=GRAPH),
    Command(connect, rich_help_panel=GRAPH),
    Command(graph, rich_help_panel=GRAPH),
)
"""This module's commands, in the order ``kioko --help`` lists them (:func:`kioko.cli.make_app` adds them)."""
