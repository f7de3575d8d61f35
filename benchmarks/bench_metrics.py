"""Benchmark skirm's ranking metrics against the sort floor and the peers.

Run after ``pip install -e ".[bench]"`` (install ``torch`` first, CPU build, so
that torchmetrics does not pull a CUDA build)::

    python benchmarks/bench_metrics.py --rows 100000 1000000
    python benchmarks/bench_metrics.py --rows 10000000 --no-peers --scaling-base 1000000

Every measurement starts from flat numpy arrays ``(y_true, y_score, groups)``
(see ``_data.py``). Each task is warmed up once, then all tasks of a table are
timed in turn, ``--repeat`` rounds, and the table shows medians: tasks that
are compared with each other ran side by side in the same process. The output
is markdown; ``--output FILE`` also writes it to a file.

Sections: the floor (sorts), skirm (each metric alone, ``evaluate`` with 1, 3
and 10 metrics, ``ties="average"`` and ``ties="first"``), the peers (end to
end from flat arrays, and alone on their own input format), the agreement of
their means with skirm's, the peak memory of ``evaluate`` (tracemalloc: the
peak of traced allocations during the call, above what was allocated before
it), the scaling between two sizes, and the targets of the performance issue.
"""

from __future__ import annotations

import argparse
import gc
import platform
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import load_mq2008, make_flat

import skirm
from skirm.metrics import evaluate, get_metric

THREE = ("ndcg@10", "map", "mrr")
TEN = (
    "ndcg@10",
    "ndcg",
    "map",
    "mrr",
    "precision@10",
    "recall@10",
    "hit_rate@10",
    "r_precision",
    "err@10",
    "rbp",
)
ALONE = (
    "ndcg@10",
    "dcg@10",
    "cg@10",
    "precision@10",
    "recall@10",
    "r_cap@10",
    "f1@10",
    "hit_rate@10",
    "r_precision",
    "mrr",
    "map",
    "err@10",
    "rbp",
)
PEERS = ("sklearn", "pytrec_eval", "ir_measures", "ranx", "ranx_tl", "torchmetrics")
TIES = ("average", "first")


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


def run_side_by_side(tasks, repeat, max_seconds=None):
    """Median seconds of each task; the tasks run in turn, ``repeat`` rounds.

    ``tasks`` maps a name to a no-argument callable. Each is called once
    before timing (warm-up). A task slower than ``max_seconds`` is timed
    three times only.
    """
    times = {name: [] for name in tasks}
    slow = set()
    for name, task in tasks.items():
        t0 = time.perf_counter()
        task()
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            slow.add(name)
    for round_ in range(repeat):
        for name, task in tasks.items():
            if name in slow and round_ >= 3:
                continue
            gc.collect()
            t0 = time.perf_counter()
            task()
            times[name].append(time.perf_counter() - t0)
    return {name: float(np.median(values)) for name, values in times.items()}


# --------------------------------------------------------------------------
# The floor: sorting the rows by query, then score descending
# --------------------------------------------------------------------------


def lexsort(y_score, groups):
    return np.lexsort((-y_score, groups))


def grouped_radix(y_score, groups):
    """One argsort of the scores, then a stable (radix) sort of dense codes."""
    codes = groups - groups.min()
    order = np.argsort(-y_score)
    keys = codes[order]
    if codes.max() < 1 << 16:
        return order[np.argsort(keys.astype(np.uint16), kind="stable")]
    low = order[np.argsort(keys.astype(np.uint16), kind="stable")]
    return low[np.argsort((codes[low] >> 16).astype(np.uint16), kind="stable")]


