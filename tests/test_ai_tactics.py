"""Tactics the AI must get right under every rule, within small time budgets."""

from __future__ import annotations

import json
import random

import pytest

from client.cli import main
from engine import Board, Color, Rule, format_point, parse_point
from engine.ai import Level, forget, get_level, hint, new_core, think
from engine.ai.search import SearchConfig

ALL_RULES = list(Rule)


def interleave(black: str, white: str) -> str:
    """A move list with these black and white stones, alternating from Black."""
    b, w = black.split(), white.split()
    moves: list[str] = []
    for n, move in enumerate(b):
        moves.append(move)
        if n < len(w):
            moves.append(w[n])
    return " ".join(moves + w[len(b) :])


# Black to move. Row 8: h8 i8 j8 k8 m8, so l8 is an overline: only g8 makes exactly five.
FOUR_WITH_OVERLINE = interleave("h8 i8 j8 k8 m8", "a15 c15 e15 a13 a11")
# White to move; Black's four h8-k8 is closed at g8, so l8 is the only block.
CLOSED_FOUR = interleave("h8 i8 j8 k8 b2 d2", "g8 a15 c15 e15 a13")
# White to move; Black's open three h8 i8 j8 with room on both sides.
OPEN_THREE = interleave("h8 i8 j8 b2", "a15 c15 a13")
THREE_DEFENCES = {"e8", "f8", "g8", "k8", "l8", "m8"}
# Black to move: k8 four (l8 forced), then fours on the k file / row 7 / diagonal win.
VCF = interleave("h8 i8 j8 k9 k10 l7 m7 n7", "g8 k11 o7 a15 c15 e15 a13 c13")
# Black to move: j8 makes two open threes (row 8 and the j file).
DOUBLE_THREE = interleave("h8 i8 j10 j11 b2", "a15 c15 e15 a13 c13")
QUIET = "h8 i9 h9"
# White to move: Black threatens the double three j8 (row 8 and the j file).
DOUBLE_THREE_COMING = interleave("h8 i8 j10 j11 b2", "a15 c15 e15 a13")


def forced_win_for_side_to_move(board: Board) -> bool:
    """Whether the side to move has a VCT (three threats deep), searched to the end."""
    return bool(new_core(board).vct(3, 16, 0))


def play_out(board: Board, pv: list[str]) -> Board:
    out = board.copy()
    for move in pv:
        out.play(parse_point(move))
    return out


@pytest.mark.parametrize("rule", ALL_RULES)
def test_takes_a_win_in_one_and_never_an_overline_where_it_does_not_win(rule: Rule) -> None:
    """Black completes five, choosing g8 over the overline l8 where only exactly five wins."""
    board = Board.from_moves(FOUR_WITH_OVERLINE, rule=rule)
    result = think(board, time_limit=0.3)
    assert result.win_in == 1
    assert board.copy().play(result.best) is not None
    if rule is not Rule.FREESTYLE:
        assert format_point(result.best) == "g8"


@pytest.mark.parametrize("rule", ALL_RULES)
def test_blocks_a_four(rule: Rule) -> None:
    """White, facing a four, plays the only block."""
    board = Board.from_moves(CLOSED_FOUR, rule=rule)
    result = think(board, time_limit=0.3)
    assert format_point(result.best) == "l8"
    assert result.reason == "block"


@pytest.mark.parametrize("rule", ALL_RULES)
def test_stops_an_open_three(rule: Rule) -> None:
    """White answers an open three on the line, so that Black gets no straight four."""
    board = Board.from_moves(OPEN_THREE, rule=rule)
    result = think(board, time_limit=0.5)
    assert format_point(result.best) in THREE_DEFENCES


@pytest.mark.parametrize("rule", ALL_RULES)
def test_finds_a_vcf_and_its_line_wins(rule: Rule) -> None:
    """Black finds a win by continuous fours; playing out its variation makes five."""
    board = Board.from_moves(VCF, rule=rule)
    result = think(board, time_limit=0.5)
    assert result.win_in is not None
    assert result.win_in >= 2
    assert result.reason == "win"
    final = play_out(board, [format_point(p) for p in result.pv])
    assert final.result is not None
    assert final.result.winner is Color.BLACK


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD])
def test_finds_a_win_by_threes(rule: Rule) -> None:
    """Black finds the double open three (a VCT) where it is not a foul."""
    board = Board.from_moves(DOUBLE_THREE, rule=rule)
    result = think(board, time_limit=1.0)
    assert result.win_in is not None
    assert format_point(result.best) == "j8"


@pytest.mark.parametrize("rule", ALL_RULES)
def test_no_forced_win_in_a_quiet_opening(rule: Rule) -> None:
    """In a three-stone opening there is no forced win to report. Bounded by nodes,
    not time: on a busy machine 0.3 s once ended the search at depth 1."""
    result = think(Board.from_moves(QUIET, rule=rule), time_limit=30.0, node_limit=5_000)
    assert result.win_in is None
    assert result.depth >= 2


