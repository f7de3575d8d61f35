"""The ir_measures drop-in (``skirm.trec.calc_aggregate``) against
ir_measures, on ir_measures' registered names, with ties in the run.

Generates (seeded) ``--queries`` queries x ``--docs`` documents: scores
rounded to one decimal (many ties), subtopic judgments (3 subtopics, the
frame's ``iteration`` column; the plain measures read the last label of a
document, as ir_measures does). Both are given the same pandas frames, built
once outside the timing. Times, in turns, medians of ``--repeat`` rounds:

- all the names of ``tests/_ir_names.py`` in one call (the issue's target:
  ir_measures / skirm >= 20x);
- each provider's family alone: the drop-in, ir_measures (its default
  pipeline) and the tool underneath where it can be called directly
  (pytrec_eval's ``RelevanceEvaluator`` on dicts; pyndeval's
  ``RelevanceEvaluator`` on tuples; cwl_eval's command line on files,
  process start included); each row gives both ratios.

Prints a markdown table and the machine's load average.

    python benchmarks/bench_ir_measures.py --queries 300 --docs 100 --repeat 3

With ``--fresh N``, all the names in one call instead, on ir_measures' own
named tuples (its ``Qrel`` and ``ScoredDoc``, built outside the timing),
each tool timed in ``N`` fresh processes, the tools alternating (the
import of each tool not timed): the medians of wall and CPU time, and
their ratios. The CPU time counts child processes too: ir_measures runs
gdeval.pl with perl for each gdeval measure (``ERR@10``, nDCG with
exponential gains); the CPU time of the process alone is given as well.

    python benchmarks/bench_ir_measures.py --queries 5000 --fresh 5

With ``--baseline DIR`` (another checkout's root, say the commit before a
change), skirm from there is timed too, alternating with the others.

With ``--one NAME`` (and ``--fresh N``), one measure on TREC files instead
(``--queries`` queries of ``--docs`` documents, a fifth of them judged,
scores rounded to 0.01): ``skirm.trec.calc_aggregate([NAME], qrels, run)``
next to ``skirm.trec.evaluate_run(qrels, run, [NAME], compat="9.0")``, the
same measure through the drop-in and through the TREC path, each in ``N``
fresh processes, alternating.

    python benchmarks/bench_ir_measures.py --one nDCG@10 --queries 5000 --fresh 5
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: cwl_eval's command, next to this Python's.
CWL_EVAL = str(Path(sys.executable).with_name("cwl-eval"))


def _names():
    """The one list of ir_measures' names (shared with the tests)."""
    spec = importlib.util.spec_from_file_location(
        "_ir_names", ROOT / "tests" / "_ir_names.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SPELLINGS, module.DIVERSITY


def _generate(n_queries, n_docs, seed=0):
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for q in range(1, n_queries + 1):
        docs = [f"D{q}-{i}" for i in range(n_docs)]
        judged = rng.random(n_docs) < 0.6
        for doc, j in zip(docs, judged, strict=True):
            if j:
                for sub in range(1, 4):
                    label = int(rng.choice(4, p=[0.6, 0.2, 0.12, 0.08]))
                    q_rows.append((str(q), str(sub), doc, label))
        scores = np.round(rng.random(n_docs), 1)
        r_rows += [(str(q), d, float(s)) for d, s in zip(docs, scores, strict=True)]
    return q_rows, r_rows


CHILD = r"""
import json, resource, sys, time, importlib.util
import ir_measures
sys.path.insert(0, sys.argv[5])
from bench_ir_measures import _generate, _names
tool, n_queries, n_docs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spellings, _ = _names()
names = [spellings[b] for b in sorted(spellings)]
q_rows, r_rows = _generate(n_queries, n_docs)
qrels = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in q_rows]
run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in r_rows]
if tool == "skirm":
    from skirm import trec as module
    measures = names
else:
    module = ir_measures
    measures = [ir_measures.parse_measure(n) for n in names]
calc_aggregate = module.calc_aggregate  # the tool's modules imported here
def children():  # the CPU time of child processes (gdeval.pl's perl)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
start, own, kids = time.perf_counter(), time.process_time(), children()
calc_aggregate(measures, qrels, run)
own = time.process_time() - own
print(json.dumps({"seconds": time.perf_counter() - start,
                  "cpu": own + children() - kids, "own_cpu": own}))
"""


ONE = r"""
import json, sys, time
from skirm.trec import calc_aggregate, evaluate_run
door, name, qrels, run = sys.argv[1:5]
start, cpu = time.perf_counter(), time.process_time()
if door == "calc_aggregate":
    calc_aggregate([name], qrels, run)
else:
    evaluate_run(qrels, run, [name], compat="9.0")
print(json.dumps({"seconds": time.perf_counter() - start,
                  "cpu": time.process_time() - cpu}))
"""


def _one(args):
    """One measure on files through the two doors, in fresh processes."""
    rng = np.random.default_rng(0)
    tmp = Path(tempfile.mkdtemp())
    with open(tmp / "run", "w") as run, open(tmp / "qrels", "w") as qrels:
        for q in range(args.queries):
            docs = rng.choice(10**7, args.docs, replace=False)
            scores = np.round(rng.random(args.docs), 2)
            pairs = zip(docs.tolist(), scores.tolist(), strict=True)
            for i, (d, s) in enumerate(pairs):
                run.write(f"{q} Q0 D{d} {i} {s} r\n")
            for d in docs[: args.docs // 5].tolist():
                qrels.write(f"{q} 0 D{d} {rng.integers(0, 3)}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    times = {"calc_aggregate": [], "evaluate_run": []}
    for round_ in range(args.fresh):
        doors = list(times) if round_ % 2 == 0 else list(times)[::-1]
        for door in doors:
            out = subprocess.run(
                [sys.executable, "-c", ONE, door, args.one, str(tmp / "qrels"),
                 str(tmp / "run")],
                capture_output=True, text=True, check=True, env=env,
                cwd=tempfile.gettempdir(),
            )  # fmt: skip
            times[door].append(json.loads(out.stdout.splitlines()[-1]))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = args.queries * args.docs
    print(
        f"{args.one} on a {lines:,}-line run file; medians of {args.fresh} fresh "
        f"processes, the doors alternating; load average after: {load}\n"
    )
    print("| | wall | CPU |")
    print("| --- | --- | --- |")
    for door, runs in times.items():
        wall = statistics.median(r["seconds"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        print(f"| `{door}` | {wall:.3f} s | {cpu:.3f} s |")


def _fresh(args):
    """All the names in one call, each tool in ``args.fresh`` fresh
    processes, the tools alternating (with ``--baseline``, skirm from that
    checkout too); a markdown table of medians."""
    here = Path(__file__).resolve().parent
    paths = {"skirm": ROOT, "ir_measures": ROOT}
    if args.baseline:
        paths = {"skirm (baseline)": Path(args.baseline).resolve(), **paths}
    times = {tool: [] for tool in paths}
    for round_ in range(args.fresh):
        tools = list(times) if round_ % 2 == 0 else list(times)[::-1]
        for tool in tools:
            out = subprocess.run(
                [sys.executable, "-c", CHILD, tool.split()[0], str(args.queries),
                 str(args.docs), "-", str(here)],
                capture_output=True, text=True, check=True,
                env={**os.environ, "PYTHONPATH": str(paths[tool])},
                cwd=tempfile.gettempdir(),
            )  # fmt: skip
            times[tool].append(json.loads(out.stdout.splitlines()[-1]))
    med = {
        tool: {
            k: statistics.median(r[k] for r in runs)
            for k in ("seconds", "cpu", "own_cpu")
        }
        for tool, runs in times.items()
    }
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.queries} queries x {args.docs} documents, ir_measures' named "
        f"tuples, all {len(_names()[0])} names in one call; medians of "
        f"{args.fresh} fresh processes, the tools alternating; load average "
        f"after: {load}\n"
    )
    ours = [tool for tool in times if tool != "ir_measures"]
    print(
        f"| | {' | '.join(times)} | {' | '.join(f'ir_measures / {t}' for t in ours)} |"
    )
    print("| --- " * (len(times) + len(ours) + 1) + "|")
    for key, label in (
        ("seconds", "wall"),
        ("cpu", "CPU (child processes included)"),
        ("own_cpu", "CPU of the process alone"),
    ):
        theirs = med["ir_measures"][key]
        cells = [f"{med[t][key]:.3f} s" for t in times]
        cells += [f"{theirs / med[t][key]:.1f}x" for t in ours]
        print(f"| {label} | {' | '.join(cells)} |")


def _time(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _cwl_eval_cli(tmp):
    """cwl_eval's command line on the run file, gains scaled to [0, 1]."""

    def call():
        subprocess.run(
            [CWL_EVAL, str(tmp / "qrels_gain"), str(tmp / "run")],
            check=True,
            capture_output=True,
            cwd=tmp,  # cwl_eval writes its log to the working directory
        )

    return call


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-families", action="store_true", help="time all the names only"
    )
    parser.add_argument(
        "--fresh",
        type=int,
        default=0,
        help="all the names on named tuples, in this many fresh processes each",
    )
    parser.add_argument("--one", default=None, help="one measure, on files")
    parser.add_argument(
        "--baseline",
        default=None,
        help="with --fresh, also time skirm from this checkout (its root)",
    )
    args = parser.parse_args()
    if args.one:
        _one(args)
        return
    if args.fresh:
        _fresh(args)
        return

    import ir_measures
    import pandas as pd
    import pyndeval

    from skirm import trec

    spellings, _ = _names()
    q_rows, r_rows = _generate(args.queries, args.docs)
    qrels = pd.DataFrame(
        q_rows, columns=["query_id", "iteration", "doc_id", "relevance"]
    )
    run = pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"])
    measures = [ir_measures.parse_measure(spellings[b]) for b in sorted(spellings)]
    by_provider = {}
    for m in measures:
        provider = next(
            p.NAME
            for p in ir_measures.DefaultPipeline.providers
            if p.is_available() and p.supports(m)
        )
        by_provider.setdefault(provider, []).append(m)

    # the tools underneath, on their own inputs (built outside the timing)
    qrels_dict, run_dict = {}, {}
    for q, _, d, g in q_rows:
        qrels_dict.setdefault(q, {})[d] = g
    for q, d, s in r_rows:
        run_dict.setdefault(q, {})[d] = s
    tmp = Path(tempfile.mkdtemp())
    with open(tmp / "qrels_gain", "w") as f:
        for q, docs in qrels_dict.items():
            for d, g in docs.items():
                f.write(f"{q} 0 {d} {g / 3}\n")
    with open(tmp / "run", "w") as f:
        for q in run_dict:
            ranked = sorted(run_dict[q].items(), key=lambda x: -x[1])
            for i, (d, s) in enumerate(ranked):
                f.write(f"{q} Q0 {d} {i + 1} {s} r\n")
    # pytrec_eval and pyndeval with the invocations ir_measures builds for
    # the family (its measure strings, relevance levels, options)
    family = by_provider
    pte = ir_measures.pytrec_eval._build_invokers(family["pytrec_eval"], qrels_dict)
    subtopic_qrels = [pyndeval.SubtopicQrel(q, s, d, g) for q, s, d, g in q_rows]
    nd = ir_measures.pyndeval._build_invokers(family["pyndeval"], subtopic_qrels)
    nd_run = list(r_rows)

    def pytrec_eval_direct():
        for invoker in pte:
            invoker.evaluator.evaluate(run_dict)

    def pyndeval_direct():
        for invoker in nd:
            list(invoker.evaluator.evaluate_iter(sorted(nd_run)))

    direct = {
        "pytrec_eval": ("pytrec_eval", pytrec_eval_direct),
        "pyndeval": ("pyndeval", pyndeval_direct),
        "cwl_eval": ("cwl-eval CLI (its default measures)", _cwl_eval_cli(tmp)),
    }

    rows = [("all names", measures, None)]
    for provider, ms in sorted(by_provider.items()) * (not args.no_families):
        rows.append((f"{provider} ({len(ms)})", ms, direct.get(provider)))

    results = {label: ([], [], []) for label, _, _ in rows}
    for _ in range(args.repeat):
        for label, ms, tool in rows:
            ours, theirs, underneath = results[label]
            ours.append(_time(lambda ms=ms: trec.calc_aggregate(ms, qrels, run)))
            theirs.append(
                _time(lambda ms=ms: ir_measures.calc_aggregate(ms, qrels, run))
            )
            if tool is not None:
                underneath.append(_time(tool[1]))

    print(
        f"{args.queries} queries x {args.docs} documents, scores rounded to 0.1; "
        f"medians of {args.repeat} interleaved rounds; "
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs\n"
    )
    print(
        "| names (count) | skirm (s) | ir_measures (s) | ir_measures / skirm "
        "| tool underneath | tool (s) | tool / skirm |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, _, tool in rows:
        ours, theirs, underneath = (
            statistics.median(v) if v else float("nan") for v in results[label]
        )
        tool_cells = (
            f"{tool[0]} | {underneath:.3f} | {underneath / ours:.1f}x"
            if tool is not None
            else "- | - | -"
        )
        print(
            f"| {label} | {ours:.3f} | {theirs:.3f} | {theirs / ours:.1f}x "
            f"| {tool_cells} |"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
