"""Spreading activation: a bounded Personalized PageRank over the links around what recall retrieved.

Section 6 of the spec: seeds in proportion to retrieval score; breadth first 2 hops, the 8 strongest
links per memory, at most 40 memories, links whose faded weight is below 0.1 not followed; superseded
decisions pass on 30 %; p <- a*s + (1-a)*P^T p with restart a = 0.5 for 20 iterations; a memory without
links sends its mass back to the seeds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from kioko_core.linking import links
from kioko_core.store import Record, Scope, Store

SUPERSEDED_PASS_ON = 0.3


def personalized_pagerank(
    nodes: Sequence[str],
    weights: Mapping[tuple[str, str], float],
    seeds: Mapping[str, float],
    restart: float = 0.5,
    iterations: int = 20,
    pass_on: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """PPR by power iteration on a small graph.

    ``weights[(u, v)]`` is the symmetric edge weight a(u, v) (give each pair once or both ways);
    ``pass_on[u]`` (default 1) is the share of u's mass that flows along its links, the rest going back
    to the seeds, as does all the mass of a memory without links.
    """
    index = {node: i for i, node in enumerate(nodes)}
    size = len(nodes)
    if size == 0:
        return {}
    adjacency = np.zeros((size, size), dtype=np.float64)
    for (u, v), weight in weights.items():
        if u in index and v in index and u != v and weight > 0:
            adjacency[index[u], index[v]] = adjacency[index[v], index[u]] = float(weight)
    seed = np.zeros(size, dtype=np.float64)
    for node, value in seeds.items():
        if node in index and value > 0:
            seed[index[node]] = float(value)
    if seed.sum() <= 0:
        return {node: 0.0 for node in nodes}
    seed /= seed.sum()
    row_sums = adjacency.sum(axis=1)
    flow = np.ones(size) if pass_on is None else np.array([float(pass_on.get(n, 1.0)) for n in nodes])
    flow = np.where(row_sums > 0, flow, 0.0)
    transition = np.divide(adjacency, row_sums[:, None], out=np.zeros_like(adjacency), where=row_sums[:, None] > 0)
    transition *= flow[:, None]
    returned = 1.0 - flow  # the share of each node's mass that goes back to the seeds
    p = seed.copy()
    for _ in range(iterations):
        p = restart * seed + (1.0 - restart) * (transition.T @ p + float(returned @ p) * seed)
    return {node: float(p[index[node]]) for node in nodes}


@dataclass
class Neighbourhood:
    """The linked memories around the seeds: records, edge weights and the links that join them."""

    records: dict[str, Record] = field(default_factory=dict)
    weights: dict[tuple[str, str], float] = field(default_factory=dict)
    entries: dict[tuple[str, str], tuple[str, dict[str, Any]]] = field(default_factory=dict)
    """(a, b) -> (the memory whose adjacency entry it is, the entry)."""
    parents: dict[str, str] = field(default_factory=dict)
    """For each memory reached, the memory it was first reached from (the chain back to a seed)."""


def gather(
    store: Store,
    scope: Scope,
    seeds: Sequence[Record],
    *,
    hops: int = 2,
    fanout: int = 8,
    max_nodes: int = 40,
    min_weight: float = 0.1,
    half_life_days: float = 180.0,
    now: float | None = None,
    include_shared: bool = False,
) -> Neighbourhood:
    """Breadth first from the seeds: one ``get`` per hop (and scope), the strongest ``fanout`` links per memory.

    Links into the shared knowledge base are followed only with ``include_shared``.
    """
    now = time.time() if now is None else now
    hood = Neighbourhood()
    for record in seeds:
        if len(hood.records) < max_nodes:
            hood.records[record.id] = record
    frontier = list(hood.records.values())
    for _ in range(hops):
        wanted: dict[str, Scope] = {}
        for record in frontier:
            for other, entry, weight in strongest(record, fanout, min_weight, half_life_days, now):
                if entry.get("shared") and not include_shared:
                    continue
                key = (min(record.id, other), max(record.id, other))
                hood.weights.setdefault(key, weight)
                hood.entries.setdefault(key, (record.id, entry))
                if other not in hood.records and other not in wanted:
                    if len(hood.records) + len(wanted) >= max_nodes:
                        continue
                    wanted[other] = links.entry_scope(record, entry)
                    hood.parents.setdefault(other, record.id)
        if not wanted:
            break
        by_scope: dict[Scope, list[str]] = {}
        for other, other_scope in wanted.items():
            by_scope.setdefault(other_scope, []).append(other)
        found = [r for s, ids in by_scope.items() for r in store.get(s, ids) if r is not None]
        for record in found:
            hood.records[record.id] = record
        frontier = found
    # links to memories that vanished or were never reached carry no mass
    hood.weights = {k: w for k, w in hood.weights.items() if k[0] in hood.records and k[1] in hood.records}
    hood.entries = {k: e for k, e in hood.entries.items() if k in hood.weights}
    return hood


def strongest(
    record: Record, fanout: int, min_weight: float, half_life_days: float, now: float
) -> list[tuple[str, dict[str, Any], float]]:
    """The memory's ``fanout`` strongest links by faded weight, those below ``min_weight`` left out."""
    found = []
    for entry in links.link_entries(record):
        weight = links.faded_weight(
            float(entry.get("w", 0)), entry.get("by", "auto"), float(entry.get("seen", 0)), now, half_life_days
        )
        if weight >= min_weight:
            found.append((entry["id"], entry, weight))
    found.sort(key=lambda item: (-item[2], item[0]))
    return found[:fanout]


def spread(
    hood: Neighbourhood, seed_scores: Mapping[str, float], restart: float = 0.5, iterations: int = 20
) -> dict[str, float]:
    """Activation of every memory in the neighbourhood."""
    pass_on = {i: SUPERSEDED_PASS_ON for i, r in hood.records.items() if r.metadata.get("superseded_by")}
    return personalized_pagerank(list(hood.records), hood.weights, seed_scores, restart, iterations, pass_on)
