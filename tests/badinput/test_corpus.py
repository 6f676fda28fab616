"""One parametrised test over the bad-input corpus (cases.py): exit code, message shape, files, secret."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from cases import CASES
from corpus import FOREIGN, SECRET, Case, Env, allowed, changed, secret_forms, snapshot
from typer.testing import CliRunner

from benchsift.cli.main import app


def _invoke(args: list[str]) -> Any:
    return CliRunner().invoke(app, args)


@pytest.mark.parametrize("case", CASES, ids=[f"g{c.group}-{c.id}" for c in CASES])
def test_case(
    case: Case, tmp_path: Path, server: Any, world: dict, assets: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = Env(tmp_path / "work", server, world, assets, _invoke)
    env.plant()
    monkeypatch.chdir(env.root)
    argv = case.setup(env)
    before = snapshot(env.root)
    n_bodies = len(server.bodies)
    res = _invoke(argv)
    after = snapshot(env.root)
    created, modified, removed = changed(before, after)
    err = res.stderr.strip()
    where = f"argv={argv}\nexit={res.exit_code}\nstderr={res.stderr!r}\nstdout={res.stdout[-2000:]!r}"
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), where
    for body in server.bodies[n_bodies:]:
        assert not any(f in body for f in secret_forms()), "the planted secret reached the server"
    assert env.secret.read_bytes() == SECRET and (env.root / "notes.md").read_text() == FOREIGN
    assert not removed, f"removed {removed}\n{where}"
    if case.outcome == "refused":
        assert res.exit_code == 2, where
        assert "\n" not in err and err.startswith("benchsift: error: "), where
        assert re.search(case.match, err), f"message does not match {case.match!r}\n{where}"
        assert res.stdout == "", where
        assert not created and not modified, f"created {created}, modified {modified}\n{where}"
    else:
        assert res.exit_code == (case.exit or 0), where
        stray = [p for p in created + modified if not allowed(p, case.writes)]
        assert not stray, f"wrote {stray} (allowed {case.writes})\n{where}"
        if case.check is not None:
            case.check(env, res)


def test_corpus_covers_every_group() -> None:
    groups = {c.group for c in CASES}
    assert groups == set(range(1, 9)), sorted(groups)
    assert len({c.id for c in CASES}) == len(CASES)
