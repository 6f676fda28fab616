"""The README's "In Python" section runs as written (its code blocks, in order, in a fresh folder)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from benchsift.errors import BenchsiftWarning, EstimateWarning, ResultWarning

README = Path(__file__).resolve().parents[1] / "README.md"


def _section_blocks(title: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_in_python_section_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    blocks = _section_blocks("In Python")
    assert blocks, "the README has no python block under '## In Python'"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    with warnings.catch_warnings(record=True) as said:  # what a notebook shows under the cell
        warnings.simplefilter("always", BenchsiftWarning)
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - the README's own code
    out = capsys.readouterr().out
    # the Python warning says as many models as the result flags as extrapolating or at the edge
    full = namespace["est"].full  # type: ignore[attr-defined]
    flagged = int((full.extrapolating | full.at_edge).sum())
    shown = [w for w in said if issubclass(w.category, EstimateWarning)]
    # and one says that the suite (VAW, the default) was chosen to rank models, not to estimate
    ranking = [w for w in shown if "chosen by the 'vaw' selector to rank" in str(w.message)]
    assert len(ranking) == 1
    below = int(full.below_edge.sum())  # the lower edge's own warning
    weak = [w for w in shown if "are as weak on the suite" in str(w.message)]
    assert len(weak) == int(below > 0) and all(str(w.message).startswith(f"{below} of ") for w in weak)
    edge = [w for w in shown if w not in ranking and w not in weak]
    assert len(edge) == int(flagged > 0) and all(f"{flagged} of " in str(w.message) for w in edge)
    # a default a call changed is shown too, as the result's own line (ResultWarning)
    lines = [str(w.message) for w in said if issubclass(w.category, ResultWarning)]
    assert all(line.split(":")[0] in {"audit", "compare", "run_pipeline", "score_report"} for line in lines)
    # what it printed is what the objects hold: the short repr, the stage table, the leaderboard
    dims, result, report = namespace["dims"], namespace["result"], namespace["report"]
    assert repr(dims) in out and len(repr(dims).splitlines()) <= 6
    assert (tmp_path / "suite" / "items.csv").is_file()
    assert result.to_frame()["items_out"].iloc[-1] == result.n_items_suite  # type: ignore[attr-defined]
    assert set(report.to_frame().index) == {f"model{i:02d}" for i in range(6)}  # type: ignore[attr-defined]
    est = namespace["est"]
    assert list(est.to_frame()["model"]) == list(namespace["new"])  # type: ignore[attr-defined]
