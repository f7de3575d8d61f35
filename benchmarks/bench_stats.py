"""Benchmark skirm's system comparison against ranx and scipy.

The task of the statistics issue: 10 systems, all 45 pairs, 3 metrics,
10,000 queries, 10,000 resamples of Fisher's randomization test::

    python benchmarks/bench_stats.py
    python benchmarks/bench_stats.py --queries 2000 --ranx-full

Per-query values are synthetic (seed 0): a query difficulty shared by the
systems plus a system effect and noise, rounded to two decimals so that
differences tie as metric values do. Nothing is evaluated: every tool starts
from the same aligned per-query arrays.

Measured, on one thread (``OPENBLAS_NUM_THREADS=1`` and ``NUMBA_NUM_THREADS=1``
are set before numpy is imported, unless ``--threads`` says otherwise):

* skirm ``compare`` with the randomization test (the whole comparison: 135
  tests, Holm per metric, intervals), and with the t and bootstrap tests;
* the floor: drawing the 10,000 x 10,000 random signs and multiplying them
  with the 30 system rows, the least any sign-flip implementation must do;
* ``scipy.stats.permutation_test`` (``permutation_type="samples"``,
  vectorised, batches of 500) on one pair and metric, times 135;
* ranx's randomization test as ``ranx.compare`` runs it
  (``compute_statistical_significance``, numba): ranx tests each pair in
  both orders, 90 x 3 calls. One call is timed and multiplied by 270 unless
  ``--ranx-full`` runs them all.

Peak memory is tracemalloc's peak above the allocations alive before the
call (numpy reports its buffers to it). The agreement section compares the
p-values of the timed pair: within Monte Carlo error, not equal (different
random draws).
"""

from __future__ import annotations

import argparse
import os
import sys

if __name__ == "__main__":
    _threads = "1"
    for i, arg in enumerate(sys.argv):
        if arg == "--threads" and i + 1 < len(sys.argv):
            _threads = sys.argv[i + 1]
    for _var in (
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMBA_NUM_THREADS",
    ):
        os.environ.setdefault(_var, _threads)

import gc
import platform
import time
import tracemalloc

import numpy as np

import skirm
from skirm.metrics import EvaluationResult
from skirm.stats import _resampling as rs, compare, paired_test

METRICS = ("ndcg@10", "map", "mrr")


def make_results(n_queries, n_systems, seed=0):
    """Aligned per-query values of ``n_systems`` systems, as EvaluationResults."""
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n_queries)
    results = {}
    for s in range(n_systems):
        per_query = {
            m: np.clip(
                np.round(
                    0.8 * difficulty + 0.004 * s + rng.normal(0, 0.2, n_queries), 2
                ),
                0,
                1,
            )
            for m in METRICS
        }
        means = {m: float(v.mean()) for m, v in per_query.items()}
        results[f"system{s}"] = EvaluationResult(np.arange(n_queries), per_query, means)
    return results


def timed(task, repeat=1, warm_up=True):
    """Best of ``repeat`` runs, after one untimed run (caches, page faults)."""
    if warm_up:
        task()
    best = float("inf")
    value = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        value = task()
        best = min(best, time.perf_counter() - start)
    return best, value


def peak_memory(task):
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    task()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def floor(results, n_resamples):
    values = np.stack([r.per_query[m] for r in results.values() for m in METRICS])
    rng = np.random.default_rng(0)
    n = values.shape[1]
    for rows in rs._chunk_sizes(n_resamples, n):
        rs._random_signs(rng, rows, n) @ values.T


def scipy_one(a, b, n_resamples):
    from scipy import stats

    return stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        batch=500,
        rng=0,
    ).pvalue


def ranx_scores(results, names):
    return {n: {m: results[n].per_query[m] for m in METRICS} for n in names}


def ranx_run(results, names, n_resamples):
    from ranx.statistical_tests import compute_statistical_significance

    return compute_statistical_significance(
        names,
        ranx_scores(results, names),
        stat_test="fisher",
        n_permutations=n_resamples,
        max_p=0.05,
    )


