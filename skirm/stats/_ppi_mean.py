"""A metric's mean from a judge's labels and a gold subset: :func:`ppi_mean`
and its result, :class:`PPIResult`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidParameterError
from skirm._frames import BACKEND
from skirm._params import OneOf, Param, checked
from skirm.stats._paired import CONFIDENCE
from skirm.stats._ppi_inputs import (
    align,
    check_strata,
    check_strata_gold,
    gold_split,
    records_frame,
)
from skirm.stats._ppi_kernels import (
    ESTIMATORS,
    METHODS,
    check_n_gold,
    correlation,
    estimate_all,
    planned_half_width,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from skirm.metrics import EvaluationResult

#: The estimate a result puts first: PPI++ (tuned weight) or PPI.
PPI_METHOD = Param("method", OneOf(*METHODS), option="--ppi-method")
#: The intervals: Student's t with small-sample variances, or ppi_py's normal.
PPI_INTERVAL = Param("interval", OneOf("t", "z"), option="--ppi-interval")

_NAMES = {
    "ppi++": "PPI++",
    "ppi": "PPI",
    "gold": "gold only",
    "judge": "judge only",
}


class PPIResult:
    """A metric's mean from a judge's labels corrected by gold labels.

    Returned by :func:`ppi_mean` and :func:`ppi_evaluate`. For every metric,
    four estimates side by side: PPI++ (the judge weighted by the tuned
    ``lam``), PPI (weight 1), the gold queries alone, and the judge alone
    (its own mean over every query: an interval around the judge's mean, not
    around the truth's).

    Attributes
    ----------
    metrics : list of str
        The metrics estimated.
    method : {"ppi++", "ppi"}
        The estimate put first (``mean``, ``confidence_interval``).
    mean : dict of str to float
        The estimate of each metric's mean under the gold labels.
    confidence_interval : dict of str to tuple of float
        Its normal interval at ``confidence``.
    std_error : dict of str to float
        Its standard error.
    lam : dict of str to float or ndarray
        PPI++'s weight on the judge for each metric (one per stratum, in the
        order of ``stratum_labels``, when stratified); 1 for PPI.
    correlation : dict of str to float
        Pearson's correlation of the gold and the judge's values on the gold
        queries (NaN when either is constant): the more, the narrower.
    gold_std : dict of str to float
        The standard deviation (``ddof=1``) of the gold values.
    n_queries : int
        The judge's queries.
    n_gold : dict of str to int
        The gold queries of each metric.
    confidence : float
        The level of the intervals.
    interval : {"t", "z"}
        How the intervals are made (see :func:`ppi_mean`).
    n_draws : int or None
        The draws of the judge's labels averaged per query (the expected
        metric under the judge), or None for one set of labels.
    stratum_labels : ndarray or None
        The strata, sorted, when the estimate is stratified.
    group_ids : ndarray
        The judge's query ids.
    judge_result, gold_result : EvaluationResult
        The per-query values under each label set (for arrays, results with
        the ids 0 to n - 1).
    n_sampled : dict of str to int or None
        From :func:`ppi_evaluate`: the gold queries of each metric whose
        value is estimated from a sample of their documents (None
        otherwise).

    Examples
    --------
    See :func:`ppi_mean`.
    """

    def __init__(
        self,
        *,
        metrics: list[str],
        method: str,
        confidence: float,
        interval: str,
        group_ids: np.ndarray,
        table: dict[str, dict[str, dict[str, Any]]],
        n_gold: dict[str, int],
        correlation: dict[str, float],
        gold_std: dict[str, float],
        n_draws: int | None,
        stratum_labels: np.ndarray | None,
        judge_result: EvaluationResult,
        gold_result: EvaluationResult,
    ) -> None:
        self.metrics = metrics
        self.method = method
        self.confidence = confidence
        self.interval = interval
        self.group_ids = group_ids
        self.n_queries = int(group_ids.size)
        self.n_gold = n_gold
        self.correlation = correlation
        self.gold_std = gold_std
        self.n_draws = n_draws
        self.stratum_labels = stratum_labels
        self.judge_result = judge_result
        self.gold_result = gold_result
        self.n_sampled: dict[str, int] | None = None
        self._table = table
        head = {m: table[m][method] for m in metrics}
        self.mean = {m: float(row["mean"]) for m, row in head.items()}
        self.std_error = {m: float(row["std_error"]) for m, row in head.items()}
        self.confidence_interval = {
            m: (float(row["ci_low"]), float(row["ci_high"])) for m, row in head.items()
        }
        self.lam = {
            m: row["lam"] if stratum_labels is not None else float(row["lam"])
            for m, row in head.items()
        }

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (metric, estimator): ``metric, estimator, mean,
        std_error, ci_low, ci_high, half_width, lam, n_gold, n_queries``
        (``lam`` NaN for the gold and judge estimates, and when stratified).

        Returns
        -------
        records : list of dict
        """
        rows = []
        for metric in self.metrics:
            for est in ESTIMATORS:
                row = self._table[metric][est]
                lam = row["lam"]
                stratified = self.stratum_labels is not None
                rows.append(
                    {
                        "metric": metric,
                        "estimator": est,
                        "mean": float(row["mean"]),
                        "std_error": float(row["std_error"]),
                        "ci_low": float(row["ci_low"]),
                        "ci_high": float(row["ci_high"]),
                        "half_width": float(row["ci_high"] - row["ci_low"]) / 2,
                        "lam": float("nan")
                        if stratified or est in ("gold", "judge")
                        else float(lam),
                        "n_gold": self.n_gold[metric],
                        "n_queries": self.n_queries,
                    }
                )
        return rows

    @checked(backend=BACKEND)
    def to_frame(self, backend: Literal["pandas", "polars"] = "pandas") -> Any:
        """:meth:`to_records` as a pandas (or polars) DataFrame.

        Parameters
        ----------
        backend : {"pandas", "polars"}, default="pandas"

        Returns
        -------
        frame : pandas.DataFrame or polars.DataFrame
        """
        return records_frame(self.to_records(), "PPIResult.to_frame", backend)

    def half_widths(
        self, n_gold: Sequence[int], metric: str | None = None
    ) -> dict[str, np.ndarray]:
        """The expected half-widths with other numbers of gold queries.

        Planned from this result as a pilot: its gold values' standard
        deviation and its judge-gold correlation, with the same number of
        queries judged (see :func:`ppi_sample_size`).

        Parameters
        ----------
        n_gold : sequence of int
            Numbers of gold queries, each at least 2 and below ``n_queries``.
        metric : str, default=None
            The metric; None for the first.

        Returns
        -------
        half_widths : dict
            ``{"ppi++": ndarray, "gold": ndarray}``: with the judge at its
            optimal weight, and with the gold queries alone.
        """
        metric = self._metric(metric)
        n = check_n_gold(n_gold, self.n_queries)
        std, rho = self.gold_std[metric], self.correlation[metric]
        rho = 0.0 if np.isnan(rho) else rho
        plan = {"confidence": self.confidence, "interval": self.interval}
        return {
            "ppi++": planned_half_width(std, rho, n, self.n_queries, **plan),
            "gold": planned_half_width(std, 0.0, n, self.n_queries, **plan),
        }

    def _metric(self, metric):
        if metric is None:
            return self.metrics[0]
        if metric not in self.metrics:
            raise InvalidParameterError(
                f"`metric` must be one of {self.metrics}, got {metric!r}"
            )
        return metric

    def __str__(self) -> str:
        draws = f", the judge's mean over {self.n_draws} draws" if self.n_draws else ""
        strata = (
            f", stratified ({self.stratum_labels.size} strata)"
            if self.stratum_labels is not None
            else ""
        )
        lines = [
            f"{_NAMES[self.method]} means over {self.n_queries} queries judged"
            f"{draws}{strata}, {self.confidence:.0%} {self.interval} intervals"
        ]
        for metric in self.metrics:
            rho = self.correlation[metric]
            sampled = (self.n_sampled or {}).get(metric, 0)
            some = f" ({sampled} from a sample of their documents)" if sampled else ""
            lines.append(
                f"{metric}: {self.n_gold[metric]} gold queries{some}, judge-gold "
                f"correlation {rho:.3f}"
            )
            order = [self.method, *(e for e in ESTIMATORS if e != self.method)]
            for est in order:
                row = self._table[metric][est]
                text = (
                    f"  {_NAMES[est]:<10} {row['mean']:.4f} "
                    f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
                )
                if est == "ppi++" and self.stratum_labels is None:
                    text += f"  lambda {float(row['lam']):.3f}"
                if est == "judge":
                    text += "  (the judge's own mean)"
                lines.append(text)
        return "\n".join(lines)

    def __repr__(self) -> str:
        means = ", ".join(f"{m!r}: {v:.4f}" for m, v in self.mean.items())
        n_gold = sorted(set(self.n_gold.values()))
        n_gold_text = n_gold[0] if len(n_gold) == 1 else self.n_gold
        return (
            f"PPIResult(method={self.method!r}, n_queries={self.n_queries}, "
            f"n_gold={n_gold_text}, means={{{means}}})"
        )


