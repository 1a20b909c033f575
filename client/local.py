"""``gomoku play --local``: a server inside the client process, for play with no
network: two people on one terminal (hot seat), or one person against the AI,
with the same screens.

This is the one place the client touches the server package, imported only
when ``--local`` is asked for, so the client proper still talks to servers
through the protocol alone. The embedded server uses the in-memory store and
no data file (unlike ``gomoku-server`` it keeps nothing: a local session's players
and games are gone when the client exits). It listens on 127.0.0.1 on a free
port, so nothing outside this machine can reach it. For play against the AI the
server starts one local AI worker of its own (``ServerConfig.bots.embedded``: a
``python -m worker`` process with a bot key only this server knows), which it
stops when it stops. The worker needs a
moment to start; :meth:`LocalServer.wait_for_ai` lets the client wait for it
before it asks for an AI seat.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from server.app import GomokuServer

AI_START_TIMEOUT_S = 30.0


class EmbeddedServer(Protocol):
    """What the client needs from the embedded server."""

    @property
    def port(self) -> int: ...

    async def wait_for_ai(self, timeout_s: float = AI_START_TIMEOUT_S) -> bool: ...

    async def stop(self) -> None: ...


class LocalServer:
    """A :class:`server.app.GomokuServer` with one local AI worker."""

    def __init__(self, server: GomokuServer) -> None:
        self.server = server

    @property
    def port(self) -> int:
        return self.server.port

    def ai_ready(self) -> bool:
        return bool(self.server.bots.live_workers())

    async def wait_for_ai(self, timeout_s: float = AI_START_TIMEOUT_S) -> bool:
        """True once the local AI worker has registered (False after ``timeout_s``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not self.ai_ready():
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def stop(self) -> None:
        await self.server.stop()


async def start_embedded_server(*, ai: bool = True) -> LocalServer:
    """A running server on 127.0.0.1 with a free port and the memory store; with
    ``ai``, the server also starts its local AI worker (ready a moment later)."""
    from server.app import GomokuServer
    from server.config import Bots, ServerConfig

    bots = Bots(embedded=1 if ai else 0)
    server = GomokuServer(ServerConfig(host="127.0.0.1", port=0, bots=bots))
    await server.start()
    return LocalServer(server)
