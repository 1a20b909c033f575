"""The client commands refuse bad options before anything starts: the real ``gomoku``
script is run, and a bad option gets the usage line and one line naming it, exit
status 2, no traceback. A missing terminal-UI library is one line with the
install command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GOMOKU = Path(sys.executable).with_name("gomoku")
MATCH = ["match", "--engine-a", "true", "--engine-b", "true"]  # `true`: a program that exists


def gomoku(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GOMOKU), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def refused(proc: subprocess.CompletedProcess[str], command: str) -> str:
    """The one error line of a refused command (after checking the whole shape)."""
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    usage, _, error = proc.stderr.partition(f"\n{command}: error: ")
    assert usage.startswith(f"usage: {command} "), proc.stderr
    assert error.count("\n") == 1, proc.stderr
    return error.strip()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["play", "ftp://host"], "argument SERVER: 'ftp://host': ftp:// is not a server address"),
        (["play", "host:70000"], "'70000' is not a port number (1 to 65535)"),
        (["play", "my host"], "has a space in it"),
        (["play", "--profile", "../bob"], "argument --profile: '../bob' is not a profile name"),
        (["play", "--name", ""], "argument --name: '' is not a name"),
        (["play", "--name", "a" * 25], f"argument --name: '{'a' * 25}' is not a name"),
        (["play", "--glyphs", "emoji"], "argument --glyphs: invalid choice: 'emoji'"),
        (["play", "--colour"], "unrecognized arguments: --colour"),
        (  # the address was ignored without a word: a server of its own was started
            ["play", "--local", "127.0.0.1:18901"],
            "argument --local: it starts a server of its own: connect to 127.0.0.1:18901 "
            "without --local, or give no SERVER",
        ),
        (["analyze", "--size", "40"], "argument --size: 40 is more than 26"),
        (["analyze", "--time", "-1", "--json"], "argument --time: -1 is less than 0"),
        (["analyze", "--time", "inf", "--json"], "argument --time: 'inf' is not a number"),
        (["analyze", "--moves", "h8 h8"], "argument --moves: move 2 (h8): h8 is occupied"),
        (["review", "--size", "99", "x.txt"], "argument --size: 99 is more than 26"),
        (["review", "/nonexistent/game.json"], "argument FILE: cannot read /nonexistent"),
        ([*MATCH, "--games", "0"], "argument --games: 0"),
        (["match", "--engine-a", "", "--engine-b", "true"], "--engine-a: an empty command"),
        (["match", "--engine-a", "true", "--engine-b", "nobrain"], "'nobrain': no such command"),
        (["match", "--engine-a", "/opt/no/pbrain-x", "--engine-b", "true"], "no such command"),
        ([*MATCH, "--size", "3"], "argument --size"),
        ([*MATCH, "--turn-ms", "x"], "not a whole number"),
    ],
)
def test_a_bad_option_is_one_line_with_the_usage(args: list[str], says: str) -> None:
    """Each bad option: exit 2, the usage line, one line naming the option."""
    command = f"gomoku {args[0]}"
    assert says in refused(gomoku(*args), command)


def test_review_of_a_directory_or_a_binary_file(tmp_path: Path) -> None:
    """A directory or a file that is not text is refused in one line, not a traceback."""
    assert "is a directory" in refused(gomoku("review", str(tmp_path)), "gomoku review")
    binary = tmp_path / "game.psq"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert "is not a text file" in refused(gomoku("review", str(binary)), "gomoku review")


def test_review_export_converts_a_file_with_no_screen(tmp_path: Path) -> None:
    """--export writes the record in the format OUT's extension names, prints one line and
    opens no terminal UI (there was no way to convert a file from a script). A file
    with no extension is read by what its text is: here a Piskvork file."""
    source = tmp_path / "game"
    source.write_text("Piskvorky 15x15, 11:11, 0\r\n8,8,0\r\n9,9,0\r\n8,9,0\r\n-1\r\n")
    out = tmp_path / "game.txt"
    proc = gomoku("review", str(source), "--export", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{source} (3 moves) exported as moves to {out}\n"
    assert out.read_text() == "h8 i7 h7\n"
    again = tmp_path / "again.json"
    assert gomoku("review", str(out), "--export", str(again)).returncode == 0
    assert '"moves"' in again.read_text()


def test_a_server_record_exported_to_json_keeps_the_servers_facts(tmp_path: Path) -> None:
    """A record the server kept (its "game": ids, ratings, the clock, a swap2 opening)
    exported to .json with --export keeps them, as the review screen's export does (they
    were dropped without a word, and .psq's note says ".json keeps everything")."""
    game = {
        "id": "r-1",
        "black": "p-a",
        "white": "p-b",
        "rated": True,
        "time": {"base_ms": 15_000, "inc_ms": 0},
        "swap2": {"opener": "white", "stones": 5},
    }
    record = {
        "format": "gomoku-arena-record",
        "version": 1,
        "rule": "freestyle",
        "size": 15,
        "opening": "swap2",
        "players": {"black": "ann", "white": "bob"},
        "moves": [{"move": p, "t": 0} for p in ("h8", "a1", "i9")],
        "result": None,
        "game": game,
    }
    source, out = tmp_path / "kept.json", tmp_path / "copy.json"
    source.write_text(json.dumps(record))
    proc = gomoku("review", str(source), "--export", str(out))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["game"] == game