def test_renju_black_never_plays_the_tempting_double_three() -> None:
    """In renju the double three j8 is forbidden, so Black plays something legal instead."""
    board = Board.from_moves(DOUBLE_THREE, rule=Rule.RENJU)
    assert board.foul(parse_point("j8")) is not None
    for level in ("novice", "master"):
        result = think(board, level=level, time_limit=0.5, rng=random.Random(1))
        assert format_point(result.best) != "j8"
        assert board.is_legal(result.best)


def test_renju_white_ignores_a_four_that_black_cannot_complete() -> None:
    """Black's h8-k8 only grows into the overline l8, a foul: White attacks, not blocks."""
    moves = interleave("h8 i8 j8 k8 m8 b13", "g8 c3 d3 e3 a15")
    renju = think(Board.from_moves(moves, rule=Rule.RENJU), time_limit=0.5)
    assert format_point(renju.best) != "l8"
    assert renju.win_in == 2  # the four, then the five
    freestyle = think(Board.from_moves(moves, rule=Rule.FREESTYLE), time_limit=0.5)
    assert format_point(freestyle.best) == "l8"


def test_never_overruns_the_time_budget() -> None:
    """A master search given 0.2 s answers within it, in a busy middle game."""
    board = Board.from_moves("h8 i9 h9 h10 g8 i8 i10 g10 j8 f8 j7")
    result = think(board, time_limit=0.2)
    assert result.elapsed <= 0.2
    assert board.is_legal(result.best)


def test_weak_levels_play_legal_moves_and_take_fives() -> None:
    """The beginner always plays legal moves and still completes a five that is there."""
    rng = random.Random(7)
    board = Board.from_moves(FOUR_WITH_OVERLINE, rule=Rule.RENJU)
    assert think(board, level="beginner", rng=rng).win_in == 1
    game = Board(15, Rule.RENJU)
    while not game.is_over() and len(game) < 60:
        move = think(game, level=get_level("beginner"), rng=rng).best
        assert game.is_legal(move)
        game.play(move)


@pytest.mark.parametrize("size", [15, 19])
def test_weak_levels_open_in_the_centre(size: int) -> None:
    """On an empty board the beginner and the novice open on the centre or next to it,
    as a person would (they opened anywhere, a1 and o3 among them)."""
    middle = (size - 1) / 2
    for level in ("beginner", "novice"):
        for seed in range(20):
            first = think(Board(size), level=level, rng=random.Random(seed)).best
            assert max(abs(first.x - middle), abs(first.y - middle)) <= 1, (level, first)


def test_hint_names_a_block() -> None:
    """A hint against a four points at the block and says so."""
    advice = hint(Board.from_moves(CLOSED_FOUR), time_limit=0.3)
    assert (format_point(advice.point), advice.reason) == ("l8", "block")


def test_a_hint_in_a_lost_position_says_it_is_lost() -> None:
    """White's four leaves Black one block, h8, a double-three in renju: every move
    loses. The hint said a15 "stops a threat"; it says the position is lost."""
    board = Board.from_moves("c3 d4 f8 e5 g8 f6 h9 a1 h10 g7", rule=Rule.RENJU)
    advice = hint(board, time_limit=0.3)
    assert advice.reason == "lost"


def test_analyze_json_with_time_reports_the_best_move(capsys: pytest.CaptureFixture[str]) -> None:
    """`gomoku analyze --json --time` adds best, score, pv and win_in in h8 notation."""
    assert main(["analyze", "--json", "--time", "0.3", "--moves", FOUR_WITH_OVERLINE]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["best"], data["win_in"], data["pv"]) == ("g8", 1, ["g8"])
    assert data["score"] > 0


def test_renju_white_aims_its_four_at_a_forbidden_point() -> None:
    """White's four g7 leaves only h8 to block, a black double three: a win in renju only."""
    moves = interleave("i8 j8 h9 h10 c3", "d4 e5 f6 a15")
    board = Board.from_moves(moves, rule=Rule.RENJU)
    renju = think(board, time_limit=0.5)
    assert (format_point(renju.best), renju.win_in) == ("g7", 2)
    board.play(renju.best)
    assert board.foul(parse_point("h8")) is not None
    black = think(board, time_limit=0.3)
    assert board.is_legal(black.best)
    assert black.score < 0


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD])
@pytest.mark.parametrize("level", ["advanced", "master"])
def test_takes_away_a_double_three_before_it_is_made(rule: Rule, level: str) -> None:
    """White, to move, leaves Black no forced win: the coming double three is stopped."""
    board = Board.from_moves(DOUBLE_THREE_COMING, rule=rule)
    assert forced_win_for_side_to_move(Board.from_moves(DOUBLE_THREE_COMING + " o1", rule=rule))
    result = think(board, level=level, time_limit=1.0)
    board.play(result.best)
    assert not forced_win_for_side_to_move(board)


def test_what_a_search_learnt_is_kept_for_the_next_search() -> None:
    """The transposition table outlives a search: the same depth again costs a few nodes."""
    forget()
    board = Board.from_moves(QUIET)
    level = Level("five plies", SearchConfig(max_depth=5), None)
    first = think(board, level=level, time_limit=30)
    again = think(board, level=level, time_limit=30)
    assert first.depth == again.depth == 5
    assert again.best == first.best
    assert again.nodes < first.nodes / 10
