"""The ``kioko`` command (typer + rich): every capability of the layer from a terminal.

Each command takes ``--store URL`` (default ``$KIOKO_URL``, then a SQLite file in the data directory),
``--user`` (or ``$KIOKO_USER``), ``--agent`` and ``--json``. Errors print one red line with what to do;
the exit status is 2 for a command used wrongly and 1 for one that failed (``--debug`` adds the traceback).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Sequence

import typer
from rich.table import Table

from .cli_support import (
    Agent,
    Json,
    KiokoGroup,
    Store,
    UsageProblem,
    User,
    err,
    opened,
    out,
    parse_pairs,
    print_json,
)

DEMO_USER = "kumar-demo"

app = typer.Typer(
    name="kioko",
    cls=KiokoGroup,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Kioko: linked memory for AI agents. Every command acts on one store (--store) for one user (--user).",
)

MEMORY = "Memories"
GRAPH = "Links and the memory graph"
SMART = "Intelligence"
SERVE = "Serving"
STORES = "Stores and diagnostics"


def _version(value: bool) -> None:
    if value:
        from . import __version__

        print(f"kioko {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an error.")] = False,
) -> None:
    """Kioko: linked memory for AI agents."""


# --------------------------------------------------------------------------- memories


@app.command(rich_help_panel=MEMORY)
def add(
    *,
    text: Annotated[
        str | None, typer.Argument(help="What to remember; '-' reads it from stdin (for a long text).")
    ] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Read what to remember from this file (UTF-8).")
    ] = None,
    max_bytes: Annotated[
        int | None,
        typer.Option(
            "--max-bytes",
            min=1,
            help="Accept content up to this many UTF-8 bytes (default 262,144: the layer's limit).",
        ),
    ] = None,
    memory_type: Annotated[
        str,
        typer.Option(
            "--type",
            "-t",
            help="factual, episodic, decision, goal, preference, procedural, semantic, skill, strategy ...",
        ),
    ] = "factual",
    session: Annotated[str | None, typer.Option("--session", help="The conversation it belongs to.")] = None,
    meta: Annotated[list[str] | None, typer.Option("--meta", help="key=value metadata (repeatable).")] = None,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Store a memory; it is linked to earlier memories at write time."""
    from kioko_core.links import LINKABLE_KINDS

    from .views import memory_view

    text = _content_of(text, file)
    limits = {"limits": {"content_bytes": max_bytes}} if max_bytes else {}
    with opened(store, auto_link=True, **limits) as memory:
        record = memory.add(
            text, user_id=user, agent_id=agent, session_id=session, memory_type=memory_type, metadata=parse_pairs(meta)
        )
        links = memory.graph.links(record.id, user_id=user, agent_id=agent) if record.kind in LINKABLE_KINDS else []
    if json:
        return print_json(memory_view(record, links=links))
    console = out()
    console.print(f"added {record.kind} {record.id}", markup=False)
    for link in links:
        console.print(f"  linked: {link.line()}\n    why: {link.why or '-'} | weight {link.weight:.3f}", markup=False)


def _content_of(text: str | None, file: Path | None) -> str:
    """The text to remember: the argument, stdin for '-', or a file's content. A text longer than an
    argument may be (128 KiB on Linux) can only come through stdin or --file."""
    if file is not None:
        if text is not None:
            raise UsageProblem("give the text or --file, not both")
        try:
            return file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageProblem(f"no file {str(file)!r} to read the memory from") from None
        except UnicodeDecodeError:
            raise UsageProblem(f"{str(file)!r} is not UTF-8 text") from None
        except OSError as error:
            raise UsageProblem(f"cannot read {str(file)!r}: {error.strerror or error}") from None
    if text is None:
        raise UsageProblem("Missing argument 'TEXT': what to remember ('-' reads stdin, or give --file FILE)")
    if text == "-":
        try:
            return sys.stdin.read()
        except UnicodeDecodeError:
            raise UsageProblem("stdin is not UTF-8 text") from None
    return text


