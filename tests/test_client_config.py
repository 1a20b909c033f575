"""Remembering the name and resume tokens in the config directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from client.config import ENV_DIR, FILE_NAME, Identity, config_dir, load_identity, save_identity


def test_identity_round_trips_with_private_permissions(tmp_path: Path) -> None:
    """A saved identity loads back; the file holding tokens is readable by its owner only."""
    identity = Identity().with_token("localhost:8765", "alice", "secret-1")
    identity = identity.with_token("lan:9000", "alice", "secret-2")
    path = save_identity(identity, tmp_path)
    assert load_identity(tmp_path) == identity
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert identity.token_for("lan:9000") == "secret-2"
    assert identity.token_for("elsewhere:1") is None


def test_missing_or_corrupt_file_is_a_fresh_identity(tmp_path: Path) -> None:
    """No file, or garbage in it, gives an empty identity rather than an error."""
    assert load_identity(tmp_path) == Identity()
    (tmp_path / FILE_NAME).write_text("{not json", encoding="utf-8")
    assert load_identity(tmp_path) == Identity()
    (tmp_path / FILE_NAME).write_text('{"name": 3, "tokens": {"a": 1, "b": "t"}}')
    assert load_identity(tmp_path) == Identity(name=None, tokens={"b": "t"})


def test_env_var_overrides_the_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GOMOKU_CONFIG_DIR moves the identity file (tests never touch the real home)."""
    monkeypatch.setenv(ENV_DIR, str(tmp_path / "cfg"))
    assert config_dir() == tmp_path / "cfg"
    save_identity(Identity(name="bob"))
    assert (tmp_path / "cfg" / FILE_NAME).exists()
    assert load_identity().name == "bob"
