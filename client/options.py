"""What ``gomoku play`` was asked to do, as one plain value the app starts from."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from client.connection import DEFAULT_PORT
from client.glyphs import UNICODE, Glyphs


@dataclasses.dataclass(frozen=True, slots=True)
class PlayOptions:
    """``host``/``port`` of the server; ``name`` (None: ask, or use the remembered
    one); the glyph set; ``one_click`` mouse play; ``local``: run an embedded
    server and offer hot seat; ``config_dir`` overrides where the identity lives;
    ``remember`` False keeps the identity out of the config directory entirely."""

    host: str = "localhost"
    port: int = DEFAULT_PORT
    name: str | None = None
    glyphs: Glyphs = UNICODE
    one_click: bool = False
    local: bool = False
    config_dir: Path | None = None
    remember: bool = True

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"
