"""The measure families with a reference tool, side by side on 10k queries.

Each family is computed by skirm and by the tool that defines it, on the same
generated queries (50 documents each), timed in turns, medians of
``--repeat`` rounds, and the ratio:

- diversity: ``diversity_report`` (every ndeval measure) against pyndeval;
- C/W/L: ``evaluate`` with INST, INSQ, BPM, NERR8-11 and SDCG against
  ir_measures' cwl_eval provider (``calc_aggregate``);
- Accuracy and Compat: ``evaluate`` against ir_measures' accuracy and compat
  providers.

ir_measures is given its qrels and run as DataFrames built once, outside the
timing; skirm is given the flat arrays.

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


CWL = [
    "INST(T=1.0,max_rel=3)",
    "INSQ(T=2.0,max_rel=3)",
    "BPM(T=1.0,max_rel=3)@10",
    "NERR8(max_rel=3)@10",
    "NERR9(max_rel=3)@10",
    "NERR10(p=0.8,max_rel=3)",
    "NERR11(T=2.0,max_rel=3)",
    "SDCG(max_rel=3)@10",
]
AGREEMENT = ["Accuracy", "Compat(p=0.95)"]


def _graded_data(n_queries, rng, n_docs=50):
    y = rng.choice(4, n_queries * n_docs, p=[0.6, 0.2, 0.12, 0.08])
    s = rng.permutation(n_queries * n_docs).astype(float)  # no ties
    g = np.repeat(np.arange(n_queries), n_docs)
    return y, s, g


def _against_ir_measures(names, n_queries, repeat):
    import ir_measures
    import pandas as pd

    from skirm.metrics import evaluate

    y, s, g = _graded_data(n_queries, np.random.default_rng(1))
    docs = np.char.add("d", np.arange(len(s)).astype(str))
    qids = g.astype(str)
    qrels = pd.DataFrame({"query_id": qids, "doc_id": docs, "relevance": y})
    run = pd.DataFrame({"query_id": qids, "doc_id": docs, "score": s})
    measures = [ir_measures.parse_measure(n) for n in names]

    def ours():
        evaluate(y, s, groups=g, metrics=names, ties="first")

    def theirs():
        ir_measures.calc_aggregate(measures, qrels, run)

    ours(), theirs()
    return _median_time(ours, repeat), _median_time(theirs, repeat)


def bench_cwl(n_queries, repeat):
    return _against_ir_measures(CWL, n_queries, repeat)


def bench_agreement(n_queries, repeat):
    return _against_ir_measures(AGREEMENT, n_queries, repeat)


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
        ("C/W/L, 8 measures (cwl_eval through ir_measures)", bench_cwl),
        ("Accuracy and Compat (ir_measures' providers)", bench_agreement),
    ):
        ours, theirs = bench(args.queries, args.repeat)
        print(f"| {label} | {ours:.3f} | {theirs:.3f} | {theirs / ours:.1f}x |")


if __name__ == "__main__":
    main()
