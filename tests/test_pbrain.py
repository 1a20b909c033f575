"""The ``pbrain-gomoku`` brain over real pipes, and its protocol session."""

from __future__ import annotations

import subprocess
import sys

from engine import Board, Point, Rule
from gomocup.session import BrainSession


class Pipe:
    """A running brain process, talked to line by line."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gomocup.brain", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def answer(self) -> str:
        """The next line that is not MESSAGE/DEBUG chatter."""
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline().strip()
            if not line.startswith(("MESSAGE", "DEBUG")):
                return line


def as_point(answer: str) -> Point:
    x, y = answer.split(",")
    return Point(int(x), int(y))


def test_scripted_exchange_with_the_brain_process() -> None:
    """A full manager session in renju: every move answered is legal, every command handled."""
    brain = Pipe("--level", "advanced")
    try:
        brain.send("START 15")
        assert brain.answer() == "OK"
        brain.send("INFO timeout_turn 300", "INFO timeout_match 60000", "INFO time_left 60000")
        brain.send("INFO rule 4", "INFO max_memory 83886080")
        game = Board(15, Rule.RENJU)
        brain.send("BEGIN")
        game.play(as_point(brain.answer()))
        for reply in (Point(8, 8), Point(6, 8)):
            brain.send(f"TURN {reply.x},{reply.y}")
            game.play(reply)
            move = as_point(brain.answer())
            assert game.is_legal(move)
            game.play(move)
        # A mid-game position where the brain is White (field 1 = own stones).
        brain.send("BOARD", "7,7,2", "7,8,1", "8,7,2", "6,7,1", "9,7,2", "10,7,1", "8,6,2", "DONE")
        position = Board.from_moves(
            [
                Point(7, 7),
                Point(7, 8),
                Point(8, 7),
                Point(6, 7),
                Point(9, 7),
                Point(10, 7),
                Point(8, 6),
            ],
            rule=Rule.RENJU,
        )
        move = as_point(brain.answer())
        assert position.is_legal(move)
        brain.send(f"TAKEBACK {move.x},{move.y}")
        assert brain.answer() == "OK"
        brain.send("RESTART")
        assert brain.answer() == "OK"
        brain.send("BEGIN")
        assert as_point(brain.answer()) == Point(7, 7)
        brain.send("ABOUT")
        assert brain.answer().startswith('name="gomoku-arena"')
        brain.send("YIXINBOARD 1")
        assert brain.answer().startswith("UNKNOWN")
        brain.send("RECTSTART 15,20")
        assert brain.answer().startswith("ERROR")
        brain.send("END")
        assert brain.process.wait(timeout=10) == 0
    finally:
        brain.close()


def test_session_blocks_a_four_sent_as_a_board() -> None:
    """Given BOARD with the opponent's four, the session answers with the block."""
    session = BrainSession("master")
    assert session.feed("START 15") == ["OK"]
    session.feed("INFO timeout_turn 500")
    lines = ["7,7,2", "0,0,1", "8,7,2", "0,2,1", "9,7,2", "0,4,1", "10,7,2", "6,7,1"]
    for line in ["BOARD", *lines]:
        assert session.feed(line) == []
    assert session.feed("DONE") == ["11,7"]


def test_session_reports_bad_input_without_dying() -> None:
    """Bad points and commands before START get ERROR lines; the session goes on."""
    session = BrainSession("novice")
    assert session.feed("TURN 1,1")[0].startswith("ERROR")
    assert session.feed("START 15") == ["OK"]
    assert session.feed("TURN 15,3")[0].startswith("ERROR")
    assert session.feed("TURN a,b")[0].startswith("ERROR")
    reply = session.feed("TURN 7,7")
    assert len(reply) == 1
    assert reply[0] != "7,7"
