"""The measures of impression logs at scale: GAUC, NE and calibration.

1M impressions in 100k groups (requests of 10 rows, a click rate of 10%,
click probabilities as scores). Timed side by side, interleaved, each a
median of ``--repeat`` rounds after one warm-up call:

* ``evaluate(..., metrics=["gauc", "ne", "pcoc", "ece@10"])`` against
  ``evaluate(..., metrics=["ndcg@10"])`` on the same rows (target: within
  2x);
* ``gauc`` alone against a Python loop over the groups calling
  scikit-learn's ``roc_auc_score`` and averaging by impressions, DIN's
  definition (target: at least 20x faster; the loop is timed on a share of
  the groups and scaled, ``--loop-share``);
* the propensity-scored measures (``psp@5``, ``psndcg@5``, ``ips_dcg@10``)
  with per-row propensities, for the record.

Usage::

    python benchmarks/bench_impressions.py [--rows 1000000] [--group-size 10]
        [--repeat 7] [--loop-share 0.1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def _logs(n_rows, group_size, seed=0):
    rng = np.random.default_rng(seed)
    n_groups = n_rows // group_size
    groups = np.repeat(np.arange(n_groups), group_size)
    rng.shuffle(groups)  # impressions of many requests interleaved, as logged
    p_click = 1.0 / (1.0 + np.exp(-rng.normal(-2.3, 1.0, n_rows)))
    clicks = (rng.random(n_rows) < p_click).astype(np.float64)
    propensity = rng.uniform(0.1, 1.0, n_rows)
    return clicks, p_click, groups, propensity


def _interleaved(functions, repeat):
    """Median seconds of each function, their rounds interleaved."""
    for function in functions.values():
        function()  # warm-up
    times = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def _sklearn_loop(clicks, scores, groups, share):
    """DIN's GAUC by a loop over the groups with roc_auc_score, on ``share``
    of the groups: ``(value, seconds scaled to every group)``."""
    from sklearn.metrics import roc_auc_score

    order = np.argsort(groups, kind="stable")
    g, c, s = groups[order], clicks[order], scores[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    ends = np.r_[starts[1:], g.shape[0]]
    n_loop = max(1, int(starts.shape[0] * share))
    start = time.perf_counter()
    total = weight = 0.0
    for a, b in zip(starts[:n_loop], ends[:n_loop], strict=True):
        labels = c[a:b]
        if 0 < labels.sum() < b - a:
            total += (b - a) * roc_auc_score(labels, s[a:b])
            weight += b - a
    seconds = (time.perf_counter() - start) * starts.shape[0] / n_loop
    return total / weight, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--group-size", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--loop-share", type=float, default=0.1)
    args = parser.parse_args(argv)

    from skirm.metrics import evaluate

    clicks, scores, groups, propensity = _logs(args.rows, args.group_size)
    n_groups = np.unique(groups).shape[0]
    print(
        f"{args.rows:,} impressions in {n_groups:,} groups; load "
        f"{os.getloadavg()[0]:.1f}; medians of {args.repeat} interleaved rounds"
    )
    calls = {
        "ndcg@10": lambda: evaluate(clicks, scores, groups=groups, metrics=["ndcg@10"]),
        "gauc+ne+pcoc+ece@10": lambda: evaluate(
            clicks, scores, groups=groups, metrics=["gauc", "ne", "pcoc", "ece@10"]
        ),
        "gauc": lambda: evaluate(clicks, scores, groups=groups, metrics=["gauc"]),
        "psp@5+psndcg@5+ips_dcg@10": lambda: evaluate(
            clicks,
            scores,
            groups=groups,
            metrics=["psp@5", "psndcg@5", "ips_dcg@10"],
            propensity=propensity,
        ),
    }
    medians = _interleaved(calls, args.repeat)
    base = medians["ndcg@10"]
    print("| call | median | / evaluate(ndcg@10) |")
    print("| --- | --- | --- |")
    for name, seconds in medians.items():
        print(f"| {name} | {seconds * 1e3:.1f} ms | {seconds / base:.2f}x |")

    gauc = evaluate(clicks, scores, groups=groups, metrics=["gauc"])["gauc"]
    value, loop = _sklearn_loop(clicks, scores, groups, min(args.loop_share, 1.0))
    print(
        f"\nGAUC: skirm {medians['gauc'] * 1e3:.1f} ms; a loop of roc_auc_score over "
        f"the groups {loop:.2f} s (timed on {args.loop_share:.0%} of the groups, "
        f"scaled): {loop / medians['gauc']:.0f}x"
    )
    if args.loop_share >= 1:
        print(f"  the same number: {gauc!r} vs {value!r}")


if __name__ == "__main__":
    main()
