"""Dicts in, dicts out: skirm next to pytrec_eval where its users hold data.

pytrec_eval's, ir_measures' and BEIR's users keep qrels and runs as dicts of
dicts (``{qid: {docid: grade}}``, ``{qid: {docid: score}}``, string ids).
Each case runs in a fresh process: the dicts are built there (seeded; not
timed), the tool is imported (not timed), then the call is timed:

- ``RelevanceEvaluator(qrels, measures).evaluate(run)`` (pytrec_eval's and
  skirm's drop-in, the evaluator built inside the timing);
- ``evaluate(run2)``: a second run through the same evaluator;
- ``skirm.trec.evaluate_run(qrels, run, measures)``;
- with ``--general``, also ``evaluate_run(as_qrels(qrels), as_run(run),
  measures)``, the conversion timed: the dicts made records (a string
  column of every docno) and joined by the general join of files and
  frames, where ``evaluate_run`` on dicts reads each judged docno's score
  from the run's dicts (``skirm.io._dict_rows``). The row is the measured
  reason the dicts keep their own reading of the join.

Peak memory is the process's maximum resident set (``VmHWM``: its own;
``ru_maxrss`` would also keep the size of this script's process, which
started it, and which grows as it keeps the values of the cases before), the
dicts included. Five measures (``ndcg_cut.10``, ``map_cut.100``,
``recip_rank``, ``P.10``, ``recall.100``); the values of both tools are
checked equal (1e-12) in every skirm process. Wall and CPU time of the
call are both reported (on a machine shared with other work, CPU time moves
less with the load, and the ratio of either is the one to quote when the
two agree). The two tools' processes
alternate (pytrec_eval, skirm, pytrec_eval, ...), so that load from
elsewhere on the machine hits both alike; the ratio of ``evaluate_run`` is
to pytrec_eval's ``RelevanceEvaluator(qrels, m).evaluate(run)``, the call
it replaces. The load average is printed with the table.

Two regimes of judgements (``--regime``): ``sparse`` (the default: 10
documents judged per query among 1,000, so that about one is retrieved)
and ``pooled`` (10 judged per query, every one of them retrieved, as the
judgements of TREC's pools and most BEIR sets are: the regime most users
hold).

Run: ``python benchmarks/bench_dicts.py [--queries 10000] [--docs 100]
[--regime sparse|pooled] [--judged N] [--shuffled] [--repeats 3]
[--against DIR] [--general]`` (``--judged``: the judged documents of each query, a
tenth of its documents by default; ``--shuffled``: the run names its
queries in another order than the qrels, where by default both name them
in one order, as runs made from the qrels' topics do). skirm's bytecode
is compiled first, as an install does (with ``PYTHONDONTWRITEBYTECODE`` set
every process would otherwise compile skirm from source). ``--against DIR``
times the skirm of another checkout (``DIR`` holds its ``skirm`` package,
e.g. a ``git worktree`` of the commit before a change) in turn with the two
tools, in a column of its own: the before and after of a change, measured
side by side under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import CHILD_PRELUDE, cache_bytecode

MEASURES = ["ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100"]

CHILD = (
    CHILD_PRELUDE
    + r"""
import json, resource, sys, time
import numpy as np

n_queries, n_docs = int(sys.argv[1]), int(sys.argv[2])
tool, case, measures = sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
pooled = sys.argv[6] == "pooled"
n_judged = int(sys.argv[7])
shuffled = sys.argv[8] == "shuffled"

