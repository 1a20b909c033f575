"""``gomoku-server`` and ``gomoku-ai`` refuse a bad setting before anything starts: the
usage line, one line naming the option or environment variable and what is wrong, exit
status 2, no traceback, nothing listening and nothing written. The real commands run as
subprocesses, as an operator would run them."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

COMMAND_TIMEOUT_S = 30


def run(command: str, args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run an installed command of this environment: (exit status, stdout, stderr)."""
    script = shutil.which(command, path=str(Path(sys.executable).parent))
    assert script is not None, f"{command} is not installed in this environment"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GOMOKU_")}
    done = subprocess.run(
        [script, *args],
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def assert_refused(command: str, status: int, out: str, err: str, *named: str) -> str:
    """Exit 2, nothing on stdout (no banner: nothing started), the usage line and one
    error line that names every string of ``named``; returns the error line."""
    assert "Traceback" not in err, err
    assert status == 2, (status, out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith(f"usage: {command} [options]")
    assert lines[1].startswith(f"{command}: error: "), lines[1]
    for name in named:
        assert name in lines[1], (name, lines[1])
    return lines[1]


SERVER_OPTIONS = [
    (["--port", "70000"], "--port", "0 to 65535"),
    (["--port", "-1"], "--port", "0 to 65535"),
    (["--port", "http"], "--port", "not a port number"),
    (["--redis", "notaurl"], "--redis", "redis://"),
    (["--redis", "redis://"], "--redis", "no host"),
    (["--redis", "redis://localhost:99999/0"], "--redis", "Port out of range"),
    (["--redis", "redis://localhost/zero"], "--redis", "not a number"),
    (["--redis", "redis://localhost/0?socket_timeout=soon"], "--redis", "socket_timeout"),
    (["--redis", "unix://"], "--redis", "no socket path"),
    (["--host", "no-such-host.invalid"], "--host", "not an address here"),
    (["--grace", "nan"], "--grace", "not a number of seconds"),
    (["--grace", "-5"], "--grace", "less than 0"),
    (["--bots", "-1"], "--bots", "less than 0"),
    (["--bot-seats", "0"], "--bot-seats", "less than 1"),
    (["--bot-key", ""], "--bot-key", "1 to 128 characters"),
    (["--loop", "trio"], "--loop", "invalid choice"),
    (["--max-connections", "0"], "--max-connections", "less than 1"),
    (["--max-conns-per-ip", "many"], "--max-conns-per-ip", "not a whole number"),
    (["--trusted-proxy", "proxy.local"], "--trusted-proxy", "not an IP address"),
    (["--allow-origin", "https://play.example.org/"], "--allow-origin", "not a web origin"),
    (["--max-rooms-per-player", "0"], "--max-rooms-per-player", "less than 1"),
    (["--max-code-failures", "0"], "--max-code-failures", "less than 1"),
    (["--max-code-failures-per-ip", "1.5"], "--max-code-failures-per-ip", "whole number"),
    (["--code-failure-window", "0"], "--code-failure-window", "less than"),
    (["--rate-limit", "inf"], "--rate-limit", "not a number"),
    (["--rate-burst", "0"], "--rate-burst", "less than 1"),
    (["--send-buffer", "-1"], "--send-buffer", "less than 1"),
    (["--log-level", "LOUD"], "--log-level", "invalid choice"),
]


@pytest.mark.parametrize(("args", "option", "what"), SERVER_OPTIONS, ids=lambda v: str(v))
def test_the_server_refuses_a_bad_option(args: list[str], option: str, what: str) -> None:
    status, out, err = run("gomoku-server", args)
    assert_refused("gomoku-server", status, out, err, f"argument {option}", what)


SERVER_ENVIRONMENT = [
    ({"GOMOKU_REDIS_URL": "notaurl"}, "redis://"),
    ({"GOMOKU_MAX_CONNS_PER_IP": "-3"}, "less than 0"),
    ({"GOMOKU_MAX_ROOMS_PER_PLAYER": "lots"}, "not a whole number"),
    ({"GOMOKU_RATE_LIMIT": "0"}, "less than 1"),
    ({"GOMOKU_BOT_KEYS": "good," + "k" * 129}, "1 to 128 characters"),
    ({"GOMOKU_TRUSTED_PROXIES": "10.0.0.1,10.0.0"}, "not an IP address"),
    ({"GOMOKU_ALLOW_ORIGINS": "play.example.org"}, "not a web origin"),
]


@pytest.mark.parametrize(("env", "what"), SERVER_ENVIRONMENT, ids=lambda v: str(v)[:40])
def test_the_server_refuses_a_bad_environment_variable(env: dict[str, str], what: str) -> None:
    status, out, err = run("gomoku-server", [], env)
    (name,) = env
    assert_refused("gomoku-server", status, out, err, f"environment variable {name}", what)


WORKER_OPTIONS = [
    (["--server", "http://localhost:8765"], "--server", "not a ws:// or wss:// URL"),
    (["--server", "ws://"], "--server", "names no host"),
    (["--server", "ws://localhost:65536"], "--server", "Port out of range"),
    (["--seats", "0"], "--seats", "less than 1"),
    (["--levels", "grandmaster"], "--levels", "unknown level"),
    (["--brain", "no-such-brain-program --flag"], "--brain", "no such command"),
    (["--brain-level", "Has Spaces"], "--brain-level", "not a level name"),
    (["--processes", "0"], "--processes", "less than 1"),
    (["--move-time", "0"], "--move-time", "less than"),
    (["--pace", "-1"], "--pace", "less than 0"),
    (["--linger", "forever"], "--linger", "not a number of seconds"),
    (["--name", "n" * 25], "--name", "1 to 24 characters"),
    (["--stats", "/no/such/directory/stats.json"], "--stats", "no directory"),
    (["--bot-key", "k" * 129], "--bot-key", "1 to 128 characters"),
]


@pytest.mark.parametrize(("args", "option", "what"), WORKER_OPTIONS, ids=lambda v: str(v))
def test_the_worker_refuses_a_bad_option(args: list[str], option: str, what: str) -> None:
    key = [] if option == "--bot-key" else ["--bot-key", "k"]
    status, out, err = run("gomoku-ai", [*key, *args])
    assert_refused("gomoku-ai", status, out, err, f"argument {option}", what)


def test_the_ai_commands_refuse_an_ai_core_they_do_not_know() -> None:
    """GOMOKU_AI_CORE=bogus was ignored without a word (the compiled core ran): the
    commands that run the AI refuse it as they refuse a bad option."""
    said = "environment variable GOMOKU_AI_CORE: 'bogus' is not a core (python: "
    status, out, err = run("gomoku-ai", ["--bot-key", "k"], {"GOMOKU_AI_CORE": "bogus"})
    assert_refused("gomoku-ai", status, out, err, said)
    status, out, err = run("pbrain-gomoku", [], {"GOMOKU_AI_CORE": "bogus"})
    assert (status, out) == (2, "")
    assert err.splitlines()[-1].startswith(f"pbrain-gomoku: error: {said}"), err
    assert "Traceback" not in err


def test_the_worker_needs_a_bot_key_and_checks_the_variable() -> None:
    status, out, err = run("gomoku-ai", [])
    assert_refused("gomoku-ai", status, out, err, "--bot-key", "GOMOKU_BOT_KEY")
    status, out, err = run("gomoku-ai", [], {"GOMOKU_BOT_KEY": "k" * 200})
    assert_refused("gomoku-ai", status, out, err, "environment variable GOMOKU_BOT_KEY")


def test_the_server_refuses_a_data_file_it_cannot_use(tmp_path: Path) -> None:
    """--data must name a file (in a directory that exists) that is a data file or can
    become one, and only one store may be chosen; a refusal writes nothing."""
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database")
    wanted = tmp_path / "server.sqlite3"
    cases: list[tuple[list[str], dict[str, str], tuple[str, ...]]] = [
        (["--data", str(tmp_path)], {}, ("argument --data", "is a directory")),
        (["--data", ""], {}, ("argument --data", "empty: name the data file")),
        (["--data", str(tmp_path / "no" / "x.db")], {}, ("argument --data", "no directory")),
        (["--data", str(junk)], {}, ("--data", "not a gomoku-server data file")),
        ([], {"GOMOKU_DATA": str(tmp_path)}, ("environment variable GOMOKU_DATA", "directory")),
        (["--data", str(wanted), "--redis", "redis://localhost/0"], {}, ("--redis", "--data")),
        (["--data", str(wanted), "--ephemeral"], {}, ("--ephemeral", "not allowed with --data")),
        (["--ephemeral"], {"GOMOKU_REDIS_URL": "redis://localhost/0"}, ("GOMOKU_REDIS_URL",)),
        (["--data", str(wanted), "--port", "65536"], {}, ("--port",)),
    ]
    for args, env, named in cases:
        status, out, err = run("gomoku-server", args, env)
        assert_refused("gomoku-server", status, out, err, *named)
    assert not wanted.exists()  # no refused start wrote a data file
    assert junk.read_text() == "not a database"


def test_a_redis_password_is_never_shown() -> None:
    """A bad Redis URL is refused without its password in the message, from the command
    line and from GOMOKU_REDIS_URL; so is one naming a Redis that does not answer (exit
    1: the setting is fine, the server is not there)."""
    bad = "redis://:s3cret-pw@localhost:6379/zero"
    for args, env in (
        (["--redis", bad], {}),
        ([], {"GOMOKU_REDIS_URL": bad}),
        (["--redis", "redis://:s3cret-pw@[::1/0"], {}),
    ):
        status, out, err = run("gomoku-server", args, env)
        line = assert_refused("gomoku-server", status, out, err, "redis://")
        assert "s3cret-pw" not in line
    status, out, err = run(
        "gomoku-server", ["--redis", "redis://:s3cret-pw@127.0.0.1:1/0", "--bots", "0"]
    )
    assert status == 1
    assert "s3cret-pw" not in out + err
    assert "cannot use redis at redis://:***@127.0.0.1:1/0" in err


def test_a_port_in_use_is_said_in_one_line(tmp_path: Path) -> None:
    """A port another program listens on stops the server with one line that says so in
    words and names the option to change, exit status 1, no traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        data = str(tmp_path / "data.sqlite")
        status, out, err = run(
            "gomoku-server", ["--host", "127.0.0.1", "--port", str(port), "--data", data]
        )
    assert status == 1, (out, err)
    assert "Traceback" not in err
    [line] = err.splitlines()
    assert line == (
        f"gomoku-server: cannot listen on 127.0.0.1:{port}: the port is in use (another "
        "program, or another gomoku-server, listens there; choose another with --port)"
    )
