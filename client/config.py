"""Where the client remembers who you are: your name and, per server, the resume
token that gets your seats back after a drop or a restart.

The file is ``identity.json`` in the user's config directory (platformdirs:
``~/.config/gomoku-arena`` on Linux), or in ``$GOMOKU_CONFIG_DIR`` when that is
set (tests). Several people on one OS account each use a *profile*
(``gomoku play --profile bob``): profile ``bob`` lives in ``profile-bob.json``
beside it, with its own name and tokens. Tokens are secrets: the file is
written with mode 0600, atomically (write then rename), so a crash never
leaves half a file. A missing file is an empty identity. One that cannot be read
or parsed (a hand edit's trailing comma, a file made by another user) is said by
:func:`identity_problem` before the client starts, and left as it is: read as empty,
it was overwritten at the next welcome with one token, every other server's lost.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

ENV_DIR = "GOMOKU_CONFIG_DIR"
APP_NAME = "gomoku-arena"
FILE_NAME = "identity.json"
PROFILE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")


class ProfileError(ValueError):
    """A profile name that cannot be a file name part."""


def check_profile(name: str) -> str:
    """``name`` if it is a profile name (letters, digits, ``-`` and ``_``, up to 32,
    starting with a letter or digit); else :class:`ProfileError` saying so."""
    if not PROFILE_PATTERN.fullmatch(name):
        raise ProfileError(
            f"{name!r} is not a profile name (1 to 32 letters, digits, - or _, "
            "starting with a letter or digit)"
        )
    return name


def identity_file(profile: str | None = None) -> str:
    """The file name of ``profile``'s identity (None: the default profile)."""
    return FILE_NAME if profile is None else f"profile-{check_profile(profile)}.json"


def config_dir() -> Path:
    """The directory the client keeps its files in (not created here)."""
    override = os.environ.get(ENV_DIR)
    if override:
        return Path(override)
    import platformdirs  # the client extra; imported here so option checks need none

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def legacy_key(key: str) -> str | None:
    """``key`` as written by clients before 2026-11-25, in today's form: those wrote a
    host as typed (``LOCALHOST:8765``) and an IPv6 one without brackets (``::1:8765``),
    where the key is now ``localhost:8765`` and ``[::1]:8765``. None for a URL key or
    one without a port."""
    if "://" in key:
        return None
    host, _, port = key.rpartition(":")
    if not host or not port.isdigit():
        return None
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host.lower()}:{port}"


@dataclasses.dataclass(frozen=True, slots=True)
class Identity:
    """A display name and the resume tokens it holds, by server address."""

    name: str | None = None
    tokens: dict[str, str] = dataclasses.field(default_factory=dict)
    last_ai: dict[str, Any] | None = None
    """The settings of the last game against the AI (``{"room": CreateRoom fields,
    "level": ...}``), offered again by the next ``a``, after a restart too."""
    last_room: dict[str, Any] | None = None
    """The settings of the last room created with ``n`` (CreateRoom fields), offered
    again by the next ``n``, after a restart too."""
    last_match: dict[str, Any] | None = None
    """The last quick match asked for with ``m`` (Queue fields), offered again by the
    next ``m``, after a restart too."""
    earlier: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    """The tokens of the names played as before ``name``, by name: another name is
    another player on the server (a person sharing the computer must not become the
    last one), and the last one's tokens are kept, so that ``--name`` with their name
    plays as them again (they were overwritten, the player's games and ratings lost
    to this computer)."""

    def token_for(self, server: str) -> str | None:
        """The token kept for ``server`` (a :attr:`ServerAddress.key`), also under the key
        a client before 2026-11-25 wrote for the same address (:func:`legacy_key`)."""
        token = self.tokens.get(server)
        if token is not None:
            return token
        return next((t for k, t in self.tokens.items() if legacy_key(k) == server), None)

    def token_as(self, name: str, server: str) -> str | None:
        """The token kept for ``server`` by the player called ``name`` here."""
        if name == self.name:
            return self.token_for(server)
        return self.earlier.get(name, {}).get(server)

    def name_on(self, server: str) -> str | None:
        """The name this identity plays ``server`` as: the current one if it has a token
        there, else the one earlier name that has (None: none, or several: people who
        share the computer, to choose between). A player called "alice" on the club's
        server and "al" on a friend's came back to the club as a new "al"."""
        if self.name is not None and self.token_for(server) is not None:
            return self.name
        there = [name for name, tokens in self.earlier.items() if server in tokens]
        return there[0] if len(there) == 1 else None

    def with_token(self, server: str, name: str, token: str) -> Identity:
        """``name`` welcomed on ``server`` with ``token``: the current name, the last
        one's tokens set aside under its name if it was another."""
        if name == self.name:
            return dataclasses.replace(self, tokens={**self.tokens, server: token})
        earlier = dict(self.earlier)
        if self.name is not None and self.tokens:
            earlier[self.name] = self.tokens
        tokens = {**earlier.pop(name, {}), server: token}
        return dataclasses.replace(self, name=name, tokens=tokens, earlier=earlier)


def identity_path(directory: Path | None = None, profile: str | None = None) -> Path:
    """Where ``profile``'s identity is kept (``directory``: else :func:`config_dir`)."""
    return (directory or config_dir()) / identity_file(profile)


def _read(path: Path) -> Any:
    """The JSON in the file at ``path``; OSError or ValueError if it cannot be had."""
    return json.loads(path.read_text(encoding="utf-8"))


def identity_problem(directory: Path | None = None, profile: str | None = None) -> str | None:
    """Why ``profile``'s identity file cannot be used, if it exists and cannot be read
    or parsed as one (None: missing, or fine)."""
    path = identity_path(directory, profile)
    try:
        data = _read(path)
    except (FileNotFoundError, NotADirectoryError):
        return None  # no file (a directory that cannot be made is said when saving)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    except ValueError as exc:  # (json's errors and a file that is no UTF-8 text)
        return f"{path} is not readable JSON ({exc})"
    if not isinstance(data, dict):
        return f"{path} holds no identity (a JSON object)"
    return None


def load_identity(directory: Path | None = None, profile: str | None = None) -> Identity:
    try:
        data = _read(identity_path(directory, profile))
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
    last_ai = data.get("last_ai")
    last_room = data.get("last_room")
    last_match = data.get("last_match")
    earlier = data.get("earlier")
    return Identity(
        name=name if isinstance(name, str) else None,
        tokens=clean,
        last_ai=last_ai if isinstance(last_ai, dict) else None,
        last_room=last_room if isinstance(last_room, dict) else None,
        last_match=last_match if isinstance(last_match, dict) else None,
        earlier={
            k: {s: t for s, t in v.items() if isinstance(s, str) and isinstance(t, str)}
            for k, v in (earlier.items() if isinstance(earlier, dict) else ())
            if isinstance(k, str) and isinstance(v, dict)
        },
    )


def save_identity(
    identity: Identity, directory: Path | None = None, profile: str | None = None
) -> Path:
    """Write ``identity`` (of ``profile``); returns the file's path. Raises OSError if
    the directory cannot be written (the caller may carry on without remembering)."""
    folder = directory or config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / identity_file(profile)
    fields: dict[str, Any] = {"name": identity.name, "tokens": identity.tokens}
    if identity.last_ai is not None:
        fields["last_ai"] = identity.last_ai
    if identity.last_room is not None:
        fields["last_room"] = identity.last_room
    if identity.last_match is not None:
        fields["last_match"] = identity.last_match
    if identity.earlier:
        fields["earlier"] = identity.earlier
    payload = json.dumps(fields, indent=2)
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