def make(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = rng.choice(10 * n_docs, size=n_docs, replace=False)
        scores = rng.random(n_docs).round(4)  # some ties
        run[f"q{q}"] = {f"doc{d}": s for d, s in zip(docs.tolist(), scores.tolist())}
        if pooled:  # every judged document retrieved
            judged = rng.choice(docs, size=n_judged, replace=False)
        else:
            judged = rng.choice(10 * n_docs, size=n_judged, replace=False)
        grades = rng.integers(0, 3, judged.size).tolist()
        qrels[f"q{q}"] = {f"doc{d}": g for d, g in zip(judged.tolist(), grades)}
    if shuffled:  # the run's queries in another order than the qrels'
        order = np.random.default_rng(seed + 2).permutation(n_queries).tolist()
        run = {f"q{q}": run[f"q{q}"] for q in order}
    return qrels, run

qrels, run = make(0)
if pooled:  # the same documents scored again: every judged one retrieved
    rng = np.random.default_rng(1)
    run2 = {  # (in run's order of queries)
        q: dict(zip(d, rng.random(len(d)).round(4).tolist())) for q, d in run.items()
    }
else:
    _, run2 = make(1)
if tool == "pytrec_eval":
    import pytrec_eval
    def evaluator(): return pytrec_eval.RelevanceEvaluator(qrels, set(measures))
else:
    import skirm.trec
    from skirm.io import as_qrels, as_run
    from skirm.trec import RelevanceEvaluator, evaluate_run
    def evaluator(): return RelevanceEvaluator(qrels, set(measures))
start, cpu = time.perf_counter(), time.process_time()
if case == "evaluate":
    out = evaluator().evaluate(run)
elif case == "second":
    e = evaluator()
    e.evaluate(run)
    start, cpu = time.perf_counter(), time.process_time()
    out = e.evaluate(run2)
elif tool == "pytrec_eval":  # the reference values of evaluate_run
    out = evaluator().evaluate(run)
elif case == "general":  # the dicts made records first: the general join
    out = evaluate_run(as_qrels(qrels), as_run(run), measures)
else:
    out = evaluate_run(qrels, run, measures)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = peak_mib()
# a digest of the values, compared between the tools by the parent
name = {"ndcg_cut.10": "ndcg_cut_10", "map_cut.100": "map_cut_100", "P.10": "P_10",
        "recall.100": "recall_100", "recip_rank": "recip_rank"}
if isinstance(out, dict):
    values = sorted((q, name[m], out[q][name[m]]) for q in out for m in measures)
else:  # an EvaluationResult: per-query values by trec_eval's names
    ids = out.group_ids.tolist()
    values = sorted(
        (q, name[m], float(out.per_query[name[m]][i]))
        for i, q in enumerate(ids)
        for m in measures
    )
module = sys.modules["skirm"].__file__ if "skirm" in sys.modules else ""
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mib": peak, "values": values,
                  "module": module}))
