"""The response cache where its environment fails or differs (outside audit s35, D2 and D4-D6).

* A lease's owner is declared dead only when it provably ran on this kernel and in this PID namespace
  (``_owner_gone``): the same host name in another PID namespace (containers sharing a cache volume), on
  another machine (``localhost`` twice on one database) or after a reboot names another process, and its live
  lease is held until it expires. Tested on the decision itself and on a forged lease row, both backends.
* A PostgreSQL connection lost at a transaction's BEGIN or COMMIT is the one line of a lost query (a server of
  its own, stopped with ``-m immediate`` under an open cache).
* SQLite: a full file system (``PRAGMA max_page_count``, SQLite's own limit: the same ``SQLITE_FULL``), and a
  file or folder that cannot be written (``PRAGMA query_only``, then for real in a subprocess: a folder
  without write permission, a file without it, a read-only bind mount, with and without the ``-wal`` and
  ``-shm`` a kill leaves), are one line naming the file, never "corrupt"; what was committed stays.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from pg_server import PostgresServer

import benchsift
from benchsift.clients.base import Request, Response
from benchsift.clients.cache import ResponseCache, _other_live_lease, _owner_gone, _owner_name, _scope
from benchsift.clients.cache_postgres import PostgresCache
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.errors import InputError

SRC = Path(benchsift.__file__).resolve().parents[1]
LINUX = sys.platform.startswith("linux")


def _request(i: int) -> Request:
    return Request(model="m", messages=({"role": "user", "content": f"question {i}"},))


def _text(cache: ResponseCache, key: str) -> str | None:
    got = cache.get(key)
    assert got is not None, key
    return got.text


def _dead_pid() -> int:
    """The pid of a process that has exited (and was reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    return int(done.stdout)


# --- D2: whose lease may be taken over at once --------------------------------------------------------


def test_only_a_dead_process_of_this_kernel_and_pid_namespace_is_gone() -> None:
    host, (boot, ns) = socket.gethostname(), _scope()
    if LINUX:  # the owner string names the kernel's boot and the PID namespace
        assert boot == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        assert f"pid:[{ns}]" == os.readlink("/proc/self/ns/pid")
    dead = _dead_pid()
    assert _owner_name(dead, "n") == f"{host}:{dead}:n:{boot}:{ns}"
    assert _owner_gone(_owner_name(dead, "n"))  # this namespace, no such process
    assert not _owner_gone(_owner_name(os.getpid(), "n"))  # alive
    assert not _owner_gone(_owner_name(0, "n"))
    other_boot = str(uuid.uuid4())
    for owner in (
        f"{host}:{dead}:n:{boot}:{ns}1",  # another PID namespace, same host name (a container)
        # the initial PID namespace (its inode is the same on every Linux kernel) where this is another one
        f"{host}:{dead}:n:{boot}:4026531836" if ns != "4026531836" else f"{host}:{dead}:n:{boot}:1",
        f"{host}:{dead}:n:{other_boot}:{ns}",  # another machine (or boot) of the same host name
        f"{host}:{dead}:n::",  # a process that could not read its namespace
        f"{host}:{dead}:n",  # the host:pid:nonce of an older benchsift: no namespace, never gone
        f"{host}x:{dead}:n:{boot}:{ns}",  # another host
    ):
        assert not _owner_gone(owner), owner
    # owner strings read from a file another program wrote: never a crash, never gone
    for odd in (
        "",
        ":",
        "::::",
        f"{host}:99999999999:n:{boot}:{ns}",  # beyond any pid (os.kill overflows)
        f"{host}:-5:n:{boot}:{ns}",
        f"{host}:\uff11\uff12:n:{boot}:{ns}",  # full-width digits
        f"{host}:{dead}:n:{boot}:{ns}:extra",
        f"{host}\n:{dead}:n:{boot}:{ns}",
        "\x00" * 5000,
        b"bytes",
        12345,
        None,
        3.5,
    ):
        assert not _owner_gone(odd), odd
    # a lease row another program wrote: an expiry that is not a number is no live lease
    assert not _other_live_lease("me", "them", "soon", 0.0)  # type: ignore[arg-type]
    assert _other_live_lease("me", f"{host}:{dead}:n:{other_boot}:{ns}", 10.0, 5.0)
    assert not _other_live_lease("me", _owner_name(dead, "n"), 10.0, 5.0)


def test_a_dead_pid_of_another_namespace_keeps_its_lease_until_it_expires(new_cache) -> None:
    """Forged lease rows of a pid that is dead here, written from another PID namespace, another boot of a
    machine of the same name, and an older benchsift (host:pid:nonce): held by claim, claim_many and the
    batch until they expire, then taken over; the same pid of this namespace is taken over at once."""
    where = new_cache()
    c = ResponseCache(where)
    host, (boot, ns) = socket.gethostname(), _scope()
    dead = _dead_pid()
    foreign = {
        "ns": f"{host}:{dead}:abc:{boot}:{ns}0",
        "boot": f"{host}:{dead}:abc:{uuid.uuid4()}:{ns}",
        "old": f"{host}:{dead}:abc",
    }
    try:
        now = c._execute("SELECT {now}")[0][0]
        for key, owner in foreign.items():
            for suffix in ("", "-many", "-batch"):
                c._execute("INSERT INTO leases VALUES (?, ?, ?)", (key + suffix, owner, now + 3.0))
        c._execute("INSERT INTO leases VALUES (?, ?, ?)", ("here", _owner_name(dead, "abc"), now + 600))
        assert c.claim("here") == "claimed"  # a dead process of this namespace: taken over at once
        for key in foreign:
            assert c.claim(key) == "held", key
        assert c.claim_many([k + "-many" for k in foreign]) == {k + "-many": "held" for k in foreign}
        assert c.write_batch([], [], [k + "-batch" for k in foreign]) == {
            k + "-batch": "held" for k in foreign
        }
        leases = c.leases()
        assert {k: leases[k][0] for k in foreign} == foreign  # nothing taken over
        while c._execute("SELECT {now}")[0][0] <= now + 3.0:
            time.sleep(0.1)
        assert {k: c.claim(k) for k in foreign} == dict.fromkeys(foreign, "claimed")  # expired: taken over
        assert c.claim_many([k + "-many" for k in foreign]) == {k + "-many": "claimed" for k in foreign}
        assert c.write_batch([], [], [k + "-batch" for k in foreign]) == {
            k + "-batch": "claimed" for k in foreign
        }
        assert {o for o, _ in c.leases().values()} == {c.owner}
    finally:
        c.close()


def test_a_lease_row_of_odd_types_is_read_without_a_crash(tmp_path: Path) -> None:
    """SQLite keeps what another program wrote whatever the column's type: an owner that is a blob is a
    live other owner's until it expires; an expiry that is text is no lease."""
    c = SQLiteCache(tmp_path / "c.sqlite")
    try:
        now = c._execute("SELECT {now}")[0][0]
        c._execute("INSERT INTO leases VALUES (?, ?, ?)", ("blob", b"\xff\x00:1:2", now + 60))
        c._execute("INSERT INTO leases VALUES (?, ?, ?)", ("text", "someone", "soon"))
        assert c.claim("blob") == "held" and c.claim_many(["blob"]) == {"blob": "held"}
        assert c.claim("text") == "claimed"
    finally:
        c.close()


# --- D4: a PostgreSQL connection lost at BEGIN or COMMIT ----------------------------------------------


def test_a_connection_lost_at_begin_or_commit_is_one_line() -> None:
    """A server of its own (the session's must live on): a backend terminated inside a transaction fails
    its COMMIT, and the server stopped with ``-m immediate`` under an open cache fails the BEGIN of a
    store and of a batch; each is the one line ``lost the cache database``, never the driver's error."""
    srv = PostgresServer().start()
    try:
        committed = PostgresCache(srv.url)
        stopped = PostgresCache(srv.url)
        try:
            committed.put("a", "u", _request(0), Response(text="kept"))
            with psycopg.connect(srv.url, autocommit=True) as admin:
                pid = committed._conn.info.backend_pid
                with pytest.raises(InputError, match="lost the cache database") as err:
                    with committed._lock, committed._transaction():
                        committed._execute("INSERT INTO leases VALUES (?, ?, ?)", ("b", committed.owner, 0))
                        # the backend is gone when this returns (it waits up to 10 s): the COMMIT fails
                        admin.execute("SELECT pg_terminate_backend(%s, 10000)", (pid,))
                assert "\n" not in str(err.value) and str(err.value).startswith(f"{srv.url}: ")
            assert stopped.claim("c") == "claimed" and _text(stopped, "a") == "kept"
            subprocess.run(
                [*srv._as, str(srv.bin / "pg_ctl"), "-D", str(srv.data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                timeout=60,
                check=True,
            )
            for call in (
                lambda: stopped.put("c", "u", _request(1), Response(text="x")),  # BEGIN first
                lambda: stopped.write_batch([("c", "u", _request(1), Response(text="x"))], [], ["d"]),
                lambda: stopped.release_many(["c"]),
                lambda: stopped.claim("e"),
            ):
                with pytest.raises(InputError, match="lost the cache database") as err:
                    call()
                assert "\n" not in str(err.value) and str(err.value).startswith(f"{srv.url}: ")
        finally:
            committed.close()  # a lost connection closes quietly
            stopped.close()
    finally:
        srv.stop()


# --- D5: a full file system ---------------------------------------------------------------------------


def _fill_limit(c: SQLiteCache) -> None:
    """Let the file grow by no page (SQLite's own limit: a write that needs a page fails with SQLITE_FULL,
    as on a full disk)."""
    pages = c._conn.execute("PRAGMA page_count").fetchone()[0]
    for conn in (c._conn, c._conn_now):
        conn.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_file_system_is_one_line_and_keeps_what_was_stored(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    c = SQLiteCache(path)
    big = "x" * 20_000  # overflow pages: never fits in the free space of a page
    try:
        for i in range(3):
            c.put(f"k{i}", "u", _request(i), Response(text=f"answer {i}"))
        assert c.claim("held-before") == "claimed"
        _fill_limit(c)
        row = ("big", "u", _request(9), Response(text=big))
        calls = {
            "put": lambda: c.put("big", "u", _request(9), Response(text=big)),
            "put_many": lambda: c.put_many([row]),
            "write_batch": lambda: c.write_batch([row], [], ["n1", "n2"]),
            "try_write_batch": lambda: c.try_write_batch([row], [], ["n1"]),
            "claim_many": lambda: c.claim_many([f"new{i}" for i in range(400)]),
        }
        for name, call in calls.items():
            with pytest.raises(InputError) as err:
                call()
            msg = str(err.value)
            assert msg.startswith(f"{path}: ") and "file system is full" in msg, (name, msg)
            assert "\n" not in msg and "corrupt" not in msg, (name, msg)
        # nothing of the failed transactions, everything committed before
        assert c.keys() == {"k0", "k1", "k2"} and set(c.leases()) == {"held-before"}
        assert _text(c, "k1") == "answer 1"
        for conn in (c._conn, c._conn_now):  # space again: the same cache resumes
            conn.execute("PRAGMA max_page_count = 1073741823")
        c.put("big", "u", _request(9), Response(text=big))
    finally:
        c.close()
    again = ResponseCache(path)
    try:
        assert again.keys() == {"k0", "k1", "k2", "big"} and _text(again, "big") == big
    finally:
        again.close()


# --- D6: a cache that cannot be written ---------------------------------------------------------------


def _read_only_line(msg: str, path: Path) -> None:
    assert msg.startswith(f"{path}: the response cache cannot be written (a read-only file or folder"), msg
    assert "\n" not in msg and "corrupt" not in msg, msg


def test_a_cache_that_refuses_writes_is_read_only_not_corrupt(tmp_path: Path) -> None:
    """``PRAGMA query_only`` makes SQLite refuse every write as it does on a read-only file
    (``SQLITE_READONLY``), whoever runs the test: each write path is the read-only line; reads go on."""
    path = tmp_path / "c.sqlite"
    c = SQLiteCache(path)
    try:
        c.put("k", "u", _request(0), Response(text="stored"))
        assert c.claim("mine") == "claimed"
        for conn in (c._conn, c._conn_now):
            conn.execute("PRAGMA query_only = ON")
        row = ("k2", "u", _request(1), Response(text="x"))
        for call in (
            lambda: c.claim("new"),
            lambda: c.put("k2", "u", _request(1), Response(text="x")),
            lambda: c.write_batch([row], [], ["n"]),
            lambda: c.try_write_batch([row], [], ["n"]),
            lambda: c.release("mine"),
            lambda: c.release_many(["mine"]),
        ):
            with pytest.raises(InputError) as err:
                call()
            _read_only_line(str(err.value), path)
        assert _text(c, "k") == "stored" and c.claim("k") == "answered"
    finally:
        c.close()  # dropping its leases fails quietly


def test_corruption_is_still_called_corrupt(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with pytest.raises(InputError, match=r"bad.sqlite: corrupt response cache \(file is not a database\)"):
        ResponseCache(bad)


#: opens the cache named by argv[1], claims a new key and prints what happened, one line
_OPEN_AND_CLAIM = """
import sys
from benchsift.clients.cache import ResponseCache
from benchsift.errors import InputError
try:
    c = ResponseCache(sys.argv[1])
    try:
        print("claim", c.get("k").text, c.claim("new"))
    finally:
        c.close()
except InputError as err:
    print("error", err)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}


def _complete_cache(folder: Path, leftovers: bool) -> Path:
    """A cache of one answer in ``folder``; with ``leftovers``, its ``-wal`` and ``-shm`` as a kill -9
    leaves them (the answer still in the WAL)."""
    folder.mkdir()
    path = folder / "c.sqlite"
    script = (
        "import os, sys\n"
        "from benchsift.clients.base import Request, Response\n"
        "from benchsift.clients.cache import ResponseCache\n"
        "c = ResponseCache(sys.argv[1])\n"
        "c.put('k', 'u', Request(model='m', messages=({'role': 'user', 'content': 'q'},)), "
        "Response(text='stored'))\n"
        "os._exit(0) if sys.argv[2] == '1' else c.close()\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path), str(int(leftovers))], env=_env(), check=True)
    assert Path(f"{path}-wal").exists() is leftovers
    return path


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_a_read_only_folder_file_or_mount_is_one_line_not_corrupt(tmp_path: Path) -> None:
    """For real, in a subprocess: a folder and a file without write permission (as root, which ignores
    permission bits, the process runs as uid 1000 of a user namespace, where root's files are its own and
    the bits apply), and a read-only bind mount in a private mount namespace (``unshare -rm``, as the output
    tests of tests/badinput do), each with and without a killed run's ``-wal``/``-shm``. Each open or
    claim is the read-only line naming the file, the files left unchanged; except where only the folder is
    read-only and the killed run's ``-wal`` and ``-shm`` can still be written: the cache then works."""
    as_user = ["unshare", "--user", "--map-user=1000", "--map-group=1000"] if os.geteuid() == 0 else []
    for leftovers in (False, True):
        tag = "wal" if leftovers else "clean"
        for how in ("chmod-dir", "chmod-file", "ro-mount"):
            path = _complete_cache(tmp_path / f"{how}-{tag}", leftovers)
            folder = path.parent
            wrap = as_user
            if how == "chmod-dir":
                folder.chmod(0o555)
            elif how == "chmod-file":
                for p in folder.iterdir():
                    p.chmod(0o444)
            else:
                bind = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"'
                wrap = ["unshare", "-rm", "sh", "-c", bind, str(folder)]
            before = _digest(folder)
            try:
                res = subprocess.run(
                    [*wrap, sys.executable, "-c", _OPEN_AND_CLAIM, str(path)],
                    env=_env(),
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
            finally:
                folder.chmod(0o755)
            where = f"{how}-{tag}: rc={res.returncode} out={res.stdout!r} err={res.stderr[-2000:]!r}"
            assert res.returncode == 0 and res.stdout.count("\n") == 1, where
            if how == "chmod-dir" and leftovers:  # the -wal and -shm can be written: so can the cache
                assert res.stdout == "claim stored claimed\n", where
                continue
            assert res.stdout.startswith("error "), where
            _read_only_line(res.stdout[len("error ") :].strip(), path)
            after = _digest(folder)  # (SQLite may add an empty -wal and an -shm beside a read-only file)
            assert {name: after.get(name) for name in before} == before, where
