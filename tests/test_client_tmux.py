"""Two people at two real terminals: ``gomoku play`` under tmux, typed at with
``send-keys`` and read with ``capture-pane``, against a ``gomoku-server`` process.

The clients connect to the address the server printed, each with its own
``--profile`` in one config directory (two people, one OS account). They play a
game to five in a row with typed points, a draw offer is declined with ``n``, a
chat line with ``d`` and ``m`` in it is sent, then a rematch is resigned. Every
check reads the screens a person would read. Run it alone with
``pytest -m tmux``; it runs with the rest of the suite too (scripts/test installs
tmux).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import LiveServer, alive, live_server

pytestmark = pytest.mark.tmux

WAIT_S = 20.0
KEY_GAP_S = 0.08  # a fast typist: keys arrive apart, as from a keyboard
ESC_GAP_S = 0.3


class Tmux:
    """A tmux server of this test's own (its own socket), one session per player."""

    def __init__(self, workdir: Path) -> None:
        binary = shutil.which("tmux")
        assert binary is not None, "tmux is not installed (scripts/test installs it)"
        self.binary = binary
        self.socket = f"gomoku-test-{uuid.uuid4().hex[:8]}"
        self.workdir = workdir

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [self.binary, "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout

    def start(self, name: str, command: str, width: int = 80, height: int = 24) -> None:
        """A detached session ``name`` of ``width`` x ``height`` running ``command``;
        the pane stays after the command exits, so a crash can be read."""
        self.run("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), command)
        self.run("set-option", "-t", name, "remain-on-exit", "on")

    def keys(self, name: str, *keys: str) -> None:
        """Press named keys (``Enter``, ``Escape``, ``C-d``) one at a time. After Esc a
        terminal waits (ESCDELAY, 100 ms) to tell it from the start of Alt+key; a
        person's next key comes later than that, and so does this one's."""
        for key in keys:
            self.run("send-keys", "-t", name, key)
            time.sleep(ESC_GAP_S if key == "Escape" else KEY_GAP_S)

    def type(self, name: str, text: str) -> None:
        """Type ``text`` character by character."""
        for character in text:
            self.run("send-keys", "-t", name, "-l", character)
            time.sleep(KEY_GAP_S)

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def wait_for(self, name: str, *texts: str, wait_s: float = WAIT_S) -> str:
        """The screen once it shows every one of ``texts``, on one line or wrapped
        (over whole lines, or down the log column right of the board); fails with the
        screen after ``wait_s``."""
        deadline = time.monotonic() + wait_s
        while True:
            screen = self.screen(name)
            lines = screen.splitlines()
            joined = " ".join(line.strip() for line in lines)
            log = " ".join(line.rsplit("▊", 1)[1].strip() for line in lines if "▊" in line)
            if all(text in joined or text in log for text in texts):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{name}'s screen never showed {texts}:\n{screen}")
            time.sleep(0.1)

    def wait_stone(self, name: str, point: str, stone: str, wait_s: float = WAIT_S) -> str:
        """The screen once the board on it shows ``stone`` on ``point``."""
        deadline = time.monotonic() + wait_s
        while True:
            screen = self.screen(name)
            if point_on(screen, point) == stone:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{name}'s board never showed {stone} on {point}:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self.run("kill-server")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    session = Tmux(tmp_path)
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def printed_server() -> Iterator[tuple[LiveServer, str]]:
    """A gomoku-server process and the first address it printed for players."""
    with live_server() as server:
        assert server.process.stdout is not None
        line = server.process.stdout.readline().decode()  # "ws://...  in a browser: ..."
        printed = line.split()[0]
        assert printed.startswith("ws://"), printed
        yield server, printed


def client_command(address: str, profile: str, config: Path) -> str:
    env = f"GOMOKU_CONFIG_DIR={config} TERM=xterm-256color"
    play = f"{sys.executable} -m client.cli play {address} --profile {profile}"
    return f"env {env} {play} --name {profile}"


def point_on(screen: str, point: str) -> str:
    """The glyph on ``point`` (like ``h8``) of the board drawn on ``screen``."""
    column, row = ord(point[0]) - ord("a"), int(point[1:])
    line = next(line for line in screen.splitlines() if line[:3].rstrip("([ ") == f"{row:>2}")
    return line[3 + 2 * column]


def alice_creates_bob_joins(tmux: Tmux) -> tuple[str, str]:
    """Alice makes a room with the dialog's settings (n, Enter), Bob joins it from his
    lobby (Enter): the game starts; (Black, White) as the screens say."""
    tmux.keys("alice", "n")
    tmux.wait_for("alice", "New room", "Create")
    tmux.keys("alice", "Enter")
    tmux.wait_for("alice", "Waiting for an opponent")
    tmux.wait_for("bob", "alice 1500", "waiting")
    tmux.keys("bob", "Enter")
    screens = {p: tmux.wait_for(p, "Game started:") for p in ("alice", "bob")}
    black = next(p for p, s in screens.items() if "your move (black)" in s)
    return black, "bob" if black == "alice" else "alice"


def test_two_players_at_two_terminals(
    tmux: Tmux, printed_server: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, address = printed_server
    config = tmp_path / "config"  # one OS account: both profiles live here
    for profile in ("alice", "bob"):
        tmux.start(profile, client_command(address, profile, config))
    tmux.wait_for("alice", "Gomoku Arena · alice @", "online")
    tmux.wait_for("bob", "Gomoku Arena · bob @", "online")

    black, white = alice_creates_bob_joins(tmux)

    # A game to the end with typed points: h8..l8 for Black, a1.. for White; the
    # H8 and "h 8" forms too.
    black_moves = ["h8", "I8", "j 8", "k8", "l8"]
    white_moves = ["a1", "A3", "a 5", "a7"]
    for number, typed in enumerate(black_moves):
        tmux.type(black, typed)
        tmux.keys(black, "Enter")
        point = typed.replace(" ", "").lower()
        tmux.wait_for(white, f"({point})")  # the move list marks it as the last move
        tmux.wait_stone(white, point, "●")
        if number == len(black_moves) - 1:
            break
        if number == 1:  # White offers a draw; Black declines it with n
            tmux.keys(white, "Escape", "C-d")
            tmux.wait_for(black, f"{white} offers a draw: y accept · n decline")
            time.sleep(0.6)  # a person reads the question before answering
            tmux.keys(black, "n")
            tmux.wait_for(white, f"{black} declined a draw.")
            tmux.wait_for(black, "You declined a draw.")
            tmux.type(black, "good move, dm me")  # chat with d and m: not a draw, not a rematch
            tmux.keys(black, "Enter")
            tmux.wait_for(black, f"{black} (you): good move, dm me")  # one's own line
            tmux.wait_for(white, f"{black}: good move, dm me")
        tmux.type(white, white_moves[number])
        tmux.keys(white, "Enter")
        point = white_moves[number].replace(" ", "").lower()
        tmux.wait_for(black, f"({point})")
        tmux.wait_stone(black, point, "○")

    for player in ("alice", "bob"):
        screen = tmux.wait_for(player, f"{black} (black) wins with five in a row from h8 to l8.")
        assert "black wins (five in a row)" in screen
        assert "offers a draw" not in screen.split("declined")[-1]  # nothing pending
    final = tmux.screen(white)
    for point in ("h8", "i8", "j8", "k8", "l8"):
        assert point_on(final, point) == "●"

    # A rematch (colours swapped), then a resignation.
    tmux.keys(white, "C-n")
    tmux.wait_for(black, f"{white} offers a rematch")
    time.sleep(0.6)
    tmux.keys(black, "y")
    screen = tmux.wait_for(white, f"Game started: {white} (black)", "your move (black)")
    tmux.type(white, "h8")
    tmux.keys(white, "Enter")
    tmux.wait_for(black, "(h8)")
    tmux.keys(black, "Escape", "C-r")
    tmux.wait_for(black, "Resign this game?")
    tmux.keys(black, "y")
    for player in ("alice", "bob"):
        tmux.wait_for(player, f"{black} (white) resigned: {white} (black) wins.")

    # Each profile remembered its own name and token in the one config directory.
    assert (config / "profile-alice.json").exists()
    assert (config / "profile-bob.json").exists()
    assert server.process.poll() is None


def test_a_client_told_to_stop_gives_the_terminal_back(
    tmux: Tmux, printed_server: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """``kill -TERM`` (a service manager, a closed SSH link's SIGHUP likewise): the client
    ends as its quit key ends it, exit status 143. It died at once and left the
    terminal on its frozen screen with mouse reporting on and the cursor hidden, so
    what was typed next ran unseen until ``reset``; then it closed its connection with
    1011, which the server's log reads as a fault: now 1000, as ^Q closes it."""
    server, address = printed_server
    shell = tmp_path / "shell.pid"
    play = client_command(address, "alice", tmp_path / "config")
    tmux.start("alice", f"sh -c 'echo $$ > {shell}; {play}; echo exit=$?; sleep 60'")
    tmux.wait_for("alice", "Gomoku Arena · alice @", "online")
    shown = "#{alternate_on} #{mouse_any_flag} #{cursor_flag}"
    assert tmux.run("display-message", "-p", "-t", "alice", shown).split() == ["1", "1", "0"]
    client = subprocess.run(
        ["pgrep", "-P", shell.read_text().strip()], capture_output=True, text=True, check=True
    )
    os.kill(int(client.stdout.split()[0]), signal.SIGTERM)
    screen = tmux.wait_for("alice", "exit=143")
    assert "Traceback" not in screen
    assert tmux.run("display-message", "-p", "-t", "alice", shown).split() == ["0", "0", "1"]
    deadline = time.monotonic() + WAIT_S
    while "(alice): close" not in server.log_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "(alice): close 1000" in server.log_text(), server.log_text()


def test_ctrl_z_suspends_the_client_to_the_shell_and_fg_brings_it_back(
    tmux: Tmux, printed_server: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """In a shell, Ctrl+Z stops the client as it stops any terminal program (it did
    nothing), also from a dialog, the shell's prompt comes back, and ``fg`` redraws the
    client as it was."""
    _, address = printed_server
    play = client_command(address, "alice", tmp_path / "config")
    tmux.start("alice", "sh")
    tmux.run("send-keys", "-t", "alice", "-l", play)  # (the shell's line, typed at once)
    tmux.keys("alice", "Enter")
    tmux.wait_for("alice", "Gomoku Arena · alice @", "online")
    tmux.keys("alice", "n")  # from a dialog too (one held it back)
    tmux.wait_for("alice", "New room", "Create")
    tmux.keys("alice", "C-z")
    screen = tmux.wait_for("alice", "Stopped")
    assert "Gomoku Arena · alice @" not in screen  # the shell's own screen again
    tmux.type("alice", "fg")
    tmux.keys("alice", "Enter")
    tmux.wait_for("alice", "New room", "Create")


STUCK_APP = """
import sys, time
sys.path.insert(0, {root!r})
import client.stopping as stopping
from textual.app import App
from textual.widgets import Static

stopping.STOP_WAIT_S = 1.0


class Stuck(App[None]):
    def compose(self):
        yield Static("stuck app ready")

    def on_mount(self) -> None:
        stopping.exit_on_stop_signals(self)

    async def _shutdown(self) -> None:
        time.sleep(3600)  # as a screen writer that no longer writes held it


Stuck().run()
"""


def test_a_client_stuck_ending_is_ended_by_its_stop_signal(tmux: Tmux, tmp_path: Path) -> None:
    """A terminal closed while events were drawn left the client's shutdown waiting for
    good, deaf to later signals (only ``kill -9`` ended it). A stop signal ends the
    process after STOP_WAIT_S (1 s here) if the app has not ended by then, status 143."""
    script = tmp_path / "stuck.py"
    script.write_text(STUCK_APP.format(root=str(Path(__file__).resolve().parent.parent)))
    shell = tmp_path / "shell.pid"
    tmux.start(
        "stuck", f"sh -c 'echo $$ > {shell}; {sys.executable} {script}; echo exit=$?; sleep 60'"
    )
    tmux.wait_for("stuck", "stuck app ready")
    app = subprocess.run(
        ["pgrep", "-P", shell.read_text().strip()], capture_output=True, text=True, check=True
    )
    os.kill(int(app.stdout.split()[0]), signal.SIGTERM)
    tmux.wait_for("stuck", "exit=143")


def test_a_client_stuck_ending_is_ended_soon_when_its_terminal_closes(
    tmux: Tmux, tmp_path: Path
) -> None:
    """The terminal closed (SIGHUP) on a client whose shutdown is stuck: the process
    ends within HANGUP_WAIT_S (3 s), not the 10 s a stop is given (a terminal closed as
    its server stopped left the client there that long)."""
    script = tmp_path / "stuck.py"
    script.write_text(
        STUCK_APP.format(root=str(Path(__file__).resolve().parent.parent)).replace(
            "stopping.STOP_WAIT_S = 1.0", ""
        )
    )
    pid_file = tmp_path / "app.pid"
    tmux.start("stuck", f"sh -c 'echo $$ > {pid_file}; exec {sys.executable} {script}'")
    tmux.wait_for("stuck", "stuck app ready")
    app = int(pid_file.read_text())
    closed = time.monotonic()
    tmux.run("kill-session", "-t", "stuck")
    while alive(app) and time.monotonic() - closed < 9:
        time.sleep(0.1)
    assert not alive(app)
    assert time.monotonic() - closed < 6


def cell_colours(ansi: str, point: str) -> tuple[str, str]:
    """The (foreground, background) SGR codes in force on ``point`` of the board in a
    ``capture-pane -e`` screen: ``30``/``47`` for 16 colours, ``38;5;N``/``48;5;N`` for
    256 ("" for the terminal's default)."""
    column, row = ord(point[0]) - ord("a"), int(point[1:])
    line = next(
        line
        for line in ansi.splitlines()
        if re.sub(r"\x1b\[[0-9;]*m", "", line)[:3].rstrip("([ ") == f"{row:>2}"
    )
    fg = bg = ""
    shown = 0  # characters drawn so far on this line
    for token in re.findall(r"\x1b\[[0-9;]*m|.", line):
        if token.startswith("\x1b["):
            codes = token[2:-1].split(";") if token[2:-1] else ["0"]
            i = 0
            while i < len(codes):
                code = codes[i]
                if code in ("38", "48") and i + 2 < len(codes) and codes[i + 1] == "5":
                    value, i = f"{code};5;{codes[i + 2]}", i + 3
                    fg, bg = (value, bg) if code == "38" else (fg, value)
                    continue
                number = int(code or "0")
                if number == 0:
                    fg = bg = ""
                elif 30 <= number <= 37 or 90 <= number <= 97 or number == 39:
                    fg = "" if number == 39 else code
                elif 40 <= number <= 47 or 100 <= number <= 107 or number == 49:
                    bg = "" if number == 49 else code
                i += 1
            continue
        if shown == 3 + 2 * column:
            return fg, bg
        shown += 1
    raise AssertionError(f"no {point} on the line {line!r}")


def test_white_stones_stand_out_with_16_colours_and_with_256(
    tmux: Tmux, printed_server: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """On a 16-colour terminal (TERM=xterm) White's stone is drawn in black ink on the
    light board (its white on the palette's light grey was all but invisible); with 256
    colours it stays white, on the tan board, not on a light one."""
    _, address = printed_server
    config = tmp_path / "config"
    tmux.start("alice", client_command(address, "alice", config).replace("xterm-256color", "xterm"))
    tmux.start("bob", client_command(address, "bob", config))
    tmux.wait_for("alice", "Gomoku Arena · alice @", "online")
    black, white = alice_creates_bob_joins(tmux)
    tmux.type(black, "h8")
    tmux.keys(black, "Enter")
    tmux.wait_stone(white, "h8", "●")
    tmux.type(white, "a1")
    tmux.keys(white, "Enter")
    tmux.wait_stone(black, "a1", "○")
    tmux.type(black, "h9")  # a1 is no longer the last move, marked apart
    tmux.keys(black, "Enter")
    for player in ("alice", "bob"):
        tmux.wait_stone(player, "h9", "●")
    few = tmux.run("capture-pane", "-p", "-e", "-t", "alice")
    assert cell_colours(few, "a1") == ("30", "47"), few
    assert cell_colours(few, "h8")[0] == "30"
    many = tmux.run("capture-pane", "-p", "-e", "-t", "bob")
    fg, bg = cell_colours(many, "a1")
    assert fg in ("97", "38;5;231", "38;5;15"), many
    assert bg == "48;5;137", many
