"""AI workers as the server sees them: what each offers, which AI seats it plays, and
what happens to those seats when it goes away.

* :mod:`.registry`: the workers of this instance and the seats each holds (no I/O);
* :mod:`.seating`: claiming an AI seat within the cluster's capacity, seating it in a
  room, and giving a seat taken from the pool to a worker of this instance;
* :mod:`.watchdog`: silent workers, leases, handing seats over, restoring them after a
  restart;
* :mod:`.hints`: hints through the pool, and the hint jobs this instance's workers answer;
* :mod:`.jobs`: the pool's jobs and the records instances publish (values only);
* :mod:`.taker`: this instance's side of the shared AI pool (publishing its workers,
  taking jobs for them).
"""

from server.bots.hints import HintDesk
from server.bots.registry import AiSeat, Worker, WorkerLink, WorkerRegistry, ai_name
from server.bots.seating import AiSeating, Claim
from server.bots.taker import JobTaker
from server.bots.watchdog import Watchdog

__all__ = [
    "AiSeat",
    "AiSeating",
    "Claim",
    "HintDesk",
    "JobTaker",
    "Watchdog",
    "Worker",
    "WorkerLink",
    "WorkerRegistry",
    "ai_name",
]