@app.command(rich_help_panel=MEMORY)
def get(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory's id.")],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Show one memory and its links."""
    from .views import memory_view

    with opened(store) as memory:
        record = memory.get(memory_id, user_id=user, agent_id=agent)
        links = memory.graph.links(memory_id, user_id=user, agent_id=agent)
    if json:
        return print_json(memory_view(record, links=links))
    console = out()
    table = Table(show_header=False, box=None)
    for key, value in (
        ("id", record.id),
        ("type", record.kind),
        ("content", record.content),
        ("session", record.session_id or "-"),
        ("created", _when(record.created_at)),
        ("version", str(record.version)),
    ):
        table.add_row(key, value)
    console.print(table)
    for link in links:
        console.print(
            f"- {link.line()}\n    why: {link.why or '-'} | weight {link.weight:.3f} | by {link.by}", markup=False
        )


@app.command("list", rich_help_panel=MEMORY)
def list_(
    *,
    memory_type: Annotated[list[str] | None, typer.Option("--type", "-t", help="Only these types.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Only this conversation.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many, newest first.")] = 20,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """List a user's memories, newest first."""
    from .views import memory_view

    with opened(store) as memory:
        records = [
            r
            for r in memory.memories(user_id=user, agent_id=agent, kinds=set(memory_type or ()) or None)
            if session is None or r.session_id == session
        ]
    records.sort(key=lambda r: (-r.created_at, r.id))
    records = records[:limit]
    if json:
        return print_json([memory_view(r) for r in records])
    table = Table(box=None, header_style="bold")
    table.add_column("id", no_wrap=True)  # ids are copied from here: never cut
    table.add_column("type", no_wrap=True)
    table.add_column("created", no_wrap=True)
    table.add_column("content", ratio=1)
    for r in records:
        table.add_row(r.id, r.kind, _when(r.created_at), _short(r.content, 200))
    out().print(table)


@app.command(rich_help_panel=MEMORY)
def update(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory's id.")],
    text: Annotated[str | None, typer.Option("--text", help="New content (links re-derived).")] = None,
    meta: Annotated[list[str] | None, typer.Option("--meta", help="key=value metadata to merge.")] = None,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Change a memory's content and/or merge metadata into it."""
    from .views import memory_view

    if text is None and not meta:
        raise UsageProblem("nothing to change: give --text and/or --meta key=value")
    with opened(store, auto_link=True) as memory:
        record = memory.update(memory_id, user_id=user, agent_id=agent, content=text, metadata=parse_pairs(meta))
    if json:
        return print_json(memory_view(record))
    out().print(f"updated {record.id} (version {record.version})", markup=False)


@app.command(rich_help_panel=MEMORY)
def delete(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory's id.")],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Delete one memory; the memories linked to it forget the link."""
    from kioko_core.errors import MemoryNotFound

    with opened(store) as memory:
        if not memory.delete(memory_id, user_id=user, agent_id=agent):
            raise MemoryNotFound(memory_id, user)
    if json:
        return print_json({"deleted": memory_id})
    out().print(f"deleted {memory_id}", markup=False)


@app.command("forget-user", rich_help_panel=MEMORY)
def forget_user(
    *,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: delete every memory of the user.")] = False,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Delete every memory of a user (or of one of their agents), their entity graph included."""
    if not yes:
        raise UsageProblem(f"this deletes every memory of user {user!r}; add --yes to do it")
    with opened(store) as memory:
        removed = memory.forget_user(user_id=user, agent_id=agent)
    if json:
        return print_json({"user_id": user, "agent_id": agent, "deleted": removed})
    out().print(f"deleted {removed} records of user {user}", markup=False)


@app.command(rich_help_panel=MEMORY)
def recall(
    *,
    question: Annotated[str, typer.Argument(help="The question or task.")],
    links: Annotated[
        int | None,
        typer.Option(
            "--links",
            min=0,
            help="How many memories may come only through links to better matches (0: no graph; default 3, or "
            "the plan's).",
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=1, help="Memories in the context (default 8, or the plan's).")
    ] = None,
    session: Annotated[str | None, typer.Option("--session", help="The current conversation.")] = None,
    plan: Annotated[
        str | None,
        typer.Option(
            "--plan",
            help="auto: plan the retrieval from the question's intents (caps per section, see `kioko plan`); "
            "off: plain recall. Default: the store's layer decides (plain without intelligence).",
        ),
    ] = None,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """The context for a question: relevant memories, procedures, lessons, open goals, and how they connect."""
    from .views import context_view

    planned = {None: None, "auto": "auto", "off": False}.get(plan, "?")
    if planned == "?":
        raise UsageProblem(f"--plan must be auto or off, not {plan!r}")
    with opened(store) as memory:
        context = memory.recall(
            question,
            user_id=user,
            agent_id=agent,
            session_id=session,
            links=links,
            limit=limit,
            plan=planned,
        )
    if json:
        return print_json(context_view(context))
    print(context.text or "(nothing relevant is remembered)")


# --------------------------------------------------------------------------- links and the graph


@app.command(rich_help_panel=GRAPH)
def related(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory to start from.")],
    depth: Annotated[int, typer.Option("--depth", min=1, max=6, help="Links to follow.")] = 2,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 10,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """What is connected to a memory, best first, with the chain of links to each."""
    from .views import related_view

    with opened(store) as memory:
        items = memory.graph.related(memory_id, depth=depth, limit=limit, user_id=user, agent_id=agent)
    if json:
        return print_json([related_view(i) for i in items])
    if not items:
        return out().print("nothing is linked to this memory", markup=False)
    table = Table("score", "memory", "type", "through")
    for item in items:
        table.add_row(
            f"{item.score:.4f}",
            f"{_short(item.record.content, 60)}\n{item.record.id}",
            item.record.kind,
            " -> ".join(link.type for link in item.path),
        )
    out().print(table)


@app.command(rich_help_panel=GRAPH)
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
    from .views import link_view

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


@app.command(rich_help_panel=GRAPH)
def explain(
    *,
    first: Annotated[str, typer.Argument(help="One memory.")],
    second: Annotated[str, typer.Argument(help="The other memory.")],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Why two memories are (or are not) linked: every signal, scored from scratch."""
    from .views import score_view

    with opened(store) as memory:
        score = memory.graph.explain(first, second, user_id=user, agent_id=agent)
    if json:
        return print_json(score_view(score))
    console = out()
    state = f"linked as {score.type}" if score.linked else "not linked"
    console.print(f"score {score.score:.3f}: {state}", markup=False)
    if score.why:
        console.print(f"why: {score.why}", markup=False)
    table = Table("signal", "value")
    for name, value in score.signals.items():
        table.add_row(name, f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(table)


@app.command(rich_help_panel=GRAPH)
def trace(
    *,
    first: Annotated[str, typer.Argument(help="Where the chain starts.")],
    second: Annotated[str, typer.Argument(help="Where it should end.")],
    max_depth: Annotated[int, typer.Option("--max-depth", min=1, max=8)] = 4,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """The shortest chain of links from one memory to another."""
    from .views import link_view

    with opened(store) as memory:
        chain = memory.graph.trace(first, second, max_depth=max_depth, user_id=user, agent_id=agent)
    if json:
        return print_json([link_view(k) for k in chain])
    if not chain:
        return out().print(f"no chain of at most {max_depth} links joins them", markup=False)
    for step, found in enumerate(chain, 1):
        out().print(f"{step}. {found.line()}\n   why: {found.why or '-'}", markup=False)


@app.command(rich_help_panel=GRAPH)
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


@app.command(rich_help_panel=GRAPH)
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
    from .graph_html import to_dot, to_html

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


# --------------------------------------------------------------------------- intelligence


@app.command(rich_help_panel=SMART)
def manage(
    *,
    text: Annotated[str, typer.Argument(help="One turn: what the user said.")],
    session: Annotated[str | None, typer.Option("--session", help="The conversation it belongs to.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Decide and report; write nothing.")] = False,
    llm: Annotated[
        str | None,
        typer.Option(
            "--llm",
            metavar="PROVIDER:MODEL",
            help="Decide with a model: openai:gpt-4o-mini, azure:<deployment>, ollama:llama3.1, "
            "openai-compatible:<url>#<model> (keys from the environment; the offline router if it fails).",
        ),
    ] = None,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Decide (and apply) the memory operations for one turn: offline, or with --llm one model call."""
    from kioko_core.intelligence.providers import is_provider_string

    from .remote import is_remote_url

    if llm is not None and not is_provider_string(llm):
        raise UsageProblem(
            f"--llm takes a provider string (openai:<model>, azure:<deployment>, ollama:<model>, "
            f"openai-compatible:<url>#<model>), got {llm!r}"
        )
    if llm is not None and is_remote_url(store or os.environ.get("KIOKO_URL")):
        raise UsageProblem("a Kioko service decides with its own model (kioko serve --intelligence-llm)")
    with opened(store, **({"intelligence": llm} if llm else {})) as memory:
        result = memory.manage(text, user_id=user, agent_id=agent, session_id=session, dry_run=dry_run)
    if json:
        return print_json(result.to_dict())
    print(result.summary() + ("\n(dry run: nothing was written)" if dry_run else ""))


@app.command(rich_help_panel=SMART)
def plan(
    *,
    question: Annotated[str, typer.Argument(help="The question or task.")],
    session: Annotated[str | None, typer.Option("--session", help="The current conversation.")] = None,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """The plan recall would follow for a question: its intents, why, a cap per context section, links."""
    with opened(store) as memory:
        found = memory.plan(question, user_id=user, agent_id=agent, session_id=session)
    if json:
        return print_json(found.to_dict())
    console = out()
    console.print(f"intents: {', '.join(found.intents) or '(none: every kind with the default caps)'}", markup=False)
    console.print(f"why: {found.reason}", markup=False)
    console.print(
        f"links: {found.links} | limit: {found.limit or 'default'} | fill when empty: "
        f"{', '.join(found.fill_recent) or '-'}",
        markup=False,
    )
    if found.section_limits:
        table = Table("section", "at most", box=None, header_style="bold")
        for section, cap in found.section_limits.items():
            table.add_row(section, str(cap))
        console.print(table)


@app.command(rich_help_panel=SMART)
def maintain(
    *,
    user: Annotated[
        str | None,
        typer.Option(
            "--user", "-u", envvar="KIOKO_USER", show_envvar=True, help="One user; omitted: every user with turns."
        ),
    ] = None,
    tasks: Annotated[
        list[str] | None,
        typer.Option("--tasks", help="Comma-separated task names (repeatable); default: every task."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Run maintenance now (wrap sessions up, link what was never linked ...), for one user or every user."""
    from kioko_core.intelligence.maintenance import TASKS

    wanted = [t.strip() for given in tasks or () for t in given.split(",") if t.strip()] if tasks else None
    unknown = [t for t in wanted or () if t not in TASKS]
    if unknown or wanted == []:
        raise UsageProblem(f"unknown maintenance task(s) {unknown or tasks}; known: {', '.join(TASKS)}")
    if user is None and agent is not None:
        raise UsageProblem("--agent needs the --user it belongs to")
    with opened(store) as memory:
        results = _maintain(memory, user, agent, wanted, show=not (quiet or json) and err().is_terminal)
    if json:
        return print_json(results)
    if not results:
        return out().print("no user has turns counted yet: nothing to maintain", markup=False)
    table = Table("user", "task", "result", box=None, header_style="bold")
    for who, done in results.items():
        for task, result in done.items():
            table.add_row(who, task, _result_text(result))
    out().print(table)


def _maintain(memory: Any, user: str | None, agent: str | None, tasks: list[str] | None, show: bool) -> dict:
    """``memory.maintain`` one scope at a time, with a progress bar over the users when there are several."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from kioko_core.intelligence.maintenance import counted_scopes

    from .service.wire import jsonable

    if user is not None:
        return jsonable(memory.maintain(user_id=user, agent_id=agent, tasks=tasks))
    if not hasattr(memory, "store"):  # a Kioko service: it runs every user in one call
        return jsonable(memory.maintain(tasks=tasks))
    scopes = counted_scopes(memory.store)
    results: dict[str, Any] = {}
    with Progress(
        TextColumn("maintaining"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[who]}"),
        TimeRemainingColumn(),
        console=err(),
        disable=not show,
    ) as bar:
        task = bar.add_task("maintaining", total=len(scopes), who="")
        for who, their_agent in scopes:
            bar.update(task, who=who if their_agent is None else f"{who}/{their_agent}")
            results.update(jsonable(memory.maintain(user_id=who, agent_id=their_agent, tasks=tasks)))
            bar.advance(task)
    return results


def _result_text(result: Any) -> str:
    if isinstance(result, dict):
        return ", ".join(f"{k} {v}" for k, v in result.items()) or "-"
    if isinstance(result, list):
        return f"{len(result)}: {', '.join(str(r) for r in result)}" if result else "none"
    return str(result)


@app.command("end-session", rich_help_panel=SMART)
def end_session(
    *,
    session: Annotated[str, typer.Argument(help="The session to wrap up.")],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Wrap a session up now: its task and lasting scratchpad notes become its episode; the scratchpad is cleared."""
    from .views import memory_view

    with opened(store) as memory:
        episode = memory.end_session(session, user_id=user, agent_id=agent)
    if json:
        return print_json(memory_view(episode) if episode is not None else None)
    if episode is None:
        return out().print(f"session {session} had nothing lasting to keep (its scratchpad is cleared)", markup=False)
    out().print(f"episode {episode.id}: {episode.content}", markup=False)


@app.command(rich_help_panel=SMART)
def pin(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory to pin.")],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Pin a memory: every context shows it under "Keep in mind"; it joins the stable prefix."""
    _pin(memory_id, True, user, store, agent, json)


@app.command(rich_help_panel=SMART)
def unpin(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory to unpin.")],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Unpin a memory."""
    _pin(memory_id, False, user, store, agent, json)


def _pin(memory_id: str, pinned: bool, user: str, store: str | None, agent: str | None, json: bool) -> None:
    from .views import memory_view

    with opened(store) as memory:
        record = (memory.pin if pinned else memory.unpin)(memory_id, user_id=user, agent_id=agent)
        now = [r.id for r in memory.pinned(user_id=user, agent_id=agent)]
    if json:
        return print_json({**memory_view(record), "pinned": now})
    out().print(f"{'pinned' if pinned else 'unpinned'} {record.id} ({len(now)} pinned now)", markup=False)


# --------------------------------------------------------------------------- serving


@app.command(rich_help_panel=SERVE)
def mcp(
    *,
    transport: Annotated[str, typer.Option("--transport", help="stdio (for a desktop client) or http.")] = "stdio",
    intelligence: Annotated[
        bool,
        typer.Option(
            "--intelligence",
            help="Route learn_from_conversation through the intelligence (and link and graph every write).",
        ),
    ] = False,
    host: Annotated[str, typer.Option("--host", help="Address to listen on (http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (http).")] = 8766,
    api_keys: Annotated[
        str | None,
        typer.Option(
            "--api-keys",
            envvar="KIOKO_API_KEYS",
            metavar="FILE",
            help="http: the service's key file; every request needs a key, and the key names the user "
            "(--user then only chooses among a key's users).",
        ),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            "-u",
            envvar="KIOKO_USER",
            show_envvar=True,
            help="The user the server acts for (with --api-keys: the key's user).",
        ),
    ] = None,
    store: Store = None,
    agent: Agent = None,
) -> None:
    """Serve the user's memories to an MCP client (Claude Desktop, Cursor ...). The user is fixed here."""
    from .mcp_server import require_mcp, run

    if transport not in ("stdio", "http"):
        raise UsageProblem(f"--transport must be stdio or http, not {transport!r}")
    if api_keys and transport != "http":
        raise UsageProblem("--api-keys is for --transport http (a stdio server belongs to the one client that ran it)")
    if user is None and not api_keys:
        raise UsageProblem("Missing option '--user': the user the server acts for")
    if transport == "http" and not api_keys and host not in ("127.0.0.1", "localhost", "::1"):
        raise UsageProblem(
            f"without --api-keys anyone who reaches {host} could use {user!r}'s memories: "
            "listen on 127.0.0.1, or pass --api-keys FILE"
        )
    require_mcp()
    if transport == "http":
        who = f"the user of each request's API key ({api_keys})" if api_keys else f"user {user!r}"
        err().print(f"kioko mcp: serving {who} at http://{host}:{port}/mcp", markup=False)
    run(store, user, agent, transport=transport, intelligence=intelligence, host=host, port=port, api_keys=api_keys)


@app.command(rich_help_panel=SERVE)
def serve(
    *,
    store: Store = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; without keys only loopback.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8765,
    api_keys: Annotated[
        str | None, typer.Option("--api-keys", envvar="KIOKO_API_KEYS", help="The JSON key file (kioko keys-new).")
    ] = None,
    body_limit: Annotated[int | None, typer.Option("--body-limit", min=1, help="Bytes per request body.")] = None,
    no_linking: Annotated[bool, typer.Option("--no-linking", help="Store memories without linking them.")] = False,
    intelligence: Annotated[
        bool,
        typer.Option(
            "--intelligence", help="Route /v1/manage, /v1/turns and /v1/learn through the offline intelligence."
        ),
    ] = False,
    intelligence_llm: Annotated[
        str | None,
        typer.Option(
            "--intelligence-llm",
            metavar="PROVIDER:MODEL|PKG.MOD:ASK",
            help="The same with a model: openai:gpt-4o-mini, azure:<deployment>, ollama:llama3.1, "
            "openai-compatible:<url>#<model> (keys from the environment), or a callable to import.",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level")] = "info",
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            help="Server processes on the one port (each uses a core; the store must not be memory://).",
        ),
    ] = 1,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            min=1,
            help="Requests each process runs at once (default: 2 for memory:// and SQLite, 40 for database servers).",
        ),
    ] = None,
    webhook_allow: Annotated[
        list[str] | None,
        typer.Option(
            "--webhook-allow",
            metavar="HOST",
            help="A host, address or network (10.1.0.0/16) webhooks may reach although not public, over http "
            "too (repeatable; by default only public https targets).",
        ),
    ] = None,
    webhook_only: Annotated[
        list[str] | None,
        typer.Option("--webhook-only", metavar="HOST", help="The only hosts webhooks may name (repeatable)."),
    ] = None,
) -> int:
    """The REST API under /v1 (docs at /docs) on uvicorn: every user's memories, bounded by API keys."""
    from .service.serve import serve as run

    return run(
        store=store,
        host=host,
        port=port,
        api_keys=api_keys,
        body_limit=body_limit,
        auto_link=not no_linking,
        intelligence=intelligence,
        intelligence_llm=intelligence_llm,
        log_level=log_level,
        workers=workers,
        threads=threads,
        webhook_allow=webhook_allow,
        webhook_only=webhook_only,
    )


@app.command(rich_help_panel=SERVE)
def ui(
    *,
    store: Store = None,
    port: Annotated[int, typer.Option("--port", help="Port to listen on (loopback only).")] = 8765,
    user: Annotated[
        str | None, typer.Option("--user", "-u", envvar="KIOKO_USER", help="The user the console opens with.")
    ] = None,
    api_keys: Annotated[
        str | None,
        typer.Option("--api-keys", envvar="KIOKO_API_KEYS", help="A key file: the console then asks for a key."),
    ] = None,
    intelligence: Annotated[
        bool, typer.Option("--intelligence", help="Link and route turns through the offline intelligence.")
    ] = False,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Print the address; open no browser.")] = False,
) -> int:
    """The console in your browser: serves the API and the console on 127.0.0.1 and opens /ui/."""
    from urllib.parse import quote

    from .service.serve import open_when_ready
    from .service.serve import serve as run

    address = f"http://127.0.0.1:{port}/ui/?user={quote(user or DEMO_USER)}"
    print(f"kioko ui: the console is at {address}", flush=True)
    if not no_browser:
        open_when_ready(f"http://127.0.0.1:{port}/healthz", address)
    return run(store=store, host="127.0.0.1", port=port, api_keys=api_keys, intelligence=intelligence)


@app.command("keys-new", rich_help_panel=SERVE)
def keys_new(
    *,
    file: Annotated[Path, typer.Option("--file", help="The JSON key file (created if missing).")],
    name: Annotated[str, typer.Option("--name", help="A label for the key (never the key).")],
    user: Annotated[list[str] | None, typer.Option("--user", "-u", help="A user the key may act for.")] = None,
    agent: Annotated[list[str] | None, typer.Option("--agent", "-a", help="Restrict to these agents.")] = None,
    admin: Annotated[bool, typer.Option("--admin", help="A key that may act for every user.")] = False,
    read_only: Annotated[bool, typer.Option("--read-only", help="Reads only: every write answers 403.")] = False,
    rate_limit: Annotated[
        str | None, typer.Option("--rate-limit", metavar="N/minute", help="Requests per second, minute or hour (429).")
    ] = None,
    body_limit: Annotated[
        int | None, typer.Option("--body-limit", min=1, help="Bytes per request body for this key (413).")
    ] = None,
) -> int:
    """Make an API key for kioko serve: only its SHA-256 goes to the file; the key is printed once."""
    from .service.auth import add_key

    if not admin and not user:
        raise UsageProblem("give --user (repeatable) or --admin")
    key = add_key(
        file,
        name=name,
        users=user,
        agents=agent,
        admin=admin,
        read_only=read_only,
        rate_limit=rate_limit,
        body_limit=body_limit,
    )
    print(key)
    err().print(f"(only its SHA-256 was written to {file}; this is the one time the key is shown)", markup=False)
    return 0


@app.command("keys-rotate", rich_help_panel=SERVE)
def keys_rotate(
    *,
    file: Annotated[Path, typer.Option("--file", help="The JSON key file.")],
    name: Annotated[str, typer.Option("--name", help="The key to give a new secret.")],
) -> int:
    """A new secret for a key, same rights: printed once; a running server refuses the old one at once."""
    from .service.auth import rotate_key

    print(rotate_key(file, name))
    err().print(f"(the key {name!r} in {file} has a new secret; the old one no longer works)", markup=False)
    return 0


@app.command("keys-revoke", rich_help_panel=SERVE)
def keys_revoke(
    *,
    file: Annotated[Path, typer.Option("--file", help="The JSON key file.")],
    name: Annotated[str, typer.Option("--name", help="The key to take out.")],
) -> int:
    """Take a key out of the file: a running server refuses it from its next request."""
    from .service.auth import revoke_key

    revoke_key(file, name)
    err().print(f"revoked {name!r} in {file}", markup=False)
    return 0


@app.command("export", rich_help_panel=STORES)
def export_(
    *,
    user: User,
    store: Store = None,
    agent: Annotated[list[str] | None, typer.Option("--agent", "-a", help="Also this agent's scope.")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="For a service URL.")] = None,
) -> int:
    """Every memory of a user as JSON lines on stdout: links, entity triples, history, exact vectors."""
    from . import connect
    from .remote import RemoteMemory
    from .service.exchange import export_lines

    memory: Any = connect(store, **({"api_key": api_key} if api_key else {}))
    try:
        lines = (
            memory.export_lines(user, agent or [])
            if isinstance(memory, RemoteMemory)
            else export_lines(memory, user, agent or [])
        )
        for line in lines:
            sys.stdout.write(line)
    finally:
        memory.close()
    return 0


@app.command("import", rich_help_panel=STORES)
def import_(
    *,
    file: Annotated[str, typer.Argument(help="The export's JSON lines ('-' for stdin).")],
    store: Store = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="For a service URL.")] = None,
) -> int:
    """Restore an export into a store or a service; importing twice changes nothing."""
    from . import connect
    from .remote import RemoteMemory
    from .service.exchange import import_lines

    # the file is opened before the store, so a mistyped name neither reaches nor creates a store
    source = sys.stdin if file == "-" else _export_file(file)
    with source:
        memory: Any = connect(store, **({"api_key": api_key} if api_key else {}))
        try:
            result = memory.import_lines(source) if isinstance(memory, RemoteMemory) else import_lines(memory, source)
        finally:
            memory.close()
    err().print(
        f"{result['records']} records: {result['written']} written, {result['unchanged']} already there", markup=False
    )
    return 0


def _export_file(path: str) -> Any:
    try:
        return open(path, encoding="utf-8")
    except FileNotFoundError:
        raise UsageProblem(f"no file {path!r} to import (give an export's path, or '-' to read stdin)") from None
    except IsADirectoryError:
        raise UsageProblem(f"{path!r} is a directory, not an export file") from None
    except OSError as error:
        raise UsageProblem(f"cannot read {path!r}: {error.strerror or error}") from None


# --------------------------------------------------------------------------- stores and diagnostics


@app.command(rich_help_panel=STORES)
def stores(json: Json = False) -> None:
    """The registered URL schemes: their drivers, what each promises, and which extras are missing."""
    rows = _store_rows()
    if json:
        return print_json(rows)
    table = Table("scheme", "driver", "installed", "capabilities", box=None, header_style="bold")
    for row in rows:
        installed = "yes" if row["installed"] else f"no: {row['missing']}"
        table.add_row(row["scheme"], row["driver"].rsplit(":", 1)[-1], installed, ", ".join(row["capabilities"]))
    out().print(table)


def _store_rows() -> list[dict[str, Any]]:
    from dataclasses import fields

    from kioko_core import registry
    from kioko_core.errors import MissingExtraError

    rows = []
    for scheme in registry.known_schemes():
        builtin = registry.BUILTIN_STORES.get(scheme)
        row: dict[str, Any] = {
            "scheme": scheme,
            "driver": builtin[0] if builtin else "plugin",
            "extra": builtin[1] if builtin else None,
            "installed": True,
            "missing": None,
            "capabilities": [],
        }
        try:
            driver = registry._resolve(scheme)
        except MissingExtraError as error:
            row.update(installed=False, missing=f"pip install 'kioko[{row['extra']}]'" if row["extra"] else str(error))
            rows.append(row)
            continue
        except Exception as error:  # noqa: BLE001 - a broken plugin is reported, not fatal
            row.update(installed=False, missing=f"{type(error).__name__}: {error}")
            rows.append(row)
            continue
        if not builtin:
            row["driver"] = f"{getattr(driver, '__module__', '?')}:{getattr(driver, '__qualname__', driver)}"
        # a class may open several schemes with different promises (qdrant+local has no native knn)
        caps = getattr(driver, "scheme_capabilities", {}).get(scheme) or getattr(driver, "capabilities", None)
        if caps is not None:
            row["capabilities"] = [f.name for f in fields(caps) if getattr(caps, f.name) is True]
        rows.append(row)
    return rows


@app.command(rich_help_panel=STORES)
def doctor(
    user: Annotated[
        str | None, typer.Option("--user", "-u", envvar="KIOKO_USER", help="Also count this user's memories by type.")
    ] = None,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Check a store: can it be opened, the versions, the vector dimension, and (with --user) the counts."""
    import platform
    from collections import Counter
    from dataclasses import asdict

    from . import __version__, default_url

    url = store or default_url()
    checks: dict = {"kioko": __version__, "python": platform.python_version(), "store_url": _redact(url)}
    _check_exists(url, given=store is not None)
    with opened(url) as memory:
        checks["driver"] = type(memory.store).__module__ + ":" + type(memory.store).__name__
        checks["dim"] = getattr(memory.store, "dim", None)
        caps = getattr(memory.store, "capabilities", None)
        checks["capabilities"] = {k: v for k, v in asdict(caps).items() if k != "notes"} if caps else {}
        if user:
            counts = Counter(r.kind for r in memory.memories(user_id=user, agent_id=agent))
            checks["user"] = user
            checks["memories"] = dict(sorted(counts.items()))
            checks["total"] = sum(counts.values())
    checks["ok"] = True
    if json:
        return print_json(checks)
    table = Table(show_header=False, box=None)
    for key, value in checks.items():
        table.add_row(key, str(value))
    out().print(table)
    out().print("store opened: OK", style="green", markup=False)


def _check_exists(url: str, *, given: bool) -> None:
    """Refuse a store file or directory that is not there: opening would create an empty one, and doctor
    would then call a mistyped path healthy. The default store may be new (it is made on first use)."""
    from kioko_core import registry
    from kioko_core.errors import KiokoError
    from kioko_core.url import StoreURL

    from .remote import is_remote_url

    if not given or is_remote_url(url):
        return
    parsed = StoreURL.parse(url)
    locate = getattr(registry._resolve(parsed.scheme), "local_path", None)
    path = locate(parsed) if locate is not None else None
    if path is not None and not os.path.exists(path):
        raise KiokoError(
            f"no store at {path}: {url!r} names nothing on disk (a mistyped path?); doctor checks an existing "
            "store and creates none (kioko add or kioko.connect makes a new one)"
        )


def _redact(url: str) -> str:
    """A URL with its password replaced, for printing."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


@app.command(rich_help_panel=STORES)
def demo(
    *,
    user: Annotated[
        str, typer.Option("--user", "-u", help="The demo's user; their memories are replaced.")
    ] = DEMO_USER,
    store: Store = None,
    json: Json = False,
) -> None:
    """Run the quick start: nine memories, the links they make, and one recall that follows them."""
    import io

    captured = io.StringIO()
    with opened(store, auto_link=True) as memory:
        memory.forget_user(user_id=user)  # the demo starts from the same memories every run
        ids = run_quick_start(memory, user, out=captured if json else sys.stdout)
        described = repr(memory.store)
    if json:
        return print_json({"user_id": user, "store": described, "ids": ids, "output": captured.getvalue()})
    print(f"\n(store: {described}; user {user!r})")


@app.command(
    hidden=True, context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}
)
def bench(ctx: typer.Context) -> None:
    """Removed: the benchmarks are not installed with the package; this says where they are."""
    # kept as a hidden command so that the old spelling gets a pointer rather than "No such command"
    raise UsageProblem(
        "kioko bench is no longer a command: the benchmarks live in a clone of the repository; run "
        "python benchmarks/memory_graph_bench.py --quick there (docs/scaling.md shows its results)"
    )


def run_quick_start(memory, user: str, out=sys.stdout) -> dict[str, str]:
    """Section 1 of the spec: nine memories, the links they make, and a recall that follows them."""
    t0 = time.time() - 3600
    ids: dict[str, str] = {}
    ids["goal"] = memory.goals.add("Ship the Kioko memory layer by December 15", user_id=user, created_at=t0).id
    memory.graph.add("Kioko", "uses", "pgvector", user_id=user)
    ids["decision"] = memory.decisions.add(
        "We decided to use pgvector because we already run Postgres.", user_id=user, created_at=t0 + 60
    ).id
    ids["jam"] = memory.episodes.add(
        "The line 3 conveyor jammed twice this morning.", user_id=user, session_id="s1", created_at=t0 + 120
    ).id
    ids["fault"] = memory.episodes.add(
        "Line 3 keeps faulting with error E-217.", user_id=user, session_id="s1", created_at=t0 + 180
    ).id
    ids["fix"] = memory.episodes.add(
        "Found it: the encoder cable on line 3 was loose.", user_id=user, session_id="s1", created_at=t0 + 200
    ).id
    ids["procedure"] = memory.procedures.add(
        "Clear a conveyor jam on line 3",
        ["Press stop", "Open the guard", "Remove the jammed bottle", "Reset the drive"],
        user_id=user,
        created_at=t0 + 300,
    ).id
    ids["lesson"] = memory.strategies.add(
        "reset the drive before reopening the guard (1/1 worked). Lesson: always check the photo-eye alignment "
        "after a jam",
        context="clearing conveyor jams",
        user_id=user,
        created_at=t0 + 400,
    ).id
    ids["tea"] = memory.preferences.add("User likes green tea.", user_id=user, created_at=t0 + 500).id
    ids["plc"] = memory.facts.add(
        "The plant's PLC network uses the 10.20.0.0/16 subnet.", user_id=user, created_at=t0 + 600
    ).id

    print("Links made at write time:", file=out)
    seen: set[tuple[str, str]] = set()
    for memory_id in ids.values():
        for found in memory.graph.links(memory_id, user_id=user):
            if (found.source, found.target) not in seen:
                seen.add((found.source, found.target))
                print(f"- {found.line()}\n    why: {found.why} | weight {found.weight:.3f} | by {found.by}", file=out)
    question = "line 3 is faulting with E-217 again"
    print(f"\nrecall({question!r}):\n", file=out)
    print(memory.recall(question, user_id=user).text, file=out)
    return ids


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp)).replace(" ", "\u00a0")


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def main(argv: Sequence[str] | None = None) -> int:
    """The console entry point: runs one command and returns its exit status (0, 1 failure, 2 usage)."""
    command = typer.main.get_command(app)
    return command.main(args=list(sys.argv[1:] if argv is None else argv), prog_name="kioko", standalone_mode=False)


if __name__ == "__main__":
    sys.exit(main())
