"""The scene the recall-plan tests plan over: decisions (one replaced), a procedure, a lesson, six look-alike
facts and a goal."""

from __future__ import annotations


def plant(layer, user_id: str = "kumar") -> dict:
    u = {"user_id": user_id}
    old = layer.decisions.add("Decision: use Qdrant for the maintenance notes because it is managed.", **u)
    layer.decisions.add("Decision: store alarms in Postgres because we already run it.", **u)
    layer.procedures.add("How to reset the safety relay", ["Switch off the breaker", "Press reset for 5 seconds"], **u)
    layer.strategies.add("Lesson: check the relay wiring before replacing the safety relay.", **u)
    for station in range(6):
        layer.facts.add(f"The safety relay on station {station} is a Pilz PNOZ unit.", **u)
    layer.goals.add("Stabilise line 3 by November 30", **u)
    return {"old_decision": old}
