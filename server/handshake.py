"""What the server decides at a WebSocket opening handshake, apart from the limits:
which wire encoding the connection speaks (its subprotocol) and whether the web page
it comes from may connect at all (its ``Origin``)."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Sequence

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.typing import Subprotocol

from protocol.codec import ENCODINGS, MSGPACK, Codec

ANY_ORIGIN = "*"
"""The ``--allow-origin`` value that lets pages from anywhere connect."""

_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")
"""A ``Host`` header that is a host name, an IPv4 or a bracketed IPv6 address, and a port."""


def select_encoding(
    connection: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """The subprotocol to answer with: the first the client offers that names an
    encoding (``gomoku.json``, ``gomoku.msgpack``). None, which keeps the MessagePack
    default, when it offers none of them: a client that asks for nothing, or only for
    something else, is still served, and sees from the answer that it got no choice."""
    for name in offered:
        if name in ENCODINGS:
            return name
    return None


def encoding_of(connection: ServerConnection) -> Codec:
    """The encoding a connection chose at its handshake (MessagePack if none)."""
    return ENCODINGS.get(connection.subprotocol or "", MSGPACK)


def page_host(headers: Headers) -> str | None:
    """The request's ``Host`` header, if it is a well-formed host and port (it is echoed
    into response headers, so nothing else is trusted)."""
    hosts = headers.get_all("Host")
    if len(hosts) != 1 or not _HOST.match(hosts[0]):  # two are no answer either
        return None
    return hosts[0].lower()


def _normal(origin: str) -> str:
    """An origin as browsers send it: scheme and host lower case, no trailing slash."""
    return origin.strip().rstrip("/").lower()


class OriginPolicy:
    """Which web pages may open a WebSocket to this server.

    * No ``Origin`` header: not a browser (the terminal client, the AI worker, a bot):
      always let in. Browsers always send one, and pages cannot remove or forge it.
    * The page's own origin: the ``Origin``'s host and port are the request's ``Host``
      (the browser client this server serves itself, on the same port).
    * Any origin listed with ``--allow-origin`` (``*`` lists every origin).

    Everything else is refused at the handshake (HTTP 403), so another site's page
    cannot use a visitor's browser to play, chat or read their games here.
    """

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        listed = {_normal(origin) for origin in allowed}
        self.any = ANY_ORIGIN in listed
        self.allowed = frozenset(listed - {ANY_ORIGIN})

    def allows(self, headers: Headers) -> bool:
        origins = headers.get_all("Origin")
        if not origins or self.any:
            return True
        if len(origins) > 1:  # no browser sends two
            return False
        origin = _normal(origins[0])
        if origin in self.allowed:
            return True
        parts = urllib.parse.urlsplit(origin)
        host = page_host(headers)
        return parts.scheme in ("http", "https") and host is not None and parts.netloc == host