def grouped_padded(y_score, groups):
    """Segmented sort: one query per line of a NaN-padded matrix, each line
    sorted on its own. Assumes contiguous groups in increasing order (as the
    synthetic data are); it is the fastest grouped sort we know for queries of
    similar sizes."""
    n = y_score.shape[0]
    codes = groups - groups.min()
    sizes = np.bincount(codes)
    starts = np.zeros(sizes.shape[0], dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    width = int(sizes.max())
    target = np.arange(n) + np.repeat(np.arange(sizes.shape[0]) * width - starts, sizes)
    padded = np.full(sizes.shape[0] * width, np.nan)
    padded[target] = -y_score
    order = padded.reshape(-1, width).argsort(axis=1)
    order += starts[:, None]
    return order[np.arange(width) < sizes[:, None]]


def grouped_keys(y_score, groups):
    """Segmented sort of integer keys: each score mapped to 64 bits whose
    unsigned order is descending score order, the low bits replaced by the
    row's column in its query's line of a padded matrix, each line sorted on
    its own with ``np.sort``. Assumes contiguous groups in increasing order
    and at most 65,536 rows per query. (skirm does this, and checks that no
    two distinct scores share a key.)"""
    n = y_score.shape[0]
    codes = groups - groups.min()
    sizes = np.bincount(codes)
    starts = np.zeros(sizes.shape[0], dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    width = int(sizes.max())
    low = np.uint64((1 << max(int(width - 1).bit_length(), 1)) - 1)
    raw = np.add(y_score, 0.0).view(np.uint64)
    keys = raw >> np.uint64(63)
    keys -= np.uint64(1)
    keys &= np.uint64((1 << 63) - 1)
    keys ^= raw
    keys &= ~low
    cell = np.arange(n)
    cell += np.repeat(np.arange(sizes.shape[0]) * width - starts, sizes)
    lines = np.full(sizes.shape[0] * width, np.iinfo(np.uint64).max, np.uint64)
    lines[cell] = keys
    lines = lines.reshape(-1, width)
    lines |= np.arange(width, dtype=np.uint64)
    lines.sort(axis=1)
    ranked = lines.reshape(-1)[cell]
    ranked &= low
    order = ranked.view(np.int64)
    order += np.repeat(starts, sizes)
    return order


def floor_tasks(y_score, groups):
    return {
        "np.argsort(scores)": lambda: np.argsort(y_score),
        "np.lexsort((-scores, groups))": lambda: lexsort(y_score, groups),
        "grouped sort: argsort + radix of codes": lambda: grouped_radix(
            y_score, groups
        ),
        "grouped sort: padded segmented argsort": lambda: grouped_padded(
            y_score, groups
        ),
        "grouped sort: segmented sort of 64-bit keys": lambda: grouped_keys(
            y_score, groups
        ),
    }


# --------------------------------------------------------------------------
# skirm
# --------------------------------------------------------------------------


def skirm_metric(name, y_true, y_score, groups, ties):
    metric = get_metric(name)
    return lambda: metric(y_true, y_score, groups=groups, ties=ties)


def skirm_evaluate(metrics, y_true, y_score, groups, ties, n_jobs=None):
    return lambda: evaluate(
        y_true, y_score, groups=groups, metrics=metrics, ties=ties, n_jobs=n_jobs
    )


# --------------------------------------------------------------------------
# Peers: converters and end-to-end calls
# --------------------------------------------------------------------------


def to_dicts(y_true, y_score, groups):
    """Flat arrays -> string-keyed qrels (int labels) and run dicts."""
    order = np.argsort(groups, kind="stable")
    g = groups[order]
    bounds = np.flatnonzero(np.diff(g)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [g.shape[0]]))
    doc = [f"d{i}" for i in order.tolist()]
    labels = y_true[order].astype(np.int64).tolist()
    scores = y_score[order].tolist()
    qids = [f"q{q}" for q in g[starts].tolist()]
    qrels, run = {}, {}
    for q, s, e in zip(qids, starts.tolist(), ends.tolist(), strict=True):
        qrels[q] = dict(zip(doc[s:e], labels[s:e], strict=True))
        run[q] = dict(zip(doc[s:e], scores[s:e], strict=True))
    return qrels, run


def to_padded(y_true, y_score, groups):
    """Flat arrays -> (n_queries, max_size) matrices; padding ranks last with
    label 0 (so it adds nothing to DCG or to the ideal DCG)."""
    _, codes = np.unique(groups, return_inverse=True)
    sizes = np.bincount(codes)
    order = np.argsort(codes, kind="stable")
    codes = codes[order]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    col = np.arange(codes.shape[0]) - starts[codes]
    shape = (sizes.shape[0], int(sizes.max()))
    yt = np.zeros(shape)
    ys = np.full(shape, y_score.min() - 1.0)
    yt[codes, col] = y_true[order]
    ys[codes, col] = y_score[order]
    return yt, ys


def sklearn_ndcg(yt2, ys2):
    from sklearn.metrics import ndcg_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # all-zero rows may warn
        return ndcg_score(yt2, ys2, k=10)


def pytrec_all3(qrels, run):
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut.10", "map", "recip_rank"}
    )
    per_query = evaluator.evaluate(run)
    values = list(per_query.values())
    return {
        "ndcg@10": float(np.mean([v["ndcg_cut_10"] for v in values])),
        "map": float(np.mean([v["map"] for v in values])),
        "mrr": float(np.mean([v["recip_rank"] for v in values])),
    }


