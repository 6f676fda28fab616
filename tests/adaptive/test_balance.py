"""Content balancing of adaptive testing: an equal share of each model's items per benchmark (Kingsbury and
Zara 1989), the items chosen by information within each benchmark; a bank of one benchmark is unaffected."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from benchsift.adaptive import next_items, replay_adaptive
from benchsift.adaptive.bank import ItemBank
from benchsift.adaptive.select import benchmark_quotas
from benchsift.cli.main import app
from benchsift.irt import TwoPL


def _bank(a: np.ndarray, d: np.ndarray, benchmarks: list[str]) -> ItemBank:
    items = pd.DataFrame(
        {"benchmark": benchmarks, "item": [f"q{i}" for i in range(a.size)], "category": None}
    )
    models = [f"r{k}" for k in range(5)]
    ref = np.linspace(-1.0, 1.0, 5)
    return ItemBank("2pl", TwoPL.from_parameters(a, d), items, models, ref, np.zeros(5), "normal")


def test_benchmark_quotas_by_hand() -> None:
    # nothing given yet, three benchmarks, 7 items: turns A B C A B C A (ties to the first)
    assert benchmark_quotas(np.array([0, 0, 0]), np.array([5, 5, 5]), 7).tolist() == [3, 2, 2]
    # given 4 / 0 / 1: shares of 6..10 items are 2, 2.33, 2.67, 3, 3.33; the furthest below goes first:
    # B (deficit 2), B (1.33, tied with C, first), C (1.67), B (1), C (1.33): B 3, C 2, A none
    assert benchmark_quotas(np.array([4, 0, 1]), np.array([10, 10, 10]), 5).tolist() == [0, 3, 2]
    # B has one item left: B once, then C three times (deficits 1.33, 0.67, 0), then A and C tie at -0.67
    assert benchmark_quotas(np.array([4, 0, 1]), np.array([10, 1, 10]), 5).tolist() == [1, 1, 3]
    # fewer items left than asked: only what there is
    assert benchmark_quotas(np.array([0, 0]), np.array([1, 0]), 3).tolist() == [1, 0]


def test_a_bank_of_two_benchmarks_gets_equal_shares_and_a_bank_of_one_is_unchanged() -> None:
    """Benchmark B's items are steep (a = 3) and A's flat (a = 0.5), all centred at 0: by information over the
    bank a fresh model gets 8 items of B; balanced, the 4 most informative of each (exposure 1: no draw)."""
    rng = np.random.default_rng(0)
    a = np.r_[np.full(20, 0.5), np.full(20, 3.0)]
    d = rng.normal(0.0, 0.3, 40)
    two = _bank(a, d, ["A"] * 20 + ["B"] * 20)
    X = np.full((1, 40), np.nan)
    kw = {"batch": 8, "exposure": 1.0}
    info = two.posterior_information(*(lambda e: (e.theta, e.se))(two.score(X)))[0]
    by_info = np.sort(np.argsort(-info, kind="stable")[:8]).tolist()
    assert all(i >= 20 for i in by_info)
    assert next_items(two, X, ["new"], balance=False, **kw).items == [by_info]
    top_a = np.argsort(-info[:20], kind="stable")[:4]
    top_b = 20 + np.argsort(-info[20:], kind="stable")[:4]
    assert next_items(two, X, ["new"], **kw).items == [np.sort(np.r_[top_a, top_b]).tolist()]
    # the next step counts what was answered: with 4 of A given, the next 4 go to B, and then one of each
    X[0, top_a] = 1.0
    nxt = next_items(two, X, ["new"], batch=4, exposure=1.0).items[0]
    assert len(nxt) == 4 and all(i >= 20 for i in nxt)
    X[0, nxt] = 0.0
    nxt = next_items(two, X, ["new"], batch=2, exposure=1.0).items[0]
    assert sorted(i >= 20 for i in nxt) == [False, True]
    one = _bank(a, d, ["A"] * 40)
    for exposure in (1.0, 3.0):
        on = next_items(one, np.full((3, 40), np.nan), ["m1", "m2", "m3"], batch=8, exposure=exposure)
        off = next_items(
            one, np.full((3, 40), np.nan), ["m1", "m2", "m3"], batch=8, exposure=exposure, balance=False
        )
        assert on.items == off.items


def test_a_replay_gives_every_benchmark_its_share() -> None:
    """Three benchmarks of 40 items, one much steeper: a replay of 24 items (steps of 6) gives each model 8
    per benchmark; by information over the bank the steep one takes more."""
    rng = np.random.default_rng(1)
    a = np.r_[rng.uniform(0.4, 0.8, 80), rng.uniform(2.5, 3.5, 40)]
    d = rng.normal(0.0, 1.0, 120)
    bank = _bank(a, d, ["A"] * 40 + ["B"] * 40 + ["C"] * 40)
    theta = rng.normal(size=12)
    scores = (rng.random((12, 120)) < 1 / (1 + np.exp(-(np.outer(theta, a) + d)))).astype(float)
    models = [f"m{k}" for k in range(12)]
    for balance, check in ((True, lambda c: (c == 8).all()), (False, lambda c: (c[:, 2] > 8).all())):
        _, asked = replay_adaptive(bank, scores, models, 24, batch=6, balance=balance)
        counts = np.column_stack([asked[:, 40 * g : 40 * (g + 1)].sum(axis=1) for g in range(3)])
        assert (counts.sum(axis=1) == 24).all() and check(counts), counts


def test_cli_next_no_balance(tmp_path: Path) -> None:
    runner = CliRunner()
    a = np.r_[np.full(6, 0.5), np.full(6, 3.0)]
    bank = _bank(a, np.zeros(12), ["A"] * 6 + ["B"] * 6)
    path = tmp_path / "bank.json"
    bank.save(path)
    got = {}
    for flag in ([], ["--no-balance"]):
        res = runner.invoke(
            app,
            [
                "adaptive",
                "next",
                str(path),
                "--start",
                "new",
                "--batch",
                "4",
                "--exposure",
                "1",
                "--json",
                *flag,
            ],
        )
        assert res.exit_code == 0, res.output
        (row,) = json.loads(res.stdout)["models"]
        got[bool(flag)] = sorted(k["benchmark"] for k in row["next"])
    assert got == {False: ["A", "A", "B", "B"], True: ["B", "B", "B", "B"]}
