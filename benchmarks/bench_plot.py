"""MetricAtKDisplay: a metric at k = 1..100 against one evaluate() at one k.

The display computes every cutoff from one ranking of the rows, so its cost
should stay near one ``evaluate`` call with a single cutoff (target: at most
2x on 1M rows). Reported: median wall time over rounds run side by side,
the ratio, and peak memory (tracemalloc). Drawing is timed apart (Agg):
on one Axes reused from call to call, as a notebook or a report redraws
(the last call's line removed before each; ``Axes.clear()``, which rebuilds
the ticks and spines, costs matplotlib about 4 ms more), with its ratio to
one call; and on a new figure each time.

Run: ``python benchmarks/bench_plot.py [--rows 1000000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from _data import make_flat
from bench_metrics import fmt, peak_memory, run_side_by_side

from skirm.metrics import evaluate
from skirm.plot import MetricAtKDisplay


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--max-k", type=int, default=100)
    args = parser.parse_args(argv)
    print(f"{args.rows:,} rows, about 100 per query; k = 1..{args.max_k}\n")
    print(
        "| metric | ties | evaluate, one k | all k, computed | ratio | "
        "all k, drawn on a reused Axes | ratio | all k, drawn on a new figure "
        "| peak memory, one k / all k |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    _, reused = plt.subplots()
    ks = range(1, args.max_k + 1)
    for round_scores, ties in ((None, "none"), (1, "many")):
        y_true, y_score, groups = make_flat(args.rows, round_scores=round_scores)
        for metric in ("ndcg", "precision", "map", "mrr", "err"):
            names = [f"{metric}@{k}" for k in ks]

            def one(y_true=y_true, y_score=y_score, groups=groups, metric=metric):
                return evaluate(
                    y_true, y_score, groups=groups, metrics=[f"{metric}@10"]
                )

            def computed(y_true=y_true, y_score=y_score, groups=groups, names=names):
                return evaluate(y_true, y_score, groups=groups, metrics=names)

            def drawn(y_true=y_true, y_score=y_score, groups=groups, metric=metric):
                MetricAtKDisplay.from_predictions(
                    y_true, y_score, groups=groups, metric=metric, k=ks
                )
                plt.close(plt.gcf())

            def on_axes(y_true=y_true, y_score=y_score, groups=groups, metric=metric):
                for line in reused.get_lines():  # the last round's line
                    line.remove()
                MetricAtKDisplay.from_predictions(
                    y_true, y_score, groups=groups, metric=metric, k=ks, ax=reused
                )

            tasks = {"one": one, "computed": computed, "axes": on_axes, "drawn": drawn}
            times = run_side_by_side(tasks, args.repeat)
            mem_one, mem_all = peak_memory(one), peak_memory(computed)
            print(
                f"| {metric} | {ties} | {fmt(times['one'])} | {fmt(times['computed'])} "
                f"| {times['computed'] / times['one']:.2f}x | {fmt(times['axes'])} "
                f"| {times['axes'] / times['one']:.2f}x | {fmt(times['drawn'])} "
                f"| {mem_one / 2**20:.0f} / {mem_all / 2**20:.0f} MiB |"
            )


if __name__ == "__main__":
    main()
