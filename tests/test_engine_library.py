"""The engine used as a library from a script: threads, process pools, copies, narrow
errors, and an external brain that answered late."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from engine import Board, Color, Point, Rule
from engine.ai import think
from engine.errors import (
    ForbiddenMoveError,
    IllegalMoveError,
    OccupiedError,
    OffBoardError,
    RecordError,
)
from engine.notation import format_gomocup, format_psq_point
from engine.record import parse_move_list
from engine.types import Foul
from gomocup.driver import Brain, BrainTimeout

ROOT = Path(__file__).resolve().parents[1]


def test_think_from_several_threads_at_once_answers_each() -> None:
    """Four threads searching one size, rule and level together each get a legal move
    (they shared one core, and the interpreter crashed with a segmentation fault)."""
    script = textwrap.dedent(
        """
        import threading
        from engine import Board
        from engine.ai import think
        games = ["a1 o15 b2 n14 c3", "e5 f6 g7 k11 k12 k13 d4 c3", "h8 i9", "h8 h9 h10"]
        bad = []
        def job(moves):
            for _ in range(3):
                board = Board.from_moves(moves)
                best = think(board, level="master", time_limit=0.2).best
                if not board.is_legal(best):
                    bad.append((moves, best))
        threads = [threading.Thread(target=job, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print("illegal" if bad else "ok", bad)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.startswith("ok"), done.stdout


def _replay_renju(moves: str) -> int:
    return len(Board.from_moves(moves, rule=Rule.RENJU))


def test_a_foul_in_a_process_pool_worker_comes_back_as_the_foul() -> None:
    """A worker replaying a renju record that ends on a foul hands the caller its
    ForbiddenMoveError, point and foul included (the pool broke for good)."""
    with ProcessPoolExecutor(max_workers=1) as pool:
        future = pool.submit(_replay_renju, "h8 a1 g8 a3 i9 a5 i10 a7 i8")
        with pytest.raises(ForbiddenMoveError) as refused:
            future.result(timeout=60)
        assert (refused.value.point, refused.value.foul) == (Point(8, 7), Foul.DOUBLE_THREE)
        assert pool.submit(_replay_renju, "h8 i9").result(timeout=60) == 2  # still usable


def test_errors_pickle_with_their_fields() -> None:
    """Each narrow error keeps its message and fields through pickle."""
    board = Board.from_moves("h8")
    for error in (
        ForbiddenMoveError("i8 is forbidden", point=Point(8, 7), foul=Foul.OVERLINE),
        OccupiedError("h8 is occupied", point=Point(7, 7)),
        RecordError("move 3 (h8): h8 is occupied", move=3),
    ):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error)
        assert str(again) == str(error)
        assert vars(again) == vars(error)
    with pytest.raises(OccupiedError):
        board.play(Point(7, 7))


def test_copy_copy_is_an_independent_board() -> None:
    """Playing or taking back on copy.copy(board) leaves the original as it was."""
    board = Board.from_moves("h8 i9")
    other = copy.copy(board)
    other.play(Point(9, 5))
    other.undo(3)
    assert board == Board.from_moves("h8 i9")
    assert len(other) == 0


def test_play_all_that_fails_leaves_the_board_as_it_was() -> None:
    """A move list with an occupied point takes back the moves played before it."""
    board = Board.from_moves("h8")
    with pytest.raises(OccupiedError):
        board.play_all([Point(1, 1), Point(2, 2), Point(7, 7)])
    assert board == Board.from_moves("h8")


def test_wrong_values_get_errors_that_say_what_was_wanted() -> None:
    """Text for a point, a cell index off the board, a bool coordinate: each a clear
    error, never a wrong answer; a colour or rule may be named in any case."""
    board = Board.from_moves("h8 i9")
    with pytest.raises(TypeError, match=r"a point is a Point like Point\(7, 7\), not 'h8'"):
        board["h8"]  # type: ignore[index]
    with pytest.raises(TypeError, match="a point is a Point"):
        board.is_legal("h8")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a move is a Point"):
        board.play((True, 0))
    with pytest.raises(OffBoardError):
        board.point(225 * 2)
    with pytest.raises(OffBoardError) as off:
        board.play((15, 3))
    assert off.value.point == Point(15, 3)
    assert board.stones("black") == [Point(7, 7)]
    assert board.stones(Color.WHITE) == [Point(8, 6)]
    with pytest.raises(ValueError, match="is not a valid Color"):
        board.stones("red")
    assert Board(15, "RENJU").rule is Rule.RENJU  # type: ignore[arg-type]
    assert (format_gomocup((7, 7)), format_psq_point((7, 7))) == ("7,7", "8,8")


def test_think_refuses_a_negative_time() -> None:
    """A negative or endless time limit is a ValueError, not a move."""
    for limits in ({"time_limit": -1.0}, {"time_limit": float("inf")}, {"time_left": -5.0}):
        with pytest.raises(ValueError, match="finite number of seconds"):
            think(Board.from_moves("h8"), **limits)  # type: ignore[arg-type]


def test_a_record_error_names_the_move_and_keeps_its_cause() -> None:
    """An illegal move in a record says its number, and the board's error (with its
    point) is the cause."""
    with pytest.raises(RecordError) as refused:
        parse_move_list("h8 i9 h8").board()
    assert refused.value.move == 3
    cause = refused.value.__cause__
    assert isinstance(cause, IllegalMoveError)
    assert cause.point == Point(7, 7)


LATE_BRAIN = """
import sys, time
answers = iter(["1,1", "2,2", "3,3"])
for line in sys.stdin:
    word = line.split()[0].upper() if line.strip() else ""
    if word == "START":
        print("OK", flush=True)
    elif word == "TURN":
        time.sleep(0.6 if line.split()[1] == "7,7" else 0)
        print(next(answers), flush=True)
    elif word == "ABOUT":
        print('name="late", author=Tom\\'s brain', flush=True)
    elif word == "END":
        break
"""


async def test_a_brain_that_answered_late_is_back_in_step() -> None:
    """After a timeout, the brain's late move is dropped: ABOUT gets ABOUT's answer (an
    apostrophe and all) and the next TURN gets its own move."""
    async with await Brain.popen([sys.executable, "-c", LATE_BRAIN], name="late") as brain:
        await brain.start(15)
        with pytest.raises(BrainTimeout):
            await brain.turn(Point(7, 7), limit=0.1)
        assert await brain.about(limit=5) == {"name": "late", "author": "Tom's brain"}
        assert await brain.turn(Point(7, 8), limit=5) == Point(2, 2)


def test_a_notebook_shows_a_board_as_an_svg_picture() -> None:
    """Jupyter's _repr_svg_ draws the stones where they stand, the last move, the
    winning line and Black's forbidden points, in an SVG a parser reads."""
    import xml.etree.ElementTree as ET

    svg = "{http://www.w3.org/2000/svg}"
    board = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4 h12")
    root = ET.fromstring(board._repr_svg_())
    circles = root.findall(f"{svg}circle")
    classes = [c.get("class") for c in circles]
    assert (classes.count("black"), classes.count("white")) == (5, 4)
    last = next(c for c in circles if c.get("class") == "last")
    h12 = next(c for c in circles if c.get("class") == "black" and c.get("cy") == last.get("cy"))
    assert h12.get("cx") == last.get("cx")  # the ring is on h12, the last move
    assert root.find(f"{svg}line[@class='win']") is not None
    renju = Board.from_moves("h8 a1 g8 a3 i9 a5 i10 a7", rule=Rule.RENJU)  # i8: 3x3
    marks = ET.fromstring(renju._repr_svg_()).findall(f"{svg}path[@class='mark']")
    assert len(marks) == len(renju.forbidden_points()) > 0
