"""The docker-compose stack and the Dockerfile have the shape operators rely on.

No Docker engine runs here, so the compose file is read with PyYAML (``safe_load``,
refusing a key given twice, as Compose does) and its parts are checked against each
other (the balancer's configuration names the server service and port, the servers trust
the balancer's address, the grace periods cover the drain); where the docker CLI has the
compose plugin, `docker compose config` validates the file against the real schema as
well. The balancer's configuration itself runs in tests/test_balancer.py.
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from pathlib import Path
from typing import cast

import pytest
import yaml

from server.config import ConnectionLimits, ServerConfig

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
HAPROXY_CONFIG = "/usr/local/etc/haproxy/haproxy.cfg"
"""Where the official haproxy image reads its configuration."""


Value = object  # what a YAML document holds: checked where it is read


class _StrictLoader(yaml.SafeLoader):
    """``safe_load`` that refuses a mapping with a key given twice (PyYAML would keep the
    last value silently; Compose refuses the file)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        twice = sorted({str(k) for k in keys if keys.count(k) > 1})
        if twice:
            raise yaml.constructor.ConstructorError(
                None, None, f"key given twice: {', '.join(twice)}", node.start_mark
            )
        return super().construct_mapping(node, deep=deep)


def load(text: str) -> Value:
    return yaml.load(text, Loader=_StrictLoader)


def _mapping(value: Value) -> dict[str, Value]:
    assert isinstance(value, dict), value
    return value


def _strings(value: Value) -> list[str]:
    assert isinstance(value, list), value
    assert all(isinstance(item, str) for item in value), value
    return cast(list[str], value)


def _default(value: Value) -> str:
    """What a compose value comes to with no variable set: ``${NAME:-default}`` is the
    default, anything else itself."""
    assert isinstance(value, str), value
    found = re.fullmatch(r"\$\{\w+:-(.*)\}", value)
    return found.group(1) if found else value


def _seconds(value: Value) -> float:
    """A compose duration such as ``15s`` or ``1m30s``, in seconds."""
    assert isinstance(value, str), value
    parts = re.findall(r"(\d+)(h|m|s)", value)
    assert "".join(n + u for n, u in parts) == value, value
    return float(sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts))


def _haproxy_config(services: dict[str, dict[str, Value]]) -> str:
    """The text of the file mounted as the balancer's configuration."""
    for volume in _strings(services["balancer"]["volumes"]):
        source, target, *_ = volume.split(":")
        if target == HAPROXY_CONFIG:
            return (ROOT / source).read_text()
    raise AssertionError(f"nothing is mounted at {HAPROXY_CONFIG}")


def _haproxy_default(config: str, variable: str) -> str:
    """The default the HAProxy file gives ``"${VARIABLE-default}"``."""
    found = re.search(rf"\$\{{{variable}-([^}}]*)\}}", config)
    assert found is not None, f"{variable} has no default in the balancer's configuration"
    return found.group(1)


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Value]]:
    """The compose file's services, each as a plain mapping."""
    compose = _mapping(load(COMPOSE.read_text()))
    return {name: _mapping(spec) for name, spec in _mapping(compose["services"]).items()}


def test_four_services_none_pinned_to_a_container_name(
    services: dict[str, dict[str, Value]],
) -> None:
    """redis, server, balancer and ai exist, and none has a container_name that would
    block scaling."""
    assert set(services) == {"redis", "server", "balancer", "ai"}
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


def test_server_waits_for_healthy_redis_and_publishes_no_port(
    services: dict[str, dict[str, Value]],
) -> None:
    """The server starts after redis is healthy, points at it, and serves 8765 on the
    project's network only: a published port would tie a replica to a host port, and
    `--scale server=N` would need N of them."""
    server = services["server"]
    depends = _mapping(_mapping(server["depends_on"])["redis"])
    assert depends["condition"] == "service_healthy"
    assert _mapping(server["environment"])["GOMOKU_REDIS_URL"] == "redis://redis:6379/0"
    command = _strings(server["command"])
    assert command[0] == "gomoku-server"
    assert command[command.index("--port") + 1] == "8765"
    assert "ports" not in server
    assert _strings(server["expose"]) == ["8765"]


