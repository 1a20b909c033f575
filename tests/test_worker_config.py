"""worker/config.py: the level names a worker offers external brains under; the size of
its search pool."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from worker.config import brain_level_name


def test_brain_level_names_fit_the_protocol() -> None:
    """A brain command becomes a level name like brain:embryo."""
    assert brain_level_name("/opt/brains/pbrain-Embryo.exe --x") == "brain:pbrain-embryo"
    assert brain_level_name("python3 /tmp/tiny_brain.py") == "brain:tiny_brain"
    # the script's name, not its last argument's; a module's
    assert brain_level_name("python3 -u /tmp/tiny_brain.py --depth 3") == "brain:tiny_brain"
    assert brain_level_name("python -m brains.embryo 3") == "brain:brains.embryo"


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_the_search_pool_counts_the_cpus_it_may_run_on() -> None:
    """Under ``taskset -c 0`` (one CPU of several) the pool starts one search process:
    it started one per CPU of the machine, each about 63 MB, on a small host."""
    probe = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from worker.thinker import Thinker; t = Thinker(); print(t.processes); t.close()"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert shown.stdout.split() == ["1"]
