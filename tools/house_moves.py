"""The house move of issue #37, as a script: modules gathered into packages by concern, nothing else changed.

Run from the project root. ``python tools/house_moves.py`` makes the whole move (absolute imports, ``git mv``,
the packages' ``__init__`` files, every old module path rewritten); ``--rewrite`` only rewrites old paths,
for a branch that was started before the move and rebased onto it. Both are idempotent: a path already
rewritten is left alone, so the script can run on any tree, any number of times.

The old paths are kept in :data:`MOVES` so that a reader of an old commit, note or issue can find a module.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

MOVES: dict[str, str] = {
    # the layer above the core, beside it rather than inside it
    "kioko_core.intelligence": "kioko_intelligence",
    # the storage protocol and the toolkit a driver is written with
    "kioko_core.driver": "kioko_core.store.driver",
    "kioko_core.url": "kioko_core.store.url",
    "kioko_core.registry": "kioko_core.store.registry",
    "kioko_core.retry": "kioko_core.store.retry",
    "kioko_core.format_mark": "kioko_core.store.format_mark",
    "kioko_core.link_store": "kioko_core.store.link_store",
    # the layer: what a developer holds, and the parts it is made of
    "kioko_core.layer": "kioko_core.layer.memory_layer",
    "kioko_core.layer_store": "kioko_core.layer.records",
    "kioko_core.parts": "kioko_core.layer.parts",
    "kioko_core.scoped": "kioko_core.layer.scoped",
    "kioko_core.hooks": "kioko_core.layer.hooks",
    "kioko_core.bulk": "kioko_core.layer.bulk",
    "kioko_core.bookkeeping": "kioko_core.layer.bookkeeping",
    "kioko_core.values": "kioko_core.layer.values",
    "kioko_core.reembed": "kioko_core.layer.reembed",
    # recall and the context it writes
    "kioko_core.recall": "kioko_core.recall.hybrid",
    "kioko_core.recall_options": "kioko_core.recall.options",
    "kioko_core.context_budget": "kioko_core.recall.budget",
    "kioko_core.context_sections": "kioko_core.recall.sections",
    "kioko_core.safety": "kioko_core.recall.safety",
    # reading a text: the question, the draft, what they are about
    "kioko_core.reading": "kioko_core.reading.query_and_draft",
    "kioko_core.text": "kioko_core.reading.analysis",
    "kioko_core.regex_literals": "kioko_core.reading.regex_literals",
    # embedders
    "kioko_core.embedding": "kioko_core.embedding.embedders",
    "kioko_core.semantic": "kioko_core.embedding.semantic",
    "kioko_core.semantic_cache": "kioko_core.embedding.semantic_cache",
    "kioko_core.semantic_onnx": "kioko_core.embedding.semantic_onnx",
    "kioko_core.onnx_proto": "kioko_core.embedding.onnx_proto",
    # the entity graph
    "kioko_core.graph": "kioko_core.graph.facade",
    "kioko_core.entities": "kioko_core.graph.entities",
    # privacy and limits
    "kioko_core.secrets": "kioko_core.privacy.secrets",
    "kioko_core.subject_forget": "kioko_core.privacy.subject_forget",
    "kioko_core.held_texts": "kioko_core.privacy.held_texts",
    "kioko_core.limits": "kioko_core.privacy.limits",
    # the kinds: the table beside the managers
    "kioko_core.kind_registry": "kioko_core.kinds.registry",
    # feedback links are links
    "kioko_core.learning": "kioko_core.linking.learning",
    # the remote clients, one package
    "kioko.remote": "kioko.remote.client",
    "kioko.remote_async": "kioko.remote.async_client",
    "kioko.remote_async_managers": "kioko.remote.async_managers",
    "kioko.remote_calls": "kioko.remote.calls",
    "kioko.remote_events": "kioko.remote.events",
    "kioko.remote_url": "kioko.remote.url",
    # the Qdrant drivers, one package like PostgreSQL's and SQLite's
    "kioko_backends.qdrant": "kioko_backends.qdrant.store",
    "kioko_backends.qdrant_edge": "kioko_backends.qdrant.edge",
    "kioko_backends._qdrant_links": "kioko_backends.qdrant.links",
    "kioko_backends._qdrant_payload": "kioko_backends.qdrant.payload",
    "kioko_backends._sqlite_vectors": "kioko_backends.sqlite.vectors",
}
"""Old module -> new module. A key that names a package (intelligence) moves the whole folder."""

FILE_MOVES: dict[str, str] = {"kioko_core.store": "kioko_core/store/__init__.py"}
"""Modules whose import path stays while their file becomes a package's ``__init__``."""

