"""A seeded generator of realistic notes on 20 topics, for benchmarks: no external data, no model.

What an agent's memory holds after months of work and hobbies: events written in sessions (a problem,
what was checked, the fix, minutes apart), goals, decisions, procedures with steps, lessons and facts,
about machines, tickets, error codes, people and plans that recur. Most notes have related notes (the
same machine, the same error code, the same incident within a session), which is the dense and
expensive case for write-time linking.

Everything comes from templates filled with a ``random.Random(seed)``, so the same ``(count, seed)``
always yields the same notes and questions, on every machine.

    notes = generate_notes(2000, seed=7)        # chronological, oldest first
    questions = generate_questions(30, seed=7)  # mixing topics
    triples = entity_relations()                # (subject, relation, object) for the entity graph
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

START = 1_714_521_600.0
"""2024-05-01 00:00 UTC: the first note's earliest possible time."""

DAYS = 240
"""Notes are spread over this many days, whatever their number (denser stores, not longer ones)."""

# How often each kind of episode is drawn: a session of events, or one note of another kind.
EPISODE_WEIGHTS: dict[str, float] = {
    "session": 0.34,
    "factual": 0.20,
    "decision": 0.09,
    "procedural": 0.08,
    "strategy": 0.09,
    "goal": 0.08,
}


@dataclass(frozen=True)
class Note:
    """One memory to write: what ``MemoryLayer.add`` takes."""

    content: str
    memory_type: str
    created_at: float
    topic: str
    session_id: str | None = None


@dataclass(frozen=True)
class Topic:
    """A subject the user keeps coming back to: its named things and the sentences written about it.

    Templates use ``{asset}``, ``{asset2}`` (another asset), ``{code}``, ``{ticket}``, ``{person}``,
    ``{part}``, ``{n}`` (2-40) and ``{pct}`` (5-40). Within one session every slot keeps its value, so
    the events of a session name the same machine, code and ticket.
    """

    key: str
    assets: tuple[str, ...]
    parts: tuple[str, ...]
    people: tuple[str, ...]
    codes: tuple[str, ...] = ()
    ticket: str = "T-{:04d}"
    problems: tuple[str, ...] = ()
    followups: tuple[str, ...] = ()
    fixes: tuple[str, ...] = ()
    goals: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    procedures: tuple[str, ...] = ()
    lessons: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    relations: tuple[tuple[str, str, str], ...] = field(default_factory=tuple)


def _numbered(noun: str, numbers: Sequence[int | str]) -> tuple[str, ...]:
    return tuple(f"{noun} {number}" for number in numbers)


