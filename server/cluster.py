"""The whole cluster as the store tells it: the instances (each publishes its own
figures with a lease), the AI workers of every instance, the AI seats in play, the AI
pool's queues, the rooms. Read by ``/metrics`` (the cluster-wide gauges) and by
``gomoku-server status`` (:func:`describe`, plain text)."""

from __future__ import annotations

import dataclasses

from server.bots import jobs
from server.bots.seating import cluster_workers
from server.metrics import Metrics
from server.service import now_ms
from server.store import Store
from server.store.pool import QueueDepth


@dataclasses.dataclass(frozen=True)
class Cluster:
    """What the store knows about every instance at one moment."""

    instances: dict[str, jobs.InstanceRecord]
    workers: dict[str, jobs.WorkerRecord]
    seats_in_play: int
    queues: dict[str, QueueDepth]
    rooms: int
    lobby_rooms: int
    games: int
    """Games in progress."""


SILENT_AFTER_MS = 3_000
"""An instance that has not published its figures for this long (it does every second)
is silent: stopped or cut off. It stays listed until its record expires (15 s), but its
players are not counted: they have most likely come back through another instance."""


async def instances(store: Store) -> dict[str, jobs.InstanceRecord]:
    """Every listed instance's published figures (unreadable records are left out)."""
    return jobs.decode_records(await store.instance_infos(now_ms()), jobs.InstanceRecord)


def silent(record: jobs.InstanceRecord, now: int) -> bool:
    """Whether the instance has not been heard from for :data:`SILENT_AFTER_MS`."""
    return bool(record.heard_ms) and now - record.heard_ms > SILENT_AFTER_MS


def unheard(listed: dict[str, jobs.InstanceRecord], now: int) -> set[str]:
    """The names of the ``listed`` instances that are silent at ``now``."""
    return {name for name, record in listed.items() if silent(record, now)}


async def heard_instances(store: Store) -> list[jobs.InstanceRecord]:
    """The instances heard from within :data:`SILENT_AFTER_MS`."""
    now = now_ms()
    return [record for record in (await instances(store)).values() if not silent(record, now)]


async def heard_workers(store: Store) -> dict[str, jobs.WorkerRecord]:
    """The AI workers of the instances heard from: a silent instance's workers are not
    counted, as its connections are not (their records outlived them by 12 s, and the
    cluster's AI seats read as more than there were)."""
    quiet = unheard(await instances(store), now_ms())
    return {
        name: worker
        for name, worker in (await cluster_workers(store)).items()
        if worker.instance not in quiet
    }


async def read_cluster(store: Store) -> Cluster:
    return Cluster(
        instances=await instances(store),
        workers=await cluster_workers(store),
        seats_in_play=len(await store.ai_seats()),
        queues=await store.pool_depths(),
        rooms=await store.count_rooms(),
        lobby_rooms=await store.count_lobby(),
        games=await store.count_games(),
    )


def add_cluster_gauges(metrics: Metrics, store: Store) -> None:
    """The cluster-wide gauges of ``/metrics``, each read from the store when scraped."""

    async def total(field: str) -> int:
        return sum(getattr(record, field) for record in await heard_instances(store))

    async def count_instances() -> int:
        return len(await heard_instances(store))

    async def connections() -> int:
        return await total("connections")

    async def players() -> int:
        return await total("players")

    async def workers() -> int:
        return len(await heard_workers(store))

    async def seats() -> int:
        return sum(record.seats for record in (await heard_workers(store)).values())

    async def seats_in_play() -> int:
        return len(await store.ai_seats())

    async def queue_jobs() -> dict[str, int]:
        series = {}
        for queue, depth in (await store.pool_depths()).items():
            series[f'queue="{queue}",state="waiting"'] = depth.waiting
            series[f'queue="{queue}",state="taken"'] = depth.taken
        return series

    metrics.cluster_gauges.update(
        {
            "gomoku_rooms": store.count_rooms,
            "gomoku_lobby_rooms": store.count_lobby,
            "gomoku_games_in_progress": store.count_games,
            "gomoku_cluster_instances": count_instances,
            "gomoku_cluster_connections": connections,
            "gomoku_cluster_players_online": players,
            "gomoku_cluster_ai_workers": workers,
            "gomoku_cluster_ai_seats": seats,
            "gomoku_cluster_ai_seats_in_play": seats_in_play,
        }
    )
    metrics.cluster_series["gomoku_ai_queue_jobs"] = queue_jobs
    metrics.store_up = store.healthy


def _duration(ms: int) -> str:
    minutes = max(0, ms) // 60_000
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d{hours:02d}h"
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m"


def describe(cluster: Cluster, now: int) -> str:
    """The cluster in plain text: instances, AI workers and pool, rooms."""
    quiet = unheard(cluster.instances, now)
    lines = [
        f"instances: {len(cluster.instances)}"
        + (f" ({len(quiet)} silent: stopped or cut off, not counted)" if quiet else "")
        # Said, not left to be read into a bare 0: an operator who mistyped the URL's
        # database number read an unused store's empty cluster as every server down.
        + ("" if cluster.instances else " (no server publishes to this store: is it the one?)")
    ]
    for name, i in cluster.instances.items():
        lines.append(
            f"  {name}  {i.address}  up {_duration(now - i.started_ms)}  "
            f"connections {i.connections}  players {i.players}  AI workers {i.workers}"
            + (f"  heard {max(0, now - i.heard_ms) / 1000:.0f}s ago" if i.heard_ms else "")
            + ("  SILENT" if name in quiet else "  DRAINING" if i.draining else "")
        )
    heard = [w for w in cluster.workers.values() if w.instance not in quiet]
    seats = sum(w.seats for w in heard)
    lines.append(
        f"AI workers: {len(heard)} ({seats} seats; {cluster.seats_in_play} AI players "
        "in games or waiting for a worker)"
    )
    for name, w in cluster.workers.items():
        called = f" ({w.name})" if w.name else ""
        lines.append(
            f"  {name}{called}  on {w.instance}  holds {w.held}/{w.seats} seats  "
            f"levels {','.join(w.levels)}"
            + ("  (its instance is SILENT: not counted)" if w.instance in quiet else "")
        )
    lines.append("AI queues (jobs waiting / taken):")
    for queue, depth in cluster.queues.items():
        lines.append(f"  {queue:<20} {depth.waiting} / {depth.taken}")
    if not cluster.queues:
        lines.append("  (none used yet)")
    lines.append(
        f"rooms: {cluster.rooms} ({cluster.lobby_rooms} in the lobby); "
        f"games in progress: {cluster.games}"
    )
    return "\n".join(lines) + "\n"