"""
)


#: This checkout's root, whose skirm the "skirm" column times.
ROOT = Path(__file__).resolve().parent.parent


def run_case(args, tool, case):
    # Each child runs from a neutral directory, with the checkout it times
    # first on its path: ``python -c`` puts the working directory before
    # PYTHONPATH, so that a child started in a checkout would import that
    # checkout's skirm whatever PYTHONPATH says.
    root = ROOT
    if tool == "against":  # skirm from the other checkout
        tool, root = "skirm", args.against.resolve()
    env = {**os.environ, "PYTHONPATH": str(root)}
    argv = [sys.executable, "-c", CHILD, str(args.queries), str(args.docs), tool, case]
    judged = args.docs // 10 if args.judged is None else args.judged
    with tempfile.TemporaryDirectory() as neutral:
        out = subprocess.run(
            [*argv, json.dumps(MEASURES), args.regime, str(judged), args.order],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=neutral,
        )
    result = json.loads(out.stdout)
    if tool == "skirm" and Path(result["module"]).resolve().parent.parent != root:
        raise SystemExit(f"timed {result['module']}, not the skirm of {root}")
    return result


def compile_against(path):
    """Compile the other checkout's skirm to bytecode, as :func:`cache_bytecode`."""
    import compileall

    compileall.compile_dir(path / "skirm", quiet=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--regime", choices=("sparse", "pooled"), default="sparse")
    parser.add_argument(
        "--judged", type=int, default=None, help="judged per query (docs // 10)"
    )
    parser.add_argument(
        "--shuffled",
        dest="order",
        action="store_const",
        const="shuffled",
        default="qrels",
        help="the run's queries in another order than the qrels'",
    )
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another checkout's root, whose skirm is timed in turn",
    )
    parser.add_argument(
        "--general",
        action="store_true",
        help="also time the dicts made records and joined by the general join",
    )
    args = parser.parse_args()
    cache_bytecode()
    if args.against is not None:
        compile_against(args.against)
    rows = []
    cases = [
        ("RelevanceEvaluator(qrels, m).evaluate(run)", "evaluate", "pytrec_eval"),
        ("a second run through the same evaluator", "second", "pytrec_eval"),
        ("evaluate_run(qrels_dict, run_dict, m)", "evaluate_run", "pytrec_eval"),
    ]
    if args.general:
        cases.append(
            (
                "evaluate_run(as_qrels(q), as_run(r), m): the general join",
                "general",
                "pytrec_eval",
            )
        )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    order = "the run's queries shuffled, " if args.order == "shuffled" else ""
    print(
        f"{args.queries:,} queries x {args.docs} documents, {args.regime} "
        f"judgements ({args.docs // 10 if args.judged is None else args.judged} a "
        f"query), string ids, {order}"
        f"{len(MEASURES)} measures; medians of {args.repeats} fresh processes, "
        f"the tools alternating; load average before: {load}\n"
    )
    against = args.against is not None
    extra = " | other checkout: wall, CPU, ratio (wall / CPU), MiB" if against else ""
    print(
        "| | pytrec_eval | skirm | pytrec_eval / skirm | CPU: pytrec_eval, skirm "
        f"| CPU ratio | peak MiB (pytrec_eval, skirm){extra} |"
    )
    print("| --- " * (8 if against else 7) + "|")
    for title, case, _reference in cases:
        runs = {"pytrec_eval": [], "skirm": []}
        if against:
            runs["against"] = []
        for round_ in range(args.repeats):
            # the order reversed every other round: no tool always first
            tools = list(runs) if round_ % 2 == 0 else list(runs)[::-1]
            for tool in tools:
                runs[tool].append(run_case(args, tool, case))
        times, cpus, peaks, values = {}, {}, {}, {}
        for tool, done in runs.items():
            times[tool] = statistics.median(r["seconds"] for r in done)
            cpus[tool] = statistics.median(r["cpu"] for r in done)
            peaks[tool] = statistics.median(r["peak_mib"] for r in done)
            values[tool] = done[0]["values"]
        # the same values: pytrec_eval's own, or (evaluate_run, which has
        # no pytrec_eval call) skirm's drop-in's
        same = all(
            a[:2] == b[:2] and abs(a[2] - b[2]) <= 1e-12
            for tool in values.keys() - {"pytrec_eval"}
            for a, b in zip(values["pytrec_eval"], values[tool], strict=True)
        )
        if not same:
            raise SystemExit(f"{title}: the values differ between the tools")
        ref = times["pytrec_eval"]
        ratio = f"{ref / times['skirm']:.2f}"
        ref_text = f"{ref:.3f} s"
        peak_ref = f"{peaks['pytrec_eval']:.0f}"
        cpu_ratio = cpus["pytrec_eval"] / cpus["skirm"]
        other = ""
        if against:
            other = (
                f" | {times['against']:.3f} s, {cpus['against']:.3f} s, "
                f"{ref / times['against']:.2f} / "
                f"{cpus['pytrec_eval'] / cpus['against']:.2f}, "
                f"{peaks['against']:.0f}"
            )
        print(
            f"| {title} | {ref_text} | {times['skirm']:.3f} s | {ratio} | "
            f"{cpus['pytrec_eval']:.3f} s, {cpus['skirm']:.3f} s | {cpu_ratio:.2f} | "
            f"{peak_ref}, {peaks['skirm']:.0f}{other} |"
        )
        rows.append((title, times, peaks))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload average after: {load}")


if __name__ == "__main__":
    main()
