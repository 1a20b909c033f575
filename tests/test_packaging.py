"""An installed copy has every file the code reads at run time: the wheel built from the
project holds each data file of its packages (the Redis store's Lua scripts, the browser
client's page), and a non-editable install loads the Lua scripts from where it was put."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["engine", "protocol", "server", "client", "gomocup", "worker", "web"]


def data_files() -> list[str]:
    """The files of the packages that are not Python source (paths from the root)."""
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".py":
                found.append(path.relative_to(ROOT).as_posix())
    return sorted(found)


def build_wheel(tmp_path: Path) -> Path:
    """A wheel built by pip from a copy of the project (so the checkout stays clean)."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    out = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("*.whl")
    return wheel


def test_the_wheel_holds_every_data_file_and_an_install_loads_the_lua_scripts(
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
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe, str(target)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    length, has_library = done.stdout.split()
    assert int(length) > 500
    assert has_library == "True"
