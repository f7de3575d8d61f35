"""The measure families with a reference tool, side by side on 10k queries.

Diversity: skirm's diversity_report against pyndeval, both computing every
ndeval measure on the same generated queries, timed in turns, medians of
``--repeat`` rounds, and the ratio.

    python benchmarks/bench_families.py --queries 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def _diversity_data(n_queries, rng, n_docs=50, n_sub=4):
    y = (rng.random((n_queries * n_docs, n_sub)) < 0.15).astype(np.int64)
    s = rng.random(n_queries * n_docs)
    g = np.repeat(np.arange(n_queries), n_docs)
    return y, s, g


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_diversity(n_queries, repeat):
    import pyndeval

    from skirm.metrics import diversity_report

    y, s, g = _diversity_data(n_queries, np.random.default_rng(0))
    docs = [f"d{i:08d}" for i in range(len(s))]
    rows, cols = np.nonzero(y >= 0)
    qrels = [
        (str(g[r]), str(c), docs[r], int(y[r, c]))
        for r, c in zip(rows, cols, strict=True)
    ]
    run = [(str(q), d, float(x)) for q, d, x in zip(g, docs, s, strict=True)]
    evaluator = pyndeval.RelevanceEvaluator(qrels)  # built once, not timed

    def ours():
        diversity_report(y, s, groups=g, ties="first")

    def theirs():
        evaluator.evaluate(run)

    ours(), theirs()
    return _median_time(ours, repeat), _median_time(theirs, repeat)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.queries} queries x 50 documents; medians of {args.repeat} rounds\n")
    print("| family | skirm (s) | reference (s) | reference / skirm |")
    print("| --- | --- | --- | --- |")
    for label, bench in (
        ("diversity, all ndeval measures (pyndeval)", bench_diversity),
    ):
        ours, theirs = bench(args.queries, args.repeat)
        print(f"| {label} | {ours:.3f} | {theirs:.3f} | {theirs / ours:.1f}x |")


if __name__ == "__main__":
    main()
