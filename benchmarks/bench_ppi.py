"""Benchmark the prediction-powered estimates: speed, and coverage in long
simulations.

Speed (issue 48's task): 10,000 queries of 100 documents, 3 systems, a
judge's labels on every document and human labels on the documents of 500
queries; the corrected means of the three systems and their three paired
differences, with intervals::

    python benchmarks/bench_ppi.py speed
    python benchmarks/bench_ppi.py coverage --studies 2000

``speed`` times, side by side in one process (medians of ``--repeat``
rounds after a warm-up):

* skirm from the rows: ``ppi_evaluate`` of each system (every query
  evaluated under the judge's labels, the gold queries under the humans')
  and ``ppi_compare`` of the three results: the whole task;
* the evaluations alone (``evaluate`` of each system under the judge's
  labels and under the gold labels): the floor of any tool that starts from
  rows;
* skirm's statistics alone, from the six EvaluationResults:
  ``ppi_compare`` (3 means, 3 pairs, 4 estimators each, t intervals);
* ``ppi_py`` (the reference implementation) on the same per-query arrays:
  ``ppi_mean_ci`` and ``ppi_mean_pointestimate`` of the 3 systems and the 3
  per-query differences (PPI++, tuned weight).

``coverage`` draws ``--studies`` fresh studies: 1,000 queries of 20
documents graded 0-3, a system's scores, a judge that rates half the
documents half a grade too high and the rest with noise (on the same 0-3
scale), and humans judging 50 of the queries; each study is evaluated
(ndcg@10) and estimated. The truth is the mean over a population of 200,000
queries drawn the same way. It reports how often each interval covers the
truth, their mean half-widths, and how often PPI++'s is wider than the gold
queries' own.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import time
import warnings

import numpy as np

import skirm
from skirm.metrics import evaluate
from skirm.stats import ppi_compare, ppi_evaluate, ppi_mean

SYSTEMS = {"s1": 1.0, "s2": 1.5, "s3": 2.5}


def _median(task, repeat):
    task()  # warm-up
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        task()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _rows(n_queries, n_docs, rng):
    groups = np.repeat(np.arange(n_queries), n_docs)
    truth = rng.choice(4, size=groups.size, p=[0.55, 0.25, 0.12, 0.08]).astype(float)
    biased = rng.random(groups.size) < 0.5
    noisy = np.clip(truth + rng.normal(0, 0.8, groups.size), 0, 3)
    judge = np.where(biased, np.minimum(truth + 0.5, 3), noisy)
    return groups, truth, judge


def speed(args):
    rng = np.random.default_rng(0)
    groups, truth, judge = _rows(args.queries, args.docs, rng)
    gold_queries = rng.choice(args.queries, args.gold, replace=False)
    gold = np.where(np.isin(groups, gold_queries), truth, np.nan)
    scores = {
        s: truth + rng.normal(0, noise, truth.size) for s, noise in SYSTEMS.items()
    }
    metric = ["ndcg@10"]
    in_gold = np.isin(groups, gold_queries)

    def from_rows():
        results = {
            s: ppi_evaluate(judge, x, gold=gold, groups=groups, metrics=metric)
            for s, x in scores.items()
        }
        return ppi_compare(results)

    def evaluations():
        return {
            s: (
                evaluate(judge, x, groups=groups, metrics=metric),
                evaluate(truth[in_gold], x[in_gold], groups=groups[in_gold],
                         metrics=metric),
            )
            for s, x in scores.items()
        }  # fmt: skip

    evaluated = evaluations()
    judge_results = {s: pair[0] for s, pair in evaluated.items()}
    gold_results = {s: pair[1] for s, pair in evaluated.items()}

    def statistics():
        return ppi_compare(judge_results, gold_results)

    import ppi_py

    judged = {s: r.per_query["ndcg@10"] for s, r in judge_results.items()}
    golden = {s: r.per_query["ndcg@10"] for s, r in gold_results.items()}
    ids = judge_results["s1"].group_ids
    is_gold = np.isin(ids, gold_results["s1"].group_ids)

    def reference():
        rows = [(golden[s], judged[s][is_gold], judged[s][~is_gold]) for s in SYSTEMS]
        for i in range(3):
            for j in range(i + 1, 3):
                a, b = rows[i], rows[j]
                rows.append(tuple(x - y for x, y in zip(a, b, strict=True)))
        return [
            (ppi_py.ppi_mean_pointestimate(*r), ppi_py.ppi_mean_ci(*r, alpha=0.05))
            for r in rows
        ]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ppi_py's imports
        reference()
    table = [
        ("skirm from rows: ppi_evaluate x 3 + ppi_compare", from_rows),
        ("floor: evaluate x 3 systems x (judge, gold)", evaluations),
        ("skirm statistics alone: ppi_compare of 6 results", statistics),
        ("ppi_py on the same arrays: 3 means + 3 differences", reference),
    ]
    print(
        f"# {args.queries:,} queries x {args.docs} documents, {len(SYSTEMS)} "
        f"systems, {args.gold} gold queries\n"
    )
    print(
        f"{platform.machine()}, {os.cpu_count()} logical cores, load average "
        f"{os.getloadavg()[0]:.2f}; numpy {np.__version__}, skirm "
        f"{skirm.__version__}\n"
    )
    print("| task | median | ratio to the floor |")
    print("| --- | ---: | ---: |")
    times = [(name, _median(task, args.repeat)) for name, task in table]
    floor = times[1][1]
    for name, seconds in times:
        print(f"| {name} | {seconds * 1000:.0f} ms | {seconds / floor:.2f} |")
    comparison = from_rows()
    print()
    print(comparison)


def coverage(args):
    rng = np.random.default_rng(args.seed)
    metric = ["ndcg@10"]
    # the truth: the mean over a large population drawn the same way
    truths = []
    for _ in range(10):
        groups, truth, _ = _rows(20_000, 20, rng)
        scores = truth + rng.normal(0, 1.0, truth.size)
        truths.append(evaluate(truth, scores, groups=groups, metrics=metric)["ndcg@10"])
    mu = float(np.mean(truths))
    counts = {"ppi++ t": 0, "ppi++ z": 0, "ppi t": 0, "gold t": 0, "judge": 0}
    half = {key: [] for key in counts}
    wider = {"t": 0, "z": 0}
    start = time.perf_counter()
    for _ in range(args.studies):
        groups, truth, judge = _rows(1_000, 20, rng)
        scores = truth + rng.normal(0, 1.0, truth.size)
        y = evaluate(truth, scores, groups=groups, metrics=metric).per_query["ndcg@10"]
        f = evaluate(judge, scores, groups=groups, metrics=metric).per_query["ndcg@10"]
        gold = np.full(y.size, np.nan)
        sample = rng.choice(y.size, 50, replace=False)
        gold[sample] = y[sample]
        for interval in ("t", "z"):
            rows = {
                r["estimator"]: r
                for r in ppi_mean(f, gold, interval=interval).to_records()
            }
            keys = {"ppi++": f"ppi++ {interval}"}
            if interval == "t":
                keys.update({"ppi": "ppi t", "gold": "gold t", "judge": "judge"})
            for est, key in keys.items():
                counts[key] += rows[est]["ci_low"] <= mu <= rows[est]["ci_high"]
                half[key].append(rows[est]["half_width"])
            wider[interval] += rows["ppi++"]["half_width"] > rows["gold"]["half_width"]
    seconds = time.perf_counter() - start
    print(
        f"# {args.studies:,} studies of 1,000 queries x 20 documents, 50 gold "
        f"queries; truth {mu:.4f} (mean over 200,000 queries); {seconds:.0f} s, "
        f"load average {os.getloadavg()[0]:.2f}\n"
    )
    print("| interval | covers the truth | mean half-width |")
    print("| --- | ---: | ---: |")
    for key, count in counts.items():
        print(
            f"| {key} | {count} ({count / args.studies:.1%}) | "
            f"{np.mean(half[key]):.4f} |"
        )
    print(
        f"\nPPI++ wider than the gold queries' own: t {wider['t']}, z {wider['z']} "
        f"of {args.studies}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    fast = sub.add_parser("speed")
    fast.add_argument("--queries", type=int, default=10_000)
    fast.add_argument("--docs", type=int, default=100)
    fast.add_argument("--gold", type=int, default=500)
    fast.add_argument("--repeat", type=int, default=5)
    long = sub.add_parser("coverage")
    long.add_argument("--studies", type=int, default=2_000)
    long.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    (speed if args.what == "speed" else coverage)(args)


if __name__ == "__main__":
    main()