def test_a_psq_refused_under_freestyle_says_the_rule_is_not_recorded(tmp_path: Path) -> None:
    """A standard game (Black's overline did not win) exported as .psq: read as
    freestyle, the overline ends it and a later move is refused. The line now says the
    file does not record its rule; --rule standard reads it."""
    game = tmp_path / "standard.psq"
    game.write_text(
        "Piskvorky 15x15, 11:11, 0\n3,11,0\n3,15,0\n4,11,0\n4,15,0\n5,11,0\n5,15,0\n"
        "7,11,0\n6,14,0\n8,11,0\n7,14,0\n6,11,0\n8,14,0\n-1\n"
    )
    assert refused(gomoku("review", str(game)), "gomoku review") == (
        f"argument FILE: {game}: move 12 (h2): the game is over"
        " (read as freestyle: this format does not record the rule; try --rule)"
    )
    out = tmp_path / "out.txt"
    proc = gomoku("review", str(game), "--rule", "standard", "--export", str(out))
    assert proc.returncode == 0, proc.stderr


def test_an_export_that_loses_the_rule_or_size_says_how_to_read_it_back(tmp_path: Path) -> None:
    """A 19x19 renju game exported as a move list read back as 15x15 freestyle (other
    forbidden points, or none), and a standard game as PSQ was refused as over, with no
    word about it at the export. The export now says what to pass to read it back."""
    source = tmp_path / "g19.txt"
    source.write_text("m13 a1 n13 a3 o12 a5 o11 a7\n")
    full = tmp_path / "g19.json"
    made = gomoku("review", str(source), "--size", "19", "--rule", "renju", "--export", str(full))
    assert made.returncode == 0, made.stderr
    moves = tmp_path / "g19_moves.txt"
    proc = gomoku("review", str(full), "--export", str(moves))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == (
        "note: a move list does not record the rule or the board size: read it back with "
        "--rule renju --size 19 (.json keeps everything)"
    )
    again = gomoku("analyze", "--record", str(moves), "--rule", "renju", "--size", "19")
    assert again.stdout.splitlines()[-1] == "Forbidden for Black (*): o13 (double-three)"
    psq = tmp_path / "g19.psq"
    proc = gomoku("review", str(full), "--export", str(psq))
    assert proc.stdout.splitlines()[1] == (
        "note: a PSQ file does not record the rule: read it back with --rule renju "
        "(.json keeps everything)"
    )
    plain = tmp_path / "plain.txt"
    proc = gomoku("review", str(source), "--export", str(plain))  # freestyle 15x15: all kept
    assert proc.stdout.count("\n") == 1, proc.stdout


def test_an_export_that_loses_the_result_says_so(tmp_path: Path) -> None:
    """A game won by resignation, exported as PSQ or a move list, read back as an
    unfinished game with no word at the export (the note spoke of the rule and size
    only); a move list loses the players and times too."""
    record = tmp_path / "resigned.json"
    record.write_text(
        '{"format": "gomoku-arena-record", "version": 1, "rule": "freestyle", "size": 15,'
        ' "opening": "free", "players": {"black": "ann", "white": "bob"},'
        ' "moves": [{"move": "h8", "t": 0}, {"move": "a1", "t": 900}],'
        ' "result": {"winner": "black", "reason": "resign"}}'
    )
    psq = gomoku("review", str(record), "--export", str(tmp_path / "resigned.psq"))
    assert psq.returncode == 0, psq.stderr
    assert psq.stdout.splitlines()[1] == (
        "note: a PSQ file does not record the result (black wins, resign) (.json keeps everything)"
    )
    moves = gomoku("review", str(record), "--export", str(tmp_path / "resigned.txt"))
    assert moves.stdout.splitlines()[1] == (
        "note: a move list does not record the result (black wins, resign), the players "
        "or the times (.json keeps everything)"
    )


