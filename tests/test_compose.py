"""The docker-compose stack and the Dockerfile have the shape operators rely on.

No Docker engine runs here, so the compose file is read with a strict YAML-subset
reader; where the docker CLI has the compose plugin, `docker compose config`
validates the file against the real schema as well.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import cast

import pytest
from yaml_subset import Value, YamlSubsetError, load

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"


def _mapping(value: Value) -> dict[str, Value]:
    assert isinstance(value, dict), value
    return value


def _strings(value: Value) -> list[str]:
    assert isinstance(value, list), value
    assert all(isinstance(item, str) for item in value), value
    return cast(list[str], value)


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Value]]:
    """The compose file's services, each as a plain mapping."""
    compose = _mapping(load(COMPOSE.read_text()))
    return {name: _mapping(spec) for name, spec in _mapping(compose["services"]).items()}


def test_three_services_none_pinned_to_a_container_name(
    services: dict[str, dict[str, Value]],
) -> None:
    """redis, server and ai exist, and none has a container_name that would block scaling."""
    assert set(services) == {"redis", "server", "ai"}
    assert all("container_name" not in spec for spec in services.values())


def test_redis_persists_and_has_a_healthcheck(services: dict[str, dict[str, Value]]) -> None:
    """Redis runs append-only onto a named volume and answers a redis-cli ping healthcheck."""
    redis = services["redis"]
    command = _strings(redis["command"])
    assert command[command.index("--appendonly") + 1] == "yes"
    volume = _strings(redis["volumes"])[0].split(":")
    assert volume[1] == "/data"
    compose = _mapping(load(COMPOSE.read_text()))
    assert volume[0] in _mapping(compose["volumes"])
    assert _strings(_mapping(redis["healthcheck"])["test"])[1:] == ["redis-cli", "ping"]


def test_server_waits_for_healthy_redis_and_serves_8765(
    services: dict[str, dict[str, Value]],
) -> None:
    """The server starts after redis is healthy, points at it, and publishes port 8765."""
    server = services["server"]
    depends = _mapping(_mapping(server["depends_on"])["redis"])
    assert depends["condition"] == "service_healthy"
    assert _mapping(server["environment"])["GOMOKU_REDIS_URL"] == "redis://redis:6379/0"
    command = _strings(server["command"])
    assert command[0] == "gomoku-server"
    assert command[command.index("--port") + 1] == "8765"
    ports = _strings(server["ports"])
    assert [p.rsplit(":", 1)[1] for p in ports] == ["8765"]
    host = ports[0].rsplit(":", 1)[0]
    assert "-" in host, "a host port range lets `--scale server=N` publish every replica"


def test_server_healthcheck_gets_healthz_without_curl(
    services: dict[str, dict[str, Value]],
) -> None:
    """The server's healthcheck fetches /healthz with Python's urllib (no curl in the image)."""
    test = _strings(_mapping(services["server"]["healthcheck"])["test"])
    assert test[:3] == ["CMD", "python", "-c"]
    assert "urllib" in test[3]
    assert "/healthz" in test[3]
    compile(test[3], "<healthcheck>", "exec")  # a quoting slip would only show in production


def test_ai_worker_is_optional_and_targets_the_server(
    services: dict[str, dict[str, Value]],
) -> None:
    """The AI worker connects to ws://server:8765 and sits behind a profile until it exists."""
    ai = services["ai"]
    assert _strings(ai["command"]) == ["gomoku-ai", "--server", "ws://server:8765"]
    assert _strings(ai["profiles"]) == ["ai"]


def test_dockerfile_is_slim_and_runs_as_non_root() -> None:
    """The image is a slim Python 3.11+ base, installs the redis extra and drops root."""
    lines = [line.strip() for line in DOCKERFILE.read_text().splitlines()]
    base = next(line for line in lines if line.startswith("FROM "))
    image = base.split()[1]
    assert image.startswith("python:3.")
    assert image.endswith("-slim")
    assert int(image.split(":")[1].split(".")[1].split("-")[0]) >= 11
    assert any(".[redis]" in line for line in lines if line.startswith("RUN "))
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users, "no USER line: the server would run as root"
    assert users[-1] not in {"root", "0"}
    last_run = max(i for i, line in enumerate(lines) if line.startswith("RUN "))
    assert lines.index(f"USER {users[-1]}") > last_run
    command = [line for line in lines if line.startswith("CMD ")][-1]  # the last one is the image's
    assert command.startswith('CMD ["gomoku-server"')


def test_compose_cli_accepts_the_file_when_present() -> None:
    """`docker compose config` accepts the file where the compose plugin exists; the subset
    reader accepts it everywhere."""
    load(COMPOSE.read_text())
    docker = shutil.which("docker")
    if docker is None:
        return
    plugin = subprocess.run(
        [docker, "compose", "version"], capture_output=True, check=False, timeout=30
    )
    if plugin.returncode != 0:
        return
    checked = subprocess.run(
        [docker, "compose", "-f", str(COMPOSE), "--profile", "ai", "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize(
    "text",
    [
        "a: &anchor 1\n",
        "a:\n  - b: 1\n",
        "a: {b: 1}\n",
        "a: |\n  text\n",
        "a: 1\na: 2\n",
        "a:\n\tb: 1\n",
    ],
)
def test_subset_reader_refuses_what_it_does_not_understand(text: str) -> None:
    """YAML outside the subset fails loudly instead of being misread."""
    with pytest.raises(YamlSubsetError):
        load(text)


def test_subset_reader_reads_the_supported_forms() -> None:
    """Mappings, sequences, flow lists, quotes, comments and ints come out as Python values."""
    text = (
        "# comment\n"
        "a:\n"
        "  b: 'it''s'  # trailing comment\n"
        '  c: ["x, y", z, 3]\n'
        "  d:\n"
        "    - redis://h:1/0\n"
        "e:\n"
    )
    assert load(text) == {
        "a": {"b": "it's", "c": ["x, y", "z", 3], "d": ["redis://h:1/0"]},
        "e": None,
    }
