"""Splits ``assert a and b`` into ``assert a`` and ``assert b``, so that a failure names the half that failed.

Run from the project root: ``python tools/split_asserts.py [PATH ...]`` (default: ``tests``). ``--check``
only counts the compound assertions left and exits 1 when there are any (CI can run it).

The split keeps the meaning: ``and`` stops at the first false operand, and so does a run of asserts; an
operand that binds a name (``(x := f()) and x.ok``) binds it before the next line reads it. A message
(``assert a and b, why``) goes with each half. An assertion is left alone when a comment sits inside it
(the comment would have no home), or when it is not a statement of its own line.
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from pathlib import Path


def operands(test: ast.expr) -> list[ast.expr]:
    """The operands of a top-level ``and``, flattened (``a and (b and c)`` gives three)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [part for value in test.values for part in operands(value)]
    return [test]


def compound_asserts(tree: ast.AST) -> list[ast.Assert]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Assert) and len(operands(node.test)) > 1]


def comment_lines(source: str) -> set[int]:
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            lines.add(token.start[0])
    return lines


def parenthesised(text: str) -> str:
    """An operand as it may stand after ``assert``: a multi-line one or a walrus needs its parentheses."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return f"({text})"
    if isinstance(node, (ast.NamedExpr, ast.Lambda, ast.IfExp, ast.Tuple)) or "\n" in text:
        return f"({text})"
    return text


def split_source(source: str) -> tuple[str, int]:
    """The source with its compound assertions split, and how many were split."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    comments = comment_lines(source)
    edits = []
    for node in compound_asserts(tree):
        start, end = node.lineno, node.end_lineno or node.lineno
        if any(start <= line <= end for line in comments if line != end) or node.end_col_offset is None:
            continue
        first, last = lines[start - 1], lines[end - 1]
        tail = last[node.end_col_offset :].strip()
        if first[: node.col_offset].strip() or (tail and not tail.startswith("#")):
            continue  # shares its line with another statement
        indent = first[: node.col_offset]
        message = ast.get_source_segment(source, node.msg) if node.msg is not None else None
        parts = []
        for operand in operands(node.test):
            text = ast.get_source_segment(source, operand, padded=False)
            if text is None:
                break
            parts.append(f"{indent}assert {parenthesised(text)}" + (f", {message}" if message else "") + "\n")
        else:
            if tail:  # a comment after the assertion stays with its first half
                parts[0] = parts[0].rstrip("\n") + "  " + tail + "\n"
            edits.append((start, end, parts))
    for start, end, parts in sorted(edits, reverse=True):
        lines[start - 1 : end] = parts
    result = "".join(lines)
    ast.parse(result)  # a split that breaks the syntax stops here
    return result, len(edits)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", default=["tests"])
    parser.add_argument("--check", action="store_true", help="count what is left; exit 1 if any")
    args = parser.parse_args()
    files = [p for root in map(Path, args.paths) for p in ([root] if root.is_file() else sorted(root.rglob("*.py")))]
    total = left = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        if args.check:
            left += len(compound_asserts(ast.parse(source)))
            continue
        result, count = split_source(source)
        if count:
            path.write_text(result, encoding="utf-8")
            total += count
        left += len(compound_asserts(ast.parse(result)))
    if not args.check:
        print(f"{total} compound assertions split in {len(files)} files")
    print(f"{left} compound assertions left")
    return 1 if args.check and left else 0


if __name__ == "__main__":
    sys.exit(main())
