"""``kioko forget-about``: the CLI's forget of a subject (the library's own tests are tests/privacy/test_forget_about.py)."""

from __future__ import annotations

from cli_support import as_json, ok


def test_the_cli_lists_then_forgets_a_subject(tmp_path) -> None:
    """``kioko forget-about SUBJECT --user U [--dry-run] [--json]``: the same answer as the library."""
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    where = ["--user", "kumar", "--store", url]
    ok("add", "Krutika prefers short status reports.", *where)
    ok("add", "The cafeteria serves lasagne on Thursdays.", *where)
    listed = as_json("forget-about", "Krutika", "--dry-run", *where)
    assert [m["content"] for m in listed["memories"]] == ["Krutika prefers short status reports."]
    assert "would delete factual" in ok("forget-about", "Krutika", "--dry-run", *where).stdout
    assert as_json("forget-about", "Krutika", *where)["deleted"] == 1
    assert "nothing names 'Krutika'" in ok("forget-about", "Krutika", *where).stdout
    assert [m["content"] for m in as_json("list", *where)] == ["The cafeteria serves lasagne on Thursdays."]
