"""TREC evaluation end to end: skirm next to trec_eval, pytrec_eval, ranx and
ir-measures, as whole processes and in-process.

Generates (seeded, in a temporary directory) a run of ``--queries`` x
``--docs`` lines with mixed real-world docno shapes and its qrels (see
``_trec_data.py``), then reports, for the 8 measures
``map ndcg ndcg_cut.10 P.10 recall.100 recip_rank bpref Rprec``:

- **whole process**: each tool started on the two files (wall time, CPU time
  and peak resident memory of the process, from ``os.wait4``): NIST
  trec_eval 10.0 (``--trec-eval PATH``, else built by
  ``../shared/tools/build-trec-eval``), ``skirm eval``, and a short script per
  Python peer that reads the files its usual way and evaluates;
- **in-process**: the evaluation call alone, inputs already in memory, for
  skirm (from the paths, from :class:`Qrels`/:class:`Run` read beforehand,
  and from string arrays) and the peers (their native objects);
- the largest difference between the summaries and trec_eval's;
- the start-up of a process step by step (a bare interpreter, ``import
  numpy``, the command line's imports) and the skirm modules with the
  largest self time in ``python -X importtime``.

Before any whole-process timing, skirm's modules are compiled to bytecode
(``__pycache__``), as an installed package ships them: with an editable
install and ``PYTHONDONTWRITEBYTECODE`` set, every process would otherwise
compile skirm from source, about 60 ms that no installed copy pays.

``--stream N`` instead writes an N-line run (and its qrels) in ``--tmp`` and
reports skirm's whole-process time and peak memory on it (and trec_eval's with
``--stream-peers``), then deletes the files.

``--startup`` instead times the commands that evaluate nothing (``skirm
--version``, ``skirm --help``, ``skirm eval --help``, ``skirm compare
--help``) beside a bare interpreter, ``import numpy`` and the usual run (50
topics x 1,000 documents, ``-m all_trec``), as whole processes (medians of
``--repeats``, the load average printed); with ``--instructions``, also
each command's instruction count under ``valgrind --tool=callgrind``, which
the load of a shared machine does not move. The target: under 0.3 s for
``--version`` and ``--help``, compiled.

``--long-docnos`` instead times docnos far longer than real ones: a run and
qrels of two lines whose one docno is 1 MB long, and 10,000 run lines (100
queries) of 300-byte docnos sharing a 280-byte prefix, their scores tied in
pairs (so the docnos break the ties); ``evaluate_run`` in-process, and
``skirm eval`` next to trec_eval as whole processes.

Run: ``python benchmarks/bench_trec.py [--queries 5000] [--docs 1000]
[--repeats 3] [--peers trec_eval,skirm,pytrec_eval,ranx,ir_measures]
[--long-docnos]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import cache_bytecode
from _trec_data import write_trec_files

ROOT = Path(__file__).resolve().parents[1]
MEASURES = "map ndcg ndcg_cut.10 P.10 recall.100 recip_rank bpref Rprec".split()
PEERS = ("trec_eval", "skirm", "pytrec_eval", "ranx", "ir_measures")

# Whole-process scripts of the Python peers: read the files their usual way,
# evaluate the 8 measures, print the means.
PYTREC_SCRIPT = """
import sys, pytrec_eval
qrels, run = {}, {}
with open(sys.argv[1]) as fh:
    for line in fh:
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
with open(sys.argv[2]) as fh:
    for line in fh:
        q, _, d, _, score, _ = line.split()[:6]
        run.setdefault(q, {})[d] = float(score)
measures = set(sys.argv[3].split(','))
out = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
for m in sorted(next(iter(out.values()))):
    print(m, sum(v[m] for v in out.values()) / len(out))
"""
IR_MEASURES_SCRIPT = """
import sys, ir_measures
from ir_measures import AP, nDCG, P, R, RR, Bpref, Rprec
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
measures = [AP, nDCG, nDCG@10, P@10, R@100, RR, Bpref, Rprec]
for m, v in ir_measures.calc_aggregate(measures, qrels, run).items():
    print(m, v)
