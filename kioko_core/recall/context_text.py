"""The context's text: recall's memories in their sections (safety first, then the kinds' sections and the
entity graph's lines), the links among them (at most :data:`MAX_LINK_LINES`, :data:`LINES_PER_MEMORY` a memory
while others wait), each memory dated when the question is about when; :func:`context_blocks` hands them to
the budget, which decides what fits."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from kioko_core.kinds import Episodes
from kioko_core.linking.links import (
    MemoryLink,
    link_entries,
    record_label,
)
from kioko_core.recall import budget as context_budget
from kioko_core.recall import sections as context_sections
from kioko_core.store import Record
from kioko_core.telemetry import staged

if TYPE_CHECKING:
    from kioko_core.layer.parts import LayerParts

MAX_LINK_LINES = 6
LINES_PER_MEMORY = 2


@dataclass
class RecalledMemory:
    """A memory in a context: the record, its fused score, and why it is there (``signals``)."""

    record: Record
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    section: str = "memories"
    was: str | None = None
    """The older memory's text this one is shown in place of, for this question (its "(was: ...)" note)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.record, name)  # id, content, kind, metadata ... read through


# Which section of the context each kind goes to, and the sections' order and titles.
SECTIONS = [
    ("memories", "Relevant memories:"),
    ("decisions", "Decisions in force:"),
    ("procedures", "Procedures that may apply:"),
    ("skills", "Skills:"),
    ("lessons", "Lessons from earlier attempts:"),
    ("goals", "Open goals:"),
    ("pinned", "Keep in mind (frequently needed):"),
]
SAFETY_TITLE = "Keep in mind for this question (health, safety, hard rules):"
RELATIONS_FIRST = {"derived_from": 1}  # provenance after relations
AUTHOR_ORDER = {"auto": 0, "llm": 0, "structure": 1, "feedback": 2, "manual": 3}


def links_section(
    layer: LayerParts, recalled: dict[str, RecalledMemory], brought: set[str], always: set[str], hood: Any, now: float
) -> list[MemoryLink]:
    """Links among the context's memories, in the spec's order, at most 6, at most 2 per memory while others wait."""
    found: dict[tuple[str, str], MemoryLink] = {}
    for memory_id, memory in recalled.items():
        for entry in link_entries(memory.record):
            other = entry["id"]
            if other not in recalled or other == memory_id:
                continue
            if memory_id in always and other in always:
                continue  # goals and their sub-goals explain nothing unless the question is about them
            key = (min(memory_id, other), max(memory_id, other))
            if key not in found:
                found[key] = MemoryLink.from_entry(memory.record, entry, recalled[other].record)
    half_life = layer.linker.config.half_life_days

    def order(link: MemoryLink) -> tuple[int, int, int, float, str, str]:
        brings = 0 if (link.source in brought or link.target in brought) else 1
        return (
            brings,
            RELATIONS_FIRST.get(link.type, 0),
            AUTHOR_ORDER.get(link.by, 0),
            -link.faded(now, half_life),
            link.source,
            link.target,
        )

    ranked = sorted(found.values(), key=order)
    chosen: list[MemoryLink] = []
    uses: dict[str, int] = {}
    for link in ranked:
        if (
            len(chosen) < MAX_LINK_LINES
            and uses.get(link.source, 0) < LINES_PER_MEMORY
            and uses.get(link.target, 0) < LINES_PER_MEMORY
        ):
            chosen.append(link)
            uses[link.source] = uses.get(link.source, 0) + 1
            uses[link.target] = uses.get(link.target, 0) + 1
    for link in ranked:  # nothing else is waiting: the remaining slots go to the ones held back
        if len(chosen) >= MAX_LINK_LINES:
            break
        if link not in chosen:
            chosen.append(link)
    return sorted(chosen, key=order)


@staged("recall.context")
def context_blocks(
    recalled: dict[str, RecalledMemory],
    shown_links: list[MemoryLink],
    extra: context_sections.Sections,
    now: float | None,
) -> list[context_budget.Block]:
    """The context's blocks in the order the text shows them; ``now`` given (a question about when), events of
    earlier days show their date."""
    today = datetime.fromtimestamp(now, UTC).date() if now is not None else None
    # the profile and instructions first: the same from turn to turn, so a prompt cache keeps them
    blocks: list[context_budget.Block] = context_sections.blocks(extra, "top")
    safety = [m for m in recalled.values() if m.section == "safety"]
    if safety:
        lines = [context_budget.Line(dated(m.record, today, m.was), m.record.id) for m in safety]
        blocks.append(context_budget.Block("safety", SAFETY_TITLE, lines))
    for section, title in SECTIONS:
        if section == "goals":
            blocks += context_sections.blocks(extra, "graph")
        members = [m for m in recalled.values() if m.section == section]
        members.sort(key=lambda m: (-m.score, -m.signals.get("linked", 0.0), m.record.created_at))
        if section == "goals":  # a goal reached or given up that the search found is no open goal
            closed = [m for m in members if m.record.metadata.get("status", "open") != "open"]
            members = [m for m in members if m not in closed]
            if closed:
                lines = [context_budget.Line(closed_goal_line(m.record), m.record.id) for m in closed]
                blocks.append(context_budget.Block(section, CLOSED_GOALS_TITLE, lines))
        if members:
            lines = [
                context_budget.Line(
                    goal_line(m.record) if section == "goals" else dated(m.record, today, m.was), m.record.id
                )
                for m in members
            ]
            blocks.append(context_budget.Block(section, title, lines))
    blocks += context_sections.blocks(extra, "working")
    if shown_links:
        lines = [
            context_budget.Line(_as_now(link, recalled).line(), needs=(link.source, link.target))
            for link in shown_links
        ]
        blocks.append(context_budget.Block("links", "How these memories connect:", lines))
    return blocks