def estimate_result(aligned, method, confidence, interval, strata):
    """The :class:`PPIResult` of one system's aligned values."""
    table, n_gold, rho, std = {}, {}, {}, {}
    stratum_labels = None
    if strata is not None:
        labels, codes = strata
        stratum_labels = np.unique(labels)
    for j, metric in enumerate(aligned.metrics):
        judge, gold = aligned.judge[:, j], aligned.gold[:, j]
        mask = gold_split(gold, metric)
        split = None
        if strata is not None:
            check_strata_gold(codes, labels, mask, metric)
            split = (codes[mask], codes[~mask])
        g, jg, jr = gold[:, mask], judge[:, mask], judge[:, ~mask]
        rows = estimate_all(g, jg, jr, split, confidence, interval)
        table[metric] = {
            est: {key: value[0] for key, value in row.items()}
            for est, row in rows.items()
        }
        n_gold[metric] = int(np.count_nonzero(mask))
        rho[metric] = float(correlation(g, jg)[0])
        std[metric] = float(g[0].std(ddof=1))
    return PPIResult(
        metrics=aligned.metrics,
        method=method,
        confidence=confidence,
        interval=interval,
        group_ids=aligned.group_ids,
        table=table,
        n_gold=n_gold,
        correlation=rho,
        gold_std=std,
        n_draws=aligned.n_draws,
        stratum_labels=stratum_labels,
        judge_result=aligned.judge_results[None],
        gold_result=aligned.gold_results[None],
    )


