"""Systems compared from a judge's labels and a gold subset:
:func:`ppi_compare` and its result, :class:`PPIComparison`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidParameterError
from skirm._frames import BACKEND
from skirm._params import checked, describe
from skirm.recsys import kendall_tau
from skirm.stats._compare import ALPHA, _check_baselines, _correction, _pair_matrix
from skirm.stats._correction import CORRECTION, adjust_pvalues
from skirm.stats._paired import CONFIDENCE
from skirm.stats._ppi_inputs import (
    align,
    check_strata,
    check_strata_gold,
    gold_split,
    records_frame,
)
from skirm.stats._ppi_kernels import estimate_all, pvalue
from skirm.stats._ppi_mean import _NAMES, PPI_INTERVAL, PPI_METHOD
from skirm.stats._report import KIND

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from skirm.stats._ppi_inputs import Aligned

_SYSTEM_KEYS = ("mean", "std_error", "ci_low", "ci_high", "lam")


class PPIComparison:
    """Systems compared on a judge's labels corrected by gold labels.

    Returned by :func:`ppi_compare`. Each system's mean and each pair's
    mean difference are prediction-powered estimates (the pair's from the
    per-query differences, its own weight tuned), tested by the t (or z)
    test of its estimate and corrected per metric over the pairs.

    Attributes
    ----------
    systems : list of str
        The systems, the baselines first.
    baselines : list of str
        The baselines (empty: every pair compared).
    metrics : list of str
    pairs : list of tuple of str
        ``(system, other)``: a difference is ``system`` minus ``other``.
    method : {"ppi++", "ppi"}
    means : dict of str to dict of str to float
        ``means[system][metric]``: the corrected mean.
    judge_means, gold_means : dict of str to dict of str to float
        The judge's own mean over every query, and the gold queries' mean.
    kendall_tau : dict of str to float
        Per metric, Kendall's tau-b between the systems' order by the
        corrected means and by the judge's own (1: the judge alone orders
        them alike; NaN when either is constant).
    n_queries : int
        The judge's queries.
    n_gold : dict of str to int
        The gold queries of each metric.
    correction : str or None
        The multiple-comparison correction applied per metric.
    alpha, confidence : float
    interval : {"t", "z"}

    Examples
    --------
    See :func:`ppi_compare`.
    """

    def __init__(
        self,
        *,
        aligned: Aligned,
        baselines: list[str],
        pairs: list[tuple[str, str]],
        method: str,
        correction: str | None,
        alpha: float,
        confidence: float,
        interval: str,
        systems_table: dict[str, dict[str, Any]],
        pairs_table: dict[str, dict[str, Any]],
        n_gold: dict[str, int],
        tau: dict[str, float],
    ) -> None:
        self.systems = aligned.systems
        self.baselines = baselines
        self.metrics = aligned.metrics
        self.pairs = pairs
        self.method = method
        self.correction = correction
        self.alpha = alpha
        self.confidence = confidence
        self.interval = interval
        self.group_ids = aligned.group_ids
        self.n_queries = int(aligned.group_ids.size)
        self.n_gold = n_gold
        self.kendall_tau = tau
        self._systems = systems_table
        self._pairs = pairs_table

        def means(est):
            return {
                s: {m: float(systems_table[m][est]["mean"][i]) for m in self.metrics}
                for i, s in enumerate(self.systems)
            }

        self.means = means(method)
        self.judge_means = means("judge")
        self.gold_means = means("gold")

    @checked(kind=KIND)
    def to_records(
        self, kind: Literal["systems", "pairs"] = "systems"
    ) -> list[dict[str, Any]]:
        """The rows of :meth:`to_frame` as a list of dicts.

        Parameters
        ----------
        kind : {"systems", "pairs"}, default="systems"

        Returns
        -------
        records : list of dict
        """
        if kind == "pairs":
            return [
                {"system": a, "other": b, "metric": m, **self._pair_record(p, m)}
                for p, (a, b) in enumerate(self.pairs)
                for m in self.metrics
            ]
        rows = []
        for i, system in enumerate(self.systems):
            for m in self.metrics:
                t = self._systems[m]
                head = t[self.method]
                rows.append(
                    {
                        "system": system,
                        "metric": m,
                        **{k: float(head[k][i]) for k in _SYSTEM_KEYS},
                        "gold_mean": float(t["gold"]["mean"][i]),
                        "gold_ci_low": float(t["gold"]["ci_low"][i]),
                        "gold_ci_high": float(t["gold"]["ci_high"][i]),
                        "judge_mean": float(t["judge"]["mean"][i]),
                        "n_gold": self.n_gold[m],
                        "n_queries": self.n_queries,
                    }
                )
        return rows

    def _pair_record(self, p, metric):
        t = self._pairs[metric]
        head = t[self.method]
        return {
            "delta": float(head["mean"][p]),
            "std_error": float(head["std_error"][p]),
            "ci_low": float(head["ci_low"][p]),
            "ci_high": float(head["ci_high"][p]),
            "lam": float(head["lam"][p]) if head["lam"].ndim == 1 else float("nan"),
            "p_value": float(t["pvalue"][p]),
            "p_adjusted": float(t["p_adjusted"][p]),
            "significant": bool(t["significant"][p]),
            "gold_delta": float(t["gold"]["mean"][p]),
            "gold_ci_low": float(t["gold"]["ci_low"][p]),
            "gold_ci_high": float(t["gold"]["ci_high"][p]),
            "judge_delta": float(t["judge"]["mean"][p]),
        }

    @checked(kind=KIND, backend=BACKEND)
    def to_frame(
        self,
        kind: Literal["systems", "pairs"] = "systems",
        backend: Literal["pandas", "polars"] = "pandas",
    ) -> Any:
        """The comparison as a tidy pandas (or polars) DataFrame.

        Parameters
        ----------
        kind : {"systems", "pairs"}, default="systems"
            ``"systems"``: one row per (system, metric): the corrected
            ``mean, std_error, ci_low, ci_high, lam``, the gold queries'
            ``gold_mean, gold_ci_low, gold_ci_high``, the judge's own
            ``judge_mean``, ``n_gold, n_queries``. ``"pairs"``: one row per
            (pair, metric): ``delta, std_error, ci_low, ci_high, lam,
            p_value, p_adjusted, significant``, the gold queries' own
            ``gold_delta, gold_ci_low, gold_ci_high`` and ``judge_delta``
            (``lam`` NaN when stratified).
        backend : {"pandas", "polars"}, default="pandas"

        Returns
        -------
        frame : pandas.DataFrame or polars.DataFrame
        """
        return records_frame(self.to_records(kind), "PPIComparison.to_frame", backend)

    def __str__(self) -> str:
        correction = self.correction or "no correction"
        lines = [
            f"{_NAMES[self.method]} comparison of {len(self.systems)} systems on "
            f"{self.n_queries} queries judged, {self.confidence:.0%} intervals, "
            f"{self.interval} test, {correction}, alpha {self.alpha:g}"
        ]
        width = max(len(s) for s in self.systems)
        for m in self.metrics:
            lines.append(
                f"{m}: {self.n_gold[m]} gold queries; Kendall's tau with the "
                f"judge's own order {self.kendall_tau[m]:.3f}"
            )
            t = self._systems[m][self.method]
            for i, s in enumerate(self.systems):
                lines.append(
                    f"  {s:<{width}}  {t['mean'][i]:.4f} [{t['ci_low'][i]:.4f}, "
                    f"{t['ci_high'][i]:.4f}]  judge {self.judge_means[s][m]:.4f}"
                )
            for p, (a, b) in enumerate(self.pairs):
                r = self._pair_record(p, m)
                mark = " *" if r["significant"] else ""
                lines.append(
                    f"  {a} - {b} = {r['delta']:+.4f} [{r['ci_low']:+.4f}, "
                    f"{r['ci_high']:+.4f}], p {r['p_value']:.3g} (adjusted "
                    f"{r['p_adjusted']:.3g}){mark}; gold only {r['gold_delta']:+.4f} "
                    f"[{r['gold_ci_low']:+.4f}, {r['gold_ci_high']:+.4f}]"
                )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"PPIComparison(systems={self.systems!r}, metrics={self.metrics!r}, "
            f"method={self.method!r}, correction={self.correction!r}, "
            f"n_queries={self.n_queries}, n_gold={self.n_gold!r})"
        )


def _inputs(judge, gold):
    if not hasattr(judge, "items"):
        raise InvalidParameterError(
            f"`judge` must map system names to results, got {describe(judge)}"
        )
    judge = dict(judge)
    if gold is None:
        if not all(hasattr(r, "gold_result") for r in judge.values()):
            raise InvalidParameterError(
                "`gold` must map the systems to their gold results, unless "
                "`judge` maps them to PPIResults"
            )
        gold = {s: r.gold_result for s, r in judge.items()}
        judge = {s: r.judge_result for s, r in judge.items()}
    elif not hasattr(gold, "items") or set(gold) != set(judge):
        raise InvalidParameterError(
            "`gold` must map the systems of `judge` to their gold results, got "
            f"{describe(gold) if not hasattr(gold, 'items') else sorted(gold)}"
        )
    if len(judge) < 2:
        raise InvalidParameterError(
            f"`judge` must hold at least 2 systems, got {len(judge)}"
        )
    for name in judge:
        if not isinstance(name, str):
            raise InvalidParameterError(
                f"`judge` keys must be strings, got {describe(name)}"
            )
    return judge, gold


@checked(
    method=PPI_METHOD,
    correction=CORRECTION,
    alpha=ALPHA,
    confidence=CONFIDENCE,
    interval=PPI_INTERVAL,
)
def ppi_compare(
    judge: Mapping[str, Any],
    gold: Mapping[str, Any] | None = None,
    *,
    baseline: str | Sequence[str] | None = None,
    metrics: str | Sequence[str] | None = None,
    method: Literal["ppi++", "ppi"] = "ppi++",
    correction: Literal["auto", "holm", "bonferroni", "fdr_bh"] | None = "auto",
    alpha: float = 0.05,
    confidence: float = 0.95,
    interval: Literal["t", "z"] = "t",
    strata: ArrayLike | Mapping[Any, Any] | None = None,
) -> PPIComparison:
    """Compare systems from a judge's labels and a gold subset.

    Every system's mean is estimated as :func:`ppi_mean` does; every pair's
    difference from the per-query differences of the two systems (under
    the judge on every query, under the humans on the gold ones), with its
    own tuned weight: what prediction-powered inference averages. Each
    difference is tested by the t (or z) test of its estimate, and the p-values
    corrected per metric over the pairs (as :func:`compare` does).

    Parameters
    ----------
    judge : dict of str to EvaluationResult, array-like or PPIResult
        The systems under the judge's labels, on the same queries (see
        :func:`ppi_mean`'s ``judge``); or, without ``gold``, the systems'
        :class:`PPIResult` objects (from :func:`ppi_evaluate`).
    gold : dict of str to EvaluationResult or array-like, default=None
        The same systems on the gold queries under the human labels; every
        system needs gold values on the same queries.
    baseline : str or list of str, default=None
        Compare every other system with it (with each of several); None
        compares every pair.
    metrics : str or list of str, default=None
        The metrics compared; None for every metric all results hold.
    method : {"ppi++", "ppi"}, default="ppi++"
    correction : {"auto", "holm", "bonferroni", "fdr_bh"} or None, default="auto"
        Per metric over the pairs (:func:`adjust_pvalues`); ``"auto"`` is
        Holm for several pairs, none for one.
    alpha : float, default=0.05
        Significant when the corrected p-value is ``<= alpha``.
    confidence : float, default=0.95
        The level of the intervals (not adjusted for the pairs).
    interval : {"t", "z"}, default="t"
        As in :func:`ppi_mean`; the test is Student's t or the z test on the
        same degrees of freedom.
    strata : array-like or mapping, default=None
        The stratum of each query, as in :func:`ppi_mean`.

    Returns
    -------
    comparison : PPIComparison
        ``means``, ``kendall_tau``, ``to_frame(kind)``.

    Examples
    --------
    Three systems, a judge that overrates the weakest:

    >>> import numpy as np
    >>> from skirm.stats import ppi_compare
    >>> rng = np.random.default_rng(0)
    >>> truth = {s: rng.beta(a, 3, size=400) for s, a in
    ...          [("bm25", 2.0), ("dense", 2.4), ("rerank", 3.0)]}
    >>> bias = {"bm25": 0.15, "dense": 0.05, "rerank": 0.0}
    >>> judge = {s: v + bias[s] + rng.normal(0, 0.08, 400) for s, v in truth.items()}
    >>> sample = rng.choice(400, size=60, replace=False)
    >>> gold = {}
    >>> for s, v in truth.items():
    ...     gold[s] = np.full(400, np.nan)
    ...     gold[s][sample] = v[sample]
    >>> comparison = ppi_compare(judge, gold, metrics="ndcg@10")
    >>> {s: round(m["ndcg@10"], 3) for s, m in comparison.means.items()}
    {'bm25': 0.395, 'dense': 0.452, 'rerank': 0.508}
    >>> {s: round(m["ndcg@10"], 3) for s, m in comparison.judge_means.items()}
    {'bm25': 0.555, 'dense': 0.509, 'rerank': 0.507}
    >>> comparison.kendall_tau["ndcg@10"]
    -1.0
    >>> frame = comparison.to_frame("pairs")
    >>> frame[["system", "other", "delta", "p_adjusted", "gold_delta"]].round(3)
      system   other  delta  p_adjusted  gold_delta
    0   bm25   dense -0.054       0.010      -0.014
    1   bm25  rerank -0.109       0.000      -0.081
    2  dense  rerank -0.057       0.004      -0.067

    The judge alone orders the systems backwards; the 60 gold queries alone
    tell one pair apart (their intervals are in ``gold_ci_low`` and
    ``gold_ci_high``); corrected, all three.
    """
    judge, gold = _inputs(judge, gold)
    baselines = _check_baselines(baseline, judge)
    systems = [*baselines, *(s for s in judge if s not in baselines)]
    aligned = align(judge, gold, metrics, systems=systems)
    k = len(systems)
    if baselines:
        nb = len(baselines)
        index_pairs = [(a, b) for b in range(nb) for a in range(nb, k)]
    else:
        index_pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    combine = _pair_matrix(index_pairs, k, 1)
    correction = _correction(correction, "z", len(index_pairs))
    arrays = not hasattr(next(iter(judge.values())), "per_query")
    strata_codes = check_strata(strata, aligned.group_ids, arrays)
    systems_table, pairs_table, n_gold, tau = {}, {}, {}, {}
    for j, metric in enumerate(aligned.metrics):
        judge_rows, gold_rows = aligned.judge[:, j], aligned.gold[:, j]
        mask = gold_split(gold_rows, metric)
        split = None
        if strata_codes is not None:
            labels, codes = strata_codes
            check_strata_gold(codes, labels, mask, metric)
            split = (codes[mask], codes[~mask])
        g, jg, jr = gold_rows[:, mask], judge_rows[:, mask], judge_rows[:, ~mask]
        systems_table[metric] = estimate_all(g, jg, jr, split, confidence, interval)
        pair_rows = estimate_all(
            combine @ g, combine @ jg, combine @ jr, split, confidence, interval
        )
        head = pair_rows[method]
        pair_rows["pvalue"] = pvalue(head["mean"], head["std_error"], head["df"])
        pair_rows["p_adjusted"] = adjust_pvalues(pair_rows["pvalue"], correction)
        pair_rows["significant"] = pair_rows["p_adjusted"] <= alpha
        pairs_table[metric] = pair_rows
        n_gold[metric] = int(np.count_nonzero(mask))
        corrected = systems_table[metric][method]["mean"]
        own = systems_table[metric]["judge"]["mean"]
        flat = np.ptp(corrected) == 0 or np.ptp(own) == 0
        tau[metric] = float("nan") if flat else kendall_tau(corrected, own)
    return PPIComparison(
        aligned=aligned,
        baselines=baselines,
        pairs=[(systems[a], systems[b]) for a, b in index_pairs],
        method=method,
        correction=correction,
        alpha=alpha,
        confidence=confidence,
        interval=interval,
        systems_table=systems_table,
        pairs_table=pairs_table,
        n_gold=n_gold,
        tau=tau,
    )