TOPICS: tuple[Topic, ...] = (
    Topic(
        key="assembly",
        assets=_numbered("line", range(1, 9)),
        parts=("light curtain", "conveyor belt", "torque sensor", "servo drive", "photo eye"),
        people=("Maria", "Tomasz", "Aisha", "Kenji"),
        codes=("E-201", "E-204", "E-209", "E-211", "E-217", "E-223", "E-230"),
        ticket="INC-{:04d}",
        problems=(
            "{asset} keeps faulting with error {code} during the morning shift ({ticket}).",
            "The {part} on {asset} jammed again and the line stopped for {n} minutes.",
            "{asset} throws {code} every time the {part} starts; {person} logged {ticket}.",
            "Output on {asset} dropped {pct}% because the {part} keeps tripping with {code}.",
        ),
        followups=(
            "Checked the {part} wiring on {asset}; {code} still comes back after a reset.",
            "{person} watched {asset} for an hour: {code} only appears under full load.",
            "Still chasing {code} on {asset}; the {part} log shows voltage dips before each stop.",
        ),
        fixes=(
            "Found it: the {part} connector on {asset} was loose. Tightened it and {code} is gone.",
            "Replaced the {part} on {asset}; that fixed {code} and the line runs clean again.",
            "Root cause of {ticket}: a worn {part} on {asset}. {person} fitted a new one.",
            "Reseated the {part} cable on {asset}; no {code} for the rest of the shift.",
        ),
        goals=(
            "Goal: get unplanned downtime on {asset} under {n} minutes per week.",
            "Goal: cut scrap on {asset} by {pct}% before the quarterly review.",
        ),
        decisions=(
            "Decision: replace every {part} on {asset} at the next planned stop instead of waiting for failures.",
            "Decision: {person} owns preventive maintenance for {asset} and {asset2}.",
            "We decided to keep two spare {part} units for {asset} after {ticket}.",
        ),
        procedures=(
            "Procedure: clearing a jam on {asset}: 1. stop the {part}. 2. lock out the cell. "
            "3. remove the stuck part. 4. restart and watch for {code}.",
            "Procedure: after a {code} alarm on {asset}: 1. note the time. 2. check the {part} connector. "
            "3. reset from the panel. 4. log it in the shift book.",
        ),
        lessons=(
            "Lesson: when {code} shows up on {asset}, check the {part} connector before replacing anything.",
            "Lesson: a {part} that trips under load is usually a loose cable, not a bad sensor.",
        ),
        facts=(
            "{asset} runs two shifts and makes about {n}0 units per hour.",
            "The {part} on {asset} was last replaced by {person} in spring.",
            "{code} means the {part} lost its signal for more than a second.",
        ),
        questions=(
            "Why does {asset} keep faulting with {code}?",
            "How do I clear a jam on {asset}?",
            "What did we decide about the {part} on {asset}?",
        ),
    ),
    Topic(
        key="presses",
        assets=_numbered("press", range(1, 15)),
        parts=("die cushion", "hydraulic valve", "clutch brake", "ram guide", "oil cooler"),
        people=("Jonas", "Priya", "Olek"),
        codes=("P-301", "P-305", "P-312", "P-318", "P-322"),
        ticket="WO-{:05d}",
        problems=(
            "{asset} is leaking oil at the {part} again; work order {ticket}.",
            "{asset} stopped mid-stroke with {code}, the {part} overheats after {n} minutes.",
            "Parts from {asset} show burrs; {person} suspects the {part}.",
        ),
        followups=(
            "Measured {asset} {part} temperature: {n}0 degrees before the {code} stop.",
            "{person} pulled the stroke log for {asset}; pressure drops right before {code}.",
        ),
        fixes=(
            "Replaced the seal on the {part} of {asset}; the leak and {code} are fixed.",
            "The cause was a clogged filter at the {part}; cleaned it and {asset} runs cool again.",
            "{person} recalibrated the {part} on {asset}; parts are burr free again ({ticket} closed).",
        ),
        goals=(
            "Goal: run {asset} for a month without a {part} failure.",
            "Goal: bring changeover time on {asset} down to {n} minutes.",
        ),
        decisions=(
            "Decision: move {asset} to synthetic oil to protect the {part}.",
            "Decision: {asset2} takes the heavy dies while {asset} gets a new {part}.",
        ),
        procedures=(
            "Procedure: die change on {asset}: 1. lower the ram. 2. release the {part}. "
            "3. swap the die with the crane. 4. run three test strokes.",
        ),
        lessons=(
            "Lesson: an overheating {part} on a press is almost always a dirty filter.",
            "Lesson: log pressure on {asset} before touching the {part}; {code} hides the real cause.",
        ),
        facts=(
            "{asset} is a {n}0 ton press in hall B.",
            "{code} on a press means the {part} pressure is low.",
            "{person} is the hydraulics specialist for {asset} and {asset2}.",
        ),
        questions=(
            "Why is {asset} leaking oil?",
            "What does {code} mean on {asset}?",
            "How do I change a die on {asset}?",
        ),
    ),
    Topic(
        key="migration",
        assets=("DB-17", "DB-21", "DB-34", "DB-40"),
        parts=("orders table", "replication slot", "connection pool", "foreign keys", "backfill job", "read replica"),
        people=("Lena", "Ravi", "Chen"),
        codes=("MIG-101", "MIG-114", "MIG-127", "MIG-133", "MIG-142"),
        ticket="OPS-{:04d}",
        problems=(
            "The {code} migration on {asset} timed out while rewriting the {part}.",
            "Replication lag on {asset} hit {n} minutes during {code}; {ticket} opened.",
            "{asset} errors with lock timeouts on the {part} since {code} started.",
        ),
        followups=(
            "{person} found the {part} on {asset} holding an exclusive lock for {n} seconds.",
            "Paused {code} on {asset}; lag is back under a minute but the {part} is half done.",
        ),
        fixes=(
            "Fixed {code}: split the {part} rewrite on {asset} into batches of {n}000 rows.",
            "Root cause of {ticket}: the {part} on {asset} had no index. Added it and the migration finished.",
            "Resolved the lock timeouts on {asset} by raising the {part} limit; {code} completed.",
        ),
        goals=(
            "Goal: finish moving {asset} to Postgres 16 by the end of the quarter.",
            "Goal: zero downtime for the {part} cutover on {asset}.",
        ),
        decisions=(
            "Decision: run every migration on {asset} behind a feature flag, starting with {code}.",
            "Decision: {person} reviews each {part} change on {asset} and {asset2} before it ships.",
            "We decided to keep the old {part} on {asset} read-only for two weeks after {code}.",
        ),
        procedures=(
            "Procedure: rolling back {code} on {asset}: 1. stop the {part}. 2. restore the snapshot. "
            "3. replay the WAL. 4. check row counts.",
        ),
        lessons=(
            "Lesson: batch every {part} rewrite; one big transaction on {asset} locks everything.",
            "Lesson: watch replication lag on {asset} before and during a migration like {code}.",
        ),
        facts=(
            "{asset} holds about {n}0 GB and serves the checkout service.",
            "The {part} on {asset} was created by {person} in 2019.",
            "{code} adds a NOT NULL column to the {part}.",
        ),
        questions=(
            "Why did {code} time out on {asset}?",
            "How do I roll back a migration on {asset}?",
            "What did we decide about the {part} on {asset}?",
        ),
    ),
    Topic(
        key="running",
        assets=("Riverside loop", "Hill Road", "track session", "Sunday long run", "Park 10K"),
        parts=("left calf", "right knee", "shin", "achilles", "hamstring"),
        people=("coach Ines", "Sam", "Noor"),
        ticket="W{:02d}",
        problems=(
            "My {part} hurt after the {asset} today, had to stop at kilometre {n}.",
            "Felt sluggish on the {asset}; pace was {pct} seconds slower and the {part} was tight.",
            "The {part} pain came back on the {asset} in week {ticket}.",
        ),
        followups=(
            "Iced the {part} after the {asset}; still sore when walking downstairs.",
            "Told {person} about the {part}; we cut the {asset} short this week.",
        ),
        fixes=(
            "New shoes fixed it: the {part} felt fine on the {asset}, {n} km without pain.",
            "Physio found the cause: weak hips loading the {part}. Two weeks of exercises and it is resolved.",
            "Turned out the {part} pain was from running the {asset} too fast; easy pace fixed it.",
        ),
        goals=(
            "Goal: run the autumn marathon in under three and a half hours.",
            "Goal: run {n} km a week without {part} pain.",
            "Goal: finish the {asset} at tempo pace by the end of the month.",
        ),
        decisions=(
            "Decision: the {asset} stays at easy pace until the {part} is fine.",
            "Decision: {person} plans my weeks and I log every {asset}.",
        ),
        procedures=(
            "Procedure: warm-up before the {asset}: 1. five minutes walking. 2. leg swings. "
            "3. {n} strides. 4. check the {part}.",
        ),
        lessons=(
            "Lesson: when the {part} tightens, slow down on the {asset} instead of pushing through.",
            "Lesson: sleep matters more than the {asset}; a tired week means a sore {part}.",
        ),
        facts=(
            "The {asset} is {n} km with one long climb.",
            "{person} ran the city marathon in 3:05.",
            "My easy pace is about 5:{n} per kilometre.",
        ),
        questions=(
            "Why does my {part} hurt after the {asset}?",
            "What is my marathon goal?",
            "How should I warm up before the {asset}?",
        ),
    ),
    Topic(
        key="tea",
        assets=("Gyokuro", "Dong Ding oolong", "Yunnan Dianhong", "Darjeeling first flush", "Sencha Asanoka"),
        parts=("Tokoname kyusu", "gaiwan", "kettle", "water filter", "tasting cups"),
        people=("Hiro", "Mei", "Clara"),
        ticket="batch {:03d}",
        problems=(
            "The {asset} came out bitter again in the {part}; steeped at {n}0 seconds.",
            "The {asset} tastes flat; maybe the {part} is the problem.",
            "Scorched the {asset} with water that was too hot from the {part}.",
        ),
        followups=(
            "Tried the {asset} at a lower temperature in the {part}; a bit better but still harsh.",
            "{person} says the {asset} from {ticket} is an older harvest.",
        ),
        fixes=(
            "Fixed the bitter {asset}: 60 degree water and {n} seconds in the {part}. Sweet and brothy.",
            "The cause was the {part}: the new filter water made the {asset} bright again.",
            "Cleaned the {part} with citric acid; the {asset} tastes like it should.",
        ),
        goals=(
            "Goal: taste every {asset} harvest this year and write notes.",
            "Goal: learn to brew {asset} well in the {part}.",
        ),
        decisions=(
            "Decision: brew {asset} only in the {part} from now on.",
            "Decision: buy {asset} in small batches from {person}'s shop.",
        ),
        procedures=(
            "Procedure: brewing {asset}: 1. warm the {part}. 2. {n} grams of leaf. "
            "3. water at the right temperature. 4. short first steep.",
        ),
        lessons=(
            "Lesson: bitterness in {asset} means the water is too hot, not too much leaf.",
            "Lesson: the {part} holds heat; shorten the steep for delicate teas like {asset}.",
        ),
        facts=(
            "{asset} is best at {n} degrees below boiling.",
            "{person} gave me the {part} in Kyoto.",
            "The {asset} from {ticket} was harvested in April.",
        ),
        questions=(
            "Why does my {asset} taste bitter?",
            "How do I brew {asset}?",
            "What did {person} say about the {asset}?",
        ),
    ),
    Topic(
        key="network",
        assets=_numbered("router", range(1, 7)) + _numbered("switch", range(10, 16)),
        parts=("BGP session", "uplink", "VLAN 30 trunk", "spanning tree", "DHCP relay"),
        people=("Omar", "Bea", "Ivan"),
        codes=("NET-7", "NET-12", "NET-19", "NET-23"),
        ticket="INC-{:04d}",
        problems=(
            "The {part} on {asset} flapped {n} times overnight ({ticket}).",
            "Users behind {asset} report timeouts; the {part} is down.",
            "{asset} logged {code} and dropped the {part} for {n} minutes.",
        ),
        followups=(
            "{person} checked the optics on {asset}; the {part} errors started at 02:{n}.",
            "Moved traffic off {asset}; the {part} still flaps under load.",
        ),
        fixes=(
            "Found it: a dirty fiber on the {part} of {asset}. Cleaned it and the flapping stopped.",
            "Replaced the SFP on {asset}; {code} and the {part} outage are resolved.",
            "The cause was a timer mismatch on the {part} between {asset} and {asset2}; fixed the config.",
        ),
        goals=(
            "Goal: no {part} outage on {asset} for the rest of the year.",
            "Goal: replace {asset} and {asset2} before support ends.",
        ),
        decisions=(
            "Decision: all {part} changes on {asset} go through a change window.",
            "Decision: {person} is on call for {asset} this month.",
        ),
        procedures=(
            "Procedure: restarting the {part} on {asset}: 1. announce in the ops channel. "
            "2. drain traffic. 3. clear the session. 4. watch for {code}.",
        ),
        lessons=(
            "Lesson: a flapping {part} is more often optics than config; check the fiber first.",
            "Lesson: {code} on {asset} usually precedes a {part} drop by minutes.",
        ),
        facts=(
            "{asset} connects the office to the data center over the {part}.",
            "{code} is the alarm for a {part} state change.",
            "{person} configured {asset} in 2022.",
        ),
        questions=(
            "Why does the {part} on {asset} keep flapping?",
            "Who is on call for {asset}?",
            "What does {code} mean?",
        ),
    ),
    Topic(
        key="exam",
        assets=_numbered("module", range(1, 11)),
        parts=("practice test", "flashcards", "lab exercise", "study group", "mock exam"),
        people=("Dana", "Felix"),
        codes=("CKA-1", "CKA-2", "CKA-3"),
        ticket="attempt {:02d}",
        problems=(
            "Failed the {part} for {asset}: {pct}% short of the pass mark.",
            "Stuck on {asset} again; the {part} makes no sense to me.",
            "Ran out of time on the {part} ({ticket}), {asset} questions took too long.",
        ),
        followups=(
            "Redid the {part} for {asset} with {person}; got {n} of 40 right.",
            "Reread the {asset} chapter; the {part} still trips me up on networking.",
        ),
        fixes=(
            "Passed the {part} for {asset} after switching to timed drills: {pct} points better.",
            "What fixed it: doing the {asset} {part} every morning instead of reading.",
        ),
        goals=("Goal: pass the {code} exam before the end of June.", "Goal: score 80% on every {asset} {part}."),
        decisions=(
            "Decision: study {asset} with {person}'s {part} on weekends.",
            "Decision: book the {code} exam date once the {asset} {part} is above 75%.",
        ),
        procedures=(
            "Procedure: a study session for {asset}: 1. {n} minutes of {part}. 2. one lab. "
            "3. write down every mistake. 4. review them the next day.",
        ),
        lessons=(
            "Lesson: timed {part} runs teach more than rereading {asset}.",
            "Lesson: sleep before a {part}; tired scores are {pct}% lower.",
        ),
        facts=(
            "The {code} exam is two hours with {n} tasks.",
            "{asset} covers storage and volumes.",
            "{person} passed {code} last year.",
        ),
        questions=("How am I doing on {asset}?", "When is the {code} exam?", "What study method works for {asset}?"),
    ),
    Topic(
        key="renovation",
        assets=("kitchen", "bathroom", "hallway", "attic"),
        parts=("permit", "cabinets", "tiling", "wiring", "plumbing"),
        people=("Marek the contractor", "Julia", "Ben"),
        ticket="quote {:03d}",
        problems=(
            "The {part} for the {asset} is delayed again; {person} says {n} more days.",
            "Water leak under the {asset} sink after the {part} work.",
            "The {asset} {part} failed inspection; the inspector wants changes.",
        ),
        followups=(
            "Called {person} about the {asset} {part}; {ticket} needs a revision.",
            "Took photos of the {asset} {part} for the inspector.",
        ),
        fixes=(
            "The {asset} leak was a loose fitting in the {part}; {person} tightened it and it is fixed.",
            "Resolved the {asset} {part} issue: new inspection passed on the second try.",
        ),
        goals=(
            "Goal: finish the {asset} before the holidays for under {n}000 euros.",
            "Goal: get the {asset} {part} done before winter.",
        ),
        decisions=(
            "Decision: {person} does the {asset} {part}, we paint ourselves.",
            "Decision: pick {ticket} for the {asset} {part} over the cheaper one.",
        ),
        procedures=(
            "Procedure: before any {asset} work: 1. turn off the water. 2. switch off the {part} circuit. "
            "3. cover the floor. 4. photograph the state.",
        ),
        lessons=(
            "Lesson: get the {part} permit before ordering anything for the {asset}.",
            "Lesson: add {pct}% to every {asset} quote for surprises.",
        ),
        facts=(
            "The {asset} is {n} square metres.",
            "{person} charges by the day for {part}.",
            "The {asset} {part} was installed in 1978.",
        ),
        questions=(
            "Why is the {asset} {part} delayed?",
            "What did we decide for the {asset}?",
            "What is the budget for the {asset}?",
        ),
    ),
    Topic(
        key="support",
        assets=("Acme Foods", "Northwind", "Globex", "Initech", "Umbrella Retail"),
        parts=("refund", "invoice export", "SSO login", "API quota", "onboarding call"),
        people=("Sofia", "Luis", "Anna"),
        codes=("SUP-12", "SUP-31", "SUP-44"),
        ticket="TICKET-{:05d}",
        problems=(
            "{asset} cannot use the {part} since the last release ({ticket}).",
            "{asset} escalated: the {part} fails for {n} of their users.",
            "{person} says {asset} is unhappy about the {part} issue, churn risk.",
        ),
        followups=(
            "Reproduced the {asset} {part} problem on staging; {code} in the logs.",
            "Asked {asset} for screenshots of the {part} error.",
        ),
        fixes=(
            "Fixed the {part} for {asset}: a config flag was missing. {ticket} closed.",
            "Workaround for {asset}: reset the {part} token; the root cause is {code}.",
            "Patched {code}; {asset} confirms the {part} works again.",
        ),
        goals=(
            "Goal: keep {asset} as a customer through the renewal.",
            "Goal: answer every {asset} ticket within {n} hours.",
        ),
        decisions=(
            "Decision: {person} is the single contact for {asset}.",
            "Decision: credit {asset} one month for the {part} outage.",
        ),
        procedures=(
            "Procedure: handling a {part} complaint: 1. confirm the account. 2. check {code}. "
            "3. reproduce on staging. 4. reply within {n} hours.",
        ),
        lessons=(
            "Lesson: {asset} responds well to a call, not a long email, after a {part} failure.",
            "Lesson: most {part} tickets are {code}; check it first.",
        ),
        facts=(
            "{asset} has {n}0 seats on the enterprise plan.",
            "{person} onboarded {asset} in March.",
            "{code} is the known bug in the {part}.",
        ),
        questions=(
            "What is going on with {asset}?",
            "How do we handle {part} complaints?",
            "Who is the contact for {asset}?",
        ),
    ),
    Topic(
        key="mobile",
        assets=("build 4.2", "build 4.3", "build 4.4", "build 5.0"),
        parts=("login screen", "push notifications", "offline sync", "photo upload", "payment sheet"),
        people=("Yuki", "Tom", "Ada"),
        codes=("CRASH-88", "CRASH-91", "CRASH-97"),
        ticket="BUG-{:04d}",
        problems=(
            "{asset} crashes on the {part} for Android 12 users ({code}).",
            "Reviews say the {part} in {asset} feels slow; {ticket}.",
            "The {part} in {asset} fails when the phone is offline.",
        ),
        followups=(
            "{person} got a stack trace for {code} in the {part} of {asset}.",
            "Crash rate of {asset} is {pct} per thousand sessions, mostly the {part}.",
        ),
        fixes=(
            "Fixed {code}: a null check in the {part}. Shipping it in {asset}.",
            "The cause was a race in the {part}; {person} patched it for {asset}.",
        ),
        goals=("Goal: crash-free sessions above 99.{n}% for {asset}.", "Goal: ship {asset} with the new {part}."),
        decisions=(
            "Decision: hold {asset} until {code} is fixed.",
            "Decision: {person} owns the {part} for {asset} and {asset2}.",
        ),
        procedures=(
            "Procedure: releasing {asset}: 1. freeze the branch. 2. run the {part} tests. "
            "3. staged rollout to {pct}%. 4. watch {code}.",
        ),
        lessons=(
            "Lesson: test the {part} offline before every release like {asset}.",
            "Lesson: a staged rollout caught {code} before it hit everyone.",
        ),
        facts=(
            "{asset} adds the redesigned {part}.",
            "{code} only happens on older Android phones.",
            "{person} wrote the {part}.",
        ),
        questions=("Why does {asset} crash?", "What is blocking the {asset} release?", "How do we release a build?"),
    ),
    Topic(
        key="greenhouse",
        assets=("tomato bed", "pepper bed", "herb shelf", "seedling tray"),
        parts=("irrigation pump 2", "vent opener", "heat mat", "grow light", "humidity sensor"),
        people=("grandpa Leo", "Ines"),
        ticket="sowing {:02d}",
        problems=(
            "The {asset} is wilting; the {part} did not run overnight.",
            "Mold on the {asset} again, the {part} reads {n}0% humidity.",
            "The {part} stopped working and the {asset} got too cold.",
        ),
        followups=(
            "Checked the {part} timer for the {asset}; it skipped {n} cycles.",
            "{person} thinks the {asset} needs more airflow than the {part} gives.",
        ),
        fixes=(
            "Replaced the fuse in the {part}; the {asset} is watered again.",
            "Cleaned the {part} filter; the {asset} recovered within {n} days.",
        ),
        goals=("Goal: harvest {n} kg from the {asset} this summer.", "Goal: automate the {part} for every bed."),
        decisions=(
            "Decision: move the {asset} closer to the {part}.",
            "Decision: {person} waters the {asset} while I am away.",
        ),
        procedures=(
            "Procedure: morning check: 1. read the {part}. 2. open vents above {n} degrees. "
            "3. water the {asset}. 4. look for mold.",
        ),
        lessons=(
            "Lesson: the {asset} needs the {part} checked every week, not every month.",
            "Lesson: mold means humidity, fix airflow before spraying the {asset}.",
        ),
        facts=(
            "The {asset} gets sun from {n} in the morning.",
            "The {part} runs on a 12 volt battery.",
            "{person} started the {asset} from seed.",
        ),
        questions=(
            "Why is the {asset} wilting?",
            "What do I check every morning in the greenhouse?",
            "Is the {part} working?",
        ),
    ),
    Topic(
        key="homelab",
        assets=_numbered("server", range(1, 5)) + _numbered("node", range(1, 4)),
        parts=("ZFS pool", "backup job", "UPS", "reverse proxy", "certificate renewal"),
        people=("Kai", "Rosa"),
        codes=("HL-5", "HL-9", "HL-14"),
        ticket="job {:04d}",
        problems=(
            "The {part} on {asset} failed last night ({ticket}).",
            "{asset} rebooted after the {part} alarm; disks show errors.",
            "{part} on {asset} is {pct}% slower since the upgrade.",
        ),
        followups=(
            "Scrubbed the {part} on {asset}; {n} checksum errors on one disk.",
            "{person} looked at {asset}: the {part} logs {code} before each failure.",
        ),
        fixes=(
            "Swapped the failing disk in {asset}; the {part} is healthy and {code} is gone.",
            "The {part} on {asset} was fixed by renewing the token; backups resumed.",
            "Replaced the {part} battery for {asset}; no more reboots.",
        ),
        goals=(
            "Goal: tested restores for every {part} on {asset} each month.",
            "Goal: move {asset} services to {asset2} before summer.",
        ),
        decisions=(
            "Decision: {asset} keeps the {part}, {asset2} only runs containers.",
            "Decision: alert on {code} from {asset} by phone.",
        ),
        procedures=(
            "Procedure: restoring from the {part}: 1. stop services on {asset}. 2. mount the snapshot. "
            "3. copy data back. 4. verify checksums.",
        ),
        lessons=(
            "Lesson: a backup you never restored from {asset} is not a backup.",
            "Lesson: {code} on {asset} means a disk is dying; replace it early.",
        ),
        facts=(
            "{asset} has {n} TB of usable space.",
            "The {part} runs at 03:00 on {asset}.",
            "{person} built {asset} from spare parts.",
        ),
        questions=("Why did the {part} fail on {asset}?", "How do I restore from a backup?", "What runs on {asset}?"),
    ),
    Topic(
        key="accounting",
        assets=("March close", "April close", "Q2 close", "year-end close"),
        parts=("bank reconciliation", "accruals", "vendor invoices", "payroll journal", "VAT return"),
        people=("Greta", "Paul", "Fatima"),
        ticket="INV-{:05d}",
        problems=(
            "The {part} for the {asset} is off by {n}00 euros.",
            "{ticket} is missing from the {part}, blocking the {asset}.",
            "The {asset} slipped {n} days because the {part} came in late.",
        ),
        followups=(
            "{person} traced the {part} difference to {ticket}.",
            "Rechecked the {part} for the {asset}; two entries are duplicated.",
        ),
        fixes=(
            "Found it: {ticket} was booked twice in the {part}. Reversed it and the {asset} balances.",
            "Resolved: {person} posted the missing {part} and the {asset} is closed.",
        ),
        goals=(
            "Goal: finish every monthly close in {n} working days.",
            "Goal: automate the {part} before the {asset}.",
        ),
        decisions=(
            "Decision: {person} signs off the {part} before the {asset}.",
            "Decision: vendors send invoices by the 25th or they move to the next close.",
        ),
        procedures=(
            "Procedure: the {asset}: 1. collect the statements. 2. {part}. 3. review with {person}. "
            "4. lock the period.",
        ),
        lessons=(
            "Lesson: reconcile the {part} weekly so the {asset} has no surprises.",
            "Lesson: duplicates in the {part} come from manual uploads.",
        ),
        facts=(
            "The {asset} has {n} open items.",
            "{person} owns the {part}.",
            "{ticket} is from our largest supplier.",
        ),
        questions=("Why is the {part} off?", "What is blocking the {asset}?", "Who owns the {part}?"),
    ),
    Topic(
        key="warehouse",
        assets=_numbered("dock", range(1, 7)) + _numbered("aisle", range(10, 19)),
        parts=("forklift 3", "pallet scanner", "dock leveler", "pick list", "shrink wrapper"),
        people=("Hassan", "Edith", "Piotr"),
        codes=("WMS-40", "WMS-47", "WMS-52"),
        ticket="SHIP-{:05d}",
        problems=(
            "The {part} at {asset} is broken again; trucks wait {n} minutes.",
            "{ticket} was loaded at the wrong {asset}; the {part} showed {code}.",
            "Picking in {asset} is slow because the {part} keeps failing.",
        ),
        followups=(
            "{person} checked the {part} at {asset}: battery at {pct}%.",
            "Rerouted trucks from {asset} to {asset2} while the {part} is down.",
        ),
        fixes=(
            "Replaced the {part} battery at {asset}; {code} stopped.",
            "The {part} at {asset} was repaired; {person} tested it with {ticket}.",
        ),
        goals=("Goal: load every truck at {asset} within {n} minutes.", "Goal: zero mis-shipments from {asset}."),
        decisions=(
            "Decision: {asset2} is the backup for {asset} when the {part} is down.",
            "Decision: {person} inspects the {part} every Monday.",
        ),
        procedures=(
            "Procedure: loading at {asset}: 1. check the {part}. 2. scan each pallet. "
            "3. wrap. 4. confirm {ticket} in the system.",
        ),
        lessons=(
            "Lesson: check the {part} battery at the start of each shift at {asset}.",
            "Lesson: {code} means the scan did not reach the system.",
        ),
        facts=(
            "{asset} handles about {n}0 pallets a day.",
            "The {part} was bought in 2021.",
            "{person} runs the night shift at {asset}.",
        ),
        questions=("Why are trucks waiting at {asset}?", "What does {code} mean?", "How do we load at {asset}?"),
    ),
    Topic(
        key="pipeline",
        assets=("ETL-5", "ETL-8", "ETL-12", "ETL-15"),
        parts=("nightly load", "orders topic", "dedup step", "warehouse sync", "schema registry"),
        people=("Ingrid", "Mateo", "Zara"),
        codes=("DAG-3", "DAG-6", "DAG-9"),
        ticket="DATA-{:04d}",
        problems=(
            "{asset} failed in the {part} with an out-of-memory error ({ticket}).",
            "The {part} of {asset} is {n} hours late; dashboards are stale.",
            "{asset} produced duplicate rows after the {part} change.",
        ),
        followups=(
            "{person} reran {asset} with more memory; the {part} still fails at {pct}%.",
            "The {part} lag for {asset} started after {code} was deployed.",
        ),
        fixes=(
            "Fixed {asset}: the {part} read the whole partition; now it streams. {ticket} closed.",
            "Root cause: {code} dropped the key in the {part}; {person} restored it and {asset} is clean.",
        ),
        goals=("Goal: {asset} done by 06:00 every day.", "Goal: no duplicate rows from the {part}."),
        decisions=(
            "Decision: {asset} moves to the new scheduler with {code}.",
            "Decision: {person} reviews every {part} schema change.",
        ),
        procedures=(
            "Procedure: backfilling {asset}: 1. pause the {part}. 2. run by day. 3. compare counts. 4. resume.",
        ),
        lessons=(
            "Lesson: never change the {part} key without a backfill plan.",
            "Lesson: memory errors in {asset} mean a partition is skewed.",
        ),
        facts=(
            "{asset} loads {n} million rows a night.",
            "{code} is the orchestration for {asset}.",
            "{person} wrote the {part}.",
        ),
        questions=("Why did {asset} fail?", "Why are dashboards stale?", "How do I backfill {asset}?"),
    ),
    Topic(
        key="japanese",
        assets=("JLPT N3", "Genki II", "kanji deck", "chapter 14"),
        parts=("listening", "grammar drills", "reading practice", "conversation class", "vocabulary reviews"),
        people=("sensei Aoki", "Kim"),
        ticket="lesson {:02d}",
        problems=(
            "Struggled with {part} for {asset}; understood about {pct}%.",
            "Missed {n} days of {part}; {asset} reviews piled up.",
            "The {part} in {asset} keeps confusing me.",
        ),
        followups=("{person} suggested slower {part} for {asset}.", "Redid {ticket} of {asset} {part}."),
        fixes=(
            "What fixed it: shadowing for {part}; {asset} comprehension is up {pct}%.",
            "Solved the backlog: {n} reviews a day keeps {asset} under control.",
        ),
        goals=("Goal: pass {asset} in December.", "Goal: {n} minutes of {part} every day."),
        decisions=("Decision: {asset} first, then more {part}.", "Decision: weekly {part} with {person}."),
        procedures=("Procedure: daily study: 1. {part}. 2. {n} new words from the {asset}. 3. one page of reading.",),
        lessons=(
            "Lesson: short daily {part} beats long weekend sessions.",
            "Lesson: {asset} grammar sticks when I write my own sentences.",
        ),
        facts=("{asset} has about {n}00 kanji.", "{person} teaches on Tuesdays.", "{ticket} covers keigo."),
        questions=("How is my {part} going?", "What is my plan for {asset}?", "What did {person} suggest?"),
    ),
    Topic(
        key="bicycle",
        assets=("road bike", "gravel bike", "commuter", "tandem"),
        parts=("rear derailleur", "chain", "brake pads", "tubeless tire", "bottom bracket"),
        people=("the bike shop", "Mikko"),
        ticket="ride {:03d}",
        problems=(
            "The {part} on the {asset} skips under load.",
            "Flat on the {asset} again, the tubeless tire lost air after the {part} service.",
            "Creaking from the {part} of the {asset} after {n} km.",
        ),
        followups=("Checked the {asset} {part} wear: {pct}% stretched.", "{person} had a look at the {asset} {part}."),
        fixes=(
            "Replaced the {part} on the {asset}; no more skipping.",
            "The {part} bolt was loose; tightened it and the creak is gone.",
        ),
        goals=("Goal: ride {n}00 km in a month on the {asset}.", "Goal: learn to service the {part} myself."),
        decisions=(
            "Decision: the {asset} gets a new {part} every {n}000 km.",
            "Decision: {person} does the {part} service.",
        ),
        procedures=("Procedure: cleaning the {part}: 1. degrease. 2. rinse. 3. dry. 4. lube every link.",),
        lessons=(
            "Lesson: a skipping {part} usually means a worn chain, not the shifter.",
            "Lesson: check the {asset} {part} before long rides.",
        ),
        facts=("The {asset} has {n} gears.", "{person} sold me the {asset}.", "The {part} was replaced in May."),
        questions=(
            "Why does the {asset} {part} skip?",
            "When should I replace the {part}?",
            "How do I clean the {part}?",
        ),
    ),
    Topic(
        key="cnc",
        assets=_numbered("machine", range(1, 9)),
        parts=("spindle", "tool 14", "coolant pump", "probe", "tool changer"),
        people=("Arjun", "Helga", "Victor"),
        codes=("ALM-1020", "ALM-1051", "ALM-2007"),
        ticket="NCR-{:04d}",
        problems=(
            "{asset} is out of tolerance by {n} microns; {ticket} opened.",
            "{asset} stopped with {code} at the {part}.",
            "Chatter marks from {asset} since the {part} was changed.",
        ),
        followups=(
            "{person} measured runout on the {asset} {part}: {n} microns.",
            "Ran a test cut on {asset}; {code} again at the {part}.",
        ),
        fixes=(
            "Recalibrated the {part} on {asset}; parts are in tolerance and {ticket} is closed.",
            "Replaced the {part} on {asset}; {code} resolved.",
            "The cause was a worn collet at the {part}; {person} swapped it on {asset}.",
        ),
        goals=("Goal: first-pass yield above 9{n}% on {asset}.", "Goal: cut setup time on {asset} in half."),
        decisions=(
            "Decision: check the {part} on {asset} every Monday.",
            "Decision: {asset2} runs the titanium jobs, {asset} the aluminium ones.",
        ),
        procedures=(
            "Procedure: warm-up on {asset}: 1. run the {part} at low speed for {n} minutes. "
            "2. probe the reference. 3. cut a test part.",
        ),
        lessons=(
            "Lesson: chatter after a {part} change means the collet, not the program.",
            "Lesson: warm up {asset} before tight tolerance jobs.",
        ),
        facts=("{asset} is a five-axis mill.", "{code} is a {part} overload alarm.", "{person} programs {asset}."),
        questions=("Why is {asset} out of tolerance?", "What does {code} mean?", "How do I warm up {asset}?"),
    ),
    Topic(
        key="pottery",
        assets=_numbered("kiln", range(1, 4)),
        parts=("celadon glaze", "thermocouple", "cone 6 firing", "bisque load", "shelf wash"),
        people=("Ruth", "Jae"),
        codes=("ERR-1", "ERR-4"),
        ticket="firing {:03d}",
        problems=(
            "Glaze crawled on the {part} in {asset} ({ticket}).",
            "{asset} stalled at {n}00 degrees with {code}.",
            "Pinholes everywhere after the {part} in {asset}.",
        ),
        followups=(
            "{person} checked the {asset} {part}; readings drift by {n} degrees.",
            "Refired two pieces from {ticket} in {asset}; still pinholes.",
        ),
        fixes=(
            "Replaced the thermocouple in {asset}; {code} is gone and firings reach temperature.",
            "Fixed the pinholes: a slower cool down in {asset} after the {part}.",
        ),
        goals=("Goal: a reliable {part} in {asset} by the spring sale.", "Goal: sell {n} mugs at the market."),
        decisions=(
            "Decision: {asset} only fires glaze loads; {asset2} does bisque.",
            "Decision: {person} mixes the {part}.",
        ),
        procedures=(
            "Procedure: loading {asset}: 1. apply {part} to shelves. 2. space pieces {n} cm apart. "
            "3. cone packs on two shelves.",
        ),
        lessons=(
            "Lesson: a drifting {part} causes underfired glaze.",
            "Lesson: {code} on {asset} is the element, not the controller.",
        ),
        facts=("{asset} reaches cone 6 in {n} hours.", "{person} built {asset}.", "The {part} recipe came from Ruth."),
        questions=(
            "Why does the glaze crawl in {asset}?",
            "What does {code} mean on {asset}?",
            "How do I load {asset}?",
        ),
    ),
    Topic(
        key="training",
        assets=("run R-118", "run R-121", "run R-130", "run R-137"),
        parts=("learning rate warmup", "data loader", "GPU node 3", "checkpointing", "eval harness"),
        people=("Nadia", "Oskar", "Wen"),
        codes=("NaN-loss", "OOM-kill"),
        ticket="EXP-{:04d}",
        problems=(
            "Loss spikes in {asset} at step {n}000; suspect the {part}.",
            "{asset} died with {code} on the {part}.",
            "{asset} is {pct}% slower than planned; the {part} is the bottleneck.",
        ),
        followups=(
            "{person} reran {asset} from the last checkpoint; the spike repeats near the {part}.",
            "Profiled {asset}: {pct}% of time in the {part}.",
        ),
        fixes=(
            "Fixed the spikes in {asset}: longer {part} and gradient clipping.",
            "The cause of {code} in {asset} was a leak in the {part}; patched and resumed.",
            "Moving the {part} to faster disks fixed the slowdown in {asset}.",
        ),
        goals=("Goal: beat the baseline by {pct}% with {asset}.", "Goal: finish {asset} before the paper deadline."),
        decisions=("Decision: {asset} uses the {part} from {asset2}.", "Decision: {person} owns the {part}."),
        procedures=(
            "Procedure: restarting {asset}: 1. find the last good checkpoint. 2. check the {part}. "
            "3. resume with the same seed. 4. compare the loss curve.",
        ),
        lessons=(
            "Lesson: loss spikes usually mean the {part} is too short.",
            "Lesson: profile the {part} before buying more GPUs.",
        ),
        facts=(
            "{asset} trains a {n}00M parameter model.",
            "{person} set up the {part}.",
            "{code} hits when batch size exceeds {n}.",
        ),
        questions=("Why does the loss spike in {asset}?", "How do I restart {asset}?", "Who owns the {part}?"),
    ),
)


