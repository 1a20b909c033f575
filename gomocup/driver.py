"""Drive an external Gomocup ("pbrain") brain from asyncio, in the manner of
python-chess's ``chess.engine``::

    brain = await Brain.popen(["pbrain-gomoku", "--level", "novice"])
    await brain.start(15)
    await brain.info(timeout_turn=1000, rule=0)
    point = await brain.begin()
    point = await brain.turn(Point(7, 8))
    await brain.quit()

Every command has a time limit (``limit``, in seconds). A brain that exits or
closes its output raises :class:`BrainError` (with the last lines it wrote on
stderr, which is read all along and kept a few lines deep); one that says something
that is not the answer asked for raises :class:`BrainBadAnswer`, and one that does
not answer in time :class:`BrainTimeout` (both subclasses). A brain that timed out
can still be used: the answer it owes (a move, an ``OK``) is dropped when it comes,
before the next command's answer is taken (a Gomocup brain cannot be interrupted, and
answers in the end; one that never does stays out of step: quit it). ``MESSAGE``/``DEBUG``
lines are collected in :attr:`Brain.messages` (and passed to
:attr:`Brain.on_message`), never mistaken for answers. A brain asked for a move may
answer ``SUGGEST x,y``: it is answered ``PLAY x,y``, as a Gomocup tournament's
manager does, and the brain's answer to that is its move. A line longer than
:data:`MAX_LINE` bytes is cut there, as the Gomocup protocol allows a manager.

On POSIX a brain runs in a session (and process group) of its own, and
:meth:`Brain.quit` kills the whole group: a brain started through a wrapper script
(``#!/bin/sh`` then ``exec``-less ``java ...``) goes with its wrapper. No wait is
without a time limit.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import re
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from engine.types import Point

DEFAULT_LIMIT = 10.0  # seconds a command may take unless told otherwise
MAX_LINE = 4096
"""Bytes of a line kept; the rest of a longer line is read and dropped."""
STDERR_LINES = 8
"""Lines of a brain's stderr kept (the last ones), each cut to :data:`STDERR_WIDTH`."""
STDERR_WIDTH = 200
READ_SIZE = 65536
_CHATTER = ("MESSAGE", "DEBUG")
_ABOUT_FIELD = re.compile(r'([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"?|([^,]*))')
"""One ``key="value"`` (or ``key=value`` up to a comma) of an ABOUT answer."""

Shape = Callable[[str], bool]
"""Whether an answer line has the shape a command asks for (a move, ``OK``...)."""
_OWN_GROUP = os.name == "posix" and hasattr(os, "killpg")


class BrainError(Exception):
    """The brain crashed, closed its output, or said something that is not an answer."""


class BrainTimeout(BrainError):
    """The brain did not answer within the time allowed."""


class BrainBadAnswer(BrainError):
    """The brain answered, but not with what was asked for (a move, OK)."""


class LineReader:
    """Lines from a stream, with no limit on their length: each is cut to
    ``max_line`` bytes (the rest is read and dropped). Safe to cancel between
    lines and within one: what was read is kept for the next call."""

    def __init__(self, stream: asyncio.StreamReader, max_line: int = MAX_LINE) -> None:
        self.stream = stream
        self.max_line = max_line
        self._lines: collections.deque[bytes] = collections.deque()
        self._partial = bytearray()
        self._eof = False

    async def readline(self) -> bytes | None:
        """The next line without its end (LF; a CR before it stays), or None at the end."""
        while not self._lines:
            if self._eof:
                return None
            chunk = await self.stream.read(READ_SIZE)
            if not chunk:
                self._eof = True
                if self._partial:
                    self._lines.append(bytes(self._partial))
                    self._partial.clear()
                continue
            *complete, rest = chunk.split(b"\n")
            for piece in complete:
                self._keep(piece)
                self._lines.append(bytes(self._partial))
                self._partial.clear()
            self._keep(rest)
        return self._lines.popleft()

    def _keep(self, piece: bytes) -> None:
        room = self.max_line - len(self._partial)
        if room > 0:
            self._partial += piece[:room]


