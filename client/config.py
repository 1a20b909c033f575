"""Where the client remembers who you are: your name and, per server, the resume
token that gets your seats back after a drop or a restart.

The file is ``identity.json`` in the user's config directory (platformdirs:
``~/.config/gomoku-arena`` on Linux), or in ``$GOMOKU_CONFIG_DIR`` when that is
set (tests and several identities on one machine). Tokens are secrets: the
file is written with mode 0600, atomically (write then rename), so a crash
never leaves half a file. A missing or unreadable file is an empty identity,
never an error: the worst case is a fresh player.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs

ENV_DIR = "GOMOKU_CONFIG_DIR"
APP_NAME = "gomoku-arena"
FILE_NAME = "identity.json"


def config_dir() -> Path:
    """The directory the client keeps its files in (not created here)."""
    override = os.environ.get(ENV_DIR)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


@dataclasses.dataclass(frozen=True, slots=True)
class Identity:
    """A display name and the resume tokens it holds, by server address."""

    name: str | None = None
    tokens: dict[str, str] = dataclasses.field(default_factory=dict)

    def token_for(self, server: str) -> str | None:
        return self.tokens.get(server)

    def with_token(self, server: str, name: str, token: str) -> Identity:
        return Identity(name=name, tokens={**self.tokens, server: token})


def load_identity(directory: Path | None = None) -> Identity:
    path = (directory or config_dir()) / FILE_NAME
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Identity()
    if not isinstance(data, dict):
        return Identity()
    name = data.get("name")
    tokens = data.get("tokens")
    clean = (
        {k: v for k, v in tokens.items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(tokens, dict)
        else {}
    )
    return Identity(name=name if isinstance(name, str) else None, tokens=clean)


def save_identity(identity: Identity, directory: Path | None = None) -> Path:
    """Write ``identity``; returns the file's path. Raises OSError if the directory
    cannot be written (the caller may carry on without remembering)."""
    folder = directory or config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / FILE_NAME
    payload = json.dumps({"name": identity.name, "tokens": identity.tokens}, indent=2)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".identity-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(payload)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