def _relations(topic: Topic) -> list[tuple[str, str, str]]:
    """The entity graph's facts about a topic: each code is seen on an asset, each person maintains one."""
    triples = [(code, "seen_on", topic.assets[i % len(topic.assets)]) for i, code in enumerate(topic.codes)]
    triples += [
        (person, "maintains", topic.assets[(i + 1) % len(topic.assets)])
        for i, person in enumerate(topic.people)
        if person[:1].isupper()
    ]
    return triples


def entity_relations() -> list[tuple[str, str, str]]:
    """(subject, relation, object) triples for the user's entity graph, a few per topic (bridges)."""
    return [triple for topic in TOPICS for triple in _relations(topic)]


class _Filler:
    """Picks slot values for one episode; a session keeps them for all its events."""

    def __init__(self, topic: Topic, rng: random.Random, tickets: dict[str, int]) -> None:
        self.topic = topic
        asset, asset2 = rng.sample(topic.assets, 2) if len(topic.assets) > 1 else (topic.assets[0],) * 2
        tickets[topic.key] = tickets.get(topic.key, 0) + rng.randint(1, 9)
        self.values = {
            "asset": asset,
            "asset2": asset2,
            "code": rng.choice(topic.codes) if topic.codes else "",
            "ticket": topic.ticket.format(tickets[topic.key] % 10 ** _digits(topic.ticket)),
            "person": rng.choice(topic.people),
            "part": rng.choice(topic.parts),
            "n": rng.randint(2, 40),
            "pct": rng.randint(5, 40),
        }

    def fill(self, template: str) -> str:
        text = template.format(**self.values)
        return text[0].upper() + text[1:]


