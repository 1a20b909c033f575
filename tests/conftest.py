"""Shared test set-up: a hypothesis profile without deadlines, since the
machine is shared and timing is a benchmark's job, not a test's."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("gomoku", deadline=None, max_examples=100)
settings.load_profile("gomoku")
