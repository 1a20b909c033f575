"""The compose stack's load balancer without Docker: Debian's ``haproxy`` running the very
file docker-compose.yml mounts (deploy/haproxy.cfg), in front of real ``gomoku-server``
processes on one real Redis.

Compose's part is played by the test: the replicas listen on one port at addresses of
their own (127.0.0.2, 127.0.0.3, ... : all of 127.0.0.0/8 is this machine's loopback),
and :class:`DnsZone` answers the balancer's queries for their name as Docker's embedded
DNS answers for a service name, one address per replica. The file's environment
variables (GOMOKU_LISTEN, GOMOKU_SERVERS, GOMOKU_DNS) point it at them. A second file
given to haproxy adds only a stats socket, so the test can see what the balancer
thinks of each replica; the project's file is used unchanged.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
from live_server import stop

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "haproxy.cfg"
START_TIMEOUT_S = 20.0


def haproxy_binary() -> str:
    """Debian's haproxy (scripts/test installs it when missing)."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    assert found is not None, "haproxy is not installed (scripts/test installs it)"
    return found


class DnsZone:
    """A DNS server on 127.0.0.1 (UDP, a thread of its own) that answers one name with
    the A records of the replicas the test says are up, NXDOMAIN for other names and an
    empty answer for other record types, as Docker's DNS does for a service."""

    def __init__(self, name: str, addresses: Sequence[str]) -> None:
        self.name = name
        self.addresses = list(addresses)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.settimeout(0.1)
        self.port: int = self._sock.getsockname()[1]
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="dns-zone", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                data, peer = self._sock.recvfrom(4096)
            except TimeoutError:
                continue
            try:
                query = dns.message.from_wire(data)
            except Exception:  # not DNS: ignore it, as a resolver would
                continue
            self._sock.sendto(self._answer(query).to_wire(), peer)

    def _answer(self, query: dns.message.Message) -> dns.message.Message:
        reply = dns.message.make_response(query)
        question = query.question[0]
        if question.name.to_text(omit_final_dot=True).lower() != self.name:
            reply.set_rcode(dns.rcode.NXDOMAIN)
        elif question.rdtype == dns.rdatatype.A and self.addresses:
            reply.answer.append(
                dns.rrset.from_text_list(question.name, 1, "IN", "A", list(self.addresses))
            )
        return reply

    def close(self) -> None:
        self._stopped.set()
        self._thread.join()
        self._sock.close()


class Balancer:
    """``haproxy -f deploy/haproxy.cfg`` on a free port of 127.0.0.1, finding the
    replicas named ``servers`` (``name:port``) through the DNS server ``dns``."""

    def __init__(self, tmp: Path, *, servers: str, dns_port: int) -> None:
        self.port = free_port("127.0.0.1")
        self.log = tmp / "haproxy.log"
        self.stats = tmp / "haproxy.sock"
        extra = tmp / "stats.cfg"
        extra.write_text(f'global\n    stats socket "{self.stats}" mode 600 level admin\n')
        self.command = [haproxy_binary(), "-db", "-f", str(CONFIG), "-f", str(extra)]
        self.env = {
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "GOMOKU_LISTEN": f"127.0.0.1:{self.port}",
            "GOMOKU_SERVERS": servers,
            "GOMOKU_DNS": f"127.0.0.1:{dns_port}",
        }
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, env=self.env
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.stats.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"haproxy did not start:\n{self.log.read_text()}")
            time.sleep(0.05)

    def states(self) -> dict[str, str]:
        """What the balancer thinks of each replica it has an address for: address ->
        UP, DOWN, or a transition such as ``UP 1/2`` (going down)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(self.stats))
            sock.sendall(b"show stat\n")
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
        lines = raw.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        states = {}
        for line in lines[1:]:
            row = dict(zip(header, line.split(","), strict=False))
            if row.get("pxname") == "servers" and row.get("addr"):
                states[row["addr"].rsplit(":", 1)[0]] = row["status"]
        return states

    def wait_for(self, expected: dict[str, str | None], timeout_s: float = START_TIMEOUT_S) -> None:
        """Wait until the replicas at these addresses have these states (None: the
        balancer has no replica at that address)."""
        deadline = time.monotonic() + timeout_s
        while True:
            states = self.states()
            if all(states.get(address) == state for address, state in expected.items()):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"balancer sees {states}, expected {expected}")
            time.sleep(0.05)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            stop(process)


class Replica:
    """A ``gomoku-server`` process at ``host:port`` on Redis, as a compose replica is."""

    def __init__(
        self, host: str, port: int, redis_url: str, log: Path, extra: Sequence[str] = ()
    ) -> None:
        self.host, self.port, self.log = host, port, log
        script = shutil.which("gomoku-server", path=str(Path(sys.executable).parent))
        assert script is not None, "gomoku-server is not installed in this environment"
        self.command = [script, "--host", host, "--port", str(port), "--bots", "0"]
        self.command += ["--redis", redis_url, "--log-level", "INFO", *extra]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while self.healthz() != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.05)

    def healthz(self) -> int | None:
        """The status of GET /healthz straight from this replica (None: no answer)."""
        try:
            with urllib.request.urlopen(
                f"http://{self.host}:{self.port}/healthz", timeout=2
            ) as reply:
                return int(reply.status)
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            return None

    def wait_healthz(self, status: int, timeout_s: float = 10.0) -> None:
        """Wait until this replica's /healthz answers ``status``."""
        deadline = time.monotonic() + timeout_s
        while (seen := self.healthz()) != status:
            assert time.monotonic() < deadline, f"/healthz answers {seen}, not {status}"
            time.sleep(0.01)

    def signal(self, sig: int) -> None:
        assert self.process is not None
        self.process.send_signal(sig)

    def wait(self, timeout_s: float = 30.0) -> int:
        assert self.process is not None
        return self.process.wait(timeout_s)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.send_signal(signal.SIGINT)  # a second signal skips the drain
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def free_port(*hosts: str) -> int:
    """A TCP port free on every one of ``hosts`` right now."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((hosts[0], 0))
            port: int = sock.getsockname()[1]
        if all(_free(host, port) for host in hosts[1:]):
            return port
    raise AssertionError(f"no port free on all of {hosts}")


def _free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True
