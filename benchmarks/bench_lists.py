"""Benchmark ranked id lists: skirm against Spark-style and per-user loops.

Run::

    python benchmarks/bench_lists.py --users 100000 --depth 100
    python benchmarks/bench_lists.py --users 1000000 --depth 100 --no-loops

Data: ``--users`` users, each with a ranked list of ``--depth`` item ids
(drawn from ``--items``) and a ground truth of 1 to 20 relevant ids, some of
them missing from the list. Tasks, each timed ``--repeat`` times (median):

* ``from_lists`` on a 2-D id array, and on ragged Python lists;
* ``evaluate`` of NDCG@10, precision@10 and MAP on the lists object;
* the end-to-end call ``evaluate(sets, lists, ...)`` from Python lists;
* a per-user Python loop with Spark's RankingMetrics rules (the shape of
  Spark's ``RankingMetrics`` per-row code and of recmetrics/LensKit style
  loops), for the same three metrics with ``conventions="spark"``.

The peak memory of the end-to-end call is taken with tracemalloc. The
script checks that the loop and skirm agree (max absolute difference).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import tracemalloc

import numpy as np

from skirm.metrics import evaluate, from_lists

METRICS = ["ndcg@10", "p@10", "map"]


def make_lists(n_users, depth, n_items, seed=0):
    rng = np.random.default_rng(seed)
    ranked = np.empty((n_users, depth), dtype=np.int64)
    for start in range(0, n_users, 10_000):  # chunks: bounded memory
        stop = min(start + 10_000, n_users)
        keys = rng.random((stop - start, n_items))
        ranked[start:stop] = np.argpartition(keys, depth, axis=1)[:, :depth]
    n_rel = rng.integers(1, 21, size=n_users)
    # Half of the relevant ids from the list, half from anywhere.
    truth = []
    for u in range(n_users):
        listed = ranked[u, rng.integers(0, depth, size=n_rel[u] // 2 + 1)]
        other = rng.integers(0, n_items, size=n_rel[u] - n_rel[u] // 2)
        truth.append(set(listed.tolist()) | set(other.tolist()))
    return ranked, truth


def spark_loop(ranked, truth, k=10):
    """Spark's RankingMetrics rules, one user at a time (binary relevance)."""
    ndcg, prec, ap = [], [], []
    for pred, lab in zip(ranked, truth, strict=True):
        n_lab = len(lab)
        hits, total, dcg, idcg = 0, 0.0, 0.0, 0.0
        for i, item in enumerate(pred):
            if item in lab:
                hits += 1
                total += hits / (i + 1)
                if i < k:
                    dcg += 1.0 / math.log(i + 2)
            if i == k - 1:
                prec.append(hits / k)
        for i in range(min(n_lab, k)):
            idcg += 1.0 / math.log(i + 2)
        ap.append(total / n_lab)
        ndcg.append(dcg / idcg)
    return {"ndcg@10": np.mean(ndcg), "p@10": np.mean(prec), "map": np.mean(ap)}


def timed(task, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = task()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--items", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-loops", action="store_true")
    args = parser.parse_args()
    ranked, truth = make_lists(args.users, args.depth, args.items)
    ragged = ranked.tolist()
    rows = []
    t, lists = timed(lambda: from_lists(ranked, truth), args.repeat)
    rows.append(("from_lists, 2-D id array", t))
    t, _ = timed(lambda: from_lists(ragged, truth), args.repeat)
    rows.append(("from_lists, ragged Python lists", t))
    t, _ = timed(
        lambda: evaluate(lists, None, metrics=METRICS, conventions="spark"), args.repeat
    )
    rows.append(("evaluate on the lists object (3 metrics)", t))
    t, result = timed(
        lambda: evaluate(truth, ragged, metrics=METRICS, conventions="spark"),
        args.repeat,
    )
    rows.append(("end to end from Python lists (3 metrics)", t))
    tracemalloc.start()
    evaluate(truth, ragged, metrics=METRICS, conventions="spark")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    loop = None
    if not args.no_loops:
        t_loop, loop = timed(lambda: spark_loop(ragged, truth), 1)
        rows.append(("per-user Python loop, Spark's rules (3 metrics)", t_loop))
    n_ids = args.users * args.depth
    print(f"{args.users:,} users x {args.depth} items ({n_ids:,} ids)\n")
    print("| task | median s | x end to end |")
    print("|---|---:|---:|")
    end_to_end = rows[3][1]
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} | {seconds / end_to_end:.2f} |")
    print(f"\npeak traced memory, end to end: {peak / 2**20:.0f} MiB")
    if loop is not None:
        diff = max(abs(loop[m] - result[m]) for m in METRICS)
        print(f"max |skirm - loop| over the three means: {diff:.2e}")


if __name__ == "__main__":
    main()