def _as_now(link: MemoryLink, recalled: dict[str, RecalledMemory]) -> MemoryLink:
    """The link with its ends labelled as they read now: a label is written when the link is, and a memory
    rewritten since ("... right now I manage 700 m") must not show its old words through it."""
    source, target = recalled.get(link.source), recalled.get(link.target)
    if source is None and target is None:
        return link
    return dataclasses.replace(
        link,
        source_label=record_label(source.record) if source is not None else link.source_label,
        target_label=record_label(target.record) if target is not None else link.target_label,
    )


def dated(record: Record, today: date | None, was: str | None = None) -> str:
    """A memory as the context shows it; with ``today`` (a question about when), an event of an earlier day
    ends with its date, "(8 May 2023)".

    "I went to a support group yesterday" answers "when did she go?" only with the day it was said. An
    event of today, any other kind of memory, and every memory for a question that is not about when,
    are shown as they are (the context of other questions stays as the spec shows it). ``was``: the older
    memory recall shows it in place of (its "(was: ...)" note).
    """
    if today is None or record.kind != Episodes.kind or not record.created_at:
        return context_sections.with_was(record, was)
    day = datetime.fromtimestamp(record.created_at, UTC).date()
    if day >= today:
        return context_sections.with_was(record, was)
    return f"{context_sections.with_was(record, was)} ({day.day} {day.strftime('%B')} {day.year})"


CLOSED_GOALS_TITLE = "Goals no longer open:"
_CLOSED_AS = {"done": "reached", "dropped": "given up"}


def closed_goal_line(record: Record) -> str:
    """A goal reached or given up, as the context shows it when the search finds it: said to be over, the goal in a
    "(was: ...)" note, so no reader takes it for an aim still held ("Goal given up: Not doing the Level 4 after all
    (was: Get my Makaton Level 4 by the end of term).", "Goal reached (was: Submit the thesis by June).")."""
    status = str(record.metadata.get("status", ""))
    goal = re.sub(r"^Goal:\s*", "", record.content.strip()).rstrip(".")
    said = record.metadata.get("reason") if status == "dropped" else None
    head = f"Goal {_CLOSED_AS.get(status, status)}"
    if isinstance(said, str) and said.strip():
        head += f": {said.strip().rstrip('.')}"
    return f"{head} (was: {goal})."


def goal_line(record: Record) -> str:
    """A goal as the context shows it: its text with the progress and due date the router stored.

    ``Goal: Run the Berlin marathon (30 %, due April).``; a goal with neither shows its text as it is. Progress
    given as a count keeps it, the count before the share: ``Goal: 40 deals (27 deals of 40, 68 %).`` ("how many have I
    closed?" is answered by 27, not by 68 %); the note may name the goal's unit, "7 kg of 10".
    """
    meta = record.metadata
    extra: list[str] = []
    progress = meta.get("progress")
    if isinstance(progress, (int, float)) and not isinstance(progress, bool) and progress > 0:
        count = progress_count(meta)
        extra += [count] if count else []
        extra.append(f"{round(float(progress) * 100)} %")
    due = meta.get("due")
    if isinstance(due, str) and due.strip():
        extra.append(f"due {due.strip()}")
    if not extra:
        return record.content
    text = record.content.rstrip()
    end = "." if text.endswith(".") else ""
    return f"{text[: len(text) - len(end)].rstrip()} ({', '.join(extra)}){end}"


_COUNT_NOTE = re.compile(r"\d[\d,.]*(?: [A-Za-z]+(?:-[A-Za-z]+)*)? of \d[\d,.]*")


def progress_count(meta: dict[str, Any]) -> str | None:
    """The count ("27 deals of 40", "12 of 24") of the newest progress note, when that note set the goal's progress as it is now."""
    notes = meta.get("notes")
    newest = notes[-1] if isinstance(notes, list) and notes else None
    if not isinstance(newest, dict) or newest.get("progress") != meta.get("progress"):
        return None
    text = newest.get("text")
    return text if isinstance(text, str) and _COUNT_NOTE.fullmatch(text) else None
