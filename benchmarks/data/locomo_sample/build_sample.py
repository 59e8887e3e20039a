"""Writes sample.json: a short conversation in LoCoMo's file layout, written by the Kioko project.

LoCoMo itself (CC BY-NC 4.0) stays out of the repository; this conversation is our own text, with our
own evidence labels, so the recall-quality smoke test (tests/bench/test_locomo_sample.py) runs wherever the
repository is checked out, GitHub's runners included. Run this file to regenerate sample.json after
editing the turns or questions below.
"""

from __future__ import annotations

import json
from pathlib import Path

A, B = "Ines", "Tomas"

SESSIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "9:10 am on 3 March, 2024",
        [
            (A, "Morning Tomas! I finally signed up for the Lisbon half marathon in October."),
            (B, "That's brilliant, Ines. Are you following a training plan?"),
            (A, "Yes, a sixteen week plan from my running club, three runs a week plus one long run."),
            (B, "I have been busy too: I started restoring an old Vespa scooter in my garage."),
            (A, "A Vespa! What year is it?"),
            (B, "It's a 1972 Primavera, light blue, and the engine hasn't run in ten years."),
            (A, "My sister Marta rode one in Rome when she studied there."),
            (B, "I'll need a new carburettor first; the old one is completely clogged."),
            (A, "Good luck. I'm also learning Japanese on weekday evenings for a trip to Kyoto."),
            (B, "When is the trip?"),
            (A, "Next April, with Marta. We want to see the cherry blossoms in Maruyama park."),
        ],
    ),
    (
        "6:45 pm on 21 April, 2024",
        [
            (B, "Ines, the Vespa engine started today for the first time!"),
            (A, "No way! Was it the new carburettor?"),
            (B, "Partly. I fitted a Dell'Orto carburettor and replaced the spark plug, then it fired up."),
            (A, "I had a rough week: I pulled my left calf on the long run on Sunday."),
            (B, "Ouch. Did you see someone about it?"),
            (A, "A physiotherapist called Dr. Alves told me to rest for ten days and do calf raises."),
            (B, "Ten days is not too bad if you still have months before October."),
            (A, "True. My Japanese teacher Keiko says my reading of hiragana is getting faster."),
            (B, "Are you doing the classes online?"),
            (A, "No, at a small school near Anjos station, every Tuesday and Thursday."),
        ],
    ),
    (
        "8:00 pm on 2 June, 2024",
        [
            (A, "Tomas, I ran eighteen kilometres on Saturday without any calf pain."),
            (B, "Fantastic, so the rest and the calf raises worked."),
            (A, "They did. Dr. Alves said I can go back to the full plan."),
            (B, "I took the Vespa to the coast road near Cascais last weekend."),
            (A, "How did it ride?"),
            (B, "Smooth until the clutch cable snapped near Guincho beach and I had to push it home."),
            (A, "Oh no, how far did you push it?"),
            (B, "About four kilometres. A new clutch cable cost me eleven euros."),
            (A, "Marta booked our flights to Osaka for the Kyoto trip, we fly on the 2nd of April."),
            (B, "Osaka rather than Tokyo?"),
            (A, "Yes, it's only a short train ride from Osaka to Kyoto."),
        ],
    ),
    (
        "7:30 pm on 14 October, 2024",
        [
            (A, "I did it! I finished the Lisbon half marathon yesterday in 1 hour 58 minutes."),
            (B, "Under two hours, congratulations! How did the calf hold up?"),
            (A, "No problem at all, I kept doing the calf raises Dr. Alves showed me."),
            (B, "I'm entering the Vespa in a classic scooter rally in Sintra next month."),
            (A, "Is it reliable enough now?"),
            (B, "I think so, I carry a spare clutch cable under the seat since Guincho."),
            (A, "Smart. Keiko says I should take the JLPT N5 exam in December."),
            (B, "Will you be ready before Kyoto?"),
            (A, "I hope so, I want to read the temple signs myself when Marta and I are there."),
        ],
    ),
]

# (question, category, evidence dia_ids): 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop
QUESTIONS: list[tuple[str, int, list[str]]] = [
    ("What race did Ines sign up for?", 4, ["D1:1"]),
    ("What model and year is Tomas's Vespa?", 4, ["D1:6"]),
    ("Which carburettor did Tomas fit to the scooter?", 4, ["D2:3"]),
    ("Who is Ines's physiotherapist?", 4, ["D2:6"]),
    ("Where does Ines take her Japanese classes?", 4, ["D2:10"]),
    ("How much did the new clutch cable cost?", 4, ["D3:8"]),
    ("What was Ines's finishing time in the half marathon?", 4, ["D4:1"]),
    ("When did Ines pull her calf?", 2, ["D2:4"]),
    ("When did the Vespa engine run again for the first time?", 2, ["D2:1"]),
    ("When did Ines finish the Lisbon half marathon?", 2, ["D4:1"]),
    ("When do Ines and Marta fly to Osaka?", 2, ["D3:9"]),
    ("Why did Tomas have to push the Vespa home, and what does he carry now because of it?", 1, ["D3:6", "D4:6"]),
    ("What treatment helped Ines recover from her calf injury before the race?", 1, ["D2:6", "D3:2", "D4:3"]),
    ("Why is Ines learning Japanese, and who booked the flights for that trip?", 1, ["D1:9", "D3:9"]),
    ("What had to be fixed before the scooter's engine would start?", 1, ["D1:8", "D2:3"]),
    ("Which exam does Ines's teacher suggest, and who is the teacher?", 1, ["D4:7", "D2:8"]),
    ("Would Ines enjoy visiting Japan in spring?", 3, ["D1:11"]),
    ("Is Tomas likely to be handy with mechanical repairs?", 3, ["D2:3", "D3:8"]),
    ("Does Ines have any family connection to Italy?", 3, ["D1:7"]),
]


def build() -> dict[str, object]:
    raw: dict[str, object] = {"speaker_a": A, "speaker_b": B}
    for number, (stamp, turns) in enumerate(SESSIONS, start=1):
        raw[f"session_{number}_date_time"] = stamp
        raw[f"session_{number}"] = [
            {"speaker": speaker, "dia_id": f"D{number}:{position}", "text": text}
            for position, (speaker, text) in enumerate(turns, start=1)
        ]
    raw["qa"] = [
        {"question": question, "answer": "", "evidence": evidence, "category": category}
        for question, category, evidence in QUESTIONS
    ]
    return raw


if __name__ == "__main__":
    target = Path(__file__).with_name("sample.json")
    target.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {target}")
