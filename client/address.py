"""The server address a player types or pastes, as one value.

People paste what the server printed (``ws://192.168.1.20:8765``), what a browser
shows (``http://host:8765/``, ``https://gomoku.example.org/``), or type a bare
``host`` or ``host:port``. :meth:`ServerAddress.parse` takes all of them;
:attr:`ServerAddress.url` is the one WebSocket URL the client connects to, and
parsing it gives the same value back (a parse/format pair).

- No scheme: ``ws``, port 8765 unless given (``[::1]:8765`` and a bare ``::1``
  for IPv6).
- ``ws://`` and ``wss://`` as given; ``http://`` becomes ``ws://`` and ``https://``
  ``wss://`` (the same server answers both on one port); the path is kept.
- With a scheme and no port, the scheme's port (80, or 443 for ``wss``/``https``),
  as a browser would: a TLS proxy in front of the server is reached that way.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import urllib.parse

DEFAULT_PORT = 8765
SCHEMES = {"ws": "ws", "wss": "wss", "http": "ws", "https": "wss"}
SCHEME_PORTS = {"ws": 80, "wss": 443}
_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


class AddressError(ValueError):
    """Text that is not a server address; the message says what is wrong with it."""


@dataclasses.dataclass(frozen=True, slots=True)
class ServerAddress:
    """A WebSocket server: ``scheme`` (``ws`` or ``wss``), ``host`` (a name or an IP
    address, IPv6 without brackets), ``port`` and ``path`` (starting with ``/``)."""

    host: str
    port: int = DEFAULT_PORT
    scheme: str = "ws"
    path: str = "/"

    @classmethod
    def parse(cls, text: str) -> ServerAddress:
        """The address in ``text``; raises :class:`AddressError` naming the fault."""
        text = text.strip()
        if not text:
            raise AddressError("the server address is empty")
        if any(c.isspace() for c in text):
            raise AddressError(f"{text!r} has a space in it")
        scheme, sep, rest = text.partition("://")
        if sep:
            scheme = scheme.lower()
            if scheme not in SCHEMES:
                raise AddressError(
                    f"{text!r}: {scheme}:// is not a server address "
                    "(use ws://, wss://, http:// or https://)"
                )
            ws_scheme = SCHEMES[scheme]
            default_port = SCHEME_PORTS[ws_scheme]
        else:
            rest, ws_scheme, default_port = text, "ws", DEFAULT_PORT
        authority, slash, path = rest.partition("/")
        path = ("/" + path).split("#", 1)[0] if slash else "/"
        if "@" in authority:
            raise AddressError(f"{text!r}: a user name in the address is not supported")
        host, port = _split_authority(text, authority, default_port, bare_ipv6=not sep)
        return cls(host=host, port=port, scheme=ws_scheme, path=path)

    @property
    def url(self) -> str:
        """``ws://host:port/path``: what the client connects to; :meth:`parse` reads
        it back to the same value."""
        return f"{self.scheme}://{self.host_port}{self.path}"

    @property
    def host_port(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def plain(self) -> bool:
        """Plain ``ws`` at the root path: written as ``host:port`` without losing anything."""
        return self.scheme == "ws" and self.path == "/"

    @property
    def display(self) -> str:
        """How the screens name the server: ``host:port``, or the URL when it says more."""
        return self.host_port if self.plain else self.url

    @property
    def key(self) -> str:
        """The key a resume token is remembered under: ``host:port`` for a plain
        address (as earlier versions wrote it), else the URL."""
        return self.display

    def __str__(self) -> str:
        return self.display

    def __repr__(self) -> str:
        return f"ServerAddress.parse({self.url!r})"


def _split_authority(
    text: str, authority: str, default_port: int, *, bare_ipv6: bool
) -> tuple[str, int]:
    """``host`` and ``port`` of ``[v6]:port``, ``host:port``, ``host`` (and, with no
    scheme, a bare IPv6 address such as ``::1``)."""
    if authority.startswith("["):
        host, closed, rest = authority[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            raise AddressError(f"{text!r} is not an address like [::1]:8765")
        _check_ipv6(text, host)
        return host, _port(text, rest[1:]) if rest else default_port
    if authority.count(":") > 1:
        if not bare_ipv6:
            raise AddressError(f"{text!r}: write an IPv6 address in brackets, like [::1]:8765")
        try:
            ipaddress.IPv6Address(authority)
        except ValueError:  # more than one colon, and no IPv6 address either
            raise AddressError(
                f"{text!r} is not an address like HOST:PORT (an IPv6 address alone, like ::1, "
                "or in brackets with a port, like [::1]:8765)"
            ) from None
        return authority, default_port
    host, colon, port_text = authority.partition(":")
    if not host:
        raise AddressError(f"{text!r} has no host name")
    if not _HOST_NAME.fullmatch(host):
        raise AddressError(f"{text!r}: {host!r} is not a host name or an IP address")
    host = host.lower()  # names are case-insensitive; one spelling keys the token
    return host, _port(text, port_text) if colon else default_port


def _check_ipv6(text: str, host: str) -> None:
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        raise AddressError(f"{text!r}: {host!r} is not an IPv6 address") from None


def _port(text: str, port_text: str) -> int:
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise AddressError(f"{text!r}: {port_text!r} is not a port number (1 to 65535)")
    return int(port_text)


@dataclasses.dataclass(frozen=True, slots=True)
class RoomLink:
    """The room a web page's link names (``http://host:8765/#/room/K7Q-2MX-8RT``):
    ``key``, an invite code or a room id (``r-...``), and whether the link only
    ``watch``-es it (``#/watch/...``)."""

    key: str
    watch: bool = False


def room_link(text: str) -> RoomLink | None:
    """The room in a pasted link (the page's ``#/room/KEY`` or ``#/watch/KEY``), or
    None when ``text`` names none (a bare code, a server address)."""
    _, hashed, fragment = text.strip().partition("#/")
    page, slash, key = fragment.partition("/")
    key = urllib.parse.unquote(key.split("/", 1)[0]).strip()
    if not hashed or not slash or not key or page not in ("room", "watch"):
        return None
    return RoomLink(key, watch=page == "watch")
