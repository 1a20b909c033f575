"""The server's own frame writer against websockets' frames, at each length form."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from server.frames import unmasked_frame


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 200_000])
@pytest.mark.parametrize("text", [True, False])
def test_unmasked_frame_is_the_frame_websockets_builds(length: int, text: bool) -> None:
    """Every payload length (7-bit, 16-bit and 64-bit forms) gives websockets' bytes."""
    data = bytes(i % 251 for i in range(length))
    opcode = Opcode.TEXT if text else Opcode.BINARY
    assert unmasked_frame(data, text=text) == Frame(opcode, data).serialize(mask=False)
