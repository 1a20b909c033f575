"""worker/config.py: the level names a worker offers external brains under."""

from __future__ import annotations

from worker.config import brain_level_name


def test_brain_level_names_fit_the_protocol() -> None:
    """A brain command becomes a level name like brain:embryo."""
    assert brain_level_name("/opt/brains/pbrain-Embryo.exe --x") == "brain:pbrain-embryo"
    assert brain_level_name("python3 /tmp/tiny_brain.py") == "brain:tiny_brain"
