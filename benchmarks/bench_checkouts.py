"""Two checkouts of skirm side by side: is any path slower after a change?

A change that should not touch speed (a refactoring) is timed against the
commit before it on the same workloads, in fresh processes that alternate
between the two checkouts round after round, so that load from elsewhere on
the machine hits both alike. Each workload reports the median time of each
checkout, the median of the per-round ratios (after / before) and, for the
whole-process workloads, peak memory (max RSS).

Usage::

    git worktree add /tmp/before HEAD~5     # the commit to compare with
    python benchmarks/bench_checkouts.py --before /tmp/before --after . \\
        --rounds 11

The workloads: ``evaluate`` (NDCG@10, MAP, MRR) on 1M flat rows with one
and two threads, with tied scores, and on string query ids; ``ndcg_score``
alone; a multi-metric scorer on a fitted model; ``evaluate_run`` on a
200,000-line run file and on a run of 50,000 one-document queries
(``all_trec``: trec_eval's cutoffs up to 1,000 on queries of one row);
``skirm eval -m all_trec`` on a 50-topic x
1,000-document run as a whole process; and ``import skirm.metrics`` /
``import skirm.trec`` as whole processes.

Both checkouts' modules are compiled to bytecode first (``compileall``), as
an installed package ships them: with ``PYTHONDONTWRITEBYTECODE`` set (or a
new checkout) each fresh process would otherwise compile skirm from source,
and the whole-process workloads would time the compiler rather than the
start-up a user's install has.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

#: Code run in a fresh process for in-process workloads: prints the best of
#: ``repeat`` timings, in seconds, after one warm-up call.
TIMED = """
import json, sys, time
import numpy as np
{setup}
def work():
{work}
work()
best = float("inf")
for _ in range({repeat}):
    t0 = time.perf_counter()
    work()
    best = min(best, time.perf_counter() - t0)
print(json.dumps(best))
"""

ROWS = """
rng = np.random.default_rng(0)
sizes = rng.integers(20, 180, 10_000)
groups = np.repeat(np.arange(sizes.shape[0]), sizes)
n = groups.shape[0]
y_true = rng.choice(5, n, p=[0.7, 0.15, 0.08, 0.05, 0.02])
y_score = np.log1p(np.exp(0.7 * y_true + rng.normal(size=n)))
"""

WORKLOADS = {
    "evaluate, 1M rows, 1 thread": (
        ROWS + "from skirm.metrics import evaluate",
        "evaluate(y_true, y_score, groups=groups, metrics=['ndcg@10', 'map', 'mrr'])",
    ),
    "evaluate, 1M rows, 2 threads": (
        ROWS + "from skirm.metrics import evaluate",
        "evaluate(y_true, y_score, groups=groups, metrics=['ndcg@10', 'map', "
        "'mrr'], n_jobs=2)",
    ),
    "evaluate, 1M rows, tied scores": (
        ROWS + "y_score = np.round(y_score, 1)\nfrom skirm.metrics import evaluate",
        "evaluate(y_true, y_score, groups=groups, metrics=['ndcg@10', 'map', 'mrr'])",
    ),
    "evaluate, 200k rows, string ids": (
        ROWS
        + "keep = groups < 2000\ny_true, y_score = y_true[keep], y_score[keep]\n"
        + "groups = np.array([f'q{g}' for g in groups[keep]])\n"
        + "from skirm.metrics import evaluate",
        "evaluate(y_true, y_score, groups=groups, metrics=['ndcg@10', 'map', 'mrr'])",
    ),
    "ndcg_score, 1M rows": (
        ROWS + "from skirm.metrics import ndcg_score",
        "ndcg_score(y_true, y_score, groups=groups, k=10)",
    ),
    "scorer, 4 metrics, 100k rows": (
        "from sklearn.linear_model import Ridge\n"
        "from skirm.datasets import make_ranking\n"
        "from skirm.metrics import make_ranking_scorer\n"
        "X, y, groups = make_ranking(n_groups=2000, random_state=0)\n"
        "model = Ridge().fit(X, y)\n"
        "scorer = make_ranking_scorer(['ndcg@10', 'map', 'mrr@10', 'err@10'])",
        "scorer(model, X, y, groups=groups)",
    ),
    "evaluate_run, 200k-line run file": (
        "from skirm.trec import evaluate_run\nQRELS, RUN = '{qrels}', '{run}'",
        "evaluate_run(QRELS, RUN, ['map', 'ndcg', 'ndcg_cut.10', 'P.10', "
        "'recall.100', 'recip_rank', 'bpref', 'Rprec'])",
    ),
    "evaluate_run, 50k one-document queries, all_trec": (
        "from skirm.trec import evaluate_run\n"
        "QRELS, RUN = '{tiny_qrels}', '{tiny_run}'",
        "evaluate_run(QRELS, RUN, 'all_trec')",
    ),
}

#: Whole processes: ``(argv after the interpreter, what it measures)``.
PROCESSES = {
    "skirm eval -m all_trec, 50 x 1,000 (process)": [
        "-m",
        "skirm",
        "eval",
        "-m",
        "all_trec",
        "{small_qrels}",
        "{small_run}",
    ],
    "import skirm.metrics (process)": ["-c", "import skirm.metrics"],
    "import skirm.trec (process)": ["-c", "import skirm.trec"],
}


def write_trec_files(directory, n_topics, depth, seed):
    """A qrels file (about 10% of the retrieved documents judged, labels
    0-2) and a run file grouped by topic, with tied scores."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(n_topics):
        docs = rng.choice(50 * depth, depth, replace=False)
        scores = np.round(rng.normal(size=depth), 2)
        for rank, (doc, score) in enumerate(zip(docs, scores, strict=True)):
            run.append(f"{topic} Q0 D{doc:07d} {rank + 1} {score} bench")
            if rng.random() < 0.1:
                qrels.append(f"{topic} 0 D{doc:07d} {int(rng.integers(0, 3))}")
    paths = []
    for name, lines in ((f"qrels{seed}", qrels), (f"run{seed}", run)):
        path = os.path.join(directory, name)
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def _run(checkout, argv):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    return subprocess.run(
        [sys.executable, *argv],
        env=env,
        cwd=tempfile.gettempdir(),
        check=True,
        capture_output=True,
        text=True,
    )


