"""What each version of the store contract added, and what a driver written before it must add.

The suite tags each test added after version 1 with the version that added it: a failing one says so
in its failure (a note under the assertion), with what a driver must add to pass it, so that the author
of a driver written against an older guide learns what changed instead of meeting unexplained failures.
``docs/drivers-changes.md`` (Store contract versions) is the same list in words; a test
(tests/drivers/test_contract_versions.py) keeps the two and :data:`kioko_core.store.CONTRACT_VERSION` in step.
"""

from __future__ import annotations

from dataclasses import dataclass

from kioko_core.store import CONTRACT_VERSION

GUIDE = "docs/drivers-changes.md"


@dataclass(frozen=True)
class Addition:
    """A part of the contract (a whole class, or one test) and the version that added it."""

    version: int
    must: str
    """What a driver must add (or, for an optional capability, may add) to pass it."""
    optional: bool = False
    """True for an optional capability: a store without it skips these tests."""

    def note(self, declared: int | None = None) -> str:
        """The note a failure of this part carries."""
        written = "" if declared is None else f" The store declares contract_version={declared}."
        kind = "an optional capability" if self.optional else "a check every store must pass"
        return (
            f"Contract version {self.version} (of {CONTRACT_VERSION}) added this test, {kind}.{written} "
            f"To pass, a driver must: {self.must}. See {GUIDE}."
        )


INPUT_RULE_MUST = (
    "run kioko_core.store.validate_ops(ops, self.dim) before writing anything in update_many, so that every "
    "record breaking the input rule raises InvalidRecordError with nothing of its batch written (StoreBase's "
    "update_many does), and treat an id or term holding a NUL or a lone surrogate as one no record has "
    "(get answers None, postings df 0: StoreBase drops them before do_get/do_postings)"
)

