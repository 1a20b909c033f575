"""``gomoku play --local``: a server inside the client process, for play with no
network: two people on one terminal (hot seat), with the same screens.

This is the one place the client touches the server package, imported only
when ``--local`` is asked for, so the client proper still talks to servers
through the protocol alone. The embedded server uses the in-memory store and
listens on 127.0.0.1 on a free port, so nothing outside this machine can reach
it.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from client.options import PlayOptions


class EmbeddedServer(Protocol):
    """What the client needs from the embedded server."""

    @property
    def port(self) -> int: ...

    async def stop(self) -> None: ...


async def start_embedded_server() -> EmbeddedServer:
    """A running server on 127.0.0.1 with a free port and the memory store."""
    from server.app import GomokuServer
    from server.config import ServerConfig

    server = GomokuServer(ServerConfig(host="127.0.0.1", port=0))
    await server.start()
    return server


def partner_name(name: str) -> str:
    """The second hot-seat player's name, distinct from the first."""
    return "Player 2" if name != "Player 2" else "Player 1"


def run_local(options: PlayOptions) -> int:
    from client.app import GomokuApp

    app = GomokuApp(dataclasses.replace(options, host="127.0.0.1", local=True))
    app.run()
    return 0


__all__ = ["EmbeddedServer", "partner_name", "run_local", "start_embedded_server"]