def timed(checkout, setup, work, repeat):
    code = TIMED.format(setup=setup, work=textwrap.indent(work, "    "), repeat=repeat)
    return json.loads(_run(checkout, ["-c", code]).stdout)


def process(checkout, argv):
    """Wall time and peak memory (max RSS, MiB) of one whole process."""
    code = (
        "import json, resource, subprocess, sys, time\n"
        "t0 = time.perf_counter()\n"
        f"subprocess.run([sys.executable, *{argv!r}], check=True, "
        "stdout=subprocess.DEVNULL)\n"
        "wall = time.perf_counter() - t0\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(json.dumps([wall, rss]))\n"
    )
    return json.loads(_run(checkout, ["-c", code]).stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the checkout before")
    parser.add_argument("--after", default=".", help="the checkout after")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="timings per process")
    parser.add_argument("--only", nargs="*", help="workloads whose name has these")
    args = parser.parse_args(argv)
    checkouts = {"before": args.before, "after": args.after}
    for checkout in checkouts.values():  # as an install does: see above
        compileall.compile_dir(os.path.join(checkout, "skirm"), quiet=1)
    with tempfile.TemporaryDirectory() as directory:
        qrels, run = write_trec_files(directory, 200, 1000, seed=1)
        small_qrels, small_run = write_trec_files(directory, 50, 1000, seed=2)
        tiny_qrels, tiny_run = write_trec_files(directory, 50_000, 1, seed=3)
        files = dict(
            qrels=qrels,
            run=run,
            small_qrels=small_qrels,
            small_run=small_run,
            tiny_qrels=tiny_qrels,
            tiny_run=tiny_run,
        )
        rows = []
        names = [*WORKLOADS, *PROCESSES]
        if args.only:
            names = [n for n in names if any(word in n for word in args.only)]
        for name in names:
            times = {"before": [], "after": []}
            memory = {"before": [], "after": []}
            for r in range(args.rounds):
                order = ("before", "after") if r % 2 == 0 else ("after", "before")
                for which in order:
                    if name in WORKLOADS:
                        setup, work = WORKLOADS[name]
                        t = timed(
                            checkouts[which],
                            _fill(setup, files),
                            work,
                            args.repeat,
                        )
                    else:
                        argv_ = [_fill(a, files) for a in PROCESSES[name]]
                        t, rss = process(checkouts[which], argv_)
                        memory[which].append(rss)
                    times[which].append(t)
            ratios = [
                a / b for a, b in zip(times["after"], times["before"], strict=True)
            ]
            row = [
                name,
                statistics.median(times["before"]) * 1000,
                statistics.median(times["after"]) * 1000,
                statistics.median(ratios),
            ]
            if memory["before"]:
                row += [max(memory["before"]), max(memory["after"])]
            rows.append(row)
            print(_format(row), flush=True)
    return rows


def _fill(text, files):
    """``text`` with ``{name}`` replaced by the path of each file."""
    for key, path in files.items():
        text = text.replace("{" + key + "}", path)
    return text


def _format(row):
    text = f"| {row[0]} | {row[1]:.1f} ms | {row[2]:.1f} ms | {row[3]:.3f} |"
    if len(row) > 4:
        text += f" {row[4]:.0f} / {row[5]:.0f} MiB |"
    return text


if __name__ == "__main__":
    print(
        "| workload | before | after | after / before (median of rounds) | peak RSS |"
    )
    print("| --- | --- | --- | --- | --- |")
    main()
