"""evaluate(ndcg@10, map, mrr) with one thread and with two, side by side.

The two runs alternate (``--pairs`` pairs, after one warm-up each) so that a
change in the machine's speed touches both alike; reported: the median and
the fastest time of each, the median of the per-pair speed-ups and the
speed-up of the fastest times. The per-query values are checked equal.

Run: ``python benchmarks/bench_threads.py [--rows 1000000 10000000] [--pairs 21]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _data import make_flat

from skirm.metrics import evaluate

THREE = ["ndcg@10", "map", "mrr"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--pairs", type=int, default=21)
    args = parser.parse_args(argv)
    print(
        "| rows | 1 thread, median (fastest) | 2 threads, median (fastest) "
        "| median speed-up of the pairs | speed-up of the fastest |"
    )
    print("| ---: | ---: | ---: | ---: | ---: |")
    for n in args.rows:
        y_true, y_score, groups = make_flat(n)

        def run(n_jobs, y_true=y_true, y_score=y_score, groups=groups):
            t0 = time.perf_counter()
            result = evaluate(
                y_true, y_score, groups=groups, metrics=THREE, n_jobs=n_jobs
            )
            return time.perf_counter() - t0, result

        _, one = run(1)
        _, two = run(2)
        for name in THREE:
            np.testing.assert_array_equal(one.per_query[name], two.per_query[name])
        times = {1: [], 2: []}
        for _ in range(args.pairs):
            for n_jobs in (1, 2):
                times[n_jobs].append(run(n_jobs)[0])
        t1, t2 = np.array(times[1]), np.array(times[2])
        print(
            f"| {n:,} | {np.median(t1) * 1e3:.0f} ms ({t1.min() * 1e3:.0f}) "
            f"| {np.median(t2) * 1e3:.0f} ms ({t2.min() * 1e3:.0f}) "
            f"| {np.median(t1 / t2):.2f}x | {t1.min() / t2.min():.2f}x |"
        )


if __name__ == "__main__":
    main()
