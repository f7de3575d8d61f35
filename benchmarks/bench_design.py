"""Time the statistics of judges, power and collections on 10,000 queries.

Each new function of ``skirm.stats`` once per configuration, median of
``--rounds`` calls, next to the reference it equals where that reference
can do the same work (pooled agreement; the analytic power; DL pooling)::

    python benchmarks/bench_design.py
    python benchmarks/bench_design.py --queries 2000 --rounds 3

Data (seed 0): ``--queries`` queries of 10 items, 3 judges near a hidden
grade 0-3 with 10% of judgements missing (two complete judges for Cohen);
per-query differences of two systems for the power functions; 13
collections splitting the queries for the meta-analysis; 10 systems for
``system_agreement``. The per-query loop of a reference is timed on 200
queries and scaled to ``--queries``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from functools import partial

import numpy as np

from skirm.metrics import EvaluationResult
from skirm.stats import (
    label_agreement,
    meta_analysis,
    minimum_detectable_effect,
    power,
    sample_size,
    system_agreement,
)


def _median(function, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _labels(n_queries, rng):
    groups = np.repeat(np.arange(n_queries), 10)
    truth = rng.integers(0, 4, groups.size)
    labels = np.clip(truth[:, None] + rng.integers(-1, 2, (groups.size, 3)), 0, 3)
    labels = labels.astype(float)
    labels[:, 2][rng.random(groups.size) < 0.3] = np.nan
    return labels, groups


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n, rounds = args.queries, args.rounds
    rng = np.random.default_rng(0)
    labels, groups = _labels(n, rng)
    rows = []

    def row(name, seconds, reference="", ref_seconds=None):
        ratio = "" if ref_seconds is None else f"{ref_seconds / seconds:.1f}x"
        rows.append((name, seconds, reference, ref_seconds, ratio))

    from krippendorff import alpha
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import fleiss_kappa
    from statsmodels.stats.meta_analysis import combine_effects
    from statsmodels.stats.power import TTestPower

    two = labels[:, :2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for method, data, kwargs in [
            ("cohen", two, {"weights": "quadratic"}),
            ("fleiss", two, {}),
            ("krippendorff", labels, {"level": "ordinal"}),
            ("gwet", labels, {"weights": "quadratic"}),
        ]:
            call = partial(label_agreement, data, method=method, random_state=0)
            t = _median(partial(call, groups=groups, **kwargs), rounds)
            t_pooled = _median(partial(call, n_resamples=1, **kwargs), rounds)
            ref, ref_t, loop = "", None, None
            if method == "cohen":
                ref = "sklearn cohen_kappa_score"
                ref_t = _median(
                    partial(
                        cohen_kappa_score, two[:, 0], two[:, 1], weights="quadratic"
                    ),
                    rounds,
                )
                loop = (
                    _median(
                        lambda: [
                            cohen_kappa_score(
                                two[groups == q, 0],
                                two[groups == q, 1],
                                labels=[0, 1, 2, 3],
                                weights="quadratic",
                            )
                            for q in range(200)
                        ],
                        1,
                    )
                    * n
                    / 200
                )
            elif method == "fleiss":
                table = (two[:, :, None] == np.arange(4)).sum(axis=1)
                ref = "statsmodels fleiss_kappa"
                ref_t = _median(partial(fleiss_kappa, table), rounds)
            elif method == "krippendorff":
                ref = "krippendorff.alpha"
                ref_t = _median(
                    lambda: alpha(labels.T, level_of_measurement="ordinal"), rounds
                )
            row(f"label_agreement {method}, per query + 1000 draws", t)
            row(f"label_agreement {method}, pooled only", t_pooled, ref, ref_t)
            if loop is not None:
                row("  per-query loop of cohen_kappa_score (scaled)", loop)

    diffs = rng.normal(0.01, 0.1, n)
    row(
        "power t (analytic)",
        _median(lambda: power(0.1, n_queries=n), rounds),
        "statsmodels TTestPower.power",
        _median(lambda: TTestPower().power(0.1, n, 0.05), rounds),
    )
    for test in ("randomization", "bootstrap", "wilcoxon", "sign"):
        row(
            f"power {test}, pilot of {n}, 1000 simulations",
            _median(
                partial(
                    power, n_queries=n, differences=diffs, test=test, random_state=0
                ),
                1,
            ),
        )
    row(
        "sample_size t (analytic)",
        _median(lambda: sample_size(0.05), rounds),
        "statsmodels solve_power",
        _median(lambda: TTestPower().solve_power(0.05, power=0.8, alpha=0.05), rounds),
    )
    row(
        f"sample_size wilcoxon, pilot of {n}",
        _median(
            partial(sample_size, differences=diffs, test="wilcoxon", random_state=0), 1
        ),
    )
    row(
        f"minimum_detectable_effect sign, {n} queries",
        _median(lambda: minimum_detectable_effect(n, test="sign", random_state=0), 1),
    )

    k = 13
    split = np.array_split(np.arange(n), k)
    collections = {}
    for c, ids in enumerate(split):
        a = rng.random(ids.size)
        b = np.clip(a - 0.02 + rng.normal(0, 0.1, ids.size), 0, 1)
        collections[f"c{c}"] = (
            EvaluationResult(ids, {"m": a}, {"m": a.mean()}),
            EvaluationResult(ids, {"m": b}, {"m": b.mean()}),
        )
    y = rng.normal(0.02, 0.02, k)
    v = rng.uniform(1e-4, 1e-3, k)
    row(
        "meta_analysis dl, 13 effects",
        _median(lambda: meta_analysis(y, v), rounds),
        "statsmodels combine_effects",
        _median(lambda: combine_effects(y, v, method_re="dl"), rounds),
    )
    row(
        f"meta_analysis results form, 13 collections, {n} queries, 10,000 draws",
        _median(lambda: meta_analysis(collections, metric="m", random_state=0), rounds),
    )

    ids = np.arange(n)
    base = rng.random(n)
    res_a, res_b = {}, {}
    for s in range(10):
        x = np.clip(base + 0.01 * s + rng.normal(0, 0.1, n), 0, 1)
        z = np.clip(x + rng.normal(0, 0.05, n), 0, 1)
        res_a[f"s{s}"] = EvaluationResult(ids, {"m": x}, {"m": x.mean()})
        res_b[f"s{s}"] = EvaluationResult(ids, {"m": z}, {"m": z.mean()})
    row(
        f"system_agreement t, 10 systems, {n} queries",
        _median(
            partial(system_agreement, res_a, res_b, metric="m", random_state=0), rounds
        ),
    )
    row(
        f"system_agreement randomization, 10 systems, {n} queries, 10,000 draws",
        _median(
            lambda: system_agreement(
                res_a, res_b, metric="m", test="randomization", random_state=0
            ),
            1,
        ),
    )

    print(f"{n} queries; median of {rounds} calls (1 for the simulations)\n")
    print("| call | skirm | reference | reference's time | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, seconds, ref, ref_t, ratio in rows:
        rt = "" if ref_t is None else f"{ref_t * 1e3:.1f} ms"
        print(f"| {name} | {seconds * 1e3:.1f} ms | {ref} | {rt} | {ratio} |")


if __name__ == "__main__":
    main()
