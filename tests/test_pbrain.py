"""The ``pbrain-gomoku`` brain over real pipes, and its protocol session."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from engine import Board, Point, Rule
from gomocup.session import REPLY_MARGIN_S, BrainSession


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


def test_errors_name_points_as_the_manager_does() -> None:
    """An ERROR about a point names it x,y, as the manager wrote it, not h8."""
    session = BrainSession("novice")
    assert session.feed("START 15") == ["OK"]
    assert session.feed("TURN 7,7") != ["7,7"]  # its answer, elsewhere
    assert session.feed("TURN 7,7") == ["ERROR TURN: 7,7 is occupied"]
    for line in ["BOARD", "3,4,1", "3,4,2"]:
        assert session.feed(line) == []
    assert session.feed("DONE") == ["ERROR BOARD: 3,4 is given twice"]

    renju = BrainSession("novice")  # renju: White (the brain) must block the four at 5,10
    assert renju.feed("INFO rule 4") == []
    assert renju.feed("START 15") == ["OK"]
    black = ["5,7", "6,7", "7,5", "7,6", "1,10", "2,10", "3,10", "4,10"]  # 7,7: two threes
    white = ["0,10", "0,0", "0,14", "14,0", "14,14", "14,7", "0,7"]
    for line in ["BOARD", *(f"{p},2" for p in black), *(f"{p},1" for p in white)]:
        assert renju.feed(line) == []
    assert renju.feed("DONE") == ["5,10"]
    assert renju.feed("TURN 7,7") == ["ERROR TURN: 7,7 is forbidden for Black (double-three)"]


def test_a_board_in_any_order_with_blank_lines_gets_a_move() -> None:
    """Exact five: the opponent's six in a row listed with five of them first is no win,
    and a blank line inside BOARD is no stone; the brain answers with a move."""
    session = BrainSession("novice")
    assert session.feed("START 15") == ["OK"]
    session.feed("INFO rule 1")
    six = ["2,5,2", "3,5,2", "4,5,2", "6,5,2", "7,5,2", "5,5,2"]
    own = ["0,0,1", "0,2,1", "0,4,1", "0,6,1", "0,8,1", "0,10,1"]
    for line in ["BOARD", *six[:3], "", *own, *six[3:]]:
        assert session.feed(line) == []
    [move] = session.feed("DONE")
    assert session.board is not None
    assert session.board[as_point(move)] is not None


def test_a_bad_stone_line_is_answered_once_at_done() -> None:
    """A BOARD with a field-3 stone (continuous games are not played here) or an unknown
    field gets one ERROR at its DONE, not an UNKNOWN for every line after it."""
    session = BrainSession("novice")
    session.feed("START 15")
    for field in ("3", "5"):
        for line in ["BOARD", "7,7,2", f"8,8,{field}", "9,9,2", "8,9,1"]:
            assert session.feed(line) == []
        [reply] = session.feed("DONE")
        assert reply.startswith("ERROR BOARD: "), reply


def test_a_setting_it_cannot_take_is_said_in_a_message_not_an_error() -> None:
    """The manager reads no answer to INFO: caro, a continuous game or a value that is
    no number is said in a MESSAGE (shown, never paired with a command), never an
    ERROR that a manager would take as its next command's answer, and the next
    command gets its own answer."""
    session = BrainSession("novice")
    session.feed("START 15")
    assert session.feed("INFO rule 4") == []
    [caro] = session.feed("INFO rule 8")  # caro alone: the renju of the INFO before goes
    assert caro == "MESSAGE INFO rule: caro (8) is not played here; played as freestyle"
    played = [session.settings.rule]
    [caro] = session.feed("INFO rule 9")
    assert caro == "MESSAGE INFO rule: caro (8) is not played here; played as standard"
    played.append(session.settings.rule)
    assert played == [Rule.FREESTYLE, Rule.STANDARD]
    [unknown] = session.feed("INFO rule 16")  # no bit the protocol gives: it was silent
    assert unknown.startswith("MESSAGE INFO rule: 16 is no rule bit this brain knows ("), unknown
    assert unknown.endswith("; played as freestyle"), unknown
    session.feed("INFO rule 0")
    [number] = session.feed("INFO timeout_turn abc")
    assert number == "MESSAGE INFO timeout_turn: 'abc' is not a whole number; ignored"
    [continuous] = session.feed("INFO rule 2")
    assert continuous.startswith("MESSAGE INFO rule: a continuous game (2)"), continuous
    assert session.settings.rule is Rule.FREESTYLE
    [move] = session.feed("BEGIN")
    assert as_point(move)


def test_a_level_from_the_environment_that_is_none_gets_one_line() -> None:
    """GOMOKU_LEVEL naming no level: the usage and one line saying so, exit status 2,
    no traceback (as for --level)."""
    done = subprocess.run(
        [sys.executable, "-m", "gomocup.brain"],
        input="",
        capture_output=True,
        text=True,
        env={**os.environ, "GOMOKU_LEVEL": "expert"},
        timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        "pbrain-gomoku: error: GOMOKU_LEVEL='expert' is not a level "
        "(choose from beginner, novice, intermediate, advanced, master)"
    )


def test_time_left_counts_only_against_a_match_limit() -> None:
    """timeout_match 0 means no match limit: a time_left of 0 (or less) then leaves the
    move its whole turn, while with a limit it still means hurry."""
    session = BrainSession("novice")
    session.feed("START 15")
    session.feed("INFO timeout_turn 1000")
    session.feed("INFO time_left 0")
    assert session.move_time()[1] == pytest.approx(0.01)  # no timeout_match sent: hurry
    session.feed("INFO timeout_match 0")
    assert session.move_time()[1] is None
    session.feed("INFO timeout_match 60000")
    assert session.move_time()[1] == pytest.approx(0.01)


def test_a_number_past_any_limit_is_no_crash() -> None:
    """INFO time_left (or timeout_turn) of 400 nines killed the brain at its next move
    (OverflowError in the search's arithmetic). Past 18 digits a number is said to be
    none in a MESSAGE; a merely large one is read as a 32-bit manager's largest."""
    session = BrainSession("novice")
    session.feed("START 15")
    session.feed("INFO timeout_turn 300")
    [said] = session.feed("INFO time_left " + "9" * 400)
    assert said.startswith("MESSAGE INFO time_left: ")
    assert said.endswith("; ignored")
    session.feed("INFO timeout_turn 99999999999999")
    assert session.settings.timeout_turn_ms == 2**31 - 1
    session.feed("INFO timeout_turn 300")
    assert as_point(session.feed("TURN 7,7")[-1])
    [refused] = session.feed("START " + "9" * 5000)
    assert refused.startswith("ERROR START: '9999"), refused
    assert "limit" not in refused  # Python's own words for a too-long int


def test_a_short_turn_is_mostly_searched() -> None:
    """A fixed 80 ms kept back of every turn left 10 ms of a 50 ms turn (the brain lost
    games it won at 200 ms). Below 0.2 s a share is kept back; above, the 80 ms."""
    session = BrainSession("novice")
    session.feed("START 15")
    session.feed("INFO timeout_turn 50")
    assert session.move_time()[0] == pytest.approx(0.03, abs=0.005)
    session.feed("INFO timeout_turn 1000")
    assert session.move_time()[0] == pytest.approx(1.0 - REPLY_MARGIN_S, abs=0.005)


def test_a_match_limit_without_time_left_bounds_the_moves() -> None:
    """timeout_match with no time_left: a first move took 3 s of a 2 s match. What the
    game's moves took comes off the match's limit."""
    ticks = iter(range(1_000_000))
    session = BrainSession("novice", clock=lambda: next(ticks) * 0.001)
    session.feed("INFO timeout_turn 5000")
    session.feed("INFO timeout_match 2000")
    session.feed("START 15")
    left = session.move_time()[1]
    assert left is not None
    assert left < 2.0
    session.feed("TURN 7,7")
    later = session.move_time()[1]
    assert later is not None
    assert later < left


def test_a_tab_may_follow_a_command() -> None:
    """``TURN<TAB>1,1`` was UNKNOWN: any blank after a command separates it."""
    session = BrainSession("novice")
    session.feed("START 15")
    assert as_point(session.feed("TURN\t1,1")[-1])


def test_a_takeback_of_a_stone_listed_first_leaves_the_others_their_colours() -> None:
    """BOARD lists stones in any order, so the game's last stone may have come first:
    taking it back removes it alone, and the brain then blocks the opponent's four
    (the position as the manager has it), not a board with the colours swapped."""
    session = BrainSession("master")
    session.feed("START 15")
    session.feed("INFO timeout_turn 500")
    lines = ["BOARD", "7,7,2", "3,3,2", "3,4,2", "3,5,2", "3,2,1", "10,10,1", "12,12,1"]
    for line in lines:
        assert session.feed(line) == []
    [mine] = session.feed("DONE")
    assert session.feed(f"TAKEBACK {mine}") == ["OK"]
    assert session.feed("TAKEBACK 7,7") == ["OK"]
    [reply] = session.feed("TURN 3,6")  # the opponent's four, 3,3-3,6, blocked at 3,2
    assert reply == "3,7"


def test_a_malformed_board_line_gets_one_reply_for_the_whole_board() -> None:
    """A line that is not ``x,y,field`` inside BOARD: one ERROR at DONE, not an ERROR at
    once and an UNKNOWN for each line after it (a manager pairs one reply with each
    command). A command there means DONE never came: one ERROR, then its own answer."""
    session = BrainSession("novice")
    session.feed("START 15")
    for line in ["BOARD", "7,7,2", "bogus", "8,8,2"]:
        assert session.feed(line) == []
    [reply] = session.feed("DONE")
    assert reply.startswith("ERROR BOARD: 'bogus' is not a line like 7,7,1"), reply
    for line in ["BOARD", "7,7,2"]:
        assert session.feed(line) == []
    error, about = session.feed("ABOUT")
    assert error == "ERROR BOARD: no DONE before 'ABOUT'"
    assert about.startswith("name=")
    assert session.feed("TURN 0,0") != []  # out of BOARD: commands are answered again


def test_time_spent_on_info_lines_comes_off_the_move() -> None:
    """The turn's clock runs from the command after the last answer: what the INFO
    lines took (0.4 s each on this clock) is taken off the move's budget, and time_left
    is used without timeout_match."""
    ticks = iter(range(1_000_000))
    session = BrainSession("novice", clock=lambda: next(ticks) * 0.4)
    assert session.feed("START 15") == ["OK"]
    session.feed("INFO timeout_turn 2000")
    session.feed("INFO rule 4")
    turn, left = session.move_time()
    assert turn == pytest.approx(2.0 - REPLY_MARGIN_S - 0.8)
    assert left is None
    session.feed("INFO time_left 3000")
    turn, left = session.move_time()
    assert turn == pytest.approx(2.0 - REPLY_MARGIN_S - 1.2)
    assert left == pytest.approx(3.0 - REPLY_MARGIN_S - 1.2)


def test_end_stops_a_search_at_once_and_nothing_follows_it() -> None:
    """END sent while the brain thinks (a 10 s turn): it exits within a second and
    sends no move."""
    brain = Pipe("--level", "master")
    try:
        brain.send("START 15")
        assert brain.answer() == "OK"
        brain.send("INFO timeout_turn 10000", "BOARD", "7,7,2", "8,8,1", "8,7,2", "DONE")
        time.sleep(0.5)
        sent = time.perf_counter()
        brain.send("END")
        assert brain.process.wait(timeout=5) == 0
        assert time.perf_counter() - sent < 1.0
        assert brain.process.stdout is not None
        assert brain.process.stdout.read() == ""
    finally:
        brain.close()


def test_lines_may_end_with_a_lone_carriage_return() -> None:
    """CR alone ends a line as LF and CR LF do."""
    brain = Pipe()
    try:
        assert brain.process.stdin is not None
        brain.process.stdin.write("START 15\rABOUT\r")
        brain.process.stdin.flush()
        assert brain.answer() == "OK"
        assert brain.answer().startswith('name="gomoku-arena"')
    finally:
        brain.close()


def test_a_swap2board_or_a_board_before_start_gets_one_answer_at_done() -> None:
    """SWAP2BOARD with a stone off the board, or BOARD before START: one ERROR at DONE,
    not one at once and an UNKNOWN for each line after it."""
    session = BrainSession("novice")
    for line in ["BOARD", "7,7,1", "8,8,2"]:
        assert session.feed(line) == []
    assert session.feed("DONE") == ["ERROR BOARD: no board yet: send START first"]
    for line in ["SWAP2BOARD", "7,7"]:
        assert session.feed(line) == []
    assert session.feed("DONE") == ["ERROR SWAP2BOARD: no board yet: send START first"]
    assert session.feed("START 15") == ["OK"]
    for line in ["SWAP2BOARD", "7,7", "99,99", "9,9"]:
        assert session.feed(line) == []
    assert session.feed("DONE") == ["ERROR SWAP2BOARD: 99,99 is off a 15x15 board"]
    assert session.feed("ABOUT")[0].startswith("name=")


def test_numbers_are_ascii_digits() -> None:
    """``1_0``, ``+3`` and other scripts' digits, which Python's int() reads, are bad
    lines; a bad board size says what is expected."""
    session = BrainSession("novice")
    assert session.feed("START abc") == ["ERROR START: 'abc' is not a board size like 15"]
    assert session.feed("RECTSTART 15,x") == [
        "ERROR RECTSTART: '15,x' is not a board size like 15,15"
    ]
    assert session.feed("START 15") == ["OK"]
    for point in ("1_0,3", "+3,3", "\u0663,3", "3, 3,3"):
        assert session.feed(f"TURN {point}") == [f"ERROR TURN: {point!r} is not a point like 7,7"]
    [message] = session.feed("INFO timeout_turn 1_000")
    assert message == "MESSAGE INFO timeout_turn: '1_000' is not a whole number; ignored"
    assert session.feed("INFO time_left -5") == []  # time_left may be below 0
    assert session.feed("\ufeffABOUT")[0].startswith("name=")  # a byte order mark first


def test_end_inside_a_board_or_swap2board_ends_the_brain() -> None:
    """END before a block's DONE: the brain exits at once and writes nothing (it waited
    for DONE forever after SWAP2BOARD, and answered BOARD with an ERROR after END)."""
    for block in (["SWAP2BOARD", "7,7"], ["BOARD", "7,7,1"]):
        brain = Pipe("--level", "novice")
        try:
            brain.send("START 15")
            assert brain.answer() == "OK"
            brain.send(*block, "END")
            assert brain.process.wait(timeout=5) == 0
            assert brain.process.stdout is not None
            assert brain.process.stdout.read() == ""
        finally:
            brain.close()


def test_a_turn_sent_with_end_in_one_write_is_not_answered() -> None:
    """TURN and END in one write (a 10 s turn): the brain exits within a second and
    sends no move (it searched the whole turn and sent its move after END)."""
    brain = Pipe("--level", "master")
    try:
        brain.send("START 15")
        assert brain.answer() == "OK"
        sent = time.perf_counter()
        brain.send("INFO timeout_turn 10000", "TURN 7,7", "END")  # one write
        assert brain.process.wait(timeout=15) == 0
        assert time.perf_counter() - sent < 1.0
        assert brain.process.stdout is not None
        assert brain.process.stdout.read() == ""
    finally:
        brain.close()


def test_commands_piped_in_are_all_answered() -> None:
    """Commands piped in, with no END (the input just ends): each is answered."""
    done = subprocess.run(
        [sys.executable, "-m", "gomocup.brain", "--level", "novice"],
        input="START 15\nABOUT\nBEGIN\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    ok, about, move = done.stdout.splitlines()
    assert (ok, about[:5]) == ("OK", "name=")
    assert Board(15).is_legal(as_point(move))


def test_a_rule_sent_after_start_costs_the_first_move_little() -> None:
    """Piskvork sends INFO rule after START, on the first move's clock: the tables and
    a search set-up of every rule are built at START, so a fresh brain's INFO rule 4
    takes next to nothing of the turn (it took 30 ms, up to 130 ms on a busy machine:
    a 50 ms turn was overrun; before that, the 0.15-0.2 s of building renju's tables)."""
    script = (
        "from gomocup.session import BrainSession\n"
        "s = BrainSession('master')\n"
        "s.feed('START 15'); s.feed('INFO timeout_turn 1000'); s.feed('INFO rule 4')\n"
        "print(s.move_time()[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert float(done.stdout) > 1.0 - REPLY_MARGIN_S - 0.025
