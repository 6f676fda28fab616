"""The automatic selector: nested cross-validation over the build models picks the item selector of a pool.

On real panels no selector dominates (benchsift issue 18: point-biserial wins on MMMU at every retention, IRT
2PL and Random trade places on AI2D, VAW wins on the PRIMEBench panel), so :class:`AutoSelector` chooses one
per call, i.e. per category pool and budget ``K_C`` (Stage 2 and the held-out protocols call a selector once
per pool and retention), from the models it is given and nothing else:

1. ``n_inner`` random *inner* splits of the given ``M`` rows (the build models of an outer split in the
   held-out protocols): an independent uniform permutation each, the first ``round(inner_build * M)`` rows
   build (default 70 %), the rest are inner held-out -- the outer protocol's rule (PRIMEBench D.3,
   :func:`benchsift.compression.protocols.random_splits`) one level down, with a larger build share: a
   selector fitted on fewer models ranks items more noisily, i.e. more like Random, so small inner build sets
   flatter the fitted candidates against Random.
2. Every candidate selects ``K_C`` items on each inner build set; its *inner fidelity* on that split is the
   Spearman rho over the inner held-out models between the pool mean and the estimate from the kept items,
   the fidelity ``benchsift validate`` reports (PRIMEBench D.3, ``rho_C``)::

       rho_s(c) = rho_S( (xbar_{m,C})_{m in H_s}, (xhat^c_{m,S_C})_{m in H_s} )

   ``xhat`` is the plain mean of the kept items (``scoring="mean"``), the mean weighted by the candidate's
   ``weights_`` (``"weighted"``) or the candidate's :meth:`~ItemSelector.estimate` (``"selector"``): the
   held-out protocols set ``scoring`` to their own, so the inner fidelity measures what the outer one will.
   A Random candidate's fidelity on a split is the mean over ``random_draws`` seeded draws (its expected
   fidelity; a single draw is a noisy estimate of it at small budgets).
   ``rho_s(c)`` is undefined (NaN) with fewer than ``min_heldout`` inner held-out models having both values,
   or a constant side.
3. The candidate with the highest mean of ``rho_s(c)`` over the inner splits with a defined value is the
   best (ties: the earlier candidate). *Random is the null*: a fitted best wins only when it also beats the
   Random candidate (:attr:`null`) in a one-sided paired t test over the inner splits both define
   (:func:`paired_null_test`),

       t = mean_s(d_s) / (sd_s(d_s) / sqrt(n)),   d_s = rho_s(best) - rho_s(random),
       p = P(T_{n-1} > t),

   passed when ``p < 1 - level``. The level depends on the budget: strict at small budgets, ``null_level``
   (default 0.99) for ``K_C <= null_budget`` (default 50), liberal above, ``null_level_above`` (default
   0.9). The two errors cost differently. At small budgets a fitted ranking that wins the inner splits by
   chance where Random is the better selector loses about 0.16 of outer rho on that split (the panel
   planted for Random at r = 2 %, below); at large budgets every selector's rho is close to 1, and keeping
   Random where a fitted selector wins costs about 0.02 (MMMU at r = 20 %: point-biserial 0.966 against
   Random 0.945), while a wrong fitted pick costs little. When the test fails on the ``n_inner`` splits, the
   evidence is extended once, provided the best could still beat Random by a material amount -- the
   one-sided upper confidence bound ``mean_s(d_s) + t_{level, n-1} se`` reaches ``null_margin`` (default
   0.01, the issue's tolerance; below it Random is kept at once, at an expected cost below the margin): the
   best and Random alone are run on further inner splits, up to ``null_max_inner`` in all (default 12; the
   splits ``n_inner = 12`` would have), and the test is repeated on all of them. If the test still fails
   Random is kept and ``notes_`` says so (``null_test_`` holds ``n``, the mean difference, ``t``, ``p``,
   the level, the ratio below and whether the evidence was extended; ``null_rho_`` the pairs tested after
   an extension). The inner splits are drawn from the same ``M`` models and share most of them, so the
   ``d_s`` are positively correlated and ``sd^2 / n`` understates the variance of their mean: the
   *corrected resampled t test* (Nadeau & Bengio 2003, Machine Learning 52, eq. 9-10), with ``(1/n + n_H /
   n_B) sd^2``, ``n_H / n_B`` the inner held-out over inner build models (0.3 / 0.7 by default), is
   available as ``null_corrected=True``; it was the default (at 0.85 at every budget, extended to 8) until
   the measurements below, which it loses on MMMU at r = 10-20 %, where it keeps Random too often. The
   strict level at small budgets does the correction's work where it matters. Random needs no fit, so it is
   the default a fitted ranking has to earn its place against: with a few dozen build models the inner
   held-out sets are small (18 of 60 build models on a 120-model panel), one inner rho has a standard
   deviation of about 0.1 at small budgets, and the best of four noisy means is biased upwards -- picking it
   outright lost 0.024-0.034 of outer rho at r = 2 % on the panel planted for Random, where every fitted
   ranking is worse (:mod:`benchsift.simulate.winners`). The extension spends the extra inner splits only
   where the evidence is inconclusive, i.e. where more of it changes the decision, and on the two
   candidates the test needs.
   The winner then selects ``K_C`` items on *all* the given
   rows: those are the selection (``support_``, ``item_scores_``, ``weights_`` and :meth:`estimate` are
   the winner's). Scoring mode: under ``"weighted"`` and ``"selector"`` a candidate with its own estimator
   (``weights_``, an :meth:`~ItemSelector.estimate` of its own) competes twice, scored by it and by the
   plain mean, and the winning pair says how auto's kept items are scored (``scoring_choice_``;
   ``weights_`` is set only when the winner's own scoring won). ``compress`` scores a suite by its mean,
   so there it picks the selector only.

The winner is *separated* when, against every other candidate ``c``, the paired differences
``rho_s(winner) - rho_s(c)`` over the inner splits both define pass a one-sided paired t test at level 0.95
(mean above ``t_{0.95, n-1}`` standard errors; ``separated_``); otherwise the inner evidence cannot tell
them apart and ``notes_`` says which candidates tie (the pick is still the best estimate, and the tied
candidates are about as good). With few inner splits the test is weak: a non-separated pick is common and
harmless when the candidates are close. When no candidate has a defined inner fidelity
(too few models, or a pool every model scores the same) the first candidate is used and ``warnings_`` says
so.

How many inner splits, and the level (``benchmarks/bench_auto_selector.py``: held-out protocol, 20 outer
splits, r = 2-20 %, floor 0, on the three planted panels of 120 x 1,500 and on MMMU, 168 x 1,050; its rules
section, ``--skip-inner --skip-cost --rules-inner 12 --seed S``, computes auto's inner evidence on 12 inner
splits of every outer split once and scores each rule's pick by the outer rho of the fixed selector it names,
which under the protocols' common random numbers is auto's own outer rho). A *table* is one (seed, panel); a
*miss* is a table whose worst retention of auto minus the best fixed selector is below -0.01. Seeds 0-19 (80
tables) were used to choose the rule, seeds 20-29 (40 tables) were run after it was chosen, as a fresh check.
Misses, seeds 0-19 / 20-29:

- the best inner mean outright, 4 inner splits: 11 / 4, all on the Random plant (down to -0.0377);
- the corrected test at 0.85, extended to 8 (the previous default): 4 / 2 -- MMMU at seeds 4, 5, 15 and 29
  (-0.0117, -0.0102, -0.0116, -0.0111, at r = 10-20 %: it keeps Random where point-biserial wins, on 11 of
  the 20 outer splits at seed 5; at seeds 5 and 15 the loss is 3.9 and 2.3 paired standard errors over the
  outer splits, i.e. systematic), the Random plant at seeds 17 (-0.0140) and 21 (-0.0304);
- the corrected test at 0.9 for ``K <= 50`` and the plain one at 0.95 above, extended to 12: 2 / 1 (Random
  plant, seeds 9, 17 and 21);
- **the plain test at 0.99 for** ``K <= 50`` **and 0.9 above, extended to 12 (the default)**: 1 / 1 -- the
  Random plant at seed 1 (-0.0108, r = 2 %) and seed 21 (-0.0243, r = 2 %). At seed 21 VAW, a ranking planted
  to lose, beats Random by 0.024 at r = 2 % over the 20 outer splits (standard error 0.021); auto keeps
  Random on all 80 (split, retention) cells, so its outer rho is Random's: every rule of the section that
  keeps Random misses there (the previous default, which let VAW through on 2 splits where it lost to
  Random, -0.0304).

Worst retention per panel over the fresh seeds 20-29, default / previous default: point-biserial plant
-0.0073 / -0.0073, IRT 2PL plant -0.0024 / -0.0021, Random plant -0.0243 / -0.0304, MMMU -0.0080 / -0.0111;
auto minus Random, mean over retentions and seeds: +0.1251 / +0.1250, +0.0096 / +0.0095, 0.0000 / -0.0006,
+0.1067 / +0.1056. Per (seed, panel), default / previous default (worst retention)::

    seed  pointbiserial      irt2pl             random             mmmu
    20    -0.0033 / -0.0033  -0.0024 / -0.0016   0.0000 / -0.0095  -0.0067 / -0.0067
    21    -0.0019 / -0.0019  -0.0016 / -0.0018  -0.0243 / -0.0304  -0.0043 / -0.0051
    22    -0.0034 / -0.0034  -0.0007 / -0.0007   0.0000 /  0.0000  -0.0041 / -0.0071
    23    -0.0073 / -0.0073  -0.0008 / -0.0010   0.0000 /  0.0000  -0.0034 / -0.0061
    24    -0.0013 / -0.0036  -0.0012 / -0.0011   0.0000 /  0.0000  -0.0080 / -0.0080
    25    -0.0044 / -0.0044  -0.0003 / -0.0006   0.0000 / -0.0097  -0.0044 / -0.0050
    26    -0.0021 / -0.0021  -0.0010 / -0.0012   0.0000 /  0.0000  -0.0064 / -0.0085
    27    -0.0018 / -0.0018  -0.0015 / -0.0021   0.0000 /  0.0000  -0.0037 / -0.0037
    28    -0.0052 / -0.0052  -0.0008 / -0.0008   0.0000 /  0.0000  -0.0061 / -0.0061
    29    -0.0016 / -0.0016  -0.0011 / -0.0018   0.0000 /  0.0000  -0.0046 / -0.0111

In expectation (``--seeds 30-59 --panel MMMU``: the fidelity section on 30 further fresh seeds, each planted
panel drawn anew per seed and MMMU split anew, averaged over the seeds). A planted panel is a distribution, so
its best fixed selector is the one with the highest mean over the seeds (the planted winner; on MMMU
point-biserial, VAW at r = 20 %); auto minus it, mean over the 30 seeds (its standard error at most 0.0005),
r = 2 / 5 / 10 / 20 %: point-biserial plant -0.0024 / -0.0016 / -0.0014 / -0.0007, IRT 2PL plant -0.0003 /
-0.0007 / -0.0010 / -0.0005, Random plant +0.0003 / 0 / 0 / 0, MMMU -0.0032 / -0.0024 / -0.0039 / -0.0023;
auto minus Random +0.1329, +0.0108, +0.0001, +0.1074. Per seed the best fixed selector is the maximum of four
noisy means, and a table missed by that measure on 2 of the 120 (MMMU at seeds 33 and 57, -0.0108 and
-0.0107; the planted panels' worst -0.0073).

The rules section's rows are auto's actual runs: for the previous default they equal the fidelity section's
(``--skip-inner --skip-rules --skip-cost --seed S``) cell for cell on seeds 5-19, and for the default on
seeds 20 and 30 (8 tables; seed 30, fresh too: worst -0.0054 on the point-biserial plant, -0.0020 on MMMU,
against -0.0057 on both with the previous default). Cost: the default and the previous default cost the
same, 4.20x and 4.26x IRT 2PL alone on the cost panel (Cost, below).

The margin of 0.01 spares extensions where every candidate is within it of Random (r = 10-50 % of the cost
panel below). Three inner splits cost more, not less: a first look with 2 degrees of freedom is inconclusive
more often, and each extension then adds 5 inner splits. On the Random plant auto cannot beat Random on
average: Random is the best fixed selector at every retention there, so the best auto can do is to pick it
every time and keep Random's very items (common random numbers, below): auto minus Random is then 0, and each
fitted pick makes it negative (seeds 20-29: 0 on all ten with the default; -0.0006 on average, down to
-0.0024, with the previous default).

Honesty. The selector sees only the rows passed to :meth:`select`; in the held-out protocols those are the
build models of the outer split, so the outer held-out models never influence the choice (tested: rewriting
the held-out models' responses leaves every pick and selection unchanged).

Cost. ``n_inner`` selections per candidate, plus the winner's on all rows. Selections on the same rows at
several budgets share their candidate fits through the candidates' own memos (the IRT 2PL fit,
:func:`~.irt2pl.fitted_twopl`), which is why :attr:`seed_per_pool` asks the protocols for one seed per pool,
the same at every retention: the inner splits are then the same at every retention of a pool. A fitted
candidate selects with its final seed on every inner split (Random's draws keep one seed per split and draw),
so the evidence is about the very configuration the winner selects with, and VAW's k-means cells, which depend
on the item embeddings, the budget and the seed but not on the models, are computed once per budget (memoised
in :func:`~._cells.kmeans_cells`) instead of once per inner split. The IRT 2PL memo keeps 16 fits (auto
revisits up to 9 per pool, 8 inner build sets and all the rows, at every retention; with room for 8 the least
recently used one was refitted each time), the test information is computed once per fit
(:func:`~.irt2pl.fit_test_information`), and candidates select on inner rows without validating them again.
What remains is the IRT 2PL fit and metabench's bins on every inner split, and the null test's extension (up
to 8 more inner IRT 2PL fits when the best is IRT 2PL, the first look is inconclusive and the bound reaches
the margin). Two defaults cut it: the inner fits stop after one SQUAREM cycle (``inner_em_iter=3``, 3 EM
iterations against 7 to 10 to convergence on the cost panel below), and the margin is 0.01 (fewer extensions
at r = 10-50 %). On the cost panel auto now runs 102 IRT 2PL fits (counted by wrapping ``TwoPL.fit``; 88 inner
ones, 4.4 per outer split; 14 on all the rows, where IRT 2PL won at some retention) and 365 EM iterations in
all, against 133 fits and 1,036 iterations with converged inner fits and the margin of 0.005. The capped fits'
picks (``benchmarks/bench_auto_selector.py --skip-fidelity --skip-cost --inner-fits 4``, load 1.7-2.0: the 16
inner build sets of 4 outer splits of the cost panel): after 3 EM iterations at least 99.8 % (mean; lowest
98.7 %) of metabench's kept items at r = 2-20 % are those of the converged fit (99.4-99.8 %, lowest 96.8 %,
after 2; 100.0 % after 4), at 0.124 s per fit against 0.267 s converged; on the planted panels (80 x 500,
three seeds, k = 10, 25 and 50) 25 of 27 picks are those of converged inner fits (26 with 4 iterations), IRT
2PL's inner rho within 0.10 at k = 10 and 0.032 at k = 25 (tests/compression/selectors/test_auto.py checks k =
25), and the held-out fidelity above stays within the tolerance. Warm-starting the inner fits from the fit on
all the given rows (:meth:`TwoPL.from_parameters <benchsift.irt.TwoPL.from_parameters>` with ``warm_start``)
was tried and is not used: to convergence it saves one SQUAREM cycle on 2 of the 16 inner build sets (10 EM
iterations to 7; 7 from either start on the other 14), capped warm fits are no closer to converged ones than
capped cold ones (after one iteration 96.3-99.3 % of the kept items, lowest 90.3 %, against 96.5-98.9 %,
lowest 93.5 %, cold; after 4 the lowest is 99.4 % warm, 100 % cold), and the start would carry the inner
held-out models into the inner fits. With the default null test by budget (``--skip-fidelity --repeats 2
--cost-sides "irt2pl,auto,auto:null_level=0.85:null_budget=None:null_corrected=True:null_max_inner=8"``,
load 0.8-2.0, no other job running): ``validate`` with auto on the simulated 169 x 3,088 panel (20 splits x 6
retentions) took 22.8 / 23.0 s wall and CPU (min / median of 2 alternated runs) against 5.4 / 5.5 s for IRT
2PL alone, 4.20x at the medians (4.18x CPU); the previous default 23.3 / 23.4 s, 4.26x: the extension to 12
splits costs nothing measurable there. Again at the next session (``--skip-fidelity --repeats 2``, load
0.5-0.9): 29.9 / 30.0 s against 6.2 / 6.7 s, 4.46x wall and CPU. Earlier, with the corrected null test at 0.85
(``--skip-fidelity --repeats 2 --cost-sides irt2pl,auto,auto:null_corrected=False:null_level=0.95``, load
1.0-1.4): 61.1 / 61.8 s wall and CPU (min / median of 2 alternated runs) against 13.1 / 13.8 s for IRT 2PL
alone, 4.49x at the medians; the plain paired test at 0.95 (the rule before it) 61.5 / 62.8 s, 4.56x: the two
cost the same within 2 % there.
The measurements that follow, and the fit counts above, are of that plain test at 0.95. Measured with
``benchmarks/bench_auto_selector.py --panel
/tmp/mmmu_auto2.parquet --skip-inner --skip-rules --repeats 2`` (2-core machine shared with other jobs, load
1.9-2.5): ``validate`` with auto on a simulated 169 x 3,088 panel (20 splits x 6 retentions) took 26.0 / 27.0
s wall (min / median of 2 alternated runs) and 26.9 s CPU (median) against 5.9 / 6.6 s wall and 6.6 s CPU for
IRT 2PL alone: 4.1x wall at the medians, 4.1x CPU; a second run 27.7 / 28.0 s against 6.2 / 6.3 s (load
2.0-2.5; 4.4x wall and CPU). With the previous defaults alongside (``--skip-fidelity --repeats 2 --cost-sides
irt2pl,auto,auto:inner_em_iter=None:null_margin=0.005``, load 0.7-2.3): IRT 2PL 8.6 / 9.1 s wall, auto 35.9 /
38.0 s (4.2x wall and CPU), the previous defaults 64.6 / 65.0 s (7.1x wall, 7.0x CPU). Each change alone is
not enough (timed as the cost section times a side, with those parameters; load 1.1-2.2, medians of 1-2
alternated runs): the cap at 4 iterations alone 5.8x, at 3 alone 4.8-5.3x; with the margin of 0.01, the cap at
4 4.5-4.9x and at 3 4.4-4.6x. Earlier: 156.8 / 168.5 s against 16.9 / 22.9 s (load 3.8-4.8; 7.4x wall, 6.4x
CPU) after the margin of 0.005 and the memo fixes, 511.8 s against 55.7 s (load 7; 9.2x) before them. Three
inner splits cost more, not less (6.0x CPU, see above). The selection time summed over the held-out tasks of
the fidelity runs (the acceptance run above; there auto's fit on all the rows can be the memoised fit of the
IRT 2PL selector run beside it) is 3.9x IRT 2PL's on the point-biserial plant, 2.0x on the IRT 2PL plant, 1.6x
on the Random plant and 3.3x on MMMU (4.6x, 4.5x, 4.3x and 4.3x with the previous defaults in the same
session).
``null_max_inner=0`` turns the extension off.

Seeds. Every random choice derives from ``random_state``: the inner splits and each candidate's seed on
each inner split (keyed by the candidate's name, so adding a candidate changes no other's inner results),
and the winner's final seed. Same seed, same bytes. The final seed of a candidate (:meth:`final_seed`, also
a fitted candidate's seed on every inner split) is its entry in ``candidate_seeds`` when given, else an
integer ``random_state`` itself: ``auto`` with seed ``s`` that picks X keeps exactly what X with seed ``s``
keeps. The held-out protocols (:func:`~benchsift.compression.protocols.pools.selection_weights`) give auto,
as ``candidate_seeds``, the seed they give each fixed selector in the same split, pool and retention, and a
per-pool seed for its inner splits. So ``validate --selectors auto,random,...`` compares auto with the
selector it picked on common random numbers: where auto picks Random, it keeps Random's very draw and the
two outer rho are equal, instead of differing by one random draw against another (on the Random plant with
``--seed 2``, auto picked Random on all 20 outer splits at r = 5 % and its mean outer rho was 0.8985 against
Random's 0.9086 with independent draws). The pairing changes no distribution: each of auto's selections is
still a draw of the selector it picked.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from benchsift._inputs import check_choice, check_distinct, check_known
from benchsift._params import Check, ConstraintLike, Interval, Options, check_param
from benchsift.compression.selectors.base import ItemSelector, SelectorInput
from benchsift.compression.selectors.irt2pl import IRT2PLSelector
from benchsift.compression.selectors.random import RandomSelector
from benchsift.compression.selectors.registry import fresh_selector
from benchsift.errors import InputError
from benchsift.stats import check_random_state
from benchsift.stats.correlation import paired_columns
from benchsift.stats.means import nan_mean

__all__ = ["DEFAULT_CANDIDATES", "AutoSelector", "paired_null_test"]

#: The fixed selectors auto chooses among by default: cheap (one fit per inner split) and general (no
#: embeddings, logged answers or benchmark structure needed).
DEFAULT_CANDIDATES: tuple[str, ...] = ("random", "pointbiserial", "irt2pl", "vaw")

Scoring = Literal["mean", "weighted", "selector"]
_SCORINGS = ("mean", "weighted", "selector")
#: One-sided level of the paired t test that separates the winner from another candidate.
SEPARATION_LEVEL = 0.95
#: One-sided level of the paired t test a fitted winner must pass against the null candidate (Random) at
#: budgets ``K <= NULL_BUDGET``, at each of its two looks (the ``n_inner`` splits, then ``null_max_inner``);
#: chosen in the module docstring (How many inner splits, and the level).
NULL_LEVEL = 0.99
#: The largest budget ``K`` at which the null test is at :data:`NULL_LEVEL`; above it, at
#: :data:`NULL_LEVEL_ABOVE`.
NULL_BUDGET: int | None = 50
#: One-sided level of the null test at budgets above :data:`NULL_BUDGET`.
NULL_LEVEL_ABOVE = 0.9
#: Inner splits the null test extends to when its first look is inconclusive.
NULL_MAX_INNER = 12
#: Inner rho by which a fitted best must be able to beat the null for the null test to be extended: when the
#: upper confidence bound of the mean difference on the ``n_inner`` splits is below it, the null is kept
#: (the issue's tolerance; 0.005 before, see the module docstring for what it changes).
NULL_MARGIN = 0.01
#: Cap on the EM iterations of IRT 2PL's fits on the inner splits (None: no cap): one SQUAREM cycle, an
#: approximation measured against converged inner fits in the module docstring (Cost).
INNER_EM_ITER: int | None = 3


def paired_null_test(
    best: np.ndarray, null: np.ndarray, level: float = NULL_LEVEL, heldout_ratio: float = 0.0
) -> dict[str, Any]:
    """The one-sided paired t test that the ``best`` option's inner rho exceeds the ``null``'s.

    ``best`` and ``null`` are the inner rho per inner split (NaN = undefined); the test runs over the splits
    where both are defined: ``d_s = best_s - null_s`` and

        t = mean(d) / se,   se = sd(d) sqrt(1/n + heldout_ratio),   p = P(T_{n-1} > t)

    (sd with ddof 1, Student's t). With ``heldout_ratio = 0`` it is the paired t test
    (``scipy.stats.ttest_rel(..., alternative="greater")``); with the ratio ``n_heldout / n_build`` of the
    random splits the ``d_s`` come from, it is the *corrected resampled t test* of Nadeau & Bengio (2003,
    "Inference for the generalization error", Machine Learning 52, 239-281, eq. 9-10; Bouckaert & Frank
    2004): random splits of one set of models share most of their build models, so their differences are
    positively correlated and ``sd^2 / n`` underestimates the variance of their mean -- the plain test passes
    too often. ``passed`` when ``p < 1 - level`` (``n >= 2``), when every ``d_s`` is the same positive
    number (no spread), or when the null has no defined value on any split (it cannot compete). ``upper`` is
    the one-sided upper confidence bound of the mean difference at ``level``, ``mean(d) + t_{level, n-1} se``
    (the mean itself without spread; ``None`` with fewer than 2 pairs). Returns ``n``, ``mean_diff``,
    ``t``, ``p``, ``upper``, ``level``, ``heldout_ratio`` and ``passed``.
    """
    b = np.asarray(best, dtype=np.float64)
    z = np.asarray(null, dtype=np.float64)
    d = b - z
    d = d[np.isfinite(d)]
    out: dict[str, Any] = {
        "n": int(d.size),
        "mean_diff": float(d.mean()) if d.size else None,
        "t": None,
        "p": None,
        "upper": None,
        "level": float(level),
        "heldout_ratio": float(heldout_ratio),
        "passed": False,
    }
    if not np.isfinite(z).any():
        out["passed"] = True
    elif d.size >= 2:
        se = float(np.std(d, ddof=1)) * np.sqrt(1.0 / d.size + float(heldout_ratio))
        if se > 0:
            tval = float(d.mean()) / se
            out["t"] = tval
            out["p"] = float(student_t.sf(tval, d.size - 1))
            out["passed"] = out["p"] < 1.0 - float(level)
            out["upper"] = float(d.mean()) + float(student_t.ppf(float(level), d.size - 1)) * se
        else:  # the same difference on every split
            out["passed"] = float(d.mean()) > 0
            out["upper"] = float(d.mean())
    return out


def _label(spec: str | ItemSelector) -> str:
    if isinstance(spec, ItemSelector):
        return str(getattr(spec, "name", type(spec).__name__))
    return str(spec).strip().lower()


def _seed(base: int, *keys: int) -> int:
    return int(np.random.SeedSequence([int(base), *(int(k) for k in keys)]).generate_state(1)[0] >> 1)


class AutoSelector(ItemSelector):
    """Per pool and budget, the candidate selector with the best inner held-out fidelity (module docstring).

    Parameters
    ----------
    candidates
        Registered selector names or configured :class:`ItemSelector` instances (cloned); default
        :data:`DEFAULT_CANDIDATES` (random, pointbiserial, irt2pl, vaw). ``"auto"`` itself is refused.
    n_inner
        Inner random splits of the given models (default 4; see the module docstring).
    min_heldout
        Inner held-out models needed for a defined inner rho (default 5; the outer protocol's is 10, the
        inner held-out set is about a third of its size).
    scoring
        How a candidate's kept items estimate the pool mean in the inner fidelity: ``"mean"``,
        ``"weighted"`` (``weights_``) or ``"selector"`` (its :meth:`~ItemSelector.estimate`). The held-out
        protocols set it to their own ``scoring``; Stage 2 / ``compress`` score a suite by its mean.
    random_draws
        Seeded draws of a Random candidate per inner split (default 5): its selection is pure chance, so its
        inner fidelity on a split is the mean over these draws -- the expected fidelity of a random
        sample, which one draw estimates poorly at small budgets; the draws cost next to nothing.
    inner_build
        Share of the given models that build in each inner split (default 0.7, in (0, 1)).
    null
        The candidate a fitted best must beat in the paired one-sided t test over the inner splits to win
        (default ``"random"``; ``None``: the best inner mean wins outright). The default applies only when
        ``"random"`` is a candidate; another name must be one of the candidates.
    null_level
        One-sided level of that test at budgets ``K <= null_budget`` (default 0.99, in [0.5, 1)), at each of
        its two looks: strict, because at small budgets a fitted pick that wins the inner splits by chance
        loses about 0.16 of outer rho against Random where Random is the better selector.
    null_budget
        The largest budget ``K`` (items kept from the pool) tested at ``null_level`` (default 50); larger
        budgets are tested at ``null_level_above``. ``None``: ``null_level`` at every budget.
    null_level_above
        One-sided level of the null test at budgets ``K > null_budget`` (default 0.9, in [0.5, 1)): liberal,
        because there keeping Random where a fitted selector wins costs about 0.02 of outer rho, and a
        wrongly fitted pick costs little. See the module docstring (How many inner splits, and the level).
    null_max_inner
        Inner splits the null test extends to, for the best and the null only, when it fails on the
        ``n_inner`` splits (default 12; ``<= n_inner``: no extension).
    null_margin
        The extension runs only when the one-sided upper confidence bound (at the level of the test in force)
        of the best's mean inner rho minus the null's on the ``n_inner`` splits reaches this margin (default
        0.01, the issue's tolerance): below it the best cannot be shown to beat the null by more than the
        margin, so the null is kept without the extra fits (``0``: extend whenever the test fails).
    null_corrected
        Whether the null test is the plain paired t test (default False: ``sd^2 / n``) or the *corrected
        resampled t test* (True: its variance of the mean difference is ``(1/n + n_heldout/n_build) sd^2``,
        Nadeau & Bengio 2003, "Inference for the generalization error", Machine Learning 52, as the inner
        splits share their models; :func:`paired_null_test`), at every budget. The previous default was the
        corrected test at 0.85 at every budget, extended to 8 (``null_level=0.85, null_budget=None,
        null_corrected=True, null_max_inner=8``).
    inner_em_iter
        EM iterations of an IRT 2PL candidate's fit on an inner split, at most its own ``max_iter`` (default
        3: one SQUAREM cycle, i.e. two EM steps, the extrapolation along them and one EM step from there;
        ``None``: its own ``max_iter`` and tolerance). The winner's fit on all the rows runs to its own
        tolerance, and other 2PL fitters (tinyBenchmarks, whose p-IRT estimate moves with the fit) are not
        capped. See the module docstring (Cost) for the measured agreement with converged fits.
    candidate_seeds
        The seed each candidate (by name) selects with on all the given rows when it wins, and a fitted
        candidate on every inner split (default None: an integer ``random_state`` itself, so auto picking X
        keeps what X with the same seed keeps). The held-out protocols set it to the seeds they give the fixed
        selectors, so auto's outer rho equals that of the fixed selector it picked (module docstring, Seeds).
    random_state
        Seed of the inner splits, the Random candidates' inner draws and, unless ``candidate_seeds`` says
        otherwise, the final selection.

    Fitted attributes
    -----------------
    ``support_``, ``item_scores_``, ``reasons_`` (``"<winner>:<winner's reason>"``), ``weights_`` when the
    winner has them; ``choice_`` (the winner's name; ``None`` when ``k`` keeps the whole pool),
    ``scoring_choice_`` (how its kept items are scored: :attr:`scoring`, or ``"mean"`` when the inner
    evidence preferred the plain mean to the winner's own estimator), ``selector_`` (the fitted winner),
    ``inner_rho_`` ``(n_inner, n_options)``, ``evidence_`` (one row per option: ``candidate``, ``scoring``,
    ``rho_mean``, ``rho_sd``, ``n_inner``, ``wins``, ``winner``; the options are the candidates scored as
    :attr:`scoring` says, then, under ``"weighted"`` / ``"selector"``, each candidate that has its own
    estimator -- ``weights_`` or :meth:`~ItemSelector.estimate`, e.g. AnchorPoints, tinyBenchmarks' p-IRT --
    scored by the plain mean as well), ``null_test_`` (the test of the best against the null: ``selector``,
    ``null``, ``n``, ``mean_diff``, ``t``, ``p``, ``level``, ``passed``, ``extended``; ``None`` when the null
    was the best or there is none), ``null_rho_`` (``(n, 2)``: the best's and the null's inner rho the
    extended test used; ``None`` without an extension), ``separated_``, ``notes_`` and ``warnings_`` (tuples
    of strings).
    """

    name = "auto"
    #: Ask the held-out protocols for one seed per (split, pool), the same at every retention: the inner
    #: splits are shared by the retentions of a pool, so candidate fits memoised on the rows are reused.
    seed_per_pool: ClassVar[bool] = True
    _parameter_constraints: ClassVar[dict[str, list[ConstraintLike]]] = {
        "n_inner": [Interval(Integral, 1, None)],
        "min_heldout": [Interval(Integral, 2, None)],
        "random_draws": [Interval(Integral, 1, None)],
        "null_max_inner": [Interval(Integral, 0, None)],
        "inner_build": [Interval(Real, 0, 1, closed="neither", noun="a fraction")],
        "scoring": [Options(_SCORINGS)],
        "null_level": [Interval(Real, 0.5, 1, closed="left", noun="a one-sided level")],
        "null_level_above": [Interval(Real, 0.5, 1, closed="left", noun="a one-sided level")],
        "null_budget": [Interval(Integral, 1, None, noun="an integer budget"), None],
        "null_corrected": ["boolean"],
        "inner_em_iter": [Interval(Integral, 1, None), None],
        "null_margin": [Interval(Real, 0, 1, closed="left", noun="an inner rho difference")],
        "candidate_seeds": [
            Check(lambda v: isinstance(v, Mapping), "a mapping of candidate names to seeds"),
            None,
        ],
        "candidates": [
            Check(
                lambda c: (
                    not isinstance(c, str | ItemSelector)
                    and all(isinstance(x, str | ItemSelector) for x in c)
                ),
                "a list of selector names or ItemSelectors",
            )
        ],
    }

    def __init__(
        self,
        candidates: Sequence[str | ItemSelector] = DEFAULT_CANDIDATES,
        n_inner: int = 4,
        min_heldout: int = 5,
        scoring: Scoring = "mean",
        random_draws: int = 5,
        inner_build: float = 0.7,
        null: str | None = "random",
        null_level: float = NULL_LEVEL,
        null_budget: int | None = NULL_BUDGET,
        null_level_above: float = NULL_LEVEL_ABOVE,
        null_max_inner: int = NULL_MAX_INNER,
        null_margin: float = NULL_MARGIN,
        null_corrected: bool = False,
        inner_em_iter: int | None = INNER_EM_ITER,
        candidate_seeds: Mapping[str, int] | None = None,
        random_state: int | np.random.Generator | None = 0,
    ) -> None:
        self.candidate_seeds = candidate_seeds
        self.inner_em_iter = inner_em_iter
        self.null_max_inner = null_max_inner
        self.null_margin = null_margin
        self.null_corrected = null_corrected
        self.inner_build = inner_build
        self.null = null
        self.null_level = null_level
        self.null_budget = null_budget
        self.null_level_above = null_level_above
        self.candidates = candidates
        self.n_inner = n_inner
        self.min_heldout = min_heldout
        self.scoring = scoring
        self.random_draws = random_draws
        self.random_state = random_state

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        super()._check_params()
        labels = [_label(c) for c in self.candidates]
        check_distinct("auto candidates", labels, what="candidate selector")
        if "auto" in labels:
            raise InputError("auto candidates: 'auto' cannot be its own candidate")
        from benchsift.compression.selectors.registry import SELECTOR_NAMES

        for spec, label in zip(self.candidates, labels, strict=True):
            if isinstance(spec, str):
                check_choice("auto candidates", label, SELECTOR_NAMES, what="selector")
        if self.null is not None:
            check_choice(
                "auto null", _label(self.null), [*labels, "random"], what="null (a candidate or random)"
            )
        seeds = self.candidate_seeds
        if seeds is not None:
            check_known("auto candidate_seeds", seeds, labels, what="candidate")
            for key, val in seeds.items():
                seed = Interval(Integral, 0, None, noun="an integer seed")
                check_param(f"candidate_seeds[{key!r}]", val, [seed], owner="auto", quote=False)

    def candidate_labels(self) -> list[str]:
        """The candidates' names, in order."""
        return [_label(c) for c in self.candidates]

    # ------------------------------------------------------------------ selection
    def _run(self, sel: ItemSelector, inp: SelectorInput, rows: np.ndarray | None) -> np.ndarray:
        scores = inp.scores if rows is None else inp.scores[rows]
        if type(sel).select is ItemSelector.select:
            # the rows of input validated once, by this selector's select: the candidate's own select would
            # only check them again (check_selector_input), so its parameters are checked and it selects
            sel._check_params()
            sub = SelectorInput(scores, inp.k, inp.embeddings, inp.text_embeddings, inp.item_meta)
            return sel._select(sub)
        return sel.select(
            scores,
            inp.k,
            embeddings=inp.embeddings,
            text_embeddings=inp.text_embeddings,
            item_meta=inp.item_meta,
        )

    def _estimate(self, sel: ItemSelector, kept_scores: np.ndarray) -> np.ndarray:
        if self.scoring == "selector":
            return np.asarray(sel.estimate(kept_scores), dtype=np.float64)
        w = getattr(sel, "weights_", None) if self.scoring == "weighted" else None
        x = kept_scores
        weights = np.ones(x.shape[1]) if w is None else np.asarray(w, dtype=np.float64)
        valid = ~np.isnan(x)
        den = valid.astype(np.float64) @ weights
        num = np.where(valid, x, 0.0) @ weights
        out = np.full(x.shape[0], np.nan)
        np.divide(num, den, out=out, where=den > 0)
        return out

    def inner_splits(self, n_models: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """The ``(build, heldout)`` row positions of the inner splits for ``n_models`` rows (sorted)."""
        base = self._base_seed()
        return self._splits(base, int(n_models))

    def inner_seed(self, split: int, candidate: str) -> int:
        """The seed ``candidate`` selects with on inner split ``split`` (keyed by its name): a Random
        candidate's first draw has one per split, every other candidate its final seed on every split."""
        labels = self.candidate_labels()
        label = _label(candidate)
        spec = self.candidates[labels.index(label)] if label in labels else label
        key = zlib.crc32(label.encode("utf-8"))
        base = self._base_seed()
        final = self._final_seed(base, label, key)
        if isinstance(fresh_selector(spec, final), RandomSelector):
            return _seed(base, 1, int(split), key)
        return final

    def final_seed(self, candidate: str) -> int:
        """The seed ``candidate`` selects with on all the given rows when it wins: its entry in
        :attr:`candidate_seeds`, else an integer :attr:`random_state` itself (so ``auto`` with seed ``s``
        that picks X selects what X with seed ``s`` selects), else one derived from the random state."""
        label = _label(candidate)
        return self._final_seed(self._base_seed(), label, zlib.crc32(label.encode("utf-8")))

    def _final_seed(self, base: int, label: str, key: int) -> int:
        given = self.candidate_seeds
        if given is not None and label in given:
            return int(given[label])
        rs = self.random_state
        if isinstance(rs, int | np.integer) and not isinstance(rs, bool):
            return int(rs)
        return _seed(base, 2, key)

    def _base_seed(self) -> int:
        return int(check_random_state(self.random_state).integers(0, 2**31 - 1))

    def _splits(self, base: int, n: int, count: int | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """The first ``count`` (default :attr:`n_inner`) inner splits: row ``s`` of one ``(count, n)`` uniform
        draw, so the first splits are the same for any ``count`` (the null test's extension adds splits)."""
        rng = np.random.default_rng([base, 0])
        count = int(self.n_inner) if count is None else int(count)
        perms = np.argsort(rng.random((count, n)), axis=1)  # one call, as random_splits does
        nb = self._n_build(n)
        return [(np.sort(p[:nb]).astype(np.int64), np.sort(p[nb:]).astype(np.int64)) for p in perms]

    def _own_estimator(self, sel: ItemSelector) -> bool:
        """Whether the fitted candidate scores differently from the plain mean under :attr:`scoring`."""
        if self.scoring == "mean":
            return False
        if getattr(sel, "weights_", None) is not None:
            return True
        return self.scoring == "selector" and type(sel).estimate is not ItemSelector.estimate

    def _select(self, inp: SelectorInput) -> np.ndarray:
        labels = self.candidate_labels()
        base = self._base_seed()
        n_models, n = inp.scores.shape
        keys = [zlib.crc32(lab.encode("utf-8")) for lab in labels]
        notes: list[str] = []
        warnings: list[str] = []
        # the options: (candidate, "own") scores as the consumer does; a candidate with its own estimator
        # (weights_ or estimate()) under scoring weighted / selector also gets (candidate, "mean")
        options: list[tuple[int, str]] = [(c, "own") for c in range(len(labels))]
        if inp.k >= n:  # the budget keeps the whole pool: nothing to choose
            rho = np.full((int(self.n_inner), len(options)), np.nan)
            self.choice_ = None
            self.scoring_choice_ = None
            kept = np.arange(n, dtype=np.int64)
            out = self._set_fitted(n, kept, np.full(n, "whole", dtype=object), np.full(n, np.nan))
            self.selector_ = None
            self.inner_rho_ = rho
            self.evidence_ = self._evidence(labels, options, rho, -1)
            self.separated_ = False
            self.notes_: tuple[str, ...] = (
                f"the budget ({inp.k}) keeps the whole pool of {n} items: no selector to choose",
            )
            self.warnings_: tuple[str, ...] = ()
            self.null_test_: dict[str, Any] | None = None
            return out
        rows: list[np.ndarray] = []
        pool_mean = nan_mean(inp.scores, axis=1)
        if n_models >= 2:
            for s, (build, held) in enumerate(self._splits(base, n_models)):
                rows.append(self._split_rho(inp, base, keys, s, build, held, pool_mean, options, None))
        rho = np.full((int(self.n_inner), len(options)), np.nan)  # the candidates, then the "(mean)" options
        for s, r in enumerate(rows):
            rho[s] = r
        names = [self._option_label(labels, o) for o in options]
        means = nan_mean(rho, axis=0)
        self.null_test_ = None
        self.null_rho_: np.ndarray | None = None
        if np.isfinite(means).any():
            w = int(np.argmax(np.where(np.isfinite(means), means, -np.inf)))  # first of the tied best
            null = self._null_option(labels, options)
            if null is not None and w != null:
                level, ratio = self.null_level_at(inp.k), self.heldout_ratio(n_models)
                self.null_test_ = self._null_test(rho, w, null, names, level, ratio)
                n_max = int(self.null_max_inner)
                upper = self.null_test_["upper"]
                material = upper is None or upper >= float(self.null_margin)
                if not self.null_test_["passed"] and not material:
                    self.null_test_["note"] += (
                        f"; not extended: the upper {level:g} bound of the difference, "
                        f"{upper:+.4f}, is below the margin {float(self.null_margin):g}"
                    )
                if not self.null_test_["passed"] and material and n_max > int(self.n_inner) and n_models >= 2:
                    # inconclusive on n_inner splits: more inner splits, for the best and the null only
                    pair = np.column_stack([rho[:, w], rho[:, null]])
                    only = {options[w][0], options[null][0]}
                    more = []
                    for s, (build, held) in enumerate(self._splits(base, n_models, n_max)):
                        if s >= int(self.n_inner):
                            r = self._split_rho(inp, base, keys, s, build, held, pool_mean, options, only)
                            more.append([r[w], r[null]])
                    pair = np.vstack([pair, np.asarray(more, dtype=np.float64).reshape(-1, 2)])
                    self.null_rho_ = pair
                    self.null_test_ = self._null_test(pair, 0, 1, [names[w], names[null]], level, ratio)
                    self.null_test_["extended"] = True
                if not self.null_test_["passed"]:
                    notes.append(self.null_test_["note"])
                    w = null
            self.separated_, why = self._separation(rho, w, names)
            if why:
                notes.append(why)
        else:
            w = 0
            self.separated_ = False
            warnings.append(
                f"auto: no candidate has a defined inner fidelity ({n_models} models, {self.n_inner} inner "
                f"splits, at least {self.min_heldout} inner held-out models needed): fell back to the first "
                f"candidate, {labels[0]}"
            )
        c_w, mode = options[w]
        winner = fresh_selector(self.candidates[c_w], self._final_seed(base, labels[c_w], keys[c_w]))
        kept = self._run(winner, inp, None)
        self.choice_ = labels[c_w]
        self.scoring_choice_ = self.scoring if mode == "own" else "mean"
        self.selector_ = winner
        self.inner_rho_ = rho
        self.evidence_ = self._evidence(labels, options, rho, w)
        self.notes_ = tuple(notes)
        self.warnings_ = tuple(warnings)
        reasons = np.array([f"{labels[c_w]}:{r}" for r in winner.reasons_], dtype=object)
        # winner.select returned sorted positions with reasons_ in that order: _set_fitted keeps them aligned
        out = self._set_fitted(n, kept, reasons, np.asarray(winner.item_scores_, dtype=np.float64))
        weights = getattr(winner, "weights_", None)
        if weights is not None and mode == "own":
            self.weights_ = np.asarray(weights, dtype=np.float64)
        return out

    def _split_rho(
        self,
        inp: SelectorInput,
        base: int,
        keys: list[int],
        s: int,
        build: np.ndarray,
        held: np.ndarray,
        pool_mean: np.ndarray,
        options: list[tuple[int, str]],
        only: set[int] | None,
    ) -> np.ndarray:
        """The inner rho of every option on inner split ``s``, of the candidates in ``only`` (None: all; then
        on split 0 the "(mean)" options of candidates with their own estimator are added to ``options``)."""
        est: dict[tuple[int, str], list[np.ndarray]] = {}
        for c, spec in enumerate(self.candidates):
            if only is not None and c not in only:
                continue
            # the final seed on every inner split: the evidence is about the configuration (cells,
            # tie-breaking order) the winner selects with, and seed-keyed memos (VAW's cells) hit
            sel = self._inner_config(fresh_selector(spec, self._final_seed(base, _label(spec), keys[c])))
            draws = [sel]
            if isinstance(sel, RandomSelector):  # pure chance: average its fidelity over draws
                sel = fresh_selector(spec, _seed(base, 1, s, keys[c]))
                seeds = [_seed(base, 3, s, keys[c], d) for d in range(1, int(self.random_draws))]
                draws = [sel] + [fresh_selector(spec, seed) for seed in seeds]
            for one in draws:
                kept_scores = inp.scores[np.ix_(held, self._run(one, inp, build))]
                est.setdefault((c, "own"), []).append(self._estimate(one, kept_scores))
                if only is None and s == 0 and one is sel and self._own_estimator(sel):
                    options.append((c, "mean"))
                if (c, "mean") in options:
                    est.setdefault((c, "mean"), []).append(nan_mean(kept_scores, axis=1))
        cols = [(j, e) for j, o in enumerate(options) for e in est.get(o, [])]
        r = np.full(len(options), np.nan)
        if not cols:
            return r
        E = np.column_stack([e for _, e in cols])
        full = np.repeat(pool_mean[held, None], E.shape[1], axis=1)
        r_all = paired_columns(full, E, "srcc")
        n_ok = (np.isfinite(full) & np.isfinite(E)).sum(axis=0)
        r_all[n_ok < int(self.min_heldout)] = np.nan
        which = np.array([j for j, _ in cols], dtype=np.int64)
        for j in range(len(options)):  # an option's rho: its draws' mean (NaN if one is undefined)
            if (which == j).any():
                r[j] = float(np.mean(r_all[which == j]))
        return r

    def _inner_config(self, sel: ItemSelector) -> ItemSelector:
        """The candidate as it selects on an inner split: IRT 2PL with at most :attr:`inner_em_iter` EM
        iterations, any other candidate unchanged."""
        if self.inner_em_iter is not None and isinstance(sel, IRT2PLSelector):
            if int(sel.max_iter) > int(self.inner_em_iter):
                sel.set_params(max_iter=int(self.inner_em_iter))
        return sel

    def _option_label(self, labels: list[str], option: tuple[int, str]) -> str:
        c, mode = option
        return labels[c] if mode == "own" else f"{labels[c]} (mean)"

    def _null_option(self, labels: list[str], options: list[tuple[int, str]]) -> int | None:
        """The option of the null candidate (scored as :attr:`scoring` says), or None without one."""
        if self.null is None or _label(self.null) not in labels:  # the default null without a Random
            return None
        c = labels.index(_label(self.null))
        return options.index((c, "own"))

    def heldout_ratio(self, n_models: int) -> float:
        """``n_heldout / n_build`` of the inner splits of ``n_models`` rows: the correction of the null test
        (:func:`paired_null_test`) when :attr:`null_corrected`, else 0."""
        if not self.null_corrected or n_models < 2:
            return 0.0
        nb = self._n_build(n_models)
        return (n_models - nb) / nb

    def null_level_at(self, k: int) -> float:
        """The one-sided level of the null test at budget ``k``: :attr:`null_level` when ``k <=``
        :attr:`null_budget` (or that is None), else :attr:`null_level_above`."""
        kb = self.null_budget
        return float(self.null_level if kb is None or int(k) <= int(kb) else self.null_level_above)

    def _n_build(self, n: int) -> int:
        """The inner build models of an inner split of ``n`` rows (at least one, and one left out)."""
        return min(max(int(round(float(self.inner_build) * n)), 1), n - 1)

    def _null_test(
        self, rho: np.ndarray, w: int, null: int, labels: list[str], level: float, ratio: float
    ) -> dict[str, Any]:
        """:func:`paired_null_test` of option ``w`` against the null option at ``level`` with ``ratio``
        (:meth:`null_level_at`, :meth:`heldout_ratio`), with its labels and note."""
        test = paired_null_test(rho[:, w], rho[:, null], level, ratio)
        out: dict[str, Any] = {
            "selector": labels[w],
            "null": labels[null],
            **test,
            "margin": float(self.null_margin),
            "extended": False,
        }
        shown = "undefined" if test["mean_diff"] is None else f"{test['mean_diff']:+.4f}"
        p_txt = "" if test["p"] is None else f", one-sided p = {test['p']:.3f}"
        kind = "corrected resampled" if test["heldout_ratio"] > 0 else "paired"
        out["note"] = (
            ""
            if test["passed"]
            else f"auto: {labels[w]} had the best inner rho but did not beat {labels[null]} in a {kind} "
            f"one-sided t test over {test['n']} inner splits (mean difference {shown}{p_txt}, level "
            f"{level:g}): kept {labels[null]}, the null"
        )
        return out

    def _separation(self, rho: np.ndarray, w: int, labels: list[str]) -> tuple[bool, str]:
        """Whether the winner ``w`` beats every other option in a one-sided paired t test over inner splits
        (level :data:`SEPARATION_LEVEL`); the note saying which options it cannot be told from."""
        if rho.shape[1] == 1:
            return True, ""
        tied = []
        for c in range(rho.shape[1]):
            if c == w:
                continue
            d = rho[:, w] - rho[:, c]
            d = d[np.isfinite(d)]
            if d.size == 0:
                continue  # the other candidate has no defined value: it cannot compete
            if d.size < 2:
                tied.append(c)
                continue
            se = float(np.std(d, ddof=1)) / np.sqrt(d.size)
            if not float(d.mean()) > float(student_t.ppf(SEPARATION_LEVEL, d.size - 1)) * se:
                tied.append(c)
        if not tied:
            return True, ""
        means = nan_mean(rho, axis=0)
        shown = ", ".join(f"{labels[c]} {means[c]:.4f}" for c in tied)
        return False, (
            f"auto: the inner evidence cannot separate {labels[w]} (inner rho {means[w]:.4f}) from {shown} "
            f"(paired t test over {rho.shape[0]} inner splits, one-sided level {SEPARATION_LEVEL:g})"
        )

    def _evidence(
        self, labels: list[str], options: list[tuple[int, str]], rho: np.ndarray, w: int
    ) -> pd.DataFrame:
        ok = np.isfinite(rho)
        n_ok = ok.sum(axis=0)
        means = nan_mean(rho, axis=0)
        sd = np.full(len(options), np.nan)
        for j in range(len(options)):
            if n_ok[j] > 1:
                sd[j] = float(np.std(rho[ok[:, j], j], ddof=1))
        rounded = np.where(ok, np.round(rho, 12), -np.inf)
        best = rounded.max(axis=1, keepdims=True)
        wins = ((rounded == best) & ok).sum(axis=0)
        return pd.DataFrame(
            {
                "candidate": [labels[c] for c, _ in options],
                "scoring": [self.scoring if mode == "own" else "mean" for _, mode in options],
                "rho_mean": means,
                "rho_sd": sd,
                "n_inner": n_ok.astype(np.int64),
                "wins": wins.astype(np.int64),
                "winner": [j == w for j in range(len(options))],
            }
        )

    def estimate(self, kept_scores: np.ndarray) -> np.ndarray:
        """The winner's estimate of the pool mean from the kept items, or the plain mean when the inner
        evidence chose it over the winner's own estimator (``scoring_choice_ == "mean"`` under
        ``scoring="selector"``), before fitting, or when the budget kept the whole pool."""
        winner = getattr(self, "selector_", None)
        if winner is None or (self.scoring == "selector" and self.scoring_choice_ == "mean"):
            return super().estimate(kept_scores)
        return winner.estimate(kept_scores)

    def evidence_record(self) -> dict[str, Any]:
        """JSON-able: the pick, whether it is separated, and per candidate the inner mean, sd, count, wins."""
        ev = self.evidence_
        test = getattr(self, "null_test_", None)
        return {
            "choice": self.choice_,
            "scoring": self.scoring_choice_,
            "separated": bool(self.separated_),
            "n_inner": int(self.n_inner),
            "candidates": [
                {
                    "selector": str(r.candidate),
                    "scoring": str(r.scoring),
                    "rho_mean": None if not np.isfinite(r.rho_mean) else float(r.rho_mean),
                    "rho_sd": None if not np.isfinite(r.rho_sd) else float(r.rho_sd),
                    "n_inner": int(r.n_inner),
                    "wins": int(r.wins),
                }
                for r in ev.itertuples(index=False)
            ],
            "null_test": None if test is None else {k: v for k, v in test.items() if k != "note"},
            "notes": list(self.notes_),
            "warnings": list(self.warnings_),
        }
