"""The intelligence commands: manage, plan, maintain, end-session, pin, unpin."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from kioko.cli.app import SMART, Command
from kioko.cli.one_call import from_operation
from kioko.cli.support import Agent, Json, Store, UsageProblem, User, err, new_table, opened, out, print_json


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
    from kioko.remote.url import is_remote_url
    from kioko_intelligence.providers import is_provider_string

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


@from_operation(
    "plan",
    arguments={"query": "The question or task."},
    options={"session_id": ("--session",)},
    helps={"session_id": "The current conversation."},
    rename={"query": "question", "session_id": "session"},
)
def plan(
    *,
    args: dict[str, Any],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """The plan recall would follow for a question: its intents, why, a cap per context section, links."""
    with opened(store) as memory:
        found = memory.plan(**args, user_id=user, agent_id=agent)
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
        table = new_table("section", "at most", box=None, header_style="bold")
        for section, cap in found.section_limits.items():
            table.add_row(section, str(cap))
        console.print(table)


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
    from kioko_intelligence.maintenance import TASKS

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
    table = new_table("user", "task", "result", box=None, header_style="bold")
    for who, done in results.items():
        for task, result in done.items():
            table.add_row(who, task, _result_text(result))
    out().print(table)


def _maintain(memory: Any, user: str | None, agent: str | None, tasks: list[str] | None, show: bool) -> dict:
    """``memory.maintain`` one scope at a time, with a progress bar over the users when there are several."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from kioko.api.wire import jsonable
    from kioko_intelligence.maintenance import counted_scopes

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


@from_operation("end_session", arguments={"session_id": "The session to wrap up."}, rename={"session_id": "session"})
def end_session(
    *,
    args: dict[str, Any],
    user: User,
    store: Store = None,
    agent: Agent = None,
    json: Json = False,
) -> None:
    """Wrap a session up now: its task and lasting scratchpad notes become its episode; the scratchpad is cleared."""
    from kioko.views import memory_view

    with opened(store) as memory:
        episode = memory.end_session(**args, user_id=user, agent_id=agent)
    if json:
        return print_json(memory_view(episode) if episode is not None else None)
    if episode is None:
        return out().print(
            f"session {args['session_id']} had nothing lasting to keep (its scratchpad is cleared)", markup=False
        )
    out().print(f"episode {episode.id}: {episode.content}", markup=False)


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
    from kioko.views import memory_view

    with opened(store) as memory:
        record = (memory.pin if pinned else memory.unpin)(memory_id, user_id=user, agent_id=agent)
        now = [r.id for r in memory.pinned(user_id=user, agent_id=agent)]
    if json:
        return print_json({**memory_view(record), "pinned": now})
    out().print(f"{'pinned' if pinned else 'unpinned'} {record.id} ({len(now)} pinned now)", markup=False)


COMMANDS = (
    Command(manage, rich_help_panel=SMART),
    Command(plan, rich_help_panel=SMART),
    Command(maintain, rich_help_panel=SMART),
    Command(end_session, "end-session", rich_help_panel=SMART),
    Command(pin, rich_help_panel=SMART),
    Command(unpin, rich_help_panel=SMART),
)
"""This module's commands, in the order ``kioko --help`` lists them (:func:`kioko.cli.make_app` adds them)."""