def test_analyze_of_a_file_without_its_rule_suggests_one(tmp_path: Path) -> None:
    """A standard game whose overline did not win, as a move list: read as freestyle the
    overline ends it and a later move is refused; the line says the rule is not in
    the file, as review's does."""
    standard = tmp_path / "std6.txt"
    standard.write_text("d8 d1 e8 f1 f8 h1 h8 j1 i8 l1 g8 n1 c10 n3 c11 n5 c12 n7 c13 n9 c14\n")
    proc = gomoku("analyze", "--record", str(standard))
    assert refused(proc, "gomoku analyze").endswith(
        "move 12 (n1): the game is over (read as freestyle: this format does not record the "
        "rule; try --rule)"
    )
    proc = gomoku("analyze", "--record", str(standard), "--rule", "standard")
    assert proc.stdout.splitlines()[-1] == "Black wins (five: c14 c13 c12 c11 c10)."


def test_review_of_an_empty_file_is_refused(tmp_path: Path) -> None:
    """An empty move list opened as a game of no moves, as if nothing were wrong."""
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    assert refused(gomoku("review", str(empty)), "gomoku review") == (
        f"argument FILE: {empty}: the file is empty"
    )


def test_a_config_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    """GOMOKU_CONFIG_DIR naming a file: one line naming the variable, exit 2."""
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    proc = gomoku("play", "--name", "ann", env={"GOMOKU_CONFIG_DIR": str(not_a_dir)})
    assert proc.returncode == 2
    assert proc.stderr == f"gomoku play: GOMOKU_CONFIG_DIR={not_a_dir} is not a directory\n"


def test_play_help_tells_the_address_forms_and_profiles() -> None:
    """--help lists the address forms a player pastes and how two people share a machine."""
    proc = gomoku("play", "--help")
    assert proc.returncode == 0
    for text in ("ws://host:port", "wss://host:port/path", "[::1]:8765", "http://host:port/"):
        assert text in proc.stdout
    assert "--profile" in proc.stdout
    assert "Two people on one computer" in proc.stdout


def shadow(tmp_path: Path, module: str) -> dict[str, str]:
    """An environment in which ``module`` cannot be imported, as on an install
    without the client extra: a package of that name that raises the same error."""
    package = tmp_path / "shadow" / module
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\", name={module!r})\n"
    )
    return {"PYTHONPATH": str(tmp_path / "shadow")}


@pytest.mark.parametrize("module", ["textual", "platformdirs"])
def test_a_missing_ui_library_is_one_line_naming_the_install(tmp_path: Path, module: str) -> None:
    """Without the client extra, play says what is missing and how to install it:
    one line, exit status 2, no traceback."""
    proc = gomoku("play", "--name", "ann", "127.0.0.1:9", env=shadow(tmp_path, module))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gomoku play: the terminal UI needs {module}")
    assert "pip install 'gomoku-arena[client]'" in proc.stderr