def fmt(seconds):
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1000:.0f} ms"


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", default="1", help="BLAS and numba threads")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument(
        "--ranx-full",
        action="store_true",
        help="run ranx on every pair instead of extrapolating",
    )
    args = parser.parse_args(argv)

    results = make_results(args.queries, args.systems)
    k, B = args.systems, args.resamples
    n_pairs = k * (k - 1) // 2
    n_tests = n_pairs * len(METRICS)
    print(
        f"# Comparing {k} systems: {n_pairs} pairs x {len(METRICS)} metrics = "
        f"{n_tests} tests, {args.queries:,} queries, {B:,} resamples\n"
    )
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical "
        f"cores, threads {os.environ.get('OPENBLAS_NUM_THREADS')}; numpy "
        f"{np.__version__}, skirm {skirm.__version__}\n"
    )

    rows = []
    t_floor, _ = timed(lambda: floor(results, B), args.repeat)
    rows.append(["floor: signs x 30 system rows", fmt(t_floor), "1.0"])
    ours = {}
    for test in ("randomization", "t", "bootstrap", "tukey_hsd"):
        seconds, cmp = timed(
            lambda test=test: compare(
                results, test=test, n_resamples=B, random_state=0
            ),
            args.repeat,
        )
        ours[test] = (seconds, cmp)
        rows.append(
            [f"skirm compare(test={test!r})", fmt(seconds), f"{seconds / t_floor:.1f}"]
        )
    peak = peak_memory(
        lambda: compare(results, test="randomization", n_resamples=B, random_state=0)
    )

    a = results["system0"].per_query["map"]
    b = results["system1"].per_query["map"]
    pairs = ours["randomization"][1].to_frame("pairs")
    mine = pairs[(pairs.system == "system0") & (pairs.other == "system1")]
    p_ours = float(mine[mine.metric == "map"].p_value.iloc[0])
    agreement = [["skirm compare", f"{p_ours:.4f}"]]
    if not args.no_peers:
        seconds, p_scipy = timed(lambda: scipy_one(a, b, B), warm_up=False)
        rows.append(
            [
                f"scipy permutation_test, 1 test x {n_tests}",
                fmt(seconds * n_tests),
                f"{seconds * n_tests / t_floor:.0f}",
            ]
        )
        agreement.append(["scipy permutation_test", f"{p_scipy:.4f}"])
        try:
            import ranx  # noqa: F401
        except ImportError:
            print("ranx is not installed: skipped\n")
        else:
            ranx_run(results, ["system0", "system1"], 100)  # numba compilation
            # (timed once, after that warm-up)
            if args.ranx_full:
                seconds, out = timed(
                    lambda: ranx_run(results, list(results), B), warm_up=False
                )
                label = f"ranx Fisher, all {2 * n_tests} calls"
            else:
                one = {"system0": results["system0"], "system1": results["system1"]}
                names = ["system0", "system1"]
                seconds, out = timed(lambda: ranx_run(one, names, B), warm_up=False)
                # One pair in both orders x 3 metrics = 6 calls; ranx.compare
                # makes 2 x n_tests.
                seconds *= n_tests / len(METRICS)
                label = f"ranx Fisher, 6 calls x {n_tests // 3} (extrapolated)"
            rows.append([label, fmt(seconds), f"{seconds / t_floor:.0f}"])
            key = frozenset(["system0", "system1"])
            agreement.append(["ranx", f"{out[key]['map']['p_value']:.4f}"])
    table(["task", "time", "x floor"], rows)
    print(
        f"Peak memory of compare(test='randomization'): {peak / 2**20:.0f} MiB "
        "(tracemalloc)\n"
    )
    ref = paired_test(a, b).pvalue
    agreement.append(["(paired t test, for scale)", f"{ref:.4f}"])
    se = np.sqrt(ref * (1 - ref) / B)
    print(f"p-values of system0 vs system1 on map (Monte Carlo SE ~ {se:.4f}):\n")
    table(["implementation", "p-value"], agreement)


if __name__ == "__main__":
    main()
