"""An installed copy has every file the code reads at run time: the wheel built from the
project holds each data file of its packages (the Redis store's Lua scripts, the browser
client's page), and a non-editable install loads the Lua scripts from where it was put and
runs the AI on a machine that could not compile its core.

The wheel is built with ``GOMOKU_NO_COMPILE=1``, as on a machine without a C compiler: a
compiled build takes over a minute here, and the dev install (``pip install -e``, which
``scripts/test`` runs) compiles the same extensions, which ``tests/test_ai_core.py``
requires and checks against the plain core."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["engine", "protocol", "server", "client", "gomocup", "worker", "web", "stopsignals"]
# Source, not data: Python files and the C types Cython reads when it compiles them.
SOURCE = {".py", ".pxd"}
# Made by a build from that source (Cython's C files, compiled modules): never copied
# into the wheel's source tree, so the wheel's own build makes them.
BUILT = ("*.c", "*.so", "__pycache__")


def data_files() -> list[str]:
    """The files of the packages that are neither source nor built (paths from the root)."""
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*"):
            built = any(path.match(pattern) for pattern in BUILT) or "__pycache__" in path.parts
            if path.is_file() and not built and path.suffix not in SOURCE:
                found.append(path.relative_to(ROOT).as_posix())
    return sorted(found)


def build_wheel(tmp_path: Path) -> Path:
    """A wheel built by pip from a copy of the project (so the checkout stays clean),
    by its own setup.py, without compiling the AI core."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns(*BUILT))
    out = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        env={**os.environ, "GOMOKU_NO_COMPILE": "1"},
    )
    (wheel,) = out.glob("*.whl")
    return wheel


def test_the_wheel_holds_every_data_file_and_an_install_loads_them_and_plays(
    tmp_path: Path,
) -> None:
    wanted = data_files()
    assert "server/store/redis/lua/commit.lua" in wanted
    assert "server/store/redis/lua/lib/append_events.lua" in wanted
    assert "web/static/index.html" in wanted
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    assert [name for name in wanted if name not in shipped] == []
    assert [name for name in shipped if name.endswith(".so")] == []

    target = tmp_path / "installed"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    # Run from the install: -I keeps the checkout out of sys.path, and the installed copy
    # comes before the editable install's, so the scripts can only be read from it.
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from server.store.redis import scripts\n"
        "assert scripts.__file__.startswith(sys.argv[1]), scripts.__file__\n"
        "print(len(scripts.COMMIT), 'function append_events' in scripts.APPEND)\n"
        "from engine import Board, format_point\n"
        "from engine.ai import engine_info, think\n"
        "info = engine_info()\n"
        "assert info['module'].startswith(sys.argv[1]), info\n"
        "found = think(Board.from_moves('h8 i9 h9 i8 h10 i7'), level='master', time_limit=1)\n"
        "print(info['core'], format_point(found.best, 15), found.win_in)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe, str(target)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    length, has_library, core, move, win_in = done.stdout.split()
    assert int(length) > 500
    assert has_library == "True"
    # The plain-Python core, loaded from the install, makes the open four of the three.
    assert core == "python"
    assert move in {"h7", "h11"}
    assert win_in == "2"