def ir_measures_all3(qrels, run):
    import ir_measures
    from ir_measures import AP, RR, nDCG

    agg = ir_measures.calc_aggregate([nDCG @ 10, AP, RR], qrels, run)
    return {"ndcg@10": agg[nDCG @ 10], "map": agg[AP], "mrr": agg[RR]}


def ranx_objects(qrels_dict, run_dict):
    from ranx import Qrels, Run

    return Qrels(qrels_dict), Run(run_dict)


def ranx_all3(qrels, run):
    from ranx import evaluate as ranx_evaluate

    out = ranx_evaluate(qrels, run, ["ndcg@10", "map", "mrr"])
    return {"ndcg@10": out["ndcg@10"], "map": out["map"], "mrr": out["mrr"]}


def to_ranx_typed_lists(y_true, y_score, groups):
    """ranx's low-level input: per query, an (n, 2) array [doc id, value],
    the run sorted by score descending, the qrels (relevant rows) by label."""
    from numba.typed import List

    doc = np.arange(y_true.shape[0], dtype=np.float64)
    order = np.lexsort((-y_score, groups))
    g = groups[order]
    bounds = np.flatnonzero(np.diff(g)) + 1
    run = List(np.split(np.column_stack((doc[order], y_score[order])), bounds))
    qorder = np.lexsort((-y_true, groups))
    qorder = qorder[y_true[qorder] > 0]
    qg = groups[qorder]
    # One qrels array per query of the run, empty for queries without relevant rows.
    uniq = g[np.concatenate(([0], bounds))]
    cuts = np.searchsorted(qg, uniq[1:])
    qrels = List(np.split(np.column_stack((doc[qorder], y_true[qorder])), cuts))
    return qrels, run


def torchmetrics_all3(y_true, y_score, groups):
    import torch
    from torchmetrics.retrieval import (
        RetrievalMAP,
        RetrievalMRR,
        RetrievalNormalizedDCG,
    )

    preds = torch.from_numpy(y_score)
    target = torch.from_numpy(y_true.astype(np.int64))
    binary = target > 0
    indexes = torch.from_numpy(groups.astype(np.int64))
    out = {}
    ndcg = RetrievalNormalizedDCG(top_k=10)
    ndcg.update(preds, target, indexes=indexes)
    out["ndcg@10"] = float(ndcg.compute())
    for name, cls in (("map", RetrievalMAP), ("mrr", RetrievalMRR)):
        metric = cls()
        metric.update(preds, binary, indexes=indexes)
        out[name] = float(metric.compute())
    return out


def available_peers(wanted):
    found = []
    for peer in wanted:
        module = {
            "sklearn": "sklearn",
            "pytrec_eval": "pytrec_eval",
            "ir_measures": "ir_measures",
            "ranx": "ranx",
            "ranx_tl": "ranx",
            "torchmetrics": "torchmetrics",
        }[peer]
        try:
            __import__(module)
        except ImportError:
            print(f"(skipping {peer}: {module} is not installed)", file=sys.stderr)
            continue
        found.append(peer)
    return found


