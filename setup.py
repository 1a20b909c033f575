"""Builds the AI's compiled core, if it can.

Everything else about the package is in pyproject.toml. ``engine/ai/core.py`` is
plain Python; here Cython compiles that same file (with the C types in
``engine/ai/core.pxd``) into the extension module ``engine.ai.core``, which
Python then imports in place of the .py. The build is optional: without Cython, or
when the C compiler fails, the install goes on and the AI runs the plain Python
(``gomoku analyze --engine-info`` says which one is in use).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": 3,
    "annotation_typing": False,  # the C types come from core.pxd, not the Python hints
    "boundscheck": False,  # every index in core.py stays inside its buffer by construction
    "wraparound": False,
    "cdivision": True,  # no division of negative numbers in core.py
    "initializedcheck": False,
}


def core_extension() -> list[Extension]:
    if os.environ.get("GOMOKU_NO_COMPILE"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("setup.py: Cython is missing; the AI core stays pure Python", file=sys.stderr)
        return []
    extension = Extension(
        "engine.ai.core",
        ["engine/ai/core.py"],
        extra_compile_args=["-O2"],
        optional=True,  # a compiler that fails leaves the pure-Python core in place
    )
    try:
        # force: a core.c left from an older core.py (a checkout, a rebase) is never reused
        return list(cythonize([extension], quiet=True, force=True, compiler_directives=DIRECTIVES))
    except Exception as error:  # any Cython failure: install without the compiled core
        print(f"setup.py: Cython could not translate the AI core: {error}", file=sys.stderr)
        return []


setup(ext_modules=core_extension())
