"""The import graph: no circles, and dependencies that point one way.

The graph is read from the source with :mod:`ast`, nothing is imported. Every
``import`` statement counts wherever it stands: at the top of a module, inside
a function, under ``if TYPE_CHECKING:`` or in a ``try``. An import moved into a
function or behind TYPE_CHECKING still means the module cannot be understood
(or type-checked) without the other one, so hiding it there does not end a
circle; only moving code to where it belongs does.

What is a node and what is an edge:

- every ``.py`` file of our packages is a module (``engine/board.py`` is
  ``engine.board``, ``engine/__init__.py`` is ``engine``); the scripts and helpers
  of ``tests/`` and ``bench/`` are modules under their file names, as they import
  each other (each directory is on ``sys.path`` when its files run);
- ``import a.b`` and ``from a.b import c`` are an edge to ``a.b``, or to
  ``a.b.c`` when that is a module of its own; a name of no module of ours is left
  out (the standard library, third-party packages);
- the implicit import of a package's ``__init__`` when one of its modules is
  imported is not an edge (it would tie every package face to its contents).

The direction rules are DESIGN.md's: ``engine`` imports nothing of ours;
``protocol`` only ``engine``; ``gomocup`` (the Gomocup brain, driver and match
runner, which the worker and the ``gomoku match`` command use) only ``engine``
and ``protocol``; ``server``, ``worker`` and ``client`` import ``engine``,
``protocol`` (and the worker and the client ``gomocup``), never each other;
``web`` is the browser client's files; ``stopsignals`` (how the server's and the
worker's commands take SIGINT and SIGTERM from their first line) imports nothing, and
only those two import it. ``bench`` and ``tests`` may import
anything, and nothing of ours imports them.
"""

from __future__ import annotations

import ast
import dataclasses
from collections import deque
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "gomocup", "server", "worker", "client", "web", "stopsignals")
SCRIPT_DIRS = ("tests", "bench")

#: Which of our packages each package may import (besides itself).
ALLOWED: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "protocol": frozenset({"engine"}),
    "gomocup": frozenset({"engine", "protocol"}),
    "server": frozenset({"engine", "protocol", "stopsignals"}),
    "worker": frozenset({"engine", "protocol", "gomocup", "stopsignals"}),
    "client": frozenset({"engine", "protocol", "gomocup"}),
    "web": frozenset(),
    "stopsignals": frozenset(),
}


@dataclasses.dataclass(frozen=True, slots=True)
class Import:
    """One edge: ``source`` imports ``target`` at ``line`` of ``path``."""

    source: str
    target: str
    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({self.path.relative_to(ROOT)}:{self.line})"


def modules() -> dict[str, Path]:
    """Every module of ours by its import name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    for directory in SCRIPT_DIRS:
        for path in sorted((ROOT / directory).glob("*.py")):
            assert path.stem not in found, f"{path} has the name of another module"
            found[path.stem] = path
    return found


def _package_of(name: str, path: Path) -> str:
    """The package a relative import in module ``name`` starts from."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imported_names(node: ast.Import | ast.ImportFrom, name: str, path: Path) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = _package_of(name, path).split(".")
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    for alias in node.names:
        yield f"{base}.{alias.name}"  # resolved to ``base`` if that is no module
        yield base


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module of ours ``name`` names: itself, or the closest package above it."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_in(tree: ast.Module, name: str, path: Path, known: dict[str, Path]) -> dict[str, int]:
    """The modules of ours that module ``name`` (``tree``, read from ``path``) imports,
    wherever the import stands in the file, each with the line of its first import."""
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        names = list(_imported_names(node, name, path))
        if isinstance(node, ast.ImportFrom):
            # ``from a import b``: the module a.b if there is one, else a itself.
            pairs = zip(names[::2], names[1::2], strict=True)
            names = [full if full in known else base for full, base in pairs]
        for imported in names:
            target = _resolve(imported, known)
            if target is not None and target != name:
                found[target] = min(found.get(target, node.lineno), node.lineno)
    return found


def imports(known: dict[str, Path]) -> list[Import]:
    """Every import of one module of ours by another."""
    edges = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for target, line in imports_in(tree, name, path, known).items():
            edges.append(Import(name, target, path, line))
    return sorted(edges, key=lambda e: (e.source, e.target))


def circles(edges: list[Import]) -> list[tuple[list[str], list[Import]]]:
    """Each group of modules that import each other (a strongly connected component
    of two or more modules), with one circle of imports through it (its edges, in
    order)."""
    graph: dict[str, list[Import]] = {}
    for edge in edges:
        graph.setdefault(edge.source, []).append(edge)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in graph.get(node, []):
            if edge.target not in index:
                visit(edge.target)
                low[node] = min(low[node], low[edge.target])
            elif edge.target in on_stack:
                low[node] = min(low[node], index[edge.target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [(sorted(group), _one_circle(graph, group)) for group in groups]


def _one_circle(graph: dict[str, list[Import]], group: set[str]) -> list[Import]:
    """The shortest way from the group's first module back to itself."""
    start = min(group)
    came_by: dict[str, Import] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for edge in graph.get(node, []):
            if edge.target not in group:
                continue
            if edge.target == start:
                path = [edge]
                while path[0].source != start:
                    path.insert(0, came_by[path[0].source])
                return path
            if edge.target not in came_by:
                came_by[edge.target] = edge
                queue.append(edge.target)
    raise AssertionError(f"no circle through {start}")  # a component always has one


def _top(module: str, known: dict[str, Path]) -> str:
    path = known[module].relative_to(ROOT)
    return path.parts[0]


GRAPH_MODULES = modules()
GRAPH = imports(GRAPH_MODULES)


def test_the_reader_sees_the_imports_that_hide() -> None:
    """Imports inside functions and under TYPE_CHECKING are edges, and ``from a import
    b`` names the module a.b where there is one."""
    known = {"a": ROOT / "a.py", "a.b": ROOT / "a" / "b.py", "c": ROOT / "c.py"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from a import b\n"
        "def f() -> None:\n    import c.d\n"
    )
    found = imports_in(ast.parse(source), "x", ROOT / "x.py", known)
    assert found == {"a.b": 3, "c": 5}


def test_the_graph_covers_every_package() -> None:
    tops = {_top(module, GRAPH_MODULES) for module in GRAPH_MODULES}
    assert tops >= set(PACKAGES) | set(SCRIPT_DIRS)
    assert any(e.source == "engine.board" and e.target == "engine.types" for e in GRAPH)


def test_no_import_circles() -> None:
    """No module imports itself through others: each circle is named with the lines
    that close it."""
    described = [
        f"{len(group)} modules ({', '.join(group)}), for one:\n    "
        + "\n    ".join(str(edge) for edge in circle)
        for group, circle in circles(GRAPH)
    ]
    assert not described, "import circles:\n  " + "\n  ".join(described)


def test_dependencies_point_one_way() -> None:
    """engine <- protocol <- gomocup / server / worker / client, and nothing of ours
    imports the tests or the benchmarks."""
    wrong = []
    for edge in GRAPH:
        source = _top(edge.source, GRAPH_MODULES)
        target = _top(edge.target, GRAPH_MODULES)
        if source == target or source in SCRIPT_DIRS:
            continue
        if target not in ALLOWED[source]:
            wrong.append(f"{source} may not import {target}: {edge}")
    assert not wrong, "\n".join(wrong)
