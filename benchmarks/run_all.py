"""The whole benchmark suite in one command, written to a dated JSON file.

    python benchmarks/run_all.py                   # every regime, standard sizes
    python benchmarks/run_all.py --quick           # small sizes: a smoke run
    python benchmarks/run_all.py --only trec plot  # regimes whose name has these
    python benchmarks/run_all.py --compare OLD.json NEW.json

Each regime runs one benchmark script in a fresh process (the scripts time
skirm side by side with its reference and print a Markdown report). The
result file, ``benchmarks/results/<date>-<commit>.json``, holds the machine,
the commit, the versions of the libraries, and per regime the command, the
reference it is measured against, the whole process's wall time and peak
memory (max RSS of the child), its exit status and its report. ``--compare``
prints, for the regimes two result files share, the ratios new / old of
wall time and peak memory: a first look at whether a commit made a regime
slower, before reading the two reports (or running ``bench_checkouts.py``,
which alternates two checkouts on the same machine).

skirm's modules are compiled to bytecode (``__pycache__``) before the first
regime, as an installed package ships them: with ``PYTHONDONTWRITEBYTECODE``
set (or a new checkout) every fresh process would otherwise compile skirm
from source, tens of milliseconds that no installed copy pays, and the
start-up figures (``trec-small``) would time the compiler. The result file
says so (``"bytecode": "compiled"``).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# name: (script, standard arguments, quick arguments, what the regime is and
# its reference). The standard sizes are those of benchmarks/README.md.
SUITE = {
    "trec-small": (
        "bench_trec.py",
        ["--queries", "50", "--docs", "1000", "--repeats", "5"],
        ["--queries", "20", "--docs", "200", "--repeats", "1"],
        "the usual TREC run (50 topics x 1,000 docs) as whole processes; "
        "reference: trec_eval 10.0 (C), pytrec_eval, ranx, ir-measures",
    ),
    "trec-5m": (
        "bench_trec.py",
        ["--queries", "5000", "--docs", "1000"],
        ["--queries", "200", "--docs", "500", "--repeats", "1"],
        "a 5M-line run; reference: trec_eval 10.0 (C) and the Python peers",
    ),
    "trec-one-huge-query": (
        "bench_trec.py",
        ["--queries", "1", "--docs", "2000000", "--peers", "trec_eval,skirm"],
        [
            "--queries",
            "1",
            "--docs",
            "50000",
            "--peers",
            "trec_eval,skirm",
            "--repeats",
            "1",
        ],
        "one query of 2M documents; reference: trec_eval 10.0 (C)",
    ),
    "trec-many-tiny-queries": (
        "bench_trec.py",
        ["--queries", "200000", "--docs", "1", "--peers", "trec_eval,skirm"],
        [
            "--queries",
            "5000",
            "--docs",
            "1",
            "--peers",
            "trec_eval,skirm",
            "--repeats",
            "1",
        ],
        "200k queries of one document; reference: trec_eval 10.0 (C)",
    ),
    "metrics": (
        "bench_metrics.py",
        ["--rows", "1000000", "--memory"],
        ["--rows", "100000", "--repeat", "1", "--no-peers"],
        "evaluate on flat arrays; reference: the sort floor, scikit-learn, "
        "pytrec_eval, ir-measures, ranx, torchmetrics",
    ),
    "threads": (
        "bench_threads.py",
        ["--rows", "1000000", "10000000", "--pairs", "11"],
        ["--rows", "100000", "--pairs", "3"],
        "n_jobs=1 against n_jobs=2, first call and steady state",
    ),
    "first-calls": (
        "bench_first_calls.py",
        [],
        ["--rows", "100000", "--calls", "2", "--metrics", "3"],
        "the first five calls of a fresh process; reference: its steady state",
    ),
    "plot-all-cutoffs": (
        "bench_plot.py",
        ["--rows", "1000000"],
        ["--rows", "100000", "--repeat", "1"],
        "MetricAtKDisplay k = 1..100; reference: one evaluate at k = 10",
    ),
    "stats": (
        "bench_stats.py",
        [],
        ["--queries", "500", "--resamples", "1000", "--repeat", "1", "--no-peers"],
        "compare 10 systems, 45 pairs, 10k resamples; reference: ranx, scipy",
    ),
    "inputs": (
        "bench_inputs.py",
        [],
        ["--queries", "100", "--docs", "100", "--repeats", "1"],
        "users' objects into a Run; reference: pytrec_eval",
    ),
    "ids": (
        "bench_ids.py",
        [],
        ["--rows", "100000", "--rounds", "1"],
        "string and object query ids; reference: int64 ids",
    ),
    "frames": (
        "bench_frames.py",
        [],
        ["--rows", "50000", "--repeats", "1"],
        "pandas, polars and pyarrow frames into a Run and back",
    ),
    "lists": (
        "bench_lists.py",
        [],
        ["--users", "2000", "--repeat", "1"],
        "ranked id lists; reference: Spark-style and per-user loops",
    ),
    "families": (
        "bench_families.py",
        [],
        ["--queries", "300", "--repeat", "1"],
        "the diversity family; reference: pyndeval (ndeval's C)",
    ),
    "diversity_door": (
        "bench_diversity_door.py",
        ["--repeats", "5"],
        ["--repeats", "1", "--regimes", "web"],
        "every ndeval measure from subtopic qrels and a run, files and tuples; "
        "reference: pyndeval (ndeval's C)",
    ),
    "rel-formats": (
        "bench_rel_formats.py",
        ["--repeats", "5"],
        ["--queries", "20", "--docs", "100", "--judged", "20", "--repeats", "1"],
        "trec_eval's -R prefs and -R qrels_jg as whole processes; "
        "reference: trec_eval 10.0 (C)",
    ),
    "dicts": (
        "bench_dicts.py",
        ["--repeats", "5"],
        ["--queries", "500", "--docs", "50", "--repeats", "1"],
        "dicts of dicts in and out, 10,000 queries x 100 docs; "
        "reference: pytrec_eval (RelevanceEvaluator)",
    ),
    "training": (
        "bench_training.py",
        [],
        ["--rounds", "20", "--train", "10000", "--valid", "2000", "--repeat", "1"],
        "skirm's metric in LightGBM's rounds and over validation batches; "
        "reference: LightGBM's own ndcg@10, torchmetrics",
    ),
    "fusion": (
        "bench_fusion.py",
        [],
        ["--queries", "300", "--docs", "20", "--tune-queries", "100", "--repeats", "1"],
        "3 runs x 10,000 queries x 100 docs fused (RRF, CombMNZ), and 3 weights "
        "tuned on 5 folds of 1,000 queries; reference: ranx.fuse, optimize_fusion",
    ),
}


def _versions():
    names = ["numpy", "scipy", "scikit-learn", "pandas", "polars", "pyarrow"]
    found = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return found


def _commit():
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _run(argv):
    """``(wall seconds, peak RSS MiB, status, stdout, stderr)`` of a child."""
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = child.communicate()
    # communicate() has reaped the child; its rusage is the children's since
    # the previous call, as only one child runs at a time.
    wall = time.perf_counter() - start
    return wall, child.returncode, out, err


def run_suite(names, quick):
    import resource

    results = []
    for name in names:
        script, standard, small, what = SUITE[name]
        argv = [sys.executable, str(HERE / script), *(small if quick else standard)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        wall, status, out, err = _run(argv)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(f"{name}: {wall:.1f} s, exit {status}", file=sys.stderr)
        results.append(
            {
                "name": name,
                "regime": what,
                "command": " ".join(["python", f"benchmarks/{script}", *argv[2:]]),
                "wall_s": round(wall, 3),
                # max RSS of the children so far: this child's when it is the
                # largest yet, else an upper bound
                "peak_rss_mib": round(max(peak, before) / 1024, 1),
                "peak_is_this_child": peak > before,
                "status": status,
                "report": out,
                "stderr_tail": err[-2000:],
            }
        )
    return results


def compare(old_path, new_path):
    old = {r["name"]: r for r in json.loads(Path(old_path).read_text())["results"]}
    new = json.loads(Path(new_path).read_text())
    print(
        f"{'regime':<24} {'wall old':>9} {'wall new':>9} {'ratio':>6}  peak MiB old/new"
    )
    for r in new["results"]:
        o = old.get(r["name"])
        if o is None:
            continue
        ratio = r["wall_s"] / o["wall_s"] if o["wall_s"] else float("nan")
        print(
            f"{r['name']:<24} {o['wall_s']:>9.2f} {r['wall_s']:>9.2f} {ratio:>6.2f}"
            f"  {o['peak_rss_mib']:.0f}/{r['peak_rss_mib']:.0f}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--only", nargs="*", help="regimes whose name has these")
    parser.add_argument("--output", type=Path, default=None, help="the JSON file")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    parser.add_argument("--list", action="store_true", help="list the regimes")
    args = parser.parse_args(argv)
    if args.compare:
        compare(*args.compare)
        return 0
    if args.list:
        for name, (script, standard, _, what) in SUITE.items():
            print(f"{name:<24} {script} {' '.join(standard)}\n{'':<24} {what}")
        return 0
    names = [n for n in SUITE if not args.only or any(o in n for o in args.only)]
    if not names:
        parser.error(f"no regime has {args.only}; see --list")
    sys.path.insert(0, str(HERE))
    from _data import cache_bytecode

    cache_bytecode()  # as an install does: see the module's docstring
    results = run_suite(names, args.quick)
    today = datetime.date.today().isoformat()
    commit = _commit()
    document = {
        "date": today,
        "commit": commit,
        "quick": args.quick,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        "versions": _versions(),
        "bytecode": "compiled",
        "results": results,
    }
    out = args.output or HERE / "results" / f"{today}-{commit}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=1) + "\n")
    print(out)
    return max((r["status"] for r in results), default=0)


if __name__ == "__main__":
    sys.exit(main())
