"""A list written one item a line under a heading is one statement: the heading says what each line is.

People paste plans, checklists and preferences as a heading and one item a line::

    Migration plan:
    1. freeze writes
    2. copy data to the new cluster
    3. switch DNS

Read a line at a time, the heading is a sentence of its own and each line a fragment that says nothing by
itself ("3. switch DNS" is stored alone, and "What's the migration plan?" finds no step). :func:`fold_lists`
writes such a block as the one sentence it means, the way a plan said inline is read: "Migration plan: freeze
writes, then copy data to the new cluster, then switch DNS." A numbered list (or one under a heading naming
steps, a plan or an order) is a sequence and its items are joined with "then"; other lists with commas (with
semicolons when an item holds a comma itself). The plan, procedure, preference and instruction rules then read
it as they read the inline form.

A block is a heading line that ends with a colon (at most :data:`HEADING_WORDS` words) followed by at least two
item lines: lines opened by a list marker ("-", "*", "•", "1.", "2)"), or plain lines of at most
:data:`ITEM_WORDS` words each when every line of the block is one. Anything else in the turn is kept as it was.
"""

from __future__ import annotations

import re

HEADING_WORDS = 8
"""A heading is short: "Update to output prefs:", "Migration plan:", "Things to pack for Skye:"."""
ITEM_WORDS = 12
"""An unmarked line is an item only when it is short and every line under the heading is one."""

_MARKER = re.compile(r"^\s*(?:[-*•·–]|\d{1,2}[.)]|\(\d{1,2}\)|[a-z][.)](?=\s))\s*")
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}[.)]|\(\d{1,2}\))")
_SEQUENCE_HEADING = re.compile(
    r"\b(?:plan|plans|steps?|process|procedure|order|sequence|schedule|itinerary|route|runbook|checklist|"
    r"how to|how we|how i)\b",
    re.IGNORECASE,
)
_SENTENCE_INSIDE = re.compile(r"[.!?]\s+\S")


def _heading(line: str) -> str | None:
    text = line.strip()
    if not text.endswith(":") or _MARKER.match(text):
        return None
    body = text[:-1].strip()
    if not body or len(body.split()) > HEADING_WORDS or _SENTENCE_INSIDE.search(body):
        return None
    return body


def _items(lines: list[str]) -> tuple[list[str], bool] | None:
    """The items of the lines under a heading and whether they are numbered, or None when they are no list."""
    lines = [line for line in lines if line.strip()]
    if len(lines) < 2:
        return None
    marked = [bool(_MARKER.match(line)) for line in lines]
    if all(marked):
        items = [_MARKER.sub("", line, count=1) for line in lines]
    elif not any(marked) and all(
        len(line.split()) <= ITEM_WORDS and not _SENTENCE_INSIDE.search(line) for line in lines
    ):
        items = list(lines)
    else:
        return None
    items = [" ".join(item.split()).rstrip(" .;,") for item in items]
    if not all(items):
        return None
    return items, all(_NUMBERED.match(line) for line in lines)


def _joined(heading: str, items: list[str], sequence: bool) -> str:
    if sequence:
        body = ", then ".join(items)
    else:
        body = ("; " if any("," in item for item in items) else ", ").join(items)
    return f"{heading}: {body}."


def fold_lists(text: str) -> str:
    """``text`` with each heading-and-items block written as one sentence (see the module's doc); a text with no
    such block comes back as it was."""
    if not isinstance(text, str) or "\n" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    while at < len(lines):
        heading = _heading(lines[at])
        if heading is None:
            out.append(lines[at])
            at += 1
            continue
        end = at + 1
        while end < len(lines) and lines[end].strip() and _heading(lines[end]) is None:
            end += 1
        found = _items(lines[at + 1 : end])
        if found is None:
            out.append(lines[at])
            at += 1
            continue
        items, numbered = found
        out.append(_joined(heading, items, numbered or bool(_SEQUENCE_HEADING.search(heading))))
        at = end
    return "\n".join(out)


__all__ = ["fold_lists"]