class Brain:
    """A running brain process. Create with :meth:`popen`; always :meth:`quit`."""

    def __init__(self, process: asyncio.subprocess.Process, name: str) -> None:
        self.process = process
        self.name = name
        self.messages: list[str] = []
        self.on_message: Callable[[str], None] | None = None
        """Called with each MESSAGE/DEBUG line (and SUGGEST) as it is read."""
        self.last_elapsed = 0.0  # seconds the last move took, as seen from here
        assert process.stdout is not None
        self._stdout = LineReader(process.stdout)
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        """The last lines the brain wrote on stderr (blank ones left out; each cut to
        :data:`STDERR_WIDTH` bytes)."""
        self._owed: collections.deque[Shape] = collections.deque()
        """The shapes of answers still owed to commands that timed out, oldest first."""
        self._stderr_task: asyncio.Task[None] | None = None
        if process.stderr is not None:
            self._stderr_task = asyncio.ensure_future(self._read_stderr(process.stderr))

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
                stderr=asyncio.subprocess.PIPE,
                # Its own session, so that quit() can kill what a wrapper script started.
                start_new_session=_OWN_GROUP,
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
            return f"{self.name} exited (exit code {code}){await self._stderr_said()}"
        return otherwise

    async def _read_answer(self) -> str:
        while True:
            raw = await self._stdout.readline()
            if raw is None:
                code = await self._exit_code()
                said = await self._stderr_said()
                raise BrainError(f"{self.name} closed its output (exit code {code}){said}")
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            if line.split(" ", 1)[0].upper() in _CHATTER:
                self._chatter(line)
                continue
            if self._owed and self._owed[0](line):
                self._owed.popleft()  # the late answer to a command that timed out
                continue
            return line

    def _chatter(self, line: str) -> None:
        self.messages.append(line)
        del self.messages[:-100]
        if self.on_message is not None:
            self.on_message(line)

    async def _exit_code(self) -> int | None:
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(self.process.wait(), 1.0)
        return None

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        reader = LineReader(stream, STDERR_WIDTH)
        with contextlib.suppress(OSError):
            while (raw := await reader.readline()) is not None:
                if line := raw.decode(errors="replace").rstrip():
                    self.stderr.append(line)

    async def _stderr_said(self, limit: float = 0.3) -> str:
        """``; stderr: ...`` with the last two lines the brain wrote there (after a short
        wait for the pipe to drain), or nothing when it wrote none."""
        task = self._stderr_task
        if task is not None and not task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), limit)
        return stderr_tail(self.stderr)

    async def ask(self, lines: Iterable[str], limit: float, shape: Shape | None = None) -> str:
        """Send ``lines`` and return the next answer line, within ``limit`` seconds. On a
        timeout, the late answer (a line of ``shape``, default any) is owed: it is dropped
        when it comes."""
        for line in lines:
            await self.send(line)
        try:
            return await asyncio.wait_for(self._read_answer(), limit)
        except TimeoutError:
            self._owed.append(shape or _any_line)
            raise BrainTimeout(f"{self.name} did not answer within {limit:.2f} s") from None

    async def _ask_ok(self, lines: Iterable[str], limit: float) -> None:
        answer = await self.ask(lines, limit, _is_ok)
        if answer.upper() != "OK":
            raise BrainBadAnswer(f"{self.name} answered {_cut(answer)!r} instead of OK")

    async def _ask_move(self, lines: Iterable[str], limit: float) -> Point:
        """The move the brain answers ``lines`` with, all within ``limit`` seconds; a
        ``SUGGEST x,y`` is answered ``PLAY x,y`` in that time, and the brain's answer
        to it is the move."""
        start = time.perf_counter()
        answer = await self.ask(lines, limit, _is_move)
        word, _, suggested = answer.partition(" ")
        if word.upper() == "SUGGEST" and _point(suggested) is not None:
            self._chatter(answer)
            left = limit - (time.perf_counter() - start)
            answer = await self.ask([f"PLAY {suggested.strip()}"], max(0.0, left), _is_move)
        self.last_elapsed = time.perf_counter() - start
        point = _point(answer)
        if point is None:
            raise BrainBadAnswer(f"{self.name} answered {_cut(answer)!r} instead of a move x,y")
        return point

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
        """The brain's ABOUT fields (name, version, author, country, ...), read from
        ``key="value"`` pairs (a value without quotes runs to the next comma; a quote
        left open, to the end). An answer without one raises :class:`BrainBadAnswer`."""
        answer = await self.ask(["ABOUT"], limit, _is_about)
        fields = {
            m.group(1): (m.group(2) if m.group(2) is not None else m.group(3)).strip()
            for m in _ABOUT_FIELD.finditer(answer)
        }
        if not fields:
            raise BrainBadAnswer(
                f'{self.name} answered {_cut(answer)!r} instead of ABOUT\'s name="..."'
            )
        return fields

    async def quit(self, *, limit: float = 2.0) -> None:
        """Send END and wait ``limit`` seconds for the process to exit; then kill it
        (on POSIX its whole process group: what a wrapper script started too). Every
        wait has a limit: in all at most twice ``limit`` and 1.2 s."""
        process = self.process
        try:
            if process.returncode is None:
                with contextlib.suppress(BrainError, ConnectionError):
                    await asyncio.wait_for(self.send("END"), limit)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), limit)
        finally:  # even when cancelled meanwhile (a stopped match): nothing may outlive it
            self.kill()  # what is left of its group, even when the brain itself has exited
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 1.0)
        stdin = process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        task = self._stderr_task
        if task is not None and not task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), 0.2)
            task.cancel()

    def kill(self) -> None:
        """Kill the brain at once, with its process group on POSIX (no wait)."""
        process = self.process
        if _OWN_GROUP:
            # os.kill, not process.kill(): Popen.send_signal() polls first, reaping the
            # child behind asyncio's watcher ("Unknown child process pid ...").
            try:
                os.killpg(process.pid, signal.SIGKILL)
                return
            except ProcessLookupError:
                return  # the group is gone: nothing left to kill
            except OSError:
                if process.returncode is None:
                    with contextlib.suppress(OSError):
                        os.kill(process.pid, signal.SIGKILL)
                return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    async def __aenter__(self) -> Brain:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.quit()