def test_the_balancer_publishes_8765_and_runs_the_tested_file(
    services: dict[str, dict[str, Value]],
) -> None:
    """The balancer is a pinned HAProxy 2 image, publishes 8765, and runs
    deploy/haproxy.cfg read-only, whose defaults name the server service and its port,
    check /healthz, and add X-Forwarded-For."""
    balancer = services["balancer"]
    image = balancer["image"]
    assert isinstance(image, str)
    assert re.fullmatch(r"haproxy:2\.\d+(\.\d+)?(-\w+)?", image), "pin the HAProxy branch"
    assert _strings(balancer["ports"]) == ["8765:8765"]
    mounts = [v.split(":") for v in _strings(balancer["volumes"])]
    assert ["./deploy/haproxy.cfg", HAPROXY_CONFIG, "ro"] in mounts
    assert (ROOT / "deploy" / "haproxy.cfg").is_file()
    config = _haproxy_config(services)
    assert _haproxy_default(config, "GOMOKU_LISTEN") == ":8765"
    server_command = _strings(services["server"]["command"])
    port = server_command[server_command.index("--port") + 1]
    assert _haproxy_default(config, "GOMOKU_SERVERS") == f"server:{port}"
    assert _haproxy_default(config, "GOMOKU_DNS") == "127.0.0.11:53"  # Docker's own DNS
    assert "resolvers docker" in config
    assert re.search(r"^\s*server-template \S+ 1-\d+ \S+", config, re.M)
    assert re.search(r"^\s*default-server .*\bresolvers docker\b", config, re.M)
    assert re.search(r"^\s*http-check send meth GET uri /healthz\b", config, re.M)
    assert re.search(r"^\s*option forwardfor\b", config, re.M)
    assert re.search(r"^\s*timeout tunnel \d+", config, re.M)


def test_the_servers_trust_the_balancers_fixed_address(
    services: dict[str, dict[str, Value]],
) -> None:
    """The per-address limit counts the client the balancer names: the servers trust
    X-Forwarded-For from the balancer's address, a fixed one inside the network's subnet
    (each overridable, with defaults that agree)."""
    compose = _mapping(load(COMPOSE.read_text()))
    network = _mapping(_mapping(compose["networks"])["default"])
    config = _mapping(network["ipam"])["config"]
    assert isinstance(config, list)
    (subnet,) = [ipaddress.ip_network(_default(_mapping(c)["subnet"])) for c in config]
    networks = _mapping(services["balancer"]["networks"])
    address = ipaddress.ip_address(_default(_mapping(networks["default"])["ipv4_address"]))
    assert address in subnet
    trusted = _default(_mapping(services["server"]["environment"])["GOMOKU_TRUSTED_PROXIES"])
    assert trusted == str(address)


def test_grace_periods_cover_the_drain(services: dict[str, dict[str, Value]]) -> None:
    """Docker waits long enough before SIGKILL: for a server, its drain, the closing
    handshake and the local AI worker's stop (up to 5 s: GomokuServer); for the balancer,
    its hard-stop-after."""
    server = services["server"]
    command = _strings(server["command"])
    environment = _mapping(server["environment"])
    if "--drain" in command:
        drain = float(command[command.index("--drain") + 1])
    else:
        drain = float(_default(environment.get("GOMOKU_DRAIN") or str(ServerConfig().drain_s)))
    assert server["stop_signal"] == "SIGTERM"
    needed = drain + ConnectionLimits().close_timeout_s + 5.0
    assert _seconds(server["stop_grace_period"]) >= needed
    hard_stop = re.search(r"^\s*hard-stop-after (\d+)s$", _haproxy_config(services), re.M)
    assert hard_stop is not None
    assert _seconds(services["balancer"]["stop_grace_period"]) > int(hard_stop.group(1))


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


def test_the_file_is_one_mapping() -> None:
    """Every test above reads the file as a mapping of its top-level keys."""
    assert isinstance(load(COMPOSE.read_text()), dict)


def compose_command() -> list[str] | None:
    """A Compose that can read the file without an engine: the docker CLI's compose
    plugin, or else the old standalone ``docker-compose`` (Debian 12 packages 1.29,
    which knows the same Compose specification); None if neither is here."""
    docker = shutil.which("docker")
    if docker is not None:
        plugin = subprocess.run(
            [docker, "compose", "version"], capture_output=True, check=False, timeout=30
        )
        if plugin.returncode == 0:
            return [docker, "compose"]
    standalone = shutil.which("docker-compose")
    return None if standalone is None else [standalone]


def test_compose_accepts_the_file() -> None:
    """Compose validates the file against its own schema (it needs no engine for that)."""
    compose = compose_command()
    if compose is None:
        pytest.fail("neither `docker compose` nor docker-compose here (scripts/test installs it)")
    checked = subprocess.run(
        [*compose, "-f", str(COMPOSE), "--profile", "ai", "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr


def test_a_key_given_twice_is_refused() -> None:
    """A compose edit that repeats a key fails the test, as Compose would refuse it,
    instead of one of the two values being dropped silently."""
    with pytest.raises(yaml.YAMLError, match="key given twice: a"):
        load("a: 1\nb:\n  c: 2\na: 3\n")
    with pytest.raises(yaml.YAMLError, match="key given twice: c"):
        load("b:\n  c: 2\n  c: 3\n")
    assert load("a: &x 1\nb: *x\n") == {"a": 1, "b": 1}  # YAML Compose takes, read as it means