ADDED: dict[str, Addition] = {
    "InputRuleContract": Addition(2, INPUT_RULE_MUST),
    "ArgumentContract": Addition(
        2,
        "refuse arguments of the wrong type or range with InvalidRecordError: scan batch < 1 or not an int, a "
        "negative or non-int postings limit or knn k, a bare string where a list of ids or terms belongs, a filter "
        "that is not a kioko_core.store.Filter; an empty filter set matches nothing (StoreBase's get, postings, "
        "knn and scan check all of these before calling the do_* hooks)",
    ),
    "OptionContract": Addition(
        2,
        "refuse an unknown option (keyword or ?name= in the URL) and a dim that is not a positive integer with "
        "InvalidRecordError when the store is opened (StoreBase.from_url does, from the class's `options`)",
    ),
    "KnnContract.test_ties_are_broken_by_id": Addition(
        2,
        "order equal knn scores by id, and at the k-th place keep the smallest ids of the tie: return the whole "
        "tie group from do_knn and StoreBase sorts and cuts; re-score candidates with kioko_core.store.reference_cosines "
        "so that copies of one vector tie exactly",
    ),
    "GenerationContract": Addition(
        3,
        "nothing, or implement kioko_core.store.ScopeGenerations: generation(scope), moved by exactly one per "
        "committed update_many touching the scope, the same in every process",
        optional=True,
    ),
    "ChangesContract": Addition(
        4,
        "nothing, or (with ScopeGenerations) implement kioko_core.store.ScopeChanges: changes_since(scope, "
        "generation) -> ScopeChangeSet of every id written since, or None when it cannot say exactly",
        optional=True,
    ),
    "ArgumentContract.test_a_scope_no_record_can_have_is_refused": Addition(
        6,
        "refuse a scope whose user_id or agent_id holds a NUL or a lone surrogate with InvalidRecordError in every "
        "method taking a scope (get, postings, knn, scan, a Delete in update_many, and generation, changes_since, "
        "links and update_with_links when the store has them): call kioko_core.store.check_scope on every scope "
        "(StoreBase's methods, validate_ops and validate_changes do)",
    ),
    "ArgumentContract.test_a_filter_value_no_record_can_have_is_refused": Addition(
        6,
        "refuse a Filter whose kinds, session_id or ids hold a NUL or a lone surrogate, whose created_after or "
        "created_before is NaN, or whose values have the wrong type, with InvalidRecordError from knn and scan: "
        "call kioko_core.store.check_filter (StoreBase's knn and scan do)",
    ),
    "GenerationContract.test_only_a_batch_that_changes_a_record_of_the_scope_counts": Addition(
        6,
        "move generation(scope) only for a batch whose net effect writes a record of the scope or takes one away: "
        "not for a delete of a missing id or of another scope's id, nor for a record inserted and deleted in one "
        "batch (count the scopes of the ids plan_batch finds or writes, before and after the batch)",
        optional=True,
    ),
    "ScanContract.test_ids_beyond_the_basic_plane_come_in_code_point_order": Addition(
        6,
        "order scan by id in code point order (UTF-8 bytes, Python's str order), also for characters beyond "
        'U+FFFF, which UTF-16 order puts below U+E000 (PostgreSQL: COLLATE "C"; SQLite\'s default BINARY is right)',
    ),
    "LinkStoreContract.test_a_changes_expected_version_is_read_after_the_ops_and_before_the_bump": Addition(
        6,
        "check every change's expected_version against its owner's version after the call's ops and before the "
        "call's own bump (the same number for two changes of one owner), and answer None for a skipped change",
        optional=True,
    ),
    "LinkStoreContract": Addition(
        5,
        "nothing, or implement kioko_core.store.link_store.LinkStore: links(scope, ids) and update_with_links(ops, "
        "changes), keeping each memory's link entries apart from its record (one per other memory, in the order "
        "last put), applied with the record batch as one unit, bumping the owner's version once per call",
        optional=True,
    ),
    "ReservedScopeContract": Addition(
        7,
        "store records of a user id beginning with '@' like any other: the layer keeps the store's mark (format "
        "and embedder) as a record of user '@kioko' (a driver on StoreBase passes without a change)",
    ),
    "ScopeListingContract": Addition(
        7,
        "nothing, or a scopes() method listing every (user_id, agent_id) that holds a record and no other, which "
        "kioko reembed walks (a store without it re-embeds the users it is told, in place)",
        optional=True,
    ),
}
"""Keyed by contract class name, or ``Class.test_name`` for a single test added to an older class."""

CHANGES: dict[int, str] = {
    1: "the first contract: records and versions, atomic batches, postings, knn, scan, scope isolation, "
    "lifecycle, persistence, several processes, the crash test, the state machine",
    2: "the input rule and argument checks (InputRuleContract, ArgumentContract, OptionContract) and the knn "
    "tie order (KnnContract.test_ties_are_broken_by_id)",
    3: "optional ScopeGenerations (GenerationContract)",
    4: "optional ScopeChanges (ChangesContract)",
    5: "optional LinkStore: links kept entry by entry apart from the record (LinkStoreContract)",
    6: "text no record can hold refused in a scope and in Filter values (ArgumentContract), what touching a scope "
    "means for generations (GenerationContract), code point order beyond U+FFFF (ScanContract), a link change's "
    "expected_version after the ops and before the bump (LinkStoreContract)",
    7: "the store's mark in the reserved scope '@kioko' (ReservedScopeContract), an optional scopes() listing "
    "(ScopeListingContract)",
}
"""One line per version: what it added."""


def addition_for(class_name: str, test_name: str) -> Addition | None:
    """The addition a test belongs to (its own entry first, then its class's), or None for version 1."""
    return ADDED.get(f"{class_name}.{test_name}") or ADDED.get(class_name)


def since(declared: int | None) -> list[str]:
    """What changed after the version a store declares (every version when it declares none)."""
    start = 1 if declared is None else declared + 1
    return [f"{version}: {CHANGES[version]}" for version in range(start, CONTRACT_VERSION + 1)]