def _digits(ticket_format: str) -> int:
    """How many digits a ticket format pads to ({:04d} -> 4), so numbers wrap instead of growing."""
    return int(ticket_format.split("{:")[1][:2]) if "{:" in ticket_format else 4


# What people add to an event note now and then: when, who, how often. Keeps notes from repeating verbatim.
_ASIDES = (
    " Noticed at {hour:02d}:{minute:02d}.",
    " Second time this week.",
    " {person} was there.",
    " Happened on the {shift} shift.",
    " Logged in the {weekday} notes.",
    " Took about {n} minutes.",
)
_SHIFTS = ("early", "late", "night", "weekend")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _aside(rng: random.Random, filler: _Filler) -> str:
    if rng.random() < 0.5:
        return ""
    return rng.choice(_ASIDES).format(
        hour=rng.randint(6, 23),
        minute=rng.randint(0, 59),
        shift=rng.choice(_SHIFTS),
        weekday=rng.choice(_WEEKDAYS),
        person=filler.values["person"],
        n=rng.randint(2, 90),
    )


def _session(topic: Topic, rng: random.Random, filler: _Filler) -> list[str]:
    """A problem, zero to two follow-ups, and (three times in four) the fix."""
    texts = [filler.fill(rng.choice(topic.problems)) + _aside(rng, filler)]
    for followup in rng.sample(topic.followups, min(len(topic.followups), rng.choice((0, 1, 1, 2)))):
        texts.append(filler.fill(followup) + _aside(rng, filler))
    if rng.random() < 0.75:
        texts.append(filler.fill(rng.choice(topic.fixes)) + _aside(rng, filler))
    return texts