def peer_tasks(peers, y_true, y_score, groups):
    """(end-to-end tasks, native-format tasks, mean-value getters)."""
    e2e, native, means = {}, {}, {}
    if "sklearn" in peers:
        yt2, ys2 = to_padded(y_true, y_score, groups)
        e2e["sklearn ndcg_score (padded 2-D), NDCG@10"] = lambda: sklearn_ndcg(
            *to_padded(y_true, y_score, groups)
        )
        native["sklearn ndcg_score (padded 2-D), NDCG@10"] = lambda: sklearn_ndcg(
            yt2, ys2
        )
        means["sklearn"] = lambda: {"ndcg@10": float(sklearn_ndcg(yt2, ys2))}
    dict_peers = {"pytrec_eval", "ir_measures", "ranx"} & set(peers)
    if dict_peers:
        qrels, run = to_dicts(y_true, y_score, groups)
    if "pytrec_eval" in peers:
        e2e["pytrec_eval (dicts), 3 metrics"] = lambda: pytrec_all3(
            *to_dicts(y_true, y_score, groups)
        )
        native["pytrec_eval (dicts), 3 metrics"] = lambda: pytrec_all3(qrels, run)
        means["pytrec_eval"] = lambda: pytrec_all3(qrels, run)
    if "ir_measures" in peers:
        e2e["ir-measures (dicts), 3 metrics"] = lambda: ir_measures_all3(
            *to_dicts(y_true, y_score, groups)
        )
        native["ir-measures (dicts), 3 metrics"] = lambda: ir_measures_all3(qrels, run)
        means["ir_measures"] = lambda: ir_measures_all3(qrels, run)
    if "ranx" in peers:
        e2e["ranx (Qrels/Run objects), 3 metrics"] = lambda: ranx_all3(
            *ranx_objects(*to_dicts(y_true, y_score, groups))
        )
        native["ranx (Qrels/Run objects), 3 metrics"] = lambda: ranx_all3(
            *ranx_objects(qrels, run)
        )
        means["ranx"] = lambda: ranx_all3(*ranx_objects(qrels, run))
    if "ranx_tl" in peers:
        tl = to_ranx_typed_lists(y_true, y_score, groups)
        e2e["ranx low level (sorted typed lists), 3 metrics"] = lambda: ranx_all3(
            *to_ranx_typed_lists(y_true, y_score, groups)
        )
        native["ranx low level (sorted typed lists), 3 metrics"] = lambda: ranx_all3(
            *tl
        )
        means["ranx_tl"] = lambda: ranx_all3(*tl)
    if "torchmetrics" in peers:
        e2e["torchmetrics (tensors + indexes), 3 metrics"] = lambda: torchmetrics_all3(
            y_true, y_score, groups
        )
        means["torchmetrics"] = lambda: torchmetrics_all3(y_true, y_score, groups)
    return e2e, native, means


def warm_up_ranx():
    """ranx compiles its kernels with numba on first use (tens of seconds in a
    fresh environment, a few seconds with a warm cache): do it before timing."""
    y_true, y_score, groups = make_flat(2000, seed=1)
    t0 = time.perf_counter()
    ranx_all3(*ranx_objects(*to_dicts(y_true, y_score, groups)))
    ranx_all3(*to_ranx_typed_lists(y_true, y_score, groups))
    return time.perf_counter() - t0


# --------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------


