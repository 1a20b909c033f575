"""Why a connection to a server failed, in words a player can act on.

The network reports trouble as a zoo of exceptions (``ConnectionRefusedError``,
``socket.gaierror``, ``ssl.SSLError``, websockets' ``InvalidStatus``...). The
player needs one of a few answers: nothing listens there, the name does not
exist, nobody answers, TLS went wrong, it is not a Gomoku server, it speaks
another version of the protocol. :func:`failure_of` makes that translation in
one place; the session raises :class:`LinkFailure` itself for what it learns
after the handshake (a server that does not speak our protocol, a version
mismatch, a refused hello).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import socket
import ssl
from typing import Literal

from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidMessage,
    InvalidStatus,
    InvalidURI,
)

from client.address import DEFAULT_PORT, ServerAddress
from client.state.words import server_words
from protocol.errors import CloseCode

Problem = Literal[
    "refused",  # nothing listens on that port
    "not_found",  # the host name does not resolve
    "timeout",  # no answer within the handshake's time
    "tls",  # the TLS handshake failed (wss:// to a plain server, a bad certificate)
    "not_gomoku",  # something answered, but not a Gomoku Arena server
    "version",  # a Gomoku server that speaks another protocol version
    "refused_hello",  # the server said no to hello (its store is down, say)
    "turned_away",  # it answered the handshake with a refusal of its own (HTTP 429)
    "no_server",  # a proxy answered for a server that is not there (HTTP 502, 504)
    "moved",  # the address redirects elsewhere (a path without its final /)
    "network",  # another network error (unreachable network, reset...)
    "lost",  # an established connection went away
]

PROBLEM_NAMES: dict[str, str] = {
    "refused": "connection refused",
    "not_found": "name not found",
    "timeout": "timed out",
    "tls": "TLS failure",
    "not_gomoku": "not a Gomoku server",
    "version": "protocol version mismatch",
    "refused_hello": "hello refused",
    "turned_away": "turned away",
    "no_server": "no server behind the proxy",
    "moved": "moved",
    "network": "network error",
    "lost": "connection lost",
}
"""The short name of each problem, as the banner starts its sentence."""


_HTTP_STATUS = re.compile(r"HTTP/\d(?:\.\d)? \d{3}")


class LinkFailure(Exception):
    """A connection attempt failed: ``problem`` says which way, ``detail`` the
    particulars (``str()`` is both, as the banner shows them)."""

    def __init__(self, problem: Problem, detail: str = "") -> None:
        super().__init__(problem, detail)
        self.problem: Problem = problem
        self.detail = detail

    def __str__(self) -> str:
        name = PROBLEM_NAMES[self.problem]
        return f"{name} ({self.detail})" if self.detail else name

    @property
    def restarting(self) -> bool:
        """Whether the server is on its way back: it closed saying it was going away
        (1001), or a proxy answered that no server is behind it (502, 503, 504)."""
        return self.problem == "no_server" or self.detail == RESTARTING

    def told(self) -> str:
        """What the screens say of it after their own lead: ``str()``, but only the
        particulars of a lost connection, whose sentences begin "Connection lost"."""
        return self.detail if self.problem == "lost" else str(self)


def _http_refusal(status: int, body: bytes | bytearray, address: ServerAddress) -> LinkFailure:
    """An HTTP answer instead of a WebSocket: a server that turned us away says why in
    its body (ours: "too many connections from your address"); a proxy's 502 or 504
    means the server behind it is not there (restarting, say), not that the address is
    wrong; a 400 to ws:// is often a TLS port; a page (200) at a path, a page's address
    pasted (``/healthz``)."""
    said = _said(body)
    if status == 429 or (status in (403, 503) and said):
        return LinkFailure("turned_away", f"{said or 'too many connections'}, HTTP {status}")
    if status in (502, 503, 504):
        return LinkFailure("no_server", f"HTTP {status}; it may be restarting")
    hint = "; is it a wss:// one?" if status == 400 and address.scheme == "ws" else ""
    if status == 200 and address.path != "/":  # a page's address pasted (/healthz, say)
        root = dataclasses.replace(address, path="/")
        hint = f"; try {root.display}, without {address.path}"
    return LinkFailure("not_gomoku", f"it answered HTTP {status}, not a WebSocket{hint}")


def _said(body: bytes | bytearray) -> str:
    """The first line of a short plain answer, if it reads as a sentence (not a page)."""
    if not body or len(body) > 200:
        return ""
    line = body.decode("utf-8", "replace").strip().split("\n", 1)[0].strip()
    return "" if "<" in line or not line.isprintable() else line


RESTARTING = "the server is restarting or shutting down"
"""What a connection closed with 1001 (going away) is said to be."""


def closed_by_server(code: int | None) -> LinkFailure:
    """A connection the server closed after welcoming us, said by its close code: 1001
    is a server shutting down (an operator's restart, as a rule), which a player should
    not read as their own network's fault."""
    if code == CloseCode.GOING_AWAY:
        return LinkFailure("lost", RESTARTING)
    return LinkFailure("lost", "closed by the server")


def failure_of(exc: BaseException, address: ServerAddress) -> LinkFailure:
    """The :class:`LinkFailure` a connection attempt to ``address`` that raised ``exc``
    amounts to; one that found no server at a bare IPv6 address ending in what reads as
    a port (``::1:9623``) asks whether the port was meant (``[::1]:9623``)."""
    failure = _failure_of(exc, address)
    meant = _port_typed_in(address)
    if meant is not None and failure.problem in ("refused", "network", "timeout"):
        failure.detail += f"; did you mean {meant}?"
    return failure


def _port_typed_in(address: ServerAddress) -> str | None:
    """``[::1]:9623`` for the bare IPv6 address ``::1:9623`` on the default port: a port
    typed after an IPv6 address without brackets reads as its last group."""
    head, _, tail = address.host.rpartition(":")
    if address.port != DEFAULT_PORT or not head or not (tail.isdigit() and len(tail) > 1):
        return None
    try:
        ipaddress.IPv6Address(head)
    except ValueError:
        return None
    return f"[{head}]:{int(tail)}" if 0 < int(tail) < 65536 else None


def _failure_of(exc: BaseException, address: ServerAddress) -> LinkFailure:
    if isinstance(exc, LinkFailure):
        return exc
    tls = _tls_error(exc)
    if tls is not None:
        reason = tls.reason or str(tls)
        hint = ""
        if reason in ("WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG"):
            hint = "; is it a plain ws:// server?"
        if isinstance(tls, ssl.SSLCertVerificationError):
            reason = tls.verify_message or reason
        return LinkFailure("tls", f"{reason.lower().replace('_', ' ')}{hint}")
    if address.scheme == "wss" and isinstance(
        exc, ConnectionResetError | ConnectionAbortedError | EOFError
    ):
        # Broken off before any HTTP: a plain server reading TLS as garbage does this.
        return LinkFailure("tls", "the server broke off the handshake; is it a plain ws:// one?")
    if isinstance(exc, socket.gaierror):
        return LinkFailure("not_found", f"no host is called {address.host}")
    if isinstance(exc, ConnectionRefusedError):
        return LinkFailure("refused", f"nothing listens on port {address.port}")
    if isinstance(exc, TimeoutError):
        return LinkFailure("timeout", "no answer")
    if isinstance(exc, InvalidStatus):
        return _http_refusal(exc.response.status_code, exc.response.body, address)
    if isinstance(exc, InvalidMessage):
        answered = _HTTP_STATUS.search(str(exc.__cause__ or ""))
        if answered is not None:  # an HTTP/1.0 answer, which websockets does not read
            failure = _http_refusal(int(answered[0][-3:]), b"", address)
            if failure.problem != "not_gomoku":
                return failure
            return LinkFailure("not_gomoku", f"it answered {answered[0]}, not a WebSocket")
        return LinkFailure("not_gomoku", "its answer is not a WebSocket handshake")
    if isinstance(exc, InvalidURI):
        scheme, sep, rest = exc.uri.partition("://")
        if sep and scheme.lower() in ("http", "https"):  # a redirect, to the page's form
            there = f"{'wss' if scheme.lower() == 'https' else 'ws'}://{rest}"
            return LinkFailure("moved", f"it sends you to {there}: connect to that address")
        return LinkFailure("not_found", str(exc))
    if isinstance(exc, InvalidHandshake):
        return LinkFailure("not_gomoku", str(exc))
    if isinstance(exc, ConnectionClosed):
        if exc.rcvd is not None and exc.rcvd.reason:
            return LinkFailure("lost", f"the server closed it: {server_words(exc.rcvd.reason)}")
        return LinkFailure("lost")
    if isinstance(exc, OSError):
        return LinkFailure("network", exc.strerror or str(exc) or type(exc).__name__)
    return LinkFailure("network", str(exc) or type(exc).__name__)


def _tls_error(exc: BaseException) -> ssl.SSLError | None:
    """The TLS error behind ``exc`` (websockets may wrap it), if there is one."""
    seen: BaseException | None = exc
    for _ in range(4):
        if seen is None:
            return None
        if isinstance(seen, ssl.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
