"""The AI core: the compiled and the plain-Python core agree move for move, the
incremental board agrees with a fresh one, and renju fouls agree with engine.renju."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import pytest

from client.cli import main
from engine import Board, Point, Rule, renju
from engine.ai import backend, new_core
from engine.ai.levels import LEVELS
from engine.ai.search import LIKELY_LOSS, MATE_BOUND, WIN, SearchConfig

# Positions from play (h8 notation), of every kind: quiet, sharp, a forced win on the
# board, a forced loss, renju fouls about.
POSITIONS = (
    "h8 i9 h9",
    "h8 i9 h9 h10 g8 i8 i10 g10 j8 f8 j7",
    "h8 i9 h9 h7 g8 i8",
    "h8 i7 i8 g8 j9 k10 h9 h10 g9",
    "h8 h9 i8 g8 i9 i10 j10 k11 g10 h11",
    "h8 g9 h9 h10 i8 f8 i11 d6 e7 i9 j8 k8 g10 j7 f11 e12 h11 g11 h5 h7 f9 e8 f12",
    "h8 a15 i8 c15 j10 e15 j11 a13 b2",
)
DEPTH = 3


def pure() -> ModuleType:
    return backend.pure_core()


def compiled() -> ModuleType:
    module = backend.compiled_core()
    assert module is not None, "no compiled core: the install could not build engine/ai/core/"
    return module


def outcome(module: ModuleType, board: Board, config: SearchConfig) -> tuple[Any, ...]:
    core = new_core(board, module)
    result = core.search(config, 0.0, 0.0, 0, None)
    return (*result, core.nodes)


@pytest.mark.parametrize("rule", list(Rule))
@pytest.mark.parametrize("moves", POSITIONS)
def test_compiled_and_python_cores_choose_the_same_move(rule: Rule, moves: str) -> None:
    """At a fixed depth, with no clock, both cores return the same move, score, line,
    depth and root scores after the same number of nodes: one algorithm, two runs."""
    board = Board.from_moves(moves, rule=Rule.FREESTYLE)
    board.rule = rule
    master = LEVELS["master"].search
    assert master is not None
    config = SearchConfig(
        max_depth=DEPTH,
        vct_depth=2,
        defend_vct=True,
        leaf_vcf=master.leaf_vcf,
        safety_moves=4,
    )
    fast = outcome(compiled(), board, config)
    slow = outcome(pure(), board, config)
    assert fast == slow
    assert fast[-1] > 0


def random_position(rng: random.Random, stones: int, spread: int) -> Board:
    """Stones on random points of a central square, colours alternating, stopped short
    of a five (the foul check reads stones only; how they came is not its business)."""
    board = Board(15, Rule.FREESTYLE)
    low, high = 7 - spread, 7 + spread
    while len(board) < stones:
        point = Point(rng.randint(low, high), rng.randint(low, high))
        if board[point] is not None:
            continue
        board.play(point)
        if board.is_over():
            board.undo()
            break
    board.rule = Rule.RENJU
    return board


@pytest.mark.parametrize("kind", ["compiled", "python"])
def test_renju_fouls_agree_with_engine_renju(kind: str) -> None:
    """Every empty point of dense random positions (300 for the compiled core, 40 for
    the slower plain one): the core calls a point forbidden for Black exactly when
    engine.renju does."""
    module = compiled() if kind == "compiled" else pure()
    rng = random.Random(20)
    checked = fouls = 0
    for n in range(300 if kind == "compiled" else 40):
        board = random_position(rng, 14 + n % 24, 4)
        core = new_core(board, module)
        expected = {board.point(i) for i in renju.forbidden_indices(board)}
        found = set()
        for y in range(15):
            for x in range(15):
                if board[Point(x, y)] is None:
                    checked += 1
                    if core.is_forbidden(core.index(x, y)):
                        found.add(Point(x, y))
        assert found == expected, board.moves
        fouls += len(expected)
    assert fouls > (50 if kind == "compiled" else 10)
    assert checked > 4000


@pytest.mark.parametrize("rule", list(Rule))
def test_play_and_undo_leave_the_same_state_as_a_fresh_position(rule: Rule) -> None:
    """After 400 random plays and undos the incremental classes, values and evaluation
    equal those of a core built from scratch on the same stones."""
    rng = random.Random(3)
    module = compiled()
    core = module.Core(15, list(Rule).index(rule))
    played: list[int] = []
    for _ in range(400):
        empty = [i for i in core.candidates() or core.on_board() if core.is_empty(i)]
        if played and (rng.random() < 0.4 or len(played) > 60):
            core.undo()
            played.pop()
        else:
            move = rng.choice(empty)
            core.play(move)
            played.append(move)
    fresh = module.Core(15, list(Rule).index(rule))
    fresh.set_moves(played)
    for i in fresh.on_board():
        if not fresh.is_empty(i):
            continue
        for colour in (1, 2):
            assert core.class_of(colour, i) == fresh.class_of(colour, i)
            assert core.value_of(colour, i) == fresh.value_of(colour, i)
    assert core.evaluate() == fresh.evaluate()
    assert core.hash == fresh.hash


def test_score_constants_agree_with_the_core() -> None:
    """engine.ai.search's score scale is the one the core computes with."""
    board = Board.from_moves("h8 a1 i8 a3 j8 a5 k8 a7")  # Black to move has a five
    core = new_core(board)
    _best, score, *_ = core.search(SearchConfig(), 0.0, 0.0, 0, None)
    assert score == WIN - 1
    assert LIKELY_LOSS == MATE_BOUND - 1


def test_analyze_engine_info_names_the_core(capsys: pytest.CaptureFixture[str]) -> None:
    """`gomoku analyze --engine-info` says which core runs; here the compiled one."""
    compiled()
    assert main(["analyze", "--engine-info"]) == 0
    out = capsys.readouterr().out
    assert "core: compiled" in out


@pytest.mark.parametrize("kind", ["compiled", "python"])
@pytest.mark.parametrize("nodes", [1, 100])
def test_a_search_stopped_before_its_first_iteration_claims_no_mate(kind: str, nodes: int) -> None:
    """Out of nodes (or time) before one root move is searched, the score is a static
    guess: it was -INFINITY, below every mate score, which the worker reads as a proven
    loss (and resigns with --resign) and ``gomoku analyze --json`` printed."""
    board = Board.from_moves("h8 a1 i8 a3 g7 a5 o15 a7", rule=Rule.RENJU)
    core = new_core(board, compiled() if kind == "compiled" else pure())
    best, score, _pv, plies, depth, _reason, _scores = core.search(
        LEVELS["master"].search, 0.0, 0.0, nodes, None
    )
    assert depth == 0
    assert -MATE_BOUND < score < MATE_BOUND
    assert plies == 0
    assert board[Point(*core.point(best))] is None
