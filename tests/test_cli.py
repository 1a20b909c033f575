"""The gomoku command line: analyze as a diagram and as JSON, and its errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client.cli import _score_words, main
from engine.notation import parse_point

BLACK_WINS = "h8 a1 i8 a3 j8 a5 k8 a7 l8"
# Black to move; g8 would make two open threes (g8-h8-i8 and g8-g9-g10), and
# c12 two more (c12-d12-e12 and c12-c13-c14).
TWO_DOUBLE_THREES = "h8 o1 i8 o3 g9 o5 g10 o7 d12 o9 e12 o11 c13 o13 c14 n1"


def analyze_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["analyze", "--json", *args]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # exactly one JSON object on one line
    data: dict[str, Any] = json.loads(out)
    return data


def test_analyze_json_of_a_game_in_progress(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints the size, rule, move count, side to move and no result."""
    data = analyze_json(capsys, "--rule", "standard", "--moves", "h8 i9 j10")
    assert data == {
        "size": 15,
        "rule": "standard",
        "moves": 3,
        "to_move": "white",
        "last_move": "j10",
        "result": None,
        "winning_line": None,
        "forbidden": [],
        "fouls": {},
        "recorded_result": None,
    }


def test_analyze_json_of_a_win(capsys: pytest.CaptureFixture[str]) -> None:
    """A finished game reports the winner, the reason and the winning line."""
    data = analyze_json(capsys, "--moves", BLACK_WINS)
    assert data["result"] == {"winner": "black", "reason": "five"}
    assert data["winning_line"] == ["h8", "i8", "j8", "k8", "l8"]
    assert data["moves"] == 9


def test_analyze_compact_moves_and_other_size(capsys: pytest.CaptureFixture[str]) -> None:
    """Compact move lists and other board sizes work."""
    data = analyze_json(capsys, "--size", "19", "--moves", "j10k11s19")
    assert data["size"] == 19
    assert data["moves"] == 3
    assert data["last_move"] == "s19"


def test_analyze_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    """With no moves the empty board is analysed, Black to move."""
    data = analyze_json(capsys)
    assert data["moves"] == 0
    assert data["to_move"] == "black"
    assert data["last_move"] is None


def test_analyze_renju_forbidden_points(capsys: pytest.CaptureFixture[str]) -> None:
    """In renju with Black to move, forbidden points are listed, by column then row."""
    data = analyze_json(capsys, "--rule", "renju", "--moves", TWO_DOUBLE_THREES)
    forbidden = data["forbidden"]
    assert {"c12", "g8"} <= set(forbidden)
    points = [parse_point(p) for p in forbidden]
    assert points == sorted(points, key=lambda p: (p.x, -p.y))


def test_analyze_forbidden_only_in_renju(capsys: pytest.CaptureFixture[str]) -> None:
    """The same position has no forbidden points in freestyle."""
    assert analyze_json(capsys, "--moves", TWO_DOUBLE_THREES)["forbidden"] == []