@checked(method=PPI_METHOD, confidence=CONFIDENCE, interval=PPI_INTERVAL)
def ppi_mean(
    judge: EvaluationResult | ArrayLike,
    gold: EvaluationResult | ArrayLike,
    *,
    metrics: str | Sequence[str] | None = None,
    method: Literal["ppi++", "ppi"] = "ppi++",
    confidence: float = 0.95,
    interval: Literal["t", "z"] = "t",
    strata: ArrayLike | Mapping[Any, Any] | None = None,
) -> PPIResult:
    """A metric's mean from a judge's labels and a gold subset (PPI++).

    The judge (a language model, a cheaper assessor) labels every query;
    humans label a random subset, the gold queries. The mean of the metric
    under the human labels is estimated from both, by prediction-powered
    inference: the judge's mean over the other queries, corrected by the
    gold queries' mean error of the judge. Its interval is valid whatever
    the judge's errors, and PPI++'s is never wider than the gold queries'
    alone by more than the noise of its tuned weight.

    Parameters
    ----------
    judge : EvaluationResult or array-like of shape (n_queries,) or \
(n_queries, n_draws)
        Every query's values under the judge's labels: a result of
        :func:`~skirm.metrics.evaluate` or :func:`~skirm.trec.evaluate_run`
        against the judge's labels, or per-query values. Several draws of the
        judge's labels (a result evaluated with ``label_samples``, or a
        column per draw) give the expected metric under the judge, their
        mean per query.
    gold : EvaluationResult or array-like of shape (n_queries,)
        The gold queries' values under the human labels: a result on those
        queries (aligned to ``judge``'s by query id; as
        :func:`~skirm.trec.evaluate_run` gives against a gold qrels, which
        holds only them), or per-query values aligned to ``judge``'s, NaN
        where no human judged. A query is gold where this has a value.
    metrics : str or list of str, default=None
        The metrics estimated; None for every metric both results hold. For
        arrays: the one metric's name (default ``"metric"``).
    method : {"ppi++", "ppi"}, default="ppi++"
        The estimate put first: PPI++, the judge weighted by the ``lam``
        that minimises the variance (Angelopoulos, Duchi and Zrnic 2024),
        or PPI, weight 1 (Angelopoulos et al. 2023). Both are reported, with
        the gold queries' own mean and the judge's.
    confidence : float, default=0.95
        The level of the intervals.
    interval : {"t", "z"}, default="t"
        ``"z"``: ``ppi_py``'s normal intervals, from population variances.
        ``"t"``: for a few dozen gold queries: the variance of the gold
        queries' part by the jackknife, PPI++'s weight tuned anew without
        each gold query (for a fixed weight, the sample variance), the other
        queries' part with ``ddof=1``, and Student's t on ``n - 1`` degrees
        of freedom (Welch and Satterthwaite's across strata). With 50 gold
        queries of 1,000, ``"z"``'s 95% PPI++ intervals covered the truth in
        92.8% of 2,000 simulated studies, ``"t"``'s in 95.0% (see
        :ref:`llm_judges`). The means are the same.
    strata : array-like of shape (n_queries,) or mapping, default=None
        The stratum of each query (a topic category, the judge's
        confidence), aligned to ``judge``'s queries (its sorted
        ``group_ids``, or the arrays' order) or as ``{query id: stratum}``;
        the gold queries drawn per stratum. Each stratum is estimated on its
        own (its own ``lam``) and weighted by its share of the queries
        (Fisch et al. 2024); each needs at least 2 gold queries.

    Returns
    -------
    result : PPIResult
        ``mean``, ``confidence_interval``, ``lam``, ``correlation``,
        ``to_frame()``, ``half_widths()``.

    Raises
    ------
    skirm.InvalidInputError
        If ``gold`` shares no query with ``judge`` (no overlap), has fewer
        than 2 gold queries, covers every query, or has queries ``judge``
        lacks; if ``judge`` holds NaN; if a stratum has fewer than 2 gold
        queries.

    See Also
    --------
    ppi_evaluate : The same from labels and scores, with document-level gold.
    ppi_compare : Systems compared the same way.
    ppi_sample_size : How many gold queries an interval needs.

    Notes
    -----
    With ``n`` gold queries (values ``Y`` under the human labels, ``f``
    under the judge's) and ``N`` others (``f`` only), the estimate is
    ``lam * mean_N(f) + mean_n(Y - lam * f)`` and its standard error
    ``sqrt(var_N(lam f) / N + var_n(Y - lam f) / n)``; PPI++'s ``lam`` is
    ``cov_n(Y, f) / ((1 + n / N) var(f))`` clipped to [0, 1]. With
    ``interval="z"`` these equal ``ppi_py``'s ``ppi_mean_pointestimate`` and
    ``ppi_mean_ci`` (whose ``Yhat_unlabeled`` are the ``N`` other queries),
    and the gold and judge estimates its ``classical_mean_ci``. The gold
    queries must be a random sample of the queries (of each stratum): the
    interval then covers the mean of the metric over the queries they were
    drawn from at the stated level, whatever the judge's errors. See :ref:`llm_judges`.

    Examples
    --------
    A judge that overrates: its values run 0.1 high, with noise.

    >>> import numpy as np
    >>> from skirm.stats import ppi_mean
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.beta(2, 3, size=500)
    >>> judge = truth + 0.1 + rng.normal(0, 0.05, size=500)
    >>> gold = np.full(500, np.nan)
    >>> sample = rng.choice(500, size=40, replace=False)
    >>> gold[sample] = truth[sample]
    >>> result = ppi_mean(judge, gold, metrics="ndcg@10")
    >>> print(result)
    PPI++ means over 500 queries judged, 95% t intervals
    ndcg@10: 40 gold queries, judge-gold correlation 0.968
      PPI++      0.4037 [0.3761, 0.4314]  lambda 1.000
      PPI        0.4037 [0.3763, 0.4312]
      gold only  0.4392 [0.3694, 0.5089]
      judge only 0.5085 [0.4903, 0.5268]  (the judge's own mean)
    >>> round(float(truth.mean()), 4)
    0.41

    The judge alone is 0.1 off, with a narrow interval that misses the
    truth; the gold queries alone are right but imprecise; PPI++ is both.
    """
    aligned = align(judge, gold, metrics)
    strata_codes = check_strata(
        strata, aligned.group_ids, not hasattr(judge, "per_query")
    )
    return estimate_result(aligned, method, confidence, interval, strata_codes)