PACKAGES: dict[str, str] = {
    "kioko_core/layer": "The memory layer: :class:`memory_layer.MemoryLayer` and the parts it is made of.",
    "kioko_core/recall": "Recall: hybrid retrieval, spreading activation, and the context it writes within a budget.",
    "kioko_core/reading": "Reading a text once: the question of a recall, the memory being written, what each is about.",
    "kioko_core/embedding": "Embedders: text to unit vectors, offline lexical by default, a semantic model when installed.",
    "kioko_core/graph": "The entity graph (who and what is related, with temporal validity) and ``memory.graph``.",
    "kioko_core/privacy": "What must not be kept or must go: secrets, forgets by subject, held texts, size limits.",
    "kioko/remote": "The Kioko service's clients: :class:`client.RemoteMemory` and :class:`async_client.AsyncRemoteMemory`.",
    "kioko_backends/qdrant": "``qdrant://``, ``qdrant+local://`` (:mod:`.store`) and ``qdrant+edge://`` (:mod:`.edge`).",
}
"""New packages and the one line their ``__init__`` says; nothing is imported there, so a submodule's
import never runs its siblings."""

SOURCE_ROOTS = ("kioko", "kioko_core", "kioko_backends", "kioko_intelligence", "contract_tests")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".cfg", ".ini", ".txt", ".mjs", ".js", ".html", ".json"}
SKIPPED_DIRS = {".git", ".venv", "node_modules", "site", "__pycache__", ".mypy_cache", ".ruff_cache", "results"}
SKIPPED_FILES = {"tools/house_moves.py"}


def file_of(module: str) -> Path:
    return Path(*module.split("."))


def source_path(module: str) -> Path | None:
    """The file or folder a module lives in now, or None when it is not there (a file first: a module that
    becomes a package of the same name has both for a moment)."""
    path = file_of(module).with_suffix(".py")
    if path.is_file():
        return path
    folder = file_of(module)
    return folder if folder.is_dir() else None


def new_packages() -> set[str]:
    """Dotted names that are packages after the move: an old module name may now name one."""
    names = {target.rsplit(".", 1)[0] for target in MOVES.values()}
    return names | {path.replace("/", ".") for path in PACKAGES} | {"kioko_core.store"}


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True)


RELATIVE_IMPORT = re.compile(r"^(\s*)from (\.+)([\w.]*) import ")


def old_module_of(path: Path) -> str:
    """The name a file's module had before the move: relative imports were written against it."""
    name = ".".join(path.with_suffix("").parts).removesuffix(".__init__")
    if name == "kioko_intelligence" or name.startswith("kioko_intelligence."):
        return "kioko_core.intelligence" + name.removeprefix("kioko_intelligence")
    for old, new in MOVES.items():
        if name == new and old != "kioko_core.intelligence":
            return old
    for old, new_file in FILE_MOVES.items():
        if path == Path(new_file):
            return old
    return name


def make_imports_absolute(path: Path, text: str) -> str:
    """Relative imports would point elsewhere once a module moves: each is written out in full, resolved
    against where the file was (so a branch rebased onto the move resolves them as they were meant)."""
    module = old_module_of(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]

    def absolute(match: re.Match[str]) -> str:
        indent, dots, rest = match.group(1), match.group(2), match.group(3)
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - (len(dots) - 1)] + ([rest] if rest else []))
        return f"{indent}from {base} import "

    return "\n".join(RELATIVE_IMPORT.sub(absolute, line) for line in text.split("\n"))


def move_files() -> None:
    for package in PACKAGES:
        Path(package).mkdir(parents=True, exist_ok=True)
    for old, new in {**MOVES, **{k: "" for k in FILE_MOVES}}.items():
        found = source_path(old)
        if old in FILE_MOVES:
            target = Path(FILE_MOVES[old])
            if found is not None and found.is_file() and found != target:
                target.parent.mkdir(parents=True, exist_ok=True)
                git("mv", str(found), str(target))
            continue
        if found is None or found == file_of(new) or (found.is_dir() and old in new_packages()):
            continue
        target = file_of(new) if found.is_dir() else file_of(new).with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(found), str(target))
    for package, doc in PACKAGES.items():
        init = Path(package) / "__init__.py"
        if not init.exists():
            init.write_text(f'"""{doc}"""\n', encoding="utf-8")
            git("add", str(init))


def submodules(package: str) -> set[str]:
    folder = file_of(package)
    if not folder.is_dir():
        return set()
    return {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    }