def peak_memory(task):
    """Peak bytes allocated by ``task`` (tracemalloc; numpy reports its
    buffers to it), above the allocations alive before the call."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    task()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def fmt(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1000:.1f} ms"


def machine():
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return (
        f"{cpu}, {os.cpu_count()} logical cores; {platform.system()} "
        f"{platform.machine()}; Python {platform.python_version()}, numpy "
        f"{np.__version__}, skirm {skirm.__version__}"
    )


class Report:
    def __init__(self):
        self.lines = []

    def __call__(self, text=""):
        print(text, flush=True)
        self.lines.append(text)

    def table(self, header, rows):
        self("| " + " | ".join(header) + " |")
        self("| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |")
        for row in rows:
            self("| " + " | ".join(str(c) for c in row) + " |")
        self()


# --------------------------------------------------------------------------
# One data size
# --------------------------------------------------------------------------


def bench_size(out, n_rows, args, peers, targets):
    y_true, y_score, groups = make_flat(n_rows, round_scores=args.round_scores)
    n_groups = np.unique(groups).shape[0]
    label = f"{n_rows:,} rows, {n_groups:,} queries"
    if args.round_scores is not None:
        label += f", scores rounded to {args.round_scores} decimal(s)"
    out(f"## {label}")
    out()
    repeat = args.repeat

    # Floor and evaluate, side by side.
    tasks = floor_tasks(y_score, groups)
    for ties in TIES:
        tasks[f"evaluate(ndcg@10), ties={ties}"] = skirm_evaluate(
            ("ndcg@10",), y_true, y_score, groups, ties
        )
        tasks[f"evaluate(ndcg@10, map, mrr), ties={ties}"] = skirm_evaluate(
            THREE, y_true, y_score, groups, ties
        )
        tasks[f"evaluate(10 metrics), ties={ties}"] = skirm_evaluate(
            TEN, y_true, y_score, groups, ties
        )
    # Threads over blocks of whole queries (the same blocks as one thread).
    tasks["evaluate(ndcg@10, map, mrr), ties=average, n_jobs=2"] = skirm_evaluate(
        THREE, y_true, y_score, groups, "average", n_jobs=2
    )
    core = run_side_by_side(tasks, repeat)
    best_name = min(
        (k for k in core if k.startswith("grouped sort")), key=lambda k: core[k]
    )
    best = core[best_name]
    out(f"Floor and `evaluate`, median of {repeat} runs, side by side.")
    out(f"Best grouped sort: {best_name.split(': ')[1]} ({fmt(best)}).")
    out()
    out.table(
        ["task", "median", "÷ best grouped sort"],
        [(name, fmt(t), f"{t / best:.2f}x") for name, t in core.items()],
    )

    one = core["evaluate(ndcg@10, map, mrr), ties=average"]
    two = core["evaluate(ndcg@10, map, mrr), ties=average, n_jobs=2"]
    out(f"`n_jobs=2` speed-up of evaluate(ndcg@10, map, mrr): {one / two:.2f}x.")
    out()

    # Each metric alone.
    if not args.skip_alone:
        tasks = {}
        for name in ALONE:
            for ties in TIES:
                tasks[(name, ties)] = skirm_metric(name, y_true, y_score, groups, ties)
        alone = run_side_by_side(tasks, repeat)
        out(f"Each metric alone (its public function), median of {repeat} runs.")
        out()
        out.table(
            ["metric", "ties=average", "ties=first", "average ÷ best sort"],
            [
                (
                    name,
                    fmt(alone[(name, "average")]),
                    fmt(alone[(name, "first")]),
                    f"{alone[(name, 'average')] / best:.2f}x",
                )
                for name in ALONE
            ],
        )

    results = {"core": core, "best": best, "n_rows": n_rows}
    # Peers.
    if peers:
        e2e, native, means = peer_tasks(peers, y_true, y_score, groups)
        skirm3 = skirm_evaluate(THREE, y_true, y_score, groups, "average")
        ndcg10 = skirm_metric("ndcg@10", y_true, y_score, groups, "average")
        side = {"skirm evaluate(ndcg@10, map, mrr)": skirm3}
        side["skirm ndcg_score(k=10) (flat arrays)"] = ndcg10
        side.update({f"e2e: {k}": v for k, v in e2e.items()})
        side.update({f"native: {k}": v for k, v in native.items()})
        timing = run_side_by_side(side, repeat, max_seconds=5.0)
        s3 = timing["skirm evaluate(ndcg@10, map, mrr)"]
        s1 = timing["skirm ndcg_score(k=10) (flat arrays)"]
        rows = []
        for name, t in timing.items():
            ref = s1 if "NDCG@10" in name or name.startswith("skirm ndcg") else s3
            ratio = "" if name.startswith("skirm") else f"{t / ref:.1f}x"
            rows.append((name, fmt(t), ratio))
        out(
            "Peers, median of "
            f"{repeat} runs (3 for tasks slower than 5 s), side by side with "
            'skirm (`ties="average"`). `e2e` starts from the flat arrays and '
            "includes the conversion to the peer's format; `native` starts "
            "from that format. The ratio is peer ÷ skirm: skirm's NDCG@10 alone "
            "for sklearn, skirm's 3-metric `evaluate` for the others."
        )
        out()
        out.table(["task", "median", "peer ÷ skirm"], rows)
        results["peers"] = timing
        # Agreement of the means.
        ref = evaluate(y_true, y_score, groups=groups, metrics=THREE).means
        ref_first = evaluate(
            y_true, y_score, groups=groups, metrics=THREE, ties="first"
        ).means
        rows = []
        worst = (0.0, "")
        for peer, getter in means.items():
            values = getter()
            cells = []
            for metric in THREE:
                if metric in values:
                    diff = abs(values[metric] - ref[metric])
                    cells.append(f"{values[metric]:.6f} ({diff:.1e})")
                    if diff > worst[0]:
                        worst = (diff, f"{peer} {metric}")
                else:
                    cells.append("n/a")
            rows.append((peer, *cells))
        out(
            "Means of each peer, with |peer - skirm| in parentheses (skirm "
            '`ties="average"`: '
            + ", ".join(f"{m} {ref[m]:.6f}" for m in THREE)
            + '; `ties="first"` differs from it by at most '
            + f"{max(abs(ref[m] - ref_first[m]) for m in THREE):.1e})."
        )
        out()
        out.table(["peer", *THREE], rows)
        out(f"Largest difference: {worst[0]:.2e} ({worst[1]}).")
        out()
        results["agreement"] = worst

    # Memory.
    if args.memory:
        peak = peak_memory(
            lambda: evaluate(y_true, y_score, groups=groups, metrics=THREE)
        )
        out(
            f"Peak memory of `evaluate(ndcg@10, map, mrr)` above its inputs "
            f"(tracemalloc): {peak / 2**20:.0f} MiB, {peak / n_rows:.0f} bytes per "
            "row."
        )
        out()
        results["memory"] = peak / n_rows
    return results


def bench_mq2008(out, args, peers):
    data = load_mq2008()
    if data is None:
        out("(MQ2008 not found: skipped)")
        return
    y_true, y_score, groups = data
    order = np.lexsort((-y_score, groups))
    s, g = y_score[order], groups[order]
    tied = int(np.count_nonzero((s[1:] == s[:-1]) & (g[1:] == g[:-1])))
    out(
        f"## MQ2008 test fold ({y_true.shape[0]:,} rows, "
        f"{np.unique(groups).shape[0]} queries; score = feature 1 + 0.5 x "
        f"feature 40: {tied} pairs of tied rows, "
        f"{int(np.count_nonzero(y_score <= 0))} scores <= 0)"
    )
    out()
    tasks = {
        f"skirm evaluate(ndcg@10, map, mrr), ties={ties}": skirm_evaluate(
            THREE, y_true, y_score, groups, ties
        )
        for ties in TIES
    }
    e2e, _, means = peer_tasks(peers, y_true, y_score, groups)
    tasks.update(e2e)
    timing = run_side_by_side(tasks, args.repeat)
    ref = evaluate(y_true, y_score, groups=groups, metrics=THREE).means
    rows = [(name, fmt(t)) for name, t in timing.items()]
    out.table(["task (end to end)", "median"], rows)
    rows = [("skirm (ties=average)", *(f"{ref[m]:.6f}" for m in THREE))]
    for peer, getter in means.items():
        values = getter()
        rows.append(
            (peer, *(f"{values[m]:.6f}" if m in values else "n/a" for m in THREE))
        )
    out(
        "Means. Ties follow each library's policy; torchmetrics (>= 1.7.4) "
        "leaves rows with a score <= 0 out of AP and RR."
    )
    out()
    out.table(["implementation", *THREE], rows)


# --------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------


def report_targets(out, results, scaling):
    rows = []

    def add(measure, value, target, ok):
        rows.append((measure, value, target, "met" if ok else "**missed**"))

    r = results.get(1_000_000) or results[max(results)]
    core, best = r["core"], r["best"]
    label = f"{r['n_rows']:,} rows"
    for ties, limit in (("first", 1.5), ("average", 2.0)):
        ratio = core[f"evaluate(ndcg@10, map, mrr), ties={ties}"] / best
        add(
            f"evaluate(ndcg@10, map, mrr), ties={ties} ÷ best grouped sort",
            f"{ratio:.2f}x",
            f"<= {limit}x",
            ratio <= limit,
        )
    for ties in TIES:
        ratio = (
            core[f"evaluate(10 metrics), ties={ties}"]
            / core[f"evaluate(ndcg@10), ties={ties}"]
        )
        add(
            f"evaluate 10 metrics ÷ 1 metric, ties={ties}",
            f"{ratio:.2f}x",
            "<= 1.6x",
            ratio <= 1.6,
        )
    peers = r.get("peers")
    if peers:
        s3 = peers["skirm evaluate(ndcg@10, map, mrr)"]
        s1 = peers["skirm ndcg_score(k=10) (flat arrays)"]
        for key, limit, ref in (
            ("e2e: pytrec_eval (dicts), 3 metrics", 10, s3),
            ("e2e: ranx (Qrels/Run objects), 3 metrics", 25, s3),
            ("e2e: torchmetrics (tensors + indexes), 3 metrics", 25, s3),
            ("e2e: ranx low level (sorted typed lists), 3 metrics", 5, s3),
            ("native: sklearn ndcg_score (padded 2-D), NDCG@10", 5, s1),
        ):
            if key in peers:
                ratio = peers[key] / ref
                add(f"{key} ÷ skirm", f"{ratio:.1f}x", f">= {limit}x", ratio >= limit)
    if scaling is not None:
        for ties, ratio in scaling["ratios"].items():
            add(
                f"evaluate(3) at {scaling['big']:,} ÷ at {scaling['small']:,} rows, "
                f"ties={ties}",
                f"{ratio:.1f}x",
                "<= 12x",
                ratio <= 12,
            )
    for n, res in results.items():
        if "memory" in res and n >= 10_000_000:
            add(
                f"extra peak memory of evaluate at {n:,} rows",
                f"{res['memory']:.0f} B/row",
                "<= 120 B/row",
                res["memory"] <= 120,
            )
    out(f"## Targets ({label} unless stated)")
    out()
    out.table(["measure", "measured", "target", ""], rows)


def bench_scaling(out, small, big, repeat):
    """evaluate(3) at two sizes, alternating, medians."""
    data = {n: make_flat(n) for n in (small, big)}
    tasks = {}
    for ties in TIES:
        for n in (small, big):
            y_true, y_score, groups = data[n]
            tasks[(ties, n)] = skirm_evaluate(THREE, y_true, y_score, groups, ties)
    for n in (small, big):
        y_true, y_score, groups = data[n]
        tasks[("floor", n)] = lambda y=y_score, g=groups: grouped_keys(y, g)
        tasks[("argsort", n)] = lambda y=y_score: np.argsort(y)
    timing = run_side_by_side(tasks, repeat)
    rows = []
    ratios = {}
    names = {
        "floor": "grouped sort (segmented sort of 64-bit keys)",
        "argsort": "np.argsort(scores)",
    }
    for key in (*TIES, "floor", "argsort"):
        a, b = timing[(key, small)], timing[(key, big)]
        name = names.get(key, f"evaluate(ndcg@10, map, mrr), ties={key}")
        rows.append((name, fmt(a), fmt(b), f"{b / a:.1f}x"))
        if key in TIES:
            ratios[key] = b / a
    out(f"## Scaling, median of {repeat} runs, side by side")
    out()
    out.table(["task", f"{small:,} rows", f"{big:,} rows", "ratio"], rows)
    return {"small": small, "big": big, "ratios": ratios}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rows", type=int, nargs="+", default=[100_000, 1_000_000], help="sizes"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds")
    parser.add_argument(
        "--peers",
        default=",".join(PEERS),
        help="comma-separated peers (" + ", ".join(PEERS) + ")",
    )
    parser.add_argument("--no-peers", action="store_true", help="skirm only")
    parser.add_argument(
        "--peers-max-rows",
        type=int,
        default=1_000_000,
        help="run the peers only up to this size",
    )
    parser.add_argument(
        "--round-scores", type=int, default=None, help="round scores (ties)"
    )
    parser.add_argument("--skip-alone", action="store_true")
    parser.add_argument("--memory", action="store_true", help="peak memory of evaluate")
    parser.add_argument(
        "--scaling",
        type=int,
        nargs=2,
        metavar=("SMALL", "BIG"),
        help="time evaluate at two sizes side by side",
    )
    parser.add_argument("--mq2008", action="store_true")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)

    out = Report()
    peers = [] if args.no_peers else available_peers(args.peers.split(","))
    out("# skirm benchmark")
    out()
    out(f"Machine: {machine()}.")
    if peers:
        from importlib.metadata import PackageNotFoundError, version

        versions = []
        for dist in (
            "scikit-learn",
            "pytrec-eval-terrier",
            "ir-measures",
            "ranx",
            "torchmetrics",
            "torch",
        ):
            try:
                versions.append(f"{dist} {version(dist)}")
            except PackageNotFoundError:
                continue
        out(f"Peers: {', '.join(versions)}.")
    if {"ranx", "ranx_tl"} & set(peers):
        seconds = warm_up_ranx()
        out(
            f"ranx warm-up (numba compilation or cache load) before timing: "
            f"{seconds:.1f} s."
        )
    out()
    t_start = time.perf_counter()
    results = {}
    for n_rows in args.rows:
        size_peers = peers if n_rows <= args.peers_max_rows else []
        results[n_rows] = bench_size(out, n_rows, args, size_peers, None)
    scaling = None
    if args.scaling:
        scaling = bench_scaling(out, *args.scaling, args.repeat)
    if args.mq2008:
        bench_mq2008(out, args, peers)
    report_targets(out, results, scaling)
    out(f"Total time: {time.perf_counter() - t_start:.0f} s.")
    if args.output is not None:
        args.output.write_text("\n".join(out.lines) + "\n")


if __name__ == "__main__":
    main()
