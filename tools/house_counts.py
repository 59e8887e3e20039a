"""The house's figures of issue #37, counted from the files: run from the project root, ``python tools/house_counts.py``.

- files that spell five or more kinds as string literals (Python and the console's JavaScript);
- ``setattr`` calls that install a name on a class or an instance (``setattr(layer, ...)``, ``setattr(self, ...)``);
- modules imported under a one- or two-letter alias (``import x as L``, ``from p import m as CB``);
- source modules over 800 lines;
- public functions and methods of ``kioko/`` without a docstring;
- compound test assertions (``assert a and b``).

``--json`` prints the figures as JSON; ``--list`` names the files behind each.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

SOURCES = ("kioko", "kioko_core", "kioko_intelligence", "kioko_backends")
CONSOLE_SCRIPTS = ("kioko/console/static",)
LONG_MODULE = 800


def kind_words() -> set[str]:
    """Every spelling of a kind: the stored names, the aliases, the nouns and the operations' kinds."""
    sys.path.insert(0, str(Path.cwd()))
    from kioko_core.kinds.registry import KINDS

    words = set()
    for info in KINDS:
        words |= {info.name, info.noun, *info.aliases}
        if info.op:
            words.add(info.op)
    return words


def python_files(roots: tuple[str, ...]) -> list[Path]:
    return sorted(p for root in roots for p in Path(root).rglob("*.py") if ".venv" not in p.parts)


def literals_of(path: Path) -> set[str]:
    if path.suffix == ".py":
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        return {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        }
    return set(re.findall(r"""["'`]([a-z_]+)["'`]""", path.read_text(encoding="utf-8")))


def kind_spellers(words: set[str]) -> dict[str, list[str]]:
    files = python_files(SOURCES) + sorted(
        p for root in CONSOLE_SCRIPTS for p in Path(root).rglob("*.js") if "vendor" not in p.parts
    )
    found = {}
    for path in files:
        named = sorted(literals_of(path) & words)
        if len(named) >= 5:
            found[str(path)] = named
    return found


def class_setattrs() -> list[str]:
    """``setattr(X, name, value)`` where X is a class, ``self`` or a layer: a public name installed at run time, which
    "go to definition" and mypy cannot follow (the managers and the intelligence's calls were installed so)."""
    found = []
    for path in python_files(SOURCES):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and node.args
            ):
                target = node.args[0]
                name = target.id if isinstance(target, ast.Name) else ast.unparse(target)
                if name in ("cls", "self", "layer", "memory") or name[:1].isupper():
                    found.append(f"{path}:{node.lineno} setattr({name}, ...)")
    return found


def short_aliases() -> list[str]:
    found = []
    for path in python_files((*SOURCES, "tests", "benchmarks", "contract_tests")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.asname and len(alias.asname) <= 2 and alias.asname not in ("np", "pd", "nx", "op", "st"):
                        found.append(f"{path}:{node.lineno} {alias.name} as {alias.asname}")
    return found


def long_modules() -> list[str]:
    """Source modules over 800 lines, except a table of data rows that says so in its docstring."""
    found = []
    for path in python_files(SOURCES):
        source = path.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if "table of data rows" in (ast.get_docstring(ast.parse(source)) or ""):
            continue
        if lines > LONG_MODULE:
            found.append(f"{path} {lines}")
    return found


def undocumented_public_functions() -> tuple[list[str], int]:
    found, total = [], 0
    for path in python_files(("kioko",)):
        if any(part.startswith("_") and part != "__init__.py" for part in path.parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scopes: list[ast.AST] = [tree] + [
            n for n in tree.body if isinstance(n, ast.ClassDef) and not n.name.startswith("_")
        ]
        for scope in scopes:
            for node in scope.body:  # type: ignore[attr-defined]
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                    total += 1
                    if ast.get_docstring(node) is None:
                        found.append(f"{path}:{node.lineno} {node.name}")
    return found, total


def compound_assertions() -> list[str]:
    found = []
    for path in python_files(("tests",)):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assert) and isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And):
                found.append(f"{path}:{node.lineno}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    spellers = kind_spellers(kind_words())
    undocumented, public = undocumented_public_functions()
    lists = {
        "files spelling five or more kinds": [f"{path}: {', '.join(words)}" for path, words in spellers.items()],
        "setattr installing a name": class_setattrs(),
        "one- or two-letter module aliases": short_aliases(),
        f"modules over {LONG_MODULE} lines": long_modules(),
        f"public functions of kioko/ without a docstring (of {public})": undocumented,
        "compound test assertions": compound_assertions(),
    }
    if args.json:
        print(json.dumps({name: len(items) for name, items in lists.items()}, indent=2))
        return 0
    for name, items in lists.items():
        print(f"{len(items):5d}  {name}")
        if args.list:
            for item in items:
                print(f"       {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
