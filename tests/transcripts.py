"""protocol.md's transcripts for the tests: parsed out of the document (its ```transcript
blocks), matched frame by frame, and replayed against a live server over real
WebSocket connections (tests/test_protocol_doc.py)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import re
import typing
from pathlib import Path
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from protocol import MAX_SERVER_FRAME
from protocol.codec import ENCODINGS, MSGPACK, Codec

DOC = Path(__file__).resolve().parent.parent / "protocol.md"
OPEN = "..."  # the key a bare `...` becomes: "more fields, not shown"
MEASURED = frozenset({"black_ms", "white_ms", "since_ms", "deadline_ms", "abort_in_ms"})
MEASURED_SLACK_MS = 2000  # clocks printed in the document vs. this run
RECV_TIMEOUT_S = 5.0


@dataclasses.dataclass(frozen=True)
class Step:
    """One line of the transcript: ``conn`` sends (``->``) or receives (``<-``) ``body``,
    its connection closes (``conn closes``, ``body`` empty), or it opens with a
    subprotocol (``conn opens gomoku.json``, ``body`` ``{"subprotocol": ...}``); a
    connection that is not opened so uses the replay's encoding."""

    lineno: int
    conn: str
    action: typing.Literal["send", "recv", "close", "open"]
    body: dict[str, Any]

    @property
    def sends(self) -> bool:
        return self.action == "send"

    def __str__(self) -> str:
        if self.action == "close":
            return f"protocol.md:{self.lineno}: {self.conn} closes"
        if self.action == "open":
            return f"protocol.md:{self.lineno}: {self.conn} opens {self.body['subprotocol']}"
        arrow = "->" if self.sends else "<-"
        return f"protocol.md:{self.lineno}: {self.conn} {arrow} {json.dumps(self.body)}"


class TranscriptError(ValueError):
    """A transcript line that does not parse."""


_LINE = re.compile(r"^(?P<conn>[a-z]\w*) (?P<arrow>->|<-) (?P<body>\{.*\})$")

_CLOSE = re.compile(r"^(?P<conn>[a-z]\w*) closes$")

_OPEN = re.compile(r"^(?P<conn>[a-z]\w*) opens (?P<subprotocol>[a-z.]+)$")


def _json_with_ellipses(text: str) -> str:
    """Turn each bare ``...`` (outside strings) into the entry ``"...": true``."""
    out: list[str] = []
    in_string = escaped = False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_string:
            escaped = ch == "\\" and not escaped
            if ch == '"' and not escaped:
                in_string = False
            out.append(ch)
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif text.startswith("...", i):
            out.append(f'"{OPEN}": true')
            i += 3
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def parse_transcript(markdown: str) -> list[Step]:
    """The steps of every ```transcript block, in order."""
    steps: list[Step] = []
    in_block = False
    for lineno, line in enumerate(markdown.splitlines(), start=1):
        if line.strip() == "```transcript":
            in_block = True
            continue
        if not in_block:
            continue
        if line.strip() == "```":
            in_block = False
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        closing = _CLOSE.match(line.strip())
        if closing is not None:
            steps.append(Step(lineno, closing.group("conn"), "close", {}))
            continue
        opening = _OPEN.match(line.strip())
        if opening is not None:
            subprotocol = opening.group("subprotocol")
            if subprotocol not in ENCODINGS:
                raise TranscriptError(f"protocol.md:{lineno}: no encoding {subprotocol!r}")
            steps.append(Step(lineno, opening.group("conn"), "open", {"subprotocol": subprotocol}))
            continue
        m = _LINE.match(line.strip())
        if m is None:
            raise TranscriptError(f"protocol.md:{lineno}: not `conn -> {{...}}`: {line!r}")
        try:
            body = json.loads(_json_with_ellipses(m.group("body")))
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"protocol.md:{lineno}: {exc}") from None
        if not isinstance(body, dict) or "type" not in body:
            raise TranscriptError(f"protocol.md:{lineno}: a message is a map with a type")
        action: typing.Literal["send", "recv"] = "send" if m.group("arrow") == "->" else "recv"
        steps.append(Step(lineno, m.group("conn"), action, body))
    if in_block:
        raise TranscriptError("protocol.md: a ```transcript block is not closed")
    return steps


class Mismatch(AssertionError):
    pass


def _is_var(value: object) -> bool:
    return isinstance(value, str) and value.startswith("$")


def match(pattern: Any, actual: Any, bound: dict[str, Any], path: str = "$") -> None:
    """Check ``actual`` against ``pattern``, binding ``"$name"`` variables into ``bound``."""
    if _is_var(pattern):
        if pattern == "$_":
            return
        if pattern in bound:
            if bound[pattern] != actual:
                raise Mismatch(f"{path}: {pattern} is {bound[pattern]!r}, got {actual!r}")
            return
        bound[pattern] = actual
        return
    if isinstance(pattern, dict):
        if not isinstance(actual, dict):
            raise Mismatch(f"{path}: expected a map, got {actual!r}")
        for key, sub in pattern.items():
            if key == OPEN:
                continue
            if key not in actual:
                raise Mismatch(f"{path}: no field {key!r}")
            if key in MEASURED and isinstance(sub, int) and isinstance(actual[key], int):
                if abs(sub - actual[key]) > MEASURED_SLACK_MS:
                    raise Mismatch(f"{path}.{key}: {actual[key]} is not about {sub}")
                continue
            match(sub, actual[key], bound, f"{path}.{key}")
        extra = set(actual) - set(pattern)
        if extra and OPEN not in pattern:
            raise Mismatch(f"{path}: fields not in the document: {sorted(extra)}")
        return
    if isinstance(pattern, list):
        if not isinstance(actual, list) or len(actual) != len(pattern):
            raise Mismatch(f"{path}: expected {pattern!r}, got {actual!r}")
        for i, (p, a) in enumerate(zip(pattern, actual, strict=True)):
            match(p, a, bound, f"{path}[{i}]")
        return
    if type(pattern) is not type(actual) or pattern != actual:
        raise Mismatch(f"{path}: expected {pattern!r}, got {actual!r}")


