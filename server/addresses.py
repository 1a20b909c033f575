"""Client addresses: as a trusted proxy names them, and as the per-address limits count
them."""

from __future__ import annotations

import ipaddress

IPV6_PREFIX = 64
"""The per-address limits count an IPv6 client by its /64: a home or a server is given
a whole /64, and each of its addresses had a limit of its own (80 connections from 80
addresses of one /64 all got in, where one address was refused after 64)."""


def forwarded_ip(entry: str) -> str | None:
    """The IP address an ``X-Forwarded-For`` entry names, always written one way (so
    that the per-address limit counts one client once): ``2001:db8::9`` for
    ``2001:DB8::9``, ``2001:0db8::9`` or ``[2001:db8::9]:1001``; ``192.0.2.1`` for
    ``192.0.2.1:80`` or ``::ffff:192.0.2.1``. None when it names no address
    (``unknown``, junk): the entry text itself was the key, so each spelling of one
    address, or each port, had a limit of its own."""
    text = entry.strip()
    if text.startswith("["):  # [v6] or [v6]:port
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def limit_key(address: str) -> str:
    """What the per-address limits count ``address`` as: an IPv6 address by its /64
    (``2001:db8:1:2::/64``), any other as it is (an IPv4 address, or a name the peer had
    instead, as a Unix socket's)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and not ip.is_loopback:
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return address
