"""``gomoku match`` between tiny brains the test writes itself."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine import Point
from gomocup.driver import Brain, BrainError
from gomocup.match import elo_line, elo_with_margin, format_table, read_openings, run_match

# Plays the first empty point in reading order; with "--stubborn" always 0,0 (illegal
# once taken); with "--mute" never answers a move; with "--suggest" answers a move with
# SUGGEST x,y and plays it when told PLAY x,y.
TINY_BRAIN = textwrap.dedent(
    """
    import sys
    size, stones = 15, set()
    stubborn, mute = "--stubborn" in sys.argv, "--mute" in sys.argv
    suggest = "--suggest" in sys.argv
    def move():
        if mute:
            return None
        if stubborn:
            return (0, 0)
        for y in range(size):
            for x in range(size):
                if (x, y) not in stones:
                    return (x, y)
    def answer():
        point = move()
        if point is not None and suggest:
            print(f"SUGGEST {point[0]},{point[1]}", flush=True)
        elif point is not None:
            stones.add(point)
            print("MESSAGE thinking hard", flush=True)
            print(f"{point[0]},{point[1]}", flush=True)
    reading = False
    for line in sys.stdin:
        words = line.strip().split(" ")
        command = words[0].upper()
        if reading:
            if command == "DONE":
                reading = False
                answer()
            else:
                x, y, _ = (int(v) for v in line.split(","))
                stones.add((x, y))
        elif command in ("START", "RESTART"):
            stones.clear()
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
        elif command == "PLAY":
            x, y = (int(v) for v in words[1].split(","))
            stones.add((x, y))
            print(f"{x},{y}", flush=True)
        elif command == "END":
            break
        elif command == "ABOUT":
            print('name="tiny", version="1"', flush=True)
    """
)


def brain_command(tmp_path: Path, *flags: str) -> str:
    script = tmp_path / "tiny_brain.py"
    script.write_text(TINY_BRAIN)
    return " ".join([sys.executable, str(script), *flags])


async def test_a_two_game_match_between_first_empty_brains(tmp_path: Path) -> None:
    """Colours swap between the two games of an opening; the first player wins both (row 1)."""
    command = brain_command(tmp_path)
    result = await run_match(command, command, [[]], games=2, turn_ms=2000)
    assert [(g.black, g.winner) for g in result.games] == [("A", "A"), ("B", "B")]
    assert result.record("A", "black") == (1, 0, 0)
    assert result.record("A", "white") == (0, 1, 0)
    assert result.score("A") == 0.5


async def test_an_illegal_move_loses(tmp_path: Path) -> None:
    """A brain that plays an occupied point loses the game, whatever its colour; the
    reason names the point as the brain did (0,0, not a1)."""
    good = brain_command(tmp_path)
    bad = brain_command(tmp_path, "--stubborn")
    opening = [[Point(7, 7), Point(0, 0)]]  # 0,0 is taken before the stubborn brain moves
    result = await run_match(good, bad, opening, games=2, turn_ms=2000)
    assert [g.winner for g in result.games] == ["A", "A"]
    assert [g.reason for g in result.games] == ["B illegal move: 0,0 is occupied"] * 2


async def test_a_brain_that_suggests_its_moves_is_told_to_play_them(tmp_path: Path) -> None:
    """A brain answering SUGGEST x,y gets PLAY x,y and its answer is its move, as in a
    Gomocup tournament: it plays the game as the plain brain does, not loses on time."""
    plain, suggesting = brain_command(tmp_path), brain_command(tmp_path, "--suggest")
    result = await run_match(suggesting, plain, [[]], games=2, turn_ms=1000)
    assert [(g.black, g.winner) for g in result.games] == [("A", "A"), ("B", "B")]
    assert all("five" in g.reason for g in result.games), [g.reason for g in result.games]


async def test_a_silent_brain_loses_on_time(tmp_path: Path) -> None:
    """A brain that never answers loses by timeout once the tolerance has passed."""
    result = await run_match(
        brain_command(tmp_path),
        brain_command(tmp_path, "--mute"),
        [[Point(7, 7)]],
        games=1,
        turn_ms=100,
        tolerance_ms=200,
    )
    assert result.games[0].winner == "A"
    assert "B timeout" in result.games[0].reason
    table = format_table(result, "good", "mute")
    assert "B time per move: no move answered in time (1 game lost)" in table


async def test_driver_reports_a_crashed_brain(tmp_path: Path) -> None:
    """A brain process that exits raises BrainError instead of hanging."""
    script = tmp_path / "crash.py"
    script.write_text("import sys; sys.stdin.readline(); sys.exit(3)\n")
    brain = await Brain.popen([sys.executable, str(script)])
    try:
        with pytest.raises(BrainError, match="exit code 3"):
            await brain.start(15, limit=5)
    finally:
        await brain.quit()


def test_match_command_prints_the_table(tmp_path: Path) -> None:
    """The command line plays the games and prints wins per colour, score and Elo."""
    command = brain_command(tmp_path)
    openings = tmp_path / "openings.txt"
    openings.write_text("# one opening\n7,7 8,8\n")
    out = subprocess.run(
        [sys.executable, "-m", "gomocup.match", "--engine-a", command, "--engine-b", command,
         "--openings", str(openings), "--games", "2", "--turn-ms", "2000", "--rule", "freestyle"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert re.search(r"^game 1: opening 1 \(line 2\), A black, winner \w after \d+ moves \(five\)$",
                     out, re.MULTILINE), out  # fmt: skip
    assert "A as black" in out
    assert "A as white" in out
    assert "A total" in out
    assert "50.0%" in out
    assert "Elo difference (A - B): +0" in out


def test_elo_margin_shrinks_with_more_games() -> None:
    """Elo is 0 at an even score and its 95% margin narrows as games add up."""
    diff, wide = elo_with_margin(6, 4, 0)
    _, narrow = elo_with_margin(60, 40, 0)
    assert round(elo_with_margin(5, 5, 0)[0]) == 0
    assert diff > 0
    assert narrow < wide


@pytest.mark.parametrize(
    ("lines", "rule", "said"),
    [
        ("7,7 7,7", "freestyle", "badopen.txt:1: opening 1: h8 is occupied"),
        ("6,7 0,0 7,7 0,2 8,5 0,4 8,6 0,6 8,7", "renju", "i8 is forbidden for Black"),
        ("0,0 0,1 1,0 1,1 2,0 2,1 3,0 3,1 4,0", "freestyle", "the opening ends the game"),
        (b"\xff\xfe\x00binary", "freestyle", "not a text file"),
    ],
)
def test_an_opening_that_cannot_start_a_game_is_refused_in_one_line(
    tmp_path: Path, lines: str | bytes, rule: str, said: str
) -> None:
    """A point twice, a foul for Black, a game already won or a binary file: one line
    naming the file (and line), exit 2, before any brain starts (it was a traceback, or
    a 9-move "win" counted for each game)."""
    openings = tmp_path / "badopen.txt"
    if isinstance(lines, bytes):
        openings.write_bytes(lines)
    else:
        openings.write_text(lines + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "gomocup.match", "--engine-a", "true", "--engine-b",
         "true", "--openings", str(openings), "--rule", rule],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("gomoku match: "), line
    assert said in line, line


def test_an_engine_command_with_unbalanced_quotes_is_a_usage_error() -> None:
    """The command is split as a shell would; a quote left open is said at once."""
    done = subprocess.run(
        [sys.executable, "-m", "gomocup.match", "--engine-a", 'sh -c "echo hi',
         "--engine-b", "true"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "gomoku match: error: argument --engine-a: 'sh -c \"echo hi': no closing quotation"
    )
    assert "Traceback" not in done.stderr


def test_gomocup_openings_files_are_read_as_offsets_from_the_centre(tmp_path: Path) -> None:
    """Gomocup's own openings files (and c-gomoku-cli's) write ``x,y, x,y`` as offsets
    from the centre, negative ones included; they were refused as not points."""
    openings = tmp_path / "openings_freestyle.txt"
    openings.write_text("8,-3, 6,-4, 5,-4, 4,-3, 2,-8, -1,-5\r\n0,0\r\n")
    first, second = read_openings(openings, 20)
    assert first == [Point(18, 7), Point(16, 6), Point(15, 6), Point(14, 7), Point(12, 2),
                     Point(9, 5)]  # fmt: skip
    assert second == [Point(10, 10)]
    plain = tmp_path / "plain.txt"
    plain.write_text("7,7 8,6\n")
    assert read_openings(plain, 15) == [[Point(7, 7), Point(8, 6)]]


@pytest.mark.parametrize(
    ("lines", "said"),
    [("0,0, 1,", "is not a line of offsets"), ("0,0, 9,0", "offset 9,0 is off a 15x15 board")],
)
def test_a_bad_line_of_offsets_is_refused_in_one_line(
    tmp_path: Path, lines: str, said: str
) -> None:
    """An odd number of coordinates, or an offset beyond the edge, names the line."""
    openings = tmp_path / "offsets.txt"
    openings.write_text(lines + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "gomocup.match", "--engine-a", "true", "--engine-b", "true",
         "--openings", str(openings)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("gomoku match: "), line
    assert "offsets.txt:1:" in line, line
    assert said in line, line


def test_a_brain_command_that_names_no_program_is_refused_before_the_match() -> None:
    """A typo in a brain's command lost every game to a forfeit and printed the result of
    a match that was never played, with exit status 0."""
    done = subprocess.run(
        [sys.executable, "-m", "gomocup.match", "--engine-a", "true", "--engine-b",
         "nonexistent-brain --level master"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "gomoku match: error: argument --engine-b: 'nonexistent-brain': no such command"
    )


def test_a_missing_openings_file_is_one_line(tmp_path: Path) -> None:
    """Not Python's errno text: what could not be read, and why."""
    done = subprocess.run(
        [sys.executable, "-m", "gomocup.match", "--engine-a", "true", "--engine-b", "true",
         "--openings", str(tmp_path / "missing.txt")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"gomoku match: cannot read {tmp_path / 'missing.txt'}: No such file or directory"
    ]


def test_pbrain_gomoku_is_found_beside_python_when_the_venv_is_not_activated(
    tmp_path: Path,
) -> None:
    """README's own command (``--engine-a "pbrain-gomoku ..."``) run as
    ``.venv/bin/gomoku match`` with the environment not activated: the brain is the one
    installed beside this Python, and the games are played."""
    gomoku = Path(sys.executable).with_name("gomoku")
    done = subprocess.run(
        [str(gomoku), "match", "--engine-a", "pbrain-gomoku --level beginner",
         "--engine-b", "pbrain-gomoku --level beginner", "--games", "2", "--turn-ms", "300",
         "--quiet"],
        capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"A: {gomoku.with_name('pbrain-gomoku')} --level beginner" in done.stdout
    assert "A total" in done.stdout
    assert "failed to start" not in done.stdout


def executable_brain(path: Path) -> Path:
    """The tiny brain as a program of its own (``#!`` this Python), at ``path``."""
    path.write_text(f"#!{sys.executable}\n{TINY_BRAIN}")
    path.chmod(0o755)
    return path


def match(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``gomoku match ARGS`` as the installed command (not activated: the venv's path)."""
    return subprocess.run(
        [str(Path(sys.executable).with_name("gomoku")), "match", *args],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )  # fmt: skip


def test_a_brain_named_by_an_absolute_or_a_relative_path_plays(tmp_path: Path) -> None:
    """``--engine-a /abs/path/to/brain`` was refused as "invalid _command value" (the
    lookup beside Python's own programs raised ValueError on a name with a '/')."""
    executable_brain(tmp_path / "pbrain-tiny")
    done = match(
        "--engine-a", str(tmp_path / "pbrain-tiny"), "--engine-b", "./pbrain-tiny --mute",
        "--games", "2", "--turn-ms", "300", "--tolerance-ms", "200", "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"A: {tmp_path / 'pbrain-tiny'}\n" in done.stdout
    assert "A total          2       0      0   100.0%" in done.stdout
    assert "B timeout" in done.stdout  # the mute one was run, and lost on time


@pytest.mark.parametrize(
    ("program", "why"),
    [
        ("/nonexistent/pbrain-embryo", "no such command"),
        ("./game.txt", "not an executable file"),
        ("/", "a directory, not a program"),
    ],
)
def test_a_path_that_is_no_program_is_one_line(tmp_path: Path, program: str, why: str) -> None:
    """A path to nothing, to a file that is not executable or to a directory: the usage
    and one line saying which, exit 2, before any game."""
    (tmp_path / "game.txt").write_text("h8 i9\n")
    done = match("--engine-a", program, "--engine-b", "true", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"gomoku match: error: argument --engine-a: {program!r}: {why}"
    )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("brain", "why"),
    [
        ("false", "A failed to start: engine A "),  # exits at once
        ("cat", "A failed to start: engine A answered 'START 15' instead of OK"),
    ],
)
def test_a_brain_that_never_starts_stops_the_match_with_status_1(brain: str, why: str) -> None:
    """Every game was forfeited, the table said "-inf +/- nan", and the exit status was
    0. A brain that cannot start is broken, not beaten: the match stops at the first
    game it forfeits, says so in one line, and exits with 1; the table does not count
    that game as B's win."""
    done = match("--engine-a", brain, "--engine-b", "true", "--games", "4")
    assert done.returncode == 1, done
    assert "Elo difference (A - B): none: no game was played" in done.stdout
    assert re.search(r"A total +0 +0 +0 +-", done.stdout), done.stdout
    assert "(not counted)" in done.stdout
    assert "nan" not in done.stdout
    [line] = done.stderr.splitlines()
    assert line.startswith(f"gomoku match: the match stopped after 1 of 4 games: {why}"), line


async def test_a_brain_that_crashes_in_a_game_loses_it_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    """Unlike a brain that never starts, one that starts and then crashes mid-game
    loses that game (as Gomocup scores it), and plays the next with a fresh process."""
    crashing = tmp_path / "crashing.py"
    begin = '    elif command == "BEGIN":\n'
    crashing.write_text(TINY_BRAIN.replace(begin, begin + "        sys.exit(1)\n"))
    result = await run_match(
        f"{sys.executable} {crashing}", brain_command(tmp_path), [[]], games=2, turn_ms=2000
    )
    assert len(result.games) == 2
    assert "A crash" in result.games[0].reason
    assert result.games[0].unstarted is None
    assert [g.winner for g in result.games] == ["B", "B"]


def test_the_elo_line_and_the_times_read_as_sentences(tmp_path: Path) -> None:
    """A side that won every game has no Elo estimate (it printed "+inf +/- nan"), and
    moves that all came in time are not a "largest overrun" of a negative number."""
    executable_brain(tmp_path / "pbrain-tiny")
    (tmp_path / "openings.txt").write_text("7,7 0,0\n")  # 0,0 taken: the stubborn one loses
    done = match(
        "--engine-a", "./pbrain-tiny", "--engine-b", "./pbrain-tiny --stubborn",
        "--openings", "openings.txt", "--games", "2", "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Elo difference (A - B): none: A won every game" in done.stdout
    assert re.search(r"A time per move: .*, none over its time \(\d+ ms to spare", done.stdout)
    assert "largest overrun -" not in done.stdout


def test_an_elo_margin_that_runs_to_a_whole_score_is_said_so() -> None:
    """Three games to one: the 95% interval reaches a 100% score, whose Elo is infinite;
    "+191 +/- inf" becomes words."""
    assert elo_line(3, 1, 0) == "+191 (too few games for a 95% margin)"
    assert elo_line(60, 40, 0) == "+70 +/- 71 (95%)"
