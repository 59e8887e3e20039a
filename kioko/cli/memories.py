"""The memory commands: add, get, list, update, delete, forget-user, forget-about, recall."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from kioko.cli.app import MEMORY, Command
from kioko.cli.one_call import from_operation
from kioko.cli.support import (
    Agent,
    Json,
    Store,
    UsageProblem,
    User,
    new_table,
    opened,
    out,
    parse_pairs,
    print_json,
    short,
    when,
)

ContentFile = Annotated[Path | None, typer.Option("--file", "-f", help="Read the content from this file (UTF-8).")]
MaxBytes = Annotated[
    int | None,
    typer.Option(
        "--max-bytes", min=1, help="Accept content up to this many UTF-8 bytes (default 262,144: the layer's limit)."
    ),
]


def add(
    *,
    text: Annotated[
        str | None, typer.Argument(help="What to remember; '-' reads it from stdin (for a long text).")
    ] = None,
    file: ContentFile = None,
    max_bytes: MaxBytes = None,
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
    from kioko.views import memory_view
    from kioko_core.linking.links import LINKABLE_KINDS

    text = _content_of(text, file)
    if text is None:
        raise UsageProblem("Missing argument 'TEXT': what to remember ('-' reads stdin, or give --file FILE)")
    with opened(store, auto_link=True, **_limits(max_bytes)) as memory:
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


def _limits(max_bytes: int | None) -> dict[str, Any]:
    return {"limits": {"content_bytes": max_bytes}} if max_bytes else {}


def _content_of(text: str | None, file: Path | None) -> str | None:
    """The content given: the text, stdin for '-', or a file's content (None: none given). A text longer than
    an argument may be (128 KiB on Linux) can only come through stdin or --file."""
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
    if text == "-":
        try:
            return sys.stdin.read()
        except UnicodeDecodeError:
            raise UsageProblem("stdin is not UTF-8 text") from None
    return text


def get(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory's id.")],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Show one memory and its links."""
    from kioko.views import memory_view

    with opened(store) as memory:
        record = memory.get(memory_id, user_id=user, agent_id=agent)
        links = memory.graph.links(memory_id, user_id=user, agent_id=agent)
    if json:
        return print_json(memory_view(record, links=links))
    console = out()
    table = new_table(show_header=False, box=None)
    for key, value in (
        ("id", record.id),
        ("type", record.kind),
        ("content", record.content),
        ("session", record.session_id or "-"),
        ("created", when(record.created_at)),
        ("version", str(record.version)),
    ):
        table.add_row(key, value)
    console.print(table)
    for link in links:
        console.print(
            f"- {link.line()}\n    why: {link.why or '-'} | weight {link.weight:.3f} | by {link.by}", markup=False
        )


def list_(
    *,
    memory_type: Annotated[list[str] | None, typer.Option("--type", "-t", help="Only these types.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Only this conversation.")] = None,
    text: Annotated[str | None, typer.Option("--text", help="Only memories containing this text (any case).")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many, newest first.")] = 20,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """List a user's memories, newest first."""
    from kioko.listing import newest
    from kioko.views import memory_view

    with opened(store) as memory:
        records = newest(
            memory, kinds=memory_type, session_id=session, text=text, limit=limit, user_id=user, agent_id=agent
        )
    if json:
        return print_json([memory_view(r) for r in records])
    table = new_table(box=None, header_style="bold")
    table.add_column("id", no_wrap=True)  # ids are copied from here: never cut
    table.add_column("type", no_wrap=True)
    table.add_column("created", no_wrap=True)
    table.add_column("content", ratio=1)
    for r in records:
        table.add_row(r.id, r.kind, when(r.created_at), short(r.content, 200))
    out().print(table)


def update(
    *,
    memory_id: Annotated[str, typer.Argument(help="The memory's id.")],
    text: Annotated[
        str | None, typer.Option("--text", help="New content (links re-derived); '-' reads it from stdin.")
    ] = None,
    file: ContentFile = None,
    max_bytes: MaxBytes = None,
    meta: Annotated[list[str] | None, typer.Option("--meta", help="key=value metadata to merge.")] = None,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Change a memory's content and/or merge metadata into it."""
    from kioko.views import memory_view

    text = _content_of(text, file)
    if text is None and not meta:
        raise UsageProblem("nothing to change: give --text (or --file) and/or --meta key=value")
    with opened(store, auto_link=True, **_limits(max_bytes)) as memory:
        record = memory.update(memory_id, user_id=user, agent_id=agent, content=text, metadata=parse_pairs(meta))
    if json:
        return print_json(memory_view(record))
    out().print(f"updated {record.id} (version {record.version})", markup=False)


@from_operation("delete", arguments={"memory_id": "The memory's id."})
def delete(
    *,
    args: dict[str, Any],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Delete one memory; the memories linked to it forget the link."""
    from kioko_core.errors import MemoryNotFound

    memory_id = args["memory_id"]
    with opened(store) as memory:
        if not memory.delete(**args, user_id=user, agent_id=agent):
            raise MemoryNotFound(memory_id, user)
    if json:
        return print_json({"deleted": memory_id})
    out().print(f"deleted {memory_id}", markup=False)


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


def forget_about(
    *,
    subject: Annotated[str, typer.Argument(help="Who or what to forget, e.g. 'Krutika' or 'Project Falcon'.")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would go.")] = False,
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Forget everything about a subject: every memory naming it, its entity-graph relations, the summary points
    and waiting session turns naming it (docs/privacy.md)."""
    with opened(store) as memory:
        found = memory.forget_about(subject, user_id=user, agent_id=agent, dry_run=dry_run)
    if json:
        return print_json(found)
    verb = "would delete" if dry_run else "deleted"
    lines = [f"{verb} {m['kind']} {m['id']}: {m['content']}" for m in found["memories"]]
    lines += [f"{verb} relation: {line}" for line in found["relations"]]
    lines += [f"{verb} {line}" for line in found["traces"]]
    out().print("\n".join(lines) or f"nothing names {subject!r}", markup=False)


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
    budget: Annotated[
        int | None,
        typer.Option("--budget", min=1, help="Tokens the context may take (about 4 characters each; default 2000)."),
    ] = None,
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
    from kioko.views import context_view
    from kioko_core.recall.options import RecallOptions

    planned = {None: None, "auto": "auto", "off": False}.get(plan, "?")
    if planned == "?":
        raise UsageProblem(f"--plan must be auto or off, not {plan!r}")
    with opened(store) as memory:
        options = RecallOptions(links=links, limit=limit, plan=planned, budget=budget)  # the value every surface takes
        context = memory.recall(question, user_id=user, agent_id=agent, session_id=session, options=options)
    if json:
        return print_json(context_view(context))
    print(context.text or "(nothing relevant is remembered)")


COMMANDS = (
    Command(add, rich_help_panel=MEMORY),
    Command(get, rich_help_panel=MEMORY),
    Command(list_, "list", rich_help_panel=MEMORY),
    Command(update, rich_help_panel=MEMORY),
    Command(delete, rich_help_panel=MEMORY),
    Command(forget_user, "forget-user", rich_help_panel=MEMORY),
    Command(forget_about, "forget-about", rich_help_panel=MEMORY),
    Command(recall, rich_help_panel=MEMORY),
)
"""This module's commands, in the order ``kioko --help`` lists them (:func:`kioko.cli.make_app` adds them)."""
