"""Client frames read off the socket however they arrive: one whole message to a read
(the server reads it without websockets' parser), split, several to a read, fragmented,
or against the rules (closed as websockets closes them)."""

from __future__ import annotations

import asyncio
import struct

from abuse_fixtures import client_frame, raw_handshake
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

from protocol import messages as m
from protocol.codec import decode_server, encode
from server.app import GomokuServer
from server.wsconn import between_frames


def ping(request: int) -> bytes:
    return client_frame(encode(m.Ping(id=request)))


async def server_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame the server sent: its opcode and payload."""
    async with asyncio.timeout(10):
        head, second = await reader.readexactly(2)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await reader.readexactly(8))
        return head & 0x0F, await reader.readexactly(length)


async def pongs(reader: asyncio.StreamReader, count: int) -> list[int | None]:
    """The request ids of the next ``count`` pongs."""
    answered: list[int | None] = []
    while len(answered) < count:
        opcode, payload = await server_frame(reader)
        assert opcode == 0x2, payload
        message = decode_server(payload)
        if isinstance(message, m.Pong):
            answered.append(message.re)
    return answered


async def close_code(reader: asyncio.StreamReader) -> int:
    """The code of the close frame the server sends next."""
    while True:
        opcode, payload = await server_frame(reader)
        if opcode == 0x8:
            return int(struct.unpack("!H", payload[:2])[0])


async def test_messages_are_answered_however_the_bytes_arrive(server: GomokuServer) -> None:
    """Whole, split byte by byte, two to a write, one and a half to a write: each
    message is answered once, in order."""
    reader, writer = await raw_handshake(server.port)
    writer.write(ping(1))
    for byte in ping(2):
        writer.write(bytes([byte]))
        await writer.drain()
        await asyncio.sleep(0.002)
    writer.write(ping(3) + ping(4))
    sixth = ping(6)
    writer.write(ping(5) + sixth[:3])
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(sixth[3:])
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(ping(7))
    assert await pongs(reader, 7) == [1, 2, 3, 4, 5, 6, 7]
    writer.close()


async def test_messages_handed_over_and_queued_keep_their_order(server: GomokuServer) -> None:
    """Lone messages the waiting reader takes at once, and messages queued while it is
    busy (several to a write, or lone behind them), are answered in the order sent."""
    reader, writer = await raw_handshake(server.port)
    sent = 0
    for turn in range(8):  # 32 messages: within the rate limit's burst
        writer.write(ping(sent + 1))  # lone
        await writer.drain()
        if turn % 2:
            await asyncio.sleep(0.001)  # sometimes the reader waits, sometimes it is busy
        writer.write(ping(sent + 2) + ping(sent + 3))  # two to a read: parsed, queued
        await writer.drain()
        writer.write(ping(sent + 4))  # lone, often behind the two
        await writer.drain()
        sent += 4
    assert await pongs(reader, sent) == list(range(1, sent + 1))
    writer.close()


async def test_the_rest_of_a_frame_is_never_read_as_a_frame_of_its_own(
    server: GomokuServer,
) -> None:
    """A write that ends a frame begun in an earlier one belongs to that frame, even
    when it would be a whole message by itself."""
    reader, writer = await raw_handshake(server.port)
    inner = ping(12)  # the payload, unmasked by a zero mask: not a message
    writer.write(bytes([0x82, 0x80 | len(inner)]) + bytes(4))
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(inner)
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(ping(13))
    opcode, payload = await server_frame(reader)
    assert opcode == 0x2
    assert isinstance(decode_server(payload), m.Error)
    assert await pongs(reader, 1) == [13]
    writer.close()


async def test_a_fragmented_message_is_read_whole(server: GomokuServer) -> None:
    """A message in two fragments, each its own write, is one message; a whole one
    after it is read as usual."""
    reader, writer = await raw_handshake(server.port)
    payload = encode(m.Ping(id=8))
    writer.write(client_frame(payload[:4], first=0x02))  # binary, not final
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(client_frame(payload[4:], first=0x80))  # continuation, final
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(ping(9))
    assert await pongs(reader, 2) == [8, 9]
    writer.close()


async def test_a_whole_message_inside_a_fragmented_one_closes_with_1002(
    server: GomokuServer,
) -> None:
    """A new message where the fragmented one must go on breaks the protocol, even in
    a write of its own."""
    reader, writer = await raw_handshake(server.port)
    writer.write(client_frame(b"\x81", first=0x02))  # binary, not final
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(ping(10))
    assert await close_code(reader) == 1002
    writer.close()


async def test_unmasked_or_reserved_bit_frames_close_with_1002(server: GomokuServer) -> None:
    """A client's frame must be masked and use no reserved bit (none is negotiated)."""
    for frame in (
        bytes([0x82, 2]) + b"\x81\xa0",  # not masked
        client_frame(encode(m.Ping(id=11)), first=0xC2),  # RSV1
    ):
        reader, writer = await raw_handshake(server.port)
        writer.write(frame)
        assert await close_code(reader) == 1002
        writer.close()


async def test_a_text_message_that_is_not_utf8_closes_with_1007(server: GomokuServer) -> None:
    """Text must be UTF-8 (RFC 6455, 8.1), in a frame read whole as elsewhere."""
    reader, writer = await raw_handshake(server.port)
    writer.write(client_frame(b'{"type":"ping","id":1}\xff', first=0x81))
    assert await close_code(reader) == 1007
    writer.close()


def test_the_parser_is_seen_between_frames_only_when_it_is() -> None:
    """The check the reads without the parser stand on follows websockets' parser: a
    version that parses otherwise would send every read through the parser, unseen."""
    protocol = ServerProtocol(state=State.OPEN)
    assert between_frames(protocol)
    frame = Frame(Opcode.BINARY, encode(m.Ping(id=1))).serialize(mask=True)
    for cut in (1, 2, 6, len(frame) - 1):
        protocol.receive_data(frame[:cut])
        assert not between_frames(protocol), cut
        protocol.receive_data(frame[cut:])
        assert between_frames(protocol), cut
    protocol.receive_data(Frame(Opcode.CLOSE, b"\x03\xe8").serialize(mask=True))
    assert not between_frames(protocol)  # closing: the parser only discards
