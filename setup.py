"""Builds the AI's compiled core, if it can.

Everything else about the package is in pyproject.toml. The layers of
``engine/ai/core/`` (``lines``, ``threats``, ``alphabeta``, ``root``) are plain
Python; here Cython compiles those same files (each with the C types in the
``.pxd`` beside it) into extension modules of the same names, which Python then
imports in place of the .py files. The build is optional: without Cython, or when
the C compiler fails, the install goes on and the AI runs the plain Python
(``gomoku analyze --engine-info`` says which one is in use).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": 3,
    "annotation_typing": False,  # the C types come from the .pxd files, not the Python hints
    "boundscheck": False,  # every index in the core stays inside its buffer by construction
    "wraparound": False,
    "cdivision": True,  # no division of negative numbers in the core
    "initializedcheck": False,
}


# The compiled layers of engine/ai/core/, each cimporting the one before it
# (engine.ai.backend.CORE_LAYERS names the same).
CORE_LAYERS = ("lines", "threats", "alphabeta", "root")


def core_extensions() -> list[Extension]:
    if os.environ.get("GOMOKU_NO_COMPILE"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("setup.py: Cython is missing; the AI core stays pure Python", file=sys.stderr)
        return []
    extensions = [
        Extension(
            f"engine.ai.core.{layer}",
            [f"engine/ai/core/{layer}.py"],
            extra_compile_args=["-O2"],
            # a compiler that fails leaves the pure-Python core in place (the backend
            # uses the compiled core only when every layer of it is there)
            optional=True,
        )
        for layer in CORE_LAYERS
    ]
    try:
        # force: a .c left from an older .py (a checkout, a rebase) is never reused
        return list(cythonize(extensions, quiet=True, force=True, compiler_directives=DIRECTIVES))
    except Exception as error:  # any Cython failure: install without the compiled core
        print(f"setup.py: Cython could not translate the AI core: {error}", file=sys.stderr)
        return []


setup(ext_modules=core_extensions())