def test_review_without_textual_is_one_line(tmp_path: Path) -> None:
    """gomoku review reads the record first, then says the UI library is missing."""
    record = tmp_path / "game.txt"
    record.write_text("h8 i9 j10\n")
    proc = gomoku("review", str(record), env=shadow(tmp_path, "textual"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("gomoku review: the terminal UI needs textual")


def test_analyze_works_without_the_ui_libraries(tmp_path: Path) -> None:
    """The engine commands need nothing of the client extra."""
    env = shadow(tmp_path, "textual")
    proc = gomoku("analyze", "--moves", "h8 i9", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Black to move." in proc.stdout


def test_gomoku_says_its_version_as_the_other_commands_do() -> None:
    """``gomoku --version`` was an unrecognized argument; gomoku-server and gomoku-ai
    had it."""
    proc = gomoku("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "gomoku 0.1.0\n", "")


def test_analyze_refuses_an_ai_core_it_does_not_know() -> None:
    """GOMOKU_AI_CORE=bogus ran the compiled core without a word."""
    proc = gomoku("analyze", "--moves", "h8", "--time", "0.1", env={"GOMOKU_AI_CORE": "bogus"})
    assert refused(proc, "gomoku analyze") == (
        "environment variable GOMOKU_AI_CORE: 'bogus' is not a core (python: the "
        "plain-Python one; unset: the compiled one, when it is installed)"
    )


def test_other_programs_formats_are_named_not_read_as_moves(tmp_path: Path) -> None:
    """An SGF file was read as a move list ("move 1: '(;gm[4]...' is not a point"), and
    --export g.sgf wrote a move list an SGF viewer refused; both now say what is read."""
    sgf = tmp_path / "game.sgf"
    sgf.write_text("(;GM[4]FF[4]SZ[15];B[hh];W[ig])\n")
    assert refused(gomoku("review", str(sgf)), "gomoku review") == (
        f"argument FILE: {sgf}: SGF files are not supported: use .json, .psq or a move list "
        "like h8 i9 (any other name)"
    )
    game = tmp_path / "game.txt"
    game.write_text("h8 i9\n")
    out = tmp_path / "g.sgf"
    assert refused(gomoku("review", str(game), "--export", str(out)), "gomoku review") == (
        "argument --export: SGF files are not supported: use .json, .psq or a move list "
        "like h8 i9 (any other name)"
    )
    assert not out.exists()


def test_numbered_commented_and_utf16_move_lists_are_read(tmp_path: Path) -> None:
    """A numbered list (``1. h8 2. i9``, ``1.h8``), a comment line and Notepad's UTF-16
    are read; a token that is no point says what a move list is."""
    for name, data in (
        ("numbered.txt", b"# a game with a friend\n1. H8 I9\n2. J10 i8\n"),
        ("renlib.txt", b"1.h8 2.i9 3.j10 4.i8\n"),
        ("utf16.txt", "h8 i9 j10 i8\r\n".encode("utf-16")),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        proc = gomoku("analyze", "--record", str(path), "--json")
        assert proc.returncode == 0, proc.stderr
        shown = json.loads(proc.stdout)
        assert (shown["moves"], shown["last_move"]) == (4, "i8")
    bad = tmp_path / "bad.txt"
    bad.write_text("h8 x i9\n")
    assert refused(gomoku("review", str(bad)), "gomoku review").endswith(
        "move 2: 'x' is not a point like h8 (a move list is points like h8 i9 or h8i9; "
        ".json and .psq files are read by their name)"
    )


def test_a_renju_record_ending_on_a_foul_opens_up_to_the_foul(tmp_path: Path) -> None:
    """A renju game that ends with Black's foul could not be opened at all; it is read
    up to the move before it, with a note that says so."""
    game = tmp_path / "foul.txt"
    game.write_text("h8 a1 g8 a3 i9 a5 i10 a7 i8\n")
    proc = gomoku("analyze", "--record", str(game), "--rule", "renju")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "note: move 9 (i8): i8 is forbidden for Black (double-three): read up to move 8, "
        "before the foul\n"
    )
    assert proc.stdout.startswith("renju, 15x15, 8 moves, last move a7 (white)")
    assert "i8 (double-three)" in proc.stdout  # shown as forbidden, as it is


def test_a_converted_file_says_the_rule_was_assumed_and_options_not_used(tmp_path: Path) -> None:
    """A PSQ turned into JSON with no --rule wrote "freestyle" without a word; --rule on
    a JSON record and --size on a PSQ were dropped without a word; an occupied point no
    longer suggests --rule; a point off 15x15 in a move list suggests --size."""
    psq = tmp_path / "renju.psq"
    psq.write_text("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,7,0\n-1\n")
    out = tmp_path / "renju.json"
    proc = gomoku("review", str(psq), "--export", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == (
        "note: renju.psq does not record the rule: renju.json says freestyle "
        "(export again with --rule renju or --rule standard if it was another)"
    )
    proc = gomoku("review", str(out), "--rule", "standard", "--size", "19", "--export", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "note: --rule standard is not used: renju.json records its rule (freestyle)\n"
        "note: --size 19 is not used: renju.json records its size (15)\n"
    )
    twice = tmp_path / "twice.txt"
    twice.write_text("h8 h8\n")
    assert refused(gomoku("analyze", "--record", str(twice)), "gomoku analyze").endswith(
        "move 2 (h8): h8 is occupied"
    )
    big = tmp_path / "big20.txt"
    big.write_text("j10 k11 t20\n")
    assert refused(gomoku("analyze", "--record", str(big)), "gomoku analyze").endswith(
        "t20 is off a 15x15 board (a move list does not record the board's size: "
        "give --size for a bigger board)"
    )


def test_analyze_of_a_resigned_game_says_the_recorded_result(tmp_path: Path) -> None:
    """A resigned game's record showed only "Black to move."; the record's result
    follows."""
    game = tmp_path / "resigned.json"
    made = gomoku("review", str(tmp_path / "src.txt"), "--export", str(game))
    assert made.returncode == 2  # (no source yet: the record is written by hand below)
    game.write_text(
        json.dumps(
            {
                "format": "gomoku-arena-record",
                "version": 1,
                "size": 15,
                "rule": "freestyle",
                "opening": "free",
                "players": {"black": "ann", "white": "bob"},
                "moves": [{"move": "h8", "t": 0}, {"move": "i9", "t": 1000}],
                "result": {"winner": "black", "reason": "resign"},
            }
        )
    )
    proc = gomoku("analyze", "--record", str(game))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-2:] == [
        "Black to move.",
        "The record says: black wins (resign).",
    ]
    proc = gomoku("analyze", "--record", str(game), "--json")  # a script's view: the same
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["result"], data["recorded_result"]) == (
        None,
        {"winner": "black", "reason": "resign"},
    )


def test_a_dumb_terminal_or_a_pipe_gets_one_line_not_a_screen(tmp_path: Path) -> None:
    """TERM=dumb (Emacs' shell) got the full screen with 24-bit colours and mouse
    tracking, and review wrote escape codes into a file; each is one line now."""
    proc = gomoku("play", "--name", "ann", "127.0.0.1:9", env={"TERM": "dumb"})
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "gomoku play: this terminal (TERM=dumb) cannot draw the screen: run it in a "
        "terminal such as xterm, or under tmux or screen\n"
    )
    game = tmp_path / "game.txt"
    game.write_text("h8 i9\n")
    proc = gomoku("review", str(game), env={"TERM": "xterm"})  # its output a pipe
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "gomoku review: the screen needs a terminal, and its output is not one "
        "(--export OUT converts the record without a screen)\n"
    )


@pytest.mark.parametrize(
    ("environ", "utf8"),
    [
        ({}, True),
        ({"LANG": "C.UTF-8"}, True),
        ({"LANG": "en_GB.utf8"}, True),
        ({"LANG": "C"}, False),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "C"}, False),
        ({"LANG": "C", "LC_CTYPE": "de_DE.UTF-8@euro"}, True),
        ({"LC_ALL": "POSIX"}, False),
        ({"LANG": "de_DE.ISO-8859-1"}, False),
        # As Python leaves them after its PEP 538 coercion of a C or POSIX locale:
        ({"LANG": "C", "LC_CTYPE": "C.UTF-8"}, False),
        ({"LANG": "POSIX", "LC_CTYPE": "C.UTF-8"}, False),
        ({"LC_CTYPE": "C.UTF-8"}, True),
        ({"LANG": "en_US.UTF-8", "LC_CTYPE": "C.UTF-8"}, True),
    ],
)
def test_the_locale_decides_whether_discs_are_drawn(environ: dict[str, str], utf8: bool) -> None:
    """LANG=C and other locales that are not UTF-8 get the ASCII glyphs by default."""
    from client.usage import locale_is_utf8

    assert locale_is_utf8(environ) is utf8


@pytest.mark.parametrize(("lang", "utf8"), [("C", False), ("POSIX", False), ("C.UTF-8", True)])
def test_lang_c_is_read_as_a_running_client_reads_it(lang: str, utf8: bool) -> None:
    """In a process started with LANG=C, Python has set LC_CTYPE=C.UTF-8 (PEP 538): the
    client still takes the locale for one that is not UTF-8 (it drew discs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    code = "from client.usage import locale_is_utf8; print(locale_is_utf8())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**env, "LANG": lang},
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == str(utf8)
