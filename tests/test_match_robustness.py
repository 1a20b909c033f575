"""``gomoku match`` (and ``gomoku analyze``) against brains that misbehave: real
processes, written by the test into ``tmp_path``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import alive

from gomocup.driver import Brain, BrainTimeout
from gomocup.match import run_match

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and sh wrappers")

# A brain that plays the first empty point in reading order, with flags for the ways
# a brain can go wrong: --sleep MS before each move, --log FILE (every line received),
# --pidfile FILE (its pid, appended), --stuck (never answers a move, ignores SIGTERM),
# --deaf (ignores SIGINT, SIGTERM and END), --bigline (a 100,000-character MESSAGE
# before each move), --garbage (answers its 2nd move with "hello there"), --norestart
# (answers RESTART with UNKNOWN), --fail (a line on stderr, exit 2 at once), --crash
# (a line on stderr, exit 3 at its 2nd move).
BRAIN = textwrap.dedent(
    """
    import os, signal, sys, time
    args = sys.argv[1:]
    def opt(name, default=None):
        return args[args.index(name) + 1] if name in args else default
    if opt("--pidfile"):
        with open(opt("--pidfile"), "a") as f:
            f.write(f"{os.getpid()}\\n")
    deaf = "--deaf" in args
    if deaf or "--stuck" in args:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if deaf:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if "--fail" in args:
        print("usage: brain [--level L]", file=sys.stderr)
        print("brain: error: no level called 'wizard'", file=sys.stderr, flush=True)
        sys.exit(2)
    log = open(opt("--log"), "a") if opt("--log") else None
    sleep = int(opt("--sleep", "0")) / 1000
    size, stones, moves = 15, set(), 0
    def answer():
        global moves
        moves += 1
        if "--stuck" in args:
            while True:
                time.sleep(1)
        if "--crash" in args and moves >= 2:
            print("ZeroDivisionError: something broke", file=sys.stderr, flush=True)
            sys.exit(3)
        time.sleep(sleep)
        if "--bigline" in args:
            print("MESSAGE " + "x" * 100000, flush=True)
        if "--garbage" in args and moves >= 2:
            print("hello there", flush=True)
            return
        print(f"MESSAGE move {moves}", flush=True)
        for y in range(size):
            for x in range(size):
                if (x, y) not in stones:
                    stones.add((x, y))
                    print(f"{x},{y}", flush=True)
                    return
    reading = False
    for line in sys.stdin:
        if log:
            log.write(line)
            log.flush()
        words = line.strip().split(" ")
        command = words[0].upper()
        if reading:
            if command == "DONE":
                reading = False
                answer()
            else:
                x, y, _ = (int(v) for v in line.split(","))
                stones.add((x, y))
        elif command == "START":
            print("OK", flush=True)
        elif command == "RESTART":
            if "--norestart" in args:
                print("UNKNOWN RESTART", flush=True)
            else:
                stones.clear()
                moves = 0
                print("OK", flush=True)
        elif command == "BOARD":
            stones.clear()
            reading = True
        elif command == "BEGIN":
            answer()
        elif command == "TURN":
            x, y = (int(v) for v in words[1].split(","))
            stones.add((x, y))
            answer()
        elif command == "END":
            if deaf:
                continue
            break
    while deaf:
        time.sleep(1)
    """
)

GOMOKU = str(Path(sys.executable).with_name("gomoku"))


def brain(tmp_path: Path, *flags: str) -> str:
    script = tmp_path / "brain.py"
    script.write_text(BRAIN)
    return " ".join([sys.executable, str(script), *flags])


@contextlib.contextmanager
def brain_pids(path: Path) -> Iterator[Path]:
    """A pid file for brains to write; whatever is still running at the end is killed
    (so that a failing test leaves nothing behind)."""
    try:
        yield path
    finally:
        for pid in pids(path):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def gone(pid: int, within_s: float = 3.0) -> bool:
    """Whether ``pid`` has stopped running within ``within_s``: a SIGKILL sent to a
    process group is delivered at once, but a brain behind a wrapper dies on its own time
    (nobody waits for it: its parent, the wrapper, is what was awaited)."""
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def match(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GOMOKU, "match", *args], capture_output=True, text=True, timeout=timeout)


# -- 1: a brain behind a wrapper script ------------------------------------------


def test_a_hung_brain_behind_a_wrapper_script_loses_on_time_and_is_killed(
    tmp_path: Path,
) -> None:
    """``#!/bin/sh`` + ``python3 stuck.py``: the match hung for ever (only ``sh`` was
    killed, then waited on with no limit while the brain held the pipe) and the brain
    was left running. Now the whole process group goes and the game is a timeout loss."""
    with brain_pids(tmp_path / "pids") as pidfile:
        wrapper = tmp_path / "stuck.sh"
        wrapper.write_text(f"#!/bin/sh\n{brain(tmp_path, '--stuck', '--pidfile', str(pidfile))}\n")
        wrapper.chmod(0o755)
        start = time.monotonic()
        done = match(
            "--engine-a", brain(tmp_path), "--engine-b", str(wrapper), "--games", "2",
            "--turn-ms", "300", "--tolerance-ms", "200", timeout=40,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert time.monotonic() - start < 20
        assert done.stdout.count("B timeout: engine B did not answer within 0.50 s") == 4
        assert len(pids(pidfile)) == 2
        assert all(gone(pid) for pid in pids(pidfile))


async def test_quit_ends_a_hung_brain_behind_a_wrapper_within_its_limit(tmp_path: Path) -> None:
    """What ``gomoku-ai --brain`` (worker/brain.py) does with a brain that timed out:
    ``quit(limit=0.5)``. It waited for ever, the brain holding the pipe."""
    with brain_pids(tmp_path / "pids") as pidfile:
        wrapper = tmp_path / "stuck.sh"
        wrapper.write_text(f"#!/bin/sh\n{brain(tmp_path, '--stuck', '--pidfile', str(pidfile))}\n")
        wrapper.chmod(0o755)
        hung = await Brain.popen(str(wrapper))
        await hung.start(15, limit=10)
        with pytest.raises(BrainTimeout):
            await hung.begin(limit=0.3)
        await asyncio.wait_for(hung.quit(limit=0.5), 5)
        [pid] = pids(pidfile)
        assert gone(pid)


async def test_a_quit_cancelled_half_way_still_kills_the_brain(tmp_path: Path) -> None:
    """A stopped match cancels a brain's quit while it waits for a brain that ignores
    END: the brain is killed all the same (it outlived the match)."""
    with brain_pids(tmp_path / "pids") as pidfile:
        deaf = await Brain.popen(brain(tmp_path, "--deaf", "--pidfile", str(pidfile)))
        await deaf.start(15, limit=10)
        quitting = asyncio.ensure_future(deaf.quit(limit=5))
        await asyncio.sleep(0.3)  # waiting for the brain to exit after END
        quitting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await quitting
        [pid] = pids(pidfile)
        await asyncio.wait_for(deaf.process.wait(), 5)  # killed: it ignores END and SIGTERM
        assert not alive(pid)


# -- 2: a line longer than 64 KiB ---------------------------------------------------


async def test_a_line_longer_than_64_kib_is_cut_not_a_crash(tmp_path: Path) -> None:
    """A 100,000-character MESSAGE line raised ValueError out of the whole match."""
    result = await run_match(
        brain(tmp_path, "--bigline"), brain(tmp_path), [[]], games=2, turn_ms=2000
    )
    assert [(g.black, g.winner) for g in result.games] == [("A", "A"), ("B", "B")]
    long = [m for m in result.messages["A"] if m.startswith("MESSAGE xxx")]
    assert long
    assert all(len(m) <= 8192 for m in long)


# -- 3: Ctrl-C or SIGTERM during a match -------------------------------------------


@pytest.mark.parametrize(
    ("signum", "jobs", "status"),
    [(signal.SIGINT, "1", 130), (signal.SIGINT, "2", 130), (signal.SIGTERM, "1", 143)],
)
def test_a_stopped_match_kills_its_brains_and_prints_the_table(
    tmp_path: Path, signum: int, jobs: str, status: int
) -> None:
    """Ctrl-C printed two chained tracebacks and no table; SIGTERM left a deaf brain
    running. Now: the table of the games finished, one line, status 130 (143)."""
    with brain_pids(tmp_path / "pids") as pidfile:
        deaf = brain(tmp_path, "--deaf", "--sleep", "150", "--pidfile", str(pidfile))
        process = subprocess.Popen(
            [GOMOKU, "match", "--engine-a", brain(tmp_path), "--engine-b", deaf,
             "--games", "20", "--jobs", jobs],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            assert first.startswith("game "), first
            process.send_signal(signum)
            out, err = process.communicate(timeout=20)
        finally:
            process.kill()
            process.wait()
        assert process.returncode == status, err
        assert "Traceback" not in err
        assert "A total" in out
        assert len(err.splitlines()) == 1, err
        line = err.strip()
        assert "the match was stopped" in line, line
        assert "of 20 games" in line, line
        assert pids(pidfile)
        assert all(gone(pid) for pid in pids(pidfile))


# -- 4: Ctrl-C during gomoku analyze --time ------------------------------------------


def test_ctrl_c_stops_analyze_at_once(tmp_path: Path) -> None:
    """The KeyboardInterrupt was raised in a callback of the compiled search, which
    printed "Exception ignored" and searched on."""
    process = subprocess.Popen(
        [GOMOKU, "analyze", "--moves", "h8 i9 h9", "--time", "40", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        time.sleep(4)
        process.send_signal(signal.SIGINT)
        stopped = time.monotonic()
        out, err = process.communicate(timeout=15)
        took = time.monotonic() - stopped
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, err
    assert took < 5
    assert "Exception ignored" not in err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    assert out == ""


# -- 5: the game clock -------------------------------------------------------------


async def test_the_game_clock_is_enforced_without_the_tolerance(tmp_path: Path) -> None:
    """With --match-ms 1000 a brain taking 300 ms a move used 1.8 s and never lost on
    time (the tolerance was added to the whole clock), and was told negative clocks."""
    log = tmp_path / "late.log"
    result = await run_match(
        brain(tmp_path),
        brain(tmp_path, "--sleep", "300", "--log", str(log)),
        [[]],
        games=2,
        turn_ms=1000,
        tolerance_ms=1000,
        match_ms=1000,
    )
    for game in result.games:
        assert game.winner == "A"
        assert "B out of time: its game clock of 1.00 s ran out" in game.reason, game.reason
        assert len(game.times["B"]) <= 3
    lefts = [int(line.split()[2]) for line in log.read_text().splitlines()
             if line.startswith("INFO time_left")]  # fmt: skip
    assert lefts
    assert min(lefts) >= 0


# -- 6: UNKNOWN to RESTART ------------------------------------------------------------


async def test_a_brain_without_restart_gets_a_fresh_process(tmp_path: Path) -> None:
    """``UNKNOWN RESTART`` stopped the match as "failed to start"."""
    with brain_pids(tmp_path / "pids") as pidfile:
        result = await run_match(
            brain(tmp_path),
            brain(tmp_path, "--norestart", "--pidfile", str(pidfile)),
            [[]],
            games=4,
            turn_ms=2000,
        )
        assert len(result.games) == 4
        assert not any(g.unstarted for g in result.games)
        assert [g.winner for g in result.games] == ["A", "B", "A", "B"]
        assert len(pids(pidfile)) == 4


# -- 7: a brain's stderr ----------------------------------------------------------------


def test_why_a_brain_failed_to_start_is_told_from_its_stderr(tmp_path: Path) -> None:
    """Its stderr went to /dev/null: only "closed its output (exit code 2)"."""
    done = match("--engine-a", brain(tmp_path, "--fail"), "--engine-b", brain(tmp_path))
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert "A failed to start: engine A closed its output (exit code 2)" in line, line
    assert "brain: error: no level called 'wizard'" in line, line


async def test_a_crash_says_what_the_brain_wrote_on_stderr(tmp_path: Path) -> None:
    result = await run_match(brain(tmp_path, "--crash"), brain(tmp_path), [[]], games=1)
    [game] = result.games
    assert game.reason.startswith("A crash: engine A closed its output (exit code 3)")
    assert "ZeroDivisionError: something broke" in game.reason


# -- 8: records and messages ------------------------------------------------------------


def test_save_writes_records_that_review_and_analyze_read(tmp_path: Path) -> None:
    """No records were written, and MESSAGE lines were never shown."""
    games = tmp_path / "games"
    done = match(
        "--engine-a", brain(tmp_path), "--engine-b", brain(tmp_path, "--garbage"),
        "--games", "2", "--save", str(games), "--messages",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[A game 1] MESSAGE move 1" in done.stdout
    assert "[B game 2] MESSAGE move 1" in done.stdout
    assert sorted(p.name for p in games.iterdir()) == ["game-1.json", "game-2.json"]
    first = json.loads((games / "game-1.json").read_text())
    assert first["format"] == "gomoku-arena-record"
    # B (White) answered its 2nd move with a non-move: a loss off the board
    assert first["result"] == {"winner": "black", "reason": "abandon"}
    assert first["players"]["black"].startswith("A: ")
    exported = tmp_path / "game-1.txt"
    review = subprocess.run(
        [GOMOKU, "review", str(games / "game-1.json"), "--export", str(exported)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert review.returncode == 0, review.stderr
    assert exported.read_text().split() == [m["move"] for m in first["moves"]]
    analyzed = subprocess.run(
        [GOMOKU, "analyze", "--record", str(games / "game-2.json"), "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert analyzed.returncode == 0, analyzed.stderr
    second = json.loads((games / "game-2.json").read_text())
    position = json.loads(analyzed.stdout)
    assert position["moves"] == len(second["moves"])
    assert position["last_move"] == second["moves"][-1]["move"]


# -- 9: wording -------------------------------------------------------------------------


async def test_a_non_move_is_a_bad_answer_not_a_crash(tmp_path: Path) -> None:
    result = await run_match(brain(tmp_path, "--garbage"), brain(tmp_path), [[]], games=1)
    [game] = result.games
    assert game.reason == "A bad answer: engine A answered 'hello there' instead of a move x,y"


def test_an_openings_file_with_no_openings_is_refused(tmp_path: Path) -> None:
    openings = tmp_path / "none.txt"
    openings.write_text("# only a comment\n\n")
    done = match("--engine-a", "true", "--engine-b", "true", "--openings", str(openings))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"gomoku match: {openings}: no openings in the file"]


def test_openings_are_numbered_from_1_in_errors_and_in_progress_lines(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("# two openings\n7,7\n7,7 7,7\n")
    done = match("--engine-a", "true", "--engine-b", "true", "--openings", str(openings))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"gomoku match: {openings}:3: opening 2: h8 is occupied"]
    openings.write_text("# two openings\n7,7\n\n8,8\n")
    done = match(
        "--engine-a", brain(tmp_path), "--engine-b", brain(tmp_path), "--openings",
        str(openings), "--games", "4",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("game 1: opening 1 (line 2), A black"), lines[0]
    assert lines[2].startswith("game 3: opening 2 (line 4), A black"), lines[2]