def _any_line(line: str) -> bool:
    return True


def _is_ok(line: str) -> bool:
    return line.upper() == "OK"


def _is_move(line: str) -> bool:
    word, _, rest = line.partition(" ")
    return _point(line) is not None or (word.upper() == "SUGGEST" and _point(rest) is not None)


def _is_about(line: str) -> bool:
    return _ABOUT_FIELD.search(line) is not None


def _point(text: str) -> Point | None:
    """``x,y`` as a brain writes a move (0-based, no sign), or None."""
    parts = text.split(",")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        return None
    return Point(int(parts[0]), int(parts[1]))


def brain_command(text: str) -> str:
    """A brain's command line, split as it will be run (shell quoting), whose program
    can run here: a program named by a path (``/opt/brains/pbrain-x``, ``./pbrain-x``)
    must be an executable file there; a bare name is looked up on PATH, then beside
    this Python (the programs installed with this one, such as ``pbrain-gomoku``, where
    the environment is not activated), and then given by its path. Raises
    :class:`ValueError` with one line saying what is wrong."""
    try:
        words = shlex.split(text)
    except ValueError as error:  # "No closing quotation"
        raise ValueError(f"{text!r}: {str(error).lower()}") from None
    if not words:
        raise ValueError("an empty command")
    program = words[0]
    if shutil.which(program) is not None:
        return text
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        path = Path(program)
        if not path.exists():
            why = "no such command"
        elif path.is_dir():
            why = "a directory, not a program"
        else:
            why = "not an executable file"
        raise ValueError(f"{program!r}: {why}")
    beside = Path(sys.executable).with_name(program)  # pbrain-gomoku in a venv not activated
    if shutil.which(beside) is not None:
        return shlex.join([str(beside), *words[1:]])
    raise ValueError(f"{program!r}: no such command")


def _cut(answer: str, width: int = 80) -> str:
    return answer if len(answer) <= width else answer[: width - 3] + "..."


def stderr_tail(lines: Iterable[str], count: int = 2, width: int = 120) -> str:
    """``; stderr: LINE | LINE`` from the last ``count`` of ``lines`` that are not
    indented (the headline of a Python or Java traceback, argparse's usage and error,
    not the stack frames or a usage line's continuation), each cut to ``width``; or
    ``""`` for none."""
    lines = list(lines)
    kept = [line for line in lines if line[:1].strip()] or [line.strip() for line in lines]
    last = [_cut(line, width) for line in kept[-count:]]
    return f"; stderr: {' | '.join(last)}" if last else ""
