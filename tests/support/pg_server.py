"""A throw-away PostgreSQL server for tests and benchmarks: ``initdb`` + ``pg_ctl`` in a temporary folder.

The binaries are found on ``PATH`` or under ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql``
package; ``.ci/run`` installs it). ``initdb`` refuses to run as root, so as root the server runs as the
``postgres`` system user (created by that package) or, failing that, ``nobody``, through ``runuser``.
The server listens on 127.0.0.1 only, on a free port, with trust authentication for the one database
user ``bench``, and its socket in the temporary folder; :meth:`PostgresServer.stop` shuts it down
(``immediate``) and removes the folder.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["PostgresServer", "find_pg_bin"]


def find_pg_bin() -> Path:
    """The folder of ``initdb``/``pg_ctl``: the highest-versioned Debian install, else ``PATH``."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    if which:
        return Path(os.path.realpath(which)).parent
    raise RuntimeError("no PostgreSQL server binaries (initdb): apt-get install postgresql (see .ci/run)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One PostgreSQL server of its own (see the module docstring).

    Parameters
    ----------
    fsync
        ``False`` (tests) turns off fsync and synchronous commit; ``True`` keeps the server's durable
        defaults (benchmarks, so the numbers are those a user gets).
    """

    def __init__(self, *, fsync: bool = False) -> None:
        self.bin = find_pg_bin()
        self.fsync = fsync
        self.root = Path(tempfile.mkdtemp(prefix="benchsift-pg-"))
        self.data = self.root / "data"
        self.port = 0
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = next((u for u in ("postgres", "nobody") if _has_user(u)), None)
            if user is None:
                raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run the server as")
            entry = pwd.getpwnam(user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
            self._as = ["runuser", "-u", user, "--"]

    @property
    def url(self) -> str:
        return f"postgresql://bench@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [*self._as, *args]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.root)
        if res.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}\n{tail}")
        return res

    def start(self) -> PostgresServer:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "bench",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        settings = f"-c listen_addresses=127.0.0.1 -k {self.root} -c max_connections=50"
        if not self.fsync:
            settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        for attempt in range(5):
            self.port = _free_port()
            try:
                self._run(
                    str(self.bin / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.root / "server.log"),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    f"-p {self.port} {settings}",
                    "start",
                )
                return self
            except RuntimeError:
                if attempt == 4:
                    raise
                time.sleep(0.2)  # the port was taken between the probe and the start: another one
        return self

    def stop(self) -> None:
        if self.data.exists():
            subprocess.run(
                [*self._as, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True
