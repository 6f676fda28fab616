"""Tables fitted to the terminal (:mod:`benchsift.report.console`): how headers are abbreviated."""

from __future__ import annotations

from benchsift.report.console import _abbreviate


def test_headers_are_cut_to_their_cells_with_a_legend() -> None:
    out, legend = _abbreviate(["benchmark", "reliability", "MDD"], [9, 5, 5], [True, False, False])
    assert out == ["benchmark", "reli.", "MDD"]
    assert legend == ["reli. = reliability"]


def test_a_clash_of_several_words_takes_their_initials() -> None:
    headers = ["all-correct", "near-ceiling", "all-wrong", "allocation"]
    out, legend = _abbreviate(headers, [4, 4, 4, 4], [False] * 4)
    # all-correct takes "all."; all-wrong would clash: its initials; a one-word clash is numbered
    assert out == ["all.", "nea.", "a-w.", "al2."]
    assert legend == ["all. = all-correct", "nea. = near-ceiling", "a-w. = all-wrong", "al2. = allocation"]


def test_headers_of_several_words_keep_whole_words() -> None:
    headers = ["r (item-rest)", "SRCC mean ± sd", "top5_energy_pct"]
    out, legend = _abbreviate(headers, [6, 13, 7], [False] * 3)
    # cut inside a word, a header of words keeps the words that fit, less a trailing "±" or "(";
    # a header of one word (underscores) is cut by characters as before
    assert out == ["r.", "SRCC mean.", "top5_e."]
    assert legend == ["r. = r (item-rest)", "SRCC mean. = SRCC mean ± sd", "top5_e. = top5_energy_pct"]