def test_analyze_diagram(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json the board is drawn with forbidden points marked and whose turn it is."""
    assert main(["analyze", "--rule", "renju", "--moves", TWO_DOUBLE_THREES]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "renju, 15x15, 16 moves, last move n1 (white)"
    row8 = next(line for line in lines if line.startswith(" 8 "))
    assert row8.split()[1:] == list("......*XX......")
    assert "   a b c d e f g h i j k l m n o" in lines
    assert "Black to move." in lines
    assert lines[-1] == (
        "Forbidden for Black (*): c12 (double-three), f11 (double-four), g8 (double-three), "
        "g12 (double-three)"
    )
    data = analyze_json(capsys, "--rule", "renju", "--moves", TWO_DOUBLE_THREES)
    assert data["forbidden"] == ["c12", "f11", "g8", "g12"]
    assert data["fouls"] == {
        "c12": "double-three",
        "f11": "double-four",
        "g8": "double-three",
        "g12": "double-three",
    }


def test_analyze_diagram_of_a_win(capsys: pytest.CaptureFixture[str]) -> None:
    """The diagram says who won, how, and along which points."""
    assert main(["analyze", "--moves", BLACK_WINS]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "Black wins (five: h8 i8 j8 k8 l8)."


def test_analyze_diagram_says_why_six_in_a_row_goes_on_in_standard(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Six in a row under the standard rule: the diagram says why the game goes on (it
    said only "White to move.", which read as a rule got wrong)."""
    moves = "a1 h8 b1 h9 c1 h10 e1 h11 f1 o15 d1"
    assert main(["analyze", "--rule", "standard", "--moves", moves]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "White to move.",
        "d1 makes 6 in a row: under the standard rule only exactly five wins.",
    ]
    assert main(["analyze", "--rule", "freestyle", "--moves", moves]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Black wins (overline: a1 b1 c1 d1 e1 f1)."


def test_analyze_diagram_says_a_renju_draw_with_points_left_is_no_full_board(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Renju, 6x6, two points left and both overlines for Black, who is to move: the
    draw says why (it read "board-full" under a board with two empty points)."""
    moves = (
        "b2 d4 f1 b4 d6 f4 a6 c5 e4 a5 b1 e3 f5 d3 b3 a4 c1 e2 e1 c3 e6 f3 f2 c2 b6 d5 "
        "f6 e5 b5 c4 d2 a3 a1 a2"
    )
    assert main(["analyze", "--rule", "renju", "--size", "6", "--moves", moves]) == 0
    assert "Draw (board-full: every empty point is forbidden for Black)." in (
        capsys.readouterr().out.splitlines()
    )


def test_analyze_diagram_with_time_adds_the_ai_move(capsys: pytest.CaptureFixture[str]) -> None:
    """--time without --json was read and then ignored; the diagram now ends with the
    AI's move, its score for the side to move, a proven win, and its line."""
    assert main(["analyze", "--moves", "h8 a1 i8 a2 j8 a3 k8 a4", "--time", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3] == "Black to move."
    assert lines[-2].startswith("AI (0.5 s): ")
    assert lines[-2].endswith(" for Black, a win in 1 (proven)")
    assert lines[-2].split()[3] in {"g8,", "l8,"}
    assert lines[-1] in {"line: g8", "line: l8"}


@pytest.mark.parametrize(
    ("score", "win_in", "said"),
    [
        (999_989, 6, ", a win in 6 (proven)"),
        (989_999, None, ", it looks won (not proven in the time)"),
        (-989_999, None, ", it looks lost (not proven in the time)"),
        (-999_990, None, ", a loss (proven)"),
        (120, None, ""),
    ],
)
def test_analyze_says_whether_a_winning_score_is_proven(
    score: int, win_in: int | None, said: str
) -> None:
    """The words after the AI's score: a line that only looks won in the time given
    ("score 989999") read like the proven "999989"."""
    assert _score_words(score, win_in) == said


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--moves", "h8 i9 h8"], "move 3 (h8): h8 is occupied"),
        (["--moves", "h8 z99"], "move 2: z99 is off a 15x15 board"),
        (["--moves", BLACK_WINS + " o15"], "move 10 (o15): the game is over"),
        (
            ["--rule", "renju", "--moves", "h8 a1 i8 a3 g9 a5 g10 a7 g8"],
            "move 9 (g8): g8 is forbidden for Black (double-three)",
        ),
        (["--size", "30"], "30 is more than 26"),
    ],
)
def test_analyze_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """Bad moves exit with code 2: the usage line, then one line naming the option and
    the move on stderr."""
    assert main(["analyze", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    usage, error = captured.err.split("\ngomoku analyze: error: ")
    assert usage.startswith("usage: gomoku analyze")
    option = "--size" if args[0] == "--size" else "--moves"
    assert error == f"argument {option}: {message}\n"


def test_bad_rule_and_missing_command(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown rule or no command at all is a usage error (exit 2)."""
    assert main(["analyze", "--rule", "gomoku"]) == 2
    assert "invalid choice: 'gomoku'" in capsys.readouterr().err
    assert main([]) == 2
    assert "analyze" in capsys.readouterr().err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    """--help prints the commands and exits 0."""
    assert main(["--help"]) == 0
    assert "analyze" in capsys.readouterr().out


@pytest.mark.parametrize(
    "command",
    [
        ["gomoku-server"],
        ["gomoku-server", "status"],
        ["gomoku-ai"],
        ["gomoku"],
        ["gomoku", "play"],
        ["gomoku", "analyze"],
        ["gomoku", "match"],
        ["gomoku", "review"],
    ],
    ids=" ".join,
)
def test_help_breaks_no_word_at_its_hyphen(command: list[str]) -> None:
    """--help at 80 columns wraps at spaces only, within them: argparse broke
    ``gomoku-server status``, ``--bot-seats`` and the data file's path at their hyphens,
    across two lines, where a reader copies them from."""
    script = Path(sys.executable).with_name(command[0])
    proc = subprocess.run(
        [str(script), *command[1:], "--help"],
        capture_output=True,
        text=True,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"},
        check=True,
        timeout=60,
    )
    broken = [line for line in proc.stdout.splitlines() if re.search(r"\w-$", line)]
    assert broken == [], broken
    # Nor a line past 80 columns: gomoku play's own text had two of 81, each leaving
    # its last character alone on a line of its own.
    wide = [line for line in proc.stdout.splitlines() if len(line) > 80]
    assert wide == [], wide


def installed_script() -> Path:
    script = Path(sys.executable).with_name("gomoku")
    assert script.exists(), "the gomoku script is not installed: run pip install -e ."
    return script


def test_installed_gomoku_script() -> None:
    """The installed gomoku console script analyses a position and fails on bad moves."""
    script = installed_script()
    ok = subprocess.run(
        [script, "analyze", "--rule", "renju", "--json", "--moves", "h8 i9"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["to_move"] == "black"
    bad = subprocess.run(
        [script, "analyze", "--moves", "h8 h8"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert "move 2 (h8): h8 is occupied" in bad.stderr


def test_cli_does_not_import_textual() -> None:
    """The command line loads without the terminal UI library."""
    code = "import sys, client.cli; sys.exit('textual' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr


def test_analyze_into_a_pipe_closed_early_says_nothing() -> None:
    """``gomoku analyze ... | head -1``-like: the reader is gone before the diagram is
    written; exit 1 with nothing on stderr (it was a BrokenPipeError traceback)."""
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("gomoku")), "analyze", "--moves", "h8"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.close()  # before it writes: the write meets a closed pipe
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert err == b""


def test_analyze_onto_a_full_disk_says_so_in_one_line() -> None:
    """Output to /dev/full (no space left): one line, exit 1, no traceback."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [str(Path(sys.executable).with_name("gomoku")), "analyze", "--moves", "h8"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr == "gomoku: cannot write the output: No space left on device\n"
