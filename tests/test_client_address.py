"""Every form of a server address a player pastes, read as one value and written back."""

from __future__ import annotations

import pytest

from client.address import AddressError, ServerAddress


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("localhost", ServerAddress("localhost", 8765)),
        ("192.168.1.20:9000", ServerAddress("192.168.1.20", 9000)),
        ("Example.ORG", ServerAddress("example.org", 8765)),
        ("ws://192.168.1.20:8765", ServerAddress("192.168.1.20", 8765)),
        ("ws://host:9000/", ServerAddress("host", 9000)),
        (
            "wss://play.example.org:8443/gomoku",
            ServerAddress("play.example.org", 8443, "wss", "/gomoku"),
        ),
        ("[::1]:8765", ServerAddress("::1", 8765)),
        ("[::1]", ServerAddress("::1", 8765)),
        ("::1", ServerAddress("::1", 8765)),
        ("ws://[fe80::1]:9000/x", ServerAddress("fe80::1", 9000, "ws", "/x")),
        ("http://host:8765/", ServerAddress("host", 8765)),
        ("HTTP://host:8765", ServerAddress("host", 8765)),
        ("https://gomoku.example.org/", ServerAddress("gomoku.example.org", 443, "wss")),
        (
            "https://gomoku.example.org/arena/",
            ServerAddress("gomoku.example.org", 443, "wss", "/arena/"),
        ),
        ("ws://host", ServerAddress("host", 80)),
        ("  host:1 \n", ServerAddress("host", 1)),
        ("http://host:8765/#top", ServerAddress("host", 8765)),
    ],
)
def test_parse_then_format_gives_the_same_address(text: str, expected: ServerAddress) -> None:
    """Each pasted form reads as the address it names; its URL reads back to it."""
    address = ServerAddress.parse(text)
    assert address == expected
    assert ServerAddress.parse(address.url) == address
    assert ServerAddress.parse(address.display) == address
    assert eval(repr(address)) == address  # the repr round-trips


def test_display_and_key_keep_plain_addresses_short() -> None:
    """A plain ws:// address shows (and keys its token) as host:port, as before; one
    with TLS or a path shows the whole URL."""
    plain = ServerAddress.parse("ws://[::1]:8765/")
    assert plain.display == plain.key == "[::1]:8765"
    assert plain.url == "ws://[::1]:8765/"
    tls = ServerAddress.parse("https://example.org/arena")
    assert tls.display == tls.key == "wss://example.org:443/arena"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("my host", "space"),
        ("ftp://host", "ftp:// is not a server address"),
        ("host:0", "not a port number"),
        ("host:65536", "not a port number"),
        ("host:http", "not a port number"),
        ("host:", "not a port number"),
        (":8765", "no host name"),
        ("[::1", "like [::1]:8765"),
        ("[nonsense]:80", "not an IPv6 address"),
        ("ws://::1:80", "in brackets"),
        ("bad:port:x", "not an address like HOST:PORT"),
        ("user@host", "user name"),
        ("-host", "not a host name"),
        ("ho$t", "not a host name"),
    ],
)
def test_malformed_addresses_say_what_is_wrong(text: str, says: str) -> None:
    """A malformed address is refused with one line naming the fault."""
    with pytest.raises(AddressError, match=says.replace("[", r"\[").replace("]", r"\]")) as caught:
        ServerAddress.parse(text)
    assert "\n" not in str(caught.value)
