"""Which AI core runs: the compiled one or the plain Python one.

:mod:`engine.ai.core` is one source file. Installed with a C compiler, it is also
compiled (Cython, see ``setup.py``) to an extension module of the same name, which
Python imports in preference to the .py: that is the *compiled* core, about a
hundred times faster. Without it (no compiler, a failed build, or the environment
variable ``GOMOKU_AI_CORE=python``) the .py itself runs. Both choose the same
moves at a fixed depth; only the speed differs.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

ENV = "GOMOKU_AI_CORE"
_SOURCE = Path(__file__).resolve().with_name("core.py")
_PURE_NAME = "engine.ai.core_python"


def pure_core() -> ModuleType:
    """``core.py`` run as plain Python, whether or not a compiled core exists."""
    module = sys.modules.get(_PURE_NAME)
    if module is None:
        spec = importlib.util.spec_from_file_location(_PURE_NAME, _SOURCE)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[_PURE_NAME] = module
        spec.loader.exec_module(module)
    return module


def is_compiled(module: ModuleType) -> bool:
    return not (module.__file__ or "").endswith(".py")


def compiled_core() -> ModuleType | None:
    """The compiled core, or None when the install has none."""
    module = importlib.import_module("engine.ai.core")
    return module if is_compiled(module) else None


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
        why = f"compiled by Cython from core.py; set {ENV}=python for the plain Python core"
    elif os.environ.get(ENV, "").strip().lower() == "python":
        why = f"chosen by {ENV}=python"
    else:
        why = "no compiled core is installed (no C compiler or Cython at install time)"
    return {"core": kind, "module": CORE.__file__ or "", "why": why}
