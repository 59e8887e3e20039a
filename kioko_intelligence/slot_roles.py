"""A role of the user's taken by another person: "Dmytro became my team lead" after "My team lead is Oksana".

A role of the user's that one person holds at a time (a team lead, a manager, a mentor, a GP, a landlord, a coach:
:data:`ROLES`) changes holder when a turn says another name holds it. The frame rule of :mod:`.slots` reads a name
both statements say as part of the slot, so a turn that names the old holder too ("Oksana is QA manager now and
Dmytro is become my team lead", "Oksana got promoted to QA manager, so Dmytro is my team lead now") replaced nothing,
or marked the memory where the new holder held *another* role ("User's mentor is Dmytro"). Here the turn's
assignments are read plainly: a name, a verb of being or becoming ("is", "'s", "became", "has become", "was made",
"took over as" ...), "my" or "our" and the role's words; or "my (new) <role> is (now) <name>". An older memory of
the user's stating the same role with another holder ("User's team lead is Oksana.", "Oksana is my team lead") is
superseded by the op that says the assignment, when the turn says it is a change: a verb of becoming or a change
word ("now", "new" ...). Without one the other rules decide (a marked conflict at most).

Left alone: a role several people hold at once ("Luna is my dog", "Ben is my son": no role of :data:`ROLES`),
someone else's role ("Dmytro is Oksana's team lead": not "my"), the same holder said again, and a role said of
a memory that is no statement of the user's (a profile slot is :mod:`.profile_changes`').
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kioko_core.kinds import Profile
from kioko_core.store import Record
from kioko_intelligence.ops import MemoryOp
from kioko_intelligence.slot_reading import CUE

ROLES = frozenset(
    (
        "manager line manager boss team lead team leader tech lead lead supervisor mentor director head gp doctor "
        "dentist therapist physio physiotherapist landlord landlady letting agent lawyer solicitor accountant agent "
        "coach trainer tutor husband wife partner boyfriend girlfriend fiance fiancé fiancee fiancée babysitter "
        "childminder nanny cleaner vet hairdresser barber assistant pa deputy captain sponsor adviser advisor "
        "account manager product owner scrum master consultant midwife health visitor social worker caseworker "
        "case worker keyworker key worker carer"
    ).split()
    + [
        "line manager",
        "team lead",
        "team leader",
        "tech lead",
        "letting agent",
        "account manager",
        "product owner",
        "scrum master",
        "health visitor",
        "social worker",
        "case worker",
        "key worker",
    ]
)
"""Roles one person holds for the user at a time (a phrase's last words name it: "QA manager" is a manager)."""

_NAME = r"((?:(?:Mr|Mrs|Ms|Mx|Dr|Father|Reverend|Rev)\.?\s+)?[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)"
_ROLE = r"((?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*)(?![\w'’])"  # "my wife's team lead" is no role of "wife"
_BECOMING = (
    r"became|becomes|has become|have become|is become|was made|has been made|got made|was appointed|"
    r"has been appointed|got appointed|is appointed|took over as|has taken over as|is taking over as|"
    r"stepped in as|steps in as|was promoted to|got promoted to|moved up to"
)
_HOLDER_FIRST = re.compile(
    rf"{_NAME}\s+(?:(?P<becoming>{_BECOMING})|is|'s|was)\s+(?:now\s+)?(?:my|our)\s+(?:new\s+)?{_ROLE}"
)
_ROLE_FIRST = re.compile(
    rf"\b(?:User's|[Mm]y|[Oo]ur)\s+(?:new\s+)?{_ROLE}\s+(?:is|was|'s)\s+(?:now\s+)?(?:the\s+)?{_NAME}"
)
_NOT_NAMES = frozenset(
    "This That It There Here He She They We What Which Who User Everyone Someone Nobody Now Today".split()
)


def _role(words: str) -> str | None:
    """The role a phrase names by its last words ("QA manager" -> "manager", "team lead now" -> None: the role's
    words end the phrase), or None."""
    said = words.lower().split()
    for size in (2, 1):
        if len(said) >= size and " ".join(said[-size:]) in ROLES:
            return " ".join(said[-size:])
    return None


def assignments(text: str) -> list[tuple[str, str, bool]]:
    """(role, holder, said as becoming) of every role of the user's ``text`` gives a holder."""
    found: list[tuple[str, str, bool]] = []
    for match in _HOLDER_FIRST.finditer(text):
        name, words = match.group(1), match.group(match.lastindex or 0)
        role = _role(_trim(words))
        if role and name.split()[0] not in _NOT_NAMES:
            found.append((role, name, bool(match.group("becoming"))))
    for match in _ROLE_FIRST.finditer(text):
        role = _role(match.group(1))
        name = match.group(2)
        if role and name.split()[0] not in _NOT_NAMES:
            found.append((role, name, False))
    return found


_TRAIL = re.compile(r"\s+(?:now|too|also|again|since|from|at|in|for|and|but|so|then)\b.*$", re.IGNORECASE)


def _trim(words: str) -> str:
    return _TRAIL.sub("", words)


def new_holders(
    any_of: Callable[[list[str]], list[Record]], ops: list[MemoryOp], turn_text: str, text_of: Callable[[MemoryOp], str]
) -> set[str]:
    """Mark what each op of the turn that gives a role of the user's a new holder replaces (``fields["supersedes"]``);
    the ids of the memories replaced."""
    replaced: set[str] = set()
    cue = bool(CUE.search(turn_text))
    for op in ops:
        if op.status != "planned" or op.action != "add" or op.fields.get("supersedes"):
            continue
        for role, name, becoming in assignments(text_of(op)):
            if not (becoming or cue):
                continue
            old = [
                r
                for r in any_of(["t:" + w for w in role.split()])
                if r.kind != Profile.kind
                and r.id not in replaced
                and any(
                    held_role == role and held.lower() != name.lower() and held.lower() not in name.lower()
                    for held_role, held, _ in assignments(r.content)
                )
            ]
            if len(old) != 1:
                continue  # none, or not sure which
            op.fields["supersedes"] = [old[0].id]
            op.reason = (op.reason + "; " if op.reason else "") + f"a new holder of the user's {role}"
            replaced.add(old[0].id)
            break
    return replaced


__all__ = ["ROLES", "assignments", "new_holders"]
