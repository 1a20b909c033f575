"""The browser client's files over plain HTTP, on the WebSocket port.

The files are the ``web`` package's ``static/`` folder, read once at start-up into a
table keyed by URL path. A request is answered from that table or with 404: no
path from a request ever reaches the file system, so no spelling of ``..`` (encoded,
doubled, with backslashes) can name another file.

Every file is sent with its content type, a strong ``ETag`` and ``Cache-Control:
no-cache`` (the browser keeps it and asks with ``If-None-Match`` whether it changed,
so an upgraded server is never shown with an old page), gzip-compressed when the
client accepts gzip and it makes the file smaller, and with a Content-Security-Policy
that lets the page load and connect to nothing but this server.
"""

from __future__ import annotations

import dataclasses
import email.utils
import gzip
import hashlib
import http
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.handshake import page_host

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".png": "image/png",
}
"""The file types the web client ships; a file of another type is not served."""

INDEX = "/index.html"

_COMPRESSIBLE = ("text/", "image/svg+xml", "application/json", "application/manifest+json")


@dataclasses.dataclass(frozen=True)
class StaticFile:
    """One file as it is served."""

    body: bytes
    content_type: str
    etag: str
    gzipped: bytes | None
    """The body gzip-compressed, if that is smaller."""


def wants_websocket(request: Request) -> bool:
    """Whether a request asks for the WebSocket upgrade (anything else is plain HTTP)."""
    upgrade = request.headers.get("Upgrade", "")
    return "websocket" in upgrade.lower()


def accepts_gzip(headers: Headers) -> bool:
    """Whether ``Accept-Encoding`` allows gzip (by name or ``*``, with a q above 0)."""
    for item in headers.get("Accept-Encoding", "").split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() not in ("gzip", "x-gzip", "*"):
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            return True
    return False


def content_security_policy(host: str | None) -> str:
    """The page may load scripts, styles and images only from this server and connect
    only to its WebSocket; nothing inline, no frames, no forms, no plugins. (CSP 3 lets
    ``'self'`` match ``ws:``/``wss:`` on the page's own host and port; the explicit
    sources also cover browsers that predate it; CSP's grammar has no IPv6 literal, so
    a page reached at one, ``[::1]:8765``, gets ``'self'`` alone: Chromium logged the
    explicit sources as invalid on every load.)"""
    plain = host is not None and not host.startswith("[")
    connect = f"'self' ws://{host} wss://{host}" if plain else "'self'"
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "manifest-src 'self'",
            f"connect-src {connect}",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


def _walk(folder: Traversable, prefix: str = "") -> Iterator[tuple[str, Traversable]]:
    for entry in folder.iterdir():
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            yield from _walk(entry, name)
        elif entry.is_file():
            yield name, entry


def _static_file(name: str, body: bytes) -> StaticFile | None:
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name.rsplit("/", 1)[-1] else ""
    content_type = CONTENT_TYPES.get(suffix)
    if content_type is None:
        return None
    gzipped = None
    if content_type.startswith(_COMPRESSIBLE):
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        gzipped = packed if len(packed) < len(body) else None
    etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    return StaticFile(body=body, content_type=content_type, etag=etag, gzipped=gzipped)


class StaticSite:
    """The web client's files, answered from memory."""

    def __init__(self, files: dict[str, StaticFile]) -> None:
        self.files = files

    @classmethod
    def from_folder(cls, folder: Traversable) -> StaticSite:
        files = {}
        for name, entry in _walk(folder):
            found = _static_file(name, entry.read_bytes())
            if found is not None:
                files[name] = found
        return cls(files)

    @classmethod
    def from_package(cls) -> StaticSite:
        """The files shipped in the ``web`` package (``web/static``)."""
        return cls.from_folder(resources.files("web") / "static")

    def respond(self, request: Request) -> Response:
        """The answer to a plain HTTP request: a file, 304, 404 or 405."""
        method = request.method
        if method not in ("GET", "HEAD"):
            response = _plain(http.HTTPStatus.METHOD_NOT_ALLOWED, "only GET and HEAD\n")
            response.headers["Allow"] = "GET, HEAD"
            return response
        path = request.path.split("?", 1)[0].split("#", 1)[0]
        found = self.files.get(INDEX if path == "/" else path)
        if found is None:
            return _plain(http.HTTPStatus.NOT_FOUND, "not found\n")
        headers = Headers(
            [
                ("Date", email.utils.formatdate(usegmt=True)),
                ("Connection", "close"),
                ("Content-Type", found.content_type),
                ("Cache-Control", "no-cache"),
                ("ETag", found.etag),
                ("Vary", "Accept-Encoding"),
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                ("Content-Security-Policy", content_security_policy(page_host(request.headers))),
            ]
        )
        if _matches(request.headers.get("If-None-Match"), found.etag):
            headers["Content-Length"] = "0"
            return Response(304, "Not Modified", headers, b"")
        body = found.body
        if found.gzipped is not None and accepts_gzip(request.headers):
            body = found.gzipped
            headers["Content-Encoding"] = "gzip"
        headers["Content-Length"] = str(len(body))
        return Response(200, "OK", headers, b"" if method == "HEAD" else body)


def _matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weakly, as RFC 9110 says)."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return etag in tags


def _plain(status: http.HTTPStatus, text: str) -> Response:
    body = text.encode()
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Connection", "close"),
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)


def without_body(request: Request, response: Response) -> Response:
    """``response`` as the answer to ``HEAD``: the same headers (Content-Length of the
    body a GET would get), no body."""
    if request.method != "HEAD" or not response.body:
        return response
    return dataclasses.replace(response, body=b"")
