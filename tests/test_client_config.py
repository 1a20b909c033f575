"""Remembering the name and resume tokens in the config directory."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from client_fixtures import FAST, running, until
from server_fixtures import Connect

from client.address import ServerAddress
from client.app import GomokuApp
from client.config import (
    ENV_DIR,
    FILE_NAME,
    Identity,
    config_dir,
    identity_problem,
    load_identity,
    save_identity,
)
from client.options import PlayOptions
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from server.app import GomokuServer


def test_identity_round_trips_with_private_permissions(tmp_path: Path) -> None:
    """A saved identity loads back; the file holding tokens is readable by its owner only."""
    identity = Identity().with_token("localhost:8765", "alice", "secret-1")
    identity = identity.with_token("lan:9000", "alice", "secret-2")
    path = save_identity(identity, tmp_path)
    assert load_identity(tmp_path) == identity
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert identity.token_for("lan:9000") == "secret-2"
    assert identity.token_for("elsewhere:1") is None


def test_missing_or_corrupt_file_is_a_fresh_identity(tmp_path: Path) -> None:
    """No file, or garbage in it, gives an empty identity rather than an error."""
    assert load_identity(tmp_path) == Identity()
    (tmp_path / FILE_NAME).write_text("{not json", encoding="utf-8")
    assert load_identity(tmp_path) == Identity()
    (tmp_path / FILE_NAME).write_text('{"name": 3, "tokens": {"a": 1, "b": "t"}}')
    assert load_identity(tmp_path) == Identity(name=None, tokens={"b": "t"})


def test_env_var_overrides_the_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GOMOKU_CONFIG_DIR moves the identity file (tests never touch the real home)."""
    monkeypatch.setenv(ENV_DIR, str(tmp_path / "cfg"))
    assert config_dir() == tmp_path / "cfg"
    save_identity(Identity(name="bob"))
    assert (tmp_path / "cfg" / FILE_NAME).exists()
    assert load_identity().name == "bob"


def test_tokens_written_by_clients_before_2026_11_25_are_found(tmp_path: Path) -> None:
    """Those wrote a host as typed and an IPv6 one without brackets; today's keys are
    ``localhost:8765`` and ``[::1]:8765``. The token was not found, and the player came
    back as a new player, their ratings left on the old one."""
    (tmp_path / FILE_NAME).write_text(
        '{"name": "ivy", "tokens": {"::1:8765": "t6", "LOCALHOST:9000": "tu", '
        '"Example.ORG:9001": "te", "ws://lan:1/": "tw"}}'
    )
    identity = load_identity(tmp_path)
    assert identity.token_for(ServerAddress.parse("[::1]:8765").key) == "t6"
    assert identity.token_for(ServerAddress.parse("localhost:9000").key) == "tu"
    assert identity.token_for(ServerAddress.parse("example.org:9001").key) == "te"
    assert identity.token_for(ServerAddress.parse("[::1]:9000").key) is None