"""
RANX_SCRIPT = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind='trec')
run = Run.from_file(sys.argv[2], kind='trec')
metrics = ['map', 'ndcg', 'ndcg@10', 'precision@10', 'recall@100', 'mrr',
           'bpref', 'r-precision']
for m, v in evaluate(qrels, run, metrics).items():
    print(m, v)
"""


def trec_eval_path(given):
    if given:
        return given
    tool = ROOT.parent / "shared" / "tools" / "build-trec-eval"
    if not tool.exists():
        return None
    out = subprocess.run([str(tool)], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def commands(peers, trec_eval, qrels, run):
    """``{name: argv}`` of the whole-process tasks."""
    py = sys.executable
    flags = [x for m in MEASURES for x in ("-m", m)]
    out = {}
    if "trec_eval" in peers and trec_eval:
        out["trec_eval 10.0 (C)"] = [trec_eval, *flags, qrels, run]
    if "skirm" in peers:
        out["skirm eval"] = [py, "-m", "skirm", "eval", "--format", "trec"]
        out["skirm eval"] += [*flags, qrels, run]
    scripts = {
        "pytrec_eval": PYTREC_SCRIPT,
        "ir_measures": IR_MEASURES_SCRIPT,
        "ranx": RANX_SCRIPT,
    }
    for name, script in scripts.items():
        if name in peers:
            out[f"{name} (script)"] = [py, "-c", script, qrels, run, ",".join(MEASURES)]
    return out


# A small launcher times the tool and reads its peak memory. On Linux a
# process's max RSS is carried over from the process that forked it (the
# parent's high-water mark is recorded at exec), so a tool started from this
# large process would report this process's size; started from the small
# launcher it reports its own (plus at most the launcher's few MiB). The
# launcher's own start-up is outside the timing.
_LAUNCH = """
import os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
wall = time.perf_counter() - start
cpu = usage.ru_utime + usage.ru_stime
os.write(int(sys.argv[1]), f"{wall} {cpu} {usage.ru_maxrss}".encode())
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_process(argv):
    """``(wall s, CPU s, peak RSS bytes, stdout)`` of one process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    read, write = os.pipe()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(write), *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            env=env,
            pass_fds=(write,),
        )
        os.close(write)
        err = proc.stderr.read().decode()
        proc.wait()
        report = os.read(read, 256).decode().split()
        os.close(read)
        if proc.returncode:
            raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {err}")
        out.seek(0)
        text = out.read().decode()
    wall, cpu, maxrss = float(report[0]), float(report[1]), int(report[2])
    return wall, cpu, maxrss * 1024, text


def trec_means(text):
    """``{measure: value}`` from trec_eval's summary lines."""
    out = {}
    for line in text.splitlines():
        name, query, value = line.split()
        if query == "all":
            out[name] = float(value)
    return out


def whole_process(tasks, repeats):
    """Tasks side by side, ``repeats`` rounds; medians of wall and CPU."""
    rows = {name: [] for name in tasks}
    outputs = {}
    for _ in range(repeats):
        for name, argv in tasks.items():
            wall, cpu, rss, text = run_process(argv)
            rows[name].append((wall, cpu, rss))
            outputs[name] = text
    table = {}
    for name, values in rows.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        table[name] = (wall, cpu, max(v[2] for v in values))
    return table, outputs


def startup(repeats):
    """``{step: median wall seconds}`` of the start-up of a ``skirm eval``
    process, step by step: a bare interpreter, numpy, and the modules the
    command line imports before it reads a file."""
    py = sys.executable
    steps = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import numpy'": [py, "-c", "import numpy"],
        "python -c 'import skirm._cli._eval_command'": [
            py,
            "-c",
            "import skirm._cli._eval_command",
        ],
    }
    table, _ = whole_process(steps, repeats)
    return {name: wall for name, (wall, _, _) in table.items()}


