"""skirm's metrics during training: boosting rounds and validation batches.

Boosting: LightGBM ``lambdarank``, ``--rounds`` rounds on ``--train`` rows
and ``--valid`` validation rows (25 documents a query), ``n_jobs=2``,
fitted three ways in turns, medians of ``--repeat`` fits:

- ``none``: the validation set, no metric (``metric="None"``);
- ``lightgbm``: LightGBM's own ``ndcg@10``;
- ``skirm``: ``make_eval_metric("ndcg@10", "lightgbm", conventions=
  "lightgbm")`` as ``eval_metric``, LightGBM's metric off.

It prints the times, the ratio skirm / lightgbm, and the per-round cost of
each metric: the time spent inside skirm's metric (timed around its calls)
and LightGBM's (its fit minus the fit without a metric, per round).

Batches: ``MetricAccumulator(conventions="torchmetrics")`` against one
torchmetrics object per metric (NDCG@10, MAP, MRR, Precision@10,
Recall@10), fed ``--batches`` batches of ``--batch-rows`` rows (positive
distinct scores, 25 rows a query, queries split over batches) and computed
once; medians of ``--repeat`` runs.

    python benchmarks/bench_training.py --rounds 200 --train 100000 \
        --valid 20000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def _data(n_rows, seed):
    from skirm.datasets import make_ranking

    X, y, qid = make_ranking(
        n_groups=n_rows // 25, group_size=25, n_features=40, random_state=seed
    )
    return X, y, np.bincount(qid - qid.min())


class _Timed:
    """Wraps an evaluation metric, adding up the time spent in its calls."""

    def __init__(self, metric):
        self.metric = metric
        self.seconds = 0.0
        self.calls = 0

    def __deepcopy__(self, memo):  # LightGBM deep-copies eval_metric: keep count
        return self

    def __call__(self, y_true, y_pred, weight, group):
        start = time.perf_counter()
        out = self.metric(y_true, y_pred, weight, group)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return out


def bench_boosting(rounds, n_train, n_valid, repeat):
    import lightgbm

    from skirm.ranker import make_eval_metric

    X, y, sizes = _data(n_train, 0)
    Xv, yv, sizes_v = _data(n_valid, 1)

    def fit(kind):
        model = lightgbm.LGBMRanker(
            n_estimators=rounds,
            n_jobs=2,
            verbose=-1,
            random_state=0,
            metric="ndcg" if kind == "lightgbm" else "None",
        )
        timed = None
        kwargs = {}
        if kind == "lightgbm":
            kwargs["eval_at"] = [10]
        if kind == "skirm":
            metric = make_eval_metric("ndcg@10", "lightgbm", conventions="lightgbm")
            timed = kwargs["eval_metric"] = _Timed(metric)
        start = time.perf_counter()
        model.fit(
            X,
            y,
            group=sizes,
            eval_X=(Xv,),
            eval_y=(yv,),
            eval_group=[sizes_v],
            **kwargs,
        )
        seconds = time.perf_counter() - start
        history = model.evals_result_.get("valid_0", {}).get("ndcg@10")
        return seconds, timed, history

    times = {"none": [], "lightgbm": [], "skirm": []}
    inside = []
    histories = {}
    for _ in range(repeat):
        for kind in times:
            seconds, timed, history = fit(kind)
            print(f"    {kind}: {seconds:.2f} s", flush=True)
            times[kind].append(seconds)
            if timed is not None:
                inside.append(timed.seconds / timed.calls)
            if history is not None:
                histories[kind] = np.asarray(history)
    med = {kind: statistics.median(values) for kind, values in times.items()}
    print(
        f"LightGBM lambdarank, {rounds} rounds, {n_train} training rows, "
        f"{n_valid} validation rows, n_jobs=2; medians of {repeat} fits"
    )
    for kind, seconds in med.items():
        print(f"  {kind:>9}: {seconds:7.2f} s")
    print(f"  skirm / lightgbm: {med['skirm'] / med['lightgbm']:.3f}x")
    own = (med["lightgbm"] - med["none"]) / rounds
    print(
        f"  per round: skirm's ndcg@10 {statistics.median(inside) * 1e3:.2f} ms "
        f"(timed inside), LightGBM's {own * 1e3:.2f} ms (fit minus no-metric fit)"
    )
    share = statistics.median(inside) * rounds / med["skirm"]
    print(f"  skirm's metric: {share:.1%} of its fit's time")
    diff = np.max(np.abs(histories["skirm"] - histories["lightgbm"]))
    print(f"  largest difference between the two histories: {diff:.2e}")


def bench_batches(n_batches, batch_rows, repeat):
    import torch
    from torchmetrics import retrieval

    from skirm.metrics import MetricAccumulator

    rng = np.random.default_rng(0)
    n = n_batches * batch_rows
    groups = np.repeat(np.arange(n // 25), 25)
    y = rng.integers(0, 3, n)
    scores = (rng.permutation(n) + 1.0) / n
    batches = [
        (
            torch.from_numpy(y[r]),
            torch.from_numpy(scores[r]),
            torch.from_numpy(groups[r]),
        )
        for r in np.array_split(np.arange(n), n_batches)
    ]
    names = ["ndcg@10", "map", "mrr", "precision@10", "recall@10"]

    def ours():
        acc = MetricAccumulator(names, conventions="torchmetrics")
        for labels, preds, index in batches:
            acc.update(labels, preds, index)
        return acc.compute()

    def theirs():
        metrics = [
            retrieval.RetrievalNormalizedDCG(top_k=10),
            retrieval.RetrievalMAP(),
            retrieval.RetrievalMRR(),
            retrieval.RetrievalPrecision(top_k=10),
            retrieval.RetrievalRecall(top_k=10),
        ]
        for labels, preds, index in batches:
            for i, metric in enumerate(metrics):
                metric.update(preds, labels if i == 0 else labels > 0, indexes=index)
        return [float(metric.compute()) for metric in metrics]

    times = {"skirm": [], "torchmetrics": []}
    for _ in range(repeat):
        for kind, fn in (("skirm", ours), ("torchmetrics", theirs)):
            start = time.perf_counter()
            out = fn()
            times[kind].append(time.perf_counter() - start)
            if kind == "skirm":
                got = [out[name] for name in names]
            else:
                want = out
    med = {kind: statistics.median(values) for kind, values in times.items()}
    print(
        f"{n_batches} batches of {batch_rows} rows, 5 metrics, update + compute; "
        f"medians of {repeat} runs"
    )
    for kind, seconds in med.items():
        print(f"  {kind:>12}: {seconds * 1e3:8.1f} ms")
    print(f"  torchmetrics / skirm: {med['torchmetrics'] / med['skirm']:.1f}x")
    print(f"  largest difference: {np.max(np.abs(np.subtract(got, want))):.2e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--train", type=int, default=100_000)
    parser.add_argument("--valid", type=int, default=20_000)
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--batch-rows", type=int, default=2_500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["boosting", "batches"], default=None)
    args = parser.parse_args()
    if args.only != "batches":
        bench_boosting(args.rounds, args.train, args.valid, args.repeat)
    if args.only != "boosting":
        bench_batches(args.batches, args.batch_rows, args.repeat)


if __name__ == "__main__":
    main()
