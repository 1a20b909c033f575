"""Drive an external Gomocup ("pbrain") brain from asyncio, in the manner of
python-chess's ``chess.engine``::

    brain = await Brain.popen(["pbrain-gomoku", "--level", "novice"])
    await brain.start(15)
    await brain.info(timeout_turn=1000, rule=0)
    point = await brain.begin()
    point = await brain.turn(Point(7, 8))
    await brain.quit()

Every command has a time limit (``limit``, in seconds). A brain that exits or
closes its output raises :class:`BrainError`; one that does not answer in time raises
:class:`BrainTimeout` (a subclass). ``MESSAGE``/``DEBUG``/``SUGGEST`` lines
are collected in :attr:`Brain.messages`, never mistaken for answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import time
from collections.abc import Iterable, Sequence

from engine.types import Point

DEFAULT_LIMIT = 10.0  # seconds a command may take unless told otherwise
_CHATTER = ("MESSAGE", "DEBUG", "SUGGEST")


class BrainError(Exception):
    """The brain crashed, closed its output, or said something that is not an answer."""


class BrainTimeout(BrainError):
    """The brain did not answer within the time allowed."""


class Brain:
    """A running brain process. Create with :meth:`popen`; always :meth:`quit`."""

    def __init__(self, process: asyncio.subprocess.Process, name: str) -> None:
        self.process = process
        self.name = name
        self.messages: list[str] = []
        self.last_elapsed = 0.0  # seconds the last move took, as seen from here

    @classmethod
    async def popen(cls, command: str | Sequence[str], *, name: str | None = None) -> Brain:
        """Start the brain ``command`` (a list of arguments, or a string split like a shell)."""
        args = shlex.split(command) if isinstance(command, str) else list(command)
        if not args:
            raise BrainError("empty brain command")
        try:
            process = await asyncio.create_subprocess_exec(
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
        except OSError as error:
            raise BrainError(f"cannot start {args[0]}: {error}") from error
        return cls(process, name or " ".join(args))

    # -- wire ---------------------------------------------------------------

    async def send(self, line: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        if stdin.is_closing():
            raise BrainError(await self._gone(f"{self.name}: its input is closed"))
        try:
            stdin.write((line + "\n").encode())
            await stdin.drain()
        except (BrainError, ConnectionError) as error:
            raise BrainError(
                await self._gone(f"{self.name}: cannot send {line!r}: {error}")
            ) from error

    async def _gone(self, otherwise: str) -> str:
        """Why nothing can be sent: the brain exited (with its code), else ``otherwise``."""
        with contextlib.suppress(TimeoutError):
            code = await asyncio.wait_for(self.process.wait(), 0.2)
            return f"{self.name} exited (exit code {code})"
        return otherwise

    async def _read_answer(self) -> str:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            raw = await stdout.readline()
            if not raw:
                code = await self._exit_code()
                raise BrainError(f"{self.name} closed its output (exit code {code})")
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            if line.split(" ", 1)[0].upper() in _CHATTER:
                self.messages.append(line)
                del self.messages[:-100]
                continue
            return line

    async def _exit_code(self) -> int | None:
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(self.process.wait(), 1.0)
        return None

    async def ask(self, lines: Iterable[str], limit: float) -> str:
        """Send ``lines`` and return the next answer line, within ``limit`` seconds."""
        for line in lines:
            await self.send(line)
        try:
            return await asyncio.wait_for(self._read_answer(), limit)
        except TimeoutError:
            raise BrainTimeout(f"{self.name} did not answer within {limit:.2f} s") from None

    async def _ask_ok(self, lines: Iterable[str], limit: float) -> None:
        answer = await self.ask(lines, limit)
        if answer.upper() != "OK":
            raise BrainError(f"{self.name} answered {answer!r} instead of OK")

    async def _ask_move(self, lines: Iterable[str], limit: float) -> Point:
        start = time.perf_counter()
        answer = await self.ask(lines, limit)
        self.last_elapsed = time.perf_counter() - start
        parts = answer.split(",")
        if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
            raise BrainError(f"{self.name} answered {answer!r} instead of a move x,y")
        return Point(int(parts[0]), int(parts[1]))

    # -- commands -----------------------------------------------------------

    async def start(self, size: int, *, limit: float = DEFAULT_LIMIT) -> None:
        await self._ask_ok([f"START {size}"], limit)

    async def restart(self, *, limit: float = DEFAULT_LIMIT) -> None:
        await self._ask_ok(["RESTART"], limit)

    async def info(self, **settings: int | str) -> None:
        """Send ``INFO key value`` lines (no answer is expected)."""
        for key, value in settings.items():
            await self.send(f"INFO {key} {value}")

    async def begin(self, *, limit: float = DEFAULT_LIMIT) -> Point:
        return await self._ask_move(["BEGIN"], limit)

    async def turn(self, point: Point, *, limit: float = DEFAULT_LIMIT) -> Point:
        return await self._ask_move([f"TURN {point.x},{point.y}"], limit)

    async def board(
        self, stones: Iterable[tuple[Point, int]], *, limit: float = DEFAULT_LIMIT
    ) -> Point:
        """Send a whole position (field 1 = the brain's own stone, 2 = the opponent's)
        and return the brain's move."""
        lines = ["BOARD", *(f"{p.x},{p.y},{owner}" for p, owner in stones), "DONE"]
        return await self._ask_move(lines, limit)

    async def takeback(self, point: Point, *, limit: float = DEFAULT_LIMIT) -> None:
        await self._ask_ok([f"TAKEBACK {point.x},{point.y}"], limit)

    async def about(self, *, limit: float = DEFAULT_LIMIT) -> dict[str, str]:
        """The brain's ABOUT fields (name, version, author, country, ...)."""
        answer = await self.ask(["ABOUT"], limit)
        fields: dict[str, str] = {}
        for part in shlex.split(answer.replace(",", " ")):
            key, eq, value = part.partition("=")
            if eq:
                fields[key.strip()] = value.strip()
        return fields

    async def quit(self, *, limit: float = 2.0) -> None:
        """Send END and wait for the process to exit; kill it if it lingers."""
        process = self.process
        if process.returncode is None:
            with contextlib.suppress(BrainError, ConnectionError):
                await self.send("END")
            try:
                await asyncio.wait_for(process.wait(), limit)
            except TimeoutError:
                process.kill()
                await process.wait()
        stdin = process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    async def __aenter__(self) -> Brain:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.quit()
