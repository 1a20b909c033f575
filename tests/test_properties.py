"""Property tests: notation round trips, play/undo symmetry, the hash, record round trips."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from engine.board import Board
from engine.notation import (
    MAX_SIZE,
    MIN_SIZE,
    format_gomocup,
    format_moves,
    format_point,
    format_psq_point,
    parse_gomocup,
    parse_moves,
    parse_point,
    parse_psq_point,
)
from engine.record import (
    GameRecord,
    Players,
    TimedMove,
    format_json,
    format_move_list,
    format_psq,
    parse_json,
    parse_move_list,
    parse_psq,
    record_from_dict,
    record_to_dict,
)
from engine.types import Color, Opening, Point, Reason, Result, Rule

sizes = st.integers(MIN_SIZE, MAX_SIZE)


@st.composite
def sized_points(draw: st.DrawFn) -> tuple[int, Point]:
    size = draw(sizes)
    return size, Point(draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1)))


@dataclass
class Game:
    """A legal game and the board it ends on."""

    board: Board
    moves: list[Point]


@st.composite
def games(draw: st.DrawFn, rules: tuple[Rule, ...] = tuple(Rule), max_moves: int = 100) -> Game:
    """A random legal game: random points in a random order, skipping any the
    rule forbids, until the chosen length or the end of the game."""
    size = draw(sizes)
    rule = draw(st.sampled_from(rules))
    order = draw(st.permutations([Point(x, y) for y in range(size) for x in range(size)]))
    length = draw(st.integers(0, min(max_moves, size * size)))
    board = Board(size, rule)
    for p in order:
        if len(board) >= length or board.is_over():
            break
        if board.is_legal(p):
            board.play(p)
    return Game(board, board.moves)


# -- notation --------------------------------------------------------------


@given(sized_points())
def test_h8_round_trip(case: tuple[int, Point]) -> None:
    """Every point on every size formats to h8 notation and parses back."""
    size, point = case
    text = format_point(point, size)
    assert parse_point(text, size) == point
    assert parse_point(text.upper(), size) == point


@given(sized_points())
def test_gomocup_and_psq_round_trip(case: tuple[int, Point]) -> None:
    """Gomocup (0-based) and PSQ (1-based) coordinates round trip on every size."""
    size, point = case
    assert parse_gomocup(format_gomocup(point), size) == point
    assert parse_psq_point(format_psq_point(point), size) == point


@given(st.data())
def test_move_list_round_trip(data: st.DataObject) -> None:
    """Move lists round trip, spaced and compact, on every size."""
    size = data.draw(sizes)
    coords = st.integers(0, size - 1)
    points = data.draw(st.lists(st.builds(Point, coords, coords), max_size=30))
    for compact in (False, True):
        assert parse_moves(format_moves(points, size, compact=compact), size) == points


# -- board -----------------------------------------------------------------


@given(games())
def test_play_then_undo_restores_everything(game: Game) -> None:
    """Undoing each move restores the cells, hash, result and turn before it."""
    board = Board(game.board.size, game.board.rule)
    snapshots = []
    for p in game.moves:
        snapshots.append((bytes(board.cells), board.zobrist, board.result, board.turn))
        board.play(p)
    assert board == game.board
    for p in reversed(game.moves):
        assert board.undo() == [p]
        assert (bytes(board.cells), board.zobrist, board.result, board.turn) == snapshots.pop()
    assert board.zobrist == 0
    assert len(board) == 0


@given(games(), st.data())
def test_undo_many_equals_replaying_fewer(game: Game, data: st.DataObject) -> None:
    """undo(n) gives the same board as replaying all but the last n moves."""
    count = data.draw(st.integers(0, len(game.moves)))
    board = game.board.copy()
    board.undo(count)
    replayed = Board.from_moves(
        game.moves[: len(game.moves) - count], size=board.size, rule=board.rule
    )
    assert board == replayed
    assert board.cells == replayed.cells
    assert board.zobrist == replayed.zobrist
    assert board.result == replayed.result


@given(games(rules=(Rule.FREESTYLE,)), st.randoms(use_true_random=False))
def test_hash_ignores_move_order(game: Game, rnd: random.Random) -> None:
    """The same stones reached in another move order hash the same (transposition)."""
    moves = game.moves[:-1] if game.board.is_over() else game.moves
    black, white = moves[0::2], moves[1::2]
    rnd.shuffle(black)
    rnd.shuffle(white)
    shuffled = [black[i // 2] if i % 2 == 0 else white[i // 2] for i in range(len(moves))]
    first = Board.from_moves(moves, size=game.board.size)
    second = Board.from_moves(shuffled, size=game.board.size)
    assert second.cells == first.cells
    assert second.zobrist == first.zobrist


# -- records ---------------------------------------------------------------

names = st.one_of(st.none(), st.text(max_size=20))
# Names a PSQ file keeps: one line, no padding, not a number.
psq_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_.\- ]{0,15}[A-Za-z0-9]", fullmatch=True)


@st.composite
def times_for(draw: st.DrawFn, count: int) -> list[int | None]:
    if count == 0 or draw(st.booleans()):
        return [None] * count
    elapsed, stamps = 0, []
    for _ in range(count):
        elapsed += draw(st.integers(0, 600_000))
        stamps.append(elapsed)
    return list(stamps)


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    """A legal game's record with random times, names and, if the board did not
    end the game, possibly a result the server decided."""
    game = draw(games())
    server_result = None
    if not game.board.is_over() and draw(st.booleans()):
        reason = draw(st.sampled_from([Reason.RESIGN, Reason.TIMEOUT, Reason.AGREEMENT]))
        winners: dict[Reason, list[Color | None]] = {
            Reason.RESIGN: [Color.BLACK, Color.WHITE],
            Reason.AGREEMENT: [None],
            Reason.TIMEOUT: [Color.BLACK, Color.WHITE, None],  # a flag may fall to a draw
        }
        winner = draw(st.sampled_from(winners[reason]))
        server_result = Result(winner, reason)
    return GameRecord.from_board(
        game.board,
        opening=draw(st.sampled_from(Opening)),
        players=Players(draw(names), draw(names)),
        times=draw(times_for(len(game.moves))),
        result=server_result,
        started_at=draw(st.one_of(st.none(), st.just("2025-01-02T03:04:05Z"))),
    )


@given(records())
def test_json_round_trip(record: GameRecord) -> None:
    """A record survives JSON text and plain data unchanged."""
    assert parse_json(format_json(record)) == record
    assert record_from_dict(record_to_dict(record)) == record


@given(records())
def test_repr_round_trip(record: GameRecord) -> None:
    """A record's repr rebuilds it."""
    namespace = {
        cls.__name__: cls
        for cls in (GameRecord, Players, TimedMove, Point, Result, Color, Reason, Rule, Opening)
    }
    assert eval(repr(record), namespace) == record


@given(records(), st.booleans())
def test_move_list_record_round_trip(record: GameRecord, compact: bool) -> None:
    """A move list keeps the moves, and the replay finds the board's result."""
    text = format_move_list(record, compact=compact)
    back = parse_move_list(text, size=record.size, rule=record.rule)
    assert back.points == record.points
    assert back.result == record.board().result


@given(records(), psq_names, psq_names)
def test_psq_round_trip(record: GameRecord, black: str, white: str) -> None:
    """A PSQ file keeps the size, the moves, their times and the players' names."""
    record = GameRecord.from_board(
        record.board(), players=Players(black, white), times=[m.t for m in record.moves]
    )
    back = parse_psq(format_psq(record), rule=record.rule)
    assert back.size == record.size
    assert back.points == record.points
    assert back.players == record.players
    times = [m.t for m in record.moves]
    if all(t in (None, 0) for t in times):
        assert all(m.t is None for m in back.moves)
    else:
        assert [m.t for m in back.moves] == times
    assert back.result == record.result