def substitute(body: Any, bound: dict[str, Any]) -> Any:
    """A map to send: variables replaced by the values the server gave them."""
    if _is_var(body):
        if body not in bound:
            raise Mismatch(f"{body} is sent before the server named it")
        return bound[body]
    if isinstance(body, dict):
        return {k: substitute(x, bound) for k, x in body.items()}
    if isinstance(body, list):
        return [substitute(x, bound) for x in body]
    return body


def stream(frame: dict[str, Any]) -> str:
    """Frames of one stream arrive in order; different streams may interleave."""
    kind = frame.get("type")
    if kind in ("lobby", "lobby_room", "lobby_gone"):
        return "lobby"
    if kind == "event":
        return f"room:{frame.get('room')}"
    if kind == "snapshot":
        room = frame.get("room")
        return f"room:{room.get('id') if isinstance(room, dict) else room}"
    return "direct"


class Peer:
    """One transcript connection: every frame received, consumed in document order."""

    def __init__(self, name: str, ws: ClientConnection, codec: Codec) -> None:
        self.name = name
        self.ws = ws
        self.codec = codec
        self.inbox: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def send(self, body: dict[str, Any]) -> None:
        data = self.codec.encode(body)  # type: ignore[arg-type]  # plain data encodes too
        await self.ws.send(data, text=self.codec.text)

    async def _read(self) -> None:
        async for data in self.ws:
            kind = "text" if self.codec.text else "binary"
            assert isinstance(data, str if self.codec.text else bytes), (
                f"{self.name} ({self.codec.subprotocol}) got a frame that is not {kind}"
            )
            self.codec.decode_server(data)  # every frame is a valid message of the protocol
            if isinstance(data, str):
                frame = msgspec.json.decode(data)
            else:
                frame = msgspec.msgpack.decode(data)
            self.inbox.append(frame)
            self.arrived.set()

    async def expect(self, step: Step, bound: dict[str, Any]) -> None:
        """Consume the frame ``step`` documents: the first one that matches, provided no
        earlier unconsumed frame of the same stream is skipped over."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECV_TIMEOUT_S
        while True:
            problems = []
            seen: set[str] = set()
            for index, frame in enumerate(self.inbox):
                trial = dict(bound)
                try:
                    match(step.body, frame, trial)
                except Mismatch as exc:
                    problems.append(f"  {json.dumps(frame, default=str)}\n    {exc}")
                    seen.add(stream(frame))
                    continue
                if stream(frame) in seen:
                    raise AssertionError(
                        f"{step}\n{self.name} received it after an earlier frame of the "
                        f"same stream that the document does not show first:\n"
                        + "\n".join(problems)
                    )
                del self.inbox[index]
                bound.update(trial)
                return
            self.arrived.clear()
            left = deadline - loop.time()
            if left <= 0 or self.reader.done():
                got = "\n".join(problems) or "  (nothing)"
                raise AssertionError(f"{step}\n{self.name} has not received it; it got:\n{got}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.reader


async def open_peer(name: str, port: int, codec: Codec, *, ask: bool) -> Peer:
    """A connection speaking ``codec``: asked for by subprotocol when ``ask`` (the
    server must agree), else with no subprotocol at all (MessagePack)."""
    subprotocols = [typing.cast(Any, codec.subprotocol)] if ask else None
    ws = await ws_connect(
        f"ws://127.0.0.1:{port}/",
        compression=None,
        max_size=MAX_SERVER_FRAME,
        subprotocols=subprotocols,
    )
    assert ws.subprotocol == (codec.subprotocol if ask else None)
    return Peer(name, ws, codec)


async def replay(steps: list[Step], port: int, codec: Codec = MSGPACK) -> dict[str, Any]:
    """Run the transcript over real connections, each in ``codec`` unless the transcript
    opens it with another subprotocol; return the variables it bound."""
    peers: dict[str, Peer] = {}
    bound: dict[str, Any] = {}
    try:
        for step in steps:
            if step.action == "open":
                assert step.conn not in peers, f"{step}: already open"
                chosen = ENCODINGS[step.body["subprotocol"]]
                peers[step.conn] = await open_peer(step.conn, port, chosen, ask=True)
                continue
            if step.action == "close":
                peer = peers.pop(step.conn)
                await asyncio.sleep(0.05)
                assert not peer.inbox, f"{step}: {peer.name} had unshown frames {peer.inbox}"
                await peer.close()
                continue
            if step.conn not in peers:
                ask = codec is not MSGPACK  # MessagePack is what a client gets by asking nothing
                peers[step.conn] = await open_peer(step.conn, port, codec, ask=ask)
            peer = peers[step.conn]
            if step.sends:
                # Quick match gives Black to whoever queued first, by the server's
                # millisecond clock; a pause keeps two sends out of one millisecond.
                await asyncio.sleep(0.003)
                await peer.send(substitute(step.body, bound))
            else:
                await peer.expect(step, bound)
        await asyncio.sleep(0.2)
        for peer in peers.values():
            assert not peer.inbox, (
                f"{peer.name} received frames the transcript does not show: {peer.inbox}"
            )
    finally:
        for peer in peers.values():
            await peer.close()
    return bound