def skirm_import_self_times(top=8):
    """``(total, [(ms, module)])``: the self time of each skirm module the
    command line imports, from one ``python -X importtime`` run."""
    argv = [sys.executable, "-X", "importtime", "-c", "import skirm._cli._eval_command"]
    err = subprocess.run(argv, capture_output=True, text=True, check=True).stderr
    rows = []
    for line in err.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) == 3 and fields[2].strip().startswith("skirm"):
            rows.append((int(fields[0]) / 1000, fields[2].strip()))
    rows.sort(reverse=True)
    return sum(ms for ms, _ in rows), rows[:top]


def _print_startup(repeats, whole):
    steps = startup(repeats)
    print("| start-up of a process | wall (ms) |")
    print("| --- | ---: |")
    for name, wall in steps.items():
        print(f"| {name} | {1000 * wall:.1f} |")
    if "skirm eval" in whole:
        wall = whole["skirm eval"][0]
        print(f"| skirm eval (whole run, above) | {1000 * wall:.1f} |")
    total, rows = skirm_import_self_times()
    print(
        f"\n`python -X importtime`: skirm's own modules take {total:.1f} ms of "
        "self time (importtime's bookkeeping inflates it); the largest: "
        + ", ".join(f"{name} {ms:.1f}" for ms, name in rows)
        + ".\n"
    )


def timed(function, repeats):
    """Median wall and CPU seconds of ``function()`` after a warm-up."""
    function()
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def in_process(peers, qrels_path, run_path, repeats):
    """``{task: (wall, cpu)}`` of the evaluation calls, inputs in memory."""
    from skirm.io import Qrels, Run, read_qrels, read_run
    from skirm.trec import evaluate_run

    qrels, run = read_qrels(qrels_path), read_run(run_path)
    q_ids, d_ids, scores = run.query_ids, run.doc_ids, run.scores
    j_q, j_d, labels = qrels.query_ids, qrels.doc_ids, qrels.labels
    tasks = {
        "skirm evaluate_run(paths)": lambda: evaluate_run(
            qrels_path, run_path, MEASURES
        ),
        "skirm evaluate_run(Qrels, Run) from str arrays": lambda: evaluate_run(
            Qrels(j_q, j_d, labels), Run(q_ids, d_ids, scores), MEASURES
        ),
        "skirm evaluate_run(Qrels, Run) as read": lambda: evaluate_run(
            qrels, run, MEASURES
        ),
    }
    dicts = None
    if {"pytrec_eval", "ranx", "ir_measures"} & set(peers):
        dicts = _dicts(j_q, j_d, labels, q_ids, d_ids, scores)
    if "pytrec_eval" in peers:
        import pytrec_eval

        tasks["pytrec_eval RelevanceEvaluator (dicts)"] = lambda: (
            pytrec_eval.RelevanceEvaluator(dicts[0], set(MEASURES)).evaluate(dicts[1])
        )
    if "ir_measures" in peers:
        import ir_measures
        from ir_measures import AP, RR, Bpref, P, R, Rprec, nDCG

        ms = [AP, nDCG, nDCG @ 10, P @ 10, R @ 100, RR, Bpref, Rprec]
        tasks["ir_measures calc_aggregate (dicts)"] = lambda: (
            ir_measures.calc_aggregate(ms, *dicts)
        )
    if "ranx" in peers:
        from ranx import Qrels as RQrels, Run as RRun, evaluate as ranx_evaluate

        metrics = ["map", "ndcg", "ndcg@10", "precision@10", "recall@100", "mrr"]
        metrics += ["bpref", "r-precision"]
        r_objects = (RQrels(dicts[0]), RRun(dicts[1]))
        tasks["ranx evaluate (its Qrels, Run)"] = lambda: ranx_evaluate(
            *r_objects, metrics
        )
    return {name: timed(task, repeats) for name, task in tasks.items()}


def _dicts(j_q, j_d, labels, q_ids, d_ids, scores):
    qrels, run = {}, {}
    for q, d, rel in zip(j_q.tolist(), j_d.tolist(), labels.tolist(), strict=True):
        qrels.setdefault(q, {})[d] = rel
    for q, d, s in zip(q_ids.tolist(), d_ids.tolist(), scores.tolist(), strict=True):
        run.setdefault(q, {})[d] = s
    return qrels, run


