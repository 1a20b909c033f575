"""What ``gomoku play`` was asked to do, as one plain value the app starts from."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from client.address import RoomLink, ServerAddress
from client.glyphs import UNICODE, Glyphs

LOCALHOST = ServerAddress("localhost")


@dataclasses.dataclass(frozen=True, slots=True)
class PlayOptions:
    """``server`` to connect to; ``name`` (None: ask, or use the remembered one);
    ``profile`` whose name and tokens to use (None: the default one); the glyph set;
    ``one_click`` mouse play; ``local``: run an embedded server and offer hot seat;
    ``config_dir`` overrides where the identity lives; ``remember`` False keeps the
    identity out of the config directory entirely; ``link``: the room to enter once
    connected (SERVER was a web page's link to it)."""

    server: ServerAddress = LOCALHOST
    name: str | None = None
    profile: str | None = None
    glyphs: Glyphs = UNICODE
    one_click: bool = False
    local: bool = False
    config_dir: Path | None = None
    remember: bool = True
    link: RoomLink | None = None

    @property
    def address(self) -> str:
        return self.server.display
