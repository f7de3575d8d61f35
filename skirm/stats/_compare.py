"""``compare``: from several EvaluationResults to tests, corrections and reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import skirm.stats._resampling as rs
from skirm._errors import (
    InvalidInputError,
    InvalidParameterError,
    MissingQueriesError,
)
from skirm._measures._held import held_name
from skirm._params import Interval, OneOf, Param, checked, describe
from skirm._progress import VERBOSE, reporting
from skirm.stats._correction import CORRECTION, adjust_pvalues
from skirm.stats._intervals import weights_of
from skirm.stats._paired import (
    ALTERNATIVE,
    CONFIDENCE,
    EXACT,
    INTERVAL,
    TESTS,
    ZERO_METHOD,
    make_settings,
    paired_tests,
)
from skirm.stats._report import Comparison
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE
from skirm.stats._tukey import tukey_pairs

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Literal

    from skirm._typing import Seed
    from skirm.metrics import EvaluationResult

#: The tests over all the systems at once.
TUKEY = ("tukey_hsd", "randomized_tukey_hsd")
#: The tests of a comparison: every paired test, and the Tukey tests.
COMPARE_TEST = Param("test", OneOf(*TESTS, *TUKEY), option="--test")
#: What a query missing from a system is: an error, a 0, or dropped.
MISSING = ("raise", "zero", "intersect")
MISSING_QUERIES = Param("missing", OneOf(*MISSING), option="--missing")
#: The level at which a corrected p-value is significant.
ALPHA = Param("alpha", Interval(float, 0, 1, closed="neither"), option="--alpha")


def _check_results(results):
    if not hasattr(results, "items"):
        raise InvalidParameterError(
            "`results` must map system names to EvaluationResult objects, got "
            f"{describe(results)}"
        )
    results = dict(results)
    if len(results) < 2:
        raise InvalidParameterError(
            f"`results` must hold at least 2 systems, got {len(results)}"
        )
    for name, result in results.items():
        if not isinstance(name, str):
            raise InvalidParameterError(
                f"`results` keys must be strings, got {describe(name)}"
            )
        if not all(hasattr(result, a) for a in ("group_ids", "per_query", "weights")):
            raise InvalidParameterError(
                f"`results[{name!r}]` must be an EvaluationResult, got "
                f"{describe(result)}"
            )
    return results


def _check_metrics(results, metrics) -> list[str]:
    available = [set(r.per_query) for r in results.values()]
    first = next(iter(results.values()))
    if metrics is None:
        metrics = [m for m in first.per_query if all(m in a for a in available)]
        if not metrics:
            raise InvalidInputError(
                "the results share no metric; evaluate the same metrics"
            )
        return metrics
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise InvalidParameterError("`metrics` must name at least one metric, got none")
    for metric in metrics:
        for name, result in results.items():
            if held_name(metric, result.per_query) is None:
                raise InvalidParameterError(
                    f"`metrics` names {metric!r}, which results[{name!r}] does not "
                    f"hold; it has {', '.join(result.per_query)}"
                )
    return metrics


def _align(results, metrics, missing):
    """Query ids and values (k, J, n) aligned by id, with the missing policy."""
    ids = [np.asarray(r.group_ids) for r in results.values()]
    kinds = {"numbers" if i.dtype.kind in "biuf" else "strings" for i in ids}
    if len(kinds) > 1:
        raise InvalidInputError(
            "the results' query ids are numbers in some results and strings in "
            "others; give every system the same kind of ids"
        )
    union = np.unique(np.concatenate(ids))
    k, n_metrics = len(results), len(metrics)
    values = np.full((k, n_metrics, union.size), np.nan)
    weights = np.full((k, union.size), np.nan)
    for s, result in enumerate(results.values()):
        pos = np.searchsorted(union, np.asarray(result.group_ids))
        for j, metric in enumerate(metrics):
            values[s, j, pos] = result.per_query[held_name(metric, result.per_query)]
        held = [held_name(metric, result.per_query) for metric in metrics]
        found = _metric_weights(result, held)
        if found is not None:
            weights[s, pos] = found
    absent = np.isnan(values)
    if missing == "raise" and absent.any():
        s, j, q = (int(i[0]) for i in np.nonzero(absent))
        count = int(np.count_nonzero(absent.any(axis=(0, 1))))
        query = union[q].item()
        what = (
            f"{count} of {union.size} queries lack a value in some system (first: "
            f"query {query!r} in {list(results)[s]!r}, metric {metrics[j]!r})"
        )
        raise MissingQueriesError(
            f"{what}; pass missing='intersect' to drop them or missing='zero' to "
            "score them 0",
            command_line=f"{what}; pass --missing intersect to drop them or "
            "--missing zero to score them 0",
        )
    if missing == "intersect":
        keep = ~absent.any(axis=(0, 1))
        union, values, weights = union[keep], values[:, :, keep], weights[:, keep]
    else:
        values = np.where(absent, 0.0, values)
    if union.size < 2:
        raise InvalidInputError(
            f"the systems share {union.size} queries; a comparison needs at least 2"
        )
    return union, values, _align_weights(results, weights)


def _metric_weights(result, metrics):
    """The query weights shared by ``metrics`` in ``result`` (None for
    none); metrics weighting their queries differently are refused."""
    found = [weights_of(result, metric) for metric in metrics]
    first = found[0]
    for metric, other in zip(metrics[1:], found[1:], strict=True):
        same = (first is None and other is None) or (
            first is not None
            and other is not None
            and first.shape == other.shape
            and np.array_equal(first, other)
        )
        if not same:
            raise InvalidParameterError(
                f"the metrics {metrics[0]!r} and {metric!r} weight their queries "
                "differently in their means (gauc by impressions, pcoc by clicks, "
                "...: EvaluationResult.weights_of); compare them in separate "
                "calls, e.g. metrics=[" + repr(metric) + "]"
            )
    return first


def _align_weights(results, weights):
    has = [not np.isnan(w).all() for w in weights]
    if not any(has):
        return None
    if not all(has):
        raise InvalidInputError(
            "some results carry query weights (sample_weight) and some do not; "
            "evaluate every system with the same weights"
        )
    spread = np.nanmax(weights, axis=0) - np.nanmin(weights, axis=0)
    if np.any(spread > 1e-12 * np.nanmax(np.abs(weights))):
        raise InvalidInputError("the results' query weights differ; they must be equal")
    return np.nanmax(weights, axis=0)


def _pair_matrix(pairs, n_systems, n_metrics):
    """Rows ``(pair, metric)``: +1 on the system, -1 on the other, same metric."""
    combine = np.zeros((len(pairs), n_metrics, n_systems, n_metrics))
    metric = np.arange(n_metrics)
    for p, (a, b) in enumerate(pairs):
        combine[p, metric, a, metric] = 1.0
        combine[p, metric, b, metric] = -1.0
    return combine.reshape(len(pairs) * n_metrics, n_systems * n_metrics)


def _test_settings(test_name, weights, *options):
    """The settings of the per-pair computations (a Tukey test adds its own)."""
    if test_name == "tukey_hsd" and weights is not None:
        raise InvalidParameterError(
            "test='tukey_hsd' does not support query weights; use "
            "'randomized_tukey_hsd'"
        )
    settings = make_settings(
        "t" if test_name in TUKEY else test_name, *options, weights
    )
    if test_name in TUKEY and settings.alternative != "two-sided":
        raise InvalidParameterError(
            f"test={test_name!r} is two-sided; got alternative={settings.alternative!r}"
        )
    return settings


_PAIR_KEYS = (
    "delta",
    "wins",
    "ties",
    "losses",
    "effect_size",
    "statistic",
    "pvalue",
    "ci_low",
    "ci_high",
)


def _test_pairs(values, weights, pairs, test_name, settings, rng):
    """Per (pair, metric) arrays, and the raw outputs (the systems' intervals)."""
    k, n_metrics, n = values.shape
    out = paired_tests(
        values.reshape(-1, n),
        _pair_matrix(pairs, k, n_metrics),
        weights,
        settings,
        rng,
        # paired_tests, here, compare, the wrapper of @checked, its caller
        stacklevel=5,
    )
    table = {
        key: np.asarray(out[key]).reshape(len(pairs), n_metrics) for key in _PAIR_KEYS
    }
    if test_name in TUKEY:
        tukey = tukey_pairs(
            np.moveaxis(values, 2, 0),
            weights,
            pairs,
            method="paired" if test_name == "tukey_hsd" else "randomized",
            confidence=settings.confidence,
            n_resamples=settings.n_resamples,
            rng=rng,
            stacklevel=5,
        )
        table.update(
            {key: tukey[key] for key in ("statistic", "pvalue", "ci_low", "ci_high")}
        )
    return table, out


def _n_draws(test_name, settings, n_queries):
    """The random draws the tests and intervals will make, in chunks (those
    of :func:`~skirm.stats._paired.paired_tests` and
    :func:`~skirm.stats._tukey.tukey_pairs`), for the progress."""
    s, draws = settings, 0
    if s.test == "randomization":  # an exact test enumerates, in one product
        draws += 0 if rs.use_exact(n_queries, s.n_resamples, s.exact) else s.n_resamples
    if s.test == "bootstrap" or s.interval != "t":
        draws += s.n_resamples
    if test_name == "randomized_tukey_hsd":
        draws += s.n_resamples
    return draws


def _check_baselines(baseline, results) -> list[str]:
    """The baselines named by ``baseline`` (a system, several, or None)."""
    if baseline is None:
        return []
    names = [baseline] if isinstance(baseline, str) else baseline
    if not isinstance(names, (list, tuple)) or not names:
        raise InvalidParameterError(
            "`baseline` must be a system's name, a list of them or None, got "
            f"{describe(baseline)}"
        )
    for name in names:
        if name not in results:
            raise InvalidParameterError(
                f"`baseline` must be one of the systems {list(results)}, got "
                f"{describe(name)}"
            )
    if len(set(names)) < len(names):
        raise InvalidParameterError(
            f"`baseline` must name each system once, got {list(names)}"
        )
    if len(names) == len(results):
        raise InvalidParameterError(
            "`baseline` must leave at least one system to compare with the "
            f"baselines, got every system: {list(names)}"
        )
    return list(names)


def _correction(
    correction, test, n_pairs
) -> Literal["holm", "bonferroni", "fdr_bh"] | None:
    """The correction ``"auto"`` stands for, or the one asked for."""
    if correction == "auto":
        return None if test in TUKEY or n_pairs == 1 else "holm"
    if test in TUKEY and correction is not None:
        raise InvalidParameterError(
            f"test={test!r} controls the familywise error itself; pass "
            f"correction=None or 'auto', got {correction!r}"
        )
    return correction


@checked(
    test=COMPARE_TEST,
    correction=CORRECTION,
    alpha=ALPHA,
    alternative=ALTERNATIVE,
    confidence=CONFIDENCE,
    interval=INTERVAL,
    n_resamples=N_RESAMPLES,
    exact=EXACT,
    zero_method=ZERO_METHOD,
    missing=MISSING_QUERIES,
    random_state=RANDOM_STATE,
    verbose=VERBOSE,
)
def compare(
    results: Mapping[str, EvaluationResult],
    *,
    baseline: str | Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    test: Literal[
        "t",
        "randomization",
        "bootstrap",
        "wilcoxon",
        "sign",
        "tukey_hsd",
        "randomized_tukey_hsd",
    ] = "t",
    correction: Literal["auto", "holm", "bonferroni", "fdr_bh"] | None = "auto",
    alpha: float = 0.05,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    confidence: float = 0.95,
    interval: Literal["t", "percentile", "bca"] | None = None,
    n_resamples: int = 10_000,
    exact: bool | Literal["auto"] = "auto",
    zero_method: Literal["wilcox", "pratt", "zsplit"] = "wilcox",
    missing: Literal["raise", "zero", "intersect"] = "raise",
    random_state: Seed = None,
    verbose: int = 0,
) -> Comparison:
    """Compare systems on the same queries: tests, corrections, intervals.

    Parameters
    ----------
    results : dict of str to EvaluationResult
        The systems, by name: results of :func:`skirm.metrics.evaluate` or
        :func:`skirm.trec.evaluate_run`. Queries are aligned by id.
    baseline : str or list of str, default=None
        Compare every other system with this one. A list of systems
        compares every other system with each of them: the pairs of all the
        baselines form one family per metric, corrected together (the
        baselines are not compared with each other). None compares every
        pair.
    metrics : sequence of str, default=None
        The metrics to compare; None takes those every result holds.
    test : str, default="t"
        ``"t"``, ``"randomization"``, ``"bootstrap"``, ``"wilcoxon"`` or
        ``"sign"`` (see :func:`paired_test`), or ``"tukey_hsd"`` (paired,
        on the two-way ANOVA) or ``"randomized_tukey_hsd"`` (Carterette
        2012) over all the systems (see :func:`tukey_hsd`).
    correction : {"auto", "holm", "bonferroni", "fdr_bh"} or None, default="auto"
        Multiple-comparison correction, applied per metric over all the pairs
        compared (see :func:`adjust_pvalues`). ``"auto"``: Holm with more
        than one pair, none for one pair or a Tukey test (which controls the
        familywise error itself).
    alpha : float, default=0.05
        A difference is significant when its corrected p-value is
        ``<= alpha``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: each system is better than the one it is compared to.
    confidence : float, default=0.95
        Level of the intervals.
    interval : {"t", "percentile", "bca"}, default=None
        How the intervals of the means and of the differences are made (see
        :func:`paired_test`); all bootstrap intervals come from the same
        draws. None: ``"bca"`` for the bootstrap test, ``"t"`` otherwise.
    n_resamples : int, default=10_000
        Random draws of the resampling tests and intervals, shared by every
        pair and metric.
    exact : "auto" or bool, default="auto"
        Exact randomization test (see :func:`paired_test`).
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        Zero differences in the Wilcoxon test.
    missing : {"raise", "zero", "intersect"}, default="raise"
        A query missing from a system (or NaN there, as with
        ``no_relevant="skip"``): an error, a score of 0 (trec_eval's ``-c``),
        or dropped from every system.
    random_state : int, numpy Generator or None, default=None
        Seed of the random draws; None draws one and records it in the
        comparison, so that the report can name it.
    verbose : int, default=0
        Progress messages on standard error, one per line: 0 prints none;
        1 a line a second while the random draws are made (resamples done
        of those the test and intervals need) and one when the tests end;
        2 or more up to ten lines a second.

    Returns
    -------
    comparison : Comparison
        ``to_frame()``, ``to_markdown()``, ``to_latex()`` and ``str()``.

    See Also
    --------
    paired_test : One pair on one metric.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.metrics import evaluate
    >>> from skirm.stats import compare
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(50), 10)
    >>> y = rng.integers(0, 3, groups.size)
    >>> results = {
    ...     name: evaluate(y, y + rng.normal(0, noise, y.size), groups=groups,
    ...                    metrics=["ndcg@5", "map"])
    ...     for name, noise in [("weak", 3.0), ("medium", 1.5), ("strong", 0.5)]
    ... }
    >>> comparison = compare(results, baseline="weak", random_state=0)
    >>> comparison.systems
    ['weak', 'medium', 'strong']
    >>> frame = comparison.to_frame()
    >>> frame[["system", "metric", "delta", "significant"]].round(3)
      system  metric  delta  significant
    0   weak  ndcg@5  0.000        False
    1   weak     map  0.000        False
    2 medium  ndcg@5  0.100         True
    3 medium     map  0.065         True
    4 strong  ndcg@5  0.267         True
    5 strong     map  0.162         True
    """
    results = _check_results(results)
    baselines = _check_baselines(baseline, results)
    metrics = _check_metrics(results, metrics)
    results = {**{b: results[b] for b in baselines}, **results}
    baseline = baselines[0] if len(baselines) == 1 else None
    systems = list(results)
    group_ids, values, weights = _align(results, metrics, missing)
    settings = _test_settings(
        test,
        weights,
        alternative,
        n_resamples,
        exact,
        confidence,
        interval,
        zero_method,
    )
    k, n_metrics, n = values.shape
    if not baselines:
        pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    else:  # each other system against each baseline, one family per metric
        nb = len(baselines)
        pairs = [(a, b) for b in range(nb) for a in range(nb, k)]
    correction = _correction(correction, test, len(pairs))
    seed, rng = rs.seed_and_rng(random_state)
    with reporting(verbose, "skirm.stats.compare") as progress:
        progress.stage(
            f"{test} test of {len(pairs)} pair{'s' * (len(pairs) > 1)} on "
            f"{n_metrics} metric{'s' * (n_metrics > 1)}",
            total=_n_draws(test, settings, n) or None,
            unit="resamples",
        )
        table, out = _test_pairs(values, weights, pairs, test, settings, rng)
        progress.finish()
    table["p_adjusted"] = adjust_pvalues(table["pvalue"].T, correction).T
    table["significant"] = table["p_adjusted"] <= alpha
    return Comparison(
        systems=systems,
        baseline=baseline,
        baselines=baselines,
        metrics=metrics,
        group_ids=group_ids,
        values=values,
        weights=weights,
        pairs=[(systems[a], systems[b]) for a, b in pairs],
        table=table,
        means=rs.weighted_means(values.reshape(-1, n), weights).reshape(k, n_metrics),
        ci=(
            out["basis_low"].reshape(k, n_metrics),
            out["basis_high"].reshape(k, n_metrics),
        ),
        test=test,
        settings=settings,
        correction=correction,
        alpha=alpha,
        missing=missing,
        random_state=seed,
        exact=bool(out["exact"]),
    )