def stream(args, trec_eval):
    """Whole-process time and peak memory on a large generated run."""
    n_queries = max(1, args.stream // args.docs)
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        start = time.perf_counter()
        qrels, run = write_trec_files(
            tmp, n_queries, args.docs, judged=args.judged, name="big"
        )
        size = run.stat().st_size
        print(
            f"Generated {n_queries * args.docs:,} run lines ({size / 2**30:.2f} GiB)"
            f", {sum(1 for _ in open(qrels)):,} qrels lines in "
            f"{time.perf_counter() - start:.0f} s\n"
        )
        peers = ["skirm"] + (["trec_eval"] if args.stream_peers else [])
        tasks = commands(peers, trec_eval, str(qrels), str(run))
        table, outputs = whole_process(tasks, 1)
        _print_process_table(table)
        _print_agreement(outputs)


def write_long_docnos(folder):
    """``{case: (qrels, run)}``: the files of the long-docno cases."""
    folder = Path(folder)
    cases = {}
    long = "d" * 1_000_000
    one = folder / "one_mb.qrels", folder / "one_mb.run"
    one[0].write_text(f"1 0 {long} 1\n1 0 short 0\n")
    one[1].write_text(f"1 Q0 {long} 1 2.0 r\n1 Q0 short 2 1.0 r\n")
    cases["2 lines, one docno of 1 MB"] = one
    rng = np.random.default_rng(0)
    prefix = "x" * 280
    run_lines, qrels_lines = [], []
    for q in range(100):
        numbers = rng.choice(10**12, size=100, replace=False)
        scores = np.repeat(np.round(rng.random(50), 4), 2)
        labels = rng.choice([0, 0, 1, 2], size=100)
        for i, (x, s) in enumerate(zip(numbers.tolist(), scores.tolist(), strict=True)):
            doc = f"{prefix}{x:020d}"
            run_lines.append(f"{q} Q0 {doc} {i + 1} {s} r\n")
            if i % 3 == 0:
                qrels_lines.append(f"{q} 0 {doc} {labels[i]}\n")
    many = folder / "many.qrels", folder / "many.run"
    many[0].write_text("".join(qrels_lines))
    many[1].write_text("".join(run_lines))
    cases["10,000 lines, docnos of 300 bytes"] = many
    return cases


def long_docnos(args, trec_eval):
    """In-process and whole-process times on the long-docno cases."""
    from skirm.trec import evaluate_run

    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        cases = write_long_docnos(tmp)
        print("| long docnos, in-process | evaluate_run wall (s) | CPU (s) |")
        print("| --- | ---: | ---: |")
        for name, (qrels, run) in cases.items():
            wall, cpu = timed(lambda q=qrels, r=run: evaluate_run(q, r, MEASURES), 3)
            print(f"| {name} | {wall:.3f} | {cpu:.3f} |")
        print()
        for name, (qrels, run) in cases.items():
            print(f"{name}, whole process:\n")
            tasks = commands(["trec_eval", "skirm"], trec_eval, str(qrels), str(run))
            table, outputs = whole_process(tasks, args.repeats)
            _print_process_table(table)
            _print_agreement(outputs)


def instructions(argv):
    """The instructions one process runs, counted by callgrind (one BLAS
    thread, so that numpy's start-up counts the same each time)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    grind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    err = subprocess.run(
        [*grind, *argv], capture_output=True, text=True, env=env, check=True
    ).stderr
    for line in err.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1])
    raise RuntimeError(f"callgrind gave no count for {argv}: {err[-500:]}")


def command_startup(args):
    """``--startup``: see the module's docstring."""
    py = sys.executable
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        qrels, run = write_trec_files(tmp, 50, 1000)
        tasks = {
            "python -c pass": [py, "-c", "pass"],
            "python -c 'import numpy'": [py, "-c", "import numpy"],
            "skirm --version": [py, "-m", "skirm", "--version"],
            "skirm --help": [py, "-m", "skirm", "--help"],
            "skirm eval --help": [py, "-m", "skirm", "eval", "--help"],
            "skirm compare --help": [py, "-m", "skirm", "compare", "--help"],
            "skirm eval -m all_trec, the usual run": [
                *(py, "-m", "skirm", "eval", "-m", "all_trec"),
                *(str(qrels), str(run)),
            ],
        }
        load = os.getloadavg()[0]
        table, _ = whole_process(tasks, args.repeats)
        load = (load + os.getloadavg()[0]) / 2
        counts = {}
        if args.instructions:
            counts = {name: instructions(argv) for name, argv in tasks.items()}
    usual = table["skirm eval -m all_trec, the usual run"][0]
    print(
        f"Start-up, bytecode compiled; medians of {args.repeats} rounds, the "
        f"commands in turn; load average {load:.1f}.\n"
    )
    print("| command | wall (ms) | CPU (ms) | wall / the usual run | instructions |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, (wall, cpu, _) in table.items():
        count = f"{counts[name] / 1e6:.1f} M" if name in counts else ""
        print(
            f"| {name} | {1000 * wall:.0f} | {1000 * cpu:.0f} | "
            f"{wall / usual:.2f} | {count} |"
        )


def _print_process_table(table):
    base = next((v for k, v in table.items() if k.startswith("trec_eval")), None)
    print(
        "| whole process | wall (s) | CPU (s) | peak RSS (MiB) "
        "| trec_eval ÷ it, wall | CPU | memory |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, (wall, cpu, rss) in table.items():
        ratios = ["", "", ""]
        if base:
            ratios = [f"{base[i] / v:.2f}x" for i, v in enumerate((wall, cpu, rss))]
        print(
            f"| {name} | {wall:.3f} | {cpu:.3f} | {rss / 2**20:.0f} | "
            + " | ".join(ratios)
            + " |"
        )
    print()


def _print_agreement(outputs):
    ref = next((v for k, v in outputs.items() if k.startswith("trec_eval")), None)
    ours = outputs.get("skirm eval")
    if ref is None or ours is None:
        return
    a, b = trec_means(ref), trec_means(ours)
    worst = max(abs(a[k] - b[k]) for k in a)
    same = "identical" if ref == ours else "different"
    print(f"skirm eval vs trec_eval output: {same}; max |difference| {worst:.1e}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=float, default=0.15)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peers", default=",".join(PEERS))
    parser.add_argument("--no-in-process", action="store_true")
    parser.add_argument("--trec-eval", default=None)
    parser.add_argument("--stream", type=int, default=0, metavar="LINES")
    parser.add_argument("--stream-peers", action="store_true")
    parser.add_argument("--tmp", default=None)
    parser.add_argument("--long-docnos", action="store_true")
    parser.add_argument("--startup", action="store_true")
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
    peers = args.peers.split(",")
    cache_bytecode()
    if args.startup:
        command_startup(args)
        return
    trec_eval = trec_eval_path(args.trec_eval) if "trec_eval" in peers else None
    if args.stream:
        stream(args, trec_eval)
        return
    if args.long_docnos:
        long_docnos(args, trec_eval)
        return
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        qrels, run = write_trec_files(tmp, args.queries, args.docs, judged=args.judged)
        n = args.queries * args.docs
        print(
            f"Run: {n:,} lines, {args.queries:,} queries, mixed docno shapes; "
            f"{len(MEASURES)} measures; medians of {args.repeats}.\n"
        )
        tasks = commands(peers, trec_eval, str(qrels), str(run))
        table, outputs = whole_process(tasks, args.repeats)
        _print_process_table(table)
        _print_agreement(outputs)
        if "skirm" in peers:
            _print_startup(args.repeats, table)
        if not args.no_in_process:
            rows = in_process(peers, str(qrels), str(run), args.repeats)
            print("| in-process (inputs in memory) | wall (s) | CPU (s) | µs/row |")
            print("| --- | ---: | ---: | ---: |")
            for name, (wall, cpu) in rows.items():
                print(f"| {name} | {wall:.2f} | {cpu:.2f} | {1e6 * wall / n:.2f} |")


if __name__ == "__main__":
    main()
