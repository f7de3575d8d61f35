"""The first calls of a fresh process against its steady state.

A process that evaluates once (a script, a CI job, the first fold of a
search) pays whatever the first call pays: imports, caches filled, memory
faulted in (not compiling skirm: its bytecode is written first, as an
installed copy has it). Each configuration runs in a fresh process, which
makes ``--calls`` calls of :func:`skirm.metrics.evaluate` on the same data,
then as many more; the steady state is the median of the later calls. Reported
per configuration: the first calls in ms, the steady state, and the largest
ratio of a first call to it. The configurations cross ``n_jobs`` 1 and 2,
int and float labels (the float ones fractional), with and without tied
scores, one, three and five metrics, at each ``--rows``.

Run: ``python benchmarks/bench_first_calls.py [--rows 1000000 10000000] [--calls 5]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _data import cache_bytecode  # noqa: E402

METRICS = {
    1: ["ndcg@10"],
    3: ["ndcg@10", "map", "mrr"],
    5: ["ndcg@10", "map", "mrr", "precision@5", "err@20"],
}

#: Code run in a fresh process; prints the call times in seconds as JSON.
PROCESS = """
import json, sys, time
import numpy as np
sys.path.insert(0, {here!r})
from _data import make_flat
y_true, y_score, groups = make_flat({rows}, round_scores={round_scores})
if {fractional}:
    y_true = y_true / 2
else:
    y_true = y_true.astype(np.int64)
from skirm.metrics import evaluate
times = []
for _ in range(2 * {calls}):
    t0 = time.perf_counter()
    evaluate(y_true, y_score, groups=groups, metrics={metrics!r}, n_jobs={n_jobs})
    times.append(time.perf_counter() - t0)
print(json.dumps(times))
"""


def run(rows, n_jobs, fractional, ties, metrics, calls):
    code = PROCESS.format(
        here=str(HERE),
        rows=rows,
        round_scores=1 if ties else None,
        fractional=fractional,
        metrics=metrics,
        n_jobs=n_jobs,
        calls=calls,
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    times = json.loads(out.stdout)
    first, later = times[:calls], sorted(times[calls:])
    steady = later[len(later) // 2]
    return first, steady


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--metrics", type=int, nargs="+", default=[1, 3, 5])
    args = parser.parse_args(argv)
    cache_bytecode()  # as installed: no process compiles skirm from source
    print(
        "| rows | n_jobs | labels | ties | metrics | first calls (ms) | steady (ms) "
        "| largest first / steady |"
    )
    print("| ---: | ---: | --- | --- | ---: | --- | ---: | ---: |")
    worst = 0.0
    grid = itertools.product(
        args.rows, (1, 2), (False, True), (False, True), args.metrics
    )
    for rows, n_jobs, fractional, ties, k in grid:
        first, steady = run(rows, n_jobs, fractional, ties, METRICS[k], args.calls)
        ratio = max(first) / steady
        worst = max(worst, ratio)
        print(
            f"| {rows:,} | {n_jobs} | {'float' if fractional else 'int'} "
            f"| {'yes' if ties else 'no'} | {k} "
            f"| {', '.join(f'{1000 * t:.0f}' for t in first)} | {1000 * steady:.0f} "
            f"| {ratio:.2f}x |",
            flush=True,
        )
    print(f"\nlargest ratio of a first call to the steady state: {worst:.2f}x")


if __name__ == "__main__":
    main()
