"""The prompts of PRISM-VLM App. D (Figs. 5-17) are used verbatim: compared with the paper's text.

The paper text is an HTML-to-text rendering: line breaks inside a prompt are lost, characters are
backslash-escaped and apostrophes are typographic. The comparison drops whitespace and backslashes and maps
typographic quotes to ASCII; everything else must match letter for letter. The App. D excerpt ships as a
fixture (``tests/fixtures/prism/paper_app_d_prompts.txt``, extracted verbatim from the paper's text, see the
``.md`` beside it), so the test runs in every checkout.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchsift.prism import axes

PAPER = Path(__file__).resolve().parents[1] / "fixtures" / "prism" / "paper_app_d_prompts.txt"

FIGURES = {
    5: axes.GEN_H,
    6: axes.GEN_MQ,
    7: axes.GEN_SC,
    8: axes.GEN_C,
    9: axes.GEN_VIS,
    11: axes.JUDGE_Q,
    12: axes.JUDGE_IF,
    13: axes.JUDGE_H,
    14: axes.JUDGE_MQ,
    15: axes.JUDGE_SC,
    16: axes.JUDGE_C,
    17: axes.JUDGE_VIS,
}


def _norm(text: str) -> str:
    text = text.replace("\\", "").replace("\u2019", "'").replace("\u2013", "-")
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def figures() -> dict[int, str]:
    """The body of each figure of App. D (in the rendering, a figure's body precedes its caption)."""
    body = PAPER.read_text(encoding="utf-8")  # from "You are designing a hallucination trap" to "Figure 17:"
    assert body.startswith("You are designing a hallucination trap")
    parts = re.split(r"Figure (\d+):[^\n]*?\\\.", body)
    out = {5: parts[0]}
    for num, content in zip(parts[1::2], parts[2::2], strict=True):
        out[int(num) + 1] = content
    # the caption of Fig. 10 runs on into Fig. 11's body ("Q3 substitutes ... from Fig. 7.")
    out[11] = out[11][out[11].index("You are grading") :]
    return out


@pytest.mark.parametrize("fig", sorted(FIGURES))
def test_prompt_is_the_papers(figures: dict[int, str], fig: int) -> None:
    assert _norm(FIGURES[fig]) == _norm(figures[fig])


def test_pressure_templates_are_fig_10(figures: dict[int, str]) -> None:
    # Fig. 10 lists the three tiers in order, four "- template" lines each, under a "Tier k" header
    fig10 = re.sub(r"Tier\d-.*?\(Q\dQ_\{\d\}\)\.", "", _norm(figures[10]))
    pools = [axes.PRESSURE_TEMPLATES[t] for t in (1, 2, 3)]
    assert all(len(pool) == 4 for pool in pools)
    assert fig10 == "".join("-" + _norm(template) for pool in pools for template in pool)
    assert all("{wrong}" in t for t in pools[2]) and not any("{wrong}" in t for t in pools[0] + pools[1])