async def test_a_player_saved_by_an_older_client_comes_back_as_themself(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """An identity file an older client wrote for ``LOCALHOST:port``: today's client,
    given ``localhost:port``, is back as the same player, straight into the lobby."""
    ivy = await connect("ivy")
    (tmp_path / FILE_NAME).write_text(
        json.dumps({"name": "ivy", "tokens": {f"LOCALHOST:{server.port}": ivy.token}})
    )
    await ivy.ws.close()
    options = PlayOptions(server=ServerAddress("localhost", server.port), config_dir=tmp_path)
    app = GomokuApp(options, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.session.link.online, "online")
        assert isinstance(app.screen, LobbyScreen)
        assert app.model.me == ivy.player


def test_another_name_keeps_the_last_ones_tokens() -> None:
    """A name played as before is that player again; the one it replaced is kept."""
    rosa = Identity().with_token("lan:1", "rosa", "t-rosa").with_token("lan:2", "rosa", "t-r2")
    anon = rosa.with_token("lan:1", "anon", "t-anon")
    assert (anon.name, anon.tokens, anon.earlier) == (
        "anon",
        {"lan:1": "t-anon"},
        {"rosa": {"lan:1": "t-rosa", "lan:2": "t-r2"}},
    )
    assert anon.token_as("rosa", "lan:2") == "t-r2"
    assert anon.token_as("anon", "lan:1") == "t-anon"
    assert anon.token_as("zed", "lan:1") is None
    again = anon.with_token("lan:1", "rosa", "t-rosa")
    assert (again.name, again.tokens) == ("rosa", {"lan:1": "t-rosa", "lan:2": "t-r2"})
    assert again.earlier == {"anon": {"lan:1": "t-anon"}}


async def test_another_name_is_a_new_player_and_the_last_one_comes_back(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """rosa's computer started with --name anon: anon is a new player (said, since it is
    no rename); the file keeps rosa, so --name rosa is rosa again (her token was
    overwritten, her games and ratings lost to this computer)."""
    rosa = await connect("rosa")
    (tmp_path / FILE_NAME).write_text(
        json.dumps({"name": "rosa", "tokens": {f"localhost:{server.port}": rosa.token}})
    )
    await rosa.ws.close()
    address = ServerAddress("localhost", server.port)
    for name, same in (("anon", False), ("rosa", True)):
        options = PlayOptions(server=address, name=name, config_dir=tmp_path)
        app = GomokuApp(options, backoff=FAST)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.model.session.link.online, "online")  # noqa: B023
            assert (app.model.me == rosa.player) is same
            if not same:
                said = [n.message for n in app._notifications]
                assert said == [
                    "anon is a new player here; rosa is kept on this computer: "
                    "gomoku play --name rosa plays as them again."
                ]
            await pilot.press("q")
    assert load_identity(tmp_path).earlier.keys() == {"anon"}


async def test_back_on_a_server_played_as_another_name_is_that_player_again(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """alice on this server, then al on a friend's: back here without --name, the client
    is alice straight away (it asked for a name with al filled in, and Enter made a new
    al here)."""
    alice = await connect("alice")
    here = f"localhost:{server.port}"
    identity = Identity().with_token(here, "alice", alice.token)
    save_identity(identity.with_token("friend:8765", "al", "t-al"), tmp_path)
    await alice.ws.close()
    app = GomokuApp(
        PlayOptions(server=ServerAddress("localhost", server.port), config_dir=tmp_path),
        backoff=FAST,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.session.link.online, "online")
        assert isinstance(app.screen, LobbyScreen)
        assert app.model.me == alice.player
    kept = load_identity(tmp_path)
    assert (kept.name, kept.token_as("al", "friend:8765")) == ("alice", "t-al")


def test_a_file_that_cannot_be_read_is_said_and_left_alone(tmp_path: Path) -> None:
    """gomoku play with an identity file a hand edit broke (a trailing comma) says so in
    one line and starts nothing, the file as it was: read as empty, it was overwritten at
    the next welcome with one token, every other server's player lost to this computer."""
    broken = '{"name": "al", "tokens": {"club:8765": "t-club"},\n}'
    (tmp_path / FILE_NAME).write_text(broken, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "play", "club:8765"],
        capture_output=True,
        text=True,
        env={**os.environ, ENV_DIR: str(tmp_path), "TERM": "xterm-256color"},
        timeout=60,
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"gomoku play: {tmp_path / FILE_NAME} is not readable JSON (")
    assert "move it away to start as a new player" in line
    assert (tmp_path / FILE_NAME).read_text(encoding="utf-8") == broken
    # No file at all, also under a path that is no directory: nothing to say at start
    # (that it cannot be saved is said in the lobby).
    assert identity_problem(tmp_path / "elsewhere") is None
    assert identity_problem(tmp_path / FILE_NAME / "sub") is None


async def test_an_identity_that_cannot_be_saved_is_said_once(
    server: GomokuServer, tmp_path: Path
) -> None:
    """A config directory that cannot be written (made once under sudo, say): the lobby
    says the player will not be remembered (nothing was said, and the next start was a
    new player)."""
    blocked = tmp_path / ("not-a-directory-" * 8)  # a long path: the words come first
    blocked.write_text("")
    options = PlayOptions(
        server=ServerAddress("localhost", server.port), name="roy", config_dir=blocked / "sub"
    )
    app = GomokuApp(options, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.session.link.online, "online")
        said = "This player is not remembered after you quit: your identity could not be saved"
        await until(pilot, lambda: said in " ".join(screen_text(app).split()), "the lobby's word")


async def test_the_lobby_says_which_profile_plays(server: GomokuServer, tmp_path: Path) -> None:
    """With --profile the lobby's title names it: two people sharing an account could not
    tell from the screen whose profile was open."""
    async with running(server, tmp_path, "ann", profile="ann") as (app, _):
        assert screen_text(app).splitlines()[0].startswith(" Gomoku Arena · ann @ ")
        assert "(profile ann)" in screen_text(app).splitlines()[0]