_SINGLE_KINDS = {
    "factual": "facts",
    "decision": "decisions",
    "procedural": "procedures",
    "strategy": "lessons",
    "goal": "goals",
}


def generate_notes(count: int, seed: int = 7, *, start: float = START, days: float = DAYS) -> list[Note]:
    """``count`` notes in chronological order (oldest first), the same ones for the same ``(count, seed)``."""
    if count < 0:
        raise ValueError("count must be >= 0")
    rng = random.Random(seed)
    kinds, weights = list(EPISODE_WEIGHTS), list(EPISODE_WEIGHTS.values())
    tickets: dict[str, int] = {}
    episodes: list[tuple[Topic, str, list[str]]] = []
    written = 0
    while written < count:
        topic = rng.choice(TOPICS)
        kind = rng.choices(kinds, weights)[0]
        filler = _Filler(topic, rng, tickets)
        if kind == "session":
            texts = _session(topic, rng, filler)
        else:
            texts = [filler.fill(rng.choice(getattr(topic, _SINGLE_KINDS[kind])))]
        episodes.append((topic, kind, texts))
        written += len(texts)
    span = days * 86400.0
    starts = sorted(rng.uniform(0.0, span) for _ in episodes)
    notes: list[Note] = []
    for number, ((topic, kind, texts), offset) in enumerate(zip(episodes, starts)):
        when = start + offset
        session = f"{topic.key}-{number}" if kind == "session" else None
        for text in texts:
            notes.append(Note(text, "episodic" if kind == "session" else kind, when, topic.key, session))
            when += rng.uniform(3, 25) * 60.0  # events of a session are minutes apart
    notes.sort(key=lambda note: note.created_at)
    return notes[:count]


_MIXED = (
    "What happened with {a} last week, and anything related to {b}?",
    "Summarise the open problems on {a} and {b}.",
    "Anything I learned from {a} that applies to {b}?",
)
_GENERAL = ("What are my open goals?", "Which problems came back after a fix?", "What should I focus on this week?")


def generate_questions(count: int = 30, seed: int = 7) -> list[str]:
    """``count`` questions: one per topic first, then ones that mix two topics, and a few general ones."""
    rng = random.Random(seed + 1)
    questions: list[str] = []
    order = list(TOPICS)
    rng.shuffle(order)
    while len(questions) < count:
        for topic in order:
            questions.append(_Filler(topic, rng, {}).fill(rng.choice(topic.questions)))
            if len(questions) % 4 == 3:
                one, other = rng.sample(TOPICS, 2)
                questions.append(rng.choice(_MIXED).format(a=rng.choice(one.assets), b=rng.choice(other.assets)))
            if len(questions) % 9 == 8:
                questions.append(rng.choice(_GENERAL))
            if len(questions) >= count:
                break
    return questions[:count]


__all__ = ["Note", "Topic", "TOPICS", "generate_notes", "generate_questions", "entity_relations"]
