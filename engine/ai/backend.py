"""Which AI core runs: the compiled one or the plain Python one.

:mod:`engine.ai.core` is one source in four layers (``lines``, ``threats``,
``alphabeta``, ``root``). Installed with a C compiler, each layer is also compiled
(Cython, see ``setup.py``) to an extension module of the same name, which Python
imports in preference to the .py: that is the *compiled* core, about a hundred
times faster. Without it (no compiler, a failed build, or the environment variable
``GOMOKU_AI_CORE=python``) the .py files themselves run. Both choose the same moves
at a fixed depth; only the speed differs.

A core here is the module that holds ``Core`` (the ``root`` layer).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

ENV = "GOMOKU_AI_CORE"
CORE_LAYERS = ("lines", "threats", "alphabeta", "root")  # compiled, each on the one before
_SOURCES = Path(__file__).resolve().with_name("core")
_PURE_PACKAGE = "engine.ai.core_python"


def pure_core() -> ModuleType:
    """The core's .py files run as plain Python, whether or not a compiled core
    exists: loaded in order under the package name ``engine.ai.core_python``, so
    their relative imports find each other and never a compiled layer."""
    root = sys.modules.get(f"{_PURE_PACKAGE}.root")
    if root is not None:
        return root
    package = ModuleType(_PURE_PACKAGE, "The AI core's layers as plain Python.")
    package.__path__ = []  # nothing is found by path: every layer is loaded below
    sys.modules[_PURE_PACKAGE] = package
    for layer in ("constants", *CORE_LAYERS):
        name = f"{_PURE_PACKAGE}.{layer}"
        spec = importlib.util.spec_from_file_location(name, _SOURCES / f"{layer}.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        setattr(package, layer, module)
    return sys.modules[f"{_PURE_PACKAGE}.root"]


def is_compiled(module: ModuleType) -> bool:
    return not (module.__file__ or "").endswith(".py")


def compiled_core() -> ModuleType | None:
    """The compiled core, or None when the install has none (or only some layers:
    a compiled layer cannot stand on a plain one)."""
    try:
        layers = [importlib.import_module(f"engine.ai.core.{layer}") for layer in CORE_LAYERS]
    except ImportError:
        return None
    return layers[-1] if all(is_compiled(layer) for layer in layers) else None


def env_problem() -> str | None:
    """What is wrong with ``GOMOKU_AI_CORE``, when it is set to something this module does
    not know (it was ignored without a word): the commands that run the AI refuse it in
    one line, as they refuse a bad option. None when it is unset, empty or ``python``."""
    value = os.environ.get(ENV, "")
    if value.strip().lower() in ("", "python"):
        return None
    return (
        f"environment variable {ENV}: {value!r} is not a core (python: the plain-Python "
        "one; unset: the compiled one, when it is installed)"
    )


def select() -> ModuleType:
    """The core the AI uses: compiled if there is one, unless ``GOMOKU_AI_CORE`` says
    ``python``."""
    if os.environ.get(ENV, "").strip().lower() == "python":
        return pure_core()
    return compiled_core() or pure_core()


CORE = select()


def engine_info() -> dict[str, str]:
    """What ``gomoku analyze --engine-info`` prints: which core runs and from where."""
    kind = "compiled" if is_compiled(CORE) else "python"
    if kind == "compiled":
        why = f"compiled by Cython from engine/ai/core/; set {ENV}=python for the plain Python core"
    elif os.environ.get(ENV, "").strip().lower() == "python":
        why = f"chosen by {ENV}=python"
    else:
        why = "no compiled core is installed (no C compiler or Cython at install time)"
    return {"core": kind, "module": CORE.__file__ or "", "why": why}