def rewrite_from_import(line: str, packages: set[str]) -> str:
    """``from P import a, b as c`` where ``P.a`` moved, or ``P`` itself moved: written to the new places."""
    match = re.match(r"^(\s*)from ([\w.]+) import ([^()#\\]+?)(\s*#.*)?$", line)
    if not match:
        return line
    indent, module, names_text, comment = match.group(1), match.group(2), match.group(3), match.group(4) or ""
    names = [n.strip() for n in names_text.split(",") if n.strip()]
    parsed = []
    for name in names:
        parts = name.split(" as ")
        parsed.append((parts[0].strip(), parts[1].strip() if len(parts) > 1 else None))
    lines = []
    changed = False
    if re.match(r"kioko_core\.intelligence(\.|$)", module):
        module = "kioko_intelligence" + module.removeprefix("kioko_core.intelligence")
        changed = True
    moved_module = MOVES.get(module)
    for name, alias in parsed:
        full = f"{module}.{name}"
        if full in MOVES:
            new_parent, new_name = MOVES[full].rsplit(".", 1)
            shown = alias or name
            lines.append(f"from {new_parent} import {new_name}" + ("" if shown == new_name else f" as {shown}"))
            changed = True
        elif moved_module and module not in packages:
            lines.append(f"from {moved_module} import {name}" + (f" as {alias}" if alias else ""))
            changed = True
        elif moved_module and module in packages and name not in submodules(module):
            # an old module's name that is a package now: its names live in the module it became
            lines.append(f"from {moved_module} import {name}" + (f" as {alias}" if alias else ""))
            changed = True
        else:
            lines.append(f"from {module} import {name}" + (f" as {alias}" if alias else ""))
    if not changed:
        return line
    merged: dict[str, list[str]] = {}
    for text in lines:
        source, _, name = text.partition(" import ")
        merged.setdefault(source, []).append(name)
    # the comment (a noqa, most often) belongs to every line the statement became
    return "\n".join(f"{indent}{source} import {', '.join(names)}{comment}" for source, names in merged.items())


def old_name_pattern(old: str) -> re.Pattern[str]:
    """An old dotted name, not a longer name that starts with it, and not the new package it became
    followed by one of its own submodules (``kioko_core.layer.records`` is already new)."""
    after = sorted(submodules(old)) if old != "kioko_core.intelligence" else []
    not_new = rf"(?!\.(?:{'|'.join(map(re.escape, after))})\b)" if after else ""
    return re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w]){not_new}")


FROM_IMPORT = re.compile(r"^\s*from [\w.]+ import [^(]")


def rewrite_text(text: str, is_python: bool, packages: set[str]) -> str:
    patterns = [(old_name_pattern(old), MOVES[old]) for old in sorted(MOVES, key=len, reverse=True)]
    lines = []
    for line in text.split("\n"):
        if is_python and FROM_IMPORT.match(line):
            lines.append(rewrite_from_import(line, packages))
            continue
        for pattern, new in patterns:
            line = pattern.sub(new, line)
        lines.append(line)
    text = "\n".join(lines)
    for old in sorted(MOVES, key=len, reverse=True):
        old_path, new_path = old.replace(".", "/"), MOVES[old].replace(".", "/")
        text = re.sub(rf"(?<![\w/.]){re.escape(old_path)}\.py\b", f"{new_path}.py", text)
        if old == "kioko_core.intelligence":
            text = re.sub(rf"(?<![\w/.]){re.escape(old_path)}(?=/|\b)", new_path, text)
    for old, new_file in FILE_MOVES.items():
        text = re.sub(rf"(?<![\w/.]){re.escape(old.replace('.', '/'))}\.py\b", new_file, text)
    return text


def text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], capture_output=True, text=True, check=True
    )
    files = []
    for name in listed.stdout.splitlines():
        path = Path(name)
        if path.suffix not in TEXT_SUFFIXES and path.name not in {"Makefile", "run"}:
            continue
        if set(path.parts) & SKIPPED_DIRS or name in SKIPPED_FILES or not path.is_file():
            continue
        files.append(path)
    return files


def rewrite_paths() -> int:
    packages = {p for p in new_packages() if file_of(p).is_dir()}
    changed = 0
    for path in text_files():
        before = path.read_text(encoding="utf-8")
        after = before
        if path.suffix == ".py" and path.parts[0] in SOURCE_ROOTS:
            after = make_imports_absolute(path, after)
        after = rewrite_text(after, path.suffix == ".py", packages)
        if after != before:
            if path.suffix == ".py":
                ast.parse(after, str(path))  # a rewrite that breaks the syntax stops here, not in a test
            path.write_text(after, encoding="utf-8")
            changed += 1
    return changed


def tidy() -> None:
    python_dirs = [r for r in (*SOURCE_ROOTS, "tests", "benchmarks", "tools", "docs") if Path(r).is_dir()]
    subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--quiet", "--select", "I", "--fix", *python_dirs], check=False
    )
    subprocess.run([sys.executable, "-m", "ruff", "format", "--quiet", *python_dirs], check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rewrite", action="store_true", help="only rewrite old module paths (after a rebase)")
    args = parser.parse_args()
    if not Path("kioko_core").is_dir():
        parser.error("run it from the project root")
    if not args.rewrite:
        move_files()
    print(f"{rewrite_paths()} files rewritten")
    tidy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
