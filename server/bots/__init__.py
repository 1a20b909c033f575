"""AI workers as the server sees them: what each offers, which AI seats it plays, and
what happens to those seats when it goes away.

* :mod:`.registry`: the workers of this instance and the seats each holds (no I/O);
* :mod:`.seating`: claiming an AI seat on a worker and seating it in a room;
* :mod:`.watchdog`: silent workers, leases, handing seats over, restoring them after a
  restart;
* :mod:`.hints`: hint requests to workers and their answers.
"""

from server.bots.hints import HintDesk
from server.bots.registry import AiSeat, Worker, WorkerLink, WorkerRegistry, ai_name
from server.bots.seating import AiSeating, Claim
from server.bots.watchdog import Watchdog

__all__ = [
    "AiSeat",
    "AiSeating",
    "Claim",
    "HintDesk",
    "Watchdog",
    "Worker",
    "WorkerLink",
    "WorkerRegistry",
    "ai_name",
]
