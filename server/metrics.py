"""Counters and gauges, written out in the Prometheus text format by hand
(a handful of numbers does not need a client library)."""

from __future__ import annotations

import collections
from collections.abc import Callable

_HELP = {
    "gomoku_connections": ("gauge", "Open WebSocket connections."),
    "gomoku_players_online": ("gauge", "Players with at least one open connection here."),
    "gomoku_rooms": ("gauge", "Rooms in the store (memory store) or followed here."),
    "gomoku_rooms_created_total": ("counter", "Rooms created."),
    "gomoku_games_started_total": ("counter", "Games started."),
    "gomoku_games_finished_total": ("counter", "Games finished."),
    "gomoku_moves_total": ("counter", "Moves accepted."),
    "gomoku_games_archived_total": ("counter", "Finished games archived (record, ratings)."),
    "gomoku_archive_failures_total": (
        "counter",
        "Attempts to archive a finished game that failed (retried later).",
    ),
    "gomoku_outages_total": ("counter", "Outages found by this instance (no server beat)."),
    "gomoku_messages_total": ("counter", "Client messages received."),
    "gomoku_errors_total": ("counter", "Error frames sent, by code."),
    "gomoku_errors_internal_total": (
        "counter",
        "Unexpected exceptions in message handlers and background work.",
    ),
    "gomoku_slow_readers_dropped_total": (
        "counter",
        "Connections dropped because they did not read their frames.",
    ),
    "gomoku_refused_per_ip_total": (
        "counter",
        "Connections refused because their address had too many open.",
    ),
    "gomoku_refused_origin_total": (
        "counter",
        "WebSocket handshakes refused because a page from another web origin made them.",
    ),
    "gomoku_ai_workers": ("gauge", "AI workers connected here."),
    "gomoku_ai_seats": ("gauge", "Games the connected AI workers offer to play at once."),
    "gomoku_ai_seats_busy": ("gauge", "AI seats in play (or waiting for a worker)."),
    "gomoku_ai_handovers_total": ("counter", "AI seats handed to another worker."),
    "gomoku_hints_total": ("counter", "Hints answered."),
}


class Metrics:
    """Counters the server bumps, and gauges read when ``/metrics`` is scraped."""

    def __init__(self) -> None:
        self.counters: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        self.gauges: dict[str, Callable[[], int]] = {}

    def inc(self, name: str, amount: int = 1) -> None:
        self.counters[name] += amount

    def error(self, code: str) -> None:
        self.errors[code] += 1

    def render(self) -> str:
        lines: list[str] = []
        for name, (kind, text) in _HELP.items():
            lines.append(f"# HELP {name} {text}")
            lines.append(f"# TYPE {name} {kind}")
            if name == "gomoku_errors_total":
                for code, count in sorted(self.errors.items()):
                    lines.append(f'{name}{{code="{code}"}} {count}')
                if not self.errors:
                    lines.append(f'{name}{{code="none"}} 0')
            elif name in self.gauges:
                lines.append(f"{name} {self.gauges[name]()}")
            else:
                lines.append(f"{name} {self.counters[name]}")
        return "\n".join(lines) + "\n"
